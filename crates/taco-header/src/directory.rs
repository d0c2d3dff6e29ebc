//! Finding the central directory from the records at the end of the archive.
//!
//! The end-of-central-directory record (EOCD) is the last thing in a ZIP file, followed
//! only by its comment. We scan backwards for its signature and accept a candidate only
//! if its comment ends exactly at the end of the file. A ZIP64 archive has a ZIP64
//! locator *immediately* before the EOCD, pointing at the ZIP64 record; we look for the
//! locator at exactly that position and nowhere else. tacozip searches the last 64 KiB
//! for the locator signature, so member data containing `PK\x06\x07` makes it take a
//! false ZIP64 path; looking at one fixed offset cannot be fooled by member data.
//!
//! The records are pure functions of bytes: [`EndRecords::find`] over the tail, then
//! [`EndRecords::directory`] over the ZIP64 record if there is a locator. The crate's one
//! walk (`walk.rs`) fetches those bytes from memory or a byte source, and everything
//! that lists, verifies or updates an archive goes through it.

use binfmt_core::{Kind, bytes, field_offset, magic};

use crate::error::{ErrorKind, Result};
use crate::raw::{self, END_SIGNATURE, ZIP64_END_SIGNATURE, ZIP64_LOCATOR_SIGNATURE};

/// Size of the end-of-central-directory record without its comment.
const END_LEN: u64 = bytes::to_u64(raw::END_SIZE);
/// Size of the ZIP64 locator.
const LOCATOR_LEN: u64 = bytes::to_u64(raw::ZIP64_LOCATOR_SIZE);
/// The bytes of a ZIP64 record before those its `record_size` field counts.
const ZIP64_SIZE_COUNTED_FROM: u64 = field_offset!(raw::Zip64End, version_made_by);
/// The fixed part of the ZIP64 record counted by its `record_size` field.
const ZIP64_RECORD_MIN: u64 = bytes::to_u64(raw::ZIP64_END_SIZE) - ZIP64_SIZE_COUNTED_FROM;

/// How many bytes at the end of a file hold the end records in every archive we can
/// read: the EOCD with the longest comment, the ZIP64 locator before it, and the fixed
/// ZIP64 record before that (where every writer puts it). A reader by range fetches
/// this many bytes from the end in one request.
pub const TAIL_SIZE: u64 = END_LEN + 0xFFFF + LOCATOR_LEN + bytes::to_u64(raw::ZIP64_END_SIZE);

/// The earlier name of [`TAIL_SIZE`].
#[deprecated(note = "use TAIL_SIZE")]
pub const TAIL_LEN: u64 = TAIL_SIZE;

/// The end-of-central-directory record and, if present, the ZIP64 locator before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndRecords {
    end: raw::End,
    end_offset: u64,
    locator: Option<(raw::Zip64Locator, u64)>,
}

impl EndRecords {
    /// Finds the end records in `tail`, the last bytes of a file of `file_len` bytes
    /// (the whole file, or at least its last [`TAIL_SIZE`] bytes).
    ///
    /// # Errors
    /// [`ErrorKind::NoEndOfCentralDirectory`] when no record ends the file exactly;
    /// [`ErrorKind::MultiDisk`] for multi-disk archives; [`ErrorKind::MissingZip64`] when
    /// the EOCD defers to a ZIP64 record that has no locator.
    pub fn find(tail: &[u8], file_len: u64) -> Result<Self> {
        let tail_start = file_len
            .checked_sub(bytes::to_u64(tail.len()))
            .ok_or_else(|| binfmt_core::Error::overflow("end of the archive", file_len))?;
        let end_pos =
            find_end(tail).ok_or_else(|| ErrorKind::NoEndOfCentralDirectory.at(file_len))?;
        let end: &raw::End = bytes::read(tail, end_pos, "end-of-central-directory record")?;
        let end_offset = tail_start.saturating_add(end_pos);

        let locator = match end_pos.checked_sub(LOCATOR_LEN) {
            Some(at)
                if bytes::slice(tail, at, 4, "ZIP64 locator")
                    == Ok(&ZIP64_LOCATOR_SIGNATURE[..]) =>
            {
                let locator: &raw::Zip64Locator = bytes::read(tail, at, "ZIP64 locator")?;
                Some((*locator, tail_start.saturating_add(at)))
            }
            _ => None,
        };

        let records = EndRecords {
            end: *end,
            end_offset,
            locator,
        };
        records.check_disks()?;
        if records.locator.is_none()
            && (end.cd_offset.get() == u32::MAX || end.cd_size.get() == u32::MAX)
        {
            return Err(ErrorKind::MissingZip64.at(end_offset));
        }
        Ok(records)
    }

