//! The view of a .taridx file over any [`Data`] (a slice, a memory map, a
//! [`ReadCache`](binfmt_core::cache::ReadCache) over a file or an object store), and the
//! rules it is checked against.
//!
//! Each rule is one function below; [`Index::from_data_with`] applies them in order and stops
//! at the first problem, [`verify`](crate::verify) applies the same functions and reports
//! every problem. The request plan is in [`Index`]'s documentation.

use core::iter::FusedIterator;

use binfmt_core::bytes::{self, to_u64};
use binfmt_core::data::Data;
use binfmt_core::version::VersionPolicy;
use binfmt_core::{Compatibility, Kind, Version, field_offset, magic};

use crate::error::{Block, Error, ErrorKind, Result};
use crate::key;
use crate::options::ReadOptions;
use crate::raw::{self, FLAG_CONTIGUOUS, HEADER_SIZE, MAGIC, ROW_SIZE, TAR_HEADER_SIZE, VERSION};

const POLICY: VersionPolicy = VersionPolicy::single_major(".taridx index", VERSION);

/// `HEADER_SIZE` as the `u64` offset arithmetic needs.
pub(crate) const HEADER_LEN: u64 = to_u64(HEADER_SIZE);
/// `ROW_SIZE` as `u64`.
pub(crate) const ROW_LEN: u64 = to_u64(ROW_SIZE);
/// One tar block (a header, or the unit data is padded to) as `u64`.
pub(crate) const BLOCK: u64 = to_u64(TAR_HEADER_SIZE);
/// How many bytes a view over a cache ([`Index::from_data_with`] over a
/// [`ReadCache`](binfmt_core::cache::ReadCache), and [`verify_data`](crate::verify_data))
/// asks for first: the header and, for indexes this small, all of it (and the length,
/// when the head comes back short).
pub const HEAD_SIZE: u64 = 64 << 10;

/// A parsed .taridx file, borrowing its bytes from `D`: a slice or a memory map (the
/// default, zero-copy), or a [`ReadCache`](binfmt_core::cache::ReadCache) over a file or
/// an object store (the index is read by range; see the request plan below).
///
/// [`Index::parse`] checks everything whose cost does not grow with the number of rows:
/// the header, the offsets, the exact length of the row region, and both text blocks
/// (UTF-8, split on `\n` only, counts equal to `n_ext` and `n_crash`). Row ids are
/// checked whenever a row is decoded ([`Index::row`], [`Index::entries`], and the
/// [`StemMap`](crate::StemMap) build, which checks every row once);
/// [`verify`](crate::verify) checks them all and the header's counts against the rows.
/// So opening a million-row index costs the same as opening an empty one, and no
/// accessor ever returns an out-of-range id. Nothing here allocates: the text blocks are
/// read through iterators ([`Texts`]).
///
/// # Request plan
///
/// Over a `&ReadCache` (a slice or a map reads nothing):
///
/// | operation | requests | dependent round trips |
/// |---|---|---|
/// | [`Index::from_data_with`], index of at most 64 KiB | 1 (`read_head(64 KiB)`, which also tells the length) | 1 |
/// | [`Index::from_data_with`], larger index | 2: the first 64 KiB, then the blocks and rows not in it, hinted as one batch (adjacent: one range) | 2 |
/// | [`Index::from_data_with`] over `ReadCache::with_head` holding the whole index | 0 | 0 |
/// | afterwards: every accessor, [`StemMap`](crate::StemMap), [`Verifier`](crate::Verifier) | 0 | 0 |
///
/// The whole index is read because lookups need every row (a sample's rows are found by
/// keyhash, and rows are not sorted by it). The cache's limit
/// ([`ReadCache::with_limit`](binfmt_core::cache::ReadCache::with_limit)) bounds what
/// a parse may hold: a larger index is an `Io` error of kind `OutOfMemory`.
///
/// ```
/// # #[cfg(feature = "std")] {
/// use binfmt_core::cache::ReadCache;
/// use binfmt_core::source::Counting;
/// use taridx::{Index, IndexFile, ReadOptions};
///
/// let bytes = IndexFile::new(vec!["jpg".into()], vec![], vec![])?.to_vec()?;
/// let slice = Index::parse(&bytes)?;
/// let source = Counting::new(&bytes[..]);
/// let cache = ReadCache::new(&source);
/// let ranged = Index::from_data(&cache)?;
/// assert_eq!(ranged.extension(0), slice.extension(0));
/// assert_eq!(source.stats().requests, 1); // a small index: one read
/// # }
/// # Ok::<(), taridx::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct Index<'d, D: Data<'d> = &'d [u8]> {
    data: D,
    header: &'d raw::Header,
    exts: &'d [u8],
    crash: &'d [u8],
    rows: &'d [raw::Row],
    compatibility: Compatibility,
    options: ReadOptions,
}

