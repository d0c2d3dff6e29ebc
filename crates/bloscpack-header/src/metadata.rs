//! The metadata section: a 32-byte header, the stored (raw or zlib) JSON, padding, digest.

#[cfg(feature = "alloc")]
use alloc::{borrow::Cow, vec::Vec};

use binfmt_core::bytes::to_u64;
use binfmt_core::data::Data;
use binfmt_core::{Found, Kind, bytes, field_offset};

use crate::checksum::Checksum;
use crate::error::{Error, ErrorKind, Result};
use crate::options::ReadOptions;
use crate::raw::{self, METADATA_HEADER_SIZE};

/// The only serializer bloscpack defines, NUL-padded to 8 bytes.
pub const JSON_FORMAT: [u8; 8] = *b"JSON\0\0\0\0";

const HEAD: u64 = to_u64(METADATA_HEADER_SIZE);
const OPTIONS_AT: u64 = field_offset!(raw::MetadataHeader, meta_options);
const CHECKSUM_AT: u64 = field_offset!(raw::MetadataHeader, meta_checksum);
const CODEC_AT: u64 = field_offset!(raw::MetadataHeader, meta_codec);
const LEVEL_AT: u64 = field_offset!(raw::MetadataHeader, meta_level);
const SIZE_AT: u64 = field_offset!(raw::MetadataHeader, meta_size);
const COMP_SIZE_AT: u64 = field_offset!(raw::MetadataHeader, meta_comp_size);

/// How the metadata is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum MetaCodec {
    /// Stored as is (0).
    None,
    /// A zlib stream (1), bloscpack's default.
    #[default]
    Zlib,
}

impl MetaCodec {
    /// The codec with id `id`, if defined.
    #[must_use]
    pub const fn from_id(id: u8) -> Option<MetaCodec> {
        match id {
            0 => Some(MetaCodec::None),
            1 => Some(MetaCodec::Zlib),
            _ => None,
        }
    }

    /// The id stored in the file.
    #[must_use]
    pub const fn id(self) -> u8 {
        match self {
            MetaCodec::None => 0,
            MetaCodec::Zlib => 1,
        }
    }

    /// `"None"` or `"zlib"`, as bloscpack names them.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            MetaCodec::None => "None",
            MetaCodec::Zlib => "zlib",
        }
    }
}

/// A validated metadata section, borrowed from the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetadataSection<'a> {
    offset: u64,
    header: &'a raw::MetadataHeader,
    checksum: Checksum,
    codec: MetaCodec,
    stored: &'a [u8],
    digest: &'a [u8],
}

impl<'a> MetadataSection<'a> {
    /// Parses and validates the section starting at `offset` of `data`.
    ///
    /// Checks the header's fields and that the whole section (header, reserved space,
    /// digest) lies inside `data`. It does not check the digest: see
    /// [`verify`](Self::verify).
    ///
    /// # Errors
    /// [`ErrorKind::Layout`] when the section is truncated,
    /// [`ErrorKind::UnknownMetadataFormat`], [`ErrorKind::BadMetadataField`],
    /// [`ErrorKind::MetadataOverflowsSection`] or [`ErrorKind::RawMetadataSize`] for a
    /// header that breaks a rule.
    pub fn parse(data: &'a [u8], offset: u64) -> Result<MetadataSection<'a>> {
        Self::parse_in(data, offset)
    }

    /// [`MetadataSection::parse`] over any [`Data`]: the same rules, the same errors.
    pub(crate) fn parse_in<D: Data<'a>>(data: D, offset: u64) -> Result<MetadataSection<'a>>
    where
        Error: From<D::Error>,
    {
        let header: &raw::MetadataHeader = data.read(offset, "metadata header")?;
        let at = |delta: u64| offset.saturating_add(delta);
        let bad = |field, value, allowed, delta| {
            ErrorKind::BadMetadataField {
                field,
                value,
                allowed,
            }
            .at(at(delta))
        };
        if header.magic_format != JSON_FORMAT {
            return Err(ErrorKind::UnknownMetadataFormat {
                found: Found::new(&header.magic_format),
            }
            .at(offset));
        }
        if header.meta_options != 0 {
            return Err(bad("meta_options", header.meta_options, "0", OPTIONS_AT));
        }
        let checksum = Checksum::from_id(header.meta_checksum)
            .ok_or_else(|| bad("meta_checksum", header.meta_checksum, "0..=8", CHECKSUM_AT))?;
        let codec = MetaCodec::from_id(header.meta_codec).ok_or_else(|| {
            bad(
                "meta_codec",
                header.meta_codec,
                "0 (none) or 1 (zlib)",
                CODEC_AT,
            )
        })?;
        if header.meta_level > 9 {
            return Err(bad("meta_level", header.meta_level, "0..=9", LEVEL_AT));
        }
        let (size, max, comp) = (
            header.meta_size.get(),
            header.max_meta_size.get(),
            header.meta_comp_size.get(),
        );
        if comp > max {
            return Err(ErrorKind::MetadataOverflowsSection {
                meta_comp_size: comp,
                max_meta_size: max,
            }
            .at(at(COMP_SIZE_AT)));
        }
        if codec == MetaCodec::None && comp != size {
            return Err(ErrorKind::RawMetadataSize {
                meta_size: size,
                meta_comp_size: comp,
            }
            .at(at(SIZE_AT)));
        }
        let body = at(HEAD);
        let stored = data.bytes(body, comp.into(), "metadata")?;
        let digest_at = bytes::end(body, max.into(), "metadata digest")?;
        let digest = data.bytes(digest_at, checksum.size_u64(), "metadata digest")?;
        Ok(MetadataSection {
            offset,
            header,
            checksum,
            codec,
            stored,
            digest,
        })
    }

    /// Where the section starts (32).
    #[must_use]
    pub const fn offset(&self) -> u64 {
        self.offset
    }

    /// The section's whole length: 32 + `max_meta_size` + the digest.
    #[must_use]
    pub fn len(&self) -> u64 {
        HEAD + u64::from(self.max_meta_size()) + self.checksum.size_u64()
    }

    /// Never true: the section has at least its 32-byte header.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        false
    }

