//! The 32-byte file header: decoding with every rule checked, and encoding.

use core::fmt;

use binfmt_core::le::{I32, I64};
use binfmt_core::{Kind, Version, VersionPolicy, bytes, field_offset, magic};
use zerocopy::IntoBytes;

use crate::checksum::Checksum;
use crate::error::{Error, ErrorKind, Result};
use crate::options::ReadOptions;
use crate::raw::{self, HEADER_SIZE, MAGIC, VERSION};

/// The largest uncompressed chunk c-blosc 1.x handles: 2^31 - 1 - 16 bytes.
pub const MAX_CHUNK_SIZE: u32 = 2_147_483_631;

/// `blpk` and version 3 as the low five bytes of a little-endian word.
const MAGIC_V3: u64 = 0x03_6b_70_6c_62;

/// What `binfmt_core`'s version checks call this format.
const WHAT: &str = "Bloscpack file";

const VERSION_AT: u64 = field_offset!(raw::Header, version);
const OPTIONS_AT: u64 = field_offset!(raw::Header, options);
const CHECKSUM_AT: u64 = field_offset!(raw::Header, checksum);
const CHUNK_SIZE_AT: u64 = field_offset!(raw::Header, chunk_size);
const LAST_CHUNK_AT: u64 = field_offset!(raw::Header, last_chunk);
const NCHUNKS_AT: u64 = field_offset!(raw::Header, nchunks);
const MAX_APP_AT: u64 = field_offset!(raw::Header, max_app_chunks);

const fn policy(options: &ReadOptions) -> VersionPolicy {
    VersionPolicy {
        what: WHAT,
        current: VERSION,
        oldest_major: if options.get_accept_version_2() { 2 } else { 3 },
    }
}

/// The option bits of the header (byte 5).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Options(u8);

impl Options {
    /// 0x01: an offsets section follows the header (and the metadata section).
    pub const OFFSETS: Options = Options(0x01);
    /// 0x02: a metadata section follows the header (format 3 only).
    pub const METADATA: Options = Options(0x02);
    /// No section.
    pub const NONE: Options = Options(0);

    /// The raw byte.
    #[must_use]
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Options from a raw byte, keeping undefined bits (the header parser rejects them).
    #[must_use]
    pub const fn from_bits_retain(bits: u8) -> Options {
        Options(bits)
    }

    /// True when every bit of `other` is set.
    #[must_use]
    pub const fn contains(self, other: Options) -> bool {
        self.0 & other.0 == other.0
    }

    /// Both sets of bits.
    #[must_use]
    pub const fn union(self, other: Options) -> Options {
        Options(self.0 | other.0)
    }
}

impl core::ops::BitOr for Options {
    type Output = Options;
    fn bitor(self, rhs: Options) -> Options {
        self.union(rhs)
    }
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Options({:#04x}", self.0)?;
        if self.contains(Options::OFFSETS) {
            f.write_str(" offsets")?;
        }
        if self.contains(Options::METADATA) {
            f.write_str(" metadata")?;
        }
        f.write_str(")")
    }
}

/// A decoded, validated file header.
///
/// Sizes and counts that the file marks unknown (-1) are `None`. A `Header` always
/// satisfies every rule of the format: it can only be made by [`Header::parse`],
/// [`Header::from_raw`] or [`Header::new`], which check them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Header {
    version: u8,
    options: Options,
    checksum: Checksum,
    typesize: u8,
    chunk_size: i32,
    last_chunk: i32,
    nchunks: i64,
    max_app_chunks: i64,
}

/// The fields of a format 3 header, for [`Header::new`]. `None` writes -1 (unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct HeaderFields {
    /// Option bits.
    pub options: Options,
    /// The chunk digest kind.
    pub checksum: Checksum,
    /// The element size.
    pub typesize: u8,
    /// Uncompressed bytes per chunk.
    pub chunk_size: Option<u32>,
    /// Uncompressed bytes in the last chunk.
    pub last_chunk: Option<u32>,
    /// The chunk count.
    pub nchunks: Option<u64>,
    /// Spare offset slots.
    pub max_app_chunks: u64,
}

impl Header {
    /// Decodes and validates the header at the start of `data` (format 2 or 3).
    ///
    /// # Errors
    /// [`ErrorKind::Layout`] when `data` is shorter than 32 bytes, does not start with
    /// `blpk`, or has a version other than 2 or 3; the specific variants for every
    /// other rule (see [`Header::from_raw`]).
    #[inline]
    pub fn parse(data: &[u8]) -> Result<Header> {
        Self::parse_with(data, &ReadOptions::new())
    }

