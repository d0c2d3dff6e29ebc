//! Everything that can go wrong, each with the byte offset at which it was found.
//!
//! Errors about an index carry offsets into the .taridx file; errors about a tar shard
//! carry the shard's id (`shard`, its position in the fold) and offsets into that shard.

use core::fmt;

use binfmt_core::{Diagnostic, Fault};

/// Which text block of the index an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Block {
    /// The extension block (ids are positions).
    Extensions,
    /// The crash-stem block (ids are positions + 1).
    CrashStems,
}

impl fmt::Display for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Block::Extensions => "extension block",
            Block::CrashStems => "crash-stem block",
        })
    }
}

/// Which tar structure ran past the end of its shard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TarPart {
    /// A member's payload.
    Member,
    /// A pax (`x`/`g`) or GNU long-name (`L`/`K`) pseudo-member's data.
    ExtendedHeader,
    /// An old GNU sparse extension block.
    SparseMap,
}

impl fmt::Display for TarPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TarPart::Member => "member data",
            TarPart::ExtendedHeader => "extended header data",
            TarPart::SparseMap => "sparse map extension block",
        })
    }
}

/// An error from reading or writing an index, or from indexing tar shards.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A structural problem shared by every format (truncated input, bad magic, version).
    #[error(transparent)]
    Layout(#[from] binfmt_core::Error),

    /// `rec_size` is not 32.
    #[error(
        "the row size (rec_size) is {found}, but .taridx v1 rows are 32 bytes; the file is corrupt or not a v1 index (a lenient read ignores this field)"
    )]
    RecordSize {
        /// The stored row size.
        found: u16,
    },
    /// `hdr_size` is not 64.
    #[error(
        "the header size (hdr_size) is {found}, but .taridx v1 headers are 64 bytes; the file is corrupt or not a v1 index (a lenient read ignores this field)"
    )]
    HeaderSize {
        /// The stored header size.
        found: u16,
    },
    /// `off_crash` is below 64 or past `off_arr` or the end of the file.
    #[error(
        "the crash block offset (off_crash) {value} must lie between 64 and the rows offset {off_arr} (file length {file_len}); the header is corrupt"
    )]
    CrashOffset {
        /// The stored crash block offset.
        value: u64,
        /// The stored rows offset.
        off_arr: u64,
        /// The length of the file.
        file_len: u64,
    },
    /// `off_arr` lies past the end of the file.
    #[error(
        "the rows offset (off_arr) {value} lies past the end of the file ({file_len} bytes); the file is truncated or the header is corrupt"
    )]
    RowsOffset {
        /// The stored rows offset.
        value: u64,
        /// The length of the file.
        file_len: u64,
    },
    /// The bytes after `off_arr` are not exactly `n_rows` rows.
    #[error(
        "the header declares {n_rows} rows (n_rows) ({} bytes), but {available} bytes follow the rows offset {off_arr}; the file is truncated or has trailing bytes",
        n_rows.saturating_mul(32)
    )]
    RowBytes {
        /// The stored row count.
        n_rows: u64,
        /// Where the rows start.
        off_arr: u64,
        /// How many bytes follow it.
        available: u64,
    },
    /// A text block is not valid UTF-8.
    #[error("the {block} is not valid UTF-8")]
    BlockText {
        /// The block.
        block: Block,
        /// The offset of the first invalid byte.
        offset: u64,
    },
    /// A text block holds a different number of entries than the header declares.
    #[error(
        "the header declares {declared} entries in the {block}, which holds {found} (entries are separated by '\\n')"
    )]
    BlockCount {
        /// The block.
        block: Block,
        /// The count in the header.
        declared: u64,
        /// The number of `\n`-separated entries in the block.
        found: u64,
    },
    /// A row's extension id is not below `n_ext`.
    #[error("row {row} has extension id {extid}, but the index has {n_ext} extensions")]
    ExtId {
        /// The row number (0-based).
        row: u64,
        /// The offset of the row's `extid` field.
        offset: u64,
        /// The stored id.
        extid: u16,
        /// The number of extensions.
        n_ext: u32,
    },
    /// A row's crash id is above `n_crash`.
    #[error("row {row} has crash id {crashid}, but the index has {n_crash} crash stems")]
    CrashId {
        /// The row number (0-based).
        row: u64,
        /// The offset of the row's `crashid` field.
        offset: u64,
        /// The stored id.
        crashid: u32,
        /// The number of crash stems.
        n_crash: u32,
    },
    /// Deep check: `n_stems` differs from the number of distinct `(keyhash, crashid)` pairs.
    #[error(
        "the header declares {declared} stems (n_stems), but the rows hold {found} distinct (keyhash, crashid) pairs"
    )]
    StemCount {
        /// The count in the header.
        declared: u64,
        /// The recomputed count.
        found: u64,
    },
    /// Deep check: flag bit 0 does not match the rows.
    #[error(
        "flag bit 0 says the rows are {}contiguous by (keyhash, crashid), but they are {}",
        if *declared { "" } else { "not " },
        if *declared { "not" } else { "contiguous" }
    )]
    Flags {
        /// The stored bit.
        declared: bool,
    },
    /// More rows than the in-memory lookup structures can address (u32 row numbers).
    #[error("{n_rows} rows exceed the 4,294,967,295 rows a stem map can address")]
    TooManyRows {
        /// The row count.
        n_rows: u64,
    },
    /// Positional access to samples needs rows grouped by sample.
    #[error(
        "the rows are not contiguous by (keyhash, crashid), so samples have no positions; rebuild the index with each sample's members together"
    )]
    NotContiguous,

    /// Fewer than 512 bytes remain where a tar header should start.
    #[error("truncated tar header in shard {shard} ({available} of 512 bytes)")]
    TarHeaderTruncated {
        /// The shard id.
        shard: u16,
        /// Where the header starts.
        offset: u64,
        /// The bytes left in the shard.
        available: u64,
    },
    /// A tar header's checksum does not match its bytes.
    #[error(
        "tar header checksum mismatch in shard {shard} (stored {stored}, computed {unsigned} unsigned / {signed} signed); the shard is corrupt"
    )]
    TarChecksum {
        /// The shard id.
        shard: u16,
        /// Where the header starts.
        offset: u64,
        /// The stored checksum.
        stored: u64,
        /// The sum of the header bytes as unsigned bytes.
        unsigned: u64,
        /// The sum of the header bytes as signed bytes.
        signed: i64,
    },
    /// A numeric tar header field is neither octal nor base-256, or does not fit 64 bits.
    #[error("the {field} field of a tar header in shard {shard} is not a valid number")]
    TarNumber {
        /// The shard id.
        shard: u16,
        /// The offset of the field.
        offset: u64,
        /// The field's name.
        field: &'static str,
    },
    /// A base-256 size field is negative.
    #[error("the {field} field of a tar header in shard {shard} is negative")]
    TarNegative {
        /// The shard id.
        shard: u16,
        /// The offset of the field.
        offset: u64,
        /// The field's name.
        field: &'static str,
    },
    /// A member or pseudo-member extends past the end of its shard.
    #[error(
        "the {part} of an entry in shard {shard} ends at byte {end}, past the end of the shard ({len} bytes); the shard is truncated"
    )]
    TarTruncated {
        /// The shard id.
        shard: u16,
        /// Where the entry's header starts.
        offset: u64,
        /// What is cut.
        part: TarPart,
        /// Where it would end.
        end: u64,
        /// The shard's length.
        len: u64,
    },
    /// A pax extended header is malformed.
    #[error("malformed pax extended header in shard {shard}: {reason}")]
    Pax {
        /// The shard id.
        shard: u16,
        /// Where the pax record starts.
        offset: u64,
        /// What is wrong.
        reason: &'static str,
    },
    /// A member's resolved name is not valid UTF-8 (index with lossy names to replace it).
    #[error(
        "a member name in shard {shard} is not valid UTF-8; index with lossy names to replace invalid bytes with U+FFFD as glzn does"
    )]
    NameUtf8 {
        /// The shard id.
        shard: u16,
        /// Where the member's header starts.
        offset: u64,
    },
    /// A stem or extension contains `\n`, which would corrupt the index's text blocks.
    #[error(
        "a member's stem or extension in shard {shard} contains a newline, which a .taridx text block cannot hold; rename the member"
    )]
    Newline {
        /// The shard id.
        shard: u16,
        /// Where the member's header starts.
        offset: u64,
    },
    /// More shards than a 16-bit shard id can number.
    #[error(
        "{count} shards given, but a .taridx shard id is 16 bits (at most 65,536 shards); split the fold"
    )]
    TooManyShards {
        /// The number of shards.
        count: usize,
    },
    /// More extensions than a 16-bit extension id can number.
    #[error("a 65,537th distinct extension in shard {shard}; a .taridx extension id is 16 bits")]
    TooManyExtensions {
        /// The shard id.
        shard: u16,
        /// Where the member's header starts.
        offset: u64,
    },
    /// More crash stems than a 32-bit crash id can number.
    #[error("shard {shard}: more crash stems than a 32-bit crash id can number")]
    TooManyCrashStems {
        /// The shard id.
        shard: u16,
        /// Where the member's header starts.
        offset: u64,
    },
    /// glzn-compat mode: the next shard's id (last row's shard id + 1) exceeds 65,535.
    #[error("shard {shard}: glzn's shard id (last row's id + 1) exceeds 65,535")]
    FidOverflow {
        /// The shard's position in the fold.
        shard: usize,
    },
    /// A row given to the writer (or to `rows` of a built index) is inconsistent.
    #[error("row {row}: {reason}")]
    InvalidRow {
        /// The row number.
        row: u64,
        /// What is wrong.
        reason: &'static str,
    },
    /// A string given to the writer cannot be stored in a text block.
    #[error("{block} entry {entry}: {reason}")]
    InvalidText {
        /// The block.
        block: Block,
        /// The entry's position in the block.
        entry: u64,
        /// What is wrong.
        reason: &'static str,
    },
    /// A shard id in a row has no shard file.
    #[error("row {row} refers to shard {fid}, but only {shards} shards were given")]
    NoShard {
        /// The row number.
        row: u64,
        /// The row's shard id.
        fid: u16,
        /// The number of shards.
        shards: usize,
    },

    /// Reading or writing a file failed.
    #[cfg(feature = "std")]
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
}

