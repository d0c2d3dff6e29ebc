//! Reading an archive where it lives, by byte ranges: the header in one request, the
//! member list in at most two more, data offsets in one batch.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::ops::Range;

use binfmt_core::source::{ByteSource, read_exact};
use binfmt_core::{IoError, bytes};

use crate::central::{CentralEntries, local_fixed};
use crate::directory::Directory;
use crate::entries::{Entries, Entry};
use crate::error::Result;
use crate::header::{self, Header};
use crate::member::Member;
use crate::options::ReadOptions;
use crate::raw;
use crate::walk::{self, Ranged};

/// How many bytes [`Reader::open`] asks for: the 157-byte header and room to spare, as
/// tacoreader's first range request.
pub const HEAD_LEN: u64 = 256;

/// Local headers closer than this are fetched in one range (the bytes between them are
/// read and dropped): one request costs more than this many bytes on any remote store.
const MERGE_GAP: u64 = 64 * 1024;
/// The longest range local headers are merged into, so that listing an archive of
/// small members does not fetch an unbounded stretch of it.
const MERGE_MAX: u64 = 8 * 1024 * 1024;

/// An archive read by ranges from a [`ByteSource`]: a file ([`FileSource`]), any
/// `Read + Seek` ([`SeekSource`]), memory, or a remote object.
///
/// Each method states the requests it makes; nothing is cached between calls, so keep
/// what they return.
///
/// The request plan (`docs/taco-header.md`, "Reading by range"):
///
/// | step | method | requests |
/// |---|---|---|
/// | the header | [`Reader::open`] | 1: the first 256 bytes ([`HEAD_LEN`]), as tacoreader's range GET |
/// | the central directory | [`Reader::central_directory`] | 1: the last [`TAIL_LEN`] bytes, which hold the end records and the ZIP64 record; +1 for the central directory when it does not fit in them |
/// | data offsets | [`Reader::members`] | the above, +1 [`read_ranges`](ByteSource::read_ranges) call for the local headers, nearby ones merged into one range |
/// | data | [`Reader::read_data`], [`Reader::read_entry`] | 1 each |
///
/// [`TAIL_LEN`]: crate::TAIL_LEN
///
/// ```
/// use binfmt_core::source::Counting;
/// use taco_header::{ArchiveBuilder, Entries, Entry, Reader};
/// let mut builder = ArchiveBuilder::new(Entries::from_slice(&[Entry::new(201, 2)])?);
/// builder.add_bytes("COLLECTION.json", b"{}".to_vec());
/// let bytes = builder.to_vec()?;
///
/// let source = Counting::new(&bytes[..]); // stands for a remote object
/// let reader = Reader::open(&source)?;
/// assert_eq!(reader.header().entries().as_slice(), &[Entry::new(201, 2)]);
/// assert_eq!(source.stats().requests, 1);
///
/// let members = reader.members()?;
/// let names: Vec<_> = members.iter().map(|m| m.name_escaped().to_string()).collect();
/// assert_eq!(names, ["TACO_HEADER", "COLLECTION.json"]);
/// // The tail held the central directory; one batch for the local headers.
/// assert_eq!(source.stats().requests, 3);
/// assert_eq!(&*reader.read_data(&members.get(1).unwrap())?, b"{}");
/// # Ok::<(), taco_header::Error>(())
/// ```
///
/// [`FileSource`]: binfmt_core::source::FileSource
/// [`SeekSource`]: binfmt_core::source::SeekSource
#[derive(Debug)]
pub struct Reader<S> {
    source: S,
    options: ReadOptions,
    header: raw::Header,
}

impl<S: ByteSource> Reader<S> {
    /// Reads the first [`HEAD_LEN`] bytes of `source` (one request) and checks the header
    /// in them as [`Header::parse`] does.
    ///
    /// # Errors
    /// As [`Header::parse`]; I/O errors of the source.
    pub fn open(source: S) -> Result<Self> {
        Reader::open_with(source, &ReadOptions::new())
    }

