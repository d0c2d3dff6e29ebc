//! The on-disk layouts of MLDF v1.0, exactly as they are stored, with their sizes.
//!
//! Every struct is `#[repr(C)]`, made of little-endian scalars and byte arrays only,
//! so it has alignment 1 and can be viewed in place at any offset of any buffer. Offsets
//! in the field docs are relative to the start of the struct; the header itself starts
//! at absolute byte [`HEADER_OFFSET`] (9), right after the 9-byte magic. These types
//! carry no validation: [`crate::Header`], [`crate::Dataset`] and the slot decoders
//! check them.
//!
//! Each struct's size sits next to it (`HEADER_SIZE`, `DESCRIPTOR_SIZE`, …), and the
//! fixed positions in a file ([`HEADER_OFFSET`], [`DESCRIPTORS_OFFSET`]) are derived
//! from them, so that no offset is written twice.
//!
//! zerocopy's traits are part of these types' API; `binfmt_core::zerocopy` re-exports
//! the version they implement.
//!
//! ```
//! use mldf::raw::{self, HEADER_OFFSET, HEADER_SIZE, DESCRIPTORS_OFFSET};
//! use zerocopy::FromBytes;
//! assert_eq!((HEADER_OFFSET, HEADER_SIZE, DESCRIPTORS_OFFSET), (9, 64, 73));
//! // Any 64 bytes are a header, as far as the layout goes; the checks are in `mldf::Header`.
//! let header = raw::Header::ref_from_bytes(&[0u8; HEADER_SIZE]).unwrap();
//! assert_eq!(header.num_samples.get(), 0);
//! ```

use binfmt_core::bytes::to_u64;
use binfmt_core::le::{F64, I64, U16, U32, U64};
use binfmt_core::version::Version;

/// The 9-byte signature at the start of every MLDF file (`\x89MLDF\r\n\x1a\n`).
pub const MAGIC: &[u8] = b"\x89MLDF\r\n\x1a\n";

/// The format version this crate reads and writes.
pub const VERSION: Version = Version::new(1, 0);

/// Absolute offset of the header: right after the magic.
pub const HEADER_OFFSET: u64 = to_u64(MAGIC.len());

/// Absolute offset just past the header, where both writer layouts put the descriptors
/// and below which no section may start.
pub const DESCRIPTORS_OFFSET: u64 = HEADER_OFFSET + to_u64(HEADER_SIZE);

binfmt_core::layout! {
    /// The 64-byte file header, stored at absolute offset 9.
    #[derive(Eq)]
    pub struct Header {
        /// @0 (absolute 9): format major version, 1.
        pub version_major: U16,
        /// @2 (absolute 11): format minor version, 0.
        pub version_minor: U16,
        /// @4 (absolute 13): file flags (`FLAG_*` in the crate root).
        pub flags: U32,
        /// @8 (absolute 17): number of samples N.
        pub num_samples: U64,
        /// @16 (absolute 25): number of fields F.
        pub num_fields: U16,
        /// @18 (absolute 27): padding, written as zero, ignored.
        pub pad1: U16,
        /// @20 (absolute 29): page size; the data region starts on a multiple of it.
        pub page_size: U32,
        /// @24 (absolute 33): absolute offset of the first field descriptor.
        pub field_desc_ptr: U64,
        /// @32 (absolute 41): absolute offset of the metadata table.
        pub metadata_ptr: U64,
        /// @40 (absolute 49): absolute offset of the data region.
        pub data_ptr: U64,
        /// @48 (absolute 57): absolute offset of the allocation table, which runs to EOF.
        pub alloc_table_ptr: U64,
        /// @56 (absolute 65): index CRC when the file is checksummed, else zero.
        pub index_crc: U32,
        /// @60 (absolute 69): header CRC when the file is checksummed, else zero.
        pub header_crc: U32,
    }
}
/// Size of [`Header`]: 64 bytes.
pub const HEADER_SIZE: usize = size_of::<Header>();
const _: () = assert!(HEADER_SIZE == 64);

binfmt_core::layout! {
    /// One 208-byte field descriptor.
    #[derive(Eq)]
    pub struct FieldDescriptor {
        /// @0: UTF-8 name, NUL-padded; the name ends at the first NUL.
        pub name: [u8; 64],
        /// @64: type id (see [`crate::TypeId`]).
        pub type_id: U16,
        /// @66: field flags; bit 0 is NULLABLE.
        pub flags: U16,
        /// @68: bytes of this field in every metadata row.
        pub metadata_size: U32,
        /// @72: padding, written as zero, ignored.
        pub pad: U32,
        /// @76: per-type arguments (NDARRAY dtype and shape, JPEG quality, vocabulary size).
        pub arguments: [u8; 128],
        /// @204: reserved, written as zero, ignored.
        pub reserved: [u8; 4],
    }
}
/// Size of one [`FieldDescriptor`]: 208 bytes.
pub const DESCRIPTOR_SIZE: usize = size_of::<FieldDescriptor>();
const _: () = assert!(DESCRIPTOR_SIZE == 208);

binfmt_core::layout! {
    /// One 16-byte allocation table entry.
    #[derive(Eq)]
    pub struct AllocEntry {
        /// @0: absolute offset of the item.
        pub ptr: U64,
        /// @8: size of the item in bytes, never zero.
        pub size: U32,
        /// @12: CRC-32 of the item when the file is checksummed, else zero.
        pub crc: U32,
    }
}
/// Size of one [`AllocEntry`]: 16 bytes.
pub const ALLOC_ENTRY_SIZE: usize = size_of::<AllocEntry>();
const _: () = assert!(ALLOC_ENTRY_SIZE == 16);

