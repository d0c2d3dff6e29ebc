//! A [`ByteSource`] over any Python object that can be sliced into bytes (`mmap.mmap`,
//! `bytes`, `bytearray`, `memoryview`): readers that work by ranges read only the ranges
//! they need (a kastore store's metadata, a TACO header) from a Python memory map, with
//! no `unsafe` and without the buffer protocol (not in the stable ABI before 3.11).

use core::ops::Range;
use std::borrow::Cow;
use std::io;

use binfmt_core::source::{ByteSource, past_end};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PySlice};

/// Ranges of a Python object, read with `obj[start:end]` while attached to the interpreter.
pub(crate) struct PySliceSource<'py> {
    obj: Bound<'py, PyAny>,
    len: u64,
}

impl<'py> PySliceSource<'py> {
    pub(crate) fn new(obj: Bound<'py, PyAny>) -> PyResult<Self> {
        let len = u64::try_from(obj.len()?).unwrap_or(u64::MAX);
        Ok(PySliceSource { obj, len })
    }
}

fn to_isize(n: u64) -> io::Result<isize> {
    isize::try_from(n).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "offset too large"))
}

impl ByteSource for PySliceSource<'_> {
    fn len(&self) -> io::Result<u64> {
        Ok(self.len)
    }

    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        if range.end > self.len || range.start > range.end {
            return Err(past_end(range, self.len));
        }
        let py = self.obj.py();
        let slice = PySlice::new(py, to_isize(range.start)?, to_isize(range.end)?, 1);
        let got = self.obj.get_item(slice).map_err(io::Error::other)?;
        let bytes = match got.cast::<PyBytes>() {
            Ok(b) => b.as_bytes().to_vec(),
            Err(_) => got.extract::<Vec<u8>>().map_err(io::Error::other)?,
        };
        Ok(Cow::Owned(bytes))
    }
}

/// A local file or, with the `remote` feature, an object behind a URL: what the readers
/// that accept both (`taridx`, `taco`) hold.
pub(crate) enum AnySource {
    File(binfmt_core::source::FileSource),
    #[cfg(feature = "remote")]
    Remote(binfmt_remote::RemoteSource),
}

macro_rules! each {
    ($self:ident, $s:ident => $e:expr) => {
        match $self {
            AnySource::File($s) => $e,
            #[cfg(feature = "remote")]
            AnySource::Remote($s) => $e,
        }
    };
}

impl ByteSource for AnySource {
    fn len(&self) -> io::Result<u64> {
        each!(self, s => s.len())
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        each!(self, s => s.read_range(range))
    }
    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Cow<'_, [u8]>>> {
        each!(self, s => s.read_ranges(ranges))
    }
    fn read_head(&self, max_len: u64) -> io::Result<Cow<'_, [u8]>> {
        each!(self, s => s.read_head(max_len))
    }
    fn read_tail(&self, max_len: u64) -> io::Result<(u64, Cow<'_, [u8]>)> {
        each!(self, s => s.read_tail(max_len))
    }
    fn as_slice(&self) -> Option<&[u8]> {
        each!(self, s => s.as_slice())
    }
}

/// Whether `arg` is a URL this build reads (`s3://`, `gs://`, `az://`, `http(s)://`,
/// `file://`, …); without the `remote` feature, whether it looks like one.
#[pyfunction]
pub(crate) fn is_url(arg: &str) -> bool {
    #[cfg(feature = "remote")]
    {
        binfmt_remote::is_url(arg)
    }
    #[cfg(not(feature = "remote"))]
    {
        arg.split_once("://")
            .is_some_and(|(s, _)| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric()))
    }
}

/// Whether this build reads URLs (the `remote` cargo feature).
#[pyfunction]
pub(crate) fn remote_enabled() -> bool {
    cfg!(feature = "remote")
}

/// Opens `url` (options from the `BINFMT_REMOTE_*` and object-store environment
/// variables). Call without the GIL: building the store may resolve credentials.
#[cfg(feature = "remote")]
pub(crate) fn open_url(url: &str) -> io::Result<AnySource> {
    let options = binfmt_remote::Options::from_env()?;
    binfmt_remote::RemoteSource::open_with(url, &options).map(AnySource::Remote)
}

/// Without the `remote` feature: the error a URL gets.
#[cfg(not(feature = "remote"))]
pub(crate) fn open_url(url: &str) -> io::Result<AnySource> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "{url}: this build of binfmt reads no URLs (built without the `remote` cargo \
             feature of binfmt-python)"
        ),
    ))
}
