//! Everything that can go wrong, with the byte at which it was found, and the mapping
//! to the reference C library's error codes.

use core::fmt;

use binfmt_core::{Diagnostic, Fault};

use crate::dtype::DType;

/// A kastore problem.
///
/// One variant per distinct problem. Problems with the input carry the byte offset of the
/// field that is wrong, counted from the start of the input given to the parser (for a
/// stream of stores, from the start of the stream). [`Error::code`] maps every variant to
/// one of the reference library's 15 error codes.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A structural problem shared with the other formats: input shorter than the header
    /// or than the store's `file_size`, offset arithmetic overflowing, wrong magic, a
    /// major version other than 1, an array offset that is not a multiple of 8.
    #[error(transparent)]
    Layout(#[from] binfmt_core::Error),

    /// The input has no bytes at all where a store should start. In a stream of stores
    /// this is the clean end; anywhere else it is an empty file.
    #[error("end of input at byte {offset}: there is no store here (zero bytes)")]
    Eof {
        /// Where the store would have started.
        offset: u64,
    },

    /// The header's `file_size` is smaller than the header itself.
    #[error(
        "the header's file_size at byte {offset} is {file_size}, smaller than the 64-byte header; the header is corrupt"
    )]
    FileSizeTooSmall {
        /// Where `file_size` is stored.
        offset: u64,
        /// The value found.
        file_size: u64,
    },

    /// The descriptors of `num_items` items do not fit in `file_size` bytes.
    #[error(
        "the header at byte {offset} announces {num_items} items, whose descriptors need {needed} bytes, but file_size is {file_size}; num_items or file_size is corrupt"
    )]
    DescriptorsOutsideStore {
        /// Where `num_items` is stored.
        offset: u64,
        /// The item count found.
        num_items: u32,
        /// 64 + 64 × `num_items`.
        needed: u64,
        /// The header's `file_size`.
        file_size: u64,
    },

    /// `file_size` is not where the packing rules put the end of the last array.
    #[error(
        "the header's file_size at byte {offset} is {file_size}, but the keys and arrays end at byte {expected}; the store is truncated, padded or corrupt"
    )]
    FileSizeMismatch {
        /// Where `file_size` is stored.
        offset: u64,
        /// The value found.
        file_size: u64,
        /// The size the descriptors imply.
        expected: u64,
    },

    /// A descriptor's type code is not one of the ten element types.
    #[error(
        "item {index}: unknown element type code {code} at byte {offset}; kastore 1.0 has types 0 to 9"
    )]
    BadType {
        /// Where the type code is stored.
        offset: u64,
        /// The item's position in the store.
        index: u64,
        /// The code found.
        code: u8,
    },

    /// A descriptor's `key_len` is 0; keys are never empty.
    #[error("item {index}: key_len at byte {offset} is 0; kastore keys are never empty")]
    EmptyKeyInStore {
        /// Where `key_len` is stored.
        offset: u64,
        /// The item's position in the store.
        index: u64,
    },

    /// A key's bytes lie (partly) outside the store.
    #[error(
        "item {index}: the key at store offset {key_start}, {key_len} bytes long (descriptor field at byte {offset}), lies outside the {file_size}-byte store"
    )]
    KeyOutOfBounds {
        /// Where `key_start` is stored.
        offset: u64,
        /// The item's position in the store.
        index: u64,
        /// The key's store-relative offset.
        key_start: u64,
        /// The key's length.
        key_len: u64,
        /// The header's `file_size`.
        file_size: u64,
    },

    /// An array lies (partly) outside the store.
    #[error(
        "item {index}: the {dtype} array at store offset {array_start}, {array_len} elements long (descriptor field at byte {offset}), lies outside the {file_size}-byte store"
    )]
    ArrayOutOfBounds {
        /// Where `array_start` is stored.
        offset: u64,
        /// The item's position in the store.
        index: u64,
        /// The array's store-relative offset.
        array_start: u64,
        /// The array's length in elements.
        array_len: u64,
        /// The array's element type.
        dtype: DType,
        /// The header's `file_size`.
        file_size: u64,
    },

    /// A key does not start right after the previous key (or the descriptors).
    #[error(
        "item {index}: key_start at byte {offset} is {key_start}, but keys are packed back to back and this one must start at {expected}"
    )]
    KeyNotPacked {
        /// Where `key_start` is stored.
        offset: u64,
        /// The item's position in the store.
        index: u64,
        /// The value found.
        key_start: u64,
        /// Where the key must start.
        expected: u64,
    },

    /// An 8-aligned array does not start at the first multiple of 8 after the previous
    /// array (or the keys): arrays are packed with no gaps.
    #[error(
        "item {index}: array_start at byte {offset} is {array_start}, but arrays are packed at the next multiple of 8 and this one must start at {expected}"
    )]
    ArrayNotPacked {
        /// Where `array_start` is stored.
        offset: u64,
        /// The item's position in the store.
        index: u64,
        /// The value found.
        array_start: u64,
        /// Where the array must start.
        expected: u64,
    },

    /// Two consecutive keys are out of order. Keys are sorted bytewise (a prefix sorts
    /// first) so that lookups can use binary search; the reference readers would open such
    /// a file and then fail to find keys in it.
    #[error(
        "item {index}: key {key} at byte {offset} sorts before the previous key; kastore keys are sorted bytewise"
    )]
    UnsortedKeys {
        /// Where the key's bytes start.
        offset: u64,
        /// The item's position in the store.
        index: u64,
        /// The key.
        key: KeyExcerpt,
    },

    /// The same key appears twice in the store.
    #[error("item {index}: key {key} at byte {offset} is the same as the previous key")]
    DuplicateKeyInStore {
        /// Where the second copy's bytes start.
        offset: u64,
        /// The second copy's position in the store.
        index: u64,
        /// The key.
        key: KeyExcerpt,
    },

    /// Reading from a stream: the store is larger than the configured limit.
    #[error(
        "the store at byte {offset} declares file_size {file_size}, above the limit of {limit} bytes; raise Limits::max_store_size to read it"
    )]
    TooLarge {
        /// Where the store starts.
        offset: u64,
        /// The header's `file_size`.
        file_size: u64,
        /// The configured limit.
        limit: u64,
    },

    /// No item has this key.
    #[error("key {key} not found")]
    KeyNotFound {
        /// The key asked for.
        key: KeyExcerpt,
    },

    /// The item exists but holds a different element type: kastore never reinterprets.
    #[error("key {key} holds {stored} elements, not {requested}")]
    TypeMismatch {
        /// The key asked for.
        key: KeyExcerpt,
        /// The type in the store.
        stored: DType,
        /// The type asked for.
        requested: DType,
    },

    /// Writing: an empty key was given.
    #[error("keys cannot be empty")]
    EmptyKey,

    /// Writing: the key was already added.
    #[error("key {key} was already added; keys must be unique")]
    DuplicateKey {
        /// The key.
        key: KeyExcerpt,
    },

    /// Writing: more items than the header's 32-bit `num_items` can count.
    #[error("a kastore store holds at most 4294967295 items")]
    TooManyItems,

    /// Writing: the store would be larger than this platform can address.
    #[error(
        "the store would be larger than this platform can address (2^64 bytes, or the size of memory for an in-memory store)"
    )]
    SizeOverflow,

    /// Reading or writing a file or stream failed.
    #[cfg(feature = "std")]
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// The error codes of the reference C library (kastore 2.1, `KAS_ERR_*`), so that code
/// ported from C or talking to it can keep its error handling.
///
/// Four codes cannot arise from this crate, because its types make the misuse they report
/// unrepresentable: [`BadMode`](ErrorCode::BadMode) and [`BadFlags`](ErrorCode::BadFlags)
/// (there are no mode strings or flag words), [`IllegalOperation`](ErrorCode::IllegalOperation)
/// (reading and writing are different types) and [`Generic`](ErrorCode::Generic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// -1 `KAS_ERR_GENERIC`.
    Generic,
    /// -2 `KAS_ERR_IO`.
    Io,
    /// -3 `KAS_ERR_BAD_MODE`.
    BadMode,
    /// -4 `KAS_ERR_NO_MEMORY`: here, a size or count limit.
    NoMemory,
    /// -5 `KAS_ERR_BAD_FILE_FORMAT`.
    BadFileFormat,
    /// -6 `KAS_ERR_VERSION_TOO_OLD`.
    VersionTooOld,
    /// -7 `KAS_ERR_VERSION_TOO_NEW`.
    VersionTooNew,
    /// -8 `KAS_ERR_BAD_TYPE`.
    BadType,
    /// -9 `KAS_ERR_EMPTY_KEY`.
    EmptyKey,
    /// -10 `KAS_ERR_DUPLICATE_KEY`.
    DuplicateKey,
    /// -11 `KAS_ERR_KEY_NOT_FOUND`.
    KeyNotFound,
    /// -12 `KAS_ERR_ILLEGAL_OPERATION`.
    IllegalOperation,
    /// -13 `KAS_ERR_TYPE_MISMATCH`.
    TypeMismatch,
    /// -14 `KAS_ERR_EOF`.
    Eof,
    /// -15 `KAS_ERR_BAD_FLAGS`.
    BadFlags,
}

