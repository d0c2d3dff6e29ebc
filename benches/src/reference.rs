//! Reference implementations loaded at run time, for timing side by side with ours.
//!
//! All of the bench crate's `unsafe` is here: loading the reference's C library and
//! calling it through a function pointer. The bench crate is not published and no library
//! depends on it. Each binding states the C signature it assumes; the libraries are the
//! releases the reference documents name (tacozip 0.13.0 from its PyPI wheel, the kastore
//! C library from the kastore 0.3.6 sdist).
#![allow(unsafe_code)]

pub mod kastore;
pub mod tacozip;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;

use libloading::Library;

/// The Python with the reference implementations installed (`BINFMT_PYTHON`), if set.
pub fn python() -> Option<OsString> {
    std::env::var_os("BINFMT_PYTHON").filter(|p| !p.is_empty())
}

/// Loads the shared library at `path`.
///
/// # Errors
/// Why it cannot be loaded.
pub fn load(path: &std::path::Path) -> Result<Library, String> {
    // SAFETY: loading a library runs its initialisers; the path is a reference
    // implementation's own library, built or installed for this purpose.
    unsafe { Library::new(path) }.map_err(|e| format!("cannot load {}: {e}", path.display()))
}

/// The path in environment variable `var`, or else the one `find` works out, or the
/// reason there is none.
///
/// # Errors
/// What `find` returns.
pub fn locate(
    var: &str,
    find: impl FnOnce() -> Result<PathBuf, String>,
) -> Result<PathBuf, String> {
    match std::env::var_os(var) {
        Some(path) if !path.is_empty() => Ok(PathBuf::from(path)),
        _ => find(),
    }
}

/// Runs `command` and takes the path it prints. `what` names the command in the error when
/// it cannot run; `failed` starts the error when it fails, followed by its standard error.
///
/// # Errors
/// Why it did not run, or did not succeed.
pub fn printed_path(command: &mut Command, what: &str, failed: &str) -> Result<PathBuf, String> {
    let out = command
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{failed}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}
