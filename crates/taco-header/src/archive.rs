//! The one view of a TACO archive: the header, the directory, the members, over any
//! [`Data`]: a slice in memory or memory-mapped, or a [`ReadCache`] over a file, a
//! stream or an object store.
//!
//! [`ReadCache`]: binfmt_core::cache::ReadCache

use binfmt_core::bytes;
use binfmt_core::data::Data;

use crate::central::{CentralEntries, local_fixed};
use crate::directory::{Directory, TAIL_SIZE};
use crate::entries::Entries;
use crate::error::{Error, Result};
use crate::header::{self, Header};
use crate::member::Member;
use crate::options::ReadOptions;
use crate::patch::Patch;
use crate::raw;
use crate::walk;

/// How many bytes a ranged read of the header asks for ([`Reader::open`],
/// [`read_header`], and the first batch of [`Archive::from_data`] over a cache): the
/// 157-byte header and room to spare, as tacoreader's first range request.
///
/// [`Reader::open`]: crate::Reader::open
/// [`read_header`]: crate::read_header
pub const HEAD_SIZE: u64 = 256;

/// The earlier name of [`HEAD_SIZE`].
#[deprecated(note = "use HEAD_SIZE")]
pub const HEAD_LEN: u64 = HEAD_SIZE;

/// A parsed TACO archive: its header, the position and bytes of its central directory,
/// and a checked first central-directory entry (`TACO_HEADER`, pointing at offset 0).
///
/// One view over any [`Data`] `D`: `Archive<'d>` (the default, `D = &'d [u8]`) reads a
/// slice in place, without copies and without `std`; `Archive<'d, &'d ReadCache<S>>`
/// reads by ranges from any [`ByteSource`], only the ranges it needs, through the
/// cache (see [`Reader`] for the owned form, and the crate documentation for the
/// request plan).
///
/// Parsing reads the header, the end records and the central directory, and checks its
/// first entry: O(1) in the number of members for a slice. [`Archive::members`] walks
/// the rest; [`verify`](crate::verify()) checks everything.
///
/// ```
/// use taco_header::{Archive, Entries, Entry, Writer};
/// let mut writer = Writer::new(Entries::from_slice(&[Entry::new(157, 13)])?);
/// writer.add_bytes("COLLECTION.json", b"{}".to_vec());
/// let bytes = writer.to_vec()?; // or a file: taco_header::fs::read / fs::map
///
/// let archive = Archive::parse(&bytes)?;
/// assert_eq!(archive.header().count(), 1);
/// for member in archive.members() {
///     let member = member?;
///     println!("{} ({} bytes at {})", member.name_escaped(), member.size(), member.data_offset());
/// }
/// # Ok::<(), taco_header::Error>(())
/// ```
///
/// The same view by ranges:
///
/// ```
/// # #[cfg(feature = "std")] {
/// use binfmt_core::cache::ReadCache;
/// use binfmt_core::source::Counting;
/// use taco_header::{Archive, Entries, Writer};
/// let mut writer = Writer::new(Entries::new());
/// writer.add_bytes("COLLECTION.json", b"{}".to_vec());
/// let bytes = writer.to_vec()?;
///
/// let source = Counting::new(&bytes[..]); // stands for a remote object
/// let cache = ReadCache::new(&source);
/// let archive = Archive::from_data(&cache)?;
/// assert_eq!(source.stats().requests, 1); // the header and the tail, in one batch
/// assert_eq!(archive.members().count(), 2);
/// # }
/// # Ok::<(), taco_header::Error>(())
/// ```
///
/// [`ByteSource`]: binfmt_core::source::ByteSource
/// [`Reader`]: crate::Reader
#[derive(Debug, Clone, Copy)]
pub struct Archive<'d, D = &'d [u8]> {
    data: D,
    header: Header<'d>,
    directory: Directory,
    central_directory: &'d [u8],
    size: u64,
}

