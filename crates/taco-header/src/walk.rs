//! The directory walk, written once: from the end of the archive to its central
//! directory, over any input that can hand out byte ranges.
//!
//! ```text
//! tail ──► end records ──► [ZIP64 record] ──► central directory ──► [local headers]
//! 1 read     (in the tail)   (in the tail, or     (in the tail, or     (one batch of
//!                             one read)            one read)            ranges, std)
//! ```
//!
//! Every reader of the crate goes through these functions: [`Archive::parse`] over a
//! slice (each "read" is a sub-slice: no copy, `no_std`), [`Reader`] over any
//! [`ByteSource`] (each read is one request; a source that is already in memory hands
//! out its slice through `as_slice` and takes the slice's path), and the in-place update
//! over a locked file. What differs between them is only the [`Input`] they pass.
//!
//! `binfmt_core::source::ByteSource` exists only with `std`, and the slice parser must
//! work without it, so the walk is generic over the crate-private [`Input`] trait, which
//! `[u8]` implements everywhere and every byte source implements with `std` (through
//! [`Ranged`]).
//!
//! [`Archive::parse`]: crate::Archive::parse
//! [`Reader`]: crate::Reader
//! [`ByteSource`]: binfmt_core::source::ByteSource

use core::ops::{Deref, Range};

use binfmt_core::{Kind, bytes};

use crate::central::{CentralEntries, CentralEntry};
use crate::directory::{Directory, EndRecords, TAIL_LEN};
use crate::error::{ErrorKind, Result};
use crate::raw;

/// Where the walk reads from.
pub(crate) trait Input {
    /// Bytes read: a borrow of memory, or a buffer.
    type Bytes<'s>: Deref<Target = [u8]>
    where
        Self: 's;

    /// A window that ends at the end of the input and holds at least its last
    /// `min(max, len)` bytes (more if they cost nothing: all of a slice), and the offset
    /// of its first byte. One request.
    fn tail(&self, max: u64) -> Result<(u64, Self::Bytes<'_>)>;

    /// Exactly `len` bytes at `offset`, or [`Layout::Truncated`] naming `what`. One
    /// request.
    ///
    /// [`Layout::Truncated`]: binfmt_core::Layout::Truncated
    fn read(&self, offset: u64, len: u64, what: &'static str) -> Result<Self::Bytes<'_>>;

    /// `bytes[range]`, keeping the borrow (or the buffer: no new allocation).
    fn narrow<'s>(bytes: Self::Bytes<'s>, range: Range<usize>) -> Self::Bytes<'s>
    where
        Self: 's;
}

impl Input for [u8] {
    type Bytes<'s> = &'s [u8];

    fn tail(&self, _max: u64) -> Result<(u64, &[u8])> {
        // All of it: the walk then finds everything else in the "tail" without reading.
        Ok((0, self))
    }

    fn read(&self, offset: u64, len: u64, what: &'static str) -> Result<&[u8]> {
        Ok(bytes::slice(self, offset, len, what)?)
    }

    fn narrow<'s>(bytes: &'s [u8], range: Range<usize>) -> &'s [u8]
    where
        Self: 's,
    {
        bytes.get(range).unwrap_or(&[])
    }
}

/// Bytes the walk has read, and where they start in the archive.
#[derive(Debug, Clone)]
pub(crate) struct Window<B> {
    /// The offset of the first byte.
    pub(crate) start: u64,
    /// The bytes.
    pub(crate) bytes: B,
}

impl<B: Deref<Target = [u8]>> Window<B> {
    /// The offset just past the last byte: for a tail, the length of the archive.
    pub(crate) fn end(&self) -> u64 {
        self.start.saturating_add(bytes::to_u64(self.bytes.len()))
    }

    /// The range of `bytes` holding `len` bytes at archive offset `offset`, if the window
    /// holds them all.
    pub(crate) fn range_of(&self, offset: u64, len: u64) -> Option<Range<usize>> {
        let from = offset.checked_sub(self.start)?;
        let to = from.checked_add(len)?;
        if to > bytes::to_u64(self.bytes.len()) {
            return None;
        }
        Some(usize::try_from(from).ok()?..usize::try_from(to).ok()?)
    }

    /// The `len` bytes at archive offset `offset`, if the window holds them.
    pub(crate) fn get(&self, offset: u64, len: u64) -> Option<&[u8]> {
        self.bytes.get(self.range_of(offset, len)?)
    }
}