impl<'d, D: Data<'d>> core::fmt::Debug for Index<'d, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Index")
            .field("header", self.header)
            .field("n_rows", &self.rows.len())
            .field("compatibility", &self.compatibility)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// One decoded row: where a tar member's payload is, and which sample it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Entry {
    /// The row number (0-based).
    pub row: u64,
    /// Shard id: the shard's position in the fold's shard list.
    pub fid: u16,
    /// Offset of the tar header immediately before the payload.
    pub offset: u64,
    /// Payload size in bytes.
    pub size: u64,
    /// Extension id (see [`Index::extension`]).
    pub extid: u16,
    /// Collision id: 0 for the canonical stem of this keyhash, k for crash stem k.
    pub crashid: u32,
    /// XXH64 (seed 0) of the stem.
    pub keyhash: u64,
}

impl Entry {
    /// Where the payload starts in the shard (`offset + 512`), `None` on overflow.
    #[must_use]
    pub fn payload_offset(&self) -> Option<u64> {
        self.offset.checked_add(BLOCK)
    }

    /// Where the payload ends in the shard, `None` on overflow.
    #[must_use]
    pub fn payload_end(&self) -> Option<u64> {
        self.payload_offset()?.checked_add(self.size)
    }

    /// Where the next tar header after this member starts (the payload padded to 512
    /// bytes), saturating.
    #[must_use]
    pub fn next_header(&self) -> u64 {
        self.offset
            .saturating_add(BLOCK)
            .saturating_add(self.size.div_ceil(BLOCK).saturating_mul(BLOCK))
    }

    /// The payload within the bytes of its shard.
    ///
    /// # Errors
    /// [`Layout::Truncated`](binfmt_core::Layout::Truncated) or `Overflow` (as
    /// [`ErrorKind::Layout`]) when the payload does not lie within `shard`.
    pub fn payload<'s>(&self, shard: &'s [u8]) -> Result<&'s [u8]> {
        let start = self
            .payload_offset()
            .ok_or_else(|| binfmt_core::Error::overflow("member payload", self.offset))?;
        Ok(bytes::slice(shard, start, self.size, "member payload")?)
    }

    pub(crate) fn decode(row: u64, raw: &raw::Row) -> Self {
        Entry {
            row,
            fid: raw.fid.get(),
            offset: raw.offset.get(),
            size: raw.size.get(),
            extid: raw.extid.get(),
            crashid: raw.crashid.get(),
            keyhash: raw.keyhash.get(),
        }
    }
}

/// The entries of a text block, in id order: an iterator that knows its length (the
/// header's count, which [`Index::parse`] checked against the block) and allocates
/// nothing.
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// # use taridx::{Index, IndexFile};
/// let file = IndexFile::new(vec!["cls".into(), "jpg".into()], vec![], vec![])?;
/// let bytes = file.to_vec()?;
/// let index = Index::parse(&bytes)?;
/// let exts = index.extensions();
/// assert_eq!(exts.len(), 2);
/// assert_eq!(exts.collect::<Vec<_>>(), ["cls", "jpg"]);
/// # }
/// # Ok::<(), taridx::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Texts<'a> {
    rest: &'a [u8],
    left: u32,
}

impl<'a> Texts<'a> {
    pub(crate) fn new(block: &'a [u8], count: u32) -> Self {
        Texts {
            rest: block,
            left: count,
        }
    }
}