    /// The raw section header.
    #[must_use]
    pub const fn raw(&self) -> &'a raw::MetadataHeader {
        self.header
    }

    /// The serializer's name, without its NUL padding (`b"JSON"`).
    #[must_use]
    pub fn format(&self) -> &'a [u8] {
        let magic = &self.header.magic_format;
        let end = magic.iter().position(|&b| b == 0).unwrap_or(magic.len());
        magic.get(..end).unwrap_or(&[])
    }

    /// The digest kind of the metadata.
    #[must_use]
    pub const fn checksum(&self) -> Checksum {
        self.checksum
    }

    /// How the metadata is stored.
    #[must_use]
    pub const fn codec(&self) -> MetaCodec {
        self.codec
    }

    /// The zlib level recorded (bloscpack leaves 6 here even when it stores raw).
    #[must_use]
    pub const fn level(&self) -> u8 {
        self.header.meta_level
    }

    binfmt_core::le_getters! { header =>
        /// The serialized (uncompressed) length.
        pub fn meta_size -> u32;
        /// The space reserved for the stored metadata.
        pub fn max_meta_size -> u32;
        /// The stored length.
        pub fn meta_comp_size -> u32;
    }

    /// The stored bytes (compressed when [`codec`](Self::codec) is zlib).
    #[must_use]
    pub const fn stored(&self) -> &'a [u8] {
        self.stored
    }

    /// The stored digest.
    #[must_use]
    pub const fn digest(&self) -> &'a [u8] {
        self.digest
    }

    /// Where the digest is.
    #[must_use]
    pub fn digest_offset(&self) -> u64 {
        self.stored_offset() + u64::from(self.max_meta_size())
    }

    /// Where the stored bytes start (right after the section's header).
    #[must_use]
    pub const fn stored_offset(&self) -> u64 {
        self.offset.saturating_add(HEAD)
    }

    /// Checks the digest of the stored bytes.
    ///
    /// # Errors
    /// [`ErrorKind::MetadataDigestMismatch`].
    pub fn verify(&self) -> Result<()> {
        if self.checksum.matches(self.stored, self.digest) {
            Ok(())
        } else {
            Err(ErrorKind::MetadataDigestMismatch {
                checksum: self.checksum,
                data_offset: self.stored_offset(),
                stored_len: self.meta_comp_size(),
            }
            .at(self.digest_offset()))
        }
    }

    /// Checks `meta_size` against the reader's limit, before anything is inflated.
    ///
    /// # Errors
    /// [`ErrorKind::MetadataLimit`] at `meta_size`.
    pub fn check_limit(&self, options: &ReadOptions) -> Result<()> {
        if u64::from(self.meta_size()) > options.get_max_metadata_size() {
            return Err(ErrorKind::MetadataLimit {
                meta_size: self.meta_size(),
                limit: options.get_max_metadata_size(),
            }
            .at(self.offset.saturating_add(SIZE_AT)));
        }
        Ok(())
    }

    /// Verifies the digest, decodes the metadata into `out` and returns its text.
    ///
    /// `out` must hold at least [`meta_size`](Self::meta_size) bytes. Needs no
    /// allocation: zlib streams are inflated straight into `out`.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidArgument`] when `out` is too small, otherwise as for
    /// [`text`](Self::text).
    pub fn decode_into<'b>(&self, out: &'b mut [u8]) -> Result<&'b str> {
        self.verify()?;
        let size = usize::try_from(self.meta_size()).unwrap_or(usize::MAX);
        let out = out.get_mut(..size).ok_or_else(|| {
            ErrorKind::InvalidArgument {
                what: "output buffer",
                reason: "it is smaller than meta_size",
            }
            .unlocated()
        })?;
        match self.codec {
            MetaCodec::None => out.copy_from_slice(self.stored),
            MetaCodec::Zlib => self.inflate_into(out)?,
        }
        self.utf8(out)
    }

    fn inflate_into(&self, out: &mut [u8]) -> Result<()> {
        use miniz_oxide::inflate::TINFLStatus;
        use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};
        let mut state = DecompressorOxide::new();
        let flags = inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER
            | inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
        let (status, _, written) = decompress(&mut state, self.stored, out, 0, flags);
        match status {
            TINFLStatus::Done if written == out.len() => Ok(()),
            TINFLStatus::Done => Err(self.bad_stream("the stream ends early")),
            TINFLStatus::HasMoreOutput => Err(self.bad_stream("the stream holds more")),
            TINFLStatus::Adler32Mismatch => Err(self.bad_stream("zlib's Adler-32 does not match")),
            _ => Err(self.bad_stream("the zlib stream is corrupt or truncated")),
        }
    }

    fn bad_stream(&self, reason: &'static str) -> Error {
        ErrorKind::BadMetadataStream {
            meta_size: self.meta_size(),
            reason,
        }
        .at(self.stored_offset())
    }

    fn utf8<'b>(&self, text: &'b [u8]) -> Result<&'b str> {
        core::str::from_utf8(text).map_err(|e| {
            ErrorKind::MetadataNotUtf8 {
                valid_up_to: e.valid_up_to(),
            }
            .at(self.stored_offset())
        })
    }

    /// Verifies the digest and returns the metadata's text (the JSON, verbatim),
    /// borrowed from the file when it is stored raw. The default [`ReadOptions`] limit
    /// the inflated size; see [`text_with`](Self::text_with).
    ///
    /// # Errors
    /// As for [`text_with`](Self::text_with).
    #[cfg(feature = "alloc")]
    pub fn text(&self) -> Result<Cow<'a, str>> {
        self.text_with(&ReadOptions::new())
    }

    /// [`text`](Self::text) under `options`: the digest is checked unless
    /// `options.checksums(false)`, and the inflated size is limited. A zlib stream is inflated
    /// into a buffer that grows as the stream produces bytes, up to `meta_size` (checked
    /// against the limit first), so a few bytes that claim gigabytes cost nothing.
    ///
    /// The text is returned as stored: numbers beyond 64 bits and Python's `NaN` and
    /// `Infinity` are left for the caller to interpret.
    ///
    /// # Errors
    /// [`ErrorKind::MetadataDigestMismatch`], [`ErrorKind::MetadataLimit`],
    /// [`ErrorKind::BadMetadataStream`] when the zlib stream is corrupt or does not
    /// inflate to exactly `meta_size` bytes, [`ErrorKind::MetadataNotUtf8`].
    #[cfg(feature = "alloc")]
    pub fn text_with(&self, options: &ReadOptions) -> Result<Cow<'a, str>> {
        if options.get_checksums() {
            self.verify()?;
        }
        self.check_limit(options)?;
        match self.codec {
            MetaCodec::None => self.utf8(self.stored).map(Cow::Borrowed),
            MetaCodec::Zlib => {
                let out = self.inflate()?;
                self.utf8(&out)?;
                Ok(Cow::Owned(
                    alloc::string::String::from_utf8(out).unwrap_or_default(),
                ))
            }
        }
    }

    /// Inflates the zlib stream into a `Vec` of exactly `meta_size` bytes, growing it as
    /// output arrives (never past `meta_size`).
    #[cfg(feature = "alloc")]
    fn inflate(&self) -> Result<Vec<u8>> {
        use miniz_oxide::inflate::TINFLStatus;
        use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};
        let size = usize::try_from(self.meta_size()).unwrap_or(usize::MAX);
        let flags = inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER
            | inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
        let mut state = DecompressorOxide::new();
        let mut out: Vec<u8> = Vec::new();
        let (mut read, mut written) = (0usize, 0usize);
        loop {
            if written == out.len() && out.len() < size {
                // Double (from a small start), but never beyond what meta_size declares.
                let grow = out.len().max(4096).min(size - out.len());
                out.try_reserve_exact(grow)
                    .map_err(|_| self.bad_stream("out of memory"))?;
                out.resize(out.len() + grow, 0);
            }
            let input = self.stored.get(read..).unwrap_or(&[]);
            let (status, in_used, out_used) =
                decompress(&mut state, input, &mut out, written, flags);
            read = read.saturating_add(in_used);
            written = written.saturating_add(out_used);
            match status {
                TINFLStatus::Done if written == size => return Ok(out),
                TINFLStatus::Done => return Err(self.bad_stream("the stream ends early")),
                TINFLStatus::HasMoreOutput if written < size => {}
                TINFLStatus::HasMoreOutput => return Err(self.bad_stream("the stream holds more")),
                TINFLStatus::Adler32Mismatch => {
                    return Err(self.bad_stream("zlib's Adler-32 does not match"));
                }
                _ => return Err(self.bad_stream("the zlib stream is corrupt or truncated")),
            }
        }
    }

    /// Decodes the text ([`text_with`](Self::text_with)) and checks that it is JSON as
    /// Python's `json` module writes it (bloscpack 0.16's `json.dumps` writes `NaN`,
    /// `Infinity` and `-Infinity` for non-finite floats, and reads them back).
    ///
    /// # Errors
    /// As for [`text_with`](Self::text_with), and [`ErrorKind::MetadataNotJson`].
    #[cfg(feature = "alloc")]
    pub fn json(&self, options: &ReadOptions) -> Result<Cow<'a, str>> {
        let text = self.text_with(options)?;
        binfmt_core::json::validate(&text, binfmt_core::json::Dialect::Python).map_err(|e| {
            ErrorKind::MetadataNotJson {
                reason: e.reason,
                at: e.at,
            }
            .at(self.stored_offset())
        })?;
        Ok(text)
    }
}

