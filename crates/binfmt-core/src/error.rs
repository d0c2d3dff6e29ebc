//! The one error shape of every binfmt crate: *where* (a byte offset) apart from *what*
//! (a kind).
//!
//! [`Error<K>`] holds an optional byte offset and a kind `K`. Each format crate defines
//! its own `ErrorKind` enum (one variant per rule, none of them carrying the offset) and
//! names `pub type Error = binfmt_core::Error<ErrorKind>;`, so that every crate's error
//! has the same methods: [`offset`](Error::offset), [`kind`](Error::kind),
//! [`fault`](Error::fault), [`rebased`](Error::rebased), and one `Display` style:
//! `byte N: message`, or the message alone when there is no offset.
//!
//! The structural problems any binary format can have (input too short, offset
//! arithmetic overflowing, wrong magic, a version we do not read, a misaligned value) are
//! the kind [`Layout`], which every format kind wraps in a `Layout` variant. Functions of
//! this crate return `Error<Layout>` (the default parameter, so plain
//! `binfmt_core::Error`), and `?` turns it into any format's error.
//!
//! With the `alloc` feature an `Error` is one pointer, the offset and kind being boxed
//! together (see [`Error`], "Size"); each kind also has a stable name for tools and
//! bindings ([`Kind::name`]), and with `std`, kinds that wrap an `IoError` give access to
//! it (`Kind::io_error`), so that naming the file is written once (`Error::with_path`).
//!
//! ```
//! use binfmt_core::{Error, Fault, Layout, bytes};
//!
//! let err: Error = bytes::slice(b"abc", 2, 4, "header").unwrap_err();
//! assert_eq!(err.offset(), Some(2));
//! assert!(matches!(err.kind(), Layout::Truncated { needed: 4, available: 1, .. }));
//! assert_eq!(err.fault(), Fault::Input);
//! assert_eq!(
//!     err.to_string(),
//!     "byte 2: truncated input: header of 4 bytes, but the input has only 1 byte from there"
//! );
//! // Found at byte 2 of a sub-slice that starts at byte 100 of the file:
//! assert_eq!(err.rebased(100).offset(), Some(102));
//! ```

use core::fmt;

use crate::version::Version;

/// Who has to act to make an error go away.
///
/// Errors are grouped by blame, as image-png and zip2 do: a malformed file, a file that
/// is well-formed but uses something we do not support, a caller passing arguments that
/// make no sense, the operating system failing, or a resource limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Fault {
    /// The input is malformed, truncated or corrupt. The file has to be fixed or replaced.
    Input,
    /// The input is well-formed but uses a version or feature this library does not read.
    Unsupported,
    /// The caller asked for something invalid (bad arguments, wrong type, unknown key).
    Caller,
    /// Reading or writing failed at the operating-system level.
    Io,
    /// A configured limit (memory, count) would be exceeded.
    Limit,
}

impl Fault {
    /// The `std::io::ErrorKind` every binfmt crate uses when its error becomes an
    /// `io::Error`: malformed input is `InvalidData`, an unsupported version `Unsupported`,
    /// a bad request `InvalidInput`, a limit `OutOfMemory`, an I/O failure `Other` (the
    /// original `io::Error` is returned unchanged where there is one).
    #[cfg(feature = "std")]
    #[must_use]
    pub fn io_error_kind(self) -> std::io::ErrorKind {
        use std::io::ErrorKind;
        match self {
            Fault::Input => ErrorKind::InvalidData,
            Fault::Unsupported => ErrorKind::Unsupported,
            Fault::Caller => ErrorKind::InvalidInput,
            Fault::Io => ErrorKind::Other,
            Fault::Limit => ErrorKind::OutOfMemory,
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Fault::Input => "malformed input",
            Fault::Unsupported => "unsupported input",
            Fault::Caller => "invalid request",
            Fault::Io => "I/O error",
            Fault::Limit => "limit exceeded",
        })
    }
}