    /// [`Header::parse`] with explicit [`ReadOptions`].
    ///
    /// # Errors
    /// As for [`Header::parse`].
    #[inline]
    pub fn parse_with(data: &[u8], options: &ReadOptions) -> Result<Header> {
        let raw: &raw::Header = bytes::read(data, 0, "header")?;
        Header::from_raw(raw, options)
    }

    /// Validates a raw header.
    ///
    /// Rules: magic `blpk`; version 3 (or 2 when `options` allow it); option bits
    /// defined for that version; checksum id 0..=8; `chunk_size` and `last_chunk` in
    /// -1..=2147483631 and `last_chunk <= chunk_size` when both are known; `nchunks` -1 or
    /// at least 1; only an empty file (one chunk) has `chunk_size` 0, and only it has an
    /// empty last chunk; `max_app_chunks` >= 0, 0 when `nchunks` is unknown (and
    /// reserved, so 0, in format 2); `nchunks + max_app_chunks` fits an `i64`; an offsets
    /// section needs a known `nchunks`; the total uncompressed size fits a `u64`.
    ///
    /// # Errors
    /// The [`ErrorKind`] naming the first rule broken, at the field's offset.
    #[inline]
    pub fn from_raw(raw: &raw::Header, options: &ReadOptions) -> Result<Header> {
        match Header::fast(raw) {
            Some(header) => Ok(header),
            None => Header::checked(raw, options),
        }
    }

    /// The common case in seven branch-free comparisons: a format 3 header with every
    /// size known and non-zero, `nchunks` at most 2^32 and `max_app_chunks` below 2^62
    /// (so that neither the total size nor `nchunks + max_app_chunks` can overflow).
    /// Such a header breaks no rule if these hold. `None` sends the header to
    /// [`Header::checked`], which either accepts it (format 2, unknown sizes, the empty
    /// file, huge counts) or names the rule it breaks.
    #[inline(always)]
    fn fast(raw: &raw::Header) -> Option<Header> {
        // Bytes 0..8 as one word: magic, version, options, checksum, typesize.
        let mut head = [0u8; 8];
        head.copy_from_slice(zerocopy::IntoBytes::as_bytes(raw).get(..8)?);
        let head = u64::from_le_bytes(head);
        // The fields' bits as unsigned numbers: -1 becomes the maximum, so one unsigned
        // comparison checks both ends of a range.
        let (cs, lc) = (
            u32::from_le_bytes(raw.chunk_size.to_bytes()),
            u32::from_le_bytes(raw.last_chunk.to_bytes()),
        );
        let (n, app) = (
            u64::from_le_bytes(raw.nchunks.to_bytes()),
            u64::from_le_bytes(raw.max_app_chunks.to_bytes()),
        );
        let ok = (head & 0xff_ffff_ffff == MAGIC_V3)
            & ((head >> 40) & 0xff <= 0x03)
            & ((head >> 48) & 0xff <= 8)
            & (cs.wrapping_sub(1) < MAX_CHUNK_SIZE)
            & (lc.wrapping_sub(1) < cs)
            & (n.wrapping_sub(1) < 1 << 32)
            & (app < 1 << 62);
        if !ok {
            return None;
        }
        Some(Header {
            version: raw.version,
            options: Options(raw.options),
            checksum: Checksum::from_id(raw.checksum)?,
            typesize: raw.typesize,
            chunk_size: raw.chunk_size.get(),
            last_chunk: raw.last_chunk.get(),
            nchunks: raw.nchunks.get(),
            max_app_chunks: raw.max_app_chunks.get(),
        })
    }

    /// Every rule, one after the other, naming the first one broken.
    #[cold]
    #[inline(never)]
    fn checked(raw: &raw::Header, options: &ReadOptions) -> Result<Header> {
        if raw.magic != MAGIC {
            magic::check(&raw.magic, 0, MAGIC, WHAT)?;
        }
        let version = raw.version;
        if u16::from(version) != VERSION.major {
            policy(options).check(Version::new(u16::from(version), 0), VERSION_AT)?;
        }
        let defined = if version == 2 { 0x01 } else { 0x03 };
        if raw.options & !defined != 0 {
            return Err(ErrorKind::UndefinedOptions {
                options: raw.options,
                version,
                defined,
            }
            .at(OPTIONS_AT));
        }
        let Some(checksum) = Checksum::from_id(raw.checksum) else {
            return Err(ErrorKind::UnknownChecksum { id: raw.checksum }.at(CHECKSUM_AT));
        };
        let header = Header {
            version,
            options: Options(raw.options),
            checksum,
            typesize: raw.typesize,
            chunk_size: raw.chunk_size.get(),
            last_chunk: raw.last_chunk.get(),
            nchunks: raw.nchunks.get(),
            max_app_chunks: raw.max_app_chunks.get(),
        };
        header.check_sizes()?;
        Ok(header)
    }

