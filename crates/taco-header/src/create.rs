//! Creating a TACO archive: the header first, then the members, stored.
//!
//! Everything is checked before the first byte is written (names, sources, sizes). The
//! output depends only on the inputs: timestamps are a fixed value (1980-01-01 by
//! default), not the current time or the sources' mtimes.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

use binfmt_core::le::{U16, U32, U64};
use binfmt_core::{Kind, bytes, field_offset};
use zerocopy::IntoBytes;

use crate::entries::Entries;
use crate::error::{ErrorKind, Result};
use crate::header::{FLAG_UTF8, HeaderOptions};
use crate::raw::{self, HEADER_NAME, ZIP64_EXTRA_ID};
use crate::time::DosDateTime;

#[cfg(feature = "std")]
use std::path::{Path, PathBuf};

/// Version needed for a stored member (1.0).
const VERSION_STORED: u16 = 10;
/// Version needed for a member that uses ZIP64 (4.5).
const VERSION_ZIP64: u16 = 45;
/// Made by: Unix (3), specification 4.5.
const MADE_BY: u16 = (3 << 8) | VERSION_ZIP64;
/// Regular file, mode 0644, in the Unix half of the external attributes.
const EXTERNAL_ATTRIBUTES: u32 = 0o100_644 << 16;
/// The 32-bit marker meaning "see the ZIP64 field".
const MARKER32: u64 = 0xFFFF_FFFF;
/// The 16-bit entry-count marker.
const MARKER16: u64 = 0xFFFF;

/// Options for [`Writer`].
///
/// ```
/// use taco_header::{DosDateTime, WriterOptions};
/// let options = WriterOptions::new()
///     .modified(DosDateTime::new(2025, 1, 2, 3, 4, 6).unwrap())
///     .verbatim_names(true);
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct WriterOptions {
    modified: DosDateTime,
    verbatim_names: bool,
}

/// The old name of [`WriterOptions`], kept for one release.
#[deprecated(note = "renamed to WriterOptions")]
pub type CreateOptions = WriterOptions;

impl WriterOptions {
    /// Timestamps 1980-01-01 00:00:00; names that could escape an extraction directory
    /// refused.
    #[must_use]
    pub const fn new() -> Self {
        WriterOptions {
            modified: DosDateTime::EPOCH,
            verbatim_names: false,
        }
    }

    /// The modification time of every entry (default 1980-01-01 00:00:00).
    #[must_use]
    pub const fn modified(mut self, modified: DosDateTime) -> Self {
        self.modified = modified;
        self
    }

    /// Whether to accept member names that extraction could turn into paths outside the
    /// target directory (absolute, `..`, backslashes, empty…), as tacozip does (default:
    /// false). Duplicate names and the name `TACO_HEADER` are refused regardless.
    #[must_use]
    pub const fn verbatim_names(mut self, verbatim: bool) -> Self {
        self.verbatim_names = verbatim;
        self
    }
}

#[derive(Debug, Clone)]
enum Source {
    #[cfg(feature = "std")]
    File(PathBuf),
    Bytes(Vec<u8>),
}

#[derive(Debug, Clone)]
struct Pending {
    name: String,
    source: Source,
}

/// Builds a TACO archive: members are added with [`add_bytes`](Writer::add_bytes) or
/// [`add_file`](Writer::add_file), then the archive is written in memory
/// ([`finish`](Writer::finish), [`to_vec`](Writer::to_vec)), to any `Write`
/// ([`write_to`](Writer::write_to)), to a `Write + Seek` in one pass over the files
/// ([`write_to_seekable`](Writer::write_to_seekable)), or to a path
/// ([`write_to_path`](Writer::write_to_path)).
///
/// ```
/// use taco_header::{Entries, Entry, Writer};
/// let mut writer = Writer::new(Entries::from_slice(&[Entry::new(200, 5)])?);
/// writer.add_bytes("COLLECTION.json", b"{}".to_vec());
/// let bytes = writer.finish()?;
/// let header = taco_header::Header::parse(&bytes)?;
/// assert_eq!(header.entries().as_slice(), &[Entry::new(200, 5)]);
/// # Ok::<(), taco_header::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Writer {
    entries: Entries,
    members: Vec<Pending>,
    options: WriterOptions,
}

