//! `binfmt.bloscpack`: pack, unpack and append through `bloscpack-header` (the bundled
//! c-blosc), with the GIL released while (de)compressing. The Python side
//! (`python/binfmt/bloscpack/__init__.py`) turns numpy arrays into bytes and back.

use std::path::{Path, PathBuf};

use binfmt_core::data::Data;
use binfmt_core::output::{Output, OutputOptions};
use binfmt_core::source::FileSource;
use bloscpack_header::fs::{AppendOptions, append};
use bloscpack_header::{
    BloscArgs, Bloscpack, Checksum, Compressor, Error, MetaCodec, Metadata, PackOptions,
    ReadOptions, Reader, Shuffle, UnpackOptions, UnpackReport,
};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadwriteArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::IntoPy;

const FORMAT: &str = "bloscpack";

/// The unpacked bytes (none when written to a file) and the metadata JSON.
type Unpacked<'py> = (Option<Bound<'py, PyArray1<u8>>>, Option<String>);

fn shuffle_of(code: u8) -> PyResult<Shuffle> {
    match code {
        0 => Ok(Shuffle::None),
        1 => Ok(Shuffle::Byte),
        2 => Ok(Shuffle::Bit),
        _ => Err(PyValueError::new_err(format!(
            "shuffle must be 0 (none), 1 (byte) or 2 (bit), not {code}"
        ))),
    }
}

fn blosc_args(typesize: u8, clevel: u8, shuffle: u8, cname: &str) -> PyResult<BloscArgs> {
    Ok(BloscArgs {
        typesize,
        clevel,
        shuffle: shuffle_of(shuffle)?,
        compressor: cname.parse::<Compressor>().py_err(FORMAT)?,
    })
}

fn checksum_of(name: &str) -> PyResult<Checksum> {
    name.parse::<Checksum>()
        .map_err(|e| PyValueError::new_err(format!("{e}, not {name:?}")))
}

/// Packs `data` (bytes, or a contiguous 1-D uint8 numpy array, read in place) with
/// bloscpack's options; returns the file's bytes, or writes them to `path` (replaced
/// atomically; made durable first only with `sync`, as the reference never syncs; never
/// the file `input_path` the data was read from, whatever names it) and returns `None`.
#[pyfunction]
#[pyo3(signature = (
    data, *, chunk_size, typesize, clevel, shuffle, cname, offsets, checksum,
    max_app_chunks, metadata, meta_checksum, meta_codec, meta_level, max_meta_size, path,
    threads=0, sync=true, input_path=None
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn blpk_pack<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    chunk_size: u32,
    typesize: u8,
    clevel: u8,
    shuffle: u8,
    cname: &str,
    offsets: bool,
    checksum: &str,
    max_app_chunks: Option<u64>,
    metadata: Option<Vec<u8>>,
    meta_checksum: &str,
    meta_codec: &str,
    meta_level: u8,
    max_meta_size: Option<u32>,
    path: Option<PathBuf>,
    threads: usize,
    sync: bool,
    input_path: Option<PathBuf>,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let metadata = match metadata {
        Some(json) => Some(Metadata {
            json,
            checksum: checksum_of(meta_checksum)?,
            codec: if meta_codec.eq_ignore_ascii_case("zlib") {
                MetaCodec::Zlib
            } else if meta_codec.eq_ignore_ascii_case("none") {
                MetaCodec::None
            } else {
                return Err(PyValueError::new_err(format!(
                    "meta_codec must be 'zlib' or 'None', not {meta_codec:?}"
                )));
            },
            level: meta_level,
            max_meta_size,
        }),
        None => None,
    };
    let options = PackOptions {
        chunk_size,
        blosc: blosc_args(typesize, clevel, shuffle, cname)?,
        checksum: checksum_of(checksum)?,
        offsets,
        max_app_chunks,
        metadata,
        threads,
    };
    // bytes, or a contiguous uint8 numpy array (a view of the caller's array: no copy).
    let array;
    let input: &[u8] = if let Ok(bytes) = data.cast::<PyBytes>() {
        bytes.as_bytes()
    } else {
        array = data.extract::<PyReadonlyArray1<'py, u8>>()?;
        array
            .as_slice()
            .map_err(|e| PyValueError::new_err(e.to_string()))?
    };
    match path {
        Some(path) => {
            // `input_path`: the file the data was read from, which the output may not be.
            let rules = OutputOptions::new()
                .replace(true)
                .sync(sync)
                .inputs(&input_path);
            let mut out = Output::create(&path, &rules)
                .map_err(|e| crate::output::os_error(py, &e, Some(&path)))?;
            py.detach(|| options.write_to_output(input, &mut out))
                .py_err(FORMAT)?;
            py.detach(|| out.commit())
                .map_err(|e| crate::output::os_error(py, &e, Some(&path)))?;
            Ok(None)
        }
        None => {
            // Chunks are written, as they are compressed, into a numpy allocation (huge
            // pages for large ones: faulting in a fresh buffer 4 KiB at a time costs more
            // than compressing it), then copied once into the `bytes`, whose buffer is
            // backed by huge pages too (`new_bytes`).
            let room = options.max_packed_len(input.len()).py_err(FORMAT)?;
            let scratch = PyArray1::<u8>::zeros(py, room, false);
            let mut view = scratch
                .try_readwrite()
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            let buffer = view
                .as_slice_mut()
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            let n = py
                .detach(|| options.pack_into(input, buffer))
                .py_err(FORMAT)?;
            Ok(Some(crate::new_bytes::copy_of(
                py,
                buffer.get(..n).unwrap_or(&[]),
            )?))
        }
    }
}

