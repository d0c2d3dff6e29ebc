//! The directory walk, written once: from the end of the archive to its central
//! directory, over any [`Data`] (a slice, or a [`ReadCache`] over any byte source).
//!
//! ```text
//! tail ──► end records ──► [ZIP64 record] ──► central directory ──► [local headers]
//! 1 read     (in the tail)   (in the tail, or     (in the tail, or     (one batch of
//!                             one read)            one read)            hinted ranges)
//! ```
//!
//! Every reader of the crate goes through these functions: the view [`Archive`] over a
//! slice (each "read" is a sub-slice: no copy, `no_std`; data in memory is its own
//! tail, so nothing past the tail is ever "read") or over a cache (each read is one
//! request, or none when a batch of hints brought the bytes), [`Reader`], and the
//! in-place update over a locked file.
//!
//! [`Archive`]: crate::Archive
//! [`Reader`]: crate::Reader
//! [`ReadCache`]: binfmt_core::cache::ReadCache

use core::ops::Range;

use binfmt_core::data::Data;
use binfmt_core::{Kind, bytes};

use crate::central::{CentralEntries, CentralEntry};
use crate::directory::{Directory, EndRecords, TAIL_SIZE};
use crate::error::{Error, ErrorKind, Result};
use crate::raw;

/// Bytes the walk has read, and where they start in the archive.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Window<'d> {
    /// The offset of the first byte.
    pub(crate) start: u64,
    /// The bytes.
    pub(crate) bytes: &'d [u8],
}

impl<'d> Window<'d> {
    /// The offset just past the last byte: for a tail, the length of the archive.
    pub(crate) fn end(&self) -> u64 {
        self.start.saturating_add(bytes::to_u64(self.bytes.len()))
    }

    /// The range of `bytes` holding `len` bytes at archive offset `offset`, if the window
    /// holds them all.
    fn range_of(&self, offset: u64, len: u64) -> Option<Range<usize>> {
        let from = offset.checked_sub(self.start)?;
        let to = from.checked_add(len)?;
        if to > bytes::to_u64(self.bytes.len()) {
            return None;
        }
        Some(usize::try_from(from).ok()?..usize::try_from(to).ok()?)
    }

    /// The `len` bytes at archive offset `offset`, if the window holds them.
    pub(crate) fn get(&self, offset: u64, len: u64) -> Option<&'d [u8]> {
        self.bytes.get(self.range_of(offset, len)?)
    }

    /// The `len` bytes at archive offset `offset`: out of the window when it holds them,
    /// otherwise one read of `data` (an error names them `what`).
    fn get_or_read<D: Data<'d>>(
        &self,
        data: D,
        offset: u64,
        len: u64,
        what: &'static str,
    ) -> Result<&'d [u8]>
    where
        Error: From<D::Error>,
    {
        match self.get(offset, len) {
            Some(bytes) => Ok(bytes),
            None => Ok(data.bytes(offset, len, what)?),
        }
    }
}

/// The end of the archive: all of it when it is in memory (the walk then finds
/// everything in it without reading), otherwise its last [`TAIL_SIZE`] bytes (one
/// request, or none when they were hinted with an earlier batch).
pub(crate) fn tail<'d, D: Data<'d>>(data: D) -> Result<Window<'d>>
where
    Error: From<D::Error>,
{
    let (start, bytes) = match data.whole() {
        Some(all) => (0, all),
        None => data.tail(TAIL_SIZE)?,
    };
    Ok(Window { start, bytes })
}

