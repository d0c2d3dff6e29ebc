//! The 64-byte header at byte 9, its flags, and the first checks a reader runs (steps 1
//! to 3 of the open checklist). They need the first 73 bytes of the file only, so the
//! slice reader and the ranged reader run the same functions on what they have.

use binfmt_core::{Compatibility, Kind, Version, VersionPolicy, bytes, field_offset, magic};

use crate::error::{ErrorKind, Result};
use crate::raw::{self, DESCRIPTORS_OFFSET, HEADER_OFFSET, MAGIC, VERSION};

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

/// Absolute offsets of header fields, for error reports: from the layout struct.
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
pub(crate) mod at {
    use super::{HEADER_OFFSET, field_offset, raw};

    pub(crate) const VERSION: u64 = HEADER_OFFSET + field_offset!(raw::Header, version_major);
    pub(crate) const FLAGS: u64 = HEADER_OFFSET + field_offset!(raw::Header, flags);
    pub(crate) const NUM_SAMPLES: u64 = HEADER_OFFSET + field_offset!(raw::Header, num_samples);
    pub(crate) const PAGE_SIZE: u64 = HEADER_OFFSET + field_offset!(raw::Header, page_size);
    pub(crate) const FIELD_DESC_PTR: u64 =
        HEADER_OFFSET + field_offset!(raw::Header, field_desc_ptr);
    pub(crate) const METADATA_PTR: u64 = HEADER_OFFSET + field_offset!(raw::Header, metadata_ptr);
    pub(crate) const DATA_PTR: u64 = HEADER_OFFSET + field_offset!(raw::Header, data_ptr);
    pub(crate) const ALLOC_TABLE_PTR: u64 =
        HEADER_OFFSET + field_offset!(raw::Header, alloc_table_ptr);
    pub(crate) const INDEX_CRC: u64 = HEADER_OFFSET + field_offset!(raw::Header, index_crc);
    pub(crate) const HEADER_CRC: u64 = HEADER_OFFSET + field_offset!(raw::Header, header_crc);
}

/// True for a power of two from 4096 to 2^31 (the largest power of two a `u32` holds).
#[must_use]
pub const fn is_valid_page_size(page_size: u32) -> bool {
    page_size.is_power_of_two() && page_size >= MIN_PAGE_SIZE
}

/// A validated header.
///
/// ```
/// # #[cfg(not(feature = "std"))] fn main() {} // the example writes a file
/// # #[cfg(feature = "std")]
/// # fn main() -> Result<(), mldf::Error> {
/// # let file = {
/// #     let schema = mldf::Schema::new().field("n", mldf::FieldType::Int);
/// #     let options = mldf::WriterOptions::new().page_size(4096);
/// #     mldf::Writer::new(std::io::Cursor::new(Vec::new()), &schema, options)?.finish()?.into_inner()
/// # };
/// // The first 73 bytes are enough.
/// let header = mldf::Header::parse(&file[..73])?;
/// assert_eq!(header.version(), mldf::VERSION);
/// assert_eq!((header.num_fields(), header.num_samples()), (1, 0));
/// # Ok(()) }
/// ```
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
    /// Only the first 73 bytes are read; the sections are checked by [`crate::Dataset`]
    /// and [`crate::Reader`].
    ///
    /// # Errors
    /// A truncated input or wrong magic ([`ErrorKind::Layout`]), [`ErrorKind::Incomplete`],
    /// a version other than 1.x, [`ErrorKind::NotLittleEndian`],
    /// [`ErrorKind::UnsupportedFlags`], [`ErrorKind::BadPageSize`],
    /// [`ErrorKind::HeaderChecksum`].
    pub fn parse(data: &[u8]) -> Result<Header> {
        let header = Header::parse_unchecked_crc(data)?;
        header.check_crc(data)?;
        Ok(header)
    }

    /// Steps 1 and 2 of the checklist: everything but the header CRC (which whole-file
    /// verification reports separately, so that it can go on).
    pub(crate) fn parse_unchecked_crc(data: &[u8]) -> Result<Header> {
        bytes::slice(data, 0, DESCRIPTORS_OFFSET, "MLDF magic and header")?;
        magic::check(data, 0, MAGIC, "MLDF file")?;
        let raw: &raw::Header = bytes::read(data, HEADER_OFFSET, "header")?;
        if zerocopy::IntoBytes::as_bytes(raw).iter().all(|&b| b == 0) {
            return Err(ErrorKind::Incomplete.at(HEADER_OFFSET));
        }
        let version = Version::new(raw.version_major.get(), raw.version_minor.get());
        let compatibility = POLICY.check(version, at::VERSION)?;
        let flags = raw.flags.get();
        if flags & FLAG_LITTLE_ENDIAN == 0 {
            return Err(ErrorKind::NotLittleEndian { flags }.at(at::FLAGS));
        }
        let unknown = flags & MUST_UNDERSTAND_FLAGS & !(FLAG_LITTLE_ENDIAN | FLAG_CHECKSUMMED);
        if unknown != 0 {
            return Err(ErrorKind::UnsupportedFlags { bits: unknown }.at(at::FLAGS));
        }
        let page_size = raw.page_size.get();
        if !is_valid_page_size(page_size) {
            return Err(ErrorKind::BadPageSize { page_size }.at(at::PAGE_SIZE));
        }
        Ok(Header {
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
        })
    }

    /// Step 3: the header CRC of a checksummed file (nothing to check otherwise).
    pub(crate) fn check_crc(&self, data: &[u8]) -> Result<()> {
        if !self.is_checksummed() {
            return Ok(());
        }
        let covered = bytes::slice(data, 0, at::HEADER_CRC, "header")?;
        let computed = crc32fast::hash(covered);
        if computed == self.header_crc {
            Ok(())
        } else {
            Err(ErrorKind::HeaderChecksum {
                stored: self.header_crc,
                computed,
            }
            .at(at::HEADER_CRC))
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

    /// The warning a reader should give about this header, if any: a minor version
    /// newer than this library's.
    #[cfg(feature = "alloc")]
    pub(crate) fn warning(&self) -> Option<crate::Error> {
        self.compatibility.is_newer().then(|| {
            ErrorKind::NewerMinorVersion {
                found: self.version,
                known: VERSION,
            }
            .at(at::VERSION)
        })
    }
}