/// Unpacks a whole file given as `data` (bytes) or `path`: `(uint8 numpy array, metadata
/// JSON or None)`. Digests are checked; chunks are decompressed in parallel, without the
/// GIL, straight into the array. `alloc(metadata_json, nbytes)`, when given, returns the
/// array to fill (a contiguous, writable 1-D uint8 array of `nbytes`, typically a view of
/// the caller's final array); otherwise a new uint8 array is made. A file given by
/// `path` is read chunk by chunk (positioned reads), never whole.
#[pyfunction]
#[pyo3(signature = (data=None, path=None, out_path=None, alloc=None, threads=0, url=None, sync=true))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn blpk_unpack<'py>(
    py: Python<'py>,
    data: Option<&Bound<'py, PyBytes>>,
    path: Option<PathBuf>,
    out_path: Option<PathBuf>,
    alloc: Option<&Bound<'py, PyAny>>,
    threads: u16,
    url: Option<&str>,
    sync: bool,
) -> PyResult<Unpacked<'py>> {
    let options = UnpackOptions::DEFAULT.threads(threads);
    if let Some(url) = url {
        return unpack_url(py, url, out_path, alloc, &options, sync);
    }
    let bytes: &[u8] = match (data, &path) {
        (Some(d), _) => d.as_bytes(),
        (None, Some(p)) if out_path.is_none() => {
            // Only the head and each chunk's header are read here; the chunks are read
            // by the workers, each into a buffer of its own.
            let source = match FileSource::open(p) {
                Ok(source) => source,
                // The library's error, with the path, as before.
                Err(_) => {
                    bloscpack_header::fs::read(p).py_err(FORMAT)?;
                    return Err(PyValueError::new_err(format!(
                        "cannot open {}",
                        p.display()
                    )));
                }
            };
            let reader = py.detach(|| Reader::open(source)).py_err(FORMAT)?;
            return unpacked(py, &reader.view(), None, alloc, &options, |out| {
                reader.unpack_into(out, &options)
            });
        }
        (None, Some(p)) => {
            // Into a file: the chunks are read by range (positioned reads), never the
            // whole input at once, and the output is never the input.
            // (Without `out_path`, the arm above took the path.)
            let Some(out) = out_path.as_deref() else {
                return Err(PyValueError::new_err("give out_path"));
            };
            let source =
                FileSource::open(p).map_err(|e| crate::output::os_error(py, &e, Some(p)))?;
            let reader = py.detach(|| Reader::open(source)).py_err(FORMAT)?;
            let view = reader.view();
            let metadata = metadata_json(&view)?;
            unpack_to_file(py, &view, out, Some(p), &options, sync)?;
            return Ok((None, metadata));
        }
        (None, None) => return Err(PyValueError::new_err("give data or path")),
    };
    let pack = Bloscpack::parse(bytes).py_err(FORMAT)?;
    let out = out_path.as_deref().map(|out| (out, None, sync));
    unpacked(py, &pack, out, alloc, &options, |out| {
        pack.unpack_into(out, &options)
    })
}

