//! Everything that can be wrong with a Bloscpack file, or with a request to write one.
//!
//! [`Error`] is `binfmt_core::Error<ErrorKind>`: an optional byte offset (from the start of
//! the file) and an [`ErrorKind`]. `Display` is `byte N: message`; no message names its
//! offset itself.

use binfmt_core::{Found, Layout};

use crate::checksum::Checksum;

/// A problem with a Bloscpack file or with a request to write one; [`Error`] adds where.
///
/// Variants are grouped by [`Fault`](crate::Fault): the input's (most), an unsupported
/// feature, the caller's, a limit, or the operating system's.
///
/// Struct variants are `#[non_exhaustive]`: match them with `..`, as fields may be added.
/// [`Kind::name`](binfmt_core::Kind::name) gives each variant's stable name.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A structural problem shared by every format: truncation, offset overflow, bad
    /// magic, a version we do not read.
    #[error(transparent)]
    Layout(#[from] Layout),

    /// The options byte has bits that the file's format version does not define.
    #[error(
        "the options byte is {options:#04x}, but format version {version} defines only {defined:#04x} (0x01 offsets, 0x02 metadata); the file is corrupt or from an unknown writer"
    )]
    #[non_exhaustive]
    UndefinedOptions {
        /// The byte found.
        options: u8,
        /// The file's format version.
        version: u8,
        /// The bits that version defines.
        defined: u8,
    },
    /// A checksum id above 8.
    #[error(
        "the checksum id is {id}, which is unknown (0 none, 1 adler32, 2 crc32, 3 md5, 4 sha1, 5 sha224, 6 sha256, 7 sha384, 8 sha512)"
    )]
    #[non_exhaustive]
    UnknownChecksum {
        /// The id found.
        id: u8,
    },
    /// A header size field outside its range (-1 or 0..=2147483631 for chunk sizes,
    /// -1 or more for counts).
    #[error("{field} is {value}, outside {min}..={max}")]
    #[non_exhaustive]
    FieldOutOfRange {
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
    #[error("last_chunk is {last_chunk}, larger than chunk_size {chunk_size}")]
    #[non_exhaustive]
    LastChunkTooLarge {
        /// The last chunk's size.
        last_chunk: u32,
        /// The chunk size.
        chunk_size: u32,
    },
    /// `chunk_size`, `last_chunk` and `nchunks` do not describe any possible file.
    #[error(
        "the header sizes contradict each other: chunk_size {chunk_size}, last_chunk {last_chunk}, nchunks {nchunks}: {reason}"
    )]
    #[non_exhaustive]
    InconsistentSizes {
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
    #[error("nchunks {nchunks} and max_app_chunks {max_app_chunks} are invalid together: {reason}")]
    #[non_exhaustive]
    BadAppendSlots {
        /// The chunk count.
        nchunks: i64,
        /// The spare slot count.
        max_app_chunks: i64,
        /// Which rule they break.
        reason: &'static str,
    },

    /// The metadata section names a serializer other than JSON.
    #[error("the metadata format is {found}, which is unknown; only JSON is defined")]
    #[non_exhaustive]
    UnknownMetadataFormat {
        /// The 8 bytes found.
        found: Found,
    },
    /// A metadata header byte has an undefined value.
    #[error("{field} is {value}, but only {allowed} is defined")]
    #[non_exhaustive]
    BadMetadataField {
        /// The field's name.
        field: &'static str,
        /// The value found.
        value: u8,
        /// What is allowed.
        allowed: &'static str,
    },
    /// The stored metadata is larger than the space reserved for it.
    #[error("meta_comp_size is {meta_comp_size}, larger than max_meta_size {max_meta_size}")]
    #[non_exhaustive]
    MetadataOverflowsSection {
        /// Bytes stored.
        meta_comp_size: u32,
        /// Bytes reserved.
        max_meta_size: u32,
    },
    /// Raw (uncompressed) metadata whose stored length differs from its declared length.
    #[error(
        "the metadata is stored raw, so meta_comp_size ({meta_comp_size}) must equal meta_size ({meta_size})"
    )]
    #[non_exhaustive]
    RawMetadataSize {
        /// The declared length.
        meta_size: u32,
        /// The stored length.
        meta_comp_size: u32,
    },
    /// The metadata digest does not match the stored metadata.
    #[error(
        "the {checksum} digest of the metadata does not match the {stored_len} stored bytes at byte {data_offset}; the metadata is corrupt"
    )]
    #[non_exhaustive]
    MetadataDigestMismatch {
        /// The digest kind.
        checksum: Checksum,
        /// Where the digested bytes start.
        data_offset: u64,
        /// How many bytes are digested.
        stored_len: u32,
    },
    /// The zlib stream of compressed metadata is corrupt or inflates to the wrong size.
    #[error(
        "the compressed metadata does not inflate to its declared {meta_size} bytes ({reason})"
    )]
    #[non_exhaustive]
    BadMetadataStream {
        /// The declared uncompressed length.
        meta_size: u32,
        /// What went wrong.
        reason: &'static str,
    },
    /// The metadata would inflate to more than the reader's limit
    /// ([`ReadOptions::max_metadata_size`](crate::ReadOptions::max_metadata_size)).
    #[error(
        "the metadata declares {meta_size} bytes once inflated, more than the limit of {limit}; raise ReadOptions::max_metadata_size to read it"
    )]
    #[non_exhaustive]
    MetadataLimit {
        /// The declared uncompressed length.
        meta_size: u32,
        /// The limit.
        limit: u64,
    },
    /// The metadata is not UTF-8, so it cannot be JSON.
    #[error("the metadata is not UTF-8 (valid up to its byte {valid_up_to})")]
    #[non_exhaustive]
    MetadataNotUtf8 {
        /// The length of its valid prefix.
        valid_up_to: usize,
    },
    /// The metadata is not JSON (as Python's `json` module writes it: `NaN` and
    /// `Infinity` are accepted).
    #[error("the metadata is not valid JSON: {reason} at its byte {at}")]
    #[non_exhaustive]
    MetadataNotJson {
        /// What is wrong.
        reason: &'static str,
        /// Where, in the metadata text.
        at: usize,
    },

    /// An offsets entry does not point at its chunk.
    #[error("offsets entry {index} is {stored}, but chunk {index} starts at byte {actual}")]
    #[non_exhaustive]
    OffsetMismatch {
        /// The chunk's index.
        index: u64,
        /// The value stored.
        stored: i64,
        /// Where the chunk really starts.
        actual: u64,
    },
    /// A spare offsets slot (for appending) is not -1.
    #[error("spare offsets slot {index} is {stored}, but unused slots must be -1")]
    #[non_exhaustive]
    SpareSlotInUse {
        /// The slot's index in the offsets table.
        index: u64,
        /// The value stored.
        stored: i64,
    },

    /// A chunk is not a Blosc1 buffer (version byte other than 2).
    #[error(
        "chunk {index} has Blosc format version {version}; only version 2 (c-blosc 1.x) is defined for Bloscpack"
    )]
    #[non_exhaustive]
    BloscVersion {
        /// The chunk's index.
        index: u64,
        /// The version byte.
        version: u8,
    },
    /// A chunk's Blosc buffer is one c-blosc 1.21 refuses (sizes, flags or block table
    /// that no Blosc buffer can have).
    #[error(
        "chunk {index} has an invalid Blosc header: {reason} (nbytes {nbytes}, blocksize {blocksize}, cbytes {cbytes})"
    )]
    #[non_exhaustive]
    BadBloscHeader {
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
        "chunk {index} holds {nbytes} uncompressed bytes, but the header says {expected} ({field})"
    )]
    #[non_exhaustive]
    ChunkSizeMismatch {
        /// The chunk's index.
        index: u64,
        /// The chunk's `nbytes`.
        nbytes: u32,
        /// What the header implies.
        expected: u32,
        /// `"chunk_size"` or `"last_chunk"`.
        field: &'static str,
    },
    /// A warning: the last chunk holds `last_chunk` rounded down to whole `typesize`-byte
    /// elements (1 to typesize − 1 bytes less), as bloscpack 0.11 and 0.13 wrote a numpy
    /// array whose requested chunk size was not a whole number of elements. The file is
    /// read; unpacking gives the bytes the chunks hold. Those releases also dropped what
    /// rounding chunk_size down cut from each chunk, so the array the metadata describes
    /// can be longer than the header says.
    #[error(
        "the header's sizes promise {promised} bytes, the chunks hold {held}: the last chunk holds last_chunk ({last_chunk}) rounded down to whole {typesize}-byte elements, as bloscpack 0.11 and 0.13 wrote it{}",
        if *.metadata {
            "; the array the metadata describes can be longer still (those releases also dropped what rounding chunk_size down to whole elements cut from each chunk)"
        } else {
            ""
        }
    )]
    #[non_exhaustive]
    ShortLastChunk {
        /// The uncompressed size the header gives.
        promised: u64,
        /// The bytes the chunks hold.
        held: u64,
        /// The header's last_chunk.
        last_chunk: u32,
        /// The header's typesize (the array's itemsize).
        typesize: u8,
        /// Whether the file has metadata (whose shape can promise more than the header).
        metadata: bool,
    },
    /// A chunk's digest does not match its bytes.
    #[error(
        "the {checksum} digest of chunk {index} (at byte {chunk_offset}, {cbytes} bytes) does not match; the chunk is corrupt"
    )]
    #[non_exhaustive]
    ChunkDigestMismatch {
        /// The chunk's index.
        index: u64,
        /// Where the chunk starts.
        chunk_offset: u64,
        /// The chunk's length.
        cbytes: u32,
        /// The digest kind.
        checksum: Checksum,
    },
    /// A warning: bytes after the last chunk's digest (bloscpack's append can leave some).
    #[error("{len} bytes after the last chunk are not part of the file")]
    #[non_exhaustive]
    TrailingBytes {
        /// How many.
        len: u64,
    },
    /// A warning: an append was interrupted before or while it committed; its undo record
    /// is at the end of the file. The next `fs::append` (or `fs::repair`) restores the
    /// last committed state (or finishes a committed append) and removes it.
    #[error(
        "an interrupted append left {len} bytes after the last committed chunk (its undo record); the next append or fs::repair removes them"
    )]
    #[non_exhaustive]
    InterruptedAppend {
        /// The bytes after the committed end, the undo record included.
        len: u64,
    },
    /// A chunk uses a codec this build of c-blosc cannot decode.
    #[error(
        "chunk {index} uses codec {codec}, which this build cannot decompress (it has blosclz, lz4, lz4hc, zlib and zstd)"
    )]
    #[non_exhaustive]
    UnsupportedCodec {
        /// The chunk's index.
        index: u64,
        /// The codec's name, or `"unknown"`.
        codec: &'static str,
    },
    /// c-blosc rejected a chunk.
    #[error("c-blosc cannot decompress chunk {index} (its code {code}); the chunk is corrupt")]
    #[non_exhaustive]
    Decompress {
        /// The chunk's index.
        index: u64,
        /// c-blosc's return value.
        code: i32,
    },

    /// c-blosc refused to compress a chunk (it documents this as "should never happen").
    #[error("c-blosc could not compress a chunk (its code {code})")]
    #[non_exhaustive]
    Compress {
        /// c-blosc's return value.
        code: i32,
    },

    /// A caller-supplied buffer or setting cannot be used.
    #[error("invalid {what}: {reason}")]
    #[non_exhaustive]
    InvalidArgument {
        /// The argument.
        what: &'static str,
        /// Why, and what would work.
        reason: &'static str,
    },
    /// A value given to the writer is outside the range the format allows.
    #[error("{what} is {value}, outside {min}..={max}")]
    #[non_exhaustive]
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
    #[non_exhaustive]
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
    #[non_exhaustive]
    NotEnoughSpace {
        /// New chunks needed.
        needed: u64,
        /// Spare slots left.
        available: u64,
    },
    /// The file cannot be appended to.
    #[error("cannot append to this file: {reason}")]
    #[non_exhaustive]
    CannotAppend {
        /// Why.
        reason: &'static str,
    },
    /// The data would decompress to more than the caller's limit.
    #[error("the file decompresses to {bytes} bytes, more than the limit of {limit}")]
    #[non_exhaustive]
    TooLarge {
        /// The uncompressed length.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// An allocation for decompressed data failed.
    #[error("cannot allocate {bytes} bytes for the decompressed data")]
    #[non_exhaustive]
    OutOfMemory {
        /// Bytes requested.
        bytes: u64,
    },

    /// Reading or writing failed.
    #[cfg(feature = "std")]
    #[error(transparent)]
    Io(#[from] binfmt_core::IoError),
}

binfmt_core::kind_table! {
    ErrorKind;
    Fault::Input => UndefinedOptions, UnknownChecksum, FieldOutOfRange, LastChunkTooLarge,
        InconsistentSizes, BadAppendSlots, UnknownMetadataFormat, BadMetadataField,
        MetadataOverflowsSection, RawMetadataSize, MetadataDigestMismatch, BadMetadataStream,
        MetadataNotUtf8, MetadataNotJson, OffsetMismatch, SpareSlotInUse, BloscVersion,
        BadBloscHeader, ChunkSizeMismatch, ShortLastChunk, ChunkDigestMismatch, TrailingBytes,
        InterruptedAppend, Decompress;
    Fault::Unsupported => UnsupportedCodec, Compress;
    Fault::Caller => InvalidArgument, ArgumentOutOfRange, MetadataTooLarge, NotEnoughSpace,
        CannotAppend;
    Fault::Limit => MetadataLimit, TooLarge, OutOfMemory;
}

/// A problem and, when it is in the input, the byte offset at which it was found.
///
/// With the `alloc` feature (on by default, through `std`) an `Error` is one pointer
/// (8 bytes on 64-bit targets), and so is a `Result<(), Error>`: the offset and the kind
/// share one allocation, made on the error path only ([`binfmt_core::Error`], "Size").
/// Without `alloc` they are inline: 72 bytes on 64-bit targets.
pub type Error = binfmt_core::Error<ErrorKind>;

/// The result of this crate's fallible functions.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// An I/O error without a path, as this crate's error.
#[cfg(feature = "blosc")]
pub(crate) fn io(e: std::io::Error) -> Error {
    Error::from(binfmt_core::IoError::from(e))
}

/// An I/O error about `path`, as this crate's error.
#[cfg(feature = "blosc")]
pub(crate) fn io_at(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::from(binfmt_core::IoError::new(Some(path.to_path_buf()), e))
}
