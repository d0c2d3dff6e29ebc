//! Chunks: the 16-byte Blosc1 header that starts each one, and the chunk view.

use core::fmt;
use core::marker::PhantomData;

use binfmt_core::bytes::{self, to_u64};
use binfmt_core::data::Data;
use binfmt_core::{Kind, field_offset};

use crate::checksum::Checksum;
use crate::error::{Error, ErrorKind, Result};
use crate::header::MAX_CHUNK_SIZE;
use crate::raw;

/// c-blosc 1.21's `BLOSC_MAX_BLOCKSIZE`: `(INT_MAX - 255 * 4) / 3`.
pub const MAX_BLOCKSIZE: u32 = (i32::MAX.unsigned_abs() - 255 * 4) / 3;

const NBYTES_AT: u64 = field_offset!(raw::BloscHeader, nbytes);
const HEAD: u64 = to_u64(raw::BLOSC_HEADER_SIZE);

/// The Blosc format version of c-blosc 1.x buffers, the only one Bloscpack files hold.
pub const BLOSC_VERSION: u8 = 2;

/// The compressor that produced a chunk (bits 5..7 of its flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum Codec {
    /// Blosc's own LZ77 codec (0), bloscpack's default.
    #[default]
    BloscLz,
    /// LZ4 or LZ4HC (1): the stream format is the same.
    Lz4,
    /// Snappy (2).
    Snappy,
    /// zlib (3).
    Zlib,
    /// Zstandard (4).
    Zstd,
    /// A code c-blosc 1.x does not define (5..7).
    Unknown(u8),
}

impl Codec {
    /// The codec with format code `code` (0..=7).
    #[must_use]
    pub const fn from_code(code: u8) -> Codec {
        match code {
            0 => Codec::BloscLz,
            1 => Codec::Lz4,
            2 => Codec::Snappy,
            3 => Codec::Zlib,
            4 => Codec::Zstd,
            other => Codec::Unknown(other),
        }
    }

    /// The format code.
    #[must_use]
    pub const fn code(self) -> u8 {
        match self {
            Codec::BloscLz => 0,
            Codec::Lz4 => 1,
            Codec::Snappy => 2,
            Codec::Zlib => 3,
            Codec::Zstd => 4,
            Codec::Unknown(code) => code,
        }
    }

    /// The codec's name as c-blosc spells it (`"lz4"` covers LZ4HC too).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Codec::BloscLz => "blosclz",
            Codec::Lz4 => "lz4",
            Codec::Snappy => "snappy",
            Codec::Zlib => "zlib",
            Codec::Zstd => "zstd",
            Codec::Unknown(_) => "unknown",
        }
    }
}

impl fmt::Display for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The shuffle filter applied before compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum Shuffle {
    /// No filter.
    None,
    /// Byte shuffle (flag 0x01), bloscpack's default.
    #[default]
    Byte,
    /// Bit shuffle (flag 0x04).
    Bit,
}

impl Shuffle {
    /// c-blosc's `doshuffle` argument.
    #[must_use]
    pub const fn code(self) -> u8 {
        match self {
            Shuffle::None => 0,
            Shuffle::Byte => 1,
            Shuffle::Bit => 2,
        }
    }

    /// `"none"`, `"byte"` or `"bit"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Shuffle::None => "none",
            Shuffle::Byte => "byte",
            Shuffle::Bit => "bit",
        }
    }
}

impl fmt::Display for Shuffle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The flags byte of a Blosc1 header.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BloscFlags(u8);

impl BloscFlags {
    /// 0x01: byte shuffle.
    pub const SHUFFLE: u8 = 0x01;
    /// 0x02: the body is the data, copied without compression.
    pub const MEMCPYED: u8 = 0x02;
    /// 0x04: bit shuffle.
    pub const BITSHUFFLE: u8 = 0x04;
    /// 0x10: blocks are not split into one stream per byte of the element.
    pub const DONT_SPLIT: u8 = 0x10;

    /// Flags from the raw byte.
    #[must_use]
    pub const fn from_bits(bits: u8) -> BloscFlags {
        BloscFlags(bits)
    }

    /// The raw byte.
    #[must_use]
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// The codec (bits 5..7).
    #[must_use]
    pub const fn codec(self) -> Codec {
        Codec::from_code(self.0 >> 5)
    }