    /// [`Reader::open`], checking what `options` says (here and in every later read).
    ///
    /// # Errors
    /// As [`Header::parse_with`]; I/O errors of the source.
    pub fn open_with(source: S, options: &ReadOptions) -> Result<Self> {
        let head = source.read_head(HEAD_LEN).map_err(IoError::from)?;
        let header = *Header::parse_with(&head, options)?.raw();
        Ok(Reader {
            source,
            options: *options,
            header,
        })
    }

    /// The header read by [`Reader::open`].
    #[must_use]
    pub fn header(&self) -> Header<'_> {
        Header::from_raw(&self.header)
    }

    /// The header's entries.
    #[must_use]
    pub fn entries(&self) -> Entries {
        self.header().entries()
    }

    /// The source.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// The source back.
    pub fn into_inner(self) -> S {
        self.source
    }

    /// The central directory: one request for the tail, one more only when the central
    /// directory does not lie inside it. Its first entry is checked as
    /// [`Archive::parse`](crate::Archive::parse) checks it, with the header's CRC
    /// against the central copy.
    ///
    /// # Errors
    /// As [`Archive::parse_with`](crate::Archive::parse_with) for the directory; I/O
    /// errors of the source.
    pub fn central_directory(&self) -> Result<CentralDirectory<'_>> {
        let input = Ranged(&self.source);
        let (directory, tail) = walk::find_directory(&input)?;
        let archive_len = tail.end();
        let cd = walk::central_directory(&input, &directory, tail)?;
        let first = walk::header_entry(&cd.bytes, &directory)?;
        header::crc_rule(
            &self.header,
            Some(first.crc32()),
            self.options.checks_checksums(),
        )?;
        Ok(CentralDirectory {
            bytes: cd.bytes,
            directory,
            archive_len,
        })
    }

    /// Every member with the offset of its data: the central directory, then the fixed
    /// 30 bytes of every local header in one [`read_ranges`](ByteSource::read_ranges)
    /// call, in ascending order, headers closer than 64 KiB merged into one range (up to
    /// 8 MiB): an archive of small members costs one range, one of large members one
    /// range per member.
    ///
    /// # Errors
    /// As [`Reader::central_directory`]; entry and local-header errors as
    /// [`Archive::members`](crate::Archive::members) reports them (the first one), and
    /// [`ErrorKind::EntryCount`](crate::ErrorKind::EntryCount) when the declared count
    /// does not fill the central directory.
    pub fn members(&self) -> Result<MemberList<'_>> {
        let cd = self.central_directory()?;
        // Every entry takes at least 46 bytes, so the central directory (already read)
        // bounds this allocation, not the declared count.
        let most = bytes::to_u64(cd.bytes.len()) / bytes::to_u64(raw::CENTRAL_ENTRY_SIZE);
        let mut starts = Vec::with_capacity(usize::try_from(most).unwrap_or(0));
        let mut entries = cd.entries();
        for entry in entries.by_ref() {
            starts.push(entry?.local_header_offset);
        }
        entries.check_end()?;
        let data_offsets = self.data_offsets(&starts, cd.archive_len)?;
        Ok(MemberList { cd, data_offsets })
    }

    /// The data offset of the member whose local header is at each of `starts`.
    fn data_offsets(&self, starts: &[u64], archive_len: u64) -> Result<Vec<u64>> {
        let fixed = bytes::to_u64(raw::LOCAL_HEADER_SIZE);
        let mut sorted = starts.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let mut ranges: Vec<Range<u64>> = Vec::new();
        for &start in sorted.iter().filter(|&&s| s < archive_len) {
            let end = start.saturating_add(fixed).min(archive_len);
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
        let fetched = if ranges.is_empty() {
            Vec::new()
        } else {
            self.source.read_ranges(&ranges).map_err(IoError::from)?
        };
        let empty: &[u8] = &[];
        starts
            .iter()
            .map(|&at| {
                // The range holding `at`: the last one starting at or before it.
                let i = ranges.partition_point(|r| r.start <= at).checked_sub(1);
                let local = i
                    .and_then(|i| Some((ranges.get(i)?, fetched.get(i)?)))
                    .and_then(|(range, buf)| buf.get(usize::try_from(at - range.start).ok()?..))
                    .unwrap_or(empty);
                if local.is_empty() {
                    // Past the end of the archive, as the slice parser reports it.
                    let available = archive_len.saturating_sub(at);
                    return Err(binfmt_core::Error::truncated(
                        "local file header",
                        at,
                        fixed,
                        available,
                    )
                    .into());
                }
                Ok(local_fixed(local, at)?.1)
            })
            .collect()
    }

    /// The stored bytes of `member` (one request).
    ///
    /// # Errors
    /// [`Layout::Truncated`](binfmt_core::Layout::Truncated) when they run past the end;
    /// I/O errors of the source.
    pub fn read_data(&self, member: &Member<'_>) -> Result<Cow<'_, [u8]>> {
        let range = member.data_range();
        let len = range.end.saturating_sub(range.start);
        Ok(read_exact(&self.source, range.start, len, "member data")?)
    }

    /// The bytes a header entry points at (one request): for tacozip's writers, a
    /// member's data.
    ///
    /// # Errors
    /// [`Layout::Truncated`](binfmt_core::Layout::Truncated) when they run past the end;
    /// I/O errors of the source.
    pub fn read_entry(&self, entry: Entry) -> Result<Cow<'_, [u8]>> {
        Ok(read_exact(
            &self.source,
            entry.offset,
            entry.length,
            "header entry",
        )?)
    }
}

