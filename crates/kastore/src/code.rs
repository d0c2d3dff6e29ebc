//! The reference C library's error codes, and which [`ErrorKind`] maps to which.

use core::fmt;

use binfmt_core::Layout;

use crate::error::{Error, ErrorKind};

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

impl ErrorKind {
    /// The reference library's code for this problem.
    ///
    /// Every problem with the input's structure is `BadFileFormat`, as in the reference,
    /// except an unknown type (`BadType`), the version checks and an empty input (`Eof`).
    /// Problems the reference does not detect (unsorted or duplicate keys in a file,
    /// bytes after the store) are `BadFileFormat` too; `DuplicateKey` and `EmptyKey` are
    /// for the writer's arguments, as in the reference. Size and count limits are
    /// `NoMemory`.
    ///
    /// ```
    /// use kastore::{ErrorCode, Store};
    /// let e = Store::parse(&[]).unwrap_err();
    /// assert_eq!(e.kind().code(), ErrorCode::Eof);
    /// assert_eq!(ErrorCode::from(&e), ErrorCode::Eof);
    /// ```
    #[must_use]
    pub fn code(&self) -> ErrorCode {
        match self {
            ErrorKind::Layout(l) => match l {
                Layout::VersionTooOld { .. } => ErrorCode::VersionTooOld,
                Layout::VersionTooNew { .. } => ErrorCode::VersionTooNew,
                // `Layout` is non-exhaustive: structural problems added to it later are
                // format errors too.
                _ => ErrorCode::BadFileFormat,
            },
            ErrorKind::Eof => ErrorCode::Eof,
            ErrorKind::FileSizeTooSmall { .. }
            | ErrorKind::DescriptorsOutsideStore { .. }
            | ErrorKind::FileSizeMismatch { .. }
            | ErrorKind::EmptyKeyInStore { .. }
            | ErrorKind::KeyOutOfBounds { .. }
            | ErrorKind::ArrayOutOfBounds { .. }
            | ErrorKind::KeyNotPacked { .. }
            | ErrorKind::ArrayNotPacked { .. }
            | ErrorKind::UnsortedKeys { .. }
            | ErrorKind::DuplicateKeyInStore { .. }
            | ErrorKind::TrailingBytes { .. } => ErrorCode::BadFileFormat,
            ErrorKind::BadType { .. } => ErrorCode::BadType,
            ErrorKind::TooLarge { .. } | ErrorKind::TooManyItems | ErrorKind::SizeOverflow => {
                ErrorCode::NoMemory
            }
            ErrorKind::KeyNotFound { .. } => ErrorCode::KeyNotFound,
            ErrorKind::TypeMismatch { .. } => ErrorCode::TypeMismatch,
            ErrorKind::EmptyKey => ErrorCode::EmptyKey,
            ErrorKind::DuplicateKey { .. } => ErrorCode::DuplicateKey,
            #[cfg(feature = "std")]
            ErrorKind::Io(_) => ErrorCode::Io,
        }
    }
}

impl From<&ErrorKind> for ErrorCode {
    fn from(kind: &ErrorKind) -> ErrorCode {
        kind.code()
    }
}

impl From<&Error> for ErrorCode {
    fn from(e: &Error) -> ErrorCode {
        e.kind().code()
    }
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
}