    /// The shuffle filter (byte shuffle wins if both bits are set, as in c-blosc).
    #[must_use]
    pub const fn shuffle(self) -> Shuffle {
        if self.0 & Self::SHUFFLE != 0 {
            Shuffle::Byte
        } else if self.0 & Self::BITSHUFFLE != 0 {
            Shuffle::Bit
        } else {
            Shuffle::None
        }
    }

    /// True when the body is stored uncompressed.
    #[must_use]
    pub const fn memcpyed(self) -> bool {
        self.0 & Self::MEMCPYED != 0
    }

    /// True when blocks are not split (c-blosc's 0x10; bloscpack's `info` calls it
    /// `split_blocks`, inverted).
    #[must_use]
    pub const fn dont_split(self) -> bool {
        self.0 & Self::DONT_SPLIT != 0
    }
}

impl fmt::Debug for BloscFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "BloscFlags({:#04x} {} shuffle={}{}{})",
            self.0,
            self.codec(),
            self.shuffle(),
            if self.memcpyed() { " memcpyed" } else { "" },
            if self.dont_split() { " dont_split" } else { "" }
        )
    }
}

/// A decoded Blosc1 chunk header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChunkHeader {
    /// Blosc format version (2).
    pub version: u8,
    /// The codec's stream version.
    pub versionlz: u8,
    /// Flags: filter, codec, memcpy, split.
    pub flags: BloscFlags,
    /// Element size.
    pub typesize: u8,
    /// Uncompressed bytes.
    pub nbytes: u32,
    /// Block size.
    pub blocksize: u32,
    /// The buffer's whole length, this header included.
    pub cbytes: u32,
}

impl ChunkHeader {
    /// Decodes the header at `offset` in `data` without checking it.
    ///
    /// # Errors
    /// [`ErrorKind::Layout`] when fewer than 16 bytes are left.
    pub fn read(data: &[u8], offset: u64) -> Result<ChunkHeader> {
        let raw: &raw::BloscHeader = bytes::read(data, offset, "chunk header")?;
        Ok(ChunkHeader::from_raw(raw))
    }

    /// Decodes a raw header without checking it.
    #[must_use]
    pub fn from_raw(raw: &raw::BloscHeader) -> ChunkHeader {
        ChunkHeader {
            version: raw.version,
            versionlz: raw.versionlz,
            flags: BloscFlags(raw.flags),
            typesize: raw.typesize,
            nbytes: raw.nbytes.get(),
            blocksize: raw.blocksize.get(),
            cbytes: raw.cbytes.get(),
        }
    }

    /// Checks, from the 16 header bytes alone, what c-blosc 1.21 checks before it
    /// decompresses anything, so that a walk over chunks can trust `cbytes`.
    ///
    /// Rules (c-blosc's `blosc_cbuffer_validate` and `blosc_run_decompression_with_context`):
    /// version 2; `cbytes` >= 16; `nbytes` <= 2147483631 (`BLOSC_MAX_BUFFERSIZE`); and, for
    /// a non-empty chunk: `typesize` >= 1; 1 <= `blocksize` <= `nbytes` and <=
    /// [`MAX_BLOCKSIZE`]; flag 0x08 (reserved) clear; a memcpyed chunk has
    /// `cbytes == nbytes + 16`; a compressed one names a codec of c-blosc 1.x (0..=4) with
    /// stream version 1 and has room for its block-start table. What the body holds is
    /// checked by [`check_blocks`](Self::check_blocks).
    ///
    /// # Errors
    /// [`ErrorKind::BloscVersion`] or [`ErrorKind::BadBloscHeader`], at `offset` (where
    /// the chunk starts), naming chunk `index`.
    pub fn check(&self, offset: u64, index: u64) -> Result<()> {
        if self.version != BLOSC_VERSION {
            return Err(ErrorKind::BloscVersion {
                index,
                version: self.version,
            }
            .at(offset));
        }
        let bad = |reason| self.bad(offset, index, reason);
        if self.cbytes < 16 {
            return Err(bad("cbytes is smaller than the 16-byte header"));
        }
        if self.nbytes > MAX_CHUNK_SIZE {
            return Err(bad("nbytes is larger than Blosc's limit of 2147483631"));
        }
        if self.nbytes == 0 {
            return Ok(());
        }
        if self.typesize == 0 {
            return Err(bad("typesize is 0"));
        }
        if self.blocksize == 0 || self.blocksize > self.nbytes {
            return Err(bad("blocksize must be between 1 and nbytes"));
        }
        if self.blocksize > MAX_BLOCKSIZE {
            return Err(bad("blocksize is larger than c-blosc's limit of 715827542"));
        }
        if self.flags.bits() & 0x08 != 0 {
            return Err(bad("flag 0x08 is reserved"));
        }
        if self.flags.memcpyed() {
            if u64::from(self.cbytes) != u64::from(self.nbytes) + 16 {
                return Err(bad("a memcpyed chunk has cbytes = nbytes + 16"));
            }
        } else {
            if matches!(self.flags.codec(), Codec::Unknown(_)) {
                return Err(bad("the codec (flag bits 5..7) is not one of c-blosc 1.x"));
            }
            if self.versionlz != 1 {
                return Err(bad("the codec's stream version (byte 1) must be 1"));
            }
            let nblocks = self.nbytes.div_ceil(self.blocksize);
            if u64::from(nblocks) > u64::from(self.cbytes - 16) / 4 {
                return Err(bad("cbytes leaves no room for the block-start table"));
            }
        }
        Ok(())
    }