/// What an error is, apart from where: implemented by [`Layout`] and by each format
/// crate's `ErrorKind`.
///
/// A kind's `Display` must not name the offset: [`Error`]'s `Display` puts it in front,
/// once, in the same words for every format.
pub trait Kind: core::error::Error + Send + Sync + 'static {
    /// Who has to act. Implementations match every variant by name, with no catch-all
    /// arm, so that a new variant cannot silently get the wrong blame.
    fn fault(&self) -> Fault;

    /// The variant's stable name: `"Truncated"`, `"BadMagic"`, `"ChunkDigestMismatch"`…
    ///
    /// The names are an API, as the variants are: bindings and tools branch on them (the
    /// Python package's `FormatError.kind` and exception classes are chosen by name), so
    /// a name is the variant's name when the variant is added and stays the same if the
    /// variant is renamed. A format kind's `Layout` variant has no name of its own: it
    /// returns the [`Layout`]'s. Implementations match every variant, with no catch-all
    /// arm, as [`fault`](Kind::fault) does, so that no variant goes unnamed.
    ///
    /// ```
    /// use binfmt_core::{Error, Kind, bytes};
    /// let err: Error = bytes::slice(b"abc", 2, 4, "header").unwrap_err();
    /// assert_eq!(err.kind().name(), "Truncated");
    /// ```
    fn name(&self) -> &'static str;

    /// The kind located at byte `offset`.
    #[must_use]
    fn at(self, offset: u64) -> Error<Self>
    where
        Self: Sized,
    {
        Error::new(Some(offset), self)
    }

    /// The kind with no offset (caller mistakes, I/O failures).
    #[must_use]
    fn unlocated(self) -> Error<Self>
    where
        Self: Sized,
    {
        Error::new(None, self)
    }

    /// The [`IoError`] inside, for a kind's `Io` variant; `None` for every other kind
    /// (the default). Kinds with an `Io` variant implement it and
    /// [`io_error_mut`](Kind::io_error_mut), so that code about I/O errors (naming the
    /// file, [`Error::with_path`]; mapping to another language's `OSError`) is written
    /// once, for every format.
    #[cfg(feature = "std")]
    fn io_error(&self) -> Option<&IoError> {
        None
    }

    /// The [`IoError`] inside, to change (e.g. to name its file); see
    /// [`io_error`](Kind::io_error).
    #[cfg(feature = "std")]
    fn io_error_mut(&mut self) -> Option<&mut IoError> {
        None
    }

    /// The `std::io::Error` inside, if this kind wraps one, so that converting to
    /// `io::Error` returns the original error unchanged.
    #[cfg(feature = "std")]
    fn into_io_error(self) -> core::result::Result<std::io::Error, Self>
    where
        Self: Sized,
    {
        Err(self)
    }
}

/// Implements [`Kind::io_error`] and [`Kind::io_error_mut`] inside an `impl Kind` block,
/// for a kind whose I/O variant is the tuple variant `$variant` holding an
/// [`IoError`](crate::IoError): the two hooks every format crate would otherwise write
/// alike ([`format_kind!`](crate::format_kind) writes them with the rest of a format
/// kind's `impl`). The methods exist under the calling crate's `std` feature.
///
/// ```text
/// impl binfmt_core::Kind for ErrorKind {
///     fn fault(&self) -> Fault { … }
///     fn name(&self) -> &'static str { … }
///     binfmt_core::io_hooks!(ErrorKind::Io);
/// }
/// ```
#[macro_export]
macro_rules! io_hooks {
    ($($variant:ident)::+) => {
        #[cfg(feature = "std")]
        fn io_error(&self) -> ::core::option::Option<&$crate::IoError> {
            match self {
                $($variant)::+(e) => ::core::option::Option::Some(e),
                _ => ::core::option::Option::None,
            }
        }

        #[cfg(feature = "std")]
        fn io_error_mut(&mut self) -> ::core::option::Option<&mut $crate::IoError> {
            match self {
                $($variant)::+(e) => ::core::option::Option::Some(e),
                _ => ::core::option::Option::None,
            }
        }
    };
}