/// Step 1: the end records, the ZIP64 record if the locator names one, and so where the
/// central directory is. One read (the tail, [`TAIL_LEN`] bytes), plus one for a ZIP64
/// record that is not in the tail (only when extensible data follows its fixed part).
pub(crate) fn find_directory<I: Input + ?Sized>(
    input: &I,
) -> Result<(Directory, Window<I::Bytes<'_>>)> {
    let (start, bytes) = input.tail(TAIL_LEN)?;
    let tail = Window { start, bytes };
    let records = EndRecords::find(&tail.bytes, tail.end())?;
    let directory = match records.zip64_record_offset() {
        None => records.directory(None)?,
        Some(at) => {
            let len = bytes::to_u64(raw::ZIP64_END_SIZE);
            match tail.get(at, len) {
                Some(record) => records.directory(Some(record))?,
                None => {
                    let record = input.read(at, len, "ZIP64 end-of-central-directory record")?;
                    records.directory(Some(&record))?
                }
            }
        }
    };
    Ok((directory, tail))
}

/// Step 2: the central directory's bytes: out of the tail when it holds them (every
/// small archive), otherwise one read.
pub(crate) fn central_directory<'s, I: Input + ?Sized>(
    input: &'s I,
    directory: &Directory,
    tail: Window<I::Bytes<'s>>,
) -> Result<Window<I::Bytes<'s>>> {
    let (start, len) = (directory.cd_offset, directory.cd_size);
    let bytes = match tail.range_of(start, len) {
        Some(range) => I::narrow(tail.bytes, range),
        None => input.read(start, len, "central directory")?,
    };
    Ok(Window { start, bytes })
}

/// For the in-place update: the first central-directory entry alone, so that the cost
/// does not depend on the number of members. Out of the tail when it holds it;
/// otherwise the fixed part, then the whole entry (two reads).
#[cfg(feature = "std")]
pub(crate) fn first_entry_bytes<'s, I: Input + ?Sized>(
    input: &'s I,
    directory: &Directory,
    tail: &'s Window<I::Bytes<'s>>,
) -> Result<FirstEntry<'s, I>> {
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
            return Ok(FirstEntry::InTail(entry));
        }
    }
    let fixed = input.read(at, fixed_len, "central-directory entry")?;
    let len = entry_len(&fixed)?;
    Ok(FirstEntry::Read(input.read(
        at,
        len,
        "central-directory entry",
    )?))
}

/// The first entry's bytes, borrowed from the tail or read on their own.
#[cfg(feature = "std")]
pub(crate) enum FirstEntry<'s, I: Input + ?Sized + 's> {
    /// Inside the tail.
    InTail(&'s [u8]),
    /// Read separately.
    Read(I::Bytes<'s>),
}

#[cfg(feature = "std")]
impl<I: Input + ?Sized> Deref for FirstEntry<'_, I> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FirstEntry::InTail(b) => b,
            FirstEntry::Read(b) => b,
        }
    }
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
        .unwrap_or(Err(ErrorKind::HeaderNotFirst.at(directory.cd_offset)))?;
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

#[cfg(feature = "std")]
pub(crate) use ranged::Ranged;

#[cfg(feature = "std")]
mod ranged {
    use alloc::borrow::Cow;

    use binfmt_core::source::{ByteSource, read_exact};
    use binfmt_core::{IoError, bytes};

    use super::{Input, Range};
    use crate::error::Result;

    /// A byte source as the walk's input: each read is one request; a source already in
    /// memory (`as_slice`) is walked as a slice, without copies.
    #[derive(Debug)]
    pub(crate) struct Ranged<'a, S: ?Sized>(pub(crate) &'a S);

    // The bytes borrow the source (`'a`), not the adapter, so that they outlive it.
    impl<'a, S: ByteSource + ?Sized> Input for Ranged<'a, S> {
        type Bytes<'s>
            = Cow<'a, [u8]>
        where
            Self: 's;

        fn tail(&self, max: u64) -> Result<(u64, Cow<'a, [u8]>)> {
            let source: &'a S = self.0;
            if let Some(all) = source.as_slice() {
                return Ok((0, Cow::Borrowed(all)));
            }
            let (start, bytes) = source.read_tail(max).map_err(IoError::from)?;
            Ok((start, bytes))
        }

        fn read(&self, offset: u64, len: u64, what: &'static str) -> Result<Cow<'a, [u8]>> {
            let source: &'a S = self.0;
            if let Some(all) = source.as_slice() {
                return Ok(Cow::Borrowed(bytes::slice(all, offset, len, what)?));
            }
            Ok(read_exact(source, offset, len, what)?)
        }

        fn narrow<'s>(bytes: Cow<'a, [u8]>, range: Range<usize>) -> Cow<'a, [u8]>
        where
            Self: 's,
        {
            match bytes {
                Cow::Borrowed(b) => Cow::Borrowed(b.get(range).unwrap_or(&[])),
                Cow::Owned(mut v) => {
                    // In place: the walk narrows a tail it read to the central directory
                    // inside it.
                    v.truncate(range.end);
                    v.drain(..range.start.min(v.len()));
                    Cow::Owned(v)
                }
            }
        }
    }
}
