//! The borrowed, zero-copy view of a .taridx file.

use binfmt_core::{Compatibility, Version, VersionPolicy, bytes, magic};

use crate::error::{Block, Error, Result};
use crate::key;
use crate::raw;

/// The 8-byte signature: `TARIDX` and two NUL bytes.
pub const MAGIC: &[u8] = b"TARIDX\0\0";
/// The version this crate writes.
pub const VERSION: Version = Version::new(1, 0);
/// Size of the header.
pub const HEADER_SIZE: u64 = 64;
/// Size of a row.
pub const ROW_SIZE: u64 = 32;
/// Flag bit 0: rows are contiguous by `(keyhash, crashid)`.
pub const FLAG_CONTIGUOUS: u8 = 1;

const POLICY: VersionPolicy = VersionPolicy::single_major(".taridx index", VERSION);

/// How strictly [`Index::parse_with`] checks an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ReadMode {
    /// Every check of the format (the default).
    #[default]
    Strict,
    /// Ignores `hdr_size` and `rec_size` and does not check row ids against the block
    /// counts (rows with out-of-range ids read as having no extension / crash stem).
    /// For salvaging files written by buggy tools; everything that bounds memory access
    /// is still checked.
    Lenient,
}

/// A parsed .taridx file, borrowing its bytes (a slice or a memory map).
///
/// [`Index::parse`] checks everything whose cost does not grow with the number of rows:
/// the header, the offsets, the exact length of the row region, and both text blocks
/// (UTF-8, split on `\n` only, counts equal to `n_ext` and `n_crash`). Row ids are
/// checked whenever a row is decoded ([`Index::row`], [`Index::entries`], and the
/// [`StemMap`](crate::StemMap) build, which checks every row once); [`Index::check_rows`]
/// checks them all at about a nanosecond per row. So opening a million-row index costs the
/// same as opening an empty one, and no accessor ever returns an out-of-range id.
#[derive(Debug, Clone, Copy)]
pub struct Index<'a> {
    header: &'a raw::Header,
    exts: &'a str,
    crash: &'a str,
    off_crash: u64,
    off_arr: u64,
    rows: &'a [raw::Row],
    compatibility: Compatibility,
    mode: ReadMode,
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
        self.offset.checked_add(512)
    }

    /// Where the payload ends in the shard, `None` on overflow.
    #[must_use]
    pub fn payload_end(&self) -> Option<u64> {
        self.payload_offset()?.checked_add(self.size)
    }

    /// The payload within the bytes of its shard.
    ///
    /// # Errors
    /// [`binfmt_core::Error::Truncated`] or `Overflow` (as [`Error::Layout`]) when the
    /// payload does not lie within `shard`.
    pub fn payload<'s>(&self, shard: &'s [u8]) -> Result<&'s [u8]> {
        let start = self
            .offset
            .checked_add(512)
            .ok_or(binfmt_core::Error::Overflow {
                what: "member payload",
                offset: self.offset,
            })?;
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