/// Implements [`Kind`], [`FormatKind`] and (under the calling crate's `std` feature)
/// [`IoKind`] for a format crate's `ErrorKind`, from its two tables: who is to blame for
/// each variant (`fault`) and each variant's stable name (`name`).
///
/// Every format kind has a `Layout` variant wrapping a [`Layout`] and, with `std`, an `Io`
/// variant wrapping an [`IoError`](crate::IoError), and treats them alike: the `Layout`
/// variant's blame and name are the layout problem's, the `Io` variant is
/// [`Fault::Io`] named `"Io"`, and the I/O hooks ([`io_hooks!`]) and
/// [`Kind::into_io_error`] return what it wraps. The macro writes that part once; the
/// tables list the crate's other variants, in `match` arms with no catch-all arm (both
/// matches deny `clippy::wildcard_enum_match_arm`), so that a new variant cannot go
/// without a blame or a name.
///
/// It also asserts at compile time, under the calling crate's `alloc` feature, that
/// `Error<ErrorKind>` and `Result<(), Error<ErrorKind>>` are one pointer each, as
/// [`Error`]'s docs ("Size") and each format crate's promise.
///
/// A kind that turns more variants than `Io` into a precise `io::Error` writes its own
/// [`Kind::into_io_error`] in a third section, `into_io_error { … }`, after the tables.
///
/// ```
/// use binfmt_core::{Error, Fault, Kind, Layout};
///
/// #[derive(Debug, thiserror::Error)]
/// pub enum ErrorKind {
///     #[error(transparent)]
///     Layout(#[from] Layout),
///     #[error("the count is {count}; at most 3 fit")]
///     CountTooLarge { count: u32 },
///     #[error("a record was asked for past the last one")]
///     NoSuchRecord,
///     #[cfg(feature = "std")]
///     #[error(transparent)]
///     Io(#[from] binfmt_core::IoError),
/// }
///
/// binfmt_core::format_kind! {
///     ErrorKind;
///     fault {
///         ErrorKind::CountTooLarge { .. } => Fault::Input,
///         ErrorKind::NoSuchRecord => Fault::Caller,
///     }
///     name {
///         ErrorKind::CountTooLarge { .. } => "CountTooLarge",
///         ErrorKind::NoSuchRecord => "NoSuchRecord",
///     }
/// }
///
/// let err = ErrorKind::CountTooLarge { count: 9 }.at(4);
/// assert_eq!((err.fault(), err.kind().name()), (Fault::Input, "CountTooLarge"));
/// let err: Error<ErrorKind> = Error::truncated("header", 0, 8, 2).into();
/// assert_eq!((err.fault(), err.kind().name()), (Fault::Input, "Truncated"));
/// ```
#[macro_export]
macro_rules! format_kind {
    ($kind:ident; fault { $($fault:tt)* } name { $($name:tt)* }) => {
        $crate::format_kind! {
            $kind;
            fault { $($fault)* }
            name { $($name)* }
            into_io_error {
                #[cfg(feature = "std")]
                fn into_io_error(self) -> ::core::result::Result<::std::io::Error, Self> {
                    match self {
                        $kind::Io(e) => ::core::result::Result::Ok(e.source),
                        other => ::core::result::Result::Err(other),
                    }
                }
            }
        }
    };
    (
        $kind:ident;
        fault { $($fault:tt)* }
        name { $($name:tt)* }
        into_io_error { $($items:tt)* }
    ) => {
        impl $crate::Kind for $kind {
            #[deny(clippy::wildcard_enum_match_arm)]
            fn fault(&self) -> $crate::Fault {
                match self {
                    $kind::Layout(layout) => $crate::Kind::fault(layout),
                    #[cfg(feature = "std")]
                    $kind::Io(_) => $crate::Fault::Io,
                    $($fault)*
                }
            }

            #[deny(clippy::wildcard_enum_match_arm)]
            fn name(&self) -> &'static str {
                match self {
                    $kind::Layout(layout) => $crate::Kind::name(layout),
                    #[cfg(feature = "std")]
                    $kind::Io(_) => "Io",
                    $($name)*
                }
            }

            $crate::io_hooks!($kind::Io);

            $($items)*
        }

        impl $crate::FormatKind for $kind {}

        #[cfg(feature = "std")]
        impl $crate::IoKind for $kind {}

        // The size `Error`'s docs promise, and each format crate's of its own: errors
        // must stay cheap to move, whatever the kinds grow to hold.
        #[cfg(feature = "alloc")]
        const _: () = ::core::assert!(
            ::core::mem::size_of::<$crate::Error<$kind>>() == ::core::mem::size_of::<usize>()
                && ::core::mem::size_of::<::core::result::Result<(), $crate::Error<$kind>>>()
                    == ::core::mem::size_of::<usize>()
        );
    };
}

