//! tacozip 0.13's C `tacozip_parse_header`, from the library its PyPI wheel ships.

use std::process::Command;

use libloading::{Library, Symbol};

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

/// Loads `libtacozip.so`: the path in `BINFMT_TACOZIP_LIB`, or the one inside the
/// tacozip package of `BINFMT_PYTHON`.
///
/// # Errors
/// Why it cannot be found or loaded.
pub fn load() -> Result<Library, String> {
    let path = super::locate("BINFMT_TACOZIP_LIB", || {
        let python =
            super::python().ok_or("set BINFMT_PYTHON or BINFMT_TACOZIP_LIB to time tacozip")?;
        super::printed_path(
            Command::new(python).args(["-c", "import os, tacozip; print(os.path.join(os.path.dirname(tacozip.__file__), 'libtacozip.so'))"]),
            "BINFMT_PYTHON",
            "tacozip is not installed",
        )
    })?;
    super::load(&path)
}

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