    /// The size rules, kept apart so that the common path above stays short.
    #[inline]
    fn check_sizes(&self) -> Result<()> {
        let (cs, lc, n, app) = (
            self.chunk_size,
            self.last_chunk,
            self.nchunks,
            self.max_app_chunks,
        );
        let max = i32::try_from(MAX_CHUNK_SIZE).unwrap_or(i32::MAX);
        for (at, field, value) in [
            (CHUNK_SIZE_AT, "chunk_size", cs),
            (LAST_CHUNK_AT, "last_chunk", lc),
        ] {
            if !(-1..=max).contains(&value) {
                return Err(out_of_range(at, field, value.into(), max.into()));
            }
        }
        if n < -1 {
            return Err(out_of_range(NCHUNKS_AT, "nchunks", n, i64::MAX));
        }
        if self.version == 2 && app != 0 {
            return Err(ErrorKind::FieldOutOfRange {
                field: "reserved bytes 24..32 (format 2)",
                value: app,
                min: 0,
                max: 0,
            }
            .at(MAX_APP_AT));
        }
        if app < 0 {
            return Err(ErrorKind::FieldOutOfRange {
                field: "max_app_chunks",
                value: app,
                min: 0,
                max: i64::MAX,
            }
            .at(MAX_APP_AT));
        }
        if cs >= 0 && lc > cs {
            return Err(ErrorKind::LastChunkTooLarge {
                last_chunk: lc.unsigned_abs(),
                chunk_size: cs.unsigned_abs(),
            }
            .at(LAST_CHUNK_AT));
        }
        let inconsistent = |offset, reason| {
            ErrorKind::InconsistentSizes {
                chunk_size: cs.into(),
                last_chunk: lc.into(),
                nchunks: n,
                reason,
            }
            .at(offset)
        };
        if n == 0 {
            return Err(inconsistent(
                NCHUNKS_AT,
                "a file holds at least one chunk (empty input is stored as one empty chunk)",
            ));
        }
        if cs == 0 && n > 1 {
            return Err(inconsistent(
                CHUNK_SIZE_AT,
                "chunks of 0 bytes: only an empty file, with one chunk, has chunk_size 0",
            ));
        }
        if lc == 0 && cs > 0 {
            return Err(inconsistent(
                LAST_CHUNK_AT,
                "the last chunk is empty but chunks are not: only an empty file has an empty chunk",
            ));
        }
        let slots = |reason| {
            ErrorKind::BadAppendSlots {
                nchunks: n,
                max_app_chunks: app,
                reason,
            }
            .at(MAX_APP_AT)
        };
        if n == -1 && app != 0 {
            return Err(slots("spare slots need a known nchunks"));
        }
        if n.checked_add(app).is_none() {
            return Err(slots("their sum does not fit a signed 64-bit integer"));
        }
        if n == -1 && self.options.contains(Options::OFFSETS) {
            return Err(slots("an offsets section needs a known nchunks"));
        }
        if cs > 0 && lc > 0 && n > 0 && self.total(cs, lc, n).is_none() {
            return Err(binfmt_core::Error::overflow("uncompressed size", CHUNK_SIZE_AT).into());
        }
        Ok(())
    }

    fn total(&self, cs: i32, lc: i32, n: i64) -> Option<u64> {
        let full = u64::try_from(n).ok()?.checked_sub(1)?;
        full.checked_mul(u64::from(cs.unsigned_abs()))?
            .checked_add(u64::from(lc.unsigned_abs()))
    }

