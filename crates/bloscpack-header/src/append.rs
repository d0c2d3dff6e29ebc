//! Appending data in place, crash-consistently, into the spare offset slots (feature
//! `blosc`); reached as [`fs::append`](crate::fs::append) and
//! [`fs::repair`](crate::fs::repair).
//!
//! The protocol (docs/bloscpack.md, "Append"):
//!
//! 1. lock the file (`binfmt_core::file::open_locked`: a second writer waits), check that
//!    the path still names the file locked (a replacing writer may have renamed another
//!    over it meanwhile), and repair what an interrupted append left (below);
//! 2. compute every new byte in memory and check the space;
//! 3. write an **undo record** (the bytes the append will overwrite, the old and the new
//!    header, the old and the new committed end) past both the old end of the file and
//!    the new end of the data, and sync;
//! 4. write the new chunks (the topped-up last chunk where the old one was, then the new
//!    ones), and sync;
//! 5. check again that the path names the file, then **commit**: rewrite the header, the
//!    metadata section as it was, and the offsets entries in one small positioned write
//!    from byte 0, and sync;
//! 6. cut the file at the new end (removing the record), and sync.
//!
//! A crash before 5 leaves the old header: `fs::repair` (which every append runs first)
//! writes the recorded old bytes back and cuts the file at the old end. A crash after 5
//! leaves the new header: repair only cuts the record off. `verify` reports a record
//! after a sound file as a warning, and after a broken one as an error. Which record
//! counts is decided by `journal::in_flight` alone, for all three: the committed state
//! is read first, and only a record past its end that names the header in place is an
//! edit in flight (docs/edit-protocol.md has the protocol and every crash state).

use alloc::borrow::Cow;
use alloc::vec::Vec;
use std::fs::File;
use std::io;
use std::path::Path;

use binfmt_core::Kind;
use binfmt_core::bytes::{self, len_u64, to_u64};
use binfmt_core::file::{open_locked, write_all_at};
use binfmt_core::le::I64;
use binfmt_core::source::{ByteSource, FileSource, read_exact};

use crate::chunk::{Chunk, ChunkHeader};
use crate::error::{Error, ErrorKind, Result, io, io_at};
use crate::header::{Header, HeaderFields};
use crate::journal::{self, Record};
use crate::metadata::MetadataSection;
use crate::options::ReadOptions;
use crate::pack::{BloscArgs, compress_all, default_threads, out_of_memory};
use crate::raw::{HEADER_SIZE, METADATA_HEADER_SIZE, MetadataHeader};

/// How [`fs::append`](crate::fs::append) compresses new chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub struct AppendOptions {
    /// The Blosc settings of the new chunks; `typesize` is replaced by the file's
    /// (bloscpack's defaults: clevel 7, byte shuffle, blosclz).
    pub blosc: BloscArgs,
}

impl AppendOptions {
    /// bloscpack's defaults.
    #[must_use]
    pub fn new() -> Self {
        AppendOptions::default()
    }

    /// With these Blosc settings for the new chunks.
    #[must_use]
    pub fn blosc(mut self, blosc: BloscArgs) -> Self {
        self.blosc = blosc;
        self
    }
}

/// What an append did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct AppendReport {
    /// Bytes appended.
    pub appended: u64,
    /// Chunks added (0 when everything fitted into the last chunk).
    pub new_chunks: u64,
    /// The header after the append.
    pub header: Header,
    /// The file's new length.
    pub file_len: u64,
    /// True when an interrupted earlier append was repaired first.
    pub repaired: bool,
}

/// The steps of the protocol, for tests that stop an append between them as a crash
/// would.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    Record,
    Data,
    Commit,
    Cut,
}

/// Appends `data` to the Bloscpack file at `path`; see [`fs::append`](crate::fs::append).
pub(crate) fn append(path: &Path, data: &[u8], options: &AppendOptions) -> Result<AppendReport> {
    let file = open_locked(path).map_err(io_at(path))?;
    append_locked(path, &file, data, options, &mut |_| Ok(()))
}