/// What to store in a metadata section: the serialized JSON and how to store it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg(feature = "alloc")]
pub struct Metadata {
    /// The serialized metadata (compact JSON, as bloscpack writes it).
    pub json: Vec<u8>,
    /// The digest kind (bloscpack's default: Adler-32).
    pub checksum: Checksum,
    /// How to store it (default: zlib, falling back to raw when that is smaller).
    pub codec: MetaCodec,
    /// The zlib level, 0..=9 (default 6).
    pub level: u8,
    /// The space to reserve; `None` reserves 10 × the serialized length, as bloscpack
    /// does, so that the metadata can grow in place.
    pub max_meta_size: Option<u32>,
}

#[cfg(feature = "alloc")]
impl Metadata {
    /// bloscpack's defaults for `json`: Adler-32, zlib level 6, 10 × room.
    #[must_use]
    pub fn new(json: impl Into<Vec<u8>>) -> Metadata {
        Metadata {
            json: json.into(),
            checksum: Checksum::Adler32,
            codec: MetaCodec::Zlib,
            level: 6,
            max_meta_size: None,
        }
    }

    /// Encodes the whole section (header, stored bytes, zero padding, digest).
    ///
    /// When zlib makes the metadata longer, it is stored raw; the header keeps the requested
    /// level, as bloscpack's does (readers ignore it).
    ///
    /// With the `blosc` feature the zlib stream is C zlib's, byte for byte what bloscpack
    /// writes (Python's `zlib.compress(json, level)`), so a packed file is the reference's.
    /// Without it, miniz_oxide deflates: a valid zlib stream that every reader inflates, but
    /// its bytes (and so the choice between zlib and raw) can differ from bloscpack's.
    ///
    /// # Errors
    /// [`ErrorKind::ArgumentOutOfRange`] for a level above 9 or metadata of 4 GiB or more,
    /// [`ErrorKind::MetadataTooLarge`] when the stored bytes exceed `max_meta_size`.
    pub fn encode(&self) -> Result<Vec<u8>> {
        use binfmt_core::le::U32;
        use zerocopy::IntoBytes;
        if self.level > 9 {
            return Err(ErrorKind::ArgumentOutOfRange {
                what: "metadata level",
                value: self.level.into(),
                min: 0,
                max: 9,
            }
            .unlocated());
        }
        let too_big = |n: usize| {
            ErrorKind::ArgumentOutOfRange {
                what: "metadata length",
                value: to_u64(n),
                min: 0,
                max: u32::MAX.into(),
            }
            .unlocated()
        };
        let meta_size = u32::try_from(self.json.len()).map_err(|_| too_big(self.json.len()))?;
        // bloscpack stores raw only when compressing made the metadata longer
        // (`if meta_size < meta_comp_size`): equal lengths keep zlib.
        let compressed = match self.codec {
            MetaCodec::Zlib => {
                Some(deflate(&self.json, self.level)?).filter(|c| c.len() <= self.json.len())
            }
            MetaCodec::None => None,
        };
        // The level is written as asked, also when the metadata is stored uncompressed
        // (asked so, or because compressing saved nothing): bloscpack 0.16 does that
        // (`nullify_codec` resets the codec only), and its files must be ours byte for byte.
        let (codec, stored): (MetaCodec, &[u8]) = match &compressed {
            Some(c) => (MetaCodec::Zlib, c),
            None => (MetaCodec::None, &self.json),
        };
        let level = self.level;
        let comp = u32::try_from(stored.len()).map_err(|_| too_big(stored.len()))?;
        let max = match self.max_meta_size {
            Some(max) => max,
            None => meta_size
                .checked_mul(10)
                .ok_or_else(|| too_big(self.json.len()))?,
        };
        if comp > max {
            return Err(ErrorKind::MetadataTooLarge {
                needed: comp.into(),
                max_meta_size: max.into(),
            }
            .unlocated());
        }
        let header = raw::MetadataHeader {
            magic_format: JSON_FORMAT,
            meta_options: 0,
            meta_checksum: self.checksum.id(),
            meta_codec: codec.id(),
            meta_level: level,
            meta_size: U32::new(meta_size),
            max_meta_size: U32::new(max),
            meta_comp_size: U32::new(comp),
            user_codec: [0; 8],
        };
        let digest = self.checksum.compute(stored);
        let padding = usize::try_from(max - comp).map_err(|_| too_big(usize::MAX))?;
        let mut out = Vec::new();
        out.try_reserve_exact(32 + stored.len() + padding + digest.as_bytes().len())
            .map_err(|_| {
                ErrorKind::OutOfMemory {
                    bytes: u64::from(max) + 96,
                }
                .unlocated()
            })?;
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(stored);
        out.resize(out.len() + padding, 0);
        out.extend_from_slice(digest.as_bytes());
        Ok(out)
    }
}