    /// Makes a format 3 header, checking every rule of [`Header::from_raw`].
    ///
    /// # Errors
    /// [`ErrorKind::ArgumentOutOfRange`] for a size or count that does not fit its field,
    /// otherwise as for [`Header::from_raw`].
    pub fn new(fields: HeaderFields) -> Result<Header> {
        let size = |what, v: Option<u32>| -> Result<i32> {
            v.map_or(Ok(-1), |v| {
                i32::try_from(v)
                    .ok()
                    .filter(|v| v.unsigned_abs() <= MAX_CHUNK_SIZE)
                    .ok_or_else(|| {
                        ErrorKind::ArgumentOutOfRange {
                            what,
                            value: v.into(),
                            min: 0,
                            max: MAX_CHUNK_SIZE.into(),
                        }
                        .unlocated()
                    })
            })
        };
        let count = |what, v: u64| -> Result<i64> {
            i64::try_from(v).map_err(|_| {
                ErrorKind::ArgumentOutOfRange {
                    what,
                    value: v,
                    min: 0,
                    max: i64::MAX.unsigned_abs(),
                }
                .unlocated()
            })
        };
        let raw = raw::Header {
            magic: *b"blpk",
            version: 3,
            options: fields.options.bits(),
            checksum: fields.checksum.id(),
            typesize: fields.typesize,
            chunk_size: I32::new(size("chunk_size", fields.chunk_size)?),
            last_chunk: I32::new(size("last_chunk", fields.last_chunk)?),
            nchunks: I64::new(match fields.nchunks {
                Some(n) => count("nchunks", n)?,
                None => -1,
            }),
            max_app_chunks: I64::new(count("max_app_chunks", fields.max_app_chunks)?),
        };
        Header::from_raw(&raw, &ReadOptions::new())
    }

    /// The header as stored.
    #[must_use]
    pub fn to_raw(&self) -> raw::Header {
        raw::Header {
            magic: *b"blpk",
            version: self.version,
            options: self.options.bits(),
            checksum: self.checksum.id(),
            typesize: self.typesize,
            chunk_size: I32::new(self.chunk_size),
            last_chunk: I32::new(self.last_chunk),
            nchunks: I64::new(self.nchunks),
            max_app_chunks: I64::new(self.max_app_chunks),
        }
    }

    /// The 32 bytes of the header.
    #[must_use]
    pub fn to_bytes(&self) -> [u8; HEADER_SIZE] {
        let mut out = [0u8; HEADER_SIZE];
        // The raw struct is exactly HEADER_SIZE bytes: the copy always succeeds.
        let _ = self.to_raw().write_to(&mut out);
        out
    }

    /// The format version: 3, or 2 for a file from bloscpack 0.2.
    #[must_use]
    pub const fn version(&self) -> u8 {
        self.version
    }

    /// The option bits.
    #[must_use]
    pub const fn options(&self) -> Options {
        self.options
    }

    /// True when the file has an offsets section.
    #[must_use]
    pub const fn has_offsets(&self) -> bool {
        self.options.contains(Options::OFFSETS)
    }

    /// True when the file has a metadata section.
    #[must_use]
    pub const fn has_metadata(&self) -> bool {
        self.options.contains(Options::METADATA)
    }

    /// The kind of digest stored after each chunk.
    #[must_use]
    pub const fn checksum(&self) -> Checksum {
        self.checksum
    }

    /// The element size of the data.
    #[must_use]
    pub const fn typesize(&self) -> u8 {
        self.typesize
    }

    /// Uncompressed bytes per chunk, unless unknown.
    #[must_use]
    pub const fn chunk_size(&self) -> Option<u32> {
        known32(self.chunk_size)
    }

    /// Uncompressed bytes in the last chunk, unless unknown.
    #[must_use]
    pub const fn last_chunk(&self) -> Option<u32> {
        known32(self.last_chunk)
    }

    /// The number of chunks, unless unknown.
    #[must_use]
    pub const fn nchunks(&self) -> Option<u64> {
        if self.nchunks < 0 {
            None
        } else {
            Some(self.nchunks.unsigned_abs())
        }
    }

    /// Spare offset slots left for appending chunks.
    #[must_use]
    pub const fn max_app_chunks(&self) -> u64 {
        self.max_app_chunks.unsigned_abs()
    }

    /// The raw `chunk_size` field (-1 = unknown).
    #[must_use]
    pub const fn raw_chunk_size(&self) -> i32 {
        self.chunk_size
    }

    /// The raw `last_chunk` field (-1 = unknown).
    #[must_use]
    pub const fn raw_last_chunk(&self) -> i32 {
        self.last_chunk
    }

    /// The raw `nchunks` field (-1 = unknown).
    #[must_use]
    pub const fn raw_nchunks(&self) -> i64 {
        self.nchunks
    }

