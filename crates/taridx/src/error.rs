//! Everything that can go wrong: one [`ErrorKind`] variant per rule.
//!
//! An [`Error`] is `binfmt_core::Error<ErrorKind>`: the kind and, when the problem is in
//! the input, the byte offset at which it was found (`Display` puts it in front:
//! `byte 12: the row size …`). Errors about an index have offsets into the .taridx file;
//! errors about a tar shard name the shard (`shard`, its id in the fold) in the kind and
//! have offsets into that shard.

use core::fmt;

use binfmt_core::{Layout, Version};

use crate::tar::Compression;

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

/// What went wrong reading or writing an index, or indexing tar shards.
///
/// Grouped by who must act ([`Kind::fault`]): the input (most variants), a version or
/// feature we do not read, the caller (rows and texts given to the writer, positional
/// access without contiguous rows), a limit of the format (ids of 16 or 32 bits), or the
/// operating system ([`ErrorKind::Io`]).
///
/// Struct variants are `#[non_exhaustive]`: match them with `..`, as fields may be added.
/// [`Kind::name`](binfmt_core::Kind::name) gives each variant's stable name.
///
/// [`Kind::fault`]: binfmt_core::Kind::fault
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A structural problem shared by every format (truncated input, bad magic, version).
    #[error(transparent)]
    Layout(#[from] Layout),

    /// `rec_size` is not 32.
    #[error(
        "the row size (rec_size) is {found}, but .taridx v1 rows are 32 bytes; the file is corrupt or not a v1 index (a lenient read ignores this field)"
    )]
    #[non_exhaustive]
    RecordSize {
        /// The stored row size.
        found: u16,
    },
    /// `hdr_size` is not 64.
    #[error(
        "the header size (hdr_size) is {found}, but .taridx v1 headers are 64 bytes; the file is corrupt or not a v1 index (a lenient read ignores this field)"
    )]
    #[non_exhaustive]
    HeaderSize {
        /// The stored header size.
        found: u16,
    },
    /// `off_crash` is below 64 or past `off_arr` or the end of the file.
    #[error(
        "the crash block offset (off_crash) {value} must lie between 64 and the rows offset {off_arr} (file length {file_len}); the header is corrupt"
    )]
    #[non_exhaustive]
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
    #[non_exhaustive]
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
    #[non_exhaustive]
    RowBytes {
        /// The stored row count.
        n_rows: u64,
        /// Where the rows start.
        off_arr: u64,
        /// How many bytes follow it.
        available: u64,
    },
    /// A text block is not valid UTF-8 (the offset is the first invalid byte's).
    #[error("the {block} is not valid UTF-8")]
    #[non_exhaustive]
    BlockText {
        /// The block.
        block: Block,
    },
    /// A text block holds a different number of entries than the header declares.
    #[error(
        "the header declares {declared} entries in the {block}, which holds {found} (entries are separated by '\\n')"
    )]
    #[non_exhaustive]
    BlockCount {
        /// The block.
        block: Block,
        /// The count in the header.
        declared: u64,
        /// The number of `\n`-separated entries in the block.
        found: u64,
    },
    /// A row's extension id is not below `n_ext` (the offset is the row's `extid` field).
    #[error("row {row} has extension id {extid}, but the index has {n_ext} extensions")]
    #[non_exhaustive]
    ExtId {
        /// The row number (0-based).
        row: u64,
        /// The stored id.
        extid: u16,
        /// The number of extensions.
        n_ext: u32,
    },
    /// A row's crash id is above `n_crash` (the offset is the row's `crashid` field).
    #[error("row {row} has crash id {crashid}, but the index has {n_crash} crash stems")]
    #[non_exhaustive]
    CrashId {
        /// The row number (0-based).
        row: u64,
        /// The stored id.
        crashid: u32,
        /// The number of crash stems.
        n_crash: u32,
    },
    /// Deep check: `n_stems` differs from the number of distinct `(keyhash, crashid)` pairs.
    #[error(
        "the header declares {declared} stems (n_stems), but the rows hold {found} distinct (keyhash, crashid) pairs"
    )]
    #[non_exhaustive]
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
    #[non_exhaustive]
    Flags {
        /// The stored bit.
        declared: bool,
    },
    /// A warning: the index is a newer minor version than this crate writes.
    #[error(
        "the index is format version {found}, newer than {known}: what later minor versions added is ignored"
    )]
    #[non_exhaustive]
    NewerMinor {
        /// The version in the file.
        found: Version,
        /// The version this crate writes.
        known: Version,
    },
    /// A warning: reserved flag bits or reserved header bytes are not zero.
    #[error(
        "reserved header bits are set (flags {flags:#04x}, reserved bytes {nonzero} of 7 non-zero); readers ignore them"
    )]
    #[non_exhaustive]
    Reserved {
        /// The flags byte.
        flags: u8,
        /// How many of the seven reserved bytes are not zero.
        nonzero: u8,
    },
    /// More rows than the in-memory lookup structures can address (u32 row numbers).
    #[error("{n_rows} rows exceed the 4,294,967,295 rows a stem map can address")]
    #[non_exhaustive]
    TooManyRows {
        /// The row count.
        n_rows: u64,
    },
    /// Positional access to samples needs rows grouped by sample.
    #[error(
        "the rows are not contiguous by (keyhash, crashid), so samples have no positions; rebuild the index with each sample's members together"
    )]
    NotContiguous,

    /// Fewer than 512 bytes remain where a member's tar header should be.
    #[error("truncated tar header in shard {shard} ({available} of 512 bytes)")]
    #[non_exhaustive]
    TarHeaderTruncated {
        /// The shard id.
        shard: u16,
        /// The bytes left in the shard.
        available: u64,
    },
    /// A tar header's checksum does not match its bytes.
    #[error(
        "tar header checksum mismatch in shard {shard} (stored {stored}, computed {unsigned} unsigned / {signed} signed); the shard is corrupt"
    )]
    #[non_exhaustive]
    TarChecksum {
        /// The shard id.
        shard: u16,
        /// The stored checksum.
        stored: u64,
        /// The sum of the header bytes as unsigned bytes.
        unsigned: u64,
        /// The sum of the header bytes as signed bytes.
        signed: i64,
    },
    /// A numeric tar header field is neither octal nor base-256, or does not fit 64 bits.
    #[error("the {field} field of a tar header in shard {shard} is not a valid number")]
    #[non_exhaustive]
    TarNumber {
        /// The shard id.
        shard: u16,
        /// The field's name.
        field: &'static str,
    },
    /// A base-256 size field is negative.
    #[error("the {field} field of a tar header in shard {shard} is negative")]
    #[non_exhaustive]
    TarNegative {
        /// The shard id.
        shard: u16,
        /// The field's name.
        field: &'static str,
    },
    /// A member or pseudo-member extends past the end of its shard (the offset is its
    /// header's).
    #[error(
        "the {part} of an entry in shard {shard} ends at byte {end}, past the end of the shard ({len} bytes); the shard is truncated"
    )]
    #[non_exhaustive]
    TarTruncated {
        /// The shard id.
        shard: u16,
        /// What is cut.
        part: TarPart,
        /// Where it would end.
        end: u64,
        /// The shard's length.
        len: u64,
    },
    /// A pax extended header is malformed (the offset is the record's).
    #[error("malformed pax extended header in shard {shard}: {reason}")]
    #[non_exhaustive]
    Pax {
        /// The shard id.
        shard: u16,
        /// What is wrong.
        reason: &'static str,
    },
    /// A member's resolved name is not valid UTF-8 (index with lossy names to replace it).
    #[error(
        "a member name in shard {shard} is not valid UTF-8; index with lossy names to replace invalid bytes with U+FFFD as glzn does"
    )]
    #[non_exhaustive]
    NameUtf8 {
        /// The shard id.
        shard: u16,
    },
    /// A stem or extension contains `\n`, which would corrupt the index's text blocks.
    #[error(
        "a member's stem or extension in shard {shard} contains a newline, which a .taridx text block cannot hold; rename the member"
    )]
    #[non_exhaustive]
    Newline {
        /// The shard id.
        shard: u16,
    },
    /// The shard is a compressed file, not a tar archive.
    #[error(
        "shard {shard} is compressed ({compression}): decompress it first; a .taridx indexes plain tar shards, whose members it reads in place"
    )]
    #[non_exhaustive]
    Compressed {
        /// The shard id.
        shard: u16,
        /// The compression its first bytes show.
        compression: Compression,
    },
    /// More shards than a 16-bit shard id can number.
    #[error(
        "{count} shards given, but a .taridx shard id is 16 bits (at most 65,536 shards); split the fold"
    )]
    #[non_exhaustive]
    TooManyShards {
        /// The number of shards.
        count: usize,
    },
    /// More extensions than a 16-bit extension id can number.
    #[error("a 65,537th distinct extension in shard {shard}; a .taridx extension id is 16 bits")]
    #[non_exhaustive]
    TooManyExtensions {
        /// The shard id.
        shard: u16,
    },
    /// More crash stems than a 32-bit crash id can number.
    #[error("shard {shard}: more crash stems than a 32-bit crash id can number")]
    #[non_exhaustive]
    TooManyCrashStems {
        /// The shard id.
        shard: u16,
    },
    /// glzn-compat mode: the next shard's id (last row's shard id + 1) exceeds 65,535.
    #[error("shard {shard}: glzn's shard id (last row's id + 1) exceeds 65,535")]
    #[non_exhaustive]
    FidOverflow {
        /// The shard's position in the fold.
        shard: usize,
    },
    /// A row given to the writer (or to `rows` of a built index) is inconsistent.
    #[error("row {row}: {reason}")]
    #[non_exhaustive]
    InvalidRow {
        /// The row number.
        row: u64,
        /// What is wrong.
        reason: &'static str,
    },
    /// A string given to the writer cannot be stored in a text block.
    #[error("{block} entry {entry}: {reason}")]
    #[non_exhaustive]
    InvalidText {
        /// The block.
        block: Block,
        /// The entry's position in the block.
        entry: u64,
        /// What is wrong.
        reason: &'static str,
    },
    /// A shard id in a row has no shard.
    #[error("row {row} refers to shard {fid}, but only {shards} shards were given")]
    #[non_exhaustive]
    NoShard {
        /// The row number.
        row: u64,
        /// The row's shard id.
        fid: u16,
        /// The number of shards.
        shards: usize,
    },

    /// Reading or writing failed (with the file, when there is one).
    #[cfg(feature = "std")]
    #[error(transparent)]
    Io(#[from] binfmt_core::IoError),
}

