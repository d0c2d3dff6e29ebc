//! Whole files written from Python, under the CLI's output rules
//! ([`binfmt_core::output`]): a temporary file beside the target, synced and renamed over
//! it (keeping the old file's mode and, where permitted, its owner; a symbolic link is
//! followed and stays a link); a FIFO or character device is streamed into. The old file
//! is never truncated nor rewritten in place, so memory maps of it (numpy arrays from
//! `binfmt.kastore.load`, say) keep reading the old bytes.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use binfmt_core::output::{Output, OutputOptions};
use pyo3::exceptions::{PyIsADirectoryError, PyOSError};

/// `EISDIR` (21 on Linux, the BSDs and macOS).
const EISDIR: i32 = 21;
use pyo3::prelude::*;

/// `error` about `path` as the `OSError` subclass Python picks for its errno
/// (`FileNotFoundError`, `PermissionError`…), with `errno`, `strerror` and, given a
/// path, `filename` set.
pub(crate) fn os_error(py: Python<'_>, error: &io::Error, path: Option<&Path>) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let errno = error.raw_os_error().unwrap_or(0);
        let text = match error.raw_os_error() {
            Some(_) => {
                // `io::Error`'s Display adds " (os error N)"; Python's strerror does not.
                let full = error.to_string();
                match full.rfind(" (os error ") {
                    Some(at) => full.get(..at).unwrap_or(&full).to_owned(),
                    None => full,
                }
            }
            None => error.to_string(),
        };
        if errno == 0 {
            if let Some(path) = path
                && path.is_dir()
            {
                // Refused by the output rules: the errno Python code expects (EISDIR).
                let args = (EISDIR, "Is a directory", path);
                let exc = py.get_type::<PyIsADirectoryError>().call1(args)?;
                return Ok(PyErr::from_value(exc));
            }
            // Another refusal of the output rules: the io kind's class, path in the text.
            let text = match path {
                Some(path) => format!("{}: {text}", path.display()),
                None => text,
            };
            return Ok(io::Error::new(error.kind(), text).into());
        }
        let exc = match path {
            Some(path) => py.get_type::<PyOSError>().call1((errno, text, path))?,
            None => py.get_type::<PyOSError>().call1((errno, text))?,
        };
        Ok(PyErr::from_value(exc))
    })();
    made.unwrap_or_else(|e| e)
}

/// Writes `data` to `path` under the output rules above; raises `OSError` (with
/// `filename`) on failure, leaving `path` untouched.
#[pyfunction]
pub(crate) fn write_file(py: Python<'_>, path: PathBuf, data: &[u8]) -> PyResult<()> {
    let result = py.detach(|| -> io::Result<()> {
        let mut out = Output::create(&path, &OutputOptions::new().replace(true))?;
        out.write_all(data)?;
        out.commit()
    });
    result.map_err(|e| os_error(py, &e, Some(&path)))
}
