//! Reference implementations loaded at run time, for timing side by side with ours.
//!
//! This is the bench crate's only `unsafe`: calling into a C library through a
//! function pointer. The bench crate is not published and no library depends on it. Each
//! binding below states the C signature it assumes; the libraries are the exact releases
//! the reference documents name (tacozip 0.13.0 from its PyPI wheel).
#![allow(unsafe_code)]

use std::path::PathBuf;

use libloading::{Library, Symbol};

/// The shared library named by environment variable `var`, or `None` (and a note on
/// stderr) when it is unset or cannot be loaded.
pub fn load(var: &str, what: &str) -> Option<Library> {
    let Some(path) = std::env::var_os(var).map(PathBuf::from) else {
        eprintln!("note: {var} is not set: {what} is not timed in this run");
        return None;
    };
    // SAFETY: loading a library runs its initialisers; the path is the reference's own
    // library, chosen by the person running the bench.
    match unsafe { Library::new(&path) } {
        Ok(lib) => Some(lib),
        Err(e) => {
            eprintln!(
                "note: cannot load {} ({var}): {e}; {what} is not timed",
                path.display()
            );
            None
        }
    }
}

/// tacozip 0.13's `taco_meta_array_t`: a count and seven (offset, length) pairs, 120 bytes
/// with the pairs at +8.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct TacoMetaArray {
    /// Number of entries.
    pub count: u8,
    /// (offset, length) pairs.
    pub entries: [[u64; 2]; 7],
}

const _: () = assert!(size_of::<TacoMetaArray>() == 120);

/// `int tacozip_parse_header(const unsigned char *buf, size_t len, taco_meta_array_t *out)`.
pub struct TacozipParseHeader<'lib> {
    func: Symbol<'lib, unsafe extern "C" fn(*const u8, usize, *mut TacoMetaArray) -> i32>,
}

impl<'lib> TacozipParseHeader<'lib> {
    /// Looks the function up in `lib`.
    pub fn new(lib: &'lib Library) -> Option<Self> {
        // SAFETY: the symbol is declared with tacozip 0.13's signature (tacozip.h).
        let func = unsafe { lib.get(b"tacozip_parse_header\0") }.ok()?;
        Some(TacozipParseHeader { func })
    }

    /// Calls it on `buf`.
    pub fn call(&self, buf: &[u8], out: &mut TacoMetaArray) -> i32 {
        // SAFETY: `buf` is valid for `buf.len()` bytes and `out` for one meta array; the
        // function reads at most `len` bytes and writes only `*out`.
        unsafe { (self.func)(buf.as_ptr(), buf.len(), out) }
    }
}