/// Deflates `data` into a zlib stream, byte for byte what Python's `zlib.compress(data,
/// level)` returns when Python links stock zlib (bloscpack's `metacodecs`).
///
/// One `deflate(Z_FINISH)` over the whole input, as CPython's `zlib.compress` makes, into
/// output blocks of CPython's sizes (3.10 and later: `BUFFER_BLOCK_SIZE` of its blocks
/// output buffer). Level 0's stored blocks end where an output block does, so there those
/// sizes are part of the bytes (CPython 3.9 and older grow their buffer otherwise, and
/// their level-0 streams of some 100 KiB and more differ; but level 0 never reaches a file,
/// its stream being longer than the text). Levels 1 to 9 do not depend on the blocks.
/// `data` is shorter than 4 GiB (`encode` checks), so zlib sees it all at once, as in
/// CPython.
#[cfg(feature = "blosc")]
fn deflate(data: &[u8], level: u8) -> Result<Vec<u8>> {
    use flate2::{Compress, Compression, FlushCompress, Status};
    const KB: usize = 1024;
    const MB: usize = 1024 * KB;
    const BLOCKS: [usize; 17] = [
        32 * KB,
        64 * KB,
        256 * KB,
        MB,
        4 * MB,
        8 * MB,
        16 * MB,
        16 * MB,
        32 * MB,
        32 * MB,
        32 * MB,
        32 * MB,
        64 * MB,
        64 * MB,
        128 * MB,
        128 * MB,
        256 * MB,
    ];
    let failed = || {
        ErrorKind::InvalidArgument {
            what: "metadata",
            reason: "zlib could not deflate it",
        }
        .unlocated()
    };
    // Python's `deflateInit2(level, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY)`.
    let mut z = Compress::new(Compression::new(level.into()), true);
    let mut out = Vec::new();
    for block in 0usize.. {
        let size = BLOCKS.get(block).or(BLOCKS.last()).copied().unwrap_or(MB);
        let start = out.len();
        out.try_reserve_exact(size).map_err(|_| {
            ErrorKind::OutOfMemory {
                bytes: to_u64(start.saturating_add(size)),
            }
            .unlocated()
        })?;
        out.resize(start + size, 0);
        let consumed = usize::try_from(z.total_in()).map_err(|_| failed())?;
        let (input, output) = data
            .get(consumed..)
            .zip(out.get_mut(start..))
            .ok_or_else(failed)?;
        let status = z
            .compress(input, output, FlushCompress::Finish)
            .map_err(|_| failed())?;
        let end = usize::try_from(z.total_out()).map_err(|_| failed())?;
        out.truncate(end);
        match status {
            Status::StreamEnd => return Ok(out),
            // zlib stopped because the block is full: CPython adds the next one.
            Status::Ok if end == start + size => {}
            Status::Ok | Status::BufError => return Err(failed()),
        }
    }
    Err(failed())
}

