//! The magic, the 64-byte header at byte 9, and the checks a reader runs on them first.

use binfmt_core::{Compatibility, Version, VersionPolicy, bytes, magic};

use crate::error::{Error, Result};
use crate::raw;

/// The 9-byte signature at the start of every MLDF file (`\x89MLDF\r\n\x1a\n`).
pub const MAGIC: &[u8] = b"\x89MLDF\r\n\x1a\n";

/// Absolute offset of the header (right after the 9-byte magic).
pub const HEADER_OFFSET: u64 = 9;

/// Absolute offset just past the header, where both writer layouts put the descriptors.
pub const DESCRIPTORS_OFFSET: u64 = 73;

/// Size of one field descriptor.
pub const DESCRIPTOR_SIZE: u64 = 208;

/// Size of one allocation table entry.
pub const ALLOC_ENTRY_SIZE: u64 = 16;

/// The format version this crate reads and writes.
pub const VERSION: Version = Version::new(1, 0);

/// The default page size: 2 MiB.
pub const DEFAULT_PAGE_SIZE: u32 = 2 * 1024 * 1024;

/// The smallest valid page size.
pub const MIN_PAGE_SIZE: u32 = 4096;

/// Header flag: all multi-byte values are little-endian (required).
pub const FLAG_LITTLE_ENDIAN: u32 = 0x1;
/// Header flag, reserved: a compressed data region. Readers reject it.
pub const FLAG_COMPRESSED: u32 = 0x2;
/// Header flag: item, index and header CRC-32s are stored.
pub const FLAG_CHECKSUMMED: u32 = 0x4;
/// Header flag, reserved: an encrypted data region. Readers reject it.
pub const FLAG_ENCRYPTED: u32 = 0x8;
/// Bits 0–15: a reader must understand every one that is set.
pub const MUST_UNDERSTAND_FLAGS: u32 = 0xFFFF;

/// Field flag: a missing value is stored as an all-zero slot and read as null.
pub const FIELD_FLAG_NULLABLE: u16 = 0x1;

const POLICY: VersionPolicy = VersionPolicy::single_major("MLDF file", VERSION);

/// Absolute offsets of header fields, for error reports.
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
pub(crate) mod at {
    pub(crate) const VERSION: u64 = 9;
    pub(crate) const FLAGS: u64 = 13;
    pub(crate) const NUM_SAMPLES: u64 = 17;
    pub(crate) const PAGE_SIZE: u64 = 29;
    pub(crate) const FIELD_DESC_PTR: u64 = 33;
    pub(crate) const METADATA_PTR: u64 = 41;
    pub(crate) const DATA_PTR: u64 = 49;
    pub(crate) const ALLOC_TABLE_PTR: u64 = 57;
    pub(crate) const INDEX_CRC: u64 = 65;
    pub(crate) const HEADER_CRC: u64 = 69;
}

/// True for a power of two from 4096 to 2^31 (the largest power of two a `u32` holds).
#[must_use]
pub const fn is_valid_page_size(page_size: u32) -> bool {
    page_size.is_power_of_two() && page_size >= MIN_PAGE_SIZE
}

/// A validated header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Header {
    version: Version,
    compatibility: Compatibility,
    flags: u32,
    num_samples: u64,
    num_fields: u16,
    page_size: u32,
    field_desc_ptr: u64,
    metadata_ptr: u64,
    data_ptr: u64,
    alloc_table_ptr: u64,
    index_crc: u32,
    header_crc: u32,
}

impl Header {
    /// Reads and checks the magic and header at the start of `data`: the version, the
    /// flags, the page size, and the header CRC when the file is checksummed.
    ///
    /// Only the first 73 bytes are read; sections are checked by [`crate::Dataset`].
    ///
    /// # Errors
    /// A truncated input or wrong magic ([`Error::Layout`]), [`Error::Incomplete`],
    /// a version other than 1.x, [`Error::NotLittleEndian`], [`Error::UnsupportedFlags`],
    /// [`Error::BadPageSize`], [`Error::HeaderChecksum`].
    pub fn parse(data: &[u8]) -> Result<Header> {
        Header::parse_checked(data, true)
    }