impl<'a> Iterator for Texts<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        self.left = self.left.checked_sub(1)?;
        let (piece, rest) = match self.rest.iter().position(|&b| b == b'\n') {
            Some(i) => (
                self.rest.get(..i).unwrap_or(&[]),
                self.rest.get(i + 1..).unwrap_or(&[]),
            ),
            None => (self.rest, &[][..]),
        };
        self.rest = rest;
        // The block was checked to be UTF-8 when the index was parsed, and a piece between
        // newlines of UTF-8 text is UTF-8: this never yields the fallback.
        Some(core::str::from_utf8(piece).unwrap_or(""))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.left).unwrap_or(usize::MAX);
        (n, Some(n))
    }
}

impl ExactSizeIterator for Texts<'_> {}
impl FusedIterator for Texts<'_> {}

impl<'d> Index<'d> {
    /// Parses an index in memory with every check.
    ///
    /// # Errors
    /// [`ErrorKind::Layout`] for a short file, a wrong magic or an unsupported major
    /// version; [`ErrorKind::HeaderSize`], [`ErrorKind::RecordSize`],
    /// [`ErrorKind::RowsOffset`], [`ErrorKind::CrashOffset`], [`ErrorKind::RowBytes`],
    /// [`ErrorKind::BlockText`] and [`ErrorKind::BlockCount`] for the other header and
    /// block checks, in that order.
    pub fn parse(data: &'d [u8]) -> Result<Self> {
        Self::from_data(data)
    }

    /// Parses an index in memory with the given checks (as
    /// [`from_data_with`](Index::from_data_with) over the slice).
    ///
    /// # Errors
    /// As [`Index::parse`], without [`ErrorKind::HeaderSize`] and
    /// [`ErrorKind::RecordSize`] when `options` skip the header sizes.
    pub fn parse_with(data: &'d [u8], options: &ReadOptions) -> Result<Self> {
        Self::from_data_with(data, options)
    }
}

impl<'d, D: Data<'d>> Index<'d, D>
where
    Error: From<D::Error>,
{
    /// [`Index::from_data_with`] with every check on.
    ///
    /// # Errors
    /// As [`Index::from_data_with`].
    pub fn from_data(data: D) -> Result<Self> {
        Self::from_data_with(data, &ReadOptions::new())
    }

    /// Renamed [`Index::from_data_with`], the name every format crate uses.
    ///
    /// # Errors
    /// As [`Index::from_data_with`].
    #[deprecated(note = "renamed to Index::from_data_with")]
    pub fn parse_data(data: D, options: &ReadOptions) -> Result<Self> {
        Self::from_data_with(data, options)
    }

    /// Parses an index from any [`Data`] with the given checks: the same rules, in the
    /// same order, as [`Index::parse_with`]. Over a cache it reads the first 64 KiB,
    /// then the rest in one batch (see the request plan in [`Index`]'s documentation).
    ///
    /// # Errors
    /// As [`Index::parse_with`]; [`ErrorKind::Io`] from a cache's source (a cache's
    /// limit is an `Io` error of kind `OutOfMemory`).
    pub fn from_data_with(data: D, options: &ReadOptions) -> Result<Self> {
        let head = data.head(HEAD_SIZE)?;
        let (header, compatibility) = header_rule(head)?;
        if options.get_header_sizes() {
            rec_size_rule(header)?;
            hdr_size_rule(header)?;
        }
        let file_len = data.size()?;
        let (off_crash, off_arr) = offsets_rule(header, file_len)?;
        // The blocks and rows that the head does not hold, as one batch (they are
        // adjacent: a cache fetches them as one range). A slice ignores this.
        let held = bytes::len_u64(head);
        let parts = [HEADER_LEN..off_crash, off_crash..off_arr, off_arr..file_len];
        if parts.iter().any(|r| r.end > held) {
            data.hint(&parts.map(|r| if r.end > held { r } else { 0..0 }))?;
        }
        let rows = rows_rule(data, header, off_arr, file_len)?;
        let exts = text_block(data, HEADER_LEN, off_crash, Block::Extensions)?;
        count_rule(exts, Block::Extensions, header.n_ext.get())?;
        let crash = text_block(data, off_crash, off_arr, Block::CrashStems)?;
        count_rule(crash, Block::CrashStems, header.n_crash.get())?;
        Ok(Index::assemble(
            data,
            header,
            exts,
            crash,
            rows,
            compatibility,
            options,
        ))
    }
}

