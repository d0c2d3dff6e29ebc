//! `binfmt.kastore`: the index of a store (where each array is) for zero-copy numpy views,
//! and the writer. The Python side (`python/binfmt/kastore/__init__.py`) builds the
//! arrays with `numpy.frombuffer(map, dtype, count, offset)` from the offsets computed
//! here.

use kastore::{AnyArray, Builder, DType, Reader, Store};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::IntoPy;
use crate::source::{PySliceSource, open_url};

const FORMAT: &str = "kastore";

/// One item: key bytes, numpy dtype name, array offset in bytes, element count.
type IndexItem<'py> = (Bound<'py, PyBytes>, &'static str, u64, u64);

/// `(items, file_size)` of the store at the start of `data` (`bytes`, or anything sliceable
/// into bytes such as an `mmap.mmap`: then only the metadata is read, by ranges). Checks
/// every rule `kastore::Store::parse` checks and raises its first error.
#[pyfunction]
pub(crate) fn kastore_index<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
) -> PyResult<(Vec<IndexItem<'py>>, u64)> {
    if let Ok(bytes) = data.cast::<PyBytes>() {
        let store = Store::parse(bytes.as_bytes()).py_err(FORMAT)?;
        let items = store
            .items()
            .map(|item| {
                (
                    PyBytes::new(py, item.key()),
                    item.dtype().name(),
                    item.array_offset(),
                    u64::try_from(item.len()).unwrap_or(u64::MAX),
                )
            })
            .collect();
        return Ok((items, store.file_size()));
    }
    let source = PySliceSource::new(data.clone())?;
    let reader = Reader::open(source).py_err(FORMAT)?;
    let items = reader
        .entries()
        .map(|e| {
            (
                PyBytes::new(py, e.key()),
                e.dtype().name(),
                e.array_offset(),
                e.len(),
            )
        })
        .collect();
    Ok((items, reader.file_size()))
}

/// The bytes of a store holding `items`, `(key, dtype name, little-endian array bytes)`,
/// exactly as the reference writers write them (keys sorted bytewise, arrays 8-aligned).
#[pyfunction]
pub(crate) fn kastore_dumps<'py>(
    py: Python<'py>,
    items: Vec<(Vec<u8>, String, Bound<'py, PyBytes>)>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut builder = Builder::new();
    for (key, dtype, data) in &items {
        let dtype = DType::from_name(dtype).ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "kastore has no element type {dtype}; it stores int8, uint8, int16, uint16, \
                 int32, uint32, int64, uint64, float32 and float64"
            ))
        })?;
        builder
            .insert_array(key, AnyArray::new(dtype, data.as_bytes()))
            .py_err(FORMAT)?;
    }
    let size = builder.file_size().py_err(FORMAT)?;
    let size = usize::try_from(size)
        .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("store too large for memory"))?;
    // Written straight into the new bytes object: one copy of each array, not two.
    PyBytes::new_with(py, size, |out| {
        builder.write_to(out).py_err(FORMAT).map(drop)
    })
}

/// One array read from a URL: key bytes, numpy dtype name, element count, its bytes.
type UrlItem = (Vec<u8>, &'static str, u64, Vec<u8>);

/// [`UrlItem`] as Python objects.
type UrlArray<'py> = (Bound<'py, PyBytes>, &'static str, u64, Bound<'py, PyBytes>);

/// `(items, file_size)` of the store at `url`: the header and descriptors by range, then
/// every array by range (in one batch: adjacent ranges are merged into one request),
/// without the GIL. Not zero-copy: each array is copied into its own `bytes`.
#[pyfunction]
pub(crate) fn kastore_load_url<'py>(
    py: Python<'py>,
    url: &str,
) -> PyResult<(Vec<UrlArray<'py>>, u64)> {
    let (items, size) = py.detach(|| -> PyResult<(Vec<UrlItem>, u64)> {
        let reader = Reader::open(open_url(url)?).py_err(FORMAT)?;
        let entries: Vec<_> = reader.entries().collect();
        let data = reader.read_many(&entries).py_err(FORMAT)?;
        let items = entries
            .iter()
            .zip(data)
            .map(|(e, d)| (e.key().to_vec(), e.dtype().name(), e.len(), d.into_owned()))
            .collect();
        Ok((items, reader.file_size()))
    })?;
    let items = items
        .into_iter()
        .map(|(k, t, n, d)| (PyBytes::new(py, &k), t, n, PyBytes::new(py, &d)))
        .collect();
    Ok((items, size))
}