/// A format's own kind: a [`Kind`] that can hold a [`Layout`] problem, so that the
/// structural errors of this crate convert into it with `?`.
pub trait FormatKind: Kind + From<Layout> {}

/// A format kind that can also hold an [`IoError`] (its `Io` variant), so that I/O errors
/// convert into the format's error with `?` and byte sources can be read with
/// [`source::read_exact`](crate::source::read_exact).
///
/// Such a kind also implements [`Kind::io_error`], [`Kind::io_error_mut`] and
/// [`Kind::into_io_error`] for its `Io` variant.
#[cfg(feature = "std")]
pub trait IoKind: FormatKind + From<IoError> {}

#[cfg(feature = "std")]
impl<K: IoKind> From<IoError> for Error<K> {
    /// An I/O error has no offset.
    fn from(e: IoError) -> Self {
        Error::new(None, K::from(e))
    }
}

/// An error: a [`Kind`] and, when the problem is in the input, the byte offset at which
/// it was found.
///
/// Offsets count from the start of the input given to the parser (for a file, from the
/// start of the file), so that a user can look at the same byte with a hex dump.
///
/// # Size
///
/// With the `alloc` feature (which `std` implies), an `Error` is one pointer (8 bytes on
/// 64-bit targets), and so is a `Result<(), Error>`: the offset and the kind live in one
/// heap allocation, made when the error is. Errors are the rare path and results are
/// returned by every parse, so the allocation is paid on failure only and every
/// `Result` stays small, as with `std::io::Error`. Without `alloc` they are held inline
/// (the kind's size plus 16 bytes: 72 bytes for `Error<Layout>`).
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// use binfmt_core::Error;
/// assert_eq!(size_of::<Error>(), size_of::<usize>());
/// assert_eq!(size_of::<Result<(), Error>>(), size_of::<usize>());
/// # }
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Error<K = Layout> {
    inner: Cold<Located<K>>,
}

/// An [`Error`]'s contents.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Located<K> {
    offset: Option<u64>,
    kind: K,
}

/// Where an [`Error`] keeps its contents: in a `Box` when there is an allocator, so that
/// the error (and every `Result` holding one) is a pointer; inline when there is none.
#[cfg(feature = "alloc")]
type Cold<T> = alloc::boxed::Box<T>;
#[cfg(not(feature = "alloc"))]
type Cold<T> = T;

#[cfg(feature = "alloc")]
fn cold<T>(value: T) -> Cold<T> {
    alloc::boxed::Box::new(value)
}
#[cfg(not(feature = "alloc"))]
fn cold<T>(value: T) -> Cold<T> {
    value
}

// Takes the box by value to unbox it: the point of the function.
#[cfg(feature = "alloc")]
#[allow(clippy::boxed_local)]
fn warm<T>(value: Cold<T>) -> T {
    *value
}
#[cfg(not(feature = "alloc"))]
fn warm<T>(value: Cold<T>) -> T {
    value
}