/// `pack` unpacked into the file at `out` (with the file it is read from, if any, and
/// whether to sync, as in [`unpack_to_file`]), or else into an array ([`fill`], by
/// `unpack`); with its metadata JSON.
fn unpacked<'py, 'd, D: Data<'d> + Send + Sync>(
    py: Python<'py>,
    pack: &Bloscpack<'d, D>,
    out: Option<(&Path, Option<&Path>, bool)>,
    alloc: Option<&Bound<'py, PyAny>>,
    options: &UnpackOptions,
    unpack: impl FnOnce(&mut [u8]) -> bloscpack_header::Result<UnpackReport> + Send,
) -> PyResult<Unpacked<'py>>
where
    Error: From<D::Error>,
{
    let metadata = metadata_json(pack)?;
    if let Some((out, input, sync)) = out {
        unpack_to_file(py, pack, out, input, options, sync)?;
        return Ok((None, metadata));
    }
    let array = fill(
        py,
        pack.uncompressed_len(),
        metadata.as_deref(),
        alloc,
        unpack,
    )?;
    Ok((Some(array), metadata))
}

fn metadata_json<'d, D: Data<'d>>(pack: &Bloscpack<'d, D>) -> PyResult<Option<String>>
where
    Error: From<D::Error>,
{
    match pack.metadata() {
        Some(m) => Ok(Some(
            m.json(&ReadOptions::new()).py_err(FORMAT)?.into_owned(),
        )),
        None => Ok(None),
    }
}

/// [`blpk_unpack`] of the object at `url`: its metadata in the first request or two, then
/// every chunk read ahead through the cache (`verify`'s plan, docs/remote.md), with the
/// GIL released while reading. Into a file at `out_path`, or an array.
fn unpack_url<'py>(
    py: Python<'py>,
    url: &str,
    out_path: Option<PathBuf>,
    alloc: Option<&Bound<'py, PyAny>>,
    options: &UnpackOptions,
    sync: bool,
) -> PyResult<Unpacked<'py>> {
    let read = ReadOptions::new().read_every_chunk(true);
    // Not a stream (a FIFO, a device): nothing is written to one before the whole
    // structure is checked.
    let to_file = out_path
        .as_deref()
        .filter(|out| !binfmt_core::output::names_a_stream(out));
    if let Some(out) = to_file {
        // Into a regular file: checked and unpacked in one pass (each chunk fetched once,
        // no request per chunk header) into the temporary file that replaces `out` only
        // when every check passed.
        let input = binfmt_remote_path(url);
        let rules = OutputOptions::new()
            .replace(true)
            .inputs(input.as_deref())
            .sync(sync);
        let mut output =
            Output::create(out, &rules).map_err(|e| crate::output::os_error(py, &e, Some(out)))?;
        let metadata = py.detach(|| {
            // Every byte is read, in order: the first request asks for the whole object.
            let source = crate::source::open_url_as(url, true)?;
            let limit = binfmt_core::cache::ReadCache::<crate::source::AnySource>::DEFAULT_LIMIT
                .saturating_add(read.get_max_metadata_size());
            let cache = binfmt_core::cache::ReadCache::new(source).with_limit(limit);
            let sink = std::io::BufWriter::with_capacity(1 << 20, &mut output);
            let (view, _) =
                Bloscpack::parse_and_unpack(&cache, &read, options, sink).py_err(FORMAT)?;
            metadata_json(&view)
        })?;
        py.detach(|| output.commit())
            .map_err(|e| crate::output::os_error(py, &e, Some(out)))?;
        return Ok((None, metadata));
    }
    if out_path.is_none() {
        // Into memory: in one pass over the whole object too, one request and one round
        // trip, where opening a reader first fetched every chunk's header (a request
        // each, 64 at a time). The bytes grow as chunks are decompressed, never sized by
        // what the file claims before its chunks came, and are handed to numpy without a
        // copy: a flat uint8 array over our memory, which the Python side views with the
        // metadata's dtype and shape (`alloc` is not called: nothing is known to size it).
        let (data, metadata) = py.detach(|| -> PyResult<_> {
            let source = crate::source::open_url_as(url, true)?;
            let limit = binfmt_core::cache::ReadCache::<crate::source::AnySource>::DEFAULT_LIMIT
                .saturating_add(read.get_max_metadata_size());
            let cache = binfmt_core::cache::ReadCache::new(source).with_limit(limit);
            let mut sink = Growing::default();
            let (view, _) =
                Bloscpack::parse_and_unpack(&cache, &read, options, &mut sink).py_err(FORMAT)?;
            Ok((sink.0, metadata_json(&view)?))
        })?;
        return Ok((Some(PyArray1::from_vec(py, data)), metadata));
    }
    let reader = py.detach(|| {
        let source = crate::source::open_url(url)?;
        // Every chunk is read: the first windows of chunks come while the headers do.
        Reader::open_with(source, &read).py_err(FORMAT)
    })?;
    let view = reader.view();
    let input = out_path.as_ref().and_then(|_| binfmt_remote_path(url));
    let out = out_path.as_deref().map(|out| (out, input.as_deref(), sync));
    unpacked(py, &view, out, alloc, options, |out| {
        view.unpack_into(out, options)
    })
}

