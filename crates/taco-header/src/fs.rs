//! Files: reading them whole, mapping them, reading their header, and updating the
//! header in place.
//!
//! # The in-place update and its crash-consistency protocol
//!
//! [`update`] replaces the header's entries in an archive file:
//!
//! 1. it opens the file for writing and locks it
//!    ([`binfmt_core::file::open_locked`], an advisory lock that every binfmt writer
//!    takes), so two updates never interleave;
//! 2. it reads and checks, before writing anything, everything the writes depend on:
//!    the header's fields (the payload must be at byte 41), the end records (and ZIP64
//!    records), and the first central-directory entry (`TACO_HEADER`, at offset 0,
//!    stored, 116 bytes). It reads the first 157 bytes, the last 64 KiB and that one
//!    entry, whatever the number of members. The CRCs are *not* required to match, so
//!    that an update repairs what an interrupted one left;
//! 3. it makes the three writes of [`Patch::writes`](crate::Patch::writes), in order:
//!    the central directory's copy of the CRC, the payload, the header's CRC (which
//!    commits), each followed by `fdatasync` (unless [`UpdateOptions::sync`] is off) so
//!    that they reach the disk in that order too.
//!
//! An update killed between two writes leaves the two CRC copies different, which no
//! other state has: [`verify`](crate::verify()) and
//! [`Archive::parse`](crate::Archive::parse) report it as
//! [`ErrorKind::TornUpdate`](crate::ErrorKind::TornUpdate), saying whether the header
//! still holds the old entries (killed after the first write) or the new ones without
//! their CRC (after the second), and the next update repairs it. If a write fails, the
//! original bytes are written back, in reverse order, before the error is returned.

use alloc::vec::Vec;
use std::path::Path;

use binfmt_core::source::FileSource;

use crate::central::CENTRAL_CRC_AT;
use crate::entries::Entries;
use crate::error::{Result, io_at, with_path};
use crate::header::Header;
use crate::options::ReadOptions;
use crate::patch::Patch;
use crate::raw::{self, HEADER_SIZE};
use crate::reader::Reader;
use crate::walk::{self, Input, Ranged};

/// The whole file at `path`, read with ordinary reads.
///
/// # Errors
/// [`ErrorKind::Io`](crate::ErrorKind::Io) naming the path.
pub fn read(path: impl AsRef<Path>) -> Result<Vec<u8>> {
    let path = path.as_ref();
    std::fs::read(path).map_err(io_at(path))
}

/// A read-only memory map of the file at `path`, usable as `&[u8]`
/// ([`Archive::parse`](crate::Archive::parse), [`verify`](crate::verify())). The caller
/// promises that no process truncates or rewrites the file while it is mapped (see
/// [`binfmt_core::mmap`]); [`read`] or a [`Reader`] over a
/// [`FileSource`] do not need that promise.
///
/// # Errors
/// [`ErrorKind::Io`](crate::ErrorKind::Io) naming the path.
#[cfg(feature = "mmap")]
#[cfg_attr(docsrs, doc(cfg(feature = "mmap")))]
pub fn map(path: impl AsRef<Path>) -> Result<binfmt_core::mmap::Mmap> {
    let path = path.as_ref();
    binfmt_core::mmap::Mmap::open(path).map_err(io_at(path))
}

/// A [`Reader`] over the file at `path`, read with positioned reads (`pread`): its first
/// 256 bytes are read and the header is checked.
///
/// # Errors
/// As [`Reader::open`], I/O errors naming the path.
pub fn open(path: impl AsRef<Path>) -> Result<Reader<FileSource>> {
    let path = path.as_ref();
    let source = FileSource::open(path).map_err(io_at(path))?;
    Reader::open(source).map_err(with_path(path))
}

/// The entries of the header of the archive at `path`, fully checked. Only the start of
/// the file is read (one 256-byte read).
///
/// # Errors
/// As [`Header::parse`], I/O errors naming the path.
pub fn read_entries(path: impl AsRef<Path>) -> Result<Entries> {
    Ok(open(path)?.entries())
}

/// How [`update_with`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UpdateOptions {
    sync: bool,
}

impl UpdateOptions {
    /// The defaults: sync.
    #[must_use]
    pub const fn new() -> Self {
        UpdateOptions { sync: true }
    }

    /// Whether each write is flushed to the storage device before the next one
    /// (`fdatasync`; default: true). Without it the writes still happen in order for
    /// every process, but a power failure may keep any subset of them; the archive is
    /// then still recognised as torn by `verify`.
    #[must_use]
    pub const fn sync(mut self, sync: bool) -> Self {
        self.sync = sync;
        self
    }
}

impl Default for UpdateOptions {
    fn default() -> Self {
        UpdateOptions::new()
    }
}

