//! Everything that can go wrong, one variant per problem, each with its byte offset.

use binfmt_core::{Diagnostic, Fault, Found};

#[cfg(feature = "std")]
use std::{path::PathBuf, string::String};

/// An error from parsing, checking, creating or updating a TACO archive.
///
/// Offsets are byte offsets in the archive (for the header alone: in the header bytes,
/// which start at offset 0 of the archive). [`Diagnostic::fault`] says who has to act.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A structural problem shared by every format: input too short, bad signature,
    /// offset arithmetic overflow.
    #[error(transparent)]
    Layout(#[from] binfmt_core::Error),

    // --- The 157-byte header -------------------------------------------------------
    /// The first member is not named `TACO_HEADER`.
    #[error(
        "byte {offset}: the first member is named {found}, not TACO_HEADER; this is not a TACO archive"
    )]
    WrongName {
        /// Where the name starts (30).
        offset: u64,
        /// The bytes found there.
        found: Found,
    },
    /// The header's name length field is not 11.
    #[error("byte {offset}: the header's name length is {found}, expected 11")]
    NameLength {
        /// Where the field is (26).
        offset: u64,
        /// The value found.
        found: u16,
    },
    /// The header has an extra field, so its payload would not start at byte 41.
    #[error(
        "byte {offset}: the header has a {len}-byte extra field; a TACO header has none, so the payload would not be at byte 41"
    )]
    ExtraField {
        /// Where the extra length field is (28).
        offset: u64,
        /// The extra field length found.
        len: u16,
    },
    /// The header member is compressed; a TACO header is stored.
    #[error(
        "byte {offset}: the header uses compression method {method}; a TACO header must be stored (method 0)"
    )]
    Compressed {
        /// Where the method field is (8).
        offset: u64,
        /// The method found.
        method: u16,
    },
    /// The header's compressed or uncompressed size is not 116.
    #[error("byte {offset}: the header's {field} is {found}, expected 116")]
    PayloadSize {
        /// Where the field is (18 or 22).
        offset: u64,
        /// `"compressed size"` or `"uncompressed size"`.
        field: &'static str,
        /// The value found.
        found: u32,
    },
    /// The header is flagged as encrypted.
    #[error(
        "byte {offset}: the header is flagged as encrypted (flags {flags:#06x}); a TACO header is plain"
    )]
    Encrypted {
        /// Where the flags are (6).
        offset: u64,
        /// The flags found.
        flags: u16,
    },
    /// The header is flagged as followed by a data descriptor, so its CRC and sizes
    /// would not be in the header itself.
    #[error(
        "byte {offset}: the header is flagged as having a data descriptor (flags {flags:#06x}); a TACO header carries its CRC and sizes itself"
    )]
    DataDescriptor {
        /// Where the flags are (6).
        offset: u64,
        /// The flags found.
        flags: u16,
    },
    /// The header's entry count is above 7.
    #[error("byte {offset}: the header claims {count} entries; at most 7 fit")]
    CountTooLarge {
        /// Where the count is (41).
        offset: u64,
        /// The count found.
        count: u8,
    },
    /// The three padding bytes after the count are not zero.
    #[error("byte {offset}: the header's padding bytes are {found}, expected zeros")]
    NonZeroPadding {
        /// Where the padding is (42).
        offset: u64,
        /// The bytes found.
        found: Found,
    },
    /// The payload does not match its CRC-32.
    #[error(
        "byte {offset}: the header's CRC-32 is {stored:#010x} but its payload hashes to {computed:#010x}; the header is corrupt"
    )]
    CrcMismatch {
        /// Where the stored CRC is (14).
        offset: u64,
        /// The CRC stored in the header.
        stored: u32,
        /// The CRC of the payload.
        computed: u32,
    },

    // --- The ZIP structure around it ------------------------------------------------
    /// No end-of-central-directory record whose comment ends exactly at the end of the
    /// file was found in the last 64 KiB.
    #[error(
        "no end-of-central-directory record found before byte {offset}; the archive is truncated or not a ZIP file"
    )]
    NoEndOfCentralDirectory {
        /// The end of the file.
        offset: u64,
    },
    /// The end record marks a value as "in the ZIP64 record" but there is no ZIP64 locator.
    #[error(
        "byte {offset}: the end-of-central-directory record defers to a ZIP64 record, but no ZIP64 locator precedes it"
    )]
    MissingZip64 {
        /// Where the end record is.
        offset: u64,
    },
    /// The ZIP64 record declares a size smaller than its fixed fields.
    #[error(
        "byte {offset}: the ZIP64 end record declares {size} bytes after its first 12, fewer than the 44 it needs"
    )]
    Zip64RecordSize {
        /// Where the ZIP64 record is.
        offset: u64,
        /// The declared size.
        size: u64,
    },
    /// The archive spans several disks.
    #[error("byte {offset}: the archive spans several disks, which is not supported")]
    MultiDisk {
        /// Where the disk numbers are.
        offset: u64,
    },
    /// A field of the end record contradicts the ZIP64 record.
    #[error(
        "byte {offset}: the end-of-central-directory {field} is {end}, but the ZIP64 record says {zip64}"
    )]
    EndMismatch {
        /// Where the end record is.
        offset: u64,
        /// The field.
        field: &'static str,
        /// The value in the end record.
        end: u64,
        /// The value in the ZIP64 record.
        zip64: u64,
    },
    /// The central directory does not end where the end records begin.
    #[error(
        "byte {offset}: the central directory at {cd_offset} of {cd_size} bytes must end at {expected_end}, where the end records start"
    )]
    CentralDirectoryBounds {
        /// Where the record that declares the central directory is.
        offset: u64,
        /// Declared central-directory offset.
        cd_offset: u64,
        /// Declared central-directory size.
        cd_size: u64,
        /// Where it should end.
        expected_end: u64,
    },
    /// The central directory holds a different number of entries than declared.
    #[error(
        "byte {offset}: the central directory holds {found} entries in its declared size, but {declared} are declared"
    )]
    EntryCount {
        /// Where the central directory ends (or the entry walk stopped).
        offset: u64,
        /// Declared number of entries.
        declared: u64,
        /// Entries found.
        found: u64,
    },
    /// A size or offset is `0xFFFFFFFF` but the ZIP64 extra field does not provide it.
    #[error(
        "byte {offset}: a field is 0xFFFFFFFF but the ZIP64 extra field does not hold its value"
    )]
    Zip64ExtraMissing {
        /// Where the central-directory entry is.
        offset: u64,
    },
    /// An extra field's blocks do not fit its declared length.
    #[error("byte {offset}: malformed extra field (a block runs past the field's end)")]
    MalformedExtra {
        /// Where the extra field is.
        offset: u64,
    },
    /// The first central-directory entry is not `TACO_HEADER`.
    #[error(
        "byte {offset}: the first central-directory entry is not TACO_HEADER; the archive was reordered or is not a TACO archive"
    )]
    HeaderNotFirst {
        /// Where the first central-directory entry is.
        offset: u64,
    },
    /// The `TACO_HEADER` central-directory entry does not point at offset 0.
    #[error(
        "byte {offset}: the TACO_HEADER central-directory entry points at a local header at {local_header_offset}, not at 0"
    )]
    HeaderNotAtStart {
        /// Where the central-directory entry is.
        offset: u64,
        /// The local-header offset it holds.
        local_header_offset: u64,
    },
    /// A central-directory entry and its local header disagree.
    #[error(
        "byte {offset}: the {field} of member {index} is {central} in the central directory but {local} in its local header"
    )]
    LocalMismatch {
        /// Where the local header is.
        offset: u64,
        /// The member's position in the central directory.
        index: u64,
        /// The field that differs.
        field: &'static str,
        /// The central-directory value.
        central: u64,
        /// The local-header value.
        local: u64,
    },
    /// A member's name differs between its central-directory entry and its local header.
    #[error(
        "byte {offset}: member {index} has a different name in its local header than in the central directory"
    )]
    LocalNameMismatch {
        /// Where the local header's name is.
        offset: u64,
        /// The member's position in the central directory.
        index: u64,
    },
    /// A member's data runs into the central directory or past the end of the file.
    #[error(
        "byte {offset}: the data of member {index} ends at {end}, past {limit} where the central directory starts"
    )]
    MemberBounds {
        /// Where the member's data starts.
        offset: u64,
        /// The member's position in the central directory.
        index: u64,
        /// Where its data ends.
        end: u64,
        /// Where the data region ends.
        limit: u64,
    },
    /// Two central-directory entries have the same name.
    #[error(
        "byte {offset}: member {index} has the same name as an earlier member; readers would see only one of them"
    )]
    DuplicateMember {
        /// Where the later entry is.
        offset: u64,
        /// Its position in the central directory.
        index: u64,
    },
    /// A stored member's data does not match its CRC-32.
    #[error(
        "byte {offset}: member {index}'s data hashes to {computed:#010x}, but its CRC-32 is {stored:#010x}"
    )]
    MemberCrc {
        /// Where the member's data starts.
        offset: u64,
        /// The member's position in the central directory.
        index: u64,
        /// The CRC stored in the central directory.
        stored: u32,
        /// The CRC of the data.
        computed: u32,
    },

    // --- What the caller asked for ---------------------------------------------------
    /// More than 7 entries were given.
    #[error("{count} entries given; a TACO header holds at most 7")]
    TooManyEntries {
        /// How many were given.
        count: usize,
    },
    /// Two members have the same name.
    #[cfg(feature = "std")]
    #[error("member name {name:?} is given twice; ZIP readers would see only one of them")]
    DuplicateName {
        /// The name.
        name: String,
    },
    /// A member is named `TACO_HEADER`, which would replace the header.
    #[cfg(feature = "std")]
    #[error("a member may not be named TACO_HEADER; that name is the header's")]
    ReservedName,
    /// A member name that extraction would turn into a path outside the target directory,
    /// or that ZIP cannot store.
    #[cfg(feature = "std")]
    #[error("member name {name:?} is not allowed: {reason}")]
    BadName {
        /// The name.
        name: String,
        /// Why.
        reason: &'static str,
    },
    /// A source is not a regular file.
    #[cfg(feature = "std")]
    #[error("{}: not a regular file", path.display())]
    NotAFile {
        /// The source path.
        path: PathBuf,
    },
    /// A source file changed size while it was being archived.
    #[cfg(feature = "std")]
    #[error("{}: the file changed while it was being archived ({expected} bytes expected, {found} read)", path.display())]
    SourceChanged {
        /// The source path.
        path: PathBuf,
        /// Its size when the archive was planned.
        expected: u64,
        /// What was read.
        found: u64,
    },
    /// Reading or writing a file failed.
    #[cfg(feature = "std")]
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating-system error.
        source: std::io::Error,
    },
}

