//! `binfmt.kastore`: the index of a store (where each array is) for zero-copy numpy views,
//! and the writer. The Python side (`python/binfmt/kastore/__init__.py`) builds the
//! arrays with `numpy.frombuffer(buffer, dtype, count, offset)` from the offsets computed
//! here; a path is opened and checked here (positioned reads, without the GIL) and only
//! mapped by Python, through the descriptor returned.

use std::path::PathBuf;

use binfmt_core::cache::ReadCache;
use binfmt_core::data::Data;
use binfmt_core::source::FileSource;
use kastore::{AnyArray, DType, ReadOptions, Reader, Store, Writer};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::IntoPy;
use crate::source::{AnySource, open_url};

const FORMAT: &str = "kastore";

/// One item: key bytes, numpy dtype name, array offset in bytes (from the store's start),
/// element count.
type IndexItem<'py> = (Bound<'py, PyBytes>, &'static str, u64, u64);

/// [`IndexItem`] read without the GIL.
type RawItem = (Vec<u8>, &'static str, u64, u64);

/// The items of `store`, for Python.
fn raw_items<'d, D: Data<'d>>(store: &Store<'d, D>) -> Vec<RawItem> {
    store
        .items()
        .map(|item| {
            (
                item.key().to_vec(),
                item.dtype().name(),
                item.array_offset(),
                item.array_len(),
            )
        })
        .collect()
}

fn to_py_items(py: Python<'_>, items: Vec<RawItem>) -> Vec<IndexItem<'_>> {
    items
        .into_iter()
        .map(|(k, t, o, n)| (PyBytes::new(py, &k), t, o, n))
        .collect()
}

fn memory_error(what: &str) -> PyErr {
    pyo3::exceptions::PyMemoryError::new_err(format!("{what} too large for memory"))
}

/// The size of a store's header, where `file_size` is read from.
pub(crate) const HEADER_SIZE: usize = kastore::HEADER_SIZE;

/// `(items, file_size)` of the store at the start of `data`. Checks every rule
/// `kastore::Store::parse` checks and raises its first error.
#[pyfunction]
pub(crate) fn kastore_index<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyBytes>,
) -> PyResult<(Vec<IndexItem<'py>>, u64)> {
    let store = Store::parse(data.as_bytes()).py_err(FORMAT)?;
    Ok((to_py_items(py, raw_items(&store)), store.file_size()))
}

/// The `file_size` field of the header at the start of `head` (`None` when `head` is
/// shorter than a header): how many bytes a reader of a stream must read for the store.
#[pyfunction]
pub(crate) fn kastore_file_size(head: &[u8]) -> Option<u64> {
    head.read::<kastore::raw::Header>(0, "header")
        .ok()
        .map(|h| h.file_size.get())
}

/// Opens the store at byte `position` of the file at `path` and checks its metadata
/// (positioned reads of the header, descriptors and keys, without the GIL). Returns
/// `(items, file_size, buffer)`: with `read_all`, `buffer` is the store's `file_size`
/// bytes (one read, without the GIL; offsets count from its start); otherwise a
/// descriptor of the same open file (the caller maps it and closes it), or `None` where
/// descriptors cannot be handed over (the caller opens `path` again).
#[pyfunction]
#[pyo3(signature = (path, position = 0, read_all = false))]
pub(crate) fn kastore_open<'py>(
    py: Python<'py>,
    path: PathBuf,
    position: u64,
    read_all: bool,
) -> PyResult<(Vec<IndexItem<'py>>, u64, Bound<'py, PyAny>)> {
    let (items, file_size, source) = py
        .detach(|| -> kastore::Result<_> {
            let source = FileSource::open(&path).map_err(kastore::IoError::at_path(&path))?;
            let (items, size) = {
                let cache = ReadCache::new(&source);
                let store = Store::from_data_at(&cache, position, &ReadOptions::new())?;
                (raw_items(&store), store.file_size())
            };
            Ok((items, size, source))
        })
        .py_err(FORMAT)?;
    let buffer = if read_all {
        let n = usize::try_from(file_size).map_err(|_| memory_error("store"))?;
        crate::new_bytes::filled(py, n, |buf| {
            py.detach(|| source.read_exact_at(buf, position))
                .map_err(|e| crate::output::os_error(py, &e, Some(&path)))
        })?
        .into_any()
    } else {
        descriptor(py, &source)?
    };
    Ok((to_py_items(py, items), file_size, buffer))
}