    fn bad(&self, offset: u64, index: u64, reason: &'static str) -> Error {
        ErrorKind::BadBloscHeader {
            index,
            nbytes: self.nbytes,
            blocksize: self.blocksize,
            cbytes: self.cbytes,
            reason,
        }
        .at(offset)
    }

    /// Checks the body of a compressed chunk (`buffer`, its `cbytes` bytes, header
    /// included) the way c-blosc 1.21 walks it, without decompressing: every block start
    /// and every stream length lies inside the buffer, and every stream is long enough to
    /// hold what its block needs under its codec's largest possible ratio (a stream as
    /// long as its block is stored as is). A chunk that passes cannot make a decoder
    /// allocate more than a fixed multiple of its own size, so the output buffers sized
    /// from `nbytes` are bounded by the file, not by a header's claim alone. Needs no
    /// c-blosc; linear in `cbytes`. Call [`check`](Self::check) first.
    ///
    /// # Errors
    /// [`ErrorKind::BadBloscHeader`] at `offset`, naming chunk `index`.
    pub fn check_blocks(&self, buffer: &[u8], offset: u64, index: u64) -> Result<()> {
        if self.nbytes == 0 || self.flags.memcpyed() {
            return Ok(());
        }
        let bad = |reason| self.bad(offset, index, reason);
        if to_u64(buffer.len()) != u64::from(self.cbytes) {
            return Err(bad("the buffer is not cbytes long"));
        }
        let word = |at: u64| -> Option<i64> {
            let at = usize::try_from(at).ok()?;
            let b = buffer.get(at..at.checked_add(4)?)?;
            Some(i64::from(i32::from_le_bytes(<[u8; 4]>::try_from(b).ok()?)))
        };
        let ratio = max_ratio(self.flags.codec());
        let cbytes = i64::from(self.cbytes);
        let typesize = u32::from(self.typesize);
        let nblocks = self.nbytes.div_ceil(self.blocksize);
        let leftover = self.nbytes % self.blocksize;
        for j in 0..nblocks {
            let last = j + 1 == nblocks && leftover > 0;
            let bsize = if last { leftover } else { self.blocksize };
            let split =
                !self.flags.dont_split() && typesize <= 16 && bsize / typesize >= 128 && !last;
            let nsplits = if split { typesize } else { 1 };
            let neblock = i64::from(bsize / nsplits);
            let Some(mut at) = word(HEAD + 4 * u64::from(j)) else {
                return Err(bad("the block-start table is cut short"));
            };
            for _ in 0..nsplits {
                if at < HEAD_I64 || at > cbytes - 4 {
                    return Err(bad("a block starts outside the buffer"));
                }
                let csize = word(at.unsigned_abs()).unwrap_or(-1);
                at += 4;
                if csize < 0 || csize > cbytes - at {
                    return Err(bad("a compressed stream extends past cbytes"));
                }
                if csize != neblock && neblock > csize.saturating_mul(ratio).saturating_add(1024) {
                    return Err(bad(
                        "a compressed stream is too short for the bytes its block must hold",
                    ));
                }
                at += csize;
            }
        }
        Ok(())
    }
}

const HEAD_I64: i64 = 16;

/// How many bytes each compressed byte can give at most, per codec, with a wide margin:
/// LZ4 and BloscLZ extend a match by at most 255 per byte, deflate gives at most 258 bytes
/// per 2 bits (1032:1), and a zstd block of at most 128 KiB needs at least 4 bytes.
const fn max_ratio(codec: Codec) -> i64 {
    match codec {
        Codec::BloscLz | Codec::Lz4 | Codec::Snappy => 1024,
        Codec::Zlib => 2048,
        Codec::Zstd | Codec::Unknown(_) => 65536,
    }
}

