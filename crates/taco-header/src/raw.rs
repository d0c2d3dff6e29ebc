//! Byte layouts, exactly as stored: the TACO header and the ZIP records around it.
//!
//! Every struct is `#[repr(C)]` of little-endian fields with alignment 1, so it can be
//! read in place at any offset of any buffer. There is no logic here; the parsers in the
//! other modules validate what these structs hold. Next to each struct is its size, the
//! one definition of it; offsets of fixed fields come from the structs through
//! `binfmt_core::field_offset!`. The types implement zerocopy's traits, so this module
//! follows zerocopy's semver (0.8).

use binfmt_core::Version;
use binfmt_core::le::{U16, U32, U64};

/// `PK\x03\x04`: a ZIP local file header.
pub const LOCAL_HEADER_SIGNATURE: [u8; 4] = *b"PK\x03\x04";
/// `PK\x01\x02`: a ZIP central-directory entry.
pub const CENTRAL_ENTRY_SIGNATURE: [u8; 4] = *b"PK\x01\x02";
/// `PK\x05\x06`: the end-of-central-directory record.
pub const END_SIGNATURE: [u8; 4] = *b"PK\x05\x06";
/// `PK\x06\x06`: the ZIP64 end-of-central-directory record.
pub const ZIP64_END_SIGNATURE: [u8; 4] = *b"PK\x06\x06";
/// `PK\x06\x07`: the ZIP64 end-of-central-directory locator.
pub const ZIP64_LOCATOR_SIGNATURE: [u8; 4] = *b"PK\x06\x07";
/// Header ID of the ZIP64 extended-information extra field.
pub const ZIP64_EXTRA_ID: u16 = 0x0001;

/// The signature a TACO archive starts with: `PK\x03\x04`, that of a ZIP local file
/// header (the header's own). Every ZIP file starts with it too, so
/// [`sniff`](crate::sniff) also checks the member name `TACO_HEADER` at byte 30.
pub const MAGIC: &[u8] = &LOCAL_HEADER_SIGNATURE;

/// TACO stores no format version of its own: there is one header layout. This is the ZIP
/// "version needed to extract" our writers store in the header, 1.0 (the field's value
/// 10: a stored member), as tacozip's `create` does. It is written, never checked on
/// read: tacozip's `serialize_header` writes 20 (2.0), and both occur in real files
/// ([`Header::version_needed`](crate::Header::version_needed) reports it).
pub const VERSION: Version = Version::new(1, 0);

/// The member name of the header: `TACO_HEADER`.
pub const HEADER_NAME: [u8; 11] = *b"TACO_HEADER";
/// The most (offset, length) entries a header holds: the slots of [`Payload`].
pub const MAX_ENTRIES: usize = 7;

binfmt_core::layout! {
    /// The fixed 30 bytes of a ZIP local file header (name and extra field follow).
    #[derive(Eq)]
    pub struct LocalHeader {
        /// @0: `PK\x03\x04`.
        pub signature: [u8; 4],
        /// @4: version needed to extract (tacozip writes 10 from `create`, 20 from `serialize`).
        pub version_needed: U16,
        /// @6: general-purpose flags (bit 0 encrypted, bit 3 data descriptor, bit 11 UTF-8).
        pub flags: U16,
        /// @8: compression method (0 = stored).
        pub method: U16,
        /// @10: MS-DOS time.
        pub dos_time: U16,
        /// @12: MS-DOS date.
        pub dos_date: U16,
        /// @14: CRC-32 of the member data.
        pub crc32: U32,
        /// @18: compressed size (`0xFFFFFFFF`: see the ZIP64 extra field).
        pub compressed_size: U32,
        /// @22: uncompressed size (`0xFFFFFFFF`: see the ZIP64 extra field).
        pub uncompressed_size: U32,
        /// @26: length of the name that follows.
        pub name_len: U16,
        /// @28: length of the extra field after the name.
        pub extra_len: U16,
    }
}

/// Size of [`LocalHeader`]: 30 bytes.
pub const LOCAL_HEADER_SIZE: usize = size_of::<LocalHeader>();

binfmt_core::layout! {
    /// The 116-byte payload: a count and seven (offset, length) slots.
    #[derive(Eq)]
    pub struct Payload {
        /// Payload @0 (file @41): number of meaningful slots, 0..=7.
        pub count: u8,
        /// Payload @1 (file @42): zero.
        pub padding: [u8; 3],
        /// Payload @4 (file @45): slot k at file offset 45 + 16k.
        pub slots: [Slot; MAX_ENTRIES],
    }
}

/// Size of [`Payload`], the header's member data: 116 bytes.
pub const PAYLOAD_SIZE: usize = size_of::<Payload>();

binfmt_core::layout! {
    /// One (offset, length) slot of the payload.
    #[derive(Eq)]
    pub struct Slot {
        /// @0: byte offset, application-defined.
        pub offset: U64,
        /// @8: length in bytes, application-defined.
        pub length: U64,
    }
}

/// Size of [`Slot`]: 16 bytes.
pub const SLOT_SIZE: usize = size_of::<Slot>();

binfmt_core::layout! {
    /// The 157-byte TACO header at offset 0 of the archive: a complete ZIP local file entry
    /// named `TACO_HEADER` whose stored data is the payload.
    #[derive(Eq)]
    pub struct Header {
        /// @0: the local file header.
        pub local: LocalHeader,
        /// @30: `TACO_HEADER`.
        pub name: [u8; 11],
        /// @41: the payload.
        pub payload: Payload,
    }
}

