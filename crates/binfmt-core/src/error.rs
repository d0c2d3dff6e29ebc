//! The error vocabulary every format shares: what was wrong, and at which byte.
//!
//! Format crates keep one error enum of their own. The structural problems that any
//! binary format can have (input too short, offset arithmetic overflowing, wrong
//! magic, a version we do not read, a misaligned value) are described once here, and
//! each format enum wraps [`Error`] in a single transparent variant. Every variant
//! carries the byte offset at which the problem was found, so that a user can look
//! at the file with a hex dump and see the same thing we saw.

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
    /// a bad request `InvalidInput`, a limit `OutOfMemory`, an I/O failure `Other` (crates
    /// return the original `io::Error` unchanged where they have one).
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

/// What every format error can tell a user interface: whose fault it is, and where.
///
/// Each format crate implements this for its error enum; `binfmt verify` uses it to print
/// `FILE: byte N: message` lines without knowing the format.
pub trait Diagnostic: core::error::Error {
    /// Who has to act.
    fn fault(&self) -> Fault;
    /// The byte offset in the input at which the problem was found, if it has one.
    fn offset(&self) -> Option<u64>;
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
/// Every variant names the structure involved (`what`, e.g. `"header"`) and the byte
/// offset of the problem, counted from the start of the input given to the parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input ends before a structure does.
    #[error(
        "truncated input: the {what} at byte {offset} needs {needed} bytes, but the input has only {available} bytes from there"
    )]
    Truncated {
        /// The structure being read.
        what: &'static str,
        /// Where the structure starts.
        offset: u64,
        /// How many bytes it needs from `offset`.
        needed: u64,
        /// How many bytes the input has from `offset` (0 if `offset` is past the end).
        available: u64,
    },
    /// An offset or length read from the input does not fit the arithmetic (u64 or usize).
    #[error(
        "the {what} at byte {offset} points outside any possible input: offset arithmetic overflows"
    )]
    Overflow {
        /// The structure whose offset or length overflowed.
        what: &'static str,
        /// Where the offending value was read, or where the structure starts.
        offset: u64,
    },
    /// The input does not start with the expected signature.
    #[error("bad magic at byte {offset}: expected {expected}, found {found}; this is not a {what}")]
    BadMagic {
        /// What the magic identifies (`"kastore file"`).
        what: &'static str,
        /// Where the magic should be.
        offset: u64,
        /// The bytes we expected.
        expected: Found,
        /// The bytes we found.
        found: Found,
    },
    /// The format version is newer than anything this library reads.
    #[error(
        "the {what} at byte {offset} is format version {found}; this library reads major version {supported_major} only, upgrade it"
    )]
    VersionTooNew {
        /// The format.
        what: &'static str,
        /// Where the version is stored.
        offset: u64,
        /// The version in the input.
        found: Version,
        /// The newest major version this library reads.
        supported_major: u16,
    },
    /// The format version is older than anything this library reads.
    #[error(
        "the {what} at byte {offset} is format version {found}; this library reads major version {oldest_major} and later"
    )]
    VersionTooOld {
        /// The format.
        what: &'static str,
        /// Where the version is stored.
        offset: u64,
        /// The version in the input.
        found: Version,
        /// The oldest major version this library reads.
        oldest_major: u16,
    },
    /// A value that must be a multiple of some alignment is not.
    #[error("the {what} at byte {offset} is {value}, which is not a multiple of {align}")]
    Misaligned {
        /// The value's meaning (`"array offset"`).
        what: &'static str,
        /// Where the value was read.
        offset: u64,
        /// The value.
        value: u64,
        /// The required alignment.
        align: u64,
    },
}

impl Error {
    /// Where the problem was found.
    #[must_use]
    pub fn offset(&self) -> u64 {
        match *self {
            Error::Truncated { offset, .. }
            | Error::Overflow { offset, .. }
            | Error::BadMagic { offset, .. }
            | Error::VersionTooNew { offset, .. }
            | Error::VersionTooOld { offset, .. }
            | Error::Misaligned { offset, .. } => offset,
        }
    }

    /// The same error with `base` added to its offset: for errors from a parse of a
    /// sub-slice that starts at `base` in the whole input.
    #[must_use]
    pub fn rebased(self, base: u64) -> Self {
        let mut e = self;
        match &mut e {
            Error::Truncated { offset, .. }
            | Error::Overflow { offset, .. }
            | Error::BadMagic { offset, .. }
            | Error::VersionTooNew { offset, .. }
            | Error::VersionTooOld { offset, .. }
            | Error::Misaligned { offset, .. } => *offset = offset.saturating_add(base),
        }
        e
    }

    /// Whose fault the problem is: a newer version is unsupported, the rest is bad input.
    #[must_use]
    pub fn fault(&self) -> Fault {
        match self {
            Error::VersionTooNew { .. } | Error::VersionTooOld { .. } => Fault::Unsupported,
            _ => Fault::Input,
        }
    }
}

impl Diagnostic for Error {
    fn fault(&self) -> Fault {
        Error::fault(self)
    }
    fn offset(&self) -> Option<u64> {
        Some(Error::offset(self))
    }
}

/// Shorthand for results whose error is the core vocabulary.
pub type Result<T, E = Error> = core::result::Result<T, E>;

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
    fn truncated_message_is_actionable() {
        let e = Error::Truncated {
            what: "header",
            offset: 0,
            needed: 157,
            available: 10,
        };
        assert_eq!(
            e.to_string(),
            "truncated input: the header at byte 0 needs 157 bytes, but the input has only 10 bytes from there"
        );
        assert_eq!(e.fault(), Fault::Input);
    }
}