/// The old name of [`Writer`], kept for one release.
#[deprecated(note = "renamed to Writer")]
pub type ArchiveBuilder = Writer;

/// A member after validation: its name, source and size are settled.
struct Planned<'a> {
    name: &'a str,
    source: &'a Source,
    size: u64,
    crc32: Option<u32>,
}

impl Writer {
    /// A writer whose header holds `entries` and which has no members yet. An archive
    /// holding only the header is valid.
    #[must_use]
    pub fn new(entries: Entries) -> Self {
        Writer {
            entries,
            members: Vec::new(),
            options: WriterOptions::new(),
        }
    }

    /// Sets the options.
    pub fn options(&mut self, options: WriterOptions) -> &mut Self {
        self.options = options;
        self
    }

    /// Adds the file at `path` as member `name`, after the members already added. The
    /// file is read when the archive is written.
    #[cfg(feature = "std")]
    pub fn add_file(&mut self, name: impl Into<String>, path: impl Into<PathBuf>) -> &mut Self {
        self.members.push(Pending {
            name: name.into(),
            source: Source::File(path.into()),
        });
        self
    }

    /// Adds `data` as member `name`, after the members already added.
    pub fn add_bytes(&mut self, name: impl Into<String>, data: impl Into<Vec<u8>>) -> &mut Self {
        self.members.push(Pending {
            name: name.into(),
            source: Source::Bytes(data.into()),
        });
        self
    }

    /// Ends the writer and returns the archive: [`Writer::to_vec`] for the last time,
    /// the one `finish` every binfmt writer has.
    ///
    /// # Errors
    /// As [`Writer::to_vec`].
    pub fn finish(self) -> Result<Vec<u8>> {
        self.to_vec()
    }

    /// The archive, in memory.
    ///
    /// # Errors
    /// [`ErrorKind::BadName`], [`ErrorKind::ReservedName`], [`ErrorKind::DuplicateName`]
    /// and, for files, [`ErrorKind::NotAFile`] before anything is built;
    /// [`ErrorKind::Io`] and [`ErrorKind::SourceChanged`] while files are read.
    pub fn to_vec(&self) -> Result<Vec<u8>> {
        // Memory can be patched: each file is read once, its CRC-32 written afterwards.
        let plan = self.plan(false)?;
        let mut out = Counted {
            out: Vec::new(),
            position: 0,
        };
        write_archive(&mut out, &plan, &self.entries, &self.options)?;
        Ok(out.out)
    }

    /// Writes the archive to `out` and returns its size in bytes. ZIP offsets count
    /// from the first byte written.
    ///
    /// A local header holds its member's CRC-32 and TACO archives have no data
    /// descriptors (tacozip writes none), so without seeking back the CRC-32 of a file
    /// member must be known before the file is copied: every file is read once for its
    /// CRC-32 before the first byte is written, then again while it is copied (and must
    /// give the same CRC-32). [`Writer::write_to_seekable`] reads each file once.
    ///
    /// # Errors
    /// As [`Writer::to_vec`], before anything is written; I/O errors on `out`, and
    /// [`ErrorKind::Io`] (`InvalidData`, naming the file) when a file's contents changed
    /// between the two reads. On error `out` holds a partial archive.
    #[cfg(feature = "std")]
    pub fn write_to<W: std::io::Write>(&self, mut out: W) -> Result<u64> {
        let plan = self.plan(true)?;
        let mut out = Counted {
            out: io::Plain {
                inner: std::io::BufWriter::with_capacity(1 << 16, &mut out),
            },
            position: 0,
        };
        write_archive(&mut out, &plan, &self.entries, &self.options)?;
        out.out.flush()?;
        Ok(out.position)
    }