impl ErrorCode {
    /// Every code, from -1 to -15.
    pub const ALL: [ErrorCode; 15] = [
        ErrorCode::Generic,
        ErrorCode::Io,
        ErrorCode::BadMode,
        ErrorCode::NoMemory,
        ErrorCode::BadFileFormat,
        ErrorCode::VersionTooOld,
        ErrorCode::VersionTooNew,
        ErrorCode::BadType,
        ErrorCode::EmptyKey,
        ErrorCode::DuplicateKey,
        ErrorCode::KeyNotFound,
        ErrorCode::IllegalOperation,
        ErrorCode::TypeMismatch,
        ErrorCode::Eof,
        ErrorCode::BadFlags,
    ];

    /// The C value: -1 … -15.
    #[must_use]
    pub const fn value(self) -> i32 {
        match self {
            ErrorCode::Generic => -1,
            ErrorCode::Io => -2,
            ErrorCode::BadMode => -3,
            ErrorCode::NoMemory => -4,
            ErrorCode::BadFileFormat => -5,
            ErrorCode::VersionTooOld => -6,
            ErrorCode::VersionTooNew => -7,
            ErrorCode::BadType => -8,
            ErrorCode::EmptyKey => -9,
            ErrorCode::DuplicateKey => -10,
            ErrorCode::KeyNotFound => -11,
            ErrorCode::IllegalOperation => -12,
            ErrorCode::TypeMismatch => -13,
            ErrorCode::Eof => -14,
            ErrorCode::BadFlags => -15,
        }
    }

