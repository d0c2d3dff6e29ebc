//! Everything that can go wrong: one [`ErrorKind`] variant per rule, and the byte at which
//! it was found in the [`Error`] around it.

use binfmt_core::Layout;

use crate::dtype::DType;
use crate::key::KeyExcerpt;

/// A kastore problem: an [`ErrorKind`] and, for problems in the input, the byte offset at
/// which it was found.
///
/// Offsets count from the start of the input given to the parser (for a stream of stores,
/// from the start of the stream; for [`stores`](crate::stores), from the start of the
/// slice). `Display` is `byte N: message`, or the message alone.
///
/// ```
/// use kastore::{ErrorKind, Fault, Store};
/// let mut bytes = kastore::Writer::new().to_vec()?;
/// bytes[16] = 65; // file_size
/// let e = Store::parse(&bytes).unwrap_err();
/// assert_eq!(e.offset(), Some(16));
/// assert!(matches!(e.kind(), ErrorKind::FileSizeMismatch { file_size: 65, expected: 64, .. }));
/// assert_eq!(e.fault(), Fault::Input);
/// assert!(e.to_string().starts_with("byte 16: the header's file_size is 65"));
/// # Ok::<(), kastore::Error>(())
/// ```
///
/// With the `alloc` feature (on by default, through `std`) an `Error` is one pointer
/// (8 bytes on 64-bit targets), and so is a `Result<(), Error>`: the offset and the kind
/// share one allocation, made on the error path only ([`binfmt_core::Error`], "Size").
/// Without `alloc` they are inline: 88 bytes on 64-bit targets.
pub type Error = binfmt_core::Error<ErrorKind>;

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// What went wrong, apart from where; see [`Error`].
///
/// [`code`](ErrorKind::code) maps every variant to one of the reference library's 15
/// error codes.
///
/// Struct variants are `#[non_exhaustive]`: match them with `..`, as fields may be added.
/// [`Kind::name`](binfmt_core::Kind::name) gives each variant's stable name.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A structural problem shared with the other formats: input shorter than the header
    /// or than the store's `file_size`, offset arithmetic overflowing, wrong magic, a
    /// major version other than 1, an array offset that is not a multiple of 8.
    #[error(transparent)]
    Layout(#[from] Layout),

    /// The input has no bytes at all where a store should start. In a stream of stores
    /// this is the clean end; anywhere else it is an empty file.
    #[error("end of input: there is no store here (zero bytes)")]
    Eof,

    /// The header's `file_size` is smaller than the header itself.
    #[error(
        "the header's file_size is {file_size}, smaller than the 64-byte header; the header is corrupt"
    )]
    #[non_exhaustive]
    FileSizeTooSmall {
        /// The value found.
        file_size: u64,
    },

    /// The descriptors of `num_items` items do not fit in `file_size` bytes.
    #[error(
        "the header announces {num_items} items, whose descriptors need {needed} bytes, but file_size is {file_size}; num_items or file_size is corrupt"
    )]
    #[non_exhaustive]
    DescriptorsOutsideStore {
        /// The item count found.
        num_items: u32,
        /// 64 + 64 × `num_items`.
        needed: u64,
        /// The header's `file_size`.
        file_size: u64,
    },

    /// `file_size` is not where the packing rules put the end of the last array.
    #[error(
        "the header's file_size is {file_size}, but the keys and arrays end at byte {expected}; the store is truncated, padded or corrupt"
    )]
    #[non_exhaustive]
    FileSizeMismatch {
        /// The value found.
        file_size: u64,
        /// The size the descriptors imply.
        expected: u64,
    },

    /// A descriptor's type code is not one of the ten element types.
    #[error("item {index}: unknown element type code {code}; kastore 1.0 has types 0 to 9")]
    #[non_exhaustive]
    BadType {
        /// The item's position in the store.
        index: u64,
        /// The code found.
        code: u8,
    },

    /// A descriptor's `key_len` is 0; keys are never empty.
    #[error("item {index}: key_len is 0; kastore keys are never empty")]
    #[non_exhaustive]
    EmptyKeyInStore {
        /// The item's position in the store.
        index: u64,
    },

    /// A key's bytes lie (partly) outside the store.
    #[error(
        "item {index}: the key at store offset {key_start}, {key_len} bytes long, lies outside the {file_size}-byte store"
    )]
    #[non_exhaustive]
    KeyOutOfBounds {
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
        "item {index}: the {dtype} array at store offset {array_start}, {array_len} elements long, lies outside the {file_size}-byte store"
    )]
    #[non_exhaustive]
    ArrayOutOfBounds {
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
        "item {index}: key_start is {key_start}, but keys are packed back to back and this one must start at {expected}"
    )]
    #[non_exhaustive]
    KeyNotPacked {
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
        "item {index}: array_start is {array_start}, but arrays are packed at the next multiple of 8 and this one must start at {expected}"
    )]
    #[non_exhaustive]
    ArrayNotPacked {
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
        "item {index}: key {key} sorts before the previous key; kastore keys are sorted bytewise"
    )]
    #[non_exhaustive]
    UnsortedKeys {
        /// The item's position in the store.
        index: u64,
        /// The key.
        key: KeyExcerpt,
    },

    /// The same key appears twice in the store.
    #[error("item {index}: key {key} is the same as the previous key")]
    #[non_exhaustive]
    DuplicateKeyInStore {
        /// The second copy's position in the store.
        index: u64,
        /// The key.
        key: KeyExcerpt,
    },

    /// A **warning**, never an error: bytes after the end of the last store that are not a
    /// further store. The reference readers (and tskit) read the store and ignore them;
    /// so do [`Store::parse`](crate::Store::parse) and [`stores`](crate::stores).
    /// [`Store::warnings`](crate::Store::warnings) and [`verify`](crate::verify) report
    /// it, at the first trailing byte.
    ///
    /// `store_like` is true when the bytes begin with the kastore magic (or a prefix of
    /// it) but do not hold a valid store, e.g. a further store cut short: the warning
    /// after this one is then that store's first problem.
    #[error(
        "{len} {} after the end of the store {}; kastore and tskit ignore {}",
        if *len == 1 { "byte" } else { "bytes" },
        if *store_like {
            "begin with the kastore magic but are not a valid store (a truncated or damaged further store)"
        } else if *len == 1 {
            "is not a kastore store"
        } else {
            "are not a kastore store"
        },
        if *len == 1 { "it" } else { "them" }
    )]
    #[non_exhaustive]
    TrailingBytes {
        /// How many bytes follow the store.
        len: u64,
        /// Whether they begin like a store.
        store_like: bool,
    },

    /// The store's `file_size` is above [`ReadOptions::max_store_size`](crate::ReadOptions::max_store_size).
    #[error(
        "the store declares file_size {file_size}, above the limit of {limit} bytes; raise ReadOptions::max_store_size to read it"
    )]
    #[non_exhaustive]
    TooLarge {
        /// The header's `file_size`.
        file_size: u64,
        /// The configured limit.
        limit: u64,
    },

    /// No item has this key.
    #[error("key {key} not found")]
    #[non_exhaustive]
    KeyNotFound {
        /// The key asked for.
        key: KeyExcerpt,
    },

    /// The item exists but holds a different element type: kastore never reinterprets.
    #[error("key {key} holds {stored} elements, not {requested}")]
    #[non_exhaustive]
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
    #[non_exhaustive]
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
    #[error(transparent)]
    Io(#[from] binfmt_core::IoError),
}