    /// Writes the archive to `out`, which must be positioned at its start (ZIP offsets
    /// count from there), reading each file once, and returns its size in bytes.
    ///
    /// A file member's CRC-32 is known only once it has been copied; it is then written
    /// into its local header by seeking back. [`Output`](binfmt_core::output::Output)
    /// with `seekable(true)` gives a stream a spool.
    ///
    /// # Errors
    /// As [`Writer::to_vec`], and I/O errors on `out`; on error `out` holds a partial
    /// archive.
    #[cfg(feature = "std")]
    pub fn write_to_seekable<W: std::io::Write + std::io::Seek>(&self, mut out: W) -> Result<u64> {
        let plan = self.plan(false)?;
        let start = out.stream_position().map_err(binfmt_core::IoError::from)?;
        let mut out = Counted {
            out: io::Stream {
                inner: std::io::BufWriter::with_capacity(1 << 16, &mut out),
                start,
            },
            position: 0,
        };
        write_archive(&mut out, &plan, &self.entries, &self.options)?;
        out.out.flush()?;
        Ok(out.position)
    }

    /// Writes the archive to `path`, replacing any file there as `std::fs::write` does,
    /// under the workspace's output rules (`binfmt_core::output`): into a temporary
    /// file beside it, synced and renamed over it when complete (a FIFO or device is
    /// written into instead, through a spool), never over one of the member files.
    /// Each file is read once ([`Writer::write_to_seekable`]). Returns the archive's
    /// size in bytes.
    ///
    /// Nothing is created when validation fails, and `path` is untouched when writing
    /// fails.
    ///
    /// # Errors
    /// As [`Writer::write_to_seekable`], I/O errors naming `path`, and `InvalidInput`
    /// when `path` is one of the member files or a directory.
    #[cfg(feature = "std")]
    pub fn write_to_path(&self, path: impl AsRef<Path>) -> Result<u64> {
        use binfmt_core::output::{Output, OutputOptions};
        let path = path.as_ref();
        // Check before the output exists, so that nothing is created for a bad request.
        self.plan(false)?;
        let inputs = self.members.iter().filter_map(|m| match &m.source {
            Source::File(p) => Some(p.as_path()),
            Source::Bytes(_) => None,
        });
        let options = OutputOptions::new()
            .replace(true)
            .seekable(true)
            .inputs(inputs);
        let mut out = Output::create(path, &options).map_err(crate::error::io_at(path))?;
        let written = self
            .write_to_seekable(&mut out)
            .map_err(crate::error::with_path(path))?;
        out.commit().map_err(crate::error::io_at(path))?;
        Ok(written)
    }

    /// Checks names and sources and settles sizes, before anything is written; with
    /// `crc_files`, reads every file for its CRC-32 too (for outputs that cannot seek).
    #[cfg_attr(
        not(feature = "std"),
        expect(unused_variables, reason = "without `std` there are no file members")
    )]
    fn plan(&self, crc_files: bool) -> Result<Vec<Planned<'_>>> {
        let mut names = BTreeSet::new();
        let mut plan = Vec::with_capacity(self.members.len());
        for member in &self.members {
            check_name(&member.name, self.options.verbatim_names)?;
            if !names.insert(member.name.as_str()) {
                return Err(ErrorKind::DuplicateName {
                    name: member.name.clone(),
                }
                .unlocated());
            }
            let (size, crc32) = match &member.source {
                Source::Bytes(data) => (bytes::to_u64(data.len()), Some(crate::crc::crc32(data))),
                #[cfg(feature = "std")]
                Source::File(path) => {
                    let size = io::planned_size(path)?;
                    let crc32 = if crc_files {
                        Some(io::copy_file(path, size, &mut |_| Ok(()))?)
                    } else {
                        None
                    };
                    (size, crc32)
                }
            };
            plan.push(Planned {
                name: &member.name,
                source: &member.source,
                size,
                crc32,
            });
        }
        Ok(plan)
    }
}

