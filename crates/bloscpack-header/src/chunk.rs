//! Chunks: the 16-byte Blosc1 header that starts each one, and the chunk view.

use core::fmt;

use binfmt_core::bytes;

use crate::checksum::Checksum;
use crate::error::{Error, Result};
use crate::header::MAX_CHUNK_SIZE;
use crate::raw;

/// The size of a Blosc1 header.
pub const BLOSC_HEADER_LEN: usize = 16;

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
    /// [`Error::Layout`] when fewer than 16 bytes are left.
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

    /// Checks what c-blosc 1.x checks before it decompresses anything, so that a chunk
    /// that passes can be handed to it (and a walk over chunks can trust `cbytes`).
    ///
    /// Rules: version 2; `cbytes` >= 16; `nbytes` <= 2147483631; and, for a non-empty
    /// chunk, `typesize` >= 1 and 1 <= `blocksize` <= `nbytes`; a memcpyed chunk has
    /// `cbytes == nbytes + 16`; a compressed one has room for its block-start table.
    ///
    /// # Errors
    /// [`Error::BloscVersion`] or [`Error::BadBloscHeader`], at `offset` (where the chunk
    /// starts), naming chunk `index`.
    pub fn check(&self, offset: u64, index: u64) -> Result<()> {
        if self.version != BLOSC_VERSION {
            return Err(Error::BloscVersion {
                offset,
                index,
                version: self.version,
            });
        }
        let bad = |reason| Error::BadBloscHeader {
            offset,
            index,
            nbytes: self.nbytes,
            blocksize: self.blocksize,
            cbytes: self.cbytes,
            reason,
        };
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
        if self.flags.memcpyed() {
            if u64::from(self.cbytes) != u64::from(self.nbytes) + 16 {
                return Err(bad("a memcpyed chunk has cbytes = nbytes + 16"));
            }
        } else {
            let nblocks = self.nbytes.div_ceil(self.blocksize);
            if u64::from(nblocks) > u64::from(self.cbytes - 16) / 4 {
                return Err(bad("cbytes leaves no room for the block-start table"));
            }
        }
        Ok(())
    }
}

/// One chunk of a parsed file: its Blosc buffer and its digest, both borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk<'a> {
    pub(crate) index: u64,
    pub(crate) offset: u64,
    pub(crate) header: ChunkHeader,
    pub(crate) bytes: &'a [u8],
    pub(crate) digest: &'a [u8],
    pub(crate) checksum: Checksum,
}

impl<'a> Chunk<'a> {
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

    /// The Blosc header.
    #[must_use]
    pub const fn header(&self) -> &ChunkHeader {
        &self.header
    }

    /// The whole Blosc buffer (`cbytes` bytes, header included).
    #[must_use]
    pub const fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The stored digest (empty when the file has no checksum).
    #[must_use]
    pub const fn digest(&self) -> &'a [u8] {
        self.digest
    }

    /// The byte offset of the digest.
    #[must_use]
    pub fn digest_offset(&self) -> u64 {
        self.offset.saturating_add(u64::from(self.header.cbytes))
    }

    /// Checks the chunk's digest.
    ///
    /// # Errors
    /// [`Error::ChunkDigestMismatch`] at the digest's offset.
    pub fn verify(&self) -> Result<()> {
        if self.checksum.matches(self.bytes, self.digest) {
            Ok(())
        } else {
            Err(Error::ChunkDigestMismatch {
                offset: self.digest_offset(),
                index: self.index,
                chunk_offset: self.offset,
                cbytes: self.header.cbytes,
                checksum: self.checksum,
            })
        }
    }
}
