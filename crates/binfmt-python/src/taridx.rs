//! `binfmt.taridx`: indexes of tar shards through `taridx`.

use core::ops::Range;
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::PathBuf;

use binfmt_core::Kind;
use binfmt_core::source::{ByteSource, FileSource, PastEnd, from_io};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use taridx::{BuildOptions, Entry, ErrorKind, ReadOptions, Reader, Verifier};

use crate::errors::IntoPy;
use crate::source::{AnySource, open_url};

const FORMAT: &str = "taridx";

/// One member: extension, shard id, payload offset, size.
type MemberRow = (String, u16, u64, u64);

/// The key webdataset and wids samples carry: the sample's stem.
const KEY: &str = "__key__";

/// An index and its shard files, opened with every check (names verified on `get`).
#[pyclass(module = "binfmt._binfmt", frozen)]
pub(crate) struct TaridxReader {
    reader: Reader<AnySource>,
    /// Where each member's header chain starts (for reading names by range).
    verifier: Verifier,
    /// Each sample's rows, samples in first-row order, rows in row order.
    table: Vec<Vec<Entry>>,
}

/// One member read for a sample: the sample's position in the batch, the member's row,
/// where its window starts in the shard, and the window (header blocks and payload).
type Window<'s> = (usize, Entry, u64, Cow<'s, [u8]>);

impl TaridxReader {
    fn from_reader(reader: Reader<AnySource>) -> taridx::Result<Self> {
        let verifier = Verifier::new(&reader.index());
        let mut at: HashMap<(u64, u32), usize> = HashMap::new();
        let mut table: Vec<Vec<Entry>> = Vec::new();
        for e in reader.index().entries() {
            let e = e?;
            let slot = *at.entry((e.keyhash, e.crashid)).or_insert_with(|| {
                table.push(Vec::new());
                table.len() - 1
            });
            if let Some(list) = table.get_mut(slot) {
                list.push(e);
            }
        }
        Ok(TaridxReader {
            reader,
            verifier,
            table,
        })
    }

    /// The windows of every member of the samples at `indices` (in range), read in one
    /// `read_ranges` call per shard, in the order of `indices` and then of rows.
    fn windows(&self, indices: &[usize]) -> taridx::Result<Vec<Window<'_>>> {
        let wanted: Vec<(usize, Entry)> = indices
            .iter()
            .enumerate()
            .flat_map(|(k, &i)| {
                self.table
                    .get(i)
                    .into_iter()
                    .flatten()
                    .map(move |e| (k, *e))
            })
            .collect();
        let mut fids: Vec<u16> = wanted.iter().map(|(_, e)| e.fid).collect();
        fids.sort_unstable();
        fids.dedup();
        let mut found: Vec<(usize, Window<'_>)> = Vec::with_capacity(wanted.len());
        for fid in fids {
            let shards = self.reader.shards();
            let mine: Vec<(usize, &(usize, Entry))> = wanted
                .iter()
                .enumerate()
                .filter(|(_, (_, e))| e.fid == fid)
                .collect();
            let Some(shard) = shards.get(usize::from(fid)) else {
                let row = mine.first().map_or(0, |(_, (_, e))| e.row);
                return Err(ErrorKind::no_shard(row, fid, shards.len()).unlocated());
            };
            let ranges = mine
                .iter()
                .map(|(_, (_, e))| {
                    self.verifier.member_range(e).ok_or_else(|| {
                        binfmt_core::Error::overflow("member payload", e.offset).into()
                    })
                })
                .collect::<taridx::Result<Vec<Range<u64>>>>()?;
            let chunks = shard.read_ranges(&ranges).map_err(past_end)?;
            for (((at, (k, e)), range), chunk) in mine.into_iter().zip(ranges).zip(chunks) {
                found.push((at, (*k, *e, range.start, chunk)));
            }
        }
        found.sort_unstable_by_key(|(at, _)| *at);
        Ok(found.into_iter().map(|(_, w)| w).collect())
    }

