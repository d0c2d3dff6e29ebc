//! `binfmt.bloscpack`: pack, unpack and append through `bloscpack-header` (the bundled
//! c-blosc), with the GIL released while (de)compressing. The Python side
//! (`python/binfmt/bloscpack/__init__.py`) turns numpy arrays into bytes and back.

use std::path::PathBuf;

use bloscpack_header::fs::{AppendOptions, append};
use bloscpack_header::{
    BloscArgs, Bloscpack, Checksum, Chunk, Compressor, MetaCodec, Metadata, PackOptions,
    ReadOptions, Shuffle, UnpackOptions,
};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
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

/// Packs `data` (bytes, or a contiguous 1-D uint8 numpy array, read in place) with bloscpack's options; returns the file's bytes, or writes them
/// to `path` (replaced atomically) and returns `None`.
#[pyfunction]
#[pyo3(signature = (
    data, *, chunk_size, typesize, clevel, shuffle, cname, offsets, checksum,
    max_app_chunks, metadata, meta_checksum, meta_codec, meta_level, max_meta_size, path
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
        threads: 0,
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
            py.detach(|| options.write_to_path(input, &path))
                .py_err(FORMAT)?;
            Ok(None)
        }
        None => {
            let out = py.detach(|| options.to_vec(input)).py_err(FORMAT)?;
            Ok(Some(PyBytes::new(py, &out)))
        }
    }
}

/// Unpacks a whole file given as `data` (bytes) or `path`: `(uint8 numpy array, metadata
/// JSON or None)`. Digests are checked; chunks are decompressed in parallel, without the
/// GIL, straight into the array.
#[pyfunction]
#[pyo3(signature = (data=None, path=None, out_path=None))]
pub(crate) fn blpk_unpack<'py>(
    py: Python<'py>,
    data: Option<&Bound<'py, PyBytes>>,
    path: Option<PathBuf>,
    out_path: Option<PathBuf>,
) -> PyResult<Unpacked<'py>> {
    let owned;
    let bytes: &[u8] = match (data, &path) {
        (Some(d), _) => d.as_bytes(),
        (None, Some(p)) => {
            owned = py.detach(|| bloscpack_header::fs::read(p)).py_err(FORMAT)?;
            &owned
        }
        (None, None) => return Err(PyValueError::new_err("give data or path")),
    };
    let pack = Bloscpack::parse(bytes).py_err(FORMAT)?;
    let metadata = match pack.metadata() {
        Some(m) => Some(m.json(&ReadOptions::new()).py_err(FORMAT)?.into_owned()),
        None => None,
    };
    if let Some(out) = out_path {
        py.detach(|| pack.unpack_to_path(&out, &UnpackOptions::DEFAULT))
            .py_err(FORMAT)?;
        return Ok((None, metadata));
    }
    let len = usize::try_from(pack.uncompressed_len())
        .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("file too large for memory"))?;
    // numpy's allocator, not a bytearray's: large arrays get huge pages, and the pages
    // are faulted in once, by the decompression (a bytearray is zero-filled first).
    let array = PyArray1::<u8>::zeros(py, len, false);
    {
        let mut view = array
            .try_readwrite()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let out = view
            .as_slice_mut()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        py.detach(|| unpack_into(&pack, out)).py_err(FORMAT)?;
    }
    Ok((Some(array), metadata))
}

/// Decompresses every chunk straight into its place in `out` (as long as the file's
/// uncompressed length), on up to 8 threads: each chunk's digest and block table are
/// checked first, and the error of the first failing chunk (in file order) is returned.
/// Unlike `Bloscpack::unpack_to_writer`, nothing is copied after decompression.
fn unpack_into(pack: &Bloscpack<'_>, out: &mut [u8]) -> bloscpack_header::Result<()> {
    if let Some(m) = pack.metadata() {
        m.verify()?;
    }
    let mut work: Vec<(Chunk<'_>, &mut [u8])> = Vec::new();
    let mut rest = out;
    for chunk in pack.chunks() {
        let n = usize::try_from(chunk.header().nbytes).unwrap_or(usize::MAX);
        let at = n.min(rest.len());
        let (slot, tail) = rest.split_at_mut(at);
        work.push((chunk, slot));
        rest = tail;
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get().min(8))
        .min(work.len().max(1));
    let mut lanes: Vec<Vec<(Chunk<'_>, &mut [u8])>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, job) in work.into_iter().enumerate() {
        if let Some(lane) = lanes.get_mut(i % threads) {
            lane.push(job);
        }
    }
    let run = |lane: Vec<(Chunk<'_>, &mut [u8])>| -> Option<(u64, bloscpack_header::Error)> {
        for (chunk, slot) in lane {
            let done = chunk
                .verify()
                .and_then(|()| chunk.check_blocks())
                .and_then(|()| chunk.decompress_into(slot));
            if let Err(e) = done {
                return Some((chunk.index(), e));
            }
        }
        None
    };
    let failures: Vec<(u64, bloscpack_header::Error)> = std::thread::scope(|scope| {
        let handles: Vec<_> = lanes
            .into_iter()
            .map(|lane| scope.spawn(move || run(lane)))
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    match failures.into_iter().min_by_key(|(index, _)| *index) {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
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
