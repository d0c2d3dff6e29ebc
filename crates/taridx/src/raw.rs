//! Byte layouts: the .taridx header and row, and the tar header blocks the indexer reads.
//!
//! Every struct is `#[repr(C)]` of little-endian scalars and byte arrays, so it has
//! alignment 1 and can be read in place at any offset (.taridx rows are not aligned: they
//! start at 64 + the lengths of two text blocks). These types implement zerocopy's traits,
//! so this module follows zerocopy's semver (re-exported as `binfmt_core::zerocopy`).
//! Each struct's size is the constant next to it; offsets of fields come from the structs
//! (`binfmt_core::field_offset!`). Parsing and validation live elsewhere.

use core::mem::size_of;

use binfmt_core::Version;
use binfmt_core::le::{U16, U32, U64};

/// The 8-byte signature at the start of every index: `TARIDX` and two NUL bytes.
pub const MAGIC: &[u8] = b"TARIDX\0\0";

/// The format version this crate writes (it reads every minor version of major 1).
pub const VERSION: Version = Version::new(1, 0);

/// [`Header::flags`] bit 0: the rows are contiguous by `(keyhash, crashid)`.
pub const FLAG_CONTIGUOUS: u8 = 1;

binfmt_core::layout! {
    /// The 64-byte header at the start of every .taridx file.
    #[derive(Eq)]
    pub struct Header {
        /// @0: `TARIDX` followed by two NUL bytes.
        pub magic: [u8; 8],
        /// @8: major format version (1).
        pub major: U16,
        /// @10: minor format version (0).
        pub minor: U16,
        /// @12: size of one row in bytes (32).
        pub rec_size: U16,
        /// @14: size of this header in bytes (64).
        pub hdr_size: U16,
        /// @16: number of distinct stems (distinct `(keyhash, crashid)` pairs).
        pub n_stems: U64,
        /// @24: number of rows.
        pub n_rows: U64,
        /// @32: number of extensions in the extension block.
        pub n_ext: U32,
        /// @36: number of crash stems in the crash block (crash ids 1..=n_crash).
        pub n_crash: U32,
        /// @40: offset of the crash block (64 + length of the extension block).
        pub off_crash: U64,
        /// @48: offset of the rows (off_crash + length of the crash block).
        pub off_arr: U64,
        /// @56: bit 0: rows are contiguous by `(keyhash, crashid)`; bits 1..7 reserved.
        pub flags: u8,
        /// @57: reserved, written as zeros, ignored by readers.
        pub reserved: [u8; 7],
    }
}

/// Size of [`Header`]: 64 bytes.
pub const HEADER_SIZE: usize = size_of::<Header>();

binfmt_core::layout! {
    /// One 32-byte row: a tar member's location and its sample key.
    #[derive(Eq)]
    pub struct Row {
        /// @0: shard id, the ordinal of the shard in the fold's shard list.
        pub fid: U16,
        /// @2: offset of the tar header immediately before the payload.
        pub offset: U64,
        /// @10: payload size in bytes.
        pub size: U64,
        /// @18: extension id, an index into the extension block.
        pub extid: U16,
        /// @20: collision id: 0 for the first stem seen with this keyhash, k for crash stem k.
        pub crashid: U32,
        /// @24: XXH64 (seed 0) of the stem's UTF-8 bytes.
        pub keyhash: U64,
    }
}

/// Size of [`Row`]: 32 bytes.
pub const ROW_SIZE: usize = size_of::<Row>();

