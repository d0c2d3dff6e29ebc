//! Creating a TACO archive: the header first, then the members, stored.
//!
//! Everything is checked before the first byte is written (names, sources, sizes), and
//! the archive is written to a temporary file beside the target that is renamed into
//! place only when complete. The output depends only on the inputs: timestamps are a
//! fixed value (1980-01-01 by default), not the current time or the sources' mtimes.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::string::String;
use std::vec::Vec;

use binfmt_core::atomic::AtomicFile;
use binfmt_core::le::{U16, U32, U64};
use zerocopy::IntoBytes;

use crate::entries::Entries;
use crate::error::{Error, Result};
use crate::header::{FLAG_UTF8, HeaderOptions};
use crate::raw::{self, HEADER_NAME, PAYLOAD_SIZE_U64, ZIP64_EXTRA_ID};
use crate::time::DosDateTime;

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

/// Options for [`ArchiveBuilder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub struct CreateOptions {
    /// The modification time of every entry. Default: 1980-01-01 00:00:00.
    pub modified: DosDateTime,
    /// Accept member names that extraction could turn into paths outside the target
    /// directory (absolute, `..`, backslashes, empty…), as tacozip does. Default: false.
    /// Duplicate names and the name `TACO_HEADER` are refused regardless.
    pub verbatim_names: bool,
}

impl CreateOptions {
    /// The same options with `modified` set.
    #[must_use]
    pub fn modified(mut self, modified: DosDateTime) -> Self {
        self.modified = modified;
        self
    }

    /// The same options with `verbatim_names` set.
    #[must_use]
    pub fn verbatim_names(mut self, verbatim: bool) -> Self {
        self.verbatim_names = verbatim;
        self
    }
}

#[derive(Debug, Clone)]
enum Source {
    File(PathBuf),
    Bytes(Vec<u8>),
}

#[derive(Debug, Clone)]
struct Pending {
    name: String,
    source: Source,
}

/// Builds a TACO archive.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use taco_header::{ArchiveBuilder, Entries, Entry};
/// let dir = std::env::temp_dir().join(format!("taco-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let out = dir.join("example.taco");
/// let mut builder = ArchiveBuilder::new(Entries::from_slice(&[Entry::new(200, 5)])?);
/// builder.add_bytes("COLLECTION.json", b"{}".to_vec());
/// builder.write_to_path(&out)?;
/// let header = taco_header::read_entries_from_path(&out)?;
/// assert_eq!(header.as_slice(), &[Entry::new(200, 5)]);
/// # std::fs::remove_dir_all(dir)?; Ok(()) }
/// ```
#[derive(Debug, Clone, Default)]
pub struct ArchiveBuilder {
    entries: Entries,
    members: Vec<Pending>,
    options: CreateOptions,
}

/// A member after validation: its name, source and size are settled.
struct Planned<'a> {
    name: &'a str,
    source: &'a Source,
    size: u64,
    crc32: Option<u32>,
}

impl ArchiveBuilder {
    /// A builder whose header holds `entries` and which has no members yet. An archive
    /// holding only the header is valid.
    #[must_use]
    pub fn new(entries: Entries) -> Self {
        ArchiveBuilder {
            entries,
            members: Vec::new(),
            options: CreateOptions::default(),
        }
    }

    /// Sets the options.
    pub fn options(&mut self, options: CreateOptions) -> &mut Self {
        self.options = options;
        self
    }

    /// Adds the file at `path` as member `name`, after the members already added.
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

    /// Writes the archive to `path` atomically: into a temporary file in the same
    /// directory, renamed over `path` when complete. Nothing is created when validation
    /// fails, and `path` is untouched when writing fails.
    ///
    /// # Errors
    /// [`Error::BadName`], [`Error::ReservedName`], [`Error::DuplicateName`],
    /// [`Error::NotAFile`] before anything is written; [`Error::Io`] and
    /// [`Error::SourceChanged`] while writing.
    pub fn write_to_path(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let plan = self.plan()?;
        let mut file = AtomicFile::create(path).map_err(Error::io(path))?;
        write_archive(&mut file, path, &plan, &self.entries, &self.options)?;
        file.commit().map_err(Error::io(path))
    }