/// Replaces the entries of the header of the archive at `path`, following the
/// [protocol above](self#the-in-place-update-and-its-crash-consistency-protocol).
///
/// ```
/// use taco_header::{ArchiveBuilder, Entries, Entry};
/// # let dir = std::env::temp_dir().join(format!("taco-update-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("example.taco");
/// ArchiveBuilder::new(Entries::new()).write_to_path(&path)?;
/// let entries = Entries::from_slice(&[Entry::new(1, 2)])?;
/// taco_header::fs::update(&path, &entries)?;
/// assert_eq!(taco_header::fs::read_entries(&path)?, entries);
/// # std::fs::remove_dir_all(dir).unwrap();
/// # Ok::<(), taco_header::Error>(())
/// ```
///
/// # Errors
/// Any problem with the archive that the writes depend on (as
/// [`Archive::parse_with`](crate::Archive::parse_with) without checksums), or an I/O
/// error naming the path. The file is unchanged whenever an error is returned, unless
/// restoring the original bytes after a failed write failed too.
pub fn update(path: impl AsRef<Path>, entries: &Entries) -> Result<()> {
    update_with(path, entries, &UpdateOptions::new())
}

/// [`update`] with options.
///
/// # Errors
/// As [`update`].
pub fn update_with(
    path: impl AsRef<Path>,
    entries: &Entries,
    options: &UpdateOptions,
) -> Result<()> {
    let path = path.as_ref();
    let file = binfmt_core::file::open_locked(path).map_err(io_at(path))?;
    let source = FileSource::new(file).map_err(io_at(path))?;
    let plan = Plan::read(&source).map_err(with_path(path))?;
    let patch = Patch::new(entries, plan.header_entry_offset);
    let file = source.file();
    for (done, &write) in patch.writes().iter().enumerate() {
        if let Err(e) = write_one(file, write, options.sync) {
            // Put back what was there; if that fails too, the first error is the one to
            // report (and the archive is a torn update, which the next update repairs).
            for &undo in plan.original().iter().take(done.saturating_add(1)).rev() {
                let _ = write_one(file, undo, options.sync);
            }
            return Err(io_at(path)(e));
        }
    }
    Ok(())
}

fn write_one(
    file: &std::fs::File,
    (offset, bytes): (u64, &[u8]),
    sync: bool,
) -> std::io::Result<()> {
    if sync {
        binfmt_core::file::patch(file, &[(offset, bytes)])
    } else {
        binfmt_core::file::write_all_at(file, bytes, offset)
    }
}

/// What `update` learns before it writes, and the bytes it would overwrite.
struct Plan {
    header: raw::Header,
    header_entry_offset: u64,
    central_crc: [u8; 4],
}

impl Plan {
    /// Reads the first 157 bytes, the tail and the first central-directory entry: four
    /// requests at most, whatever the number of members.
    fn read<S: binfmt_core::source::ByteSource + ?Sized>(source: &S) -> Result<Plan> {
        let input = Ranged(source);
        let head = input.read(0, binfmt_core::bytes::to_u64(HEADER_SIZE), "TACO header")?;
        // Strict fields (the payload must be at 41), no CRCs: a torn update is repaired.
        let header = *Header::parse_with(&head, &ReadOptions::new().checksums(false))?.raw();
        let (directory, tail) = walk::find_directory(&input)?;
        let entry = walk::first_entry_bytes(&input, &directory, &tail)?;
        let first = walk::header_entry(&entry, &directory)?;
        Ok(Plan {
            header,
            header_entry_offset: directory.cd_offset,
            central_crc: first.raw.crc32.to_bytes(),
        })
    }

    /// The writes that restore what [`Patch::writes`] overwrites, in the same order.
    fn original(&self) -> [(u64, &[u8]); 3] {
        use binfmt_core::field_offset;
        use zerocopy::IntoBytes;
        let central = self.header_entry_offset.saturating_add(CENTRAL_CRC_AT);
        [
            (central, &self.central_crc),
            (
                field_offset!(raw::Header, payload),
                self.header.payload.as_bytes(),
            ),
            (
                field_offset!(raw::Header, local.crc32),
                self.header.local.crc32.as_bytes(),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use binfmt_core::source::Counting;

    use super::*;
    use crate::ArchiveBuilder;

    #[test]
    fn update_reads_the_same_few_ranges_whatever_the_member_count() {
        for members in [2u32, 30_000] {
            let mut b = ArchiveBuilder::new(Entries::new());
            for i in 0..members {
                b.add_bytes(std::format!("member/{i:05}"), i.to_le_bytes().to_vec());
            }
            let bytes = b.to_vec().unwrap();
            let source = Counting::new(&bytes[..]);
            let plan = Plan::read(&source).unwrap();
            assert_eq!(
                plan.header_entry_offset,
                crate::Archive::parse(&bytes).unwrap().directory().cd_offset
            );
            let stats = source.stats();
            // Header, tail, and (for a directory beyond the tail) the first entry's fixed
            // part and the entry.
            let expected = if members == 2 { 2 } else { 4 };
            assert_eq!(stats.requests, expected, "{members} members");
            assert!(
                stats.bytes <= 157 + crate::TAIL_LEN + 46 + 57,
                "{members} members"
            );
        }
    }
}