const fn block_count_offset(block: Block) -> u64 {
    match block {
        Block::Extensions => 32,
        Block::CrashStems => 36,
    }
}

impl Error {
    /// Attaches `path` to an I/O error.
    #[cfg(feature = "std")]
    pub(crate) fn io(path: impl Into<std::path::PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// The shard an error is about, for errors found while reading a tar shard.
    #[must_use]
    pub fn shard(&self) -> Option<u16> {
        match *self {
            Error::TarHeaderTruncated { shard, .. }
            | Error::TarChecksum { shard, .. }
            | Error::TarNumber { shard, .. }
            | Error::TarNegative { shard, .. }
            | Error::TarTruncated { shard, .. }
            | Error::Pax { shard, .. }
            | Error::NameUtf8 { shard, .. }
            | Error::Newline { shard, .. }
            | Error::TooManyExtensions { shard, .. }
            | Error::TooManyCrashStems { shard, .. } => Some(shard),
            _ => None,
        }
    }
}

impl Diagnostic for Error {
    fn fault(&self) -> Fault {
        match self {
            Error::Layout(e) => e.fault(),
            Error::TooManyRows { .. }
            | Error::TooManyShards { .. }
            | Error::TooManyExtensions { .. }
            | Error::TooManyCrashStems { .. }
            | Error::FidOverflow { .. } => Fault::Limit,
            Error::NotContiguous
            | Error::InvalidRow { .. }
            | Error::InvalidText { .. }
            | Error::NoShard { .. } => Fault::Caller,
            #[cfg(feature = "std")]
            Error::Io { .. } => Fault::Io,
            _ => Fault::Input,
        }
    }

