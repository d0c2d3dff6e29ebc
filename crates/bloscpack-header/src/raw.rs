//! The fixed layouts of the format, byte for byte, read in place with zerocopy.
//!
//! These structs accept any bytes; the rules that make a value valid live in the
//! parsers (`Header::parse`, `MetadataSection`, `ChunkHeader`). Every integer is
//! little-endian. The structs are public so that tools can patch a field in place; they
//! implement zerocopy 0.8's traits, so they follow zerocopy's semver (re-exported as
//! `binfmt_core::zerocopy`).

use binfmt_core::Version;
use binfmt_core::le::{I32, I64, U32};

/// The signature at the start of every Bloscpack file: `blpk`.
pub const MAGIC: &[u8] = b"blpk";

/// The format version this crate writes: 3 (every bloscpack release since 0.3.0). Format
/// 2 (bloscpack 0.2) is read too, unless [`ReadOptions::accept_version_2`] says otherwise.
///
/// [`ReadOptions::accept_version_2`]: crate::ReadOptions::accept_version_2
pub const VERSION: Version = Version::new(3, 0);

binfmt_core::layout! {
    /// The 32-byte Bloscpack header at the start of every file.
    #[derive(Eq)]
    pub struct Header {
        /// Byte 0: `b"blpk"`.
        pub magic: [u8; 4],
        /// Byte 4: the format version (3; 2 for files written by bloscpack 0.2).
        pub version: u8,
        /// Byte 5: option bits (0x01 offsets section, 0x02 metadata section).
        pub options: u8,
        /// Byte 6: the checksum id of every chunk digest (0..=8).
        pub checksum: u8,
        /// Byte 7: the element size of the data.
        pub typesize: u8,
        /// Byte 8: uncompressed bytes per chunk; -1 when unknown.
        pub chunk_size: I32,
        /// Byte 12: uncompressed bytes in the last chunk; -1 when unknown.
        pub last_chunk: I32,
        /// Byte 16: the number of chunks; -1 when unknown.
        pub nchunks: I64,
        /// Byte 24: spare offset slots for appending (format 3); reserved and 0 in format 2.
        pub max_app_chunks: I64,
    }
}

binfmt_core::layout! {
    /// The 32-byte header of the metadata section, directly after the file header.
    #[derive(Eq)]
    pub struct MetadataHeader {
        /// Byte 0: the serializer's name, NUL-padded (`b"JSON\0\0\0\0"`).
        pub magic_format: [u8; 8],
        /// Byte 8: option bits; none is defined, so 0.
        pub meta_options: u8,
        /// Byte 9: the checksum id of the metadata digest (0..=8).
        pub meta_checksum: u8,
        /// Byte 10: 0 when the metadata is stored raw, 1 when zlib-compressed.
        pub meta_codec: u8,
        /// Byte 11: the zlib level used (0..=9).
        pub meta_level: u8,
        /// Byte 12: the length of the serialized (uncompressed) metadata.
        pub meta_size: U32,
        /// Byte 16: the space reserved for the stored metadata (stored bytes plus padding).
        pub max_meta_size: U32,
        /// Byte 20: the length of the stored (possibly compressed) metadata.
        pub meta_comp_size: U32,
        /// Byte 24: reserved for a user codec's name, NUL-padded; written as zeros.
        pub user_codec: [u8; 8],
    }
}

binfmt_core::layout! {
    /// The 16-byte header of a Blosc1 buffer: the start of every chunk.
    #[derive(Eq)]
    pub struct BloscHeader {
        /// Byte 0: the Blosc format version (2 for c-blosc 1.x).
        pub version: u8,
        /// Byte 1: the codec's stream format version.
        pub versionlz: u8,
        /// Byte 2: flag bits (shuffle, memcpy, bit-shuffle, don't-split) and codec (bits 5..7).
        pub flags: u8,
        /// Byte 3: the element size used by the shuffle filters.
        pub typesize: u8,
        /// Byte 4: uncompressed size.
        pub nbytes: U32,
        /// Byte 8: the block size used for compression.
        pub blocksize: U32,
        /// Byte 12: the whole buffer's size, this header included.
        pub cbytes: U32,
    }
}

/// The size of [`Header`]: 32 bytes.
pub const HEADER_SIZE: usize = size_of::<Header>();
/// The size of [`MetadataHeader`]: 32 bytes.
pub const METADATA_HEADER_SIZE: usize = size_of::<MetadataHeader>();
/// The size of [`BloscHeader`]: 16 bytes.
pub const BLOSC_HEADER_SIZE: usize = size_of::<BloscHeader>();

const _: () = assert!(HEADER_SIZE == 32);
const _: () = assert!(METADATA_HEADER_SIZE == 32);
const _: () = assert!(BLOSC_HEADER_SIZE == 16);