/// Refuses names that cannot be stored, or that an extractor could turn into a path
/// outside its target directory.
fn check_name(name: &str, verbatim: bool) -> Result<()> {
    let bad = |reason| {
        Err(ErrorKind::BadName {
            name: name.into(),
            reason,
        }
        .unlocated())
    };
    if name.as_bytes() == HEADER_NAME {
        return Err(ErrorKind::ReservedName.unlocated());
    }
    if name.len() > usize::from(u16::MAX) {
        return bad("longer than 65535 bytes");
    }
    if verbatim {
        return Ok(());
    }
    if name.is_empty() {
        return bad("empty");
    }
    if name.contains('\0') {
        return bad("contains a NUL byte");
    }
    if name.contains('\\') {
        return bad("contains a backslash (ZIP paths use '/')");
    }
    if name.starts_with('/') {
        return bad("absolute path");
    }
    if name.len() >= 2 && name.as_bytes().get(1) == Some(&b':') {
        return bad("starts with a drive letter");
    }
    if name.ends_with('/') {
        return bad("ends with '/', which extractors treat as a directory");
    }
    if name.split('/').any(|part| part == "..") {
        return bad("has a '..' component");
    }
    if name.split('/').any(str::is_empty) {
        return bad("has an empty path component");
    }
    Ok(())
}

/// Where the archive's bytes go: memory, or (with `std`) a `Write` or a `Write + Seek`.
trait Sink {
    /// Appends `bytes`.
    fn write_all(&mut self, bytes: &[u8]) -> Result<()>;
    /// Overwrites bytes already written at archive offset `at`; `end` is the archive's
    /// length so far, where writing resumes.
    #[cfg(feature = "std")]
    fn patch(&mut self, at: u64, end: u64, bytes: &[u8]) -> Result<()>;
    /// Appends `size` bytes of the file at `path` and returns their CRC-32; fails if the
    /// file does not hold exactly that many.
    #[cfg(feature = "std")]
    fn copy_file(&mut self, path: &Path, size: u64) -> Result<u32> {
        io::copy_file(path, size, &mut |chunk| self.write_all(chunk))
    }
}

impl Sink for Vec<u8> {
    fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        self.extend_from_slice(bytes);
        Ok(())
    }

    #[cfg(feature = "std")]
    fn patch(&mut self, at: u64, _end: u64, bytes: &[u8]) -> Result<()> {
        let range = bytes::checked_range(
            at,
            bytes::to_u64(bytes.len()),
            bytes::to_u64(self.len()),
            "patched range",
        )?;
        if let Some(target) = self.get_mut(range) {
            target.copy_from_slice(bytes);
        }
        Ok(())
    }
}

/// A sink and the number of bytes written to it.
struct Counted<S> {
    out: S,
    position: u64,
}

impl<S: Sink> Counted<S> {
    fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        self.out.write_all(bytes)?;
        self.position = self.position.saturating_add(bytes::to_u64(bytes.len()));
        Ok(())
    }
}

fn write_archive<S: Sink>(
    out: &mut Counted<S>,
    plan: &[Planned<'_>],
    entries: &Entries,
    options: &WriterOptions,
) -> Result<u64> {
    let header = entries.to_header_bytes_with(
        &HeaderOptions::new()
            .version_needed(VERSION_STORED)
            .modified(options.modified),
    );
    out.write_all(&header)?;
    let mut written = Vec::with_capacity(plan.len().saturating_add(1));
    written.push(Written {
        name: &HEADER_NAME,
        flags: 0,
        crc32: entries.crc32(),
        size: bytes::to_u64(raw::PAYLOAD_SIZE),
        local_header_offset: 0,
    });
    for member in plan {
        written.push(write_member(out, member, options)?);
    }

    let cd_offset = out.position;
    for member in &written {
        write_central_entry(out, member, options)?;
    }
    let cd_size = out.position.saturating_sub(cd_offset);
    write_end(out, cd_offset, cd_size, bytes::to_u64(written.len()))?;
    Ok(out.position)
}

/// The central-directory facts of one written member.
struct Written<'a> {
    name: &'a [u8],
    flags: u16,
    crc32: u32,
    size: u64,
    local_header_offset: u64,
}