impl<'a> Index<'a> {
    /// Parses an index with every check ([`ReadMode::Strict`]).
    ///
    /// # Errors
    /// [`Error::Layout`] for a short file, a wrong magic or an unsupported major version;
    /// [`Error::HeaderSize`], [`Error::RecordSize`], [`Error::CrashOffset`],
    /// [`Error::RowsOffset`], [`Error::RowBytes`], [`Error::BlockText`] and
    /// [`Error::BlockCount`] for the other header and block checks.
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        Self::parse_with(data, ReadMode::Strict)
    }

    /// Parses an index with the given strictness.
    ///
    /// # Errors
    /// As [`Index::parse`], without [`Error::HeaderSize`] and [`Error::RecordSize`] in
    /// [`ReadMode::Lenient`].
    pub fn parse_with(data: &'a [u8], mode: ReadMode) -> Result<Self> {
        magic::check(data, 0, MAGIC, ".taridx index")?;
        let header: &raw::Header = bytes::read(data, 0, "header")?;
        let compatibility =
            POLICY.check(Version::new(header.major.get(), header.minor.get()), 8)?;
        if mode == ReadMode::Strict {
            if header.rec_size.get() != 32 {
                return Err(Error::RecordSize {
                    found: header.rec_size.get(),
                });
            }
            if header.hdr_size.get() != 64 {
                return Err(Error::HeaderSize {
                    found: header.hdr_size.get(),
                });
            }
        }
        let file_len = bytes::len_u64(data);
        let (off_crash, off_arr) = (header.off_crash.get(), header.off_arr.get());
        if off_arr > file_len {
            return Err(Error::RowsOffset {
                value: off_arr,
                file_len,
            });
        }
        if off_crash < HEADER_SIZE || off_crash > off_arr {
            return Err(Error::CrashOffset {
                value: off_crash,
                off_arr,
                file_len,
            });
        }
        let n_rows = header.n_rows.get();
        let available = file_len - off_arr;
        if n_rows.checked_mul(ROW_SIZE) != Some(available) {
            return Err(Error::RowBytes {
                n_rows,
                off_arr,
                available,
            });
        }
        let rows = bytes::read_table::<raw::Row>(data, off_arr, n_rows, "rows")?;
        let exts = text_block(
            data,
            HEADER_SIZE,
            off_crash,
            Block::Extensions,
            header.n_ext.get(),
        )?;
        let crash = text_block(
            data,
            off_crash,
            off_arr,
            Block::CrashStems,
            header.n_crash.get(),
        )?;
        Ok(Index {
            header,
            exts,
            crash,
            off_crash,
            off_arr,
            rows,
            compatibility,
            mode,
        })
    }

    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'a raw::Header {
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

    /// The strictness the index was parsed with.
    #[must_use]
    pub fn mode(&self) -> ReadMode {
        self.mode
    }

    /// `n_stems` as stored: the number of distinct stems.
    #[must_use]
    pub fn n_stems(&self) -> u64 {
        self.header.n_stems.get()
    }

    /// The number of rows.
    #[must_use]
    pub fn n_rows(&self) -> u64 {
        self.header.n_rows.get()
    }

    /// The number of extensions.
    #[must_use]
    pub fn n_ext(&self) -> u32 {
        self.header.n_ext.get()
    }

    /// The number of crash stems (crash ids run from 1 to this).
    #[must_use]
    pub fn n_crash(&self) -> u32 {
        self.header.n_crash.get()
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

    /// Offset of the crash block (`off_crash`).
    #[must_use]
    pub fn crash_block_offset(&self) -> u64 {
        self.off_crash
    }

    /// Offset of the rows (`off_arr`); not aligned in general.
    #[must_use]
    pub fn rows_offset(&self) -> u64 {
        self.off_arr
    }

    /// The extensions in id order.
    pub fn extensions(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        entries_of(self.exts, self.n_ext())
    }

    /// The extension with id `extid`.
    #[must_use]
    pub fn extension(&self, extid: u16) -> Option<&'a str> {
        self.extensions().nth(usize::from(extid))
    }

    /// The crash stems in id order (the first has crash id 1).
    pub fn crash_stems(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        entries_of(self.crash, self.n_crash())
    }

    /// The crash stem with id `crashid` (≥ 1); `None` for 0 (canonical) or out of range.
    #[must_use]
    pub fn crash_stem(&self, crashid: u32) -> Option<&'a str> {
        let i = usize::try_from(crashid.checked_sub(1)?).ok()?;
        self.crash_stems().nth(i)
    }

    /// The crash id a stem has in this index: its position in the crash block, else 0.
    #[must_use]
    pub fn crashid_of(&self, stem: &str) -> u32 {
        (1..)
            .zip(self.crash_stems())
            .find(|(_, s)| *s == stem)
            .map_or(0, |(id, _)| id)
    }

    /// The rows as stored, without checks.
    #[must_use]
    pub fn raw_rows(&self) -> &'a [raw::Row] {
        self.rows
    }

    /// Row `i`, with its ids checked.
    ///
    /// Returns `None` past the last row.
    ///
    /// # Errors
    /// [`Error::ExtId`] or [`Error::CrashId`] for an out-of-range id ([`ReadMode::Strict`]).
    pub fn row(&self, i: u64) -> Option<Result<Entry>> {
        let raw = self.rows.get(usize::try_from(i).ok()?)?;
        Some(self.check_row(i, raw).map(|()| Entry::decode(i, raw)))
    }

    /// Every row in order, each with its ids checked.
    pub fn entries(&self) -> impl Iterator<Item = Result<Entry>> + use<'a> {
        let this = *self;
        (0u64..)
            .zip(self.rows)
            .map(move |(i, raw)| this.check_row(i, raw).map(|()| Entry::decode(i, raw)))
    }

    /// Checks the ids of every row.
    ///
    /// # Errors
    /// The first [`Error::ExtId`] or [`Error::CrashId`].
    pub fn check_rows(&self) -> Result<()> {
        if self.mode == ReadMode::Lenient {
            return Ok(());
        }
        let (n_ext, n_crash) = (self.n_ext(), self.n_crash());
        // One branch-free pass; the offending row is located only if there is one.
        let bad = self.rows.iter().fold(false, |bad, r| {
            bad | (u32::from(r.extid.get()) >= n_ext) | (r.crashid.get() > n_crash)
        });
        if !bad {
            return Ok(());
        }
        self.entries().try_for_each(|e| e.map(|_| ()))
    }

    /// The rows of `stem` (the stem rule is applied, so `"x.jpg"` finds `x`), by a linear
    /// scan: no allocation, O(rows). Build a [`StemMap`](crate::StemMap) for many lookups.
    pub fn find(&self, query: &str) -> impl Iterator<Item = Result<Entry>> + use<'a> {
        let stem = key::stem(query);
        let (hash, crashid) = (key::keyhash(stem), self.crashid_of(stem));
        self.entries().filter(move |e| {
            e.as_ref()
                .map_or(true, |e| e.keyhash == hash && e.crashid == crashid)
        })
    }

    pub(crate) fn check_row(&self, i: u64, raw: &raw::Row) -> Result<()> {
        if self.mode == ReadMode::Lenient {
            return Ok(());
        }
        let row_offset = self.off_arr.saturating_add(i.saturating_mul(ROW_SIZE));
        let extid = raw.extid.get();
        if u32::from(extid) >= self.n_ext() {
            return Err(Error::ExtId {
                row: i,
                offset: row_offset.saturating_add(18),
                extid,
                n_ext: self.n_ext(),
            });
        }
        let crashid = raw.crashid.get();
        if crashid > self.n_crash() {
            return Err(Error::CrashId {
                row: i,
                offset: row_offset.saturating_add(20),
                crashid,
                n_crash: self.n_crash(),
            });
        }
        Ok(())
    }

    /// Deep check: `n_stems` and flag bit 0 against the rows (sorts a copy of the keys).
    ///
    /// # Errors
    /// [`Error::StemCount`] or [`Error::Flags`].
    #[cfg(feature = "alloc")]
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn check_deep(&self) -> Result<()> {
        let (distinct, runs) =
            crate::write::count_stems(self.rows.iter().map(|r| (r.keyhash.get(), r.crashid.get())));
        if distinct != self.n_stems() {
            return Err(Error::StemCount {
                declared: self.n_stems(),
                found: distinct,
            });
        }
        if self.is_contiguous() != (runs == distinct) {
            return Err(Error::Flags {
                declared: self.is_contiguous(),
            });
        }
        Ok(())
    }
}

/// The `\n`-separated entries of a block known to hold `count` of them.
fn entries_of(block: &str, count: u32) -> impl Iterator<Item = &str> {
    let n = if count == 0 { 0 } else { usize::MAX };
    block.split('\n').take(n)
}

/// Checks that `data[start..end]` is UTF-8 holding `count` `\n`-separated entries.
fn text_block(data: &[u8], start: u64, end: u64, block: Block, count: u32) -> Result<&str> {
    let raw = bytes::slice(data, start, end - start, "text block")?;
    let text = core::str::from_utf8(raw).map_err(|e| Error::BlockText {
        block,
        offset: start.saturating_add(bytes::len_u64(raw.get(..e.valid_up_to()).unwrap_or(&[]))),
    })?;
    let found = if text.is_empty() && count == 0 {
        0
    } else {
        // usize to u64 is lossless on every supported target.
        u64::try_from(text.bytes().filter(|&b| b == b'\n').count())
            .unwrap_or(u64::MAX)
            .saturating_add(1)
    };
    if found != u64::from(count) {
        return Err(Error::BlockCount {
            block,
            declared: u64::from(count),
            found,
        });
    }
    Ok(text)
}
