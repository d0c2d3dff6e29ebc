//! Updating the header of an archive file in place.
//!
//! Everything that could make the update wrong is checked before the first byte is
//! written: the local header at offset 0, the end records (and ZIP64 records), and the
//! first central-directory entry, which must be `TACO_HEADER` pointing at offset 0. Only
//! the 157-byte header, the end of the file and that one entry are read, so the cost does
//! not depend on the number of members. Then exactly 124 bytes are written: the payload,
//! the local CRC and the central-directory CRC. If a write fails, the original bytes are
//! written back before the error is returned.

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::vec::Vec;

use binfmt_core::bytes;

use crate::archive::{Patch, check_header_entry};
use crate::central::{CENTRAL_LEN, CentralEntries};
use crate::directory::{Directory, EndRecords, TAIL_LEN, ZIP64_RECORD_LEN};
use crate::entries::Entries;
use crate::error::{Error, Result};
use crate::header::{Check, Header};
use crate::raw::{self, HEADER_SIZE, HEADER_SIZE_U64};

/// How [`update_with`] finishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct UpdateOptions {
    /// Flush the written bytes to the storage device before returning (`fsync`).
    /// Default: true.
    pub sync: bool,
}

impl Default for UpdateOptions {
    fn default() -> Self {
        UpdateOptions { sync: true }
    }
}

impl UpdateOptions {
    /// The defaults, with `sync` set as given.
    #[must_use]
    pub fn sync(sync: bool) -> Self {
        UpdateOptions { sync }
    }
}

/// Replaces the entries of the header of the archive at `path`, syncing to disk.
///
/// # Errors
/// Any problem with the archive (see [`Archive::parse`](crate::Archive::parse)), or an
/// I/O error. The file is unchanged whenever an error is returned.
pub fn update(path: impl AsRef<Path>, entries: &Entries) -> Result<()> {
    update_with(path, entries, &UpdateOptions::default())
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
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(Error::io(path))?;
    let plan = Plan::read(&mut file, path)?;
    let patch = Patch::new(entries, plan.header_entry_offset);
    if let Err(e) = write_all(&mut file, &patch.writes(), options.sync) {
        // Put back what was there; if that fails too, the first error is the one to report.
        let _ = write_all(&mut file, &plan.original(), options.sync);
        return Err(Error::io(path)(e));
    }
    Ok(())
}

/// What `update` learns before it writes, and the bytes it would overwrite.
struct Plan {
    header: [u8; HEADER_SIZE],
    header_entry_offset: u64,
    central_crc: [u8; 4],
}

impl Plan {
    fn read(file: &mut File, path: &Path) -> Result<Plan> {
        let len = file.metadata().map_err(Error::io(path))?.len();
        let mut reader = RangeReader { file, path, len };

        let mut header = [0u8; HEADER_SIZE];
        header.copy_from_slice(&reader.read(0, HEADER_SIZE_U64, "TACO header")?);
        Header::parse_with(&header, Check::Structure)?;

        let tail_len = len.min(TAIL_LEN);
        let tail = reader.read(len.saturating_sub(tail_len), tail_len, "archive tail")?;
        let records = EndRecords::find(&tail, len)?;
        let zip64 = match records.zip64_record_offset() {
            Some(at) => Some(reader.read(
                at,
                ZIP64_RECORD_LEN,
                "ZIP64 end-of-central-directory record",
            )?),
            None => None,
        };
        let directory: Directory = records.directory(zip64.as_deref())?;

        // The fixed part of the first entry tells how long the whole entry is.
        let fixed = reader.read(
            directory.cd_offset,
            CENTRAL_LEN.min(directory.cd_size),
            "central-directory entry",
        )?;
        let raw: &raw::CentralEntry =
            bytes::read(&fixed, 0, "central-directory entry").map_err(|_| {
                binfmt_core::Error::Truncated {
                    what: "central-directory entry",
                    offset: directory.cd_offset,
                    needed: CENTRAL_LEN,
                    available: directory.cd_size,
                }
            })?;
        let entry_len = CENTRAL_LEN
            .saturating_add(u64::from(raw.name_len.get()))
            .saturating_add(u64::from(raw.extra_len.get()))
            .saturating_add(u64::from(raw.comment_len.get()))
            .min(directory.cd_size);
        let entry_bytes = reader.read(directory.cd_offset, entry_len, "central-directory entry")?;
        let first = CentralEntries::new(&entry_bytes, directory.cd_offset, directory.entries)
            .next()
            .unwrap_or(Err(Error::HeaderNotFirst {
                offset: directory.cd_offset,
            }))?;
        check_header_entry(&first)?;

        let mut central_crc = [0u8; 4];
        central_crc.copy_from_slice(zerocopy::IntoBytes::as_bytes(&first.raw.crc32));
        Ok(Plan {
            header,
            header_entry_offset: directory.cd_offset,
            central_crc,
        })
    }

    /// The writes that restore the bytes `Patch::writes` overwrites.
    fn original(&self) -> [(u64, &[u8]); 3] {
        [
            (
                raw::PAYLOAD_OFFSET_U64,
                self.header.get(raw::PAYLOAD_OFFSET..).unwrap_or(&[]),
            ),
            (14, self.header.get(14..18).unwrap_or(&[])),
            (
                self.header_entry_offset.saturating_add(16),
                &self.central_crc,
            ),
        ]
    }
}

/// Reads checked ranges of a file whose length is known.
struct RangeReader<'f> {
    file: &'f mut File,
    path: &'f Path,
    len: u64,
}

impl RangeReader<'_> {
    fn read(&mut self, offset: u64, len: u64, what: &'static str) -> Result<Vec<u8>> {
        crate::fs::read_range(self.file, self.len, offset, len, what, self.path)
    }
}

fn write_all(file: &mut File, writes: &[(u64, &[u8])], sync: bool) -> std::io::Result<()> {
    for &(offset, bytes) in writes {
        file.seek(SeekFrom::Start(offset))?;
        file.write_all(bytes)?;
    }
    if sync {
        file.sync_data()?;
    }
    Ok(())
}