fn write_member<'a, S: Sink>(
    out: &mut Counted<S>,
    member: &Planned<'a>,
    options: &WriterOptions,
) -> Result<Written<'a>> {
    let local_header_offset = out.position;
    let zip64 = member.size >= MARKER32;
    let flags = if member.name.is_ascii() { 0 } else { FLAG_UTF8 };
    let size32 = if zip64 { u32::MAX } else { low32(member.size) };
    let local = raw::LocalHeader {
        signature: raw::LOCAL_HEADER_SIGNATURE,
        version_needed: U16::new(if zip64 { VERSION_ZIP64 } else { VERSION_STORED }),
        flags: U16::new(flags),
        method: U16::ZERO,
        dos_time: U16::new(options.modified.time()),
        dos_date: U16::new(options.modified.date()),
        crc32: U32::new(member.crc32.unwrap_or(0)),
        compressed_size: U32::new(size32),
        uncompressed_size: U32::new(size32),
        // Names were checked to fit in 16 bits.
        name_len: U16::new(u16::try_from(member.name.len()).unwrap_or(u16::MAX)),
        extra_len: U16::new(if zip64 { zip64_extra_len(2) } else { 0 }),
    };
    out.write_all(local.as_bytes())?;
    out.write_all(member.name.as_bytes())?;
    if zip64 {
        write_zip64_extra(out, &[member.size, member.size])?;
    }
    let crc32 = match member.source {
        Source::Bytes(data) => {
            out.write_all(data)?;
            member.crc32.unwrap_or(0)
        }
        #[cfg(feature = "std")]
        Source::File(source) => {
            let crc32 = out.out.copy_file(source, member.size)?;
            out.position = out.position.saturating_add(member.size);
            match member.crc32 {
                // Read when planned, for an output that cannot seek: the header already
                // says it, and the copy must agree.
                Some(planned) if planned != crc32 => return Err(io::changed(source)),
                Some(_) => {}
                // The CRC is known only now: patch it into the local header.
                None => {
                    let at =
                        local_header_offset.saturating_add(field_offset!(raw::LocalHeader, crc32));
                    out.out
                        .patch(at, out.position, U32::new(crc32).as_bytes())?;
                }
            }
            crc32
        }
    };
    Ok(Written {
        name: member.name.as_bytes(),
        flags,
        crc32,
        size: member.size,
        local_header_offset,
    })
}

fn write_central_entry<S: Sink>(
    out: &mut Counted<S>,
    member: &Written<'_>,
    options: &WriterOptions,
) -> Result<()> {
    // At most three values: sizes and offset.
    let mut zip64 = [0u64; 3];
    let mut n = 0;
    let mut defer = |value: u64| {
        if let Some(slot) = zip64.get_mut(n) {
            *slot = value;
            n += 1;
        }
    };
    if member.size >= MARKER32 {
        defer(member.size);
        defer(member.size);
    }
    if member.local_header_offset >= MARKER32 {
        defer(member.local_header_offset);
    }
    let zip64 = zip64.get(..n).unwrap_or(&[]);
    let size32 = if member.size >= MARKER32 {
        u32::MAX
    } else {
        low32(member.size)
    };
    let offset32 = if member.local_header_offset >= MARKER32 {
        u32::MAX
    } else {
        low32(member.local_header_offset)
    };
    let entry = raw::CentralEntry {
        signature: raw::CENTRAL_ENTRY_SIGNATURE,
        version_made_by: U16::new(MADE_BY),
        version_needed: U16::new(if zip64.is_empty() {
            VERSION_STORED
        } else {
            VERSION_ZIP64
        }),
        flags: U16::new(member.flags),
        method: U16::ZERO,
        dos_time: U16::new(options.modified.time()),
        dos_date: U16::new(options.modified.date()),
        crc32: U32::new(member.crc32),
        compressed_size: U32::new(size32),
        uncompressed_size: U32::new(size32),
        name_len: U16::new(u16::try_from(member.name.len()).unwrap_or(u16::MAX)),
        extra_len: U16::new(zip64_extra_len(zip64.len())),
        comment_len: U16::ZERO,
        disk_start: U16::ZERO,
        internal_attributes: U16::ZERO,
        external_attributes: U32::new(EXTERNAL_ATTRIBUTES),
        local_header_offset: U32::new(offset32),
    };
    out.write_all(entry.as_bytes())?;
    out.write_all(member.name)?;
    if !zip64.is_empty() {
        write_zip64_extra(out, zip64)?;
    }
    Ok(())
}