/// One chunk of a parsed file: where it is, its checked Blosc header, and the bytes it
/// reads from.
///
/// Generic over the [`Data`] of its view like [`Bloscpack`](crate::Bloscpack):
/// `Chunk<'a>` (bytes in memory) borrows its buffer and digest
/// ([`bytes`](Chunk::bytes), [`digest`](Chunk::digest)); over a
/// `ReadCache` the buffer is read when it is used
/// ([`verify`](Chunk::verify), [`check_blocks`](Chunk::check_blocks), decompression),
/// as a payload: in one request, and not kept.
///
/// ```
/// use bloscpack_header::Bloscpack;
///
/// let mut file = Vec::new();
/// file.extend_from_slice(b"blpk\x03\x00\x00\x08");
/// file.extend_from_slice(&[0; 8]);
/// file.extend_from_slice(&1i64.to_le_bytes());
/// file.extend_from_slice(&0i64.to_le_bytes());
/// file.extend_from_slice(&[2, 1, 0x13, 8, 0, 0, 0, 0, 1, 0, 0, 0, 16, 0, 0, 0]);
/// let pack = Bloscpack::parse(&file)?;
/// let chunk = pack.chunk(0).unwrap();
/// assert_eq!((chunk.index(), chunk.offset(), chunk.bytes().len()), (0, 32, 16));
/// chunk.verify()?;
/// # Ok::<(), bloscpack_header::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Chunk<'d, D: Data<'d> = &'d [u8]> {
    pub(crate) index: u64,
    pub(crate) offset: u64,
    pub(crate) header: ChunkHeader,
    pub(crate) checksum: Checksum,
    /// The bytes the chunk is read from.
    pub(crate) data: D,
    /// Where the chunk starts in `data` (its file offset, except for a chunk read into a
    /// buffer of its own).
    pub(crate) at: u64,
    pub(crate) _bytes: PhantomData<&'d [u8]>,
}

/// A chunk's buffer and digest as read: borrowed from memory, owned when read from a
/// cache.
#[cfg(feature = "alloc")]
pub(crate) type Bulk<'d> = alloc::borrow::Cow<'d, [u8]>;
/// A chunk's buffer and digest as read (without an allocator: borrowed).
#[cfg(not(feature = "alloc"))]
pub(crate) type Bulk<'d> = &'d [u8];

/// Bulk bytes of `data`: [`Data::payload`] (a borrow for slices, not cached for caches).
#[inline]
pub(crate) fn bulk<'d, D: Data<'d>>(
    data: D,
    offset: u64,
    len: u64,
    what: &'static str,
) -> core::result::Result<Bulk<'d>, D::Error> {
    #[cfg(feature = "alloc")]
    {
        data.payload(offset, len, what)
    }
    #[cfg(not(feature = "alloc"))]
    {
        data.bytes(offset, len, what)
    }
}

/// Chunks in memory are equal when their place, header and bytes are.
impl PartialEq for Chunk<'_> {
    fn eq(&self, other: &Self) -> bool {
        (self.index, self.offset, self.header, self.checksum)
            == (other.index, other.offset, other.header, other.checksum)
            && self.bytes() == other.bytes()
            && self.digest() == other.digest()
    }
}

impl Eq for Chunk<'_> {}

impl<'a> Chunk<'a> {
    /// A chunk whose buffer and digest are `bytes` (`cbytes` + digest bytes), found at
    /// file offset `offset`.
    #[cfg_attr(not(feature = "blosc"), allow(dead_code))]
    pub(crate) fn detached(
        index: u64,
        offset: u64,
        header: ChunkHeader,
        checksum: Checksum,
        bytes: &'a [u8],
    ) -> Chunk<'a> {
        Chunk {
            index,
            offset,
            header,
            checksum,
            data: bytes,
            at: 0,
            _bytes: PhantomData,
        }
    }

    /// The same chunk of a view whose data is `whole` in memory.
    #[cfg(feature = "blosc")]
    pub(crate) fn in_memory<D: Data<'a>>(chunk: &Chunk<'a, D>, whole: &'a [u8]) -> Chunk<'a> {
        Chunk {
            index: chunk.index,
            offset: chunk.offset,
            header: chunk.header,
            checksum: chunk.checksum,
            data: whole,
            at: chunk.at,
            _bytes: PhantomData,
        }
    }

    /// The whole Blosc buffer (`cbytes` bytes, header included), borrowed.
    #[must_use]
    pub fn bytes(&self) -> &'a [u8] {
        bytes::slice(self.data, self.at, u64::from(self.header.cbytes), "chunk").unwrap_or(&[])
    }

    /// The stored digest (empty when the file has no checksum), borrowed.
    #[must_use]
    pub fn digest(&self) -> &'a [u8] {
        let at = self.at.saturating_add(u64::from(self.header.cbytes));
        bytes::slice(self.data, at, self.checksum.size_u64(), "chunk digest").unwrap_or(&[])
    }
}