impl<'d, D: Data<'d>> Index<'d, D> {
    /// A view of parts that the rules checked (or, in `verify`, parts whose blocks may
    /// have failed their checks and are then empty; over a cache, `verify` reads the
    /// rows itself and gives none here). The parse builds its view here too.
    #[inline]
    pub(crate) fn assemble(
        data: D,
        header: &'d raw::Header,
        exts: &'d [u8],
        crash: &'d [u8],
        rows: &'d [raw::Row],
        compatibility: Compatibility,
        options: &ReadOptions,
    ) -> Self {
        Index {
            data,
            header,
            exts,
            crash,
            rows,
            compatibility,
            options: *options,
        }
    }
}

impl<'d> Index<'d> {
    /// The view of `data` again, which [`Index::parse_with`] accepted with `options`
    /// (`header` is a copy of its header): slicing only, O(1). Parts that were not there
    /// would be empty; they always are there, for the same bytes.
    #[cfg(feature = "std")]
    pub(crate) fn reopen(header: &'d raw::Header, data: &'d [u8], options: &ReadOptions) -> Self {
        let version = Version::new(header.major.get(), header.minor.get());
        let compatibility = POLICY
            .check(version, MAJOR_AT)
            .unwrap_or(Compatibility::Current);
        let (off_crash, off_arr) = (header.off_crash.get(), header.off_arr.get());
        let part = |start: u64, end: u64| {
            bytes::slice(data, start, end.saturating_sub(start), "").unwrap_or(&[])
        };
        Index {
            data,
            header,
            exts: part(HEADER_LEN, off_crash),
            crash: part(off_crash, off_arr),
            rows: bytes::read_table(data, off_arr, header.n_rows.get(), "").unwrap_or(&[]),
            compatibility,
            options: *options,
        }
    }
}

