//! The two fixed-size records of a kastore 1.0 store, exactly as they lie on disk.
//!
//! Both are 64 bytes of little-endian fields with alignment 1, so they can be read in
//! place at any offset of any buffer. Offsets in the field documentation are relative to
//! the start of the record; offsets stored *in* the fields are relative to the start of
//! the store. These types check nothing: [`Store::parse`](crate::Store::parse) does.
//!
//! They implement zerocopy 0.8 traits, so zerocopy's semver is part of this module's
//! (`binfmt_core::zerocopy` re-exports the version used).

use binfmt_core::le::{U16, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// The header at byte 0 of every store.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Debug, Clone, Copy, PartialEq, Eq,
)]
#[repr(C)]
pub struct Header {
    /// @0, 8 bytes: `89 4B 41 53 0D 0A 1A 0A` ([`MAGIC`](crate::MAGIC)).
    pub magic: [u8; 8],
    /// @8: major file format version; 1 is the only one that exists.
    pub version_major: U16,
    /// @10: minor file format version; written 0, accepted whatever it is.
    pub version_minor: U16,
    /// @12: number of items, hence of descriptors.
    pub num_items: U32,
    /// @16: size of the whole store in bytes, this header included.
    pub file_size: U64,
    /// @24, 40 bytes: reserved; written as zeros, ignored on read.
    pub reserved: [u8; 40],
}

/// The descriptor of one item; descriptor `i` is at byte `64 + 64 * i` of the store.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Debug, Clone, Copy, PartialEq, Eq,
)]
#[repr(C)]
pub struct Descriptor {
    /// @0: element type code, 0 to 9 ([`DType`](crate::DType)).
    pub dtype: u8,
    /// @1, 7 bytes: reserved; written as zeros, ignored on read.
    pub reserved_type: [u8; 7],
    /// @8: store-relative offset of the key's bytes.
    pub key_start: U64,
    /// @16: key length in bytes (never 0).
    pub key_len: U64,
    /// @24: store-relative offset of the array; a multiple of 8.
    pub array_start: U64,
    /// @32: array length in **elements**, not bytes.
    pub array_len: U64,
    /// @40, 24 bytes: reserved; written as zeros, ignored on read.
    pub reserved: [u8; 24],
}

const _: () = assert!(size_of::<Header>() == 64);
const _: () = assert!(size_of::<Descriptor>() == 64);