/// Size of the whole [`Header`]: local header, name and payload, 157 bytes.
pub const HEADER_SIZE: usize = size_of::<Header>();

binfmt_core::layout! {
    /// The fixed 46 bytes of a central-directory entry (name, extra, comment follow).
    #[derive(Eq)]
    pub struct CentralEntry {
        /// @0: `PK\x01\x02`.
        pub signature: [u8; 4],
        /// @4: version made by (high byte: host system).
        pub version_made_by: U16,
        /// @6: version needed to extract.
        pub version_needed: U16,
        /// @8: general-purpose flags.
        pub flags: U16,
        /// @10: compression method.
        pub method: U16,
        /// @12: MS-DOS time.
        pub dos_time: U16,
        /// @14: MS-DOS date.
        pub dos_date: U16,
        /// @16: CRC-32 of the member data.
        pub crc32: U32,
        /// @20: compressed size, or `0xFFFFFFFF`.
        pub compressed_size: U32,
        /// @24: uncompressed size, or `0xFFFFFFFF`.
        pub uncompressed_size: U32,
        /// @28: name length.
        pub name_len: U16,
        /// @30: extra field length.
        pub extra_len: U16,
        /// @32: comment length.
        pub comment_len: U16,
        /// @34: disk number where the member starts, or `0xFFFF`.
        pub disk_start: U16,
        /// @36: internal attributes.
        pub internal_attributes: U16,
        /// @38: external attributes (Unix mode in the high 16 bits).
        pub external_attributes: U32,
        /// @42: offset of the member's local header, or `0xFFFFFFFF`.
        pub local_header_offset: U32,
    }
}

/// Size of [`CentralEntry`]: 46 bytes.
pub const CENTRAL_ENTRY_SIZE: usize = size_of::<CentralEntry>();

binfmt_core::layout! {
    /// The 22-byte end-of-central-directory record (a comment follows).
    #[derive(Eq)]
    pub struct End {
        /// @0: `PK\x05\x06`.
        pub signature: [u8; 4],
        /// @4: number of this disk.
        pub disk: U16,
        /// @6: disk where the central directory starts.
        pub cd_disk: U16,
        /// @8: entries on this disk, or `0xFFFF`.
        pub disk_entries: U16,
        /// @10: total entries, or `0xFFFF`.
        pub entries: U16,
        /// @12: central-directory size, or `0xFFFFFFFF`.
        pub cd_size: U32,
        /// @16: central-directory offset, or `0xFFFFFFFF`.
        pub cd_offset: U32,
        /// @20: comment length.
        pub comment_len: U16,
    }
}

/// Size of [`End`]: 22 bytes.
pub const END_SIZE: usize = size_of::<End>();

binfmt_core::layout! {
    /// The 20-byte ZIP64 end-of-central-directory locator, just before [`End`].
    #[derive(Eq)]
    pub struct Zip64Locator {
        /// @0: `PK\x06\x07`.
        pub signature: [u8; 4],
        /// @4: disk holding the ZIP64 record.
        pub record_disk: U32,
        /// @8: offset of the ZIP64 record.
        pub record_offset: U64,
        /// @16: total number of disks.
        pub disks: U32,
    }
}

/// Size of [`Zip64Locator`]: 20 bytes.
pub const ZIP64_LOCATOR_SIZE: usize = size_of::<Zip64Locator>();

binfmt_core::layout! {
    /// The fixed 56 bytes of the ZIP64 end-of-central-directory record.
    #[derive(Eq)]
    pub struct Zip64End {
        /// @0: `PK\x06\x06`.
        pub signature: [u8; 4],
        /// @4: size of the rest of the record (44 for this layout).
        pub record_size: U64,
        /// @12: version made by.
        pub version_made_by: U16,
        /// @14: version needed to extract.
        pub version_needed: U16,
        /// @16: number of this disk.
        pub disk: U32,
        /// @20: disk where the central directory starts.
        pub cd_disk: U32,
        /// @24: entries on this disk.
        pub disk_entries: U64,
        /// @32: total entries.
        pub entries: U64,
        /// @40: central-directory size.
        pub cd_size: U64,
        /// @48: central-directory offset.
        pub cd_offset: U64,
    }
}

/// Size of [`Zip64End`]: 56 bytes.
pub const ZIP64_END_SIZE: usize = size_of::<Zip64End>();

binfmt_core::layout! {
    /// The 4-byte header of each block of an extra field.
    #[derive(Eq)]
    pub struct ExtraBlock {
        /// @0: header ID (`0x0001` for ZIP64).
        pub id: U16,
        /// @2: length of the data that follows.
        pub len: U16,
    }
}

/// Size of [`ExtraBlock`]: 4 bytes.
pub const EXTRA_BLOCK_SIZE: usize = size_of::<ExtraBlock>();

// The sizes the format fixes; a field added or resized by mistake fails the build.
const _: () = assert!(LOCAL_HEADER_SIZE == 30 && EXTRA_BLOCK_SIZE == 4 && SLOT_SIZE == 16);
const _: () = assert!(PAYLOAD_SIZE == 116 && HEADER_SIZE == 157);
const _: () = assert!(core::mem::offset_of!(Header, payload) == 41);
const _: () = assert!(CENTRAL_ENTRY_SIZE == 46 && END_SIZE == 22);
const _: () = assert!(ZIP64_LOCATOR_SIZE == 20 && ZIP64_END_SIZE == 56);