impl<'d, D: Data<'d>> Index<'d, D> {
    /// The data the index was parsed from.
    #[must_use]
    pub fn data(&self) -> D {
        self.data
    }

    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'d raw::Header {
        self.header
    }

    /// The format version stored in the file.
    #[must_use]
    pub fn version(&self) -> Version {
        Version::new(self.header.major.get(), self.header.minor.get())
    }

    /// How the file's version relates to the one this crate writes (a newer minor is
    /// readable but may hold additions this crate ignores).
    #[must_use]
    pub fn compatibility(&self) -> Compatibility {
        self.compatibility
    }

    /// The options the index was parsed with.
    #[must_use]
    pub fn options(&self) -> ReadOptions {
        self.options
    }

    /// What a reader should know that does not make the index invalid: a newer minor
    /// version ([`ErrorKind::NewerMinor`]), reserved bits set ([`ErrorKind::Reserved`]),
    /// and the header sizes a lenient read ignored ([`ErrorKind::RecordSize`],
    /// [`ErrorKind::HeaderSize`]). [`verify`](crate::verify) reports them as warnings.
    pub fn warnings(&self) -> impl Iterator<Item = Error> + use<'d, D> {
        warnings(self.header, self.compatibility, &self.options)
    }

    binfmt_core::le_getters! { header =>
        /// `n_stems` as stored: the number of distinct stems.
        pub fn n_stems -> u64;
        /// The number of rows.
        pub fn n_rows -> u64;
        /// The number of extensions.
        pub fn n_ext -> u32;
        /// The number of crash stems (crash ids run from 1 to this).
        pub fn n_crash -> u32;
    }

    /// The flags byte as stored (bits 1..7 are reserved and ignored).
    #[must_use]
    pub fn flags(&self) -> u8 {
        self.header.flags
    }

    /// Flag bit 0 as stored: rows claim to be contiguous by `(keyhash, crashid)`.
    ///
    /// [`StemMap::is_contiguous`](crate::StemMap::is_contiguous) is the recomputed truth.
    #[must_use]
    pub fn is_contiguous(&self) -> bool {
        self.header.flags & FLAG_CONTIGUOUS != 0
    }

    binfmt_core::le_getters! { header =>
        /// Offset of the crash block (`off_crash`).
        pub fn crash_block_offset -> u64 = off_crash;
        /// Offset of the rows (`off_arr`); not aligned in general.
        pub fn rows_offset -> u64 = off_arr;
    }

    /// The extensions in id order, lazily (`len()` is `n_ext`).
    #[must_use]
    pub fn extensions(&self) -> Texts<'d> {
        Texts::new(self.exts, self.n_ext())
    }

    /// The extension with id `extid` (a scan of the extension block; a
    /// [`StemMap`](crate::StemMap) answers in O(1)).
    #[must_use]
    pub fn extension(&self, extid: u16) -> Option<&'d str> {
        self.extensions().nth(usize::from(extid))
    }

    /// The crash stems in id order (the first has crash id 1), lazily (`len()` is
    /// `n_crash`).
    #[must_use]
    pub fn crash_stems(&self) -> Texts<'d> {
        Texts::new(self.crash, self.n_crash())
    }

    /// The crash stem with id `crashid` (≥ 1); `None` for 0 (canonical) or out of range.
    #[must_use]
    pub fn crash_stem(&self, crashid: u32) -> Option<&'d str> {
        let i = usize::try_from(crashid.checked_sub(1)?).ok()?;
        self.crash_stems().nth(i)
    }

    /// The crash id a stem has in this index: its position in the crash block, else 0
    /// (a scan of the crash block).
    #[must_use]
    pub fn crashid_of(&self, stem: &str) -> u32 {
        (1..)
            .zip(self.crash_stems())
            .find(|(_, s)| *s == stem)
            .map_or(0, |(id, _)| id)
    }

    /// The bytes of the extension block (UTF-8, checked).
    #[cfg(feature = "alloc")]
    pub(crate) fn ext_block(&self) -> &'d [u8] {
        self.exts
    }

    /// The bytes of the crash block (UTF-8, checked).
    #[cfg(feature = "alloc")]
    pub(crate) fn crash_block(&self) -> &'d [u8] {
        self.crash
    }

    /// The rows as stored, without checks.
    #[must_use]
    pub fn raw_rows(&self) -> &'d [raw::Row] {
        self.rows
    }

    /// Row `i`, with its ids checked. `None` past the last row.
    ///
    /// # Errors
    /// [`ErrorKind::ExtId`] or [`ErrorKind::CrashId`] for an out-of-range id (when the
    /// options check row ids).
    pub fn row(&self, i: u64) -> Option<Result<Entry>> {
        let raw = self.rows.get(usize::try_from(i).ok()?)?;
        Some(self.checked(i, raw))
    }

    /// Every row in order, each with its ids checked.
    pub fn entries(&self) -> impl Iterator<Item = Result<Entry>> + use<'d, D> {
        let this = *self;
        (0u64..)
            .zip(self.rows)
            .map(move |(i, raw)| this.checked(i, raw))
    }

    /// The rows of `query`'s stem (the stem rule is applied, so `"x.jpg"` finds `x`), by
    /// a linear scan: no allocation, O(rows). Build a [`StemMap`](crate::StemMap) for
    /// many lookups.
    pub fn find(&self, query: &str) -> impl Iterator<Item = Result<Entry>> + use<'d, D> {
        let stem = key::stem(query);
        let (hash, crashid) = (key::keyhash(stem), self.crashid_of(stem));
        self.entries().filter(move |e| {
            e.as_ref()
                .map_or(true, |e| e.keyhash == hash && e.crashid == crashid)
        })
    }

    fn checked(&self, i: u64, raw: &raw::Row) -> Result<Entry> {
        if self.options.get_row_ids() {
            row_rule(self, i, raw)?;
        }
        Ok(Entry::decode(i, raw))
    }
}

// The rules. Offsets of header fields come from the layout struct.

const MAJOR_AT: u64 = field_offset!(raw::Header, major);
const MINOR_AT: u64 = field_offset!(raw::Header, minor);
const REC_SIZE_AT: u64 = field_offset!(raw::Header, rec_size);
const HDR_SIZE_AT: u64 = field_offset!(raw::Header, hdr_size);
#[cfg(feature = "alloc")]
pub(crate) const N_STEMS_AT: u64 = field_offset!(raw::Header, n_stems);
pub(crate) const N_ROWS_AT: u64 = field_offset!(raw::Header, n_rows);
const N_EXT_AT: u64 = field_offset!(raw::Header, n_ext);
const N_CRASH_AT: u64 = field_offset!(raw::Header, n_crash);
const OFF_CRASH_AT: u64 = field_offset!(raw::Header, off_crash);
const OFF_ARR_AT: u64 = field_offset!(raw::Header, off_arr);
pub(crate) const FLAGS_AT: u64 = field_offset!(raw::Header, flags);
const EXTID_AT: u64 = field_offset!(raw::Row, extid);
const CRASHID_AT: u64 = field_offset!(raw::Row, crashid);