impl<K> Error<K> {
    /// An error of `kind` at `offset`.
    #[must_use]
    pub fn new(offset: Option<u64>, kind: K) -> Self {
        Error {
            inner: cold(Located { offset, kind }),
        }
    }

    /// The byte offset of the problem, if it has one.
    #[must_use]
    pub fn offset(&self) -> Option<u64> {
        self.inner.offset
    }

    /// What the problem is, for `match`.
    #[must_use]
    pub fn kind(&self) -> &K {
        &self.inner.kind
    }

    /// The kind, dropping the offset.
    #[must_use]
    pub fn into_kind(self) -> K {
        warm(self.inner).kind
    }

    /// The same error with `base` added to its offset: for an error from a parse of a
    /// sub-slice that starts at byte `base` of the whole input.
    #[must_use]
    pub fn rebased(mut self, base: u64) -> Self {
        self.inner.offset = self.inner.offset.map(|o| o.saturating_add(base));
        self
    }

    /// The same error at `offset` (replacing any offset it had).
    #[must_use]
    pub fn with_offset(mut self, offset: u64) -> Self {
        self.inner.offset = Some(offset);
        self
    }

    /// The same error with its kind mapped by `f`.
    #[must_use]
    pub fn map_kind<J>(self, f: impl FnOnce(K) -> J) -> Error<J> {
        let Located { offset, kind } = warm(self.inner);
        Error::new(offset, f(kind))
    }
}

impl<K: Kind> Error<K> {
    /// Who has to act.
    #[must_use]
    pub fn fault(&self) -> Fault {
        self.inner.kind.fault()
    }

    /// The operating-system error inside, for an error of the kind's `Io` variant
    /// ([`Kind::io_error`]).
    #[cfg(feature = "std")]
    #[must_use]
    pub fn io_error(&self) -> Option<&IoError> {
        self.inner.kind.io_error()
    }

    /// The same error, naming `path` if it is an I/O error that names no file yet: for
    /// `map_err` on the result of an operation on the file at `path`, so that the
    /// message says which file failed. Other errors, and I/O errors that already name a
    /// file, are returned unchanged.
    ///
    /// ```
    /// use binfmt_core::{Error, IoError};
    /// # #[derive(Debug, thiserror::Error)]
    /// # enum FormatKind { #[error(transparent)] Io(IoError) }
    /// # impl binfmt_core::Kind for FormatKind {
    /// #     fn fault(&self) -> binfmt_core::Fault { binfmt_core::Fault::Io }
    /// #     fn name(&self) -> &'static str { "Io" }
    /// #     fn io_error(&self) -> Option<&IoError> { match self { FormatKind::Io(e) => Some(e) } }
    /// #     fn io_error_mut(&mut self) -> Option<&mut IoError> { match self { FormatKind::Io(e) => Some(e) } }
    /// # }
    /// let source = std::io::Error::from(std::io::ErrorKind::NotFound);
    /// let err = Error::new(None, FormatKind::Io(IoError::from(source)));
    /// // The first path given is the one kept.
    /// let err = err.with_path("data.kas").with_path("other.kas");
    /// assert_eq!(err.to_string(), "data.kas: entity not found");
    /// assert!(err.io_error().is_some());
    /// ```
    #[cfg(feature = "std")]
    #[must_use]
    pub fn with_path(mut self, path: impl AsRef<std::path::Path>) -> Self {
        if let Some(io) = self.inner.kind.io_error_mut()
            && io.path.is_none()
        {
            io.path = Some(path.as_ref().to_path_buf());
        }
        self
    }
}

impl<K: fmt::Debug> fmt::Debug for Error<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("offset", &self.inner.offset)
            .field("kind", &self.inner.kind)
            .finish()
    }
}

impl<K: fmt::Display> fmt::Display for Error<K> {
    /// `byte N: message`, or the message alone.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inner.offset {
            Some(offset) => write!(f, "byte {offset}: {}", self.inner.kind),
            None => fmt::Display::fmt(&self.inner.kind, f),
        }
    }
}

