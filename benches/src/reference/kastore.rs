//! The reference kastore C library (API 2.1.3 from the kastore 0.3.6 source distribution),
//! built by `tools/kastore/build_c_reference.py` and loaded at run time.
//!
//! The C side (`tools/kastore/kasbench.c`) keeps every kastore struct to itself, so
//! nothing here depends on a C layout.

use std::ffi::{CStr, CString, c_char, c_int};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `int kasbench_open_get_all(const char *path, int flags, uint64_t *elements)`.
type OpenGetAll = unsafe extern "C" fn(*const c_char, c_int, *mut u64) -> c_int;
/// `int kasbench_open_get_one(const char *path, int flags, const char *key,
/// size_t key_len, uint64_t *elements)`.
type OpenGetOne =
    unsafe extern "C" fn(*const c_char, c_int, *const c_char, usize, *mut u64) -> c_int;
/// `int kasbench_version(void)`.
type VersionFn = unsafe extern "C" fn() -> c_int;

/// `KAS_READ_ALL` from kastore.h.
const KAS_READ_ALL: c_int = 1;

pub struct ReferenceC {
    // Kept alive for as long as `open_get_all` may be called.
    _library: libloading::Library,
    open_get_all: OpenGetAll,
    open_get_one: OpenGetOne,
    pub version: String,
    pub path: PathBuf,
}

impl ReferenceC {
    /// Loads `KASTORE_REFERENCE_LIB`, or builds the library with `BINFMT_PYTHON` (pip
    /// download of the sdist, gcc) into `out_dir` and loads that. `Err` says why not.
    pub fn load(out_dir: &Path) -> Result<ReferenceC, String> {
        let path = super::locate("KASTORE_REFERENCE_LIB", || build(out_dir))?;
        let library = super::load(&path)?;
        // SAFETY: the types match the C definitions in tools/kastore/kasbench.c. The
        // function pointers are copied out of the symbols and used only while `library`,
        // stored alongside them, is loaded.
        let (open_get_all, open_get_one, version) = unsafe {
            let open: libloading::Symbol<'_, OpenGetAll> = library
                .get(b"kasbench_open_get_all\0")
                .map_err(|e| e.to_string())?;
            let one: libloading::Symbol<'_, OpenGetOne> = library
                .get(b"kasbench_open_get_one\0")
                .map_err(|e| e.to_string())?;
            let version: libloading::Symbol<'_, VersionFn> = library
                .get(b"kasbench_version\0")
                .map_err(|e| e.to_string())?;
            (*open, *one, version())
        };
        Ok(ReferenceC {
            _library: library,
            open_get_all,
            open_get_one,
            version: format!(
                "{}.{}.{}",
                version / 10000,
                version / 100 % 100,
                version % 100
            ),
            path,
        })
    }

    /// Opens `path`, gets every array by its key, closes; returns the element count.
    ///
    /// # Panics
    /// When the library reports an error (the benchmark's file is valid).
    pub fn open_get_all(&self, path: &CStr, read_all: bool) -> u64 {
        let mut elements = 0u64;
        let flags = if read_all { KAS_READ_ALL } else { 0 };
        // SAFETY: `path` is a NUL-terminated string that outlives the call, `elements` is
        // a valid u64 to write to, and the function keeps neither pointer after returning.
        let status = unsafe { (self.open_get_all)(path.as_ptr(), flags, &mut elements) };
        assert_eq!(status, 0, "kastore C library error {status}");
        elements
    }
}

impl ReferenceC {
    /// Opens `path`, gets the array under `key`, closes; returns its element count.
    ///
    /// # Panics
    /// When the library reports an error (the benchmark's file is valid).
    pub fn open_get_one(&self, path: &CStr, read_all: bool, key: &[u8]) -> u64 {
        let mut elements = 0u64;
        let flags = if read_all { KAS_READ_ALL } else { 0 };
        // SAFETY: `path` is NUL-terminated, `key` is valid for `key.len()` bytes, both
        // outlive the call, `elements` is a valid u64 to write to, and the function keeps
        // no pointer after returning.
        let status = unsafe {
            (self.open_get_one)(
                path.as_ptr(),
                flags,
                key.as_ptr().cast(),
                key.len(),
                &mut elements,
            )
        };
        assert_eq!(status, 0, "kastore C library error {status}");
        elements
    }
}

fn build(out_dir: &Path) -> Result<PathBuf, String> {
    let python = super::python()
        .ok_or("set BINFMT_PYTHON (a Python with pip) or KASTORE_REFERENCE_LIB to measure it")?;
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/kastore/build_c_reference.py");
    super::printed_path(
        Command::new(python).arg(script).arg(out_dir),
        "build_c_reference.py",
        "build_c_reference.py failed",
    )
}

/// `path` as a C string.
pub fn c_path(path: &Path) -> CString {
    CString::new(path.as_os_str().as_encoded_bytes()).expect("no NUL in the bench path")
}