impl ErrorKind {
    /// [`ErrorKind::NoShard`]: row `row` refers to shard `fid`, but only `shards` were
    /// given. For code that resolves shard ids itself (a binding that reads members by
    /// hand): the variant is `#[non_exhaustive]`, so outside this crate it cannot be built
    /// with a struct expression.
    ///
    /// ```
    /// use taridx::ErrorKind;
    /// let e = ErrorKind::no_shard(7, 3, 2);
    /// assert_eq!(e.to_string(), "row 7 refers to shard 3, but only 2 shards were given");
    /// ```
    #[must_use]
    pub fn no_shard(row: u64, fid: u16, shards: usize) -> Self {
        ErrorKind::NoShard { row, fid, shards }
    }

    /// The shard an error is about, for errors found while reading a tar shard.
    #[must_use]
    pub fn shard(&self) -> Option<u16> {
        match *self {
            ErrorKind::TarHeaderTruncated { shard, .. }
            | ErrorKind::TarChecksum { shard, .. }
            | ErrorKind::TarNumber { shard, .. }
            | ErrorKind::TarNegative { shard, .. }
            | ErrorKind::TarTruncated { shard, .. }
            | ErrorKind::Pax { shard, .. }
            | ErrorKind::NameUtf8 { shard }
            | ErrorKind::Newline { shard }
            | ErrorKind::Compressed { shard, .. }
            | ErrorKind::TooManyExtensions { shard }
            | ErrorKind::TooManyCrashStems { shard } => Some(shard),
            _ => None,
        }
    }
}

binfmt_core::kind_table! {
    ErrorKind;
    Fault::Input => RecordSize, HeaderSize, CrashOffset, RowsOffset, RowBytes, BlockText,
        BlockCount, ExtId, CrashId, StemCount, Flags, Reserved, TarHeaderTruncated, TarChecksum,
        TarNumber, TarNegative, TarTruncated, Pax, NameUtf8, Newline;
    Fault::Unsupported => NewerMinor, Compressed;
    Fault::Limit => TooManyRows, TooManyShards, TooManyExtensions, TooManyCrashStems, FidOverflow;
    Fault::Caller => NotContiguous, InvalidRow, InvalidText, NoShard;
}

/// An error of this crate: an [`ErrorKind`] and the byte offset it was found at, if any.
///
/// With the `alloc` feature (on by default, through `std`) an `Error` is one pointer
/// (8 bytes on 64-bit targets), and so is a `Result<(), Error>`: the offset and the kind
/// share one allocation, made on the error path only ([`binfmt_core::Error`], "Size").
/// Without `alloc` they are inline: 72 bytes on 64-bit targets.
pub type Error = binfmt_core::Error<ErrorKind>;

/// Shorthand for results whose error is this crate's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;