impl<'d, D: Data<'d>> Chunk<'d, D>
where
    Error: From<D::Error>,
{
    /// The chunk's position in the file (0-based).
    #[must_use]
    pub const fn index(&self) -> u64 {
        self.index
    }

    /// The byte offset of the chunk's Blosc header in the file.
    #[must_use]
    pub const fn offset(&self) -> u64 {
        self.offset
    }

    /// The bytes the chunk's buffer and digest span in the data: what reading it loads.
    pub(crate) fn span(&self) -> core::ops::Range<u64> {
        let len = u64::from(self.header.cbytes).saturating_add(self.checksum.size_u64());
        self.at..self.at.saturating_add(len)
    }

    /// The Blosc header.
    #[must_use]
    pub const fn header(&self) -> &ChunkHeader {
        &self.header
    }

    /// The byte offset of the digest.
    #[must_use]
    pub fn digest_offset(&self) -> u64 {
        self.offset.saturating_add(u64::from(self.header.cbytes))
    }

    /// Where the chunk's `nbytes` field is.
    #[must_use]
    pub fn nbytes_offset(&self) -> u64 {
        self.offset.saturating_add(NBYTES_AT)
    }

    /// The Blosc buffer followed by the digest, read once: a borrow for bytes in memory,
    /// one request (not kept) over a cache.
    pub(crate) fn load(&self) -> Result<Bulk<'d>> {
        let len = u64::from(self.header.cbytes).saturating_add(self.checksum.size_u64());
        bulk(self.data, self.at, len, "chunk")
            .map_err(|e| Error::from(e).rebased(self.offset.saturating_sub(self.at)))
    }

    /// The Blosc buffer (`cbytes` bytes) followed by the digest: a borrow for bytes in
    /// memory, read in one request (and not kept) over a cache.
    ///
    /// # Errors
    /// I/O errors over a cache.
    #[cfg(feature = "alloc")]
    pub fn read(&self) -> Result<alloc::borrow::Cow<'d, [u8]>> {
        self.load()
    }

    /// Splits what [`read`](Self::read) returned into the buffer and the digest.
    pub(crate) fn split<'b>(&self, read: &'b Bulk<'_>) -> (&'b [u8], &'b [u8]) {
        self.split_slice(read)
    }

    /// [`split`](Self::split) of bytes read by other means.
    pub(crate) fn split_slice<'b>(&self, read: &'b [u8]) -> (&'b [u8], &'b [u8]) {
        read.split_at_checked(usize::try_from(self.header.cbytes).unwrap_or(usize::MAX))
            .unwrap_or((read, &[]))
    }

    /// Checks the chunk's digest.
    ///
    /// # Errors
    /// [`ErrorKind::ChunkDigestMismatch`] at the digest's offset; I/O errors over a cache.
    pub fn verify(&self) -> Result<()> {
        let read = self.load()?;
        let (body, digest) = self.split(&read);
        self.verify_bytes(body, digest)
    }

    pub(crate) fn verify_bytes(&self, body: &[u8], digest: &[u8]) -> Result<()> {
        if self.checksum.matches(body, digest) {
            Ok(())
        } else {
            Err(ErrorKind::ChunkDigestMismatch {
                index: self.index,
                chunk_offset: self.offset,
                cbytes: self.header.cbytes,
                checksum: self.checksum,
            }
            .at(self.digest_offset()))
        }
    }

    /// Checks the chunk's body against c-blosc's block structure
    /// ([`ChunkHeader::check_blocks`]).
    ///
    /// # Errors
    /// [`ErrorKind::BadBloscHeader`] at the chunk's offset; I/O errors over a cache.
    pub fn check_blocks(&self) -> Result<()> {
        if self.header.nbytes == 0 || self.header.flags.memcpyed() {
            return Ok(());
        }
        let read = self.load()?;
        let (body, _) = self.split(&read);
        self.header.check_blocks(body, self.offset, self.index)
    }
}