    /// The stem of the member in `window` (its resolved tar name), and its payload.
    fn member<'w>(
        &self,
        e: &Entry,
        base: u64,
        window: &'w [u8],
    ) -> taridx::Result<(String, &'w [u8])> {
        let stem = self
            .verifier
            .member(e, window, base)?
            .map(|m| taridx::stem(&m.name.to_string_lossy()).to_owned())
            .unwrap_or_default();
        let payload = e
            .payload_offset()
            .and_then(|p| usize::try_from(p.saturating_sub(base)).ok())
            .and_then(|at| Some(at..at.checked_add(usize::try_from(e.size).ok()?)?))
            .and_then(|r| window.get(r))
            .ok_or_else(|| binfmt_core::Error::overflow("member payload", e.offset))?;
        Ok((stem, payload))
    }

    /// `{"__key__": stem, ext: payload, ...}` for each of `indices`, from the windows.
    fn sample_dicts<'py>(
        &self,
        py: Python<'py>,
        indices: &[usize],
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        for &i in indices {
            if i >= self.table.len() {
                return Err(pyo3::exceptions::PyIndexError::new_err(format!(
                    "sample {i} but {} samples",
                    self.table.len()
                )));
            }
        }
        let windows = py.detach(|| self.windows(indices)).py_err(FORMAT)?;
        let mut out: Vec<Bound<'py, PyDict>> = indices.iter().map(|_| PyDict::new(py)).collect();
        for (k, e, base, window) in &windows {
            let (stem, payload) = self.member(e, *base, window).py_err(FORMAT)?;
            let Some(dict) = out.get_mut(*k) else {
                continue;
            };
            if !dict.contains(KEY)? {
                dict.set_item(KEY, stem)?;
            }
            dict.set_item(self.ext(e), PyBytes::new(py, payload))?;
        }
        Ok(out)
    }

    fn ext(&self, e: &Entry) -> String {
        self.reader.extension(e.extid).unwrap_or("").to_owned()
    }

    fn row(&self, e: &Entry) -> PyResult<MemberRow> {
        let at = e
            .payload_offset()
            .ok_or_else(|| pyo3::exceptions::PyOverflowError::new_err("member offset"))?;
        Ok((self.ext(e), e.fid, at, e.size))
    }
}

#[pymethods]
impl TaridxReader {
    /// Opens `index` with its `shards` (in shard-id order).
    #[new]
    fn new(py: Python<'_>, index: PathBuf, shards: Vec<PathBuf>) -> PyResult<Self> {
        py.detach(|| {
            let index = FileSource::open(&index).map_err(taridx::IoError::at_path(&index))?;
            let shards = shards
                .iter()
                .map(|p| {
                    FileSource::open(p)
                        .map(AnySource::File)
                        .map_err(taridx::IoError::at_path(p))
                })
                .collect::<Result<Vec<_>, _>>()?;
            TaridxReader::from_reader(Reader::open_with(&index, shards, &ReadOptions::new())?)
        })
        .py_err(FORMAT)
    }

    /// Opens the index at URL `index` (read once, whole) with the shards at the URLs
    /// `shards` (in shard-id order; opened, not read), without the GIL.
    #[staticmethod]
    fn open_urls(py: Python<'_>, index: String, shards: Vec<String>) -> PyResult<Self> {
        py.detach(|| {
            let source = open_url(&index)?;
            let shards = shards
                .iter()
                .map(|u| open_url(u))
                .collect::<std::io::Result<Vec<_>>>()?;
            let reader = Reader::open_with(&source, shards, &ReadOptions::new()).py_err(FORMAT)?;
            TaridxReader::from_reader(reader).py_err(FORMAT)
        })
    }