/// A new descriptor of `source`'s file, as a Python `int`, owned by the caller.
#[cfg(unix)]
fn descriptor<'py>(py: Python<'py>, source: &FileSource) -> PyResult<Bound<'py, PyAny>> {
    use std::os::fd::IntoRawFd;
    let fd = source.file().try_clone()?.into_raw_fd();
    Ok(fd.into_pyobject(py)?.into_any())
}

/// No descriptor to hand over: the caller opens the path again.
#[cfg(not(unix))]
fn descriptor<'py>(py: Python<'py>, _source: &FileSource) -> PyResult<Bound<'py, PyAny>> {
    Ok(py.None().into_bound(py))
}

/// The bytes of a store holding `items`, `(key, dtype name, little-endian array bytes)`,
/// exactly as the reference writers write them (keys sorted bytewise, arrays 8-aligned).
#[pyfunction]
pub(crate) fn kastore_dumps<'py>(
    py: Python<'py>,
    items: Vec<(Vec<u8>, String, Bound<'py, PyBytes>)>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut writer = Writer::new();
    for (key, dtype, data) in &items {
        let dtype = DType::from_name(dtype).ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "kastore has no element type {dtype}; it stores int8, uint8, int16, uint16, \
                 int32, uint32, int64, uint64, float32 and float64"
            ))
        })?;
        writer
            .add_array(key, AnyArray::new(dtype, data.as_bytes()))
            .py_err(FORMAT)?;
    }
    let size = writer.file_size().py_err(FORMAT)?;
    let size = usize::try_from(size).map_err(|_| memory_error("store"))?;
    // Written straight into the new bytes object: one copy of each array, not two.
    crate::new_bytes::filled(py, size, |out| {
        writer.write_to(out).py_err(FORMAT).map(drop)
    })
}

/// `(items, file_size, buffer)` of the store at `url`, as [`kastore_open`] with
/// `read_all`: the header and descriptors by range, then every array by range (in one
/// batch: adjacent ranges are merged into one request), without the GIL, each copied
/// once, to its offset in `buffer` (`file_size` bytes; the metadata's bytes are left
/// zero: the items hold it).
#[pyfunction]
pub(crate) fn kastore_load_url<'py>(
    py: Python<'py>,
    url: &str,
) -> PyResult<(Vec<IndexItem<'py>>, u64, Bound<'py, PyBytes>)> {
    let reader = py.detach(|| -> PyResult<Reader<AnySource>> {
        Reader::open(open_url(url)?).py_err(FORMAT)
    })?;
    let file_size = reader.file_size();
    let n = usize::try_from(file_size).map_err(|_| memory_error("store"))?;
    // The arrays first: the buffer is sized by the header's `file_size`, a figure the
    // object claims, so it is made only once the bytes it will hold came.
    let (entries, data) = py.detach(|| -> PyResult<_> {
        let entries: Vec<_> = reader.entries().collect();
        let data = reader.read_many(&entries).py_err(FORMAT)?;
        Ok((entries, data))
    })?;
    let buffer = crate::new_bytes::filled(py, n, |buf| {
        py.detach(|| -> PyResult<()> {
            for (entry, bytes) in entries.iter().zip(&data) {
                let range = entry.array_range();
                let at = usize::try_from(range.start).map_err(|_| memory_error("array"))?;
                let end = at.saturating_add(bytes.len());
                buf.get_mut(at..end)
                    .ok_or_else(|| memory_error("array"))?
                    .copy_from_slice(bytes);
            }
            Ok(())
        })
    })?;
    drop(data);
    let items = raw_items(&reader.view());
    Ok((to_py_items(py, items), file_size, buffer))
}