/// The central directory of an archive read by [`Reader::central_directory`]: its bytes
/// and where it is.
#[derive(Debug, Clone)]
pub struct CentralDirectory<'s> {
    bytes: Cow<'s, [u8]>,
    directory: Directory,
    archive_len: u64,
}

impl CentralDirectory<'_> {
    /// Where it is, and how many entries it declares.
    #[must_use]
    pub fn directory(&self) -> &Directory {
        &self.directory
    }

    /// Its entries, in order (the header's first).
    #[must_use]
    pub fn entries(&self) -> CentralEntries<'_> {
        CentralEntries::new(
            &self.bytes,
            self.directory.cd_offset,
            self.directory.entries,
        )
    }

    /// The length of the archive, learnt from the tail request.
    #[must_use]
    pub fn archive_len(&self) -> u64 {
        self.archive_len
    }
}

/// Every member of an archive with its data offset, from [`Reader::members`].
#[derive(Debug, Clone)]
pub struct MemberList<'s> {
    cd: CentralDirectory<'s>,
    data_offsets: Vec<u64>,
}

impl MemberList<'_> {
    /// Where the central directory is.
    #[must_use]
    pub fn directory(&self) -> &Directory {
        self.cd.directory()
    }

    /// The number of members, `TACO_HEADER` included.
    #[must_use]
    pub fn len(&self) -> usize {
        self.data_offsets.len()
    }

    /// Never true for a list that [`Reader::members`] returned: a TACO archive has at
    /// least its header.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.data_offsets.is_empty()
    }

    /// The members, in central-directory order.
    pub fn iter(&self) -> impl Iterator<Item = Member<'_>> {
        self.cd
            .entries()
            .map_while(core::result::Result::ok)
            .zip(&self.data_offsets)
            .map(|(entry, &data_offset)| Member::new(&entry, data_offset))
    }

    /// Member `index` (0 is `TACO_HEADER`). Walks the entries before it: for many
    /// lookups, collect [`MemberList::iter`].
    #[must_use]
    pub fn get(&self, index: usize) -> Option<Member<'_>> {
        self.iter().nth(index)
    }
}