/// Magic, a whole header, a major version we read.
pub(crate) fn header_rule(data: &[u8]) -> Result<(&raw::Header, Compatibility)> {
    magic::check(data, 0, MAGIC, ".taridx index")?;
    let header: &raw::Header = bytes::read(data, 0, "header")?;
    let version = Version::new(header.major.get(), header.minor.get());
    Ok((header, POLICY.check(version, MAJOR_AT)?))
}

/// `rec_size == 32`.
pub(crate) fn rec_size_rule(header: &raw::Header) -> Result<()> {
    let found = header.rec_size.get();
    if u64::from(found) == ROW_LEN {
        Ok(())
    } else {
        Err(ErrorKind::RecordSize { found }.at(REC_SIZE_AT))
    }
}

/// `hdr_size == 64`.
pub(crate) fn hdr_size_rule(header: &raw::Header) -> Result<()> {
    let found = header.hdr_size.get();
    if u64::from(found) == HEADER_LEN {
        Ok(())
    } else {
        Err(ErrorKind::HeaderSize { found }.at(HDR_SIZE_AT))
    }
}

/// `off_arr ≤ length` and `64 ≤ off_crash ≤ off_arr`; returns both.
pub(crate) fn offsets_rule(header: &raw::Header, file_len: u64) -> Result<(u64, u64)> {
    let (off_crash, off_arr) = (header.off_crash.get(), header.off_arr.get());
    if off_arr > file_len {
        return Err(ErrorKind::RowsOffset {
            value: off_arr,
            file_len,
        }
        .at(OFF_ARR_AT));
    }
    if off_crash < HEADER_LEN || off_crash > off_arr {
        return Err(ErrorKind::CrashOffset {
            value: off_crash,
            off_arr,
            file_len,
        }
        .at(OFF_CRASH_AT));
    }
    Ok((off_crash, off_arr))
}

/// Exactly `n_rows` rows after `off_arr` in a file of `file_len` bytes (overflow-safe);
/// returns them.
pub(crate) fn rows_rule<'d, D: Data<'d>>(
    data: D,
    header: &raw::Header,
    off_arr: u64,
    file_len: u64,
) -> Result<&'d [raw::Row]>
where
    Error: From<D::Error>,
{
    let n_rows = row_count_rule(header, off_arr, file_len)?;
    Ok(data.read_slice::<raw::Row>(off_arr, n_rows, "rows")?)
}

/// The count check of [`rows_rule`], without reading the rows; returns `n_rows`.
pub(crate) fn row_count_rule(header: &raw::Header, off_arr: u64, file_len: u64) -> Result<u64> {
    let n_rows = header.n_rows.get();
    let available = file_len.saturating_sub(off_arr);
    if n_rows.checked_mul(ROW_LEN) != Some(available) {
        return Err(ErrorKind::RowBytes {
            n_rows,
            off_arr,
            available,
        }
        .at(N_ROWS_AT));
    }
    Ok(n_rows)
}

/// The block `data[start..end]` (both checked by [`offsets_rule`]), checked to be UTF-8.
pub(crate) fn text_block<'d, D: Data<'d>>(
    data: D,
    start: u64,
    end: u64,
    block: Block,
) -> Result<&'d [u8]>
where
    Error: From<D::Error>,
{
    let len = end.saturating_sub(start);
    let raw = data.bytes(start, len, "text block")?;
    match core::str::from_utf8(raw) {
        Ok(_) => Ok(raw),
        Err(e) => {
            Err(ErrorKind::BlockText { block }.at(start.saturating_add(to_u64(e.valid_up_to()))))
        }
    }
}

/// The block holds exactly `count` `\n`-separated entries (an empty block holds 0 or 1:
/// only the count tells them apart).
pub(crate) fn count_rule(text: &[u8], block: Block, count: u32) -> Result<()> {
    let found = if text.is_empty() && count == 0 {
        0
    } else {
        to_u64(text.iter().filter(|&&b| b == b'\n').count()).saturating_add(1)
    };
    if found == u64::from(count) {
        return Ok(());
    }
    let at = match block {
        Block::Extensions => N_EXT_AT,
        Block::CrashStems => N_CRASH_AT,
    };
    Err(ErrorKind::BlockCount {
        block,
        declared: u64::from(count),
        found,
    }
    .at(at))
}