impl<K: Kind> core::error::Error for Error<K> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        self.inner.kind.source()
    }
}

impl<K: FormatKind> From<Error<Layout>> for Error<K> {
    fn from(e: Error<Layout>) -> Self {
        e.map_kind(K::from)
    }
}

#[cfg(feature = "std")]
impl<K: Kind> From<Error<K>> for std::io::Error {
    /// The original `io::Error` when the kind wraps one; otherwise an error of the kind
    /// [`Fault::io_error_kind`] gives, whose message is this error's.
    fn from(e: Error<K>) -> std::io::Error {
        let kind = e.fault().io_error_kind();
        let Located { offset, kind: k } = warm(e.inner);
        match k.into_io_error() {
            Ok(io) => io,
            Err(k) => std::io::Error::new(kind, Error::new(offset, k)),
        }
    }
}

/// What every error can tell a user interface, without naming its format: who is to
/// blame, where, and the message. `binfmt verify` prints `FILE: byte N: MESSAGE` through
/// it, for any format.
pub trait Diagnostic: core::error::Error {
    /// Who has to act.
    fn fault(&self) -> Fault;
    /// The byte offset in the input at which the problem was found, if it has one.
    fn offset(&self) -> Option<u64>;
    /// The message without the offset.
    fn message(&self) -> &dyn fmt::Display;
}

impl<K: Kind> Diagnostic for Error<K> {
    fn fault(&self) -> Fault {
        self.inner.kind.fault()
    }
    fn offset(&self) -> Option<u64> {
        self.inner.offset
    }
    fn message(&self) -> &dyn fmt::Display {
        &self.inner.kind
    }
}

/// Up to 16 bytes copied out of the input, for error messages that show what was found.
///
/// Errors must not borrow the input (they outlive it), and must not allocate (this crate
/// is `no_std` without `alloc`), so a short fixed window is copied.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Found {
    bytes: [u8; 16],
    len: u8,
}

impl Found {
    /// Copies the first (at most 16) bytes of `bytes`.
    #[must_use]
    pub fn new(bytes: &[u8]) -> Self {
        let mut out = [0u8; 16];
        let len = bytes.len().min(out.len());
        if let (Some(dst), Some(src)) = (out.get_mut(..len), bytes.get(..len)) {
            dst.copy_from_slice(src);
        }
        Found {
            bytes: out,
            len: u8::try_from(len).unwrap_or(16),
        }
    }

    /// The copied bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..usize::from(self.len)).unwrap_or(&[])
    }
}

impl fmt::Debug for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Found {
    /// Hex bytes, then the printable-ASCII rendering: `89 4b 41 53 ("?KAS")`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.as_bytes().iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{b:02x}")?;
        }
        f.write_str(" (\"")?;
        for &b in self.as_bytes() {
            let c = if b.is_ascii_graphic() || b == b' ' {
                char::from(b)
            } else {
                '.'
            };
            write!(f, "{c}")?;
        }
        f.write_str("\")")
    }
}