/// The append on `file`, opened and locked from `path`: the path must still name it now
/// that it is locked, and again just before the commit.
pub(crate) fn append_locked(
    path: &Path,
    file: &File,
    data: &[u8],
    options: &AppendOptions,
    hook: &mut dyn FnMut(Step) -> io::Result<()>,
) -> Result<AppendReport> {
    still_named(file, path)?;
    append_file(file, Some(path), data, options, hook).map_err(|e| e.with_path(path))
}

/// Repairs the file at `path`; see [`fs::repair`](crate::fs::repair).
pub(crate) fn repair(path: &Path) -> Result<bool> {
    let file = open_locked(path).map_err(io_at(path))?;
    still_named(&file, path)?;
    repair_file(&file).map_err(|e| e.with_path(path))
}

/// Checks that `path` still names the file (the inode) that `file` holds open: a
/// replacing writer (`pack -f`, which renames a new file over the path) may have put
/// another file there since it was opened, and an edit of the old one would be lost
/// with it. An I/O error ([`std::io::ErrorKind::Other`]) saying so when it does not;
/// nothing has then been written to the file that the path names.
pub(crate) fn still_named(file: &File, path: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let held = file.metadata().map_err(io_at(path))?;
        let same = match std::fs::metadata(path) {
            Ok(now) => now.dev() == held.dev() && now.ino() == held.ino(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            Err(e) => return Err(io_at(path)(e)),
        };
        if !same {
            return Err(io_at(path)(io::Error::other(
                "the file was replaced by another writer while this edit held it; the edit was not committed and the new file was not changed",
            )));
        }
    }
    #[cfg(not(unix))]
    let _ = (file, path);
    Ok(())
}

fn source(file: &File) -> Result<FileSource> {
    FileSource::new(file.try_clone().map_err(io)?).map_err(io)
}

/// Undoes or finishes an interrupted append; true when there was one. Which record
/// counts, and whether its append committed, is decided by [`journal::in_flight`] alone
/// (the rule `verify` applies too).
pub(crate) fn repair_file(file: &File) -> Result<bool> {
    let src = source(file)?;
    let undo = |record: &Record<'_>, committed: bool| -> Result<()> {
        if committed {
            // Committed: only the record is left to remove.
            file.set_len(record.new_end).map_err(io)?;
        } else {
            write_all_at(file, record.old_header, 0).map_err(io)?;
            for (at, bytes) in record.patches() {
                write_all_at(file, bytes, at).map_err(io)?;
            }
            file.sync_data().map_err(io)?;
            file.set_len(record.old_end).map_err(io)?;
        }
        file.sync_all().map_err(io)
    };
    match journal::in_flight(&src, undo)? {
        None => Ok(false),
        Some(done) => done.map(|()| true),
    }
}

fn cannot(reason: &'static str) -> Error {
    ErrorKind::CannotAppend { reason }.unlocated()
}

