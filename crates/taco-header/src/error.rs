//! Everything that can go wrong: one [`ErrorKind`] variant per rule, none carrying its
//! offset.
//!
//! An [`Error`] is `binfmt_core::Error<ErrorKind>`: the kind and, for problems in the
//! input, the byte offset in the archive at which it was found (for a header parsed on
//! its own, in the header's bytes, which are the archive's first 157). Its `Display` is
//! `byte N: message`, and [`Error::fault`](binfmt_core::Error::fault) says who has to
//! act.
//!
//! ```
//! use taco_header::{ErrorKind, Fault, Header};
//! let mut bytes = taco_header::Entries::new().to_header_bytes();
//! bytes[41] = 9; // the entry count
//! let err = Header::parse(&bytes).unwrap_err();
//! assert!(matches!(err.kind(), ErrorKind::CountTooLarge { count: 9, .. }));
//! assert_eq!(err.offset(), Some(41));
//! assert_eq!(err.fault(), Fault::Input);
//! assert_eq!(err.to_string(), "byte 41: the header claims 9 entries; at most 7 fit");
//! ```

use core::fmt;

use binfmt_core::{Found, Layout};

#[cfg(feature = "alloc")]
use alloc::string::String;
#[cfg(feature = "std")]
use std::path::PathBuf;