/// A structural problem that any binary format can have.
///
/// Every variant names the structure involved (`what`, e.g. `"header"`); the offset is
/// the [`Error`]'s.
///
/// Struct variants are `#[non_exhaustive]`: match them with `..`, as fields may be added.
/// [`Kind::name`] gives each variant's stable name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum Layout {
    /// The input ends before a structure does.
    #[error(
        "truncated input: {what} of {needed} {}, but the input has only {available} {} from there",
        plural(*needed, "byte"),
        plural(*available, "byte")
    )]
    #[non_exhaustive]
    Truncated {
        /// The structure being read.
        what: &'static str,
        /// How many bytes it needs from the offset.
        needed: u64,
        /// How many bytes the input has from the offset (0 if it is past the end).
        available: u64,
    },
    /// An offset or length read from the input does not fit the arithmetic (u64 or usize).
    #[error("the {what} points outside any possible input: offset arithmetic overflows")]
    #[non_exhaustive]
    Overflow {
        /// The structure whose offset or length overflowed.
        what: &'static str,
    },
    /// The input does not start with the expected signature.
    #[error("bad magic: expected {expected}, found {found}; this is not a {what}")]
    #[non_exhaustive]
    BadMagic {
        /// What the magic identifies (`"kastore file"`).
        what: &'static str,
        /// The bytes we expected.
        expected: Found,
        /// The bytes we found.
        found: Found,
    },
    /// The format version is newer than anything this library reads.
    #[error(
        "the {what} is format version {found}; this library reads major version {supported_major} only, upgrade it"
    )]
    #[non_exhaustive]
    VersionTooNew {
        /// The format.
        what: &'static str,
        /// The version in the input.
        found: Version,
        /// The newest major version this library reads.
        supported_major: u16,
    },
    /// The format version is older than anything this library reads.
    #[error(
        "the {what} is format version {found}; this library reads major version {oldest_major} and later"
    )]
    #[non_exhaustive]
    VersionTooOld {
        /// The format.
        what: &'static str,
        /// The version in the input.
        found: Version,
        /// The oldest major version this library reads.
        oldest_major: u16,
    },
    /// A value that must be a multiple of some alignment is not.
    #[error("the {what} is {value}, which is not a multiple of {align}")]
    #[non_exhaustive]
    Misaligned {
        /// The value's meaning (`"array offset"`).
        what: &'static str,
        /// The value.
        value: u64,
        /// The required alignment.
        align: u64,
    },
}

/// `"1 byte"` / `"2 bytes"`: the noun only, for messages.
fn plural(n: u64, noun: &'static str) -> Plural {
    Plural { n, noun }
}

struct Plural {
    n: u64,
    noun: &'static str,
}

impl fmt::Display for Plural {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.noun)?;
        if self.n != 1 {
            f.write_str("s")?;
        }
        Ok(())
    }
}

impl Kind for Layout {
    #[deny(clippy::wildcard_enum_match_arm)]
    fn fault(&self) -> Fault {
        match self {
            Layout::VersionTooNew { .. } | Layout::VersionTooOld { .. } => Fault::Unsupported,
            Layout::Truncated { .. }
            | Layout::Overflow { .. }
            | Layout::BadMagic { .. }
            | Layout::Misaligned { .. } => Fault::Input,
        }
    }

    #[deny(clippy::wildcard_enum_match_arm)]
    fn name(&self) -> &'static str {
        match self {
            Layout::Truncated { .. } => "Truncated",
            Layout::Overflow { .. } => "Overflow",
            Layout::BadMagic { .. } => "BadMagic",
            Layout::VersionTooNew { .. } => "VersionTooNew",
            Layout::VersionTooOld { .. } => "VersionTooOld",
            Layout::Misaligned { .. } => "Misaligned",
        }
    }
}

impl Error<Layout> {
    /// [`Layout::Truncated`] at `offset`.
    #[must_use]
    pub fn truncated(what: &'static str, offset: u64, needed: u64, available: u64) -> Self {
        Error::new(
            Some(offset),
            Layout::Truncated {
                what,
                needed,
                available,
            },
        )
    }

    /// [`Layout::Overflow`] at `offset`.
    #[must_use]
    pub fn overflow(what: &'static str, offset: u64) -> Self {
        Error::new(Some(offset), Layout::Overflow { what })
    }
}

/// Shorthand for results whose error is the core vocabulary.
pub type Result<T, E = Error> = core::result::Result<T, E>;

// The size `Error`'s docs promise; every format crate asserts the same of its own.
#[cfg(feature = "alloc")]
const _: () = assert!(
    size_of::<Error>() == size_of::<usize>() && size_of::<Result<()>>() == size_of::<usize>()
);