/// Deflates `data` with miniz_oxide (a valid zlib stream, not zlib's bytes); without
/// `blosc` there is no C zlib to call.
#[cfg(all(feature = "alloc", not(feature = "blosc")))]
fn deflate(data: &[u8], level: u8) -> Result<Vec<u8>> {
    Ok(miniz_oxide::deflate::compress_to_vec_zlib(data, level))
}

#[cfg(all(test, feature = "blosc"))]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

    use alloc::vec;
    use alloc::vec::Vec;

    /// The lengths of the stored blocks of a level-0 zlib stream.
    fn stored_blocks(z: &[u8]) -> Vec<usize> {
        let mut at = 2; // the zlib header
        let mut lens = Vec::new();
        loop {
            let len = usize::from(u16::from_le_bytes([z[at + 1], z[at + 2]]));
            lens.push(len);
            let last = z[at] & 1 == 1;
            at += 5 + len;
            if last {
                assert_eq!(at + 4, z.len(), "the Adler-32 ends the stream");
                return lens;
            }
        }
    }

    /// Level 0 is the one level whose bytes depend on the output buffer: its stored blocks
    /// end where CPython's output blocks do (32 KiB, 96 KiB, 352 KiB, 1376 KiB). The
    /// lengths are `zlib.compress(b'x' * n, 0)`'s on CPython 3.10 to 3.13 (zlib 1.2.13);
    /// tests/metadata_zlib.rs compares levels 1 to 9 with the reference itself.
    #[test]
    fn level_0_splits_its_stored_blocks_where_cpython_does() {
        const MIB_AND_HALF: [usize; 25] = [
            65_531, 32_773, 65_535, 65_535, 65_535, 65_507, 65_531, 65_535, 65_535, 65_535, 65_535,
            65_535, 65_535, 65_535, 65_535, 65_535, 65_535, 65_535, 65_535, 65_535, 65_535, 65_475,
            65_531, 65_535, 60_022,
        ];
        let cases: [(usize, &[usize]); 5] = [
            (0, &[0]),
            (40_000, &[40_000]),
            (98_304, &[65_531, 32_773]),
            (
                400_000,
                &[65_531, 32_773, 65_535, 65_535, 65_535, 65_507, 39_584],
            ),
            (1_600_000, &MIB_AND_HALF),
        ];
        for (n, want) in cases {
            let data = vec![b'x'; n];
            let z = super::deflate(&data, 0).unwrap();
            assert_eq!(stored_blocks(&z), want, "{n} bytes");
            assert_eq!(z[..2], [0x78, 0x01]);
            assert_eq!(
                miniz_oxide::inflate::decompress_to_vec_zlib(&z).unwrap(),
                data
            );
        }
    }
}