    /// The number of entries in the offsets section (used and spare), or 0 without one.
    #[must_use]
    pub const fn offsets_len(&self) -> u64 {
        if self.has_offsets() {
            // Validated: nchunks >= 1 with offsets, and the sum fits.
            self.nchunks.unsigned_abs() + self.max_app_chunks.unsigned_abs()
        } else {
            0
        }
    }

    /// The total uncompressed size, `chunk_size * (nchunks - 1) + last_chunk`, when all
    /// three are known.
    #[must_use]
    pub fn uncompressed_len(&self) -> Option<u64> {
        if self.chunk_size < 0 || self.last_chunk < 0 || self.nchunks < 1 {
            return None;
        }
        self.total(self.chunk_size, self.last_chunk, self.nchunks)
    }
}

const fn known32(v: i32) -> Option<u32> {
    if v < 0 { None } else { Some(v.unsigned_abs()) }
}

fn out_of_range(offset: u64, field: &'static str, value: i64, max: i64) -> Error {
    ErrorKind::FieldOutOfRange {
        field,
        value,
        min: -1,
        max,
    }
    .at(offset)
}

#[cfg(test)]
#[allow(clippy::cast_possible_truncation)]
mod tests {
    use super::*;

    /// The all-unknown header of the reference document's test vector.
    const UNKNOWN: [u8; 32] = [
        0x62, 0x6c, 0x70, 0x6b, 0x03, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0,
    ];

    fn split(e: Error) -> (Option<u64>, ErrorKind) {
        (e.offset(), e.into_kind())
    }

    fn with(f: impl FnOnce(&mut raw::Header)) -> Result<Header> {
        let mut raw = *bytes::read::<raw::Header>(&UNKNOWN, 0, "h").unwrap();
        f(&mut raw);
        Header::from_raw(&raw, &ReadOptions::new())
    }

    #[test]
    fn the_fast_path_never_accepts_what_the_rules_refuse() {
        let mut state = 0x243f_6a88_85a3_08d3u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let interesting = [
            -2i64,
            -1,
            0,
            1,
            2,
            7,
            4096,
            2_147_483_631,
            2_147_483_632,
            i64::MAX,
        ];
        let mut accepted = 0;
        for _ in 0..200_000 {
            let pick = |r: u64| interesting[(r % interesting.len() as u64) as usize];
            let mut raw = *bytes::read::<raw::Header>(&UNKNOWN, 0, "h").unwrap();
            let r = next();
            raw.version = [2, 3, 3, 3, 4][(r % 5) as usize];
            raw.options = ((r >> 8) % 5) as u8;
            raw.checksum = ((r >> 16) % 10) as u8;
            raw.chunk_size = I32::new(pick(next()).clamp(i32::MIN.into(), i32::MAX.into()) as i32);
            raw.last_chunk = I32::new(pick(next()).clamp(i32::MIN.into(), i32::MAX.into()) as i32);
            raw.nchunks = I64::new(pick(next()));
            raw.max_app_chunks = I64::new(pick(next()));
            if let Some(fast) = Header::fast(&raw) {
                accepted += 1;
                assert_eq!(
                    Header::checked(&raw, &ReadOptions::new()).unwrap(),
                    fast,
                    "{raw:?}"
                );
            }
        }
        assert!(accepted > 1000);
    }

    #[test]
    fn unknown_vector_round_trips() {
        let h = Header::parse(&UNKNOWN).unwrap();
        assert_eq!(h.chunk_size(), None);
        assert_eq!(h.nchunks(), None);
        assert_eq!(h.uncompressed_len(), None);
        assert_eq!(h.to_bytes(), UNKNOWN);
        assert_eq!(
            Header::new(HeaderFields {
                checksum: Checksum::None,
                ..HeaderFields::default()
            })
            .unwrap()
            .to_bytes(),
            UNKNOWN
        );
    }