binfmt_core::layout! {
    /// A 512-byte tar header block in the POSIX ustar layout (v7 and GNU share the first
    /// 257 bytes; old GNU reuses the prefix area, see [`OldGnuTail`]).
    #[derive(Eq)]
    pub struct TarHeader {
        /// @0: member name, NUL-terminated unless it fills the field.
        pub name: [u8; 100],
        /// @100: permissions, octal.
        pub mode: [u8; 8],
        /// @108: owner id, octal or base-256.
        pub uid: [u8; 8],
        /// @116: group id, octal or base-256.
        pub gid: [u8; 8],
        /// @124: size of the data that follows, octal or base-256.
        pub size: [u8; 12],
        /// @136: modification time, octal or base-256.
        pub mtime: [u8; 12],
        /// @148: header checksum, octal.
        pub chksum: [u8; 8],
        /// @156: entry type (`0`/NUL regular file, `5` directory, `x` pax header, …).
        pub typeflag: u8,
        /// @157: link target.
        pub linkname: [u8; 100],
        /// @257: `ustar\0` (POSIX) or `ustar ` (old GNU); zeros in v7 archives.
        pub magic: [u8; 6],
        /// @263: `00` (POSIX) or ` \0` (old GNU).
        pub version: [u8; 2],
        /// @265: owner name.
        pub uname: [u8; 32],
        /// @297: group name.
        pub gname: [u8; 32],
        /// @329: device major number.
        pub devmajor: [u8; 8],
        /// @337: device minor number.
        pub devminor: [u8; 8],
        /// @345: POSIX ustar: path prefix (joined to `name` with `/`). Old GNU: see [`OldGnuTail`].
        pub prefix: [u8; 155],
        /// @500: padding.
        pub pad: [u8; 12],
    }
}

/// Size of [`TarHeader`]: one 512-byte tar block, the unit every tar structure is padded to.
pub const TAR_HEADER_SIZE: usize = size_of::<TarHeader>();

binfmt_core::layout! {
    /// One (offset, numbytes) pair of an old GNU sparse map.
    #[derive(Eq)]
    pub struct SparseEntry {
        /// +0: offset of a data region in the original file, octal.
        pub offset: [u8; 12],
        /// +12: length of that region, octal.
        pub numbytes: [u8; 12],
    }
}

/// Size of [`SparseEntry`]: 24 bytes.
pub const SPARSE_ENTRY_SIZE: usize = size_of::<SparseEntry>();

binfmt_core::layout! {
    /// Bytes 345..512 of an old GNU header (magic `ustar  \0`), where POSIX has the prefix.
    #[derive(Eq)]
    pub struct OldGnuTail {
        /// @345: access time.
        pub atime: [u8; 12],
        /// @357: change time.
        pub ctime: [u8; 12],
        /// @369: multivolume offset.
        pub offset: [u8; 12],
        /// @381: unused (old long names).
        pub longnames: [u8; 4],
        /// @385: unused.
        pub unused: u8,
        /// @386: the first four sparse map entries.
        pub sparse: [SparseEntry; 4],
        /// @482: non-zero when extension blocks with more sparse entries follow the header.
        pub isextended: u8,
        /// @483: size of the original (expanded) file, octal.
        pub realsize: [u8; 12],
        /// @495: padding.
        pub pad: [u8; 17],
    }
}

/// Size of [`OldGnuTail`]: the 167 bytes from 345 to the end of the block.
pub const OLD_GNU_TAIL_SIZE: usize = size_of::<OldGnuTail>();

binfmt_core::layout! {
    /// A 512-byte old GNU sparse extension block (follows an `S` header with `isextended`).
    #[derive(Eq)]
    pub struct SparseExtension {
        /// @0: 21 more sparse map entries.
        pub sparse: [SparseEntry; 21],
        /// @504: non-zero when another extension block follows.
        pub isextended: u8,
        /// @505: padding.
        pub pad: [u8; 7],
    }
}

/// Size of [`SparseExtension`]: one 512-byte block.
pub const SPARSE_EXTENSION_SIZE: usize = size_of::<SparseExtension>();

// The sizes the format fixes.
const _: () = assert!(HEADER_SIZE == 64);
const _: () = assert!(ROW_SIZE == 32);
const _: () = assert!(TAR_HEADER_SIZE == 512);
const _: () = assert!(SPARSE_ENTRY_SIZE == 24);
const _: () = assert!(OLD_GNU_TAIL_SIZE == TAR_HEADER_SIZE - 345);
const _: () = assert!(SPARSE_EXTENSION_SIZE == TAR_HEADER_SIZE);