    fn check_disks(&self) -> Result<()> {
        let end = &self.end;
        let zip64 = self.locator.is_some();
        let ok16 = |v: u16| v == 0 || (zip64 && v == u16::MAX);
        if !ok16(end.disk.get()) || !ok16(end.cd_disk.get()) {
            return Err(ErrorKind::MultiDisk.at(self
                .end_offset
                .saturating_add(field_offset!(raw::End, disk))));
        }
        if let Some((locator, at)) = self.locator
            && (locator.record_disk.get() != 0 || locator.disks.get() > 1)
        {
            let field = field_offset!(raw::Zip64Locator, record_disk);
            return Err(ErrorKind::MultiDisk.at(at.saturating_add(field)));
        }
        Ok(())
    }

    /// Where the end-of-central-directory record starts.
    #[must_use]
    pub fn end_offset(&self) -> u64 {
        self.end_offset
    }

    /// The length of the archive comment.
    #[must_use]
    pub fn comment_len(&self) -> u16 {
        self.end.comment_len.get()
    }

    /// Where the ZIP64 record is, when the archive has a ZIP64 locator. Read
    /// [`raw::ZIP64_END_SIZE`] bytes there and pass them to [`EndRecords::directory`].
    #[must_use]
    pub fn zip64_record_offset(&self) -> Option<u64> {
        self.locator.map(|(l, _)| l.record_offset.get())
    }

    /// Resolves the central directory's position, taking the values from the ZIP64
    /// record (given as the bytes at [`EndRecords::zip64_record_offset`]) when there is one.
    ///
    /// # Errors
    /// [`Layout::BadMagic`](binfmt_core::Layout::BadMagic) for a missing ZIP64 record
    /// signature, [`ErrorKind::Zip64RecordSize`], [`ErrorKind::MultiDisk`],
    /// [`ErrorKind::EndMismatch`] when the two records disagree,
    /// [`ErrorKind::CentralDirectoryBounds`] when the central directory does not end
    /// exactly where the end records begin.
    pub fn directory(&self, zip64_record: Option<&[u8]>) -> Result<Directory> {
        let end = &self.end;
        let (cd_offset, cd_size, entries, records_start, zip64) = match (self.locator, zip64_record)
        {
            (Some((_, locator_offset)), Some(bytes)) => {
                let at = self.zip64_record_offset().unwrap_or(0);
                let record = parse_zip64_record(bytes, at, locator_offset)?;
                let (o, s, n) = (
                    record.cd_offset.get(),
                    record.cd_size.get(),
                    record.entries.get(),
                );
                self.check_agrees(
                    "central-directory offset",
                    u64::from(end.cd_offset.get()),
                    u64::from(u32::MAX),
                    o,
                )?;
                self.check_agrees(
                    "central-directory size",
                    u64::from(end.cd_size.get()),
                    u64::from(u32::MAX),
                    s,
                )?;
                self.check_agrees(
                    "entry count",
                    u64::from(end.entries.get()),
                    u64::from(u16::MAX),
                    n,
                )?;
                if record.disk_entries.get() != n {
                    let field = field_offset!(raw::Zip64End, disk_entries);
                    return Err(ErrorKind::MultiDisk.at(at.saturating_add(field)));
                }
                (o, s, n, at, true)
            }
            (Some(_), None) => {
                return Err(ErrorKind::MissingZip64.at(self.end_offset));
            }
            (None, _) => {
                if end.disk_entries.get() != end.entries.get() {
                    let field = field_offset!(raw::End, disk_entries);
                    return Err(ErrorKind::MultiDisk.at(self.end_offset.saturating_add(field)));
                }
                (
                    u64::from(end.cd_offset.get()),
                    u64::from(end.cd_size.get()),
                    u64::from(end.entries.get()),
                    self.end_offset,
                    false,
                )
            }
        };
        let declared_by = if zip64 {
            records_start
        } else {
            self.end_offset
        };
        if cd_offset.checked_add(cd_size) != Some(records_start) {
            return Err(ErrorKind::CentralDirectoryBounds {
                cd_offset,
                cd_size,
                expected_end: records_start,
            }
            .at(declared_by));
        }
        Ok(Directory {
            cd_offset,
            cd_size,
            entries,
            end_offset: self.end_offset,
            zip64_record_offset: zip64.then_some(records_start),
        })
    }