    #[test]
    fn every_rule() {
        let ok = |f: fn(&mut raw::Header)| with(f).unwrap();
        let err = |f: fn(&mut raw::Header)| split(with(f).unwrap_err());
        assert!(matches!(
            err(|r| r.magic = *b"blpx"),
            (_, ErrorKind::Layout(binfmt_core::Layout::BadMagic { .. }))
        ));
        assert!(matches!(
            err(|r| r.version = 4),
            (
                _,
                ErrorKind::Layout(binfmt_core::Layout::VersionTooNew { .. })
            )
        ));
        assert!(matches!(
            err(|r| r.version = 1),
            (
                _,
                ErrorKind::Layout(binfmt_core::Layout::VersionTooOld { .. })
            )
        ));
        assert_eq!(ok(|r| r.version = 2).version(), 2);
        assert!(matches!(
            err(|r| {
                r.version = 2;
                r.options = 2
            }),
            (_, ErrorKind::UndefinedOptions { defined: 1, .. })
        ));
        assert!(matches!(
            err(|r| {
                r.version = 2;
                r.nchunks = I64::new(3);
                r.max_app_chunks = I64::new(1)
            }),
            (Some(24), ErrorKind::FieldOutOfRange { .. })
        ));
        assert!(matches!(
            err(|r| r.options = 0x05),
            (_, ErrorKind::UndefinedOptions { options: 5, .. })
        ));
        assert!(matches!(
            err(|r| r.checksum = 9),
            (_, ErrorKind::UnknownChecksum { id: 9, .. })
        ));
        assert!(matches!(
            err(|r| r.chunk_size = I32::new(-2)),
            (Some(8), ErrorKind::FieldOutOfRange { .. })
        ));
        assert!(matches!(
            err(|r| r.chunk_size = I32::new(i32::MAX)),
            (Some(8), ErrorKind::FieldOutOfRange { .. })
        ));
        assert!(matches!(
            err(|r| r.last_chunk = I32::new(-7)),
            (Some(12), ErrorKind::FieldOutOfRange { .. })
        ));
        assert!(matches!(
            err(|r| r.nchunks = I64::new(-2)),
            (Some(16), ErrorKind::FieldOutOfRange { .. })
        ));
        assert!(matches!(
            err(|r| {
                r.nchunks = I64::new(1);
                r.max_app_chunks = I64::new(-1)
            }),
            (Some(24), ErrorKind::FieldOutOfRange { .. })
        ));
        assert!(matches!(
            err(|r| {
                r.chunk_size = I32::new(4);
                r.last_chunk = I32::new(5)
            }),
            (_, ErrorKind::LastChunkTooLarge { .. })
        ));
        assert!(matches!(
            err(|r| r.nchunks = I64::new(0)),
            (Some(16), ErrorKind::InconsistentSizes { .. })
        ));
        assert!(matches!(
            err(|r| {
                r.chunk_size = I32::new(0);
                r.nchunks = I64::new(2)
            }),
            (Some(8), ErrorKind::InconsistentSizes { .. })
        ));
        assert!(matches!(
            err(|r| {
                r.chunk_size = I32::new(8);
                r.last_chunk = I32::new(0)
            }),
            (Some(12), ErrorKind::InconsistentSizes { .. })
        ));
        assert!(matches!(
            err(|r| r.max_app_chunks = I64::new(1)),
            (_, ErrorKind::BadAppendSlots { .. })
        ));
        assert!(matches!(
            err(|r| {
                r.nchunks = I64::new(i64::MAX);
                r.max_app_chunks = I64::new(1)
            }),
            (_, ErrorKind::BadAppendSlots { .. })
        ));
        assert!(matches!(
            err(|r| r.options = 1),
            (_, ErrorKind::BadAppendSlots { .. })
        ));
        assert!(matches!(
            err(|r| {
                r.chunk_size = I32::new(1 << 30);
                r.last_chunk = I32::new(1);
                r.nchunks = I64::new(i64::MAX)
            }),
            (_, ErrorKind::Layout(binfmt_core::Layout::Overflow { .. }))
        ));
        let empty = ok(|r| {
            r.chunk_size = I32::new(0);
            r.last_chunk = I32::new(0);
            r.nchunks = I64::new(1)
        });
        assert_eq!(empty.uncompressed_len(), Some(0));
        let h = ok(|r| {
            r.options = 1;
            r.chunk_size = I32::new(32768);
            r.last_chunk = I32::new(1696);
            r.nchunks = I64::new(4);
            r.max_app_chunks = I64::new(40)
        });
        assert_eq!(h.uncompressed_len(), Some(100_000));
        assert_eq!(h.offsets_len(), 44);
        assert!(matches!(
            Header::parse_with(
                &{
                    let mut b = UNKNOWN;
                    b[4] = 2;
                    b
                },
                &ReadOptions::BLOSCPACK
            ),
            Err(e) if matches!(e.kind(), ErrorKind::Layout(binfmt_core::Layout::VersionTooOld { .. }))
        ));
        assert!(matches!(
            Header::parse(&UNKNOWN[..31]),
            Err(e) if matches!(e.kind(), ErrorKind::Layout(binfmt_core::Layout::Truncated { .. }))
        ));
    }
}