/// Length of an extra field holding a ZIP64 block of `values` u64s (0 for none).
fn zip64_extra_len(values: usize) -> u16 {
    match values {
        0 => 0,
        // At most three values: 4 + 24 bytes.
        n => u16::try_from(n.saturating_mul(8).saturating_add(raw::EXTRA_BLOCK_SIZE))
            .unwrap_or(u16::MAX),
    }
}

fn write_zip64_extra<S: Sink>(out: &mut Counted<S>, values: &[u64]) -> Result<()> {
    let block = raw::ExtraBlock {
        id: U16::new(ZIP64_EXTRA_ID),
        len: U16::new(zip64_extra_len(values.len()).saturating_sub(4)),
    };
    out.write_all(block.as_bytes())?;
    for &v in values {
        out.write_all(U64::new(v).as_bytes())?;
    }
    Ok(())
}

/// The end records: ZIP64 record and locator only when a value does not fit the
/// classic record, and then markers only in the fields that overflow (as libzip does).
fn write_end<S: Sink>(
    out: &mut Counted<S>,
    cd_offset: u64,
    cd_size: u64,
    entries: u64,
) -> Result<()> {
    let zip64 = entries >= MARKER16 || cd_size >= MARKER32 || cd_offset >= MARKER32;
    if zip64 {
        let record_offset = out.position;
        let record = raw::Zip64End {
            signature: raw::ZIP64_END_SIGNATURE,
            record_size: U64::new(
                bytes::to_u64(raw::ZIP64_END_SIZE) - field_offset!(raw::Zip64End, version_made_by),
            ),
            version_made_by: U16::new(MADE_BY),
            version_needed: U16::new(VERSION_ZIP64),
            disk: U32::ZERO,
            cd_disk: U32::ZERO,
            disk_entries: U64::new(entries),
            entries: U64::new(entries),
            cd_size: U64::new(cd_size),
            cd_offset: U64::new(cd_offset),
        };
        out.write_all(record.as_bytes())?;
        let locator = raw::Zip64Locator {
            signature: raw::ZIP64_LOCATOR_SIGNATURE,
            record_disk: U32::ZERO,
            record_offset: U64::new(record_offset),
            disks: U32::new(1),
        };
        out.write_all(locator.as_bytes())?;
    }
    let entries16 = U16::new(if entries >= MARKER16 {
        u16::MAX
    } else {
        u16::try_from(entries).unwrap_or(u16::MAX)
    });
    let end = raw::End {
        signature: raw::END_SIGNATURE,
        disk: U16::ZERO,
        cd_disk: U16::ZERO,
        disk_entries: entries16,
        entries: entries16,
        cd_size: U32::new(if cd_size >= MARKER32 {
            u32::MAX
        } else {
            low32(cd_size)
        }),
        cd_offset: U32::new(if cd_offset >= MARKER32 {
            u32::MAX
        } else {
            low32(cd_offset)
        }),
        comment_len: U16::ZERO,
    };
    out.write_all(end.as_bytes())
}

/// The low 32 bits; callers pass values already known to be below `MARKER32`.
fn low32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// Files, `Write` and `Write + Seek` outputs.
#[cfg(feature = "std")]
mod io {
    use std::fs::{self, File};
    use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
    use std::path::Path;

    use binfmt_core::{IoError, Kind, bytes};

    use super::Sink;
    use crate::error::{ErrorKind, Result, io_at};

    /// A file's size, after checking that it is a regular file we can open.
    pub(super) fn planned_size(path: &Path) -> Result<u64> {
        let meta = fs::metadata(path).map_err(io_at(path))?;
        if !meta.is_file() {
            return Err(ErrorKind::NotAFile {
                path: path.to_path_buf(),
            }
            .unlocated());
        }
        // Opening now catches unreadable files before the output exists.
        File::open(path).map_err(io_at(path))?;
        Ok(meta.len())
    }