impl<'d> Archive<'d> {
    /// Parses the archive `data` (the whole file), checking everything
    /// [`ReadOptions::new`] checks.
    ///
    /// # Errors
    /// As [`Archive::parse_with`].
    pub fn parse(data: &'d [u8]) -> Result<Self> {
        Archive::from_data_with(data, &ReadOptions::new())
    }

    /// Parses the archive `data` (the whole file), checking what `options` says: as
    /// [`Archive::from_data_with`] for a slice.
    ///
    /// # Errors
    /// As [`Archive::from_data_with`].
    pub fn parse_with(data: &'d [u8], options: &ReadOptions) -> Result<Self> {
        Archive::from_data_with(data, options)
    }
}

impl<'d, D: Data<'d>> Archive<'d, D>
where
    Error: From<D::Error>,
{
    /// Parses the archive held by `data`, checking everything [`ReadOptions::new`]
    /// checks.
    ///
    /// # Errors
    /// As [`Archive::from_data_with`].
    pub fn from_data(data: D) -> Result<Self> {
        Archive::from_data_with(data, &ReadOptions::new())
    }

    /// Parses the archive held by `data` (a slice: the whole file; a cache: the ranges
    /// it needs), checking what `options` says.
    ///
    /// # Errors
    /// Header errors as [`Header::parse_with`] (the CRC-32 last); end-record errors as
    /// [`Directory::locate`]; [`ErrorKind::HeaderNotFirst`],
    /// [`ErrorKind::HeaderNotAtStart`] and [`ErrorKind::LocalMismatch`] when the first
    /// central-directory entry is not a stored, 116-byte `TACO_HEADER` at offset 0; with
    /// checksums, [`ErrorKind::TornUpdate`] when the header's CRC and the central
    /// directory's copy differ (an interrupted update; `checksums(false)` lists the
    /// archive anyway, and [`fs::update`](crate::fs::update) repairs it); I/O errors of
    /// a cache's source.
    ///
    /// [`ErrorKind::HeaderNotFirst`]: crate::ErrorKind::HeaderNotFirst
    /// [`ErrorKind::HeaderNotAtStart`]: crate::ErrorKind::HeaderNotAtStart
    /// [`ErrorKind::LocalMismatch`]: crate::ErrorKind::LocalMismatch
    /// [`ErrorKind::TornUpdate`]: crate::ErrorKind::TornUpdate
    pub fn from_data_with(data: D, options: &ReadOptions) -> Result<Self> {
        // The field rules now, the CRC rule once the central copy is known.
        let header = Header::parse_with(first_bytes(data)?, &options.checksums(false))?;
        Archive::with_header(data, header, options)
    }

    /// The rest of the parse, for a header whose field rules were checked.
    pub(crate) fn with_header(data: D, header: Header<'d>, options: &ReadOptions) -> Result<Self> {
        let (directory, tail) = walk::find_directory(data)?;
        let central_directory = walk::central_directory(data, &directory, &tail)?;
        let first = walk::header_entry(central_directory, &directory)?;
        header::crc_rule(header.raw(), Some(first.crc32()), options.get_checksums())?;
        Ok(Archive {
            data,
            header,
            directory,
            central_directory,
            size: tail.end(),
        })
    }

    /// A view rebuilt from what an earlier parse checked: no re-validation, and no I/O
    /// when the central directory is held.
    #[cfg(feature = "std")]
    pub(crate) fn from_checked(
        data: D,
        header: Header<'d>,
        directory: Directory,
        size: u64,
    ) -> Result<Self> {
        let whole = walk::Window {
            start: 0,
            bytes: data.whole().unwrap_or(&[]),
        };
        let central_directory = walk::central_directory(data, &directory, &whole)?;
        Ok(Archive {
            data,
            header,
            directory,
            central_directory,
            size,
        })
    }

    /// The header.
    #[must_use]
    pub fn header(&self) -> Header<'d> {
        self.header
    }

    /// What a reader should know that does not make the archive invalid: under
    /// [`ReadOptions::lenient`], what the strict header rules say.
    pub fn warnings(&self) -> impl Iterator<Item = Error> + use<'d, D> {
        self.header.warnings()
    }

    /// Where the central directory is.
    #[must_use]
    pub fn directory(&self) -> &Directory {
        &self.directory
    }

    /// The archive's bytes: the slice, or the cache.
    #[must_use]
    pub fn data(&self) -> D {
        self.data
    }

    /// The length of the archive in bytes.
    #[must_use]
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The central-directory entries, in order (the header's first). They are read from
    /// bytes at hand: no I/O.
    #[must_use]
    pub fn central_entries(&self) -> CentralEntries<'d> {
        CentralEntries::new(
            self.central_directory,
            self.directory.cd_offset,
            self.directory.entries,
        )
    }

    /// The members, in central-directory order (`TACO_HEADER` first), each with the
    /// offset of its data, so that a caller can range-request one member. Each member
    /// costs one central-directory entry and the fixed 30 bytes of its local header,
    /// read in place. Over a cache, the local headers are announced first
    /// ([`Data::hint`]): the first one missing fetches them all in one batch, headers
    /// closer than 64 KiB merged into one range (of at most 8 MiB).
    #[must_use]
    pub fn members(&self) -> Members<'d, D> {
        #[cfg(feature = "alloc")]
        if self.data.whole().is_none() {
            let starts: alloc::vec::Vec<u64> = self
                .central_entries()
                .map_while(core::result::Result::ok)
                .map(|entry| entry.local_header_offset)
                .collect();
            self.hint_local_headers(&starts);
        }
        Members {
            data: self.data,
            size: self.size,
            entries: self.central_entries(),
        }
    }

    /// Announces the fixed part of the local headers at `starts`, merged as
    /// [`Archive::members`] says.
    #[cfg(feature = "alloc")]
    pub(crate) fn hint_local_headers(&self, starts: &[u64]) {
        /// Local headers closer than this are fetched in one range (the bytes between
        /// them are read and dropped): a request costs more than this many bytes on any
        /// remote store.
        const MERGE_GAP: u64 = 64 * 1024;
        /// The longest range local headers are merged into, so that listing an archive
        /// of small members does not fetch an unbounded stretch of it.
        const MERGE_MAX: u64 = 8 * 1024 * 1024;
        let fixed = bytes::to_u64(raw::LOCAL_HEADER_SIZE);
        let size = self.size;
        // In order (as writers put them), or sorted here; equal ones merge below.
        let sorted;
        let starts = if starts.is_sorted() {
            starts
        } else {
            let mut copy = starts.to_vec();
            copy.sort_unstable();
            sorted = copy;
            &sorted[..]
        };
        let mut ranges: alloc::vec::Vec<core::ops::Range<u64>> = alloc::vec::Vec::new();
        for &start in starts.iter().filter(|&&s| s < size) {
            let end = start.saturating_add(fixed).min(size);
            match ranges.last_mut() {
                Some(last)
                    if start <= last.end.saturating_add(MERGE_GAP)
                        && end.saturating_sub(last.start) <= MERGE_MAX =>
                {
                    last.end = last.end.max(end);
                }
                _ => ranges.push(start..end),
            }
        }
        // Only a hint: a read that then fails says what is wrong.
        let _ = self.data.hint(&ranges);
    }

    /// The stored bytes of `member`: a borrow for a slice, one request for a cache.
    ///
    /// # Errors
    /// [`Layout::Truncated`](binfmt_core::Layout::Truncated) when they run past the end;
    /// I/O errors of a cache's source.
    #[cfg(feature = "alloc")]
    pub fn read_data(&self, member: &Member<'_>) -> Result<alloc::borrow::Cow<'d, [u8]>> {
        read_data(self.data, member)
    }

    /// The bytes a header entry points at (for tacozip's writers, a member's data): a
    /// borrow for a slice, one request for a cache.
    ///
    /// # Errors
    /// [`Layout::Truncated`](binfmt_core::Layout::Truncated) when they run past the end;
    /// I/O errors of a cache's source.
    #[cfg(feature = "alloc")]
    pub fn read_entry(&self, entry: crate::Entry) -> Result<alloc::borrow::Cow<'d, [u8]>> {
        read_entry(self.data, entry)
    }

    /// The writes that replace the header's entries with `entries`. [`Patch::apply`]
    /// performs them on a buffer; [`fs::update`](crate::fs::update) on a file.
    #[must_use]
    pub fn patch(&self, entries: &Entries) -> Patch {
        // The first central-directory entry, `TACO_HEADER`'s, is where the directory
        // starts.
        Patch::new(entries, self.directory.cd_offset)
    }
}

