//! Rust errors to Python exceptions.
//!
//! Every format error becomes an instance of a class from `binfmt._errors` (chosen there
//! from the format and the variant's stable name, [`Kind::name`], never from `Debug`
//! output), whose `str()` is the library error's `Display` (`byte N: message`, as the CLI
//! prints after `FILE: `). Errors that wrap an operating-system error become the
//! matching `OSError` subclass, with `errno` and `strerror` set.

use binfmt_core::{Error, Fault, Kind};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

fn fault_name(fault: Fault) -> &'static str {
    match fault {
        Fault::Input => "input",
        Fault::Unsupported => "unsupported",
        Fault::Caller => "caller",
        Fault::Io => "io",
        Fault::Limit => "limit",
        _ => "other",
    }
}

/// `error`, from the crate of `format`, as a Python exception.
pub(crate) fn to_py<K>(format: &'static str, error: Error<K>) -> PyErr
where
    K: Kind,
{
    let fault = error.fault();
    let offset = error.offset();
    let text = error.to_string();
    let message = binfmt_core::Diagnostic::message(&error).to_string();
    let name = error.kind().name();
    if fault == Fault::Io
        && let Ok(io) = error.into_kind().into_io_error()
    {
        // errno and strerror set, as Python's own OSErrors have them.
        return Python::attach(|py| crate::output::os_error(py, &io, None));
    }
    Python::attach(|py| {
        let made = (|| -> PyResult<PyErr> {
            let factory = py.import("binfmt._errors")?.getattr("_from_rust")?;
            let args = PyTuple::new(
                py,
                [
                    format.into_pyobject(py)?.into_any(),
                    name.into_pyobject(py)?.into_any(),
                    fault_name(fault).into_pyobject(py)?.into_any(),
                    offset.into_pyobject(py)?.into_any(),
                    message.into_pyobject(py)?.into_any(),
                    text.clone().into_pyobject(py)?.into_any(),
                ],
            )?;
            let exc = factory.call1(args)?;
            Ok(PyErr::from_value(exc))
        })();
        made.unwrap_or_else(|_| PyValueError::new_err(text))
    })
}

/// `Result<T, Error<K>>` to `PyResult<T>`, naming the format.
pub(crate) trait IntoPy<T> {
    fn py_err(self, format: &'static str) -> PyResult<T>;
}

impl<T, K: Kind> IntoPy<T> for Result<T, Error<K>> {
    fn py_err(self, format: &'static str) -> PyResult<T> {
        self.map_err(|e| to_py(format, e))
    }
}
