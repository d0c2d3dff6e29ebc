//! The two fixed-size records of a kastore 1.0 store, exactly as they lie on disk, with
//! their sizes, the magic and the version.
//!
//! Both records are 64 bytes of little-endian fields with alignment 1, so they can be read
//! in place at any offset of any buffer. Offsets in the field documentation are relative
//! to the start of the record; offsets stored *in* the fields are relative to the start of
//! the store. These types check nothing: [`Store::parse`](crate::Store::parse) does.
//!
//! They implement zerocopy 0.8 traits, so zerocopy's semver is part of this module's
//! (`binfmt_core::zerocopy` re-exports the version used).
//!
//! ```
//! use kastore::raw::{DESCRIPTOR_SIZE, Descriptor, HEADER_SIZE, Header};
//! use binfmt_core::zerocopy::FromBytes;
//!
//! let empty = [
//!     &kastore::MAGIC[..],
//!     &[1, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0],
//!     &[0; 40],
//! ]
//! .concat();
//! let header = Header::ref_from_bytes(&empty).unwrap();
//! assert_eq!((header.version_major.get(), header.file_size.get()), (1, 64));
//! assert_eq!((HEADER_SIZE, DESCRIPTOR_SIZE), (64, 64));
//! # let _: Option<&Descriptor> = None;
//! ```

use binfmt_core::Version;
use binfmt_core::le::{U16, U32, U64};

/// The signature at the start of every store: `89 4B 41 53 0D 0A 1A 0A`
/// (`\211KAS\r\n\032\n`, in the style of PNG's).
pub const MAGIC: &[u8] = &MAGIC_BYTES;

/// [`MAGIC`] as an array, for [`Header::magic`].
pub(crate) const MAGIC_BYTES: [u8; 8] = *b"\x89KAS\r\n\x1a\n";

/// The file format version this crate writes; it reads every 1.x.
pub const VERSION: Version = Version::new(1, 0);

binfmt_core::layout! {
    /// The header at byte 0 of every store.
    #[derive(Eq)]
    pub struct Header {
        /// @0, 8 bytes: `89 4B 41 53 0D 0A 1A 0A` ([`MAGIC`]).
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
}

/// Size of the [`Header`] (64), and offset of the first descriptor.
pub const HEADER_SIZE: usize = size_of::<Header>();

binfmt_core::layout! {
    /// The descriptor of one item; descriptor `i` is at byte `64 + 64 * i` of the store.
    #[derive(Eq)]
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
}

/// Size of one [`Descriptor`] (64).
pub const DESCRIPTOR_SIZE: usize = size_of::<Descriptor>();

const _: () = assert!(HEADER_SIZE == 64);
const _: () = assert!(DESCRIPTOR_SIZE == 64);