    fn check_agrees(&self, field: &'static str, end: u64, marker: u64, zip64: u64) -> Result<()> {
        if end == marker || end == zip64 {
            Ok(())
        } else {
            Err(ErrorKind::EndMismatch { field, end, zip64 }.at(self.end_offset))
        }
    }
}

fn parse_zip64_record(bytes: &[u8], at: u64, locator_offset: u64) -> Result<raw::Zip64End> {
    magic::check(
        bytes,
        0,
        &ZIP64_END_SIGNATURE,
        "ZIP64 end-of-central-directory record",
    )
    .map_err(|e| e.rebased(at))?;
    let record: &raw::Zip64End = bytes::read(bytes, 0, "ZIP64 end-of-central-directory record")
        .map_err(|e| e.rebased(at))?;
    let size = record.record_size.get();
    // The record (and any extensible data after its fixed part) must end at or before
    // the locator.
    let end = ZIP64_SIZE_COUNTED_FROM
        .checked_add(size)
        .and_then(|n| at.checked_add(n));
    if size < ZIP64_RECORD_MIN || end.is_none_or(|end| end > locator_offset) {
        return Err(ErrorKind::Zip64RecordSize { size }.at(at));
    }
    if record.disk.get() != 0 || record.cd_disk.get() != 0 {
        let field = field_offset!(raw::Zip64End, disk);
        return Err(ErrorKind::MultiDisk.at(at.saturating_add(field)));
    }
    Ok(*record)
}

/// The position, in `tail`, of the last end record whose comment reaches the end exactly.
fn find_end(tail: &[u8]) -> Option<u64> {
    const COMMENT_LEN_AT: usize = core::mem::offset_of!(raw::End, comment_len);
    let last = tail.len().checked_sub(raw::END_SIZE)?;
    let first = last.saturating_sub(0xFFFF);
    (first..=last)
        .rev()
        .find(|&pos| {
            let record = tail.get(pos..).unwrap_or(&[]);
            let comment = record
                .get(COMMENT_LEN_AT..raw::END_SIZE)
                .and_then(|c| c.try_into().ok())
                .map(u16::from_le_bytes);
            record.starts_with(&END_SIGNATURE)
                && comment.map(usize::from) == record.len().checked_sub(raw::END_SIZE)
        })
        .map(bytes::to_u64)
}

/// Where the central directory is, and how many entries it declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Directory {
    /// Offset of the first central-directory entry.
    pub cd_offset: u64,
    /// Size of the central directory in bytes.
    pub cd_size: u64,
    /// Number of entries declared.
    pub entries: u64,
    /// Offset of the end-of-central-directory record.
    pub end_offset: u64,
    /// Offset of the ZIP64 record, in a ZIP64 archive.
    pub zip64_record_offset: Option<u64>,
}

impl Directory {
    /// Finds the central directory of the archive `data`.
    ///
    /// # Errors
    /// As [`EndRecords::find`] and [`EndRecords::directory`].
    pub fn locate(data: &[u8]) -> Result<Self> {
        crate::walk::find_directory(data).map(|(directory, _)| directory)
    }

    /// True for a ZIP64 archive.
    #[must_use]
    pub fn is_zip64(&self) -> bool {
        self.zip64_record_offset.is_some()
    }
}