/// An operating-system error and the file it is about: the `Io` variant of every format
/// crate's `ErrorKind` holds one.
///
/// ```
/// use binfmt_core::IoError;
/// let e = IoError::new(Some("data.kas".into()), std::io::ErrorKind::NotFound.into());
/// assert_eq!(e.to_string(), "data.kas: entity not found");
/// ```
#[cfg(feature = "std")]
#[derive(Debug)]
pub struct IoError {
    /// The file, when the operation was on a named file.
    pub path: Option<std::path::PathBuf>,
    /// What the operating system said.
    pub source: std::io::Error,
}

#[cfg(feature = "std")]
impl IoError {
    /// `source`, about `path`.
    #[must_use]
    pub fn new(path: Option<std::path::PathBuf>, source: std::io::Error) -> Self {
        IoError { path, source }
    }

    /// A closure for `map_err` that names `path`.
    pub fn at_path(path: impl AsRef<std::path::Path>) -> impl FnOnce(std::io::Error) -> IoError {
        let path = path.as_ref().to_path_buf();
        move |source| IoError::new(Some(path), source)
    }
}

#[cfg(feature = "std")]
impl fmt::Display for IoError {
    /// `PATH: message`, or the message alone.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(f, "{}: {}", path.display(), self.source),
            None => fmt::Display::fmt(&self.source, f),
        }
    }
}

#[cfg(feature = "std")]
impl core::error::Error for IoError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        Some(&self.source)
    }
}

#[cfg(feature = "std")]
impl From<std::io::Error> for IoError {
    fn from(source: std::io::Error) -> Self {
        IoError { path: None, source }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    #[test]
    fn found_shows_hex_and_ascii() {
        let f = Found::new(b"\x89KAS\r\n");
        assert_eq!(f.to_string(), "89 4b 41 53 0d 0a (\".KAS..\")");
    }

    #[test]
    fn found_keeps_at_most_16_bytes() {
        let f = Found::new(&[7u8; 40]);
        assert_eq!(f.as_bytes().len(), 16);
    }

    #[test]
    fn offset_is_named_once_in_front() {
        let e = Error::truncated("header", 0, 157, 10);
        assert_eq!(
            e.to_string(),
            "byte 0: truncated input: header of 157 bytes, but the input has only 10 bytes from there"
        );
        assert_eq!(e.fault(), Fault::Input);
        let e = Error::new(None, Layout::Overflow { what: "table" });
        assert_eq!(
            e.to_string(),
            "the table points outside any possible input: offset arithmetic overflows"
        );
    }

    #[test]
    fn rebasing_moves_the_offset_only() {
        let e = Error::truncated("x", 4, 1, 0).rebased(100);
        assert_eq!(e.offset(), Some(104));
        assert_eq!(
            Error::new(None, Layout::Overflow { what: "x" })
                .rebased(5)
                .offset(),
            None
        );
    }

    #[test]
    fn layout_names_are_the_variants() {
        assert_eq!(Error::truncated("x", 0, 1, 0).kind().name(), "Truncated");
        assert_eq!(Error::overflow("x", 0).kind().name(), "Overflow");
        let version = Version::new(9, 0);
        let too_new = Layout::VersionTooNew {
            what: "x",
            found: version,
            supported_major: 1,
        };
        assert_eq!(too_new.name(), "VersionTooNew");
    }

    #[test]
    fn the_offset_survives_kind_changes() {
        let e = Error::truncated("x", 7, 1, 0).map_kind(|k| k);
        assert_eq!(e.offset(), Some(7));
        assert_eq!(
            std::format!("{e:?}"),
            "Error { offset: Some(7), kind: Truncated { what: \"x\", needed: 1, available: 0 } }"
        );
    }

    #[cfg(feature = "std")]
    #[test]
    fn io_conversion_keeps_the_fault() {
        let io: std::io::Error = Error::truncated("x", 4, 1, 0).into();
        assert_eq!(io.kind(), std::io::ErrorKind::InvalidData);
        assert!(io.to_string().starts_with("byte 4: truncated input"));
    }
}
