//! `binfmt.taridx`: indexes of tar shards through `taridx`.

use std::collections::HashMap;
use std::path::PathBuf;

use binfmt_core::source::{ByteSource, FileSource};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use taridx::{BuildOptions, Entry, ReadOptions, Reader};

use crate::errors::IntoPy;
use crate::source::{AnySource, open_url};

const FORMAT: &str = "taridx";

/// One member: extension, shard id, payload offset, size.
type MemberRow = (String, u16, u64, u64);

/// An index and its shard files, opened with every check (names verified on `get`).
#[pyclass(module = "binfmt._binfmt", frozen)]
pub(crate) struct TaridxReader {
    reader: Reader<AnySource>,
}

impl TaridxReader {
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
        let reader = py
            .detach(|| {
                let index = FileSource::open(&index).map_err(taridx::IoError::at_path(&index))?;
                let shards = shards
                    .iter()
                    .map(|p| {
                        FileSource::open(p)
                            .map(AnySource::File)
                            .map_err(taridx::IoError::at_path(p))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Reader::open_with(&index, shards, &ReadOptions::new())
            })
            .py_err(FORMAT)?;
        Ok(TaridxReader { reader })
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
            Ok(TaridxReader { reader })
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

    /// The samples in first-row order: each the list of its members' rows.
    fn samples(&self, py: Python<'_>) -> PyResult<Vec<Vec<MemberRow>>> {
        py.detach(|| {
            let index = self.reader.index();
            let mut at: HashMap<(u64, u32), usize> = HashMap::new();
            let mut out: Vec<Vec<MemberRow>> = Vec::new();
            for e in index.entries() {
                let e = e.py_err(FORMAT)?;
                let slot = *at.entry((e.keyhash, e.crashid)).or_insert_with(|| {
                    out.push(Vec::new());
                    out.len() - 1
                });
                let row = self.row(&e)?;
                if let Some(list) = out.get_mut(slot) {
                    list.push(row);
                }
            }
            Ok(out)
        })
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
        let (file, report) = taridx::fs::index_shards(&shards, options)?;
        let bytes = file.to_vec()?;
        let rows = taridx::Index::parse(&bytes)?.n_rows();
        file.write_to_path(&output)?;
        Ok((rows, shards.len(), report.skipped_count()))
    })
    .py_err(FORMAT)
}