/// The bytes the header is parsed from: all of the data when it is in memory (as
/// [`Header::parse_with`] takes a whole archive); the first bytes of a stream; otherwise
/// the first [`HEAD_SIZE`] bytes, requested in one batch with the tail, which the walk
/// reads next.
fn first_bytes<'d, D: Data<'d>>(data: D) -> Result<&'d [u8]>
where
    Error: From<D::Error>,
{
    if let Some(all) = data.whole() {
        return Ok(all);
    }
    if data.is_stream() {
        return Ok(data.head(HEAD_SIZE)?);
    }
    let size = data.size()?;
    let head = HEAD_SIZE.min(size);
    data.hint(&[0..head, size.saturating_sub(TAIL_SIZE)..size])?;
    Ok(data.bytes(0, head, "TACO header")?)
}

/// The bytes of the local header at `at`, as far as [`local_fixed`] needs them (its
/// fixed 30 bytes, or fewer at the end of the archive), with the errors of
/// `bytes::rest` over the whole archive.
#[inline]
fn local_bytes<'d, D: Data<'d>>(data: D, size: u64, at: u64) -> Result<&'d [u8]>
where
    Error: From<D::Error>,
{
    match size.checked_sub(at) {
        None => Err(binfmt_core::Error::truncated("local file header", at, 1, 0).into()),
        Some(rest) => Ok(data.bytes(
            at,
            rest.min(bytes::to_u64(raw::LOCAL_HEADER_SIZE)),
            "local file header",
        )?),
    }
}