/// The bounds of [`row_rule`], for the passes over every row (the stem map's build,
/// `verify`): two compares a row, and `row_rule` only for a row out of range, to say
/// which id and where.
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, Copy)]
pub(crate) struct IdBounds {
    n_ext: u32,
    n_crash: u32,
}

#[cfg(feature = "alloc")]
impl IdBounds {
    /// The bounds `index` declares.
    pub(crate) fn of<'d, D: Data<'d>>(index: &Index<'d, D>) -> Self {
        IdBounds {
            n_ext: index.n_ext(),
            n_crash: index.n_crash(),
        }
    }

    /// True when `raw` breaks [`row_rule`]; branch-free.
    #[inline]
    pub(crate) fn out_of_range(self, raw: &raw::Row) -> bool {
        (u32::from(raw.extid.get()) >= self.n_ext) | (raw.crashid.get() > self.n_crash)
    }
}

/// A row's ids are in range: `extid < n_ext`, `crashid ≤ n_crash`.
pub(crate) fn row_rule<'d, D: Data<'d>>(
    index: &Index<'d, D>,
    i: u64,
    raw: &raw::Row,
) -> Result<()> {
    let row_at = index
        .rows_offset()
        .saturating_add(i.saturating_mul(ROW_LEN));
    let (extid, n_ext) = (raw.extid.get(), index.n_ext());
    if u32::from(extid) >= n_ext {
        return Err(ErrorKind::ExtId {
            row: i,
            extid,
            n_ext,
        }
        .at(row_at.saturating_add(EXTID_AT)));
    }
    let (crashid, n_crash) = (raw.crashid.get(), index.n_crash());
    if crashid > n_crash {
        return Err(ErrorKind::CrashId {
            row: i,
            crashid,
            n_crash,
        }
        .at(row_at.saturating_add(CRASHID_AT)));
    }
    Ok(())
}

/// Deep rule: `n_stems` equals the distinct `(keyhash, crashid)` pairs among the rows.
#[cfg(feature = "alloc")]
pub(crate) fn stem_count_rule<'d, D: Data<'d>>(index: &Index<'d, D>, distinct: u64) -> Result<()> {
    let declared = index.n_stems();
    if declared == distinct {
        return Ok(());
    }
    Err(ErrorKind::StemCount {
        declared,
        found: distinct,
    }
    .at(N_STEMS_AT))
}

/// Deep rule: flag bit 0 says whether every stem's rows are one run.
#[cfg(feature = "alloc")]
pub(crate) fn flag_rule<'d, D: Data<'d>>(index: &Index<'d, D>, contiguous: bool) -> Result<()> {
    let declared = index.is_contiguous();
    if declared == contiguous {
        return Ok(());
    }
    Err(ErrorKind::Flags { declared }.at(FLAGS_AT))
}

/// The warnings of a header that passed [`header_rule`].
pub(crate) fn warnings(
    header: &raw::Header,
    compatibility: Compatibility,
    options: &ReadOptions,
) -> impl Iterator<Item = Error> + use<> {
    let newer = compatibility.is_newer().then(|| {
        ErrorKind::NewerMinor {
            found: Version::new(header.major.get(), header.minor.get()),
            known: VERSION,
        }
        .at(MINOR_AT)
    });
    let nonzero = header.reserved.iter().filter(|&&b| b != 0).count();
    let reserved = (header.flags & !FLAG_CONTIGUOUS != 0 || nonzero != 0).then(|| {
        ErrorKind::Reserved {
            flags: header.flags,
            nonzero: u8::try_from(nonzero).unwrap_or(u8::MAX),
        }
        .at(FLAGS_AT)
    });
    let ignored = !options.get_header_sizes();
    let rec = ignored.then(|| rec_size_rule(header).err()).flatten();
    let hdr = ignored.then(|| hdr_size_rule(header).err()).flatten();
    newer.into_iter().chain(reserved).chain(rec).chain(hdr)
}