    /// Copies exactly `size` bytes of the file at `path` to `write`, returning their
    /// CRC-32; fails if the file is shorter or longer than it was when planned.
    pub(super) fn copy_file(
        path: &Path,
        size: u64,
        write: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<u32> {
        let mut file = File::open(path).map_err(io_at(path))?;
        let mut hasher = crc32fast::Hasher::new();
        let mut buf = std::vec![0u8; 1 << 16];
        let mut copied = 0u64;
        loop {
            let n = match file.read(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(io_at(path)(e)),
            };
            let chunk = buf.get(..n).unwrap_or(&[]);
            if chunk.is_empty() {
                break;
            }
            copied = copied.saturating_add(bytes::to_u64(chunk.len()));
            if copied > size {
                break;
            }
            hasher.update(chunk);
            write(chunk)?;
        }
        if copied != size {
            return Err(ErrorKind::SourceChanged {
                path: path.to_path_buf(),
                expected: size,
                found: copied,
            }
            .unlocated());
        }
        Ok(hasher.finalize())
    }

    /// The error for a file whose contents changed between the read that computed its
    /// CRC-32 and the copy (same size, other bytes).
    pub(super) fn changed(path: &Path) -> crate::Error {
        io_at(path)(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the file changed while it was being archived (its CRC-32 differs from the first read)",
        ))
    }

    /// A `Write`, buffered. It cannot patch: the CRC-32s of its file members are
    /// computed before they are copied.
    pub(super) struct Plain<'w, W: Write> {
        pub(super) inner: BufWriter<&'w mut W>,
    }

    impl<W: Write> Plain<'_, W> {
        pub(super) fn flush(&mut self) -> Result<()> {
            Ok(self.inner.flush().map_err(IoError::from)?)
        }
    }

    impl<W: Write> Sink for Plain<'_, W> {
        fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
            Ok(self.inner.write_all(bytes).map_err(IoError::from)?)
        }

        fn patch(&mut self, _at: u64, _end: u64, _bytes: &[u8]) -> Result<()> {
            // Not reached: `write_to` plans with every CRC-32 known.
            Err(IoError::from(std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "this output cannot seek back",
            ))
            .into())
        }
    }

    /// A `Write + Seek`, buffered, with the offset at which the archive starts in it.
    pub(super) struct Stream<'w, W: Write + Seek> {
        pub(super) inner: BufWriter<&'w mut W>,
        pub(super) start: u64,
    }

    impl<W: Write + Seek> Stream<'_, W> {
        pub(super) fn flush(&mut self) -> Result<()> {
            Ok(self.inner.flush().map_err(IoError::from)?)
        }
    }

    impl<W: Write + Seek> Sink for Stream<'_, W> {
        fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
            Ok(self.inner.write_all(bytes).map_err(IoError::from)?)
        }

        fn patch(&mut self, at: u64, end: u64, bytes: &[u8]) -> Result<()> {
            let mut io = || -> std::io::Result<()> {
                self.inner.flush()?;
                let out = self.inner.get_mut();
                out.seek(SeekFrom::Start(self.start.saturating_add(at)))?;
                out.write_all(bytes)?;
                out.seek(SeekFrom::Start(self.start.saturating_add(end)))?;
                Ok(())
            };
            Ok(io().map_err(IoError::from)?)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in [
            "a.txt",
            "DATA/ñandú_日本.txt",
            "METADATA/level0.parquet",
            "a/b/c",
            ".hidden",
        ] {
            assert!(check_name(ok, false).is_ok(), "{ok}");
        }
        for bad in [
            "", "/abs", "../x", "a/../b", "a\\b", "C:x", "dir/", "a//b", "nul\0",
        ] {
            assert!(
                matches!(
                    check_name(bad, false).map_err(crate::Error::into_kind),
                    Err(ErrorKind::BadName { .. })
                ),
                "{bad:?}"
            );
        }
        assert!(check_name("../x", true).is_ok());
        assert!(matches!(
            check_name("TACO_HEADER", true).map_err(crate::Error::into_kind),
            Err(ErrorKind::ReservedName)
        ));
    }
}