    fn offset(&self) -> Option<u64> {
        match *self {
            Error::Layout(ref e) => Some(e.offset()),
            Error::RecordSize { .. } => Some(12),
            Error::HeaderSize { .. } => Some(14),
            Error::StemCount { .. } => Some(16),
            Error::RowBytes { .. } | Error::TooManyRows { .. } => Some(24),
            Error::CrashOffset { .. } => Some(40),
            Error::RowsOffset { .. } => Some(48),
            Error::Flags { .. } => Some(56),
            Error::BlockCount { block, .. } => Some(block_count_offset(block)),
            Error::BlockText { offset, .. }
            | Error::ExtId { offset, .. }
            | Error::CrashId { offset, .. }
            | Error::TarHeaderTruncated { offset, .. }
            | Error::TarChecksum { offset, .. }
            | Error::TarNumber { offset, .. }
            | Error::TarNegative { offset, .. }
            | Error::TarTruncated { offset, .. }
            | Error::Pax { offset, .. }
            | Error::NameUtf8 { offset, .. }
            | Error::Newline { offset, .. }
            | Error::TooManyExtensions { offset, .. }
            | Error::TooManyCrashStems { offset, .. } => Some(offset),
            _ => None,
        }
    }
}

#[cfg(feature = "std")]
impl From<Error> for std::io::Error {
    fn from(e: Error) -> Self {
        match e {
            Error::Io { source, .. } => source,
            other => std::io::Error::new(other.fault().io_error_kind(), other),
        }
    }
}

/// Shorthand for results whose error is this crate's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;