impl Error {
    /// An I/O error on `path`.
    #[cfg(feature = "std")]
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }
}

impl Diagnostic for Error {
    fn fault(&self) -> Fault {
        match self {
            Error::Layout(e) => e.fault(),
            Error::MultiDisk { .. } => Fault::Unsupported,
            Error::TooManyEntries { .. } => Fault::Caller,
            #[cfg(feature = "std")]
            Error::DuplicateName { .. }
            | Error::ReservedName
            | Error::BadName { .. }
            | Error::NotAFile { .. } => Fault::Caller,
            #[cfg(feature = "std")]
            Error::SourceChanged { .. } | Error::Io { .. } => Fault::Io,
            _ => Fault::Input,
        }
    }

    fn offset(&self) -> Option<u64> {
        match *self {
            Error::Layout(e) => Some(e.offset()),
            Error::WrongName { offset, .. }
            | Error::NameLength { offset, .. }
            | Error::ExtraField { offset, .. }
            | Error::Compressed { offset, .. }
            | Error::PayloadSize { offset, .. }
            | Error::Encrypted { offset, .. }
            | Error::DataDescriptor { offset, .. }
            | Error::CountTooLarge { offset, .. }
            | Error::NonZeroPadding { offset, .. }
            | Error::CrcMismatch { offset, .. }
            | Error::NoEndOfCentralDirectory { offset }
            | Error::MissingZip64 { offset }
            | Error::Zip64RecordSize { offset, .. }
            | Error::MultiDisk { offset }
            | Error::EndMismatch { offset, .. }
            | Error::CentralDirectoryBounds { offset, .. }
            | Error::EntryCount { offset, .. }
            | Error::Zip64ExtraMissing { offset }
            | Error::MalformedExtra { offset }
            | Error::HeaderNotFirst { offset }
            | Error::HeaderNotAtStart { offset, .. }
            | Error::LocalMismatch { offset, .. }
            | Error::LocalNameMismatch { offset, .. }
            | Error::MemberBounds { offset, .. }
            | Error::DuplicateMember { offset, .. }
            | Error::MemberCrc { offset, .. } => Some(offset),
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

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;