/// The append itself; `hook` runs after each step's write (a test makes it fail to stop
/// the append there, as a crash would: nothing is cleaned up).
pub(crate) fn append_file(
    file: &File,
    path: Option<&Path>,
    data: &[u8],
    options: &AppendOptions,
    hook: &mut dyn FnMut(Step) -> io::Result<()>,
) -> Result<AppendReport> {
    let repaired = repair_file(file)?;
    let src = source(file)?;
    let file_len = src.len().map_err(io)?;
    let read_options = ReadOptions::new();

    // The prefix: header, metadata section, offsets table.
    let head = read_exact(&src, 0, to_u64(HEADER_SIZE), "header")?;
    let header = Header::parse_with(&head, &read_options)?;
    if !header.has_offsets() {
        return Err(cannot(
            "it has no offsets section (bloscpack cannot append to it either)",
        ));
    }
    let (Some(chunk_size), Some(last_chunk), Some(nchunks)) =
        (header.chunk_size(), header.last_chunk(), header.nchunks())
    else {
        return Err(cannot("its chunk_size, last_chunk or nchunks is unknown"));
    };
    if chunk_size == 0 {
        return Err(cannot(
            "its chunk_size is 0 (an empty file); pack the data anew",
        ));
    }
    let mut offsets_at = to_u64(HEADER_SIZE);
    if header.has_metadata() {
        let meta_head = read_exact(
            &src,
            offsets_at,
            to_u64(METADATA_HEADER_SIZE),
            "metadata header",
        )?;
        let meta: &MetadataHeader =
            bytes::read(&meta_head, 0, "metadata header").map_err(|e| e.rebased(offsets_at))?;
        let digest =
            crate::Checksum::from_id(meta.meta_checksum).map_or(0, crate::Checksum::size_u64);
        offsets_at += to_u64(METADATA_HEADER_SIZE) + u64::from(meta.max_meta_size.get()) + digest;
    }
    let table_len = bytes::size_of_table(header.offsets_len(), 8, "offsets", offsets_at)?;
    let chunks_at = bytes::end(offsets_at, table_len, "offsets")?;
    let prefix: Cow<'_, [u8]> = read_exact(&src, 0, chunks_at, "offsets")?;
    if header.has_metadata() {
        MetadataSection::parse(&prefix, to_u64(HEADER_SIZE))?;
    }
    let entries: &[I64] = bytes::read_table(&prefix, offsets_at, header.offsets_len(), "offsets")?;

    // Used entries: strictly increasing from the first chunk; spare ones: free.
    let mut at_least = chunks_at;
    let used = usize::try_from(nchunks).unwrap_or(usize::MAX);
    for (i, e) in entries.iter().enumerate() {
        let index = to_u64(i);
        let at = offsets_at + 8 * index;
        let v = e.get();
        if i < used {
            let ok = u64::try_from(v).is_ok_and(|v| v >= at_least && (i > 0 || v == chunks_at));
            if !ok {
                return Err(ErrorKind::OffsetMismatch {
                    index,
                    stored: v,
                    actual: at_least,
                }
                .at(at));
            }
            at_least = v.unsigned_abs().saturating_add(16);
        } else if v != -1 {
            return Err(ErrorKind::SpareSlotInUse { index, stored: v }.at(at));
        }
    }

    // The last chunk, checked as unpack would (digest, header, block table).
    let last_index = nchunks - 1;
    let last_at = entries
        .get(used.saturating_sub(1))
        .map_or(chunks_at, |e| e.get().unsigned_abs());
    let head_bytes = read_exact(&src, last_at, 16, "chunk header")?;
    let chunk_header = ChunkHeader::read(&head_bytes, 0).map_err(|e| e.rebased(last_at))?;
    chunk_header.check(last_at, last_index)?;
    let digest_len = header.checksum().size_u64();
    let chunk_len = u64::from(chunk_header.cbytes) + digest_len;
    let chunk_bytes = read_exact(&src, last_at, chunk_len, "chunk")?;
    if chunk_header.nbytes != last_chunk {
        if crate::file::legacy_short_last(&header, last_index, chunk_header.nbytes, last_chunk) {
            return Err(cannot(
                "its last chunk holds last_chunk rounded down to whole elements (written by bloscpack 0.11 or 0.13); unpack it and pack it anew",
            ));
        }
        return Err(ErrorKind::ChunkSizeMismatch {
            index: last_index,
            nbytes: chunk_header.nbytes,
            expected: last_chunk,
            field: "last_chunk",
        }
        .at(last_at + 4));
    }
    let last = Chunk::detached(
        last_index,
        last_at,
        chunk_header,
        header.checksum(),
        &chunk_bytes,
    );
    last.verify()?;
    last.check_blocks()?;
    let old_end = last_at + chunk_len;

    // What the new chunks hold: the old last chunk's data topped up, then the rest.
    let chunk = usize::try_from(chunk_size).unwrap_or(usize::MAX);
    let room = chunk - usize::try_from(last_chunk).unwrap_or(0);
    let (top_up, rest) = data.split_at(room.min(data.len()));
    let new_chunks = to_u64(rest.len().div_ceil(chunk));
    if new_chunks > header.max_app_chunks() {
        return Err(ErrorKind::NotEnoughSpace {
            needed: new_chunks,
            available: header.max_app_chunks(),
        }
        .unlocated());
    }
    let new_last = if rest.is_empty() {
        last_chunk + u32::try_from(top_up.len()).unwrap_or(0)
    } else {
        u32::try_from(rest.len() - chunk * (rest.len().div_ceil(chunk) - 1)).unwrap_or(0)
    };
    let new_header = Header::new(HeaderFields {
        options: header.options(),
        checksum: header.checksum(),
        typesize: header.typesize(),
        chunk_size: Some(chunk_size),
        last_chunk: Some(new_last),
        nchunks: Some(nchunks + new_chunks),
        max_app_chunks: header.max_app_chunks() - new_chunks,
    })?;
    let mut header_bytes = new_header.to_bytes();
    // Keep the version (2 stays 2: bytes 24..32 stay 0 because no slot exists there).
    header_bytes[4] = header.version();
    let mut report = AppendReport {
        appended: len_u64(data),
        new_chunks,
        header: new_header,
        file_len,
        repaired,
    };
    if data.is_empty() {
        report.header = header;
        return Ok(report);
    }

    // Compress. The old last chunk is decompressed only when it is topped up; its size
    // was checked against its block table, so a header's claim alone sizes nothing.
    let mut args = options.blosc;
    args.typesize = header.typesize().max(1);
    let rewrite_last = !top_up.is_empty();
    let (tail_at, first_index) = if rewrite_last {
        (last_at, last_index)
    } else {
        (old_end, nchunks)
    };
    let mut joined = Vec::new();
    if rewrite_last {
        let len = usize::try_from(last_chunk).unwrap_or(usize::MAX);
        let need = len.saturating_add(top_up.len());
        joined
            .try_reserve_exact(need)
            .map_err(|_| out_of_memory(need))?;
        joined.resize(len, 0);
        last.decompress_into(&mut joined)?;
        joined.extend_from_slice(top_up);
    }
    let mut pieces: Vec<&[u8]> = Vec::new();
    if rewrite_last {
        pieces.push(&joined);
    }
    pieces.extend(rest.chunks(chunk));
    let compressed = compress_all(&args, header.checksum(), &pieces, default_threads())?;
    let mut tail = Vec::new();
    let mut offsets = Vec::new();
    for c in &compressed {
        offsets.extend_from_slice(&(tail_at + len_u64(&tail)).to_le_bytes());
        tail.extend_from_slice(c);
    }
    drop(compressed);
    let new_end = tail_at + len_u64(&tail);
    report.file_len = new_end;

    // The commit: header, metadata section as it is, offsets through the last new entry.
    let entries_at = offsets_at + 8 * first_index;
    let commit_len = usize::try_from(entries_at + len_u64(&offsets)).unwrap_or(usize::MAX);
    let mut commit = prefix.get(..commit_len).unwrap_or(&[]).to_vec();
    let entries_from = usize::try_from(entries_at).unwrap_or(usize::MAX);
    if let Some(h) = commit.get_mut(..HEADER_SIZE) {
        h.copy_from_slice(&header_bytes);
    }
    if let Some(o) = commit.get_mut(entries_from..) {
        o.copy_from_slice(&offsets);
    }

    // The undo record: the committed bytes the data write and the commit overwrite.
    let mut old_header = [0u8; 32];
    old_header.copy_from_slice(head.get(..32).unwrap_or(&[0; 32]));
    let old_entries = prefix.get(entries_from..commit_len).unwrap_or(&[]);
    let overwritten = read_exact(&src, tail_at, old_end.min(new_end) - tail_at, "chunk")?;
    let record = journal::encode(
        old_end,
        new_end,
        &header_bytes,
        &old_header,
        &[(entries_at, old_entries), (tail_at, &overwritten)],
    );
    let record_at = file_len.max(new_end);
    write_all_at(file, &record, record_at).map_err(io)?;
    hook(Step::Record).map_err(io)?;
    file.sync_data().map_err(io)?;

    write_all_at(file, &tail, tail_at).map_err(io)?;
    hook(Step::Data).map_err(io)?;
    file.sync_data().map_err(io)?;

    if let Some(path) = path {
        // A replacing writer may have renamed another file over the path meanwhile: this
        // append would then commit to a file nobody will open again. Not committed, it
        // stays an interrupted append of that file.
        still_named(file, path)?;
    }
    write_all_at(file, &commit, 0).map_err(io)?;
    hook(Step::Commit).map_err(io)?;
    file.sync_data().map_err(io)?;

    file.set_len(new_end).map_err(io)?;
    hook(Step::Cut).map_err(io)?;
    file.sync_all().map_err(io)?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use binfmt_core::scratch::{Replaced, Scratch};

    use super::*;
    use crate::{Bloscpack, PackOptions, UnpackOptions};

    fn data(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| {
                u8::try_from(i / 3 % 251).unwrap_or(0)
                    ^ seed.wrapping_mul(u8::try_from(i % 7).unwrap_or(0))
            })
            .collect()
    }

    /// A scratch directory for the test `name`, and the path of `f.blp` in it.
    fn scratch(name: &str) -> (Scratch, std::path::PathBuf) {
        let dir = Scratch::new(&std::format!("bloscpack-append-unit-{name}"));
        let path = dir.join("f.blp");
        (dir, path)
    }

    fn unpack(bytes: &[u8]) -> Vec<u8> {
        let file = Bloscpack::parse(bytes).unwrap_or_else(|e| panic!("{e}"));
        file.unpack_to_vec(&UnpackOptions::DEFAULT)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    #[allow(clippy::unwrap_used, clippy::panic)]
    fn a_crash_between_any_two_steps_is_repaired() {
        let options = PackOptions {
            chunk_size: 512,
            ..PackOptions::default()
        };
        // A last chunk that is topped up (1300 = 2 × 512 + 276), and a full one (1024).
        for (original_len, extra_len) in [(1300, 100), (1300, 1700), (1024, 100), (1024, 1700)] {
            let original = data(original_len, 9);
            let packed = options.to_vec(&original).unwrap();
            let extra = data(extra_len, 3);
            for crash in [Step::Record, Step::Data, Step::Commit, Step::Cut] {
                let (_dir, path) =
                    scratch(&std::format!("crash-{original_len}-{extra_len}-{crash:?}"));
                std::fs::write(&path, &packed).unwrap();
                let file = open_locked(&path).unwrap();
                let mut hook = |s: Step| {
                    if s == crash {
                        Err(io::Error::other("killed"))
                    } else {
                        Ok(())
                    }
                };
                assert!(
                    append_file(&file, None, &extra, &AppendOptions::new(), &mut hook).is_err()
                );
                drop(file);
                let torn = std::fs::read(&path).unwrap();
                let committed = matches!(crash, Step::Commit | Step::Cut);
                // Before the commit the old file is intact up to its end (also after the
                // data write when the last chunk was full, so nothing was overwritten).
                if !committed && (crash != Step::Data || original_len == 1024) {
                    assert_eq!(unpack(&torn), original, "{crash:?}");
                }
                let mut findings = binfmt_core::verify::Findings::new(8);
                let summary = crate::verify(&torn, &ReadOptions::new(), &mut findings);
                let said = findings
                    .errors()
                    .iter()
                    .chain(findings.warnings())
                    .any(|e| matches!(e.kind(), ErrorKind::InterruptedAppend { .. }));
                assert!(said || crash == Step::Cut, "{crash:?}: {summary:?}");
                // The next append repairs, then appends.
                let report = super::append(&path, b"more", &AppendOptions::new()).unwrap();
                assert_eq!(report.repaired, crash != Step::Cut, "{crash:?}");
                let mut want = original.clone();
                if committed {
                    want.extend_from_slice(&extra);
                }
                want.extend_from_slice(b"more");
                let after = std::fs::read(&path).unwrap();
                assert_eq!(unpack(&after), want, "{extra_len} {crash:?}");
                let mut findings = binfmt_core::verify::Findings::new(8);
                assert!(crate::verify(&after, &ReadOptions::new(), &mut findings).is_valid());
                assert!(findings.warnings().is_empty(), "{:?}", findings.warnings());
            }
        }
    }

    /// Packs a file at `path`, and another to rename over it, in a scratch directory.
    #[allow(clippy::unwrap_used)]
    fn replaced(name: &str) -> Replaced {
        let options = PackOptions {
            chunk_size: 256,
            ..PackOptions::default()
        };
        Replaced::new(
            &std::format!("bloscpack-append-unit-{name}"),
            "f.blp",
            "f.new",
            options.to_vec(&data(1000, 1)).unwrap(),
            options.to_vec(&data(700, 2)).unwrap(),
        )
    }

    /// Appends `data` to the locked `file`, which another writer replaces at `path` (before
    /// the lock, or through `hook`): the append fails saying so, and `path` still holds
    /// `new`, the replacing file.
    #[allow(clippy::unwrap_used, clippy::panic)]
    fn assert_refused(
        path: &Path,
        file: &File,
        data: &[u8],
        hook: &mut dyn FnMut(Step) -> io::Result<()>,
        new: &[u8],
    ) {
        let e = append_locked(path, file, data, &AppendOptions::new(), hook).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Io(_)), "{e}");
        assert!(
            std::format!("{e}").contains("replaced by another writer"),
            "{e}"
        );
        assert_eq!(std::fs::read(path).unwrap(), new);
    }

    /// What the open `file` holds, read from its start.
    #[allow(clippy::unwrap_used)]
    fn held(mut file: &File) -> Vec<u8> {
        let mut held = Vec::new();
        io::Read::read_to_end(&mut file, &mut held).unwrap();
        held
    }

    #[test]
    #[allow(clippy::unwrap_used, clippy::panic)]
    fn a_file_replaced_before_the_lock_is_not_edited() {
        let r = replaced("replaced-before-lock");
        let file = open_locked(&r.path).unwrap();
        std::fs::rename(&r.staged, &r.path).unwrap();
        assert_refused(&r.path, &file, b"lost", &mut |_| Ok(()), &r.new);
        // Nothing was written to the old file either: the check comes first.
        assert_eq!(held(&file), r.old);
    }

    #[test]
    #[allow(clippy::unwrap_used, clippy::panic)]
    fn a_file_replaced_before_the_commit_is_not_committed() {
        let r = replaced("replaced-before-commit");
        let file = open_locked(&r.path).unwrap();
        let mut hook = |s: Step| {
            if s == Step::Data {
                std::fs::rename(&r.staged, &r.path)?;
            }
            Ok(())
        };
        assert_refused(&r.path, &file, &data(900, 3), &mut hook, &r.new);
        // The old file was left as an interrupted append, which a repair undoes.
        assert!(repair_file(&file).unwrap());
        assert_eq!(held(&file), r.old);
    }

    #[test]
    #[allow(clippy::unwrap_used, clippy::panic)]
    fn concurrent_appends_both_land() {
        let (_dir, path) = scratch("concurrent");
        let options = PackOptions {
            chunk_size: 256,
            max_app_chunks: Some(1000),
            ..PackOptions::default()
        };
        std::fs::write(&path, options.to_vec(&data(1000, 1)).unwrap()).unwrap();
        let (a, b) = (data(5000, 2), data(3000, 4));
        std::thread::scope(|s| {
            let pa = &path;
            let ta = s.spawn(|| super::append(pa, &a, &AppendOptions::new()));
            let tb = s.spawn(|| super::append(pa, &b, &AppendOptions::new()));
            ta.join().unwrap().unwrap();
            tb.join().unwrap().unwrap();
        });
        let got = unpack(&std::fs::read(&path).unwrap());
        let mut ab = data(1000, 1);
        ab.extend_from_slice(&a);
        ab.extend_from_slice(&b);
        let mut ba = data(1000, 1);
        ba.extend_from_slice(&b);
        ba.extend_from_slice(&a);
        assert!(got == ab || got == ba, "an append was lost");
    }
}