    /// `size` bytes at `offset` of shard `fid` (one ranged read, without the GIL).
    fn read<'py>(
        &self,
        py: Python<'py>,
        fid: usize,
        offset: u64,
        size: u64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let shard = self.reader.shards().get(fid).ok_or_else(|| {
            pyo3::exceptions::PyIndexError::new_err(format!(
                "shard id {fid} but {} shards",
                self.reader.shards().len()
            ))
        })?;
        let end = offset
            .checked_add(size)
            .ok_or_else(|| pyo3::exceptions::PyOverflowError::new_err("member range"))?;
        let data = py.detach(|| shard.read_range(offset..end).map(|c| c.into_owned()))?;
        Ok(PyBytes::new(py, &data))
    }

    /// The number of rows (members).
    fn n_rows(&self) -> u64 {
        self.reader.index().n_rows()
    }

    /// The extensions, by id.
    fn extensions(&self) -> Vec<String> {
        self.reader
            .index()
            .extensions()
            .map(str::to_owned)
            .collect()
    }

    /// The number of samples (distinct stems).
    fn n_samples(&self) -> usize {
        self.table.len()
    }

    /// The samples in first-row order: each the list of its members' rows.
    fn samples(&self) -> PyResult<Vec<Vec<MemberRow>>> {
        self.table
            .iter()
            .map(|rows| rows.iter().map(|e| self.row(e)).collect())
            .collect()
    }

    /// The samples at `indices` (first-row order), each `{"__key__": stem, ext: payload,
    /// ...}`: every member's header blocks and payload read in one `read_ranges` call per
    /// shard (concurrent for a remote source), without the GIL; the stem is the members'
    /// own tar name's.
    fn samples_at<'py>(
        &self,
        py: Python<'py>,
        indices: Vec<usize>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.sample_dicts(py, &indices)
    }

    /// The samples named by `keys` (the stem rule applied), in the keys' order, each
    /// `{"__key__": stem, ext: payload, ...}` of its members whose names verify (empty
    /// with only `__key__` when none does), through `Reader::get_many`: the index is read
    /// once and every member fetched in one `read_ranges` call per shard, without the GIL.
    fn get_many<'py>(
        &self,
        py: Python<'py>,
        keys: Vec<String>,
    ) -> PyResult<Vec<(usize, Bound<'py, PyDict>)>> {
        let found = py.detach(|| self.reader.get_many(&keys)).py_err(FORMAT)?;
        keys.iter()
            .zip(found)
            .map(|(key, payloads)| {
                let dict = PyDict::new(py);
                dict.set_item(KEY, taridx::stem(key))?;
                for p in &payloads {
                    dict.set_item(self.ext(p.entry()), PyBytes::new(py, p.payload()))?;
                }
                Ok((payloads.len(), dict))
            })
            .collect()
    }

    /// The rows of the sample named by `stem`, from the index alone (names not verified).
    fn locate(&self, stem: &str) -> PyResult<Vec<MemberRow>> {
        self.reader.lookup(stem).map(|e| self.row(&e)).collect()
    }

    /// `(extension, payload)` of every member of `stem` whose name verifies, in row order.
    fn get<'py>(
        &self,
        py: Python<'py>,
        stem: &str,
    ) -> PyResult<Vec<(String, Bound<'py, PyBytes>)>> {
        let found = py
            .detach(|| {
                self.reader.sample(stem).map(|ps| {
                    ps.into_iter()
                        .map(|p| (self.ext(p.entry()), p.into_payload()))
                        .collect::<Vec<_>>()
                })
            })
            .py_err(FORMAT)?;
        Ok(found
            .into_iter()
            .map(|(x, b)| (x, PyBytes::new(py, &b)))
            .collect())
    }
}

/// Indexes the shards of fold `fold` in `dir` (each memory-mapped) and writes the index
/// to `output` (atomically). Returns `(rows, shards, skipped members)`.
#[pyfunction]
pub(crate) fn taridx_build(
    py: Python<'_>,
    dir: PathBuf,
    fold: String,
    output: PathBuf,
    glzn: bool,
) -> PyResult<(u64, usize, u64)> {
    py.detach(|| {
        let shards = taridx::fs::fold_shards(&dir, &fold)?;
        let options = if glzn {
            BuildOptions::glzn()
        } else {
            BuildOptions::strict()
        };
        let taridx::Finished {
            index: file,
            report,
            ..
        } = taridx::fs::index_shards(&shards, options)?;
        let bytes = file.to_vec()?;
        let rows = taridx::Index::parse(&bytes)?.n_rows();
        file.write_to_path(&output)?;
        Ok((rows, shards.len(), report.skipped_count()))
    })
    .py_err(FORMAT)
}

/// A source's error for a range past its end becomes the input's fault, at that range
/// (as `taridx::Reader` reports it).
fn past_end(e: std::io::Error) -> taridx::Error {
    let range = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<PastEnd>())
        .map(|p| p.range.clone());
    match range {
        Some(r) => from_io(e, r.start, r.end.saturating_sub(r.start), "member").into(),
        None => binfmt_core::source::SourceError::Io(taridx::IoError::from(e)).into(),
    }
}