/// Step 1: the end records, the ZIP64 record if the locator names one, and so where the
/// central directory is. One read (the tail, [`TAIL_SIZE`] bytes), plus one for a ZIP64
/// record that is not in the tail (only when extensible data follows its fixed part).
pub(crate) fn find_directory<'d, D: Data<'d>>(data: D) -> Result<(Directory, Window<'d>)>
where
    Error: From<D::Error>,
{
    let tail = tail(data)?;
    let records = EndRecords::find(tail.bytes, tail.end())?;
    let directory = match records.zip64_record_offset() {
        None => records.directory(None)?,
        Some(at) => {
            let len = bytes::to_u64(raw::ZIP64_END_SIZE);
            let what = "ZIP64 end-of-central-directory record";
            records.directory(Some(tail.get_or_read(data, at, len, what)?))?
        }
    };
    Ok((directory, tail))
}

/// Step 2: the central directory's bytes: out of the tail when it holds them (every
/// small archive, and all data in memory), otherwise one read.
pub(crate) fn central_directory<'d, D: Data<'d>>(
    data: D,
    directory: &Directory,
    tail: &Window<'d>,
) -> Result<&'d [u8]>
where
    Error: From<D::Error>,
{
    let (start, len) = (directory.cd_offset, directory.cd_size);
    tail.get_or_read(data, start, len, "central directory")
}

/// For the in-place update: the first central-directory entry alone, so that the cost
/// does not depend on the number of members. Out of the tail when it holds it;
/// otherwise the fixed part, then the whole entry (two reads).
#[cfg(feature = "std")]
pub(crate) fn first_entry_bytes<'d, D: Data<'d>>(
    data: D,
    directory: &Directory,
    tail: &Window<'d>,
) -> Result<&'d [u8]>
where
    Error: From<D::Error>,
{
    let at = directory.cd_offset;
    if directory.entries == 0 {
        return Err(ErrorKind::HeaderNotFirst.at(at));
    }
    // Never past the directory: a short one fails as the entry parser reports it.
    let fixed_len = bytes::to_u64(raw::CENTRAL_ENTRY_SIZE).min(directory.cd_size);
    let entry_len = |fixed: &[u8]| -> Result<u64> {
        let raw: &raw::CentralEntry =
            bytes::read(fixed, 0, "central-directory entry").map_err(|e| e.rebased(at))?;
        let variable = u64::from(raw.name_len.get())
            + u64::from(raw.extra_len.get())
            + u64::from(raw.comment_len.get());
        // An entry longer than the directory is the entry parser's error to report.
        Ok((bytes::to_u64(raw::CENTRAL_ENTRY_SIZE) + variable).min(directory.cd_size))
    };
    if let Some(fixed) = tail.get(at, fixed_len) {
        let len = entry_len(fixed)?;
        if let Some(entry) = tail.get(at, len) {
            return Ok(entry);
        }
    }
    let fixed = data.bytes(at, fixed_len, "central-directory entry")?;
    let len = entry_len(fixed)?;
    Ok(data.bytes(at, len, "central-directory entry")?)
}

/// The rule for the first central-directory entry, shared by every reader: it is
/// `TACO_HEADER`, points at offset 0, and describes a stored 116-byte member like the
/// local header it points at; and the central directory does not start inside the
/// header (an update's payload write would land in it).
pub(crate) fn header_entry<'a>(cd: &'a [u8], directory: &Directory) -> Result<CentralEntry<'a>> {
    let header_end = bytes::to_u64(raw::HEADER_SIZE);
    if directory.cd_offset < header_end {
        return Err(ErrorKind::MemberBounds {
            index: 0,
            end: header_end,
            limit: directory.cd_offset,
        }
        .at(binfmt_core::field_offset!(raw::Header, payload)));
    }
    let first = CentralEntries::new(cd, directory.cd_offset, directory.entries)
        .next()
        .unwrap_or_else(|| Err(ErrorKind::HeaderNotFirst.at(directory.cd_offset)))?;
    check_header_entry(&first)?;
    Ok(first)
}

/// See [`header_entry`].
pub(crate) fn check_header_entry(first: &CentralEntry<'_>) -> Result<()> {
    if first.name != raw::HEADER_NAME {
        return Err(ErrorKind::HeaderNotFirst.at(first.offset));
    }
    if first.local_header_offset != 0 {
        return Err(ErrorKind::HeaderNotAtStart {
            local_header_offset: first.local_header_offset,
        }
        .at(first.offset));
    }
    let payload = bytes::to_u64(raw::PAYLOAD_SIZE);
    for (field, central, local) in [
        ("compression method", u64::from(first.method()), 0),
        ("compressed size", first.compressed_size, payload),
        ("uncompressed size", first.size, payload),
    ] {
        if central != local {
            return Err(ErrorKind::LocalMismatch {
                index: 0,
                field,
                central,
                local,
            }
            .at(0));
        }
    }
    Ok(())
}