/// A sink that grows as bytes come, and says so (an `OutOfMemory` I/O error) when it
/// cannot, where `Vec<u8>`'s own `Write` aborts the process.
#[derive(Default)]
struct Growing(Vec<u8>);

impl std::io::Write for Growing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .try_reserve(buf.len())
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Unpacks `pack` into the file at `out` under the output rules (`binfmt_core::output`:
/// a temporary file renamed over `out`, a FIFO or device streamed into), with `input`,
/// the file `pack` is read from when it is one, as an input of the write: `out` is never
/// the input, whatever names it (a path, a hard link, a `file://` URL); made durable
/// before the rename only with `sync`. The GIL is released while unpacking and
/// committing.
fn unpack_to_file<'d, D: Data<'d> + Send + Sync>(
    py: Python<'_>,
    pack: &Bloscpack<'d, D>,
    out: &Path,
    input: Option<&Path>,
    options: &UnpackOptions,
    sync: bool,
) -> PyResult<()>
where
    Error: From<D::Error>,
{
    let rules = OutputOptions::new().replace(true).inputs(input).sync(sync);
    let mut output =
        Output::create(out, &rules).map_err(|e| crate::output::os_error(py, &e, Some(out)))?;
    py.detach(|| {
        pack.unpack_to_writer(
            std::io::BufWriter::with_capacity(1 << 20, &mut output),
            options,
        )
    })
    .py_err(FORMAT)?;
    py.detach(|| output.commit())
        .map_err(|e| crate::output::os_error(py, &e, Some(out)))
}

/// The local path of a `file://` URL (an input a write must not replace).
#[cfg(feature = "remote")]
fn binfmt_remote_path(url: &str) -> Option<PathBuf> {
    binfmt_remote::file_url_path(url)
}

/// Without the `remote` feature no URL is read.
#[cfg(not(feature = "remote"))]
fn binfmt_remote_path(_url: &str) -> Option<PathBuf> {
    None
}

/// Makes the array to fill (`alloc(metadata, len)`, or a new uint8 array) and runs
/// `unpack` on its bytes without the GIL.
fn fill<'py>(
    py: Python<'py>,
    len: u64,
    metadata: Option<&str>,
    alloc: Option<&Bound<'py, PyAny>>,
    unpack: impl FnOnce(&mut [u8]) -> bloscpack_header::Result<UnpackReport> + Send,
) -> PyResult<Bound<'py, PyArray1<u8>>> {
    let len = usize::try_from(len)
        .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("file too large for memory"))?;
    let array: Bound<'py, PyArray1<u8>> = match alloc {
        Some(f) => f.call1((metadata, len))?.extract()?,
        // numpy's allocator, not a bytearray's: large arrays get huge pages, and the
        // pages are faulted in once, by the decompression.
        None => PyArray1::<u8>::zeros(py, len, false),
    };
    {
        let mut view: PyReadwriteArray1<'py, u8> = array
            .try_readwrite()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let out = view
            .as_slice_mut()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        py.detach(|| unpack(out)).py_err(FORMAT)?;
    }
    Ok(array)
}

/// Appends `data` to the file at `path` in place (locked, crash-consistent); returns
/// `(bytes appended, chunks added)`.
#[pyfunction]
#[pyo3(signature = (path, data, *, clevel, shuffle, cname))]
pub(crate) fn blpk_append(
    py: Python<'_>,
    path: PathBuf,
    data: &Bound<'_, PyBytes>,
    clevel: u8,
    shuffle: u8,
    cname: &str,
) -> PyResult<(u64, u64)> {
    // typesize is replaced by the file's.
    let options = AppendOptions::new().blosc(blosc_args(1, clevel, shuffle, cname)?);
    let input = data.as_bytes();
    let report = py
        .detach(|| append(&path, input, &options))
        .py_err(FORMAT)?;
    Ok((report.appended, report.new_chunks))
}