    /// The code with C value `value`, if there is one.
    #[must_use]
    pub fn from_value(value: i32) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.value() == value)
    }

    /// The C macro name: `"KAS_ERR_BAD_FILE_FORMAT"` ….
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            ErrorCode::Generic => "KAS_ERR_GENERIC",
            ErrorCode::Io => "KAS_ERR_IO",
            ErrorCode::BadMode => "KAS_ERR_BAD_MODE",
            ErrorCode::NoMemory => "KAS_ERR_NO_MEMORY",
            ErrorCode::BadFileFormat => "KAS_ERR_BAD_FILE_FORMAT",
            ErrorCode::VersionTooOld => "KAS_ERR_VERSION_TOO_OLD",
            ErrorCode::VersionTooNew => "KAS_ERR_VERSION_TOO_NEW",
            ErrorCode::BadType => "KAS_ERR_BAD_TYPE",
            ErrorCode::EmptyKey => "KAS_ERR_EMPTY_KEY",
            ErrorCode::DuplicateKey => "KAS_ERR_DUPLICATE_KEY",
            ErrorCode::KeyNotFound => "KAS_ERR_KEY_NOT_FOUND",
            ErrorCode::IllegalOperation => "KAS_ERR_ILLEGAL_OPERATION",
            ErrorCode::TypeMismatch => "KAS_ERR_TYPE_MISMATCH",
            ErrorCode::Eof => "KAS_ERR_EOF",
            ErrorCode::BadFlags => "KAS_ERR_BAD_FLAGS",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.value())
    }
}

