//! The on-disk layouts of MLDF v1.0, exactly as they are stored.
//!
//! Every struct is `#[repr(C)]`, made of little-endian scalars and byte arrays only,
//! so it has alignment 1 and can be viewed in place at any offset of any buffer. Offsets
//! in the field docs are relative to the start of the struct; the header itself starts
//! at absolute byte 9, right after the 9-byte magic. These types carry no validation:
//! [`crate::Header`], [`crate::Dataset`] and the slot decoders check them.
//!
//! zerocopy's traits are part of these types' API; `binfmt_core::zerocopy` re-exports
//! the version they implement.

use binfmt_core::le::{F64, I64, U16, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// The 64-byte file header, stored at absolute offset 9.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Debug, Clone, Copy, PartialEq, Eq,
)]
#[repr(C)]
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
const _: () = assert!(size_of::<Header>() == 64);

/// One 208-byte field descriptor.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Debug, Clone, Copy, PartialEq, Eq,
)]
#[repr(C)]
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
const _: () = assert!(size_of::<FieldDescriptor>() == 208);

/// One 16-byte allocation table entry.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Debug, Clone, Copy, PartialEq, Eq,
)]
#[repr(C)]
pub struct AllocEntry {
    /// @0: absolute offset of the item.
    pub ptr: U64,
    /// @8: size of the item in bytes, never zero.
    pub size: U32,
    /// @12: CRC-32 of the item when the file is checksummed, else zero.
    pub crc: U32,
}
const _: () = assert!(size_of::<AllocEntry>() == 16);

/// The 8-byte slot of an INT field.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Debug, Clone, Copy, PartialEq, Eq,
)]
#[repr(C)]
pub struct IntMeta {
    /// @0: the value.
    pub value: I64,
}
const _: () = assert!(size_of::<IntMeta>() == 8);

/// The 8-byte slot of a FLOAT field.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Debug, Clone, Copy, PartialEq,
)]
#[repr(C)]
pub struct FloatMeta {
    /// @0: the value, IEEE-754 binary64.
    pub value: F64,
}
const _: () = assert!(size_of::<FloatMeta>() == 8);

/// The 16-byte slot of BYTES, NDARRAY and JSON fields.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Debug, Clone, Copy, PartialEq, Eq,
)]
#[repr(C)]
pub struct BytesMeta {
    /// @0: absolute offset of the payload, 0 when it is empty.
    pub data_ptr: U64,
    /// @8: payload size in bytes.
    pub data_size: U32,
    /// @12: padding, written as zero, ignored.
    pub pad: U32,
}
const _: () = assert!(size_of::<BytesMeta>() == 16);

/// The 24-byte slot of IMAGE_RAW, IMAGE_JPEG and IMAGE_PNG fields.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Debug, Clone, Copy, PartialEq, Eq,
)]
#[repr(C)]
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
const _: () = assert!(size_of::<ImageMeta>() == 24);

/// The 24-byte slot of AUDIO_WAVEFORM and AUDIO_COMPRESSED fields.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Debug, Clone, Copy, PartialEq, Eq,
)]
#[repr(C)]
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
const _: () = assert!(size_of::<AudioMeta>() == 24);

/// The 16-byte slot of TEXT_RAW and TEXT_TOKENIZED fields.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Debug, Clone, Copy, PartialEq, Eq,
)]
#[repr(C)]
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
const _: () = assert!(size_of::<TextMeta>() == 16);

/// The NDARRAY arguments: the first 128 bytes of the descriptor's `arguments`.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Debug, Clone, Copy, PartialEq, Eq,
)]
#[repr(C)]
pub struct NdarrayArgs {
    /// @0: element type code (see [`crate::Dtype`]).
    pub dtype: u8,
    /// @1: number of dimensions, at most 15.
    pub ndim: u8,
    /// @2: zero when written, ignored.
    pub pad: [u8; 6],
    /// @8: `shape[k]` for `k < ndim`; unused slots zero when written, ignored.
    pub shape: [U64; 15],
}
const _: () = assert!(size_of::<NdarrayArgs>() == 128);