/// What went wrong while parsing, verifying, creating or updating a TACO archive.
///
/// Struct variants are `#[non_exhaustive]`: match them with `..`, as fields may be added.
/// [`Kind::name`](binfmt_core::Kind::name) gives each variant's stable name.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A structural problem shared by every format: input too short, bad signature,
    /// offset arithmetic overflow.
    #[error(transparent)]
    Layout(#[from] Layout),

    // --- The 157-byte header -------------------------------------------------------
    /// The first member is not named `TACO_HEADER`.
    #[error("the first member is named {found}, not TACO_HEADER; this is not a TACO archive")]
    #[non_exhaustive]
    WrongName {
        /// The bytes found where the name should be.
        found: Found,
    },
    /// The header's name length field is not 11.
    #[error("the header's name length is {found}, expected 11")]
    #[non_exhaustive]
    NameLength {
        /// The value found.
        found: u16,
    },
    /// The header has an extra field, so its payload would not start at byte 41.
    #[error(
        "the header has a {len}-byte extra field; a TACO header has none, so the payload would not be at byte 41"
    )]
    #[non_exhaustive]
    ExtraField {
        /// The extra field length found.
        len: u16,
    },
    /// The header member is compressed; a TACO header is stored.
    #[error("the header uses compression method {method}; a TACO header must be stored (method 0)")]
    #[non_exhaustive]
    Compressed {
        /// The method found.
        method: u16,
    },
    /// The header's compressed or uncompressed size is not 116.
    #[error("the header's {field} is {found}, expected 116")]
    #[non_exhaustive]
    PayloadSize {
        /// `"compressed size"` or `"uncompressed size"`.
        field: &'static str,
        /// The value found.
        found: u32,
    },
    /// The header is flagged as encrypted.
    #[error("the header is flagged as encrypted (flags {flags:#06x}); a TACO header is plain")]
    #[non_exhaustive]
    Encrypted {
        /// The flags found.
        flags: u16,
    },
    /// The header is flagged as followed by a data descriptor, so its CRC and sizes
    /// would not be in the header itself.
    #[error(
        "the header is flagged as having a data descriptor (flags {flags:#06x}); a TACO header carries its CRC and sizes itself"
    )]
    #[non_exhaustive]
    DataDescriptor {
        /// The flags found.
        flags: u16,
    },
    /// The header's entry count is above 7.
    #[error("the header claims {count} entries; at most 7 fit")]
    #[non_exhaustive]
    CountTooLarge {
        /// The count found.
        count: u8,
    },
    /// The three padding bytes after the count are not zero.
    #[error("the header's padding bytes are {found}, expected zeros")]
    #[non_exhaustive]
    NonZeroPadding {
        /// The bytes found.
        found: Found,
    },
    /// The payload does not match its CRC-32 (and the central directory's copy of the
    /// CRC agrees with the header's, so this is damage, not an interrupted update).
    #[error(
        "the header's CRC-32 is {stored:#010x} but its payload hashes to {computed:#010x}; the header is corrupt"
    )]
    #[non_exhaustive]
    CrcMismatch {
        /// The CRC stored in the header.
        stored: u32,
        /// The CRC of the payload.
        computed: u32,
    },
    /// The header's CRC-32 and its copy in the central directory differ: an in-place
    /// update was interrupted between its writes (see `docs/taco-header.md`, "Updating
    /// in place"). Running the update again repairs the archive.
    #[error(
        "torn update: the header's CRC-32 is {local:#010x} but the central directory's copy is {central:#010x}; {state}. An update was interrupted: run it again to repair the archive"
    )]
    #[non_exhaustive]
    TornUpdate {
        /// The CRC in the header (local file header).
        local: u32,
        /// The CRC in the `TACO_HEADER` central-directory entry.
        central: u32,
        /// Which entries the header holds.
        state: TornState,
    },

    // --- The ZIP structure around it ------------------------------------------------
    /// No end-of-central-directory record whose comment ends exactly at the end of the
    /// file was found in the last 64 KiB. The offset is the end of the file.
    #[error(
        "no end-of-central-directory record found before the end of the file; the archive is truncated or not a ZIP file"
    )]
    NoEndOfCentralDirectory,
    /// The end record marks a value as "in the ZIP64 record" but there is no ZIP64 locator.
    #[error(
        "the end-of-central-directory record defers to a ZIP64 record, but no ZIP64 locator precedes it"
    )]
    MissingZip64,
    /// The ZIP64 record declares a size smaller than its fixed fields, or one that runs
    /// into the locator.
    #[error(
        "the ZIP64 end record declares {size} bytes after its first 12, fewer than the 44 it needs or more than fit before the locator"
    )]
    #[non_exhaustive]
    Zip64RecordSize {
        /// The declared size.
        size: u64,
    },
    /// The archive spans several disks.
    #[error("the archive spans several disks, which is not supported")]
    MultiDisk,
    /// A field of the end record contradicts the ZIP64 record.
    #[error("the end-of-central-directory {field} is {end}, but the ZIP64 record says {zip64}")]
    #[non_exhaustive]
    EndMismatch {
        /// The field.
        field: &'static str,
        /// The value in the end record.
        end: u64,
        /// The value in the ZIP64 record.
        zip64: u64,
    },
    /// The central directory does not end where the end records begin.
    #[error(
        "the central directory at {cd_offset} of {cd_size} bytes must end at {expected_end}, where the end records start"
    )]
    #[non_exhaustive]
    CentralDirectoryBounds {
        /// Declared central-directory offset.
        cd_offset: u64,
        /// Declared central-directory size.
        cd_size: u64,
        /// Where it should end.
        expected_end: u64,
    },
    /// The central directory holds a different number of entries than declared.
    #[error(
        "the central directory holds {found} entries in its declared size, but {declared} are declared"
    )]
    #[non_exhaustive]
    EntryCount {
        /// Declared number of entries.
        declared: u64,
        /// Entries found.
        found: u64,
    },
    /// A size or offset is `0xFFFFFFFF` but the ZIP64 extra field does not provide it.
    #[error("a field is 0xFFFFFFFF but the ZIP64 extra field does not hold its value")]
    Zip64ExtraMissing,
    /// An extra field's blocks do not fit its declared length.
    #[error("malformed extra field (a block runs past the field's end)")]
    MalformedExtra,
    /// The first central-directory entry is not `TACO_HEADER`.
    #[error(
        "the first central-directory entry is not TACO_HEADER; the archive was reordered or is not a TACO archive"
    )]
    HeaderNotFirst,
    /// The `TACO_HEADER` central-directory entry does not point at offset 0.
    #[error(
        "the TACO_HEADER central-directory entry points at a local header at {local_header_offset}, not at 0"
    )]
    #[non_exhaustive]
    HeaderNotAtStart {
        /// The local-header offset it holds.
        local_header_offset: u64,
    },
    /// A central-directory entry and its local header disagree.
    #[error(
        "the {field} of member {index} is {central} in the central directory but {local} in its local header"
    )]
    #[non_exhaustive]
    LocalMismatch {
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
        "member {index} has a different name in its local header than in the central directory"
    )]
    #[non_exhaustive]
    LocalNameMismatch {
        /// The member's position in the central directory.
        index: u64,
    },
    /// A member's data runs into the central directory or past the end of the file.
    #[error(
        "the data of member {index} ends at {end}, past {limit} where the central directory starts"
    )]
    #[non_exhaustive]
    MemberBounds {
        /// The member's position in the central directory.
        index: u64,
        /// Where its data ends.
        end: u64,
        /// Where the data region ends.
        limit: u64,
    },
    /// Two members share bytes: two central-directory entries point into the same local
    /// header or data. No ZIP writer does this; it is how "zip bombs" multiply one
    /// payload.
    #[error(
        "member {index} overlaps member {other}: their local headers and data share bytes, which no ZIP writer produces"
    )]
    #[non_exhaustive]
    OverlappingMember {
        /// The member whose record starts later (or the later entry, for the same start).
        index: u64,
        /// The member it overlaps.
        other: u64,
    },
    /// Two central-directory entries have the same name.
    #[error(
        "member {index} has the same name as member {first}; readers would see only one of them"
    )]
    #[non_exhaustive]
    DuplicateMember {
        /// The later entry's position in the central directory.
        index: u64,
        /// The first entry with that name.
        first: u64,
    },
    /// A stored member's data does not match its CRC-32.
    #[error("member {index}'s data hashes to {computed:#010x}, but its CRC-32 is {stored:#010x}")]
    #[non_exhaustive]
    MemberCrc {
        /// The member's position in the central directory.
        index: u64,
        /// The CRC stored in the central directory.
        stored: u32,
        /// The CRC of the data.
        computed: u32,
    },
    /// A warning of `verify` built without the `alloc` feature: a member's CRC-32 was
    /// not checked, because its data lies before data already hashed (the central
    /// directory is not in data order) and, with no memory to sort the members, `verify`
    /// hashes each byte at most once.
    #[error(
        "member {index}'s CRC-32 was not checked: its data comes before data already hashed, and without the `alloc` feature verify hashes each byte once"
    )]
    #[non_exhaustive]
    CrcNotChecked {
        /// The member's position in the central directory.
        index: u64,
    },

    // --- What the caller asked for ---------------------------------------------------
    /// More than 7 entries were given.
    #[error("{count} entries given; a TACO header holds at most 7")]
    #[non_exhaustive]
    TooManyEntries {
        /// How many were given.
        count: usize,
    },
    /// Two members have the same name.
    #[cfg(feature = "alloc")]
    #[error("member name {name:?} is given twice; ZIP readers would see only one of them")]
    #[non_exhaustive]
    DuplicateName {
        /// The name.
        name: String,
    },
    /// A member is named `TACO_HEADER`, which would replace the header.
    #[error("a member may not be named TACO_HEADER; that name is the header's")]
    ReservedName,
    /// A member name that extraction would turn into a path outside the target directory,
    /// or that ZIP cannot store.
    #[cfg(feature = "alloc")]
    #[error("member name {name:?} is not allowed: {reason}")]
    #[non_exhaustive]
    BadName {
        /// The name.
        name: String,
        /// Why.
        reason: &'static str,
    },
    /// A source is not a regular file.
    #[cfg(feature = "std")]
    #[error("{}: not a regular file", path.display())]
    #[non_exhaustive]
    NotAFile {
        /// The source path.
        path: PathBuf,
    },
    /// A source file changed size while it was being archived.
    #[cfg(feature = "std")]
    #[error("{}: the file changed while it was being archived ({expected} bytes expected, {found} read)", path.display())]
    #[non_exhaustive]
    SourceChanged {
        /// The source path.
        path: PathBuf,
        /// Its size when the archive was planned.
        expected: u64,
        /// What was read.
        found: u64,
    },
    /// Reading or writing failed; the path, when there is one, is in the [`IoError`].
    ///
    /// [`IoError`]: binfmt_core::IoError
    #[cfg(feature = "std")]
    #[error(transparent)]
    Io(#[from] binfmt_core::IoError),
}