binfmt_core::layout! {
    /// The 8-byte slot of an INT field.
    #[derive(Eq)]
    pub struct IntMeta {
        /// @0: the value.
        pub value: I64,
    }
}
/// Size of [`IntMeta`], an INT field's v1.0 metadata_size: 8 bytes.
pub const INT_META_SIZE: usize = size_of::<IntMeta>();
const _: () = assert!(INT_META_SIZE == 8);

binfmt_core::layout! {
    /// The 8-byte slot of a FLOAT field.
    pub struct FloatMeta {
        /// @0: the value, IEEE-754 binary64.
        pub value: F64,
    }
}
/// Size of [`FloatMeta`], a FLOAT field's v1.0 metadata_size: 8 bytes.
pub const FLOAT_META_SIZE: usize = size_of::<FloatMeta>();
const _: () = assert!(FLOAT_META_SIZE == 8);

binfmt_core::layout! {
    /// The 16-byte slot of BYTES, NDARRAY and JSON fields.
    #[derive(Eq)]
    pub struct BytesMeta {
        /// @0: absolute offset of the payload, 0 when it is empty.
        pub data_ptr: U64,
        /// @8: payload size in bytes.
        pub data_size: U32,
        /// @12: padding, written as zero, ignored.
        pub pad: U32,
    }
}
/// Size of [`BytesMeta`], the v1.0 metadata_size of BYTES, NDARRAY and JSON: 16 bytes.
pub const BYTES_META_SIZE: usize = size_of::<BytesMeta>();
const _: () = assert!(BYTES_META_SIZE == 16);

binfmt_core::layout! {
    /// The 24-byte slot of IMAGE_RAW, IMAGE_JPEG and IMAGE_PNG fields.
    #[derive(Eq)]
    pub struct ImageMeta {
        /// @0: absolute offset of the payload, 0 when it is empty.
        pub data_ptr: U64,
        /// @8: payload size in bytes.
        pub data_size: U32,
        /// @12: height in pixels.
        pub height: U16,
        /// @14: width in pixels.
        pub width: U16,
        /// @16: channels per pixel.
        pub channels: u8,
        /// @17: encoding of this sample's payload: 0 raw, 1 JPEG, 2 PNG.
        pub mode: u8,
        /// @18: padding, written as zero, ignored.
        pub pad: U16,
        /// @20: reserved, written as zero, ignored.
        pub reserved: [u8; 4],
    }
}
/// Size of [`ImageMeta`], the image types' v1.0 metadata_size: 24 bytes.
pub const IMAGE_META_SIZE: usize = size_of::<ImageMeta>();
const _: () = assert!(IMAGE_META_SIZE == 24);

binfmt_core::layout! {
    /// The 24-byte slot of AUDIO_WAVEFORM and AUDIO_COMPRESSED fields.
    #[derive(Eq)]
    pub struct AudioMeta {
        /// @0: absolute offset of the payload, 0 when it is empty.
        pub data_ptr: U64,
        /// @8: payload size in bytes.
        pub data_size: U32,
        /// @12: frames per channel.
        pub num_samples: U32,
        /// @16: sample rate in Hz.
        pub sample_rate: U32,
        /// @20: channel count.
        pub num_channels: U16,
        /// @22: bits per sample.
        pub bit_depth: u8,
        /// @23: codec: 0 integer PCM, 1 FLAC, 2 AAC, 3 MP3, 4 float32 PCM.
        pub codec: u8,
    }
}
/// Size of [`AudioMeta`], the audio types' v1.0 metadata_size: 24 bytes.
pub const AUDIO_META_SIZE: usize = size_of::<AudioMeta>();
const _: () = assert!(AUDIO_META_SIZE == 24);

binfmt_core::layout! {
    /// The 16-byte slot of TEXT_RAW and TEXT_TOKENIZED fields.
    #[derive(Eq)]
    pub struct TextMeta {
        /// @0: absolute offset of the payload, 0 when it is empty.
        pub data_ptr: U64,
        /// @8: payload size in bytes.
        pub data_size: U32,
        /// @12: token count, capped at 65,535 (0 for UTF-8 text).
        pub num_tokens: U16,
        /// @14: 0 UTF-8, 1 u32 token ids, 2 u16 token ids.
        pub encoding: u8,
        /// @15: padding, written as zero, ignored.
        pub pad: u8,
    }
}
/// Size of [`TextMeta`], the text types' v1.0 metadata_size: 16 bytes.
pub const TEXT_META_SIZE: usize = size_of::<TextMeta>();
const _: () = assert!(TEXT_META_SIZE == 16);

binfmt_core::layout! {
    /// The NDARRAY arguments: the first 128 bytes of the descriptor's `arguments`.
    #[derive(Eq)]
    pub struct NdarrayArgs {
        /// @0: element type code (see [`crate::Dtype`]).
        pub dtype: u8,
        /// @1: number of dimensions, at most 15.
        pub ndim: u8,
        /// @2: zero when written, ignored.
        pub pad: [u8; 6],
        /// @8: `shape[k]` for `k < ndim`; unused slots zero when written, ignored.
        pub shape: [U64; MAX_NDIM],
    }
}
/// Size of [`NdarrayArgs`]: the whole 128-byte argument area of a descriptor.
pub const NDARRAY_ARGS_SIZE: usize = size_of::<NdarrayArgs>();
const _: () = assert!(NDARRAY_ARGS_SIZE == 128);

/// The largest number of dimensions an NDARRAY field may have: the shape slots of
/// [`NdarrayArgs`].
pub const MAX_NDIM: usize = 15;