impl ErrorKind {
    /// True for [`ErrorKind::Eof`]: zero bytes where a store would start.
    #[must_use]
    pub fn is_eof(&self) -> bool {
        matches!(self, ErrorKind::Eof)
    }

    /// True for the kinds that are warnings, never errors: [`ErrorKind::TrailingBytes`].
    #[must_use]
    pub fn is_warning(&self) -> bool {
        matches!(self, ErrorKind::TrailingBytes { .. })
    }
}

binfmt_core::kind_table! {
    ErrorKind;
    Fault::Input => Eof, FileSizeTooSmall, DescriptorsOutsideStore, FileSizeMismatch, BadType,
        EmptyKeyInStore, KeyOutOfBounds, ArrayOutOfBounds, KeyNotPacked, ArrayNotPacked,
        UnsortedKeys, DuplicateKeyInStore, TrailingBytes;
    Fault::Limit => TooLarge, TooManyItems, SizeOverflow;
    Fault::Caller => KeyNotFound, TypeMismatch, EmptyKey, DuplicateKey;
    into_io_error {
        /// The original `io::Error` for [`ErrorKind::Io`]. Two kinds become an `io::Error`
        /// more precise than their fault says, as they did before the shared vocabulary:
        /// [`ErrorKind::Eof`] is `UnexpectedEof` and [`ErrorKind::KeyNotFound`] is
        /// `NotFound` (their messages have no offset to lose: an end of input is at the
        /// store's start, a key lookup has none).
        #[cfg(feature = "std")]
        fn into_io_error(self) -> core::result::Result<std::io::Error, Self> {
            use std::io::ErrorKind as Io;
            match self {
                ErrorKind::Io(e) => Ok(e.source),
                e @ ErrorKind::Eof => Ok(std::io::Error::new(Io::UnexpectedEof, e)),
                e @ ErrorKind::KeyNotFound { .. } => Ok(std::io::Error::new(Io::NotFound, e)),
                other => Err(other),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use binfmt_core::Kind;
    use std::string::ToString;

    #[test]
    fn offsets_are_the_errors_and_rebase() {
        let e = ErrorKind::ArrayNotPacked {
            index: 0,
            array_start: 137,
            expected: 136,
        }
        .at(88)
        .rebased(142);
        assert_eq!(e.offset(), Some(230));
        assert_eq!(
            e.to_string(),
            "byte 230: item 0: array_start is 137, but arrays are packed at the next multiple of 8 and this one must start at 136"
        );
        let e: Error = binfmt_core::Error::truncated("store", 0, 200, 10).into();
        assert_eq!(e.rebased(5).offset(), Some(5));
        assert_eq!(ErrorKind::EmptyKey.unlocated().rebased(5).offset(), None);
    }

    #[test]
    fn trailing_bytes_read_well() {
        let one = ErrorKind::TrailingBytes {
            len: 1,
            store_like: false,
        };
        assert_eq!(
            one.to_string(),
            "1 byte after the end of the store is not a kastore store; kastore and tskit ignore it"
        );
        assert!(one.is_warning());
    }

    #[cfg(feature = "std")]
    #[test]
    fn io_conversion_keeps_kind() {
        let io: std::io::Error = ErrorKind::KeyNotFound {
            key: KeyExcerpt::new(b"x"),
        }
        .unlocated()
        .into();
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
        let io: std::io::Error = ErrorKind::Eof.at(0).into();
        assert_eq!(io.kind(), std::io::ErrorKind::UnexpectedEof);
        let io: std::io::Error = ErrorKind::BadType { index: 0, code: 10 }.at(64).into();
        assert_eq!(io.kind(), std::io::ErrorKind::InvalidData);
        assert!(io.to_string().starts_with("byte 64: item 0"));
    }
}
