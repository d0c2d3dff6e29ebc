//! `binfmt.taco`: TACO headers of tacozip archives through `taco-header`.

use std::path::PathBuf;

use binfmt_core::source::FileSource;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use taco_header::{Archive, Entries, Entry, HEADER_SIZE, Header, Member, Reader, Writer};

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

/// The header's entries, from the file at `path` (one positioned read of its first 256
/// bytes, through `taco_header::read_header`, without the GIL).
#[pyfunction]
pub(crate) fn taco_read_header_path(py: Python<'_>, path: PathBuf) -> PyResult<Pairs> {
    py.detach(|| -> taco_header::Result<Pairs> {
        let source = FileSource::open(&path).map_err(taco_header::IoError::at_path(&path))?;
        Ok(pairs(&taco_header::read_header(&source)?))
    })
    .py_err(FORMAT)
}

/// Replaces the header's entries in place, after checking everything the writes depend
/// on (locked; the three writes in protocol order, so that a killed process leaves a torn
/// update the next one repairs). `sync`: `fdatasync` after each write (durable against
/// power loss too; about 3 ms a call instead of 0.1 ms).
#[pyfunction]
#[pyo3(signature = (path, entries, sync = false))]
pub(crate) fn taco_update_header(
    py: Python<'_>,
    path: PathBuf,
    entries: Pairs,
    sync: bool,
) -> PyResult<()> {
    let entries = entries_of(&entries)?;
    let options = taco_header::fs::UpdateOptions::new().sync(sync);
    py.detach(|| taco_header::fs::update_with(&path, &entries, &options))
        .py_err(FORMAT)
}

/// The writes an update of the archive `data` to `entries` makes, in order: `(offset,
/// bytes)` (the central directory's CRC, the payload, the header's CRC, which commits).
/// For tests of the crash matrix: applying a prefix of them is what a killed update
/// leaves.
#[pyfunction]
pub(crate) fn taco_update_writes<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyBytes>,
    entries: Pairs,
) -> PyResult<Vec<(u64, Bound<'py, PyBytes>)>> {
    let entries = entries_of(&entries)?;
    let options = taco_header::ReadOptions::new().checksums(false);
    let archive = Archive::parse_with(data.as_bytes(), &options).py_err(FORMAT)?;
    let patch = archive.patch(&entries);
    Ok(patch
        .writes()
        .iter()
        .map(|&(offset, bytes)| (offset, PyBytes::new(py, bytes)))
        .collect())
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
    let mut writer = Writer::new(entries_of(&entries)?);
    for (name, source) in members {
        writer.add_file(name, source);
    }
    py.detach(|| writer.write_to_path(&path)).py_err(FORMAT)
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

/// The header's entries, from the object at `url`: one ranged GET of its first 256
/// bytes (`taco_header::read_header`), without the GIL.
#[pyfunction]
pub(crate) fn taco_read_header_url(py: Python<'_>, url: &str) -> PyResult<Pairs> {
    py.detach(|| {
        let source = crate::source::open_url(url)?;
        taco_header::read_header(&source)
            .map(|e| pairs(&e))
            .py_err(FORMAT)
    })
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