    pub(crate) fn parse_checked(data: &[u8], check_crc: bool) -> Result<Header> {
        bytes::slice(data, 0, DESCRIPTORS_OFFSET, "MLDF magic and header")?;
        magic::check(data, 0, MAGIC, "MLDF file")?;
        let raw: &raw::Header = bytes::read(data, HEADER_OFFSET, "header")?;
        let raw_bytes = zerocopy::IntoBytes::as_bytes(raw);
        if raw_bytes.iter().all(|&b| b == 0) {
            return Err(Error::Incomplete {
                offset: HEADER_OFFSET,
            });
        }
        let version = Version::new(raw.version_major.get(), raw.version_minor.get());
        let compatibility = POLICY.check(version, at::VERSION)?;
        let flags = raw.flags.get();
        if flags & FLAG_LITTLE_ENDIAN == 0 {
            return Err(Error::NotLittleEndian {
                offset: at::FLAGS,
                flags,
            });
        }
        let unknown = flags & MUST_UNDERSTAND_FLAGS & !(FLAG_LITTLE_ENDIAN | FLAG_CHECKSUMMED);
        if unknown != 0 {
            return Err(Error::UnsupportedFlags {
                offset: at::FLAGS,
                bits: unknown,
            });
        }
        let page_size = raw.page_size.get();
        if !is_valid_page_size(page_size) {
            return Err(Error::BadPageSize {
                offset: Some(at::PAGE_SIZE),
                page_size,
            });
        }
        let header = Header {
            version,
            compatibility,
            flags,
            num_samples: raw.num_samples.get(),
            num_fields: raw.num_fields.get(),
            page_size,
            field_desc_ptr: raw.field_desc_ptr.get(),
            metadata_ptr: raw.metadata_ptr.get(),
            data_ptr: raw.data_ptr.get(),
            alloc_table_ptr: raw.alloc_table_ptr.get(),
            index_crc: raw.index_crc.get(),
            header_crc: raw.header_crc.get(),
        };
        if check_crc {
            header.check_crc(data)?;
        }
        Ok(header)
    }

    /// Checks the header CRC of a checksummed file (nothing to check otherwise).
    pub(crate) fn check_crc(&self, data: &[u8]) -> Result<()> {
        if !self.is_checksummed() {
            return Ok(());
        }
        let covered = bytes::slice(data, 0, at::HEADER_CRC, "header")?;
        let computed = crc32fast::hash(covered);
        if computed == self.header_crc {
            Ok(())
        } else {
            Err(Error::HeaderChecksum {
                offset: at::HEADER_CRC,
                stored: self.header_crc,
                computed,
            })
        }
    }

    /// The format version stored in the file.
    #[must_use]
    pub const fn version(&self) -> Version {
        self.version
    }

    /// How the file's version relates to [`VERSION`] (a newer minor is readable).
    #[must_use]
    pub const fn compatibility(&self) -> Compatibility {
        self.compatibility
    }

    /// The header flags.
    #[must_use]
    pub const fn flags(&self) -> u32 {
        self.flags
    }

    /// True when [`FLAG_CHECKSUMMED`] is set.
    #[must_use]
    pub const fn is_checksummed(&self) -> bool {
        self.flags & FLAG_CHECKSUMMED != 0
    }

    /// The number of samples N.
    #[must_use]
    pub const fn num_samples(&self) -> u64 {
        self.num_samples
    }

    /// The number of fields F.
    #[must_use]
    pub const fn num_fields(&self) -> u16 {
        self.num_fields
    }

    /// The page size.
    #[must_use]
    pub const fn page_size(&self) -> u32 {
        self.page_size
    }

    /// Absolute offset of the first field descriptor.
    #[must_use]
    pub const fn field_desc_ptr(&self) -> u64 {
        self.field_desc_ptr
    }

    /// Absolute offset of the metadata table.
    #[must_use]
    pub const fn metadata_ptr(&self) -> u64 {
        self.metadata_ptr
    }

    /// Absolute offset of the data region.
    #[must_use]
    pub const fn data_ptr(&self) -> u64 {
        self.data_ptr
    }

    /// Absolute offset of the allocation table.
    #[must_use]
    pub const fn alloc_table_ptr(&self) -> u64 {
        self.alloc_table_ptr
    }

    /// The stored index CRC (0 unless checksummed).
    #[must_use]
    pub const fn index_crc(&self) -> u32 {
        self.index_crc
    }

    /// The stored header CRC (0 unless checksummed).
    #[must_use]
    pub const fn header_crc(&self) -> u32 {
        self.header_crc
    }
}