impl Error {
    /// The reference library's code for this problem.
    ///
    /// Every problem with the input's structure is `BadFileFormat`, as in the reference,
    /// except an unknown type (`BadType`), the version checks and an empty input (`Eof`).
    /// Problems the reference does not detect (unsorted or duplicate keys in a file) are
    /// `BadFileFormat` too; `DuplicateKey` and `EmptyKey` are for the writer's arguments,
    /// as in the reference. Size and count limits are `NoMemory`.
    #[must_use]
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::Layout(e) => match e {
                binfmt_core::Error::VersionTooOld { .. } => ErrorCode::VersionTooOld,
                binfmt_core::Error::VersionTooNew { .. } => ErrorCode::VersionTooNew,
                _ => ErrorCode::BadFileFormat,
            },
            Error::Eof { .. } => ErrorCode::Eof,
            Error::FileSizeTooSmall { .. }
            | Error::DescriptorsOutsideStore { .. }
            | Error::FileSizeMismatch { .. }
            | Error::EmptyKeyInStore { .. }
            | Error::KeyOutOfBounds { .. }
            | Error::ArrayOutOfBounds { .. }
            | Error::KeyNotPacked { .. }
            | Error::ArrayNotPacked { .. }
            | Error::UnsortedKeys { .. }
            | Error::DuplicateKeyInStore { .. } => ErrorCode::BadFileFormat,
            Error::BadType { .. } => ErrorCode::BadType,
            Error::TooLarge { .. } | Error::TooManyItems | Error::SizeOverflow => {
                ErrorCode::NoMemory
            }
            Error::KeyNotFound { .. } => ErrorCode::KeyNotFound,
            Error::TypeMismatch { .. } => ErrorCode::TypeMismatch,
            Error::EmptyKey => ErrorCode::EmptyKey,
            Error::DuplicateKey { .. } => ErrorCode::DuplicateKey,
            #[cfg(feature = "std")]
            Error::Io(_) => ErrorCode::Io,
        }
    }

    /// True for [`Error::Eof`]: zero bytes where a store would start.
    #[must_use]
    pub fn is_eof(&self) -> bool {
        matches!(self, Error::Eof { .. })
    }

    /// The same error with every input offset moved by `base`: used when a store that
    /// starts at byte `base` of a larger input was parsed from its own sub-slice.
    #[must_use]
    pub(crate) fn rebased(self, base: u64) -> Error {
        if base == 0 {
            return self;
        }
        let at = |offset: u64| offset.saturating_add(base);
        match self {
            Error::Layout(e) => Error::Layout(rebase_core(e, base)),
            Error::Eof { offset } => Error::Eof { offset: at(offset) },
            Error::FileSizeTooSmall { offset, file_size } => Error::FileSizeTooSmall {
                offset: at(offset),
                file_size,
            },
            Error::DescriptorsOutsideStore {
                offset,
                num_items,
                needed,
                file_size,
            } => Error::DescriptorsOutsideStore {
                offset: at(offset),
                num_items,
                needed,
                file_size,
            },
            Error::FileSizeMismatch {
                offset,
                file_size,
                expected,
            } => Error::FileSizeMismatch {
                offset: at(offset),
                file_size,
                expected,
            },
            Error::BadType {
                offset,
                index,
                code,
            } => Error::BadType {
                offset: at(offset),
                index,
                code,
            },
            Error::EmptyKeyInStore { offset, index } => Error::EmptyKeyInStore {
                offset: at(offset),
                index,
            },
            Error::KeyOutOfBounds {
                offset,
                index,
                key_start,
                key_len,
                file_size,
            } => Error::KeyOutOfBounds {
                offset: at(offset),
                index,
                key_start,
                key_len,
                file_size,
            },
            Error::ArrayOutOfBounds {
                offset,
                index,
                array_start,
                array_len,
                dtype,
                file_size,
            } => Error::ArrayOutOfBounds {
                offset: at(offset),
                index,
                array_start,
                array_len,
                dtype,
                file_size,
            },
            Error::KeyNotPacked {
                offset,
                index,
                key_start,
                expected,
            } => Error::KeyNotPacked {
                offset: at(offset),
                index,
                key_start,
                expected,
            },
            Error::ArrayNotPacked {
                offset,
                index,
                array_start,
                expected,
            } => Error::ArrayNotPacked {
                offset: at(offset),
                index,
                array_start,
                expected,
            },
            Error::UnsortedKeys { offset, index, key } => Error::UnsortedKeys {
                offset: at(offset),
                index,
                key,
            },
            Error::DuplicateKeyInStore { offset, index, key } => Error::DuplicateKeyInStore {
                offset: at(offset),
                index,
                key,
            },
            Error::TooLarge {
                offset,
                file_size,
                limit,
            } => Error::TooLarge {
                offset: at(offset),
                file_size,
                limit,
            },
            other => other,
        }
    }
}