/// Where the data of the member whose local header is at `at` starts, in an archive of
/// `size` bytes.
#[inline]
pub(crate) fn data_offset<'d, D: Data<'d>>(data: D, size: u64, at: u64) -> Result<u64>
where
    Error: From<D::Error>,
{
    Ok(local_fixed(local_bytes(data, size, at)?, at)?.1)
}

/// The stored bytes of `member` in `data`.
#[cfg(feature = "alloc")]
pub(crate) fn read_data<'d, D: Data<'d>>(
    data: D,
    member: &Member<'_>,
) -> Result<alloc::borrow::Cow<'d, [u8]>>
where
    Error: From<D::Error>,
{
    let range = member.data_range();
    let len = range.end.saturating_sub(range.start);
    Ok(data.payload(range.start, len, "member data")?)
}

/// The bytes `entry` points at in `data`.
#[cfg(feature = "alloc")]
pub(crate) fn read_entry<'d, D: Data<'d>>(
    data: D,
    entry: crate::Entry,
) -> Result<alloc::borrow::Cow<'d, [u8]>>
where
    Error: From<D::Error>,
{
    Ok(data.payload(entry.offset, entry.length, "header entry")?)
}

/// The members of an archive, from [`Archive::members`].
#[derive(Debug, Clone)]
pub struct Members<'d, D = &'d [u8]> {
    data: D,
    size: u64,
    entries: CentralEntries<'d>,
}

impl<'d, D: Data<'d>> Iterator for Members<'d, D>
where
    Error: From<D::Error>,
{
    type Item = Result<Member<'d>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let (data, size) = (self.data, self.size);
        Some(self.entries.next()?.and_then(|entry| {
            let offset = data_offset(data, size, entry.local_header_offset)?;
            Ok(Member::new(&entry, offset))
        }))
    }
}
