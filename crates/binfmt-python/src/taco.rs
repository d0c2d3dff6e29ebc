//! `binfmt.taco`: TACO headers of tacozip archives through `taco-header`.

use std::path::PathBuf;

use binfmt_core::source::FileSource;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use taco_header::{Archive, ArchiveBuilder, Entries, Entry, HEADER_SIZE, Header, Member, Reader};

use crate::errors::IntoPy;
use crate::source::AnySource;

const FORMAT: &str = "taco";

type Pairs = Vec<(u64, u64)>;
/// name, data offset, size, compressed size, method, CRC-32, local header offset.
type MemberRow = (String, u64, u64, u64, u16, u32, u64);

fn pairs(entries: &Entries) -> Pairs {
    entries
        .as_slice()
        .iter()
        .map(|e| (e.offset, e.length))
        .collect()
}

fn entries_of(pairs: &[(u64, u64)]) -> PyResult<Entries> {
    let list: Vec<Entry> = pairs.iter().map(|&(o, l)| Entry::new(o, l)).collect();
    Entries::from_slice(&list).py_err(FORMAT)
}

fn open(path: &PathBuf) -> PyResult<Reader<FileSource>> {
    taco_header::fs::open(path).py_err(FORMAT)
}

/// The header's entries, from the start of `data` (157 bytes or more: a 256-byte range
/// response will do).
#[pyfunction]
pub(crate) fn taco_read_header_bytes(data: &Bound<'_, PyBytes>) -> PyResult<Pairs> {
    let bytes = data.as_bytes();
    let head = bytes.get(..HEADER_SIZE).unwrap_or(bytes);
    Ok(pairs(&Header::parse(head).py_err(FORMAT)?.entries()))
}

/// The header's entries, from the file at `path` (one read of its first 256 bytes).
#[pyfunction]
pub(crate) fn taco_read_header_path(py: Python<'_>, path: PathBuf) -> PyResult<Pairs> {
    py.detach(|| open(&path).map(|r| pairs(&r.entries())))
}

/// Replaces the header's entries in place, after checking everything the writes depend
/// on (locked; crash-consistent).
#[pyfunction]
pub(crate) fn taco_update_header(py: Python<'_>, path: PathBuf, entries: Pairs) -> PyResult<()> {
    let entries = entries_of(&entries)?;
    py.detach(|| taco_header::fs::update(&path, &entries))
        .py_err(FORMAT)
}

/// Creates an archive at `path`: the header with `entries`, then `(archive name, source
/// path)` members, stored. Everything is checked before the file is created.
#[pyfunction]
pub(crate) fn taco_create(
    py: Python<'_>,
    path: PathBuf,
    members: Vec<(String, PathBuf)>,
    entries: Pairs,
) -> PyResult<u64> {
    let mut builder = ArchiveBuilder::new(entries_of(&entries)?);
    for (name, source) in members {
        builder.add_file(name, source);
    }
    py.detach(|| builder.write_to_path(&path)).py_err(FORMAT)
}

fn row(m: &Member<'_>) -> MemberRow {
    (
        m.name_lossy().into_owned(),
        m.data_offset(),
        m.size(),
        m.compressed_size(),
        m.method(),
        m.crc32(),
        m.local_header_offset(),
    )
}

/// Every member with the offset of its data, from bytes holding the whole archive.
#[pyfunction]
pub(crate) fn taco_members_bytes(data: &Bound<'_, PyBytes>) -> PyResult<Vec<MemberRow>> {
    let archive = Archive::parse(data.as_bytes()).py_err(FORMAT)?;
    archive
        .members()
        .map(|m| m.map(|m| row(&m)))
        .collect::<Result<_, _>>()
        .py_err(FORMAT)
}

/// Every member with the offset of its data, from the file at `path`, read by ranges
/// (the header, the end of the file, the local headers).
#[pyfunction]
pub(crate) fn taco_members_path(
    py: Python<'_>,
    path: PathBuf,
) -> PyResult<(Pairs, Vec<MemberRow>)> {
    py.detach(|| {
        let reader = open(&path)?;
        let members = reader.members().py_err(FORMAT)?;
        Ok((
            pairs(&reader.entries()),
            members.iter().map(|m| row(&m)).collect(),
        ))
    })
}

fn open_url(url: &str) -> PyResult<Reader<AnySource>> {
    let source = crate::source::open_url(url)?;
    Reader::open(source).py_err(FORMAT)
}

/// The header's entries, from the object at `url` (one ranged read of its first 256
/// bytes, without the GIL).
#[pyfunction]
pub(crate) fn taco_read_header_url(py: Python<'_>, url: &str) -> PyResult<Pairs> {
    py.detach(|| open_url(url).map(|r| pairs(&r.entries())))
}

/// Every member with the offset of its data, from the object at `url`, read by ranges
/// (the header, the end of the object, the central directory, the local headers), without
/// the GIL.
#[pyfunction]
pub(crate) fn taco_members_url(py: Python<'_>, url: &str) -> PyResult<(Pairs, Vec<MemberRow>)> {
    py.detach(|| {
        let reader = open_url(url)?;
        let members = reader.members().py_err(FORMAT)?;
        Ok((
            pairs(&reader.entries()),
            members.iter().map(|m| row(&m)).collect(),
        ))
    })
}