/// Moves the offset of a core error; variants added to core later keep theirs.
fn rebase_core(e: binfmt_core::Error, base: u64) -> binfmt_core::Error {
    use binfmt_core::Error as E;
    let at = |offset: u64| offset.saturating_add(base);
    match e {
        E::Truncated {
            what,
            offset,
            needed,
            available,
        } => E::Truncated {
            what,
            offset: at(offset),
            needed,
            available,
        },
        E::Overflow { what, offset } => E::Overflow {
            what,
            offset: at(offset),
        },
        E::BadMagic {
            what,
            offset,
            expected,
            found,
        } => E::BadMagic {
            what,
            offset: at(offset),
            expected,
            found,
        },
        E::VersionTooNew {
            what,
            offset,
            found,
            supported_major,
        } => E::VersionTooNew {
            what,
            offset: at(offset),
            found,
            supported_major,
        },
        E::VersionTooOld {
            what,
            offset,
            found,
            oldest_major,
        } => E::VersionTooOld {
            what,
            offset: at(offset),
            found,
            oldest_major,
        },
        E::Misaligned {
            what,
            offset,
            value,
            align,
        } => E::Misaligned {
            what,
            offset: at(offset),
            value,
            align,
        },
        other => other,
    }
}

impl Diagnostic for Error {
    fn fault(&self) -> Fault {
        match self {
            Error::Layout(e) => e.fault(),
            Error::Eof { .. }
            | Error::FileSizeTooSmall { .. }
            | Error::DescriptorsOutsideStore { .. }
            | Error::FileSizeMismatch { .. }
            | Error::BadType { .. }
            | Error::EmptyKeyInStore { .. }
            | Error::KeyOutOfBounds { .. }
            | Error::ArrayOutOfBounds { .. }
            | Error::KeyNotPacked { .. }
            | Error::ArrayNotPacked { .. }
            | Error::UnsortedKeys { .. }
            | Error::DuplicateKeyInStore { .. } => Fault::Input,
            Error::TooLarge { .. } | Error::TooManyItems | Error::SizeOverflow => Fault::Limit,
            Error::KeyNotFound { .. }
            | Error::TypeMismatch { .. }
            | Error::EmptyKey
            | Error::DuplicateKey { .. } => Fault::Caller,
            #[cfg(feature = "std")]
            Error::Io(_) => Fault::Io,
        }
    }

    fn offset(&self) -> Option<u64> {
        match self {
            Error::Layout(e) => Some(e.offset()),
            Error::Eof { offset }
            | Error::FileSizeTooSmall { offset, .. }
            | Error::DescriptorsOutsideStore { offset, .. }
            | Error::FileSizeMismatch { offset, .. }
            | Error::BadType { offset, .. }
            | Error::EmptyKeyInStore { offset, .. }
            | Error::KeyOutOfBounds { offset, .. }
            | Error::ArrayOutOfBounds { offset, .. }
            | Error::KeyNotPacked { offset, .. }
            | Error::ArrayNotPacked { offset, .. }
            | Error::UnsortedKeys { offset, .. }
            | Error::DuplicateKeyInStore { offset, .. }
            | Error::TooLarge { offset, .. } => Some(*offset),
            Error::KeyNotFound { .. }
            | Error::TypeMismatch { .. }
            | Error::EmptyKey
            | Error::DuplicateKey { .. }
            | Error::TooManyItems
            | Error::SizeOverflow => None,
            #[cfg(feature = "std")]
            Error::Io(_) => None,
        }
    }
}

#[cfg(feature = "std")]
impl From<Error> for std::io::Error {
    fn from(e: Error) -> std::io::Error {
        use std::io::ErrorKind;
        // Two kinds are more precise than the fault says.
        let kind = match &e {
            Error::Eof { .. } => ErrorKind::UnexpectedEof,
            Error::KeyNotFound { .. } => ErrorKind::NotFound,
            other => other.fault().io_error_kind(),
        };
        match e {
            Error::Io(io) => io,
            other => std::io::Error::new(kind, other),
        }
    }
}