    /// Writes the archive to `out`, which must be positioned at its start (ZIP offsets
    /// count from there), and returns the archive's size.
    ///
    /// # Errors
    /// As [`ArchiveBuilder::write_to_path`], with I/O errors on `out` reported for the
    /// path `<output>`; on error `out` holds a partial archive.
    pub fn write_to<W: Write + Seek>(&self, out: &mut W) -> Result<u64> {
        let plan = self.plan()?;
        write_archive(
            out,
            Path::new("<output>"),
            &plan,
            &self.entries,
            &self.options,
        )
    }

    /// Checks names and sources and settles sizes, before anything is written.
    fn plan(&self) -> Result<Vec<Planned<'_>>> {
        let mut names = HashSet::new();
        let mut plan = Vec::with_capacity(self.members.len());
        for member in &self.members {
            check_name(&member.name, self.options.verbatim_names)?;
            if !names.insert(member.name.as_str()) {
                return Err(Error::DuplicateName {
                    name: member.name.clone(),
                });
            }
            let (size, crc32) = match &member.source {
                Source::Bytes(data) => (
                    binfmt_core::bytes::len_u64(data),
                    Some(crc32fast::hash(data)),
                ),
                Source::File(path) => {
                    let meta = fs::metadata(path).map_err(Error::io(path))?;
                    if !meta.is_file() {
                        return Err(Error::NotAFile { path: path.clone() });
                    }
                    // Opening now catches unreadable files before the output exists.
                    File::open(path).map_err(Error::io(path))?;
                    (meta.len(), None)
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
        Err(Error::BadName {
            name: name.into(),
            reason,
        })
    };
    if name.as_bytes() == HEADER_NAME {
        return Err(Error::ReservedName);
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

fn write_archive<W: Write + Seek>(
    out: &mut W,
    path: &Path,
    plan: &[Planned<'_>],
    entries: &Entries,
    options: &CreateOptions,
) -> Result<u64> {
    let start = out.stream_position().map_err(Error::io(path))?;
    let mut out = Output {
        inner: BufWriter::with_capacity(1 << 16, out),
        path,
        start,
        position: 0,
    };
    let header = entries.to_header_bytes_with(&HeaderOptions {
        version_needed: VERSION_STORED,
        modified: options.modified,
    });
    out.write_all(&header)?;
    let mut written = Vec::with_capacity(plan.len().saturating_add(1));
    written.push(Written {
        name: &HEADER_NAME,
        flags: 0,
        crc32: entries.crc32(),
        size: PAYLOAD_SIZE_U64,
        local_header_offset: 0,
    });
    for member in plan {
        written.push(write_member(&mut out, member, options)?);
    }

    let cd_offset = out.position;
    for member in &written {
        write_central_entry(&mut out, member, options)?;
    }
    let cd_size = out.position.saturating_sub(cd_offset);
    write_end(
        &mut out,
        cd_offset,
        cd_size,
        u64::try_from(written.len()).unwrap_or(u64::MAX),
    )?;
    out.inner.flush().map_err(Error::io(path))?;
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

fn write_member<'a, W: Write + Seek>(
    out: &mut Output<'_, W>,
    member: &Planned<'a>,
    options: &CreateOptions,
) -> Result<Written<'a>> {
    let local_header_offset = out.position;
    let zip64 = member.size >= MARKER32;
    let flags = if member.name.is_ascii() { 0 } else { FLAG_UTF8 };
    let size32 = if zip64 { u32::MAX } else { low32(member.size) };
    let mut local = raw::LocalHeader {
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
        extra_len: U16::new(if zip64 { 20 } else { 0 }),
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
        Source::File(source) => {
            let crc32 = copy_file(out, source, member.size)?;
            // The CRC is known only now: patch it into the local header.
            local.crc32 = U32::new(crc32);
            out.patch(
                local_header_offset.saturating_add(14),
                local.crc32.as_bytes(),
            )?;
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

/// Copies exactly `size` bytes of the file at `source`, returning their CRC-32; fails
/// if the file is shorter or longer than it was when planned.
fn copy_file<W: Write + Seek>(out: &mut Output<'_, W>, source: &Path, size: u64) -> Result<u32> {
    let mut file = File::open(source).map_err(Error::io(source))?;
    let mut hasher = crc32fast::Hasher::new();
    let mut buf = std::vec![0u8; 1 << 16];
    let mut copied = 0u64;
    loop {
        let n = file.read(&mut buf).map_err(Error::io(source))?;
        let chunk = buf.get(..n).unwrap_or(&[]);
        if chunk.is_empty() {
            break;
        }
        copied = copied.saturating_add(binfmt_core::bytes::len_u64(chunk));
        if copied > size {
            break;
        }
        hasher.update(chunk);
        out.write_all(chunk)?;
    }
    if copied != size {
        return Err(Error::SourceChanged {
            path: source.to_path_buf(),
            expected: size,
            found: copied,
        });
    }
    Ok(hasher.finalize())
}

fn write_central_entry<W: Write + Seek>(
    out: &mut Output<'_, W>,
    member: &Written<'_>,
    options: &CreateOptions,
) -> Result<()> {
    let mut zip64 = Vec::new();
    if member.size >= MARKER32 {
        zip64.extend([member.size, member.size]);
    }
    if member.local_header_offset >= MARKER32 {
        zip64.push(member.local_header_offset);
    }
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
        write_zip64_extra(out, &zip64)?;
    }
    Ok(())
}

/// Length of an extra field holding a ZIP64 block of `values` u64s (0 for none).
fn zip64_extra_len(values: usize) -> u16 {
    match values {
        0 => 0,
        // At most three values: 4 + 24 bytes.
        n => u16::try_from(n.saturating_mul(8).saturating_add(4)).unwrap_or(u16::MAX),
    }
}

fn write_zip64_extra<W: Write + Seek>(out: &mut Output<'_, W>, values: &[u64]) -> Result<()> {
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
fn write_end<W: Write + Seek>(
    out: &mut Output<'_, W>,
    cd_offset: u64,
    cd_size: u64,
    entries: u64,
) -> Result<()> {
    let zip64 = entries >= MARKER16 || cd_size >= MARKER32 || cd_offset >= MARKER32;
    if zip64 {
        let record_offset = out.position;
        let record = raw::Zip64End {
            signature: raw::ZIP64_END_SIGNATURE,
            record_size: U64::new(44),
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

/// The archive being written: buffered, counting its position, naming its path in errors.
struct Output<'w, W: Write + Seek> {
    inner: BufWriter<&'w mut W>,
    path: &'w Path,
    /// Where the archive starts in `inner`.
    start: u64,
    /// Bytes of archive written so far.
    position: u64,
}

impl<W: Write + Seek> Output<'_, W> {
    fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        self.inner.write_all(bytes).map_err(Error::io(self.path))?;
        self.position = self
            .position
            .saturating_add(binfmt_core::bytes::len_u64(bytes));
        Ok(())
    }

    /// Overwrites bytes already written at archive offset `at`, then returns to the end.
    fn patch(&mut self, at: u64, bytes: &[u8]) -> Result<()> {
        let io = |inner: &mut BufWriter<&mut W>, start: u64, end: u64| -> io::Result<()> {
            inner.flush()?;
            let file = inner.get_mut();
            file.seek(SeekFrom::Start(start.saturating_add(at)))?;
            file.write_all(bytes)?;
            file.seek(SeekFrom::Start(start.saturating_add(end)))?;
            Ok(())
        };
        io(&mut self.inner, self.start, self.position).map_err(Error::io(self.path))
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
                matches!(check_name(bad, false), Err(Error::BadName { .. })),
                "{bad:?}"
            );
        }
        assert!(check_name("../x", true).is_ok());
        assert!(matches!(
            check_name("TACO_HEADER", true),
            Err(Error::ReservedName)
        ));
    }
}