/// Which entries an archive left by an interrupted update holds in its header
/// ([`ErrorKind::TornUpdate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TornState {
    /// The payload matches the header's CRC-32: the header still holds the entries from
    /// before the update, and only the central directory's copy of the CRC was written.
    OldEntries,
    /// The payload matches the central directory's copy: the new entries were written,
    /// but not the header's CRC-32.
    NewEntries,
    /// The payload matches neither CRC (the update stopped inside the payload write, a
    /// CRC field is damaged, or checksums were not computed).
    Unknown,
}

impl fmt::Display for TornState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TornState::OldEntries => {
                "the payload matches the header's CRC, so the header still holds the entries from before the update"
            }
            TornState::NewEntries => {
                "the payload matches the central directory's copy, so the header holds the new entries but not their CRC"
            }
            TornState::Unknown => "the payload matches neither CRC",
        })
    }
}

binfmt_core::kind_table! {
    ErrorKind;
    Fault::Input => WrongName, NameLength, ExtraField, Compressed, PayloadSize, Encrypted,
        DataDescriptor, CountTooLarge, NonZeroPadding, CrcMismatch, TornUpdate,
        NoEndOfCentralDirectory, MissingZip64, Zip64RecordSize, EndMismatch, CentralDirectoryBounds,
        EntryCount, Zip64ExtraMissing, MalformedExtra, HeaderNotFirst, HeaderNotAtStart,
        LocalMismatch, LocalNameMismatch, MemberBounds, OverlappingMember, DuplicateMember,
        MemberCrc;
    Fault::Unsupported => MultiDisk;
    // Only ever a warning: the build lacks the memory to check more.
    Fault::Limit => CrcNotChecked;
    Fault::Caller => TooManyEntries, ReservedName;
    Fault::Caller => #[cfg(feature = "alloc")] DuplicateName, #[cfg(feature = "alloc")] BadName;
    Fault::Caller => #[cfg(feature = "std")] NotAFile;
    Fault::Io => #[cfg(feature = "std")] SourceChanged;
}

/// An error of this crate: an [`ErrorKind`] and, for problems in the input, the byte
/// offset at which it was found.
///
/// With the `alloc` feature (on by default, through `std`) an `Error` is one pointer
/// (8 bytes on 64-bit targets), and so is a `Result<(), Error>`: the offset and the kind
/// share one allocation, made on the error path only ([`binfmt_core::Error`], "Size").
/// Without `alloc` they are inline: 72 bytes on 64-bit targets.
pub type Error = binfmt_core::Error<ErrorKind>;

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// Adds `path` to an I/O error that has none, so that messages name the file
/// ([`Error::with_path`](binfmt_core::Error::with_path), as a closure for `map_err`).
#[cfg(feature = "std")]
pub(crate) fn with_path(path: &std::path::Path) -> impl Fn(Error) -> Error + '_ {
    move |e| e.with_path(path)
}

/// An I/O error about `path`, for `map_err`.
#[cfg(feature = "std")]
pub(crate) fn io_at(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| {
        binfmt_core::Kind::unlocated(ErrorKind::Io(binfmt_core::IoError::new(
            Some(path.to_path_buf()),
            source,
        )))
    }
}
