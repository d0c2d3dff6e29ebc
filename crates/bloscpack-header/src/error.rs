//! Everything that can be wrong with a Bloscpack file, or with a request to write one.

use binfmt_core::{Diagnostic, Fault, Found};

use crate::checksum::Checksum;

/// A problem with a Bloscpack file or with a request to write one.
///
/// Every variant about the input carries the byte offset (from the start of the file)
/// at which the problem was found, and the values found and expected.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A structural problem shared by every format: truncation, offset overflow, bad
    /// magic, a version we do not read.
    #[error(transparent)]
    Layout(#[from] binfmt_core::Error),

    /// The options byte has bits that the file's format version does not define.
    #[error(
        "the options byte at byte {offset} is {options:#04x}, but format version {version} defines only {defined:#04x} (0x01 offsets, 0x02 metadata); the file is corrupt or from an unknown writer"
    )]
    UndefinedOptions {
        /// Where the options byte is (5).
        offset: u64,
        /// The byte found.
        options: u8,
        /// The file's format version.
        version: u8,
        /// The bits that version defines.
        defined: u8,
    },
    /// A checksum id above 8.
    #[error(
        "the checksum id at byte {offset} is {id}, which is unknown (0 none, 1 adler32, 2 crc32, 3 md5, 4 sha1, 5 sha224, 6 sha256, 7 sha384, 8 sha512)"
    )]
    UnknownChecksum {
        /// Where the id is.
        offset: u64,
        /// The id found.
        id: u8,
    },
    /// A header size field outside its range (-1 or 0..=2147483631 for chunk sizes,
    /// -1 or more for counts).
    #[error("{field} at byte {offset} is {value}, outside {min}..={max}")]
    FieldOutOfRange {
        /// Where the field is.
        offset: u64,
        /// The field's name.
        field: &'static str,
        /// The value found.
        value: i64,
        /// The smallest valid value.
        min: i64,
        /// The largest valid value.
        max: i64,
    },
    /// `last_chunk` is larger than `chunk_size`.
    #[error("last_chunk at byte {offset} is {last_chunk}, larger than chunk_size {chunk_size}")]
    LastChunkTooLarge {
        /// Where `last_chunk` is (12).
        offset: u64,
        /// The last chunk's size.
        last_chunk: u32,
        /// The chunk size.
        chunk_size: u32,
    },
    /// `chunk_size`, `last_chunk` and `nchunks` do not describe any possible file.
    #[error(
        "the header sizes contradict each other (at byte {offset}): chunk_size {chunk_size}, last_chunk {last_chunk}, nchunks {nchunks}: {reason}"
    )]
    InconsistentSizes {
        /// Where the first field involved is.
        offset: u64,
        /// The chunk size (-1 = unknown).
        chunk_size: i64,
        /// The last chunk's size (-1 = unknown).
        last_chunk: i64,
        /// The chunk count (-1 = unknown).
        nchunks: i64,
        /// Which rule they break.
        reason: &'static str,
    },
    /// `nchunks + max_app_chunks` does not fit an `i64`, or spare slots are declared for an
    /// unknown chunk count, or an offsets section is declared for an unknown chunk count.
    #[error(
        "nchunks {nchunks} and max_app_chunks {max_app_chunks} (at byte {offset}) are invalid together: {reason}"
    )]
    BadAppendSlots {
        /// Where `max_app_chunks` is (24).
        offset: u64,
        /// The chunk count.
        nchunks: i64,
        /// The spare slot count.
        max_app_chunks: i64,
        /// Which rule they break.
        reason: &'static str,
    },

    /// The metadata section names a serializer other than JSON.
    #[error(
        "the metadata format at byte {offset} is {found}, which is unknown; only JSON is defined"
    )]
    UnknownMetadataFormat {
        /// Where the metadata header starts.
        offset: u64,
        /// The 8 bytes found.
        found: Found,
    },
    /// A metadata header byte has an undefined value.
    #[error("{field} at byte {offset} is {value}, but only {allowed} is defined")]
    BadMetadataField {
        /// Where the byte is.
        offset: u64,
        /// The field's name.
        field: &'static str,
        /// The value found.
        value: u8,
        /// What is allowed.
        allowed: &'static str,
    },
    /// The stored metadata is larger than the space reserved for it.
    #[error(
        "meta_comp_size at byte {offset} is {meta_comp_size}, larger than max_meta_size {max_meta_size}"
    )]
    MetadataOverflowsSection {
        /// Where `meta_comp_size` is.
        offset: u64,
        /// Bytes stored.
        meta_comp_size: u32,
        /// Bytes reserved.
        max_meta_size: u32,
    },
    /// Raw (uncompressed) metadata whose stored length differs from its declared length.
    #[error(
        "the metadata is stored raw, so meta_comp_size ({meta_comp_size}) must equal meta_size ({meta_size}, at byte {offset})"
    )]
    RawMetadataSize {
        /// Where `meta_size` is.
        offset: u64,
        /// The declared length.
        meta_size: u32,
        /// The stored length.
        meta_comp_size: u32,
    },
    /// The metadata digest does not match the stored metadata.
    #[error(
        "the {checksum} digest of the metadata at byte {offset} does not match the {stored_len} stored bytes at byte {data_offset}; the metadata is corrupt"
    )]
    MetadataDigestMismatch {
        /// Where the digest is stored.
        offset: u64,
        /// The digest kind.
        checksum: Checksum,
        /// Where the digested bytes start.
        data_offset: u64,
        /// How many bytes are digested.
        stored_len: u32,
    },
    /// The zlib stream of compressed metadata is corrupt or inflates to the wrong size.
    #[error(
        "the compressed metadata at byte {offset} does not inflate to its declared {meta_size} bytes ({reason})"
    )]
    BadMetadataStream {
        /// Where the stored metadata starts.
        offset: u64,
        /// The declared uncompressed length.
        meta_size: u32,
        /// What went wrong.
        reason: &'static str,
    },
    /// The metadata is not UTF-8, so it cannot be JSON.
    #[error("the metadata at byte {offset} is not UTF-8 (valid up to its byte {valid_up_to})")]
    MetadataNotUtf8 {
        /// Where the stored metadata starts.
        offset: u64,
        /// The length of its valid prefix.
        valid_up_to: usize,
    },

    /// An offsets entry does not point at its chunk.
    #[error(
        "offsets entry {index} at byte {offset} is {stored}, but chunk {index} starts at byte {actual}"
    )]
    OffsetMismatch {
        /// Where the entry is.
        offset: u64,
        /// The chunk's index.
        index: u64,
        /// The value stored.
        stored: i64,
        /// Where the chunk really starts.
        actual: u64,
    },
    /// A spare offsets slot (for appending) is not -1.
    #[error("spare offsets slot {index} at byte {offset} is {stored}, but unused slots must be -1")]
    SpareSlotInUse {
        /// Where the entry is.
        offset: u64,
        /// The slot's index in the offsets table.
        index: u64,
        /// The value stored.
        stored: i64,
    },

    /// A chunk is not a Blosc1 buffer (version byte other than 2).
    #[error(
        "chunk {index} at byte {offset} has Blosc format version {version}; only version 2 (c-blosc 1.x) is defined for Bloscpack"
    )]
    BloscVersion {
        /// Where the chunk starts.
        offset: u64,
        /// The chunk's index.
        index: u64,
        /// The version byte.
        version: u8,
    },
    /// A chunk's Blosc header is impossible (sizes that no Blosc buffer can have).
    #[error(
        "chunk {index} at byte {offset} has an invalid Blosc header: {reason} (nbytes {nbytes}, blocksize {blocksize}, cbytes {cbytes})"
    )]
    BadBloscHeader {
        /// Where the chunk starts.
        offset: u64,
        /// The chunk's index.
        index: u64,
        /// Uncompressed size.
        nbytes: u32,
        /// Block size.
        blocksize: u32,
        /// Compressed size.
        cbytes: u32,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A chunk's uncompressed size disagrees with the header's chunk_size or last_chunk.
    #[error(
        "chunk {index} holds {nbytes} uncompressed bytes (nbytes at byte {offset}), but the header says {expected} ({field})"
    )]
    ChunkSizeMismatch {
        /// Where the chunk's `nbytes` is.
        offset: u64,
        /// The chunk's index.
        index: u64,
        /// The chunk's `nbytes`.
        nbytes: u32,
        /// What the header implies.
        expected: u32,
        /// `"chunk_size"` or `"last_chunk"`.
        field: &'static str,
    },
    /// A chunk's digest does not match its bytes.
    #[error(
        "the {checksum} digest at byte {offset} of chunk {index} (at byte {chunk_offset}, {cbytes} bytes) does not match; the chunk is corrupt"
    )]
    ChunkDigestMismatch {
        /// Where the digest is stored.
        offset: u64,
        /// The chunk's index.
        index: u64,
        /// Where the chunk starts.
        chunk_offset: u64,
        /// The chunk's length.
        cbytes: u32,
        /// The digest kind.
        checksum: Checksum,
    },
    /// A chunk uses a codec this build of c-blosc cannot decode.
    #[error(
        "chunk {index} at byte {offset} uses codec {codec}, which this build cannot decompress (it has blosclz, lz4, lz4hc, zlib and zstd)"
    )]
    UnsupportedCodec {
        /// Where the chunk's flags are.
        offset: u64,
        /// The chunk's index.
        index: u64,
        /// The codec's name, or `"unknown"`.
        codec: &'static str,
    },
    /// c-blosc rejected a chunk.
    #[error(
        "c-blosc cannot decompress chunk {index} at byte {offset} (its code {code}); the chunk is corrupt"
    )]
    Decompress {
        /// Where the chunk starts.
        offset: u64,
        /// The chunk's index.
        index: u64,
        /// c-blosc's return value.
        code: i32,
    },

    /// c-blosc refused to compress a chunk (it documents this as "should never happen").
    #[error("c-blosc could not compress a chunk (its code {code})")]
    Compress {
        /// c-blosc's return value.
        code: i32,
    },

    /// A caller-supplied buffer or setting cannot be used.
    #[error("invalid {what}: {reason}")]
    InvalidArgument {
        /// The argument.
        what: &'static str,
        /// Why, and what would work.
        reason: &'static str,
    },
    /// A value given to the writer is outside the range the format allows.
    #[error("{what} is {value}, outside {min}..={max}")]
    ArgumentOutOfRange {
        /// The argument.
        what: &'static str,
        /// The value given.
        value: u64,
        /// The smallest valid value.
        min: u64,
        /// The largest valid value.
        max: u64,
    },
    /// New metadata does not fit the space reserved for it.
    #[error(
        "the metadata needs {needed} bytes but max_meta_size is {max_meta_size}; raise max_meta_size"
    )]
    MetadataTooLarge {
        /// Bytes needed.
        needed: u64,
        /// Bytes reserved.
        max_meta_size: u64,
    },
    /// An append needs more spare offset slots than the file has.
    #[error(
        "appending needs {needed} new chunks but the file has only {available} spare offset slots; repack it with more max_app_chunks"
    )]
    NotEnoughSpace {
        /// New chunks needed.
        needed: u64,
        /// Spare slots left.
        available: u64,
    },
    /// The file cannot be appended to.
    #[error("cannot append to this file: {reason}")]
    CannotAppend {
        /// Why.
        reason: &'static str,
    },
    /// The data would decompress to more than the caller's limit.
    #[error("the file decompresses to {bytes} bytes, more than the limit of {limit}")]
    TooLarge {
        /// The uncompressed length.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// An allocation for decompressed data failed.
    #[error("cannot allocate {bytes} bytes for the decompressed data")]
    OutOfMemory {
        /// Bytes requested.
        bytes: u64,
    },

    /// Reading or writing failed.
    #[cfg(feature = "std")]
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// The result of this crate's fallible functions.
pub type Result<T, E = Error> = core::result::Result<T, E>;

impl Error {
    /// Whose fault the problem is.
    #[must_use]
    pub fn fault(&self) -> Fault {
        match self {
            Error::Layout(e) => e.fault(),
            Error::UnsupportedCodec { .. } | Error::Compress { .. } => Fault::Unsupported,
            Error::InvalidArgument { .. }
            | Error::ArgumentOutOfRange { .. }
            | Error::MetadataTooLarge { .. }
            | Error::NotEnoughSpace { .. }
            | Error::CannotAppend { .. } => Fault::Caller,
            Error::OutOfMemory { .. } | Error::TooLarge { .. } => Fault::Limit,
            #[cfg(feature = "std")]
            Error::Io(_) => Fault::Io,
            _ => Fault::Input,
        }
    }

    /// The byte offset of the problem in the input, when it is about the input.
    #[must_use]
    pub fn offset(&self) -> Option<u64> {
        match *self {
            Error::Layout(ref e) => Some(e.offset()),
            Error::UndefinedOptions { offset, .. }
            | Error::UnknownChecksum { offset, .. }
            | Error::FieldOutOfRange { offset, .. }
            | Error::LastChunkTooLarge { offset, .. }
            | Error::InconsistentSizes { offset, .. }
            | Error::BadAppendSlots { offset, .. }
            | Error::UnknownMetadataFormat { offset, .. }
            | Error::BadMetadataField { offset, .. }
            | Error::MetadataOverflowsSection { offset, .. }
            | Error::RawMetadataSize { offset, .. }
            | Error::MetadataDigestMismatch { offset, .. }
            | Error::BadMetadataStream { offset, .. }
            | Error::MetadataNotUtf8 { offset, .. }
            | Error::OffsetMismatch { offset, .. }
            | Error::SpareSlotInUse { offset, .. }
            | Error::BloscVersion { offset, .. }
            | Error::BadBloscHeader { offset, .. }
            | Error::ChunkSizeMismatch { offset, .. }
            | Error::ChunkDigestMismatch { offset, .. }
            | Error::UnsupportedCodec { offset, .. }
            | Error::Decompress { offset, .. } => Some(offset),
            _ => None,
        }
    }
}

impl Diagnostic for Error {
    fn fault(&self) -> Fault {
        Error::fault(self)
    }
    fn offset(&self) -> Option<u64> {
        Error::offset(self)
    }
}

#[cfg(feature = "std")]
impl From<Error> for std::io::Error {
    fn from(e: Error) -> Self {
        match e {
            Error::Io(source) => source,
            other => std::io::Error::new(other.fault().io_error_kind(), other),
        }
    }
}