/// A key quoted in an error message: its first 40 bytes and its full length.
///
/// Errors do not borrow the input and do not allocate, so long keys are cut. It prints as
/// a quoted string, with invalid UTF-8 as `\xNN` escapes and `…` when cut.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyExcerpt {
    bytes: [u8; KeyExcerpt::CAPACITY],
    kept: u8,
    len: u64,
}

impl KeyExcerpt {
    const CAPACITY: usize = 40;

    /// Copies (the start of) `key`.
    #[must_use]
    pub fn new(key: &[u8]) -> KeyExcerpt {
        let mut bytes = [0u8; KeyExcerpt::CAPACITY];
        let kept = key.len().min(KeyExcerpt::CAPACITY);
        if let (Some(dst), Some(src)) = (bytes.get_mut(..kept), key.get(..kept)) {
            dst.copy_from_slice(src);
        }
        KeyExcerpt {
            bytes,
            kept: u8::try_from(kept).unwrap_or(0),
            len: binfmt_core::bytes::len_u64(key),
        }
    }

    /// The bytes kept (all of the key when it is 40 bytes or shorter).
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..usize::from(self.kept)).unwrap_or(&[])
    }

    /// The length of the whole key.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True for the empty key.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True when [`as_bytes`](KeyExcerpt::as_bytes) is only the start of the key.
    #[must_use]
    pub fn is_cut(&self) -> bool {
        self.len > u64::from(self.kept)
    }
}

impl fmt::Display for KeyExcerpt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"")?;
        write_escaped(f, self.as_bytes())?;
        if self.is_cut() {
            f.write_str("…")?;
        }
        f.write_str("\"")
    }
}

impl fmt::Debug for KeyExcerpt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Writes `bytes` as the inside of a quoted string: valid UTF-8 with Rust's escapes,
/// anything else as `\xNN`. A character cut at the end of an excerpt shows as escapes.
pub(crate) fn write_escaped(f: &mut impl fmt::Write, bytes: &[u8]) -> fmt::Result {
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            write!(f, "{}", c.escape_debug())?;
        }
        for b in chunk.invalid() {
            write!(f, "\\x{b:02x}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    #[test]
    fn codes_are_the_reference_values() {
        for (i, code) in ErrorCode::ALL.into_iter().enumerate() {
            assert_eq!(code.value(), -i32::try_from(i).unwrap() - 1);
            assert_eq!(ErrorCode::from_value(code.value()), Some(code));
        }
        assert_eq!(ErrorCode::from_value(0), None);
        assert_eq!(
            ErrorCode::BadFileFormat.to_string(),
            "KAS_ERR_BAD_FILE_FORMAT (-5)"
        );
    }

    #[test]
    fn keys_print_quoted_escaped_and_cut() {
        assert_eq!(KeyExcerpt::new(b"nodes/time").to_string(), "\"nodes/time\"");
        assert_eq!(
            KeyExcerpt::new(b"a\0\xffb\"").to_string(),
            "\"a\\0\\xffb\\\"\""
        );
        let long = [b'x'; 50];
        let k = KeyExcerpt::new(&long);
        assert!(k.is_cut());
        assert_eq!(k.len(), 50);
        assert_eq!(k.to_string(), std::format!("\"{}…\"", "x".repeat(40)));
        assert_eq!(
            KeyExcerpt::new("日本語".as_bytes()).to_string(),
            "\"日本語\""
        );
    }

    #[test]
    fn rebasing_moves_input_offsets_only() {
        let e = Error::ArrayNotPacked {
            offset: 88,
            index: 0,
            array_start: 137,
            expected: 136,
        }
        .rebased(142);
        assert_eq!(e.offset(), Some(230));
        let e = Error::Layout(binfmt_core::Error::Truncated {
            what: "store",
            offset: 0,
            needed: 200,
            available: 10,
        })
        .rebased(5);
        assert_eq!(e.offset(), Some(5));
        assert_eq!(Error::EmptyKey.rebased(5).offset(), None);
    }

    #[cfg(feature = "std")]
    #[test]
    fn io_conversion_keeps_kind() {
        let io: std::io::Error = Error::KeyNotFound {
            key: KeyExcerpt::new(b"x"),
        }
        .into();
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
        let io: std::io::Error = Error::Eof { offset: 0 }.into();
        assert_eq!(io.kind(), std::io::ErrorKind::UnexpectedEof);
    }
}
