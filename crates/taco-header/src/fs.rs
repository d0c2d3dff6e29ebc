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
use crate::walk;

binfmt_core::fs_fns! {
    /// The whole file at `path`, read with ordinary reads.
    ///
    /// # Errors
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) naming the path.
    pub fn read;

    /// A read-only memory map of the file at `path`, usable as `&[u8]`
    /// ([`Archive::parse`](crate::Archive::parse), [`verify`](crate::verify())). The caller
    /// promises that no process truncates or rewrites the file while it is mapped (see
    /// [`binfmt_core::mmap`]); [`read`] or a [`Reader`] over a
    /// [`FileSource`] do not need that promise.
    ///
    /// # Errors
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) naming the path.
    pub fn map;

    /// A [`Reader`] over the file at `path`, read with positioned reads (`pread`): its first
    /// 256 bytes are read and the header is checked. [`open_with`] with the default
    /// [`ReadOptions`].
    ///
    /// ```no_run
    /// let reader = taco_header::fs::open("data.taco")?;
    /// println!("{:?}", reader.entries());
    /// # Ok::<(), taco_header::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Reader::open`], I/O errors naming the path.
    pub fn open;

    /// [`open`] with `options`.
    ///
    /// # Errors
    /// As [`Reader::open_with`], I/O errors naming the path.
    pub fn open_with;
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
/// use taco_header::{Entries, Entry, Writer};
/// # let dir = std::env::temp_dir().join(format!("taco-update-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("example.taco");
/// Writer::new(Entries::new()).write_to_path(&path)?;
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
    update_locked(path, file, entries, options, &mut |_| Ok(()))
}

/// The update of `file`, opened and locked from `path`. `hook` runs before each write
/// (tests replace the file there, as a concurrent writer would).
fn update_locked(
    path: &Path,
    file: std::fs::File,
    entries: &Entries,
    options: &UpdateOptions,
    hook: &mut dyn FnMut(usize) -> std::io::Result<()>,
) -> Result<()> {
    // A replacing writer may have renamed a new file over the path while this one
    // waited for the lock: the update would go to a file nobody opens again.
    still_named(&file, path)?;
    let source = FileSource::new(file).map_err(io_at(path))?;
    let plan = Plan::read(&source).map_err(with_path(path))?;
    let patch = Patch::new(entries, plan.header_entry_offset);
    let file = source.file();
    let writes = patch.writes();
    for (done, &write) in writes.iter().enumerate() {
        let mut result = hook(done).map_err(io_at(path));
        if result.is_ok() && done + 1 == writes.len() {
            // Again just before the commit (the header's CRC).
            result = still_named(file, path);
        }
        if result.is_ok() {
            result = write_one(file, write, options.sync).map_err(io_at(path));
        }
        if let Err(e) = result {
            // Put back what was there; if that fails too, the first error is the one to
            // report (and the archive is a torn update, which the next update repairs).
            for &undo in plan.original().iter().take(done.saturating_add(1)).rev() {
                let _ = write_one(file, undo, options.sync);
            }
            return Err(e);
        }
    }
    Ok(())
}

/// Checks that `path` still names the file (the inode) that `file` holds open; an I/O
/// error saying that another writer replaced it when it does not. Nothing has then been
/// written to the file the path names.
fn still_named(file: &std::fs::File, path: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let held = file.metadata().map_err(io_at(path))?;
        let same = match std::fs::metadata(path) {
            Ok(now) => now.dev() == held.dev() && now.ino() == held.ino(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => return Err(io_at(path)(e)),
        };
        if !same {
            return Err(io_at(path)(std::io::Error::other(
                "the file was replaced by another writer while this edit held it; the edit was not committed and the new file was not changed",
            )));
        }
    }
    #[cfg(not(unix))]
    let _ = (file, path);
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
        use binfmt_core::data::Data as _;
        // Each read is one request: nothing is hinted, as each depends on the last.
        let cache = binfmt_core::cache::ReadCache::new(source);
        let data = &cache;
        let head = data.bytes(0, binfmt_core::bytes::to_u64(HEADER_SIZE), "TACO header")?;
        // Strict fields (the payload must be at 41), no CRCs: a torn update is repaired.
        let header = *Header::parse_with(head, &ReadOptions::new().checksums(false))?.raw();
        let (directory, tail) = walk::find_directory(data)?;
        let entry = walk::first_entry_bytes(data, &directory, &tail)?;
        let first = walk::header_entry(entry, &directory)?;
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
    use alloc::vec::Vec;

    use binfmt_core::scratch::Replaced;
    use binfmt_core::source::Counting;

    use super::*;
    use crate::{Entry, Writer};

    /// An archive at `path`, and another to rename over it, in a scratch directory.
    fn replaced(test: &str) -> Replaced {
        let build = |n: u64| {
            let mut b = Writer::new(Entries::from_slice(&[Entry::new(n, n)]).unwrap());
            b.add_bytes("a.bin", std::vec![7u8; 100]);
            b.to_vec().unwrap()
        };
        let name = std::format!("taco-header-fs-{test}");
        Replaced::new(&name, "a.taco", "b.taco", build(1), build(2))
    }

    fn assert_replaced(e: &crate::Error) {
        assert!(matches!(e.kind(), crate::ErrorKind::Io(_)), "{e}");
        assert!(
            std::format!("{e}").contains("replaced by another writer"),
            "{e}"
        );
    }

    fn held(file: &std::fs::File) -> Vec<u8> {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut &*file, &mut bytes).unwrap();
        bytes
    }

    #[test]
    fn a_file_replaced_before_the_lock_is_not_updated() {
        let r = replaced("before-lock");
        let file = binfmt_core::file::open_locked(&r.path).unwrap();
        let keep = file.try_clone().unwrap();
        std::fs::rename(&r.staged, &r.path).unwrap();
        let entries = Entries::from_slice(&[Entry::new(9, 9)]).unwrap();
        let e = update_locked(&r.path, file, &entries, &UpdateOptions::new(), &mut |_| {
            Ok(())
        })
        .unwrap_err();
        assert_replaced(&e);
        assert_eq!(std::fs::read(&r.path).unwrap(), r.new);
        assert_eq!(held(&keep), r.old);
    }

    #[test]
    fn a_file_replaced_before_the_commit_is_not_committed() {
        let r = replaced("before-commit");
        let file = binfmt_core::file::open_locked(&r.path).unwrap();
        let keep = file.try_clone().unwrap();
        let entries = Entries::from_slice(&[Entry::new(9, 9)]).unwrap();
        // Replaced after the first two writes, before the commit.
        let mut hook = |done: usize| {
            if done == 2 {
                std::fs::rename(&r.staged, &r.path)?;
            }
            Ok(())
        };
        let e =
            update_locked(&r.path, file, &entries, &UpdateOptions::new(), &mut hook).unwrap_err();
        assert_replaced(&e);
        assert_eq!(std::fs::read(&r.path).unwrap(), r.new);
        // The two writes made to the old file were put back.
        assert_eq!(held(&keep), r.old);
    }

    #[test]
    fn update_reads_the_same_few_ranges_whatever_the_member_count() {
        for members in [2u32, 30_000] {
            let mut b = Writer::new(Entries::new());
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
                stats.bytes <= 157 + crate::TAIL_SIZE + 46 + 57,
                "{members} members"
            );
        }
    }
}
