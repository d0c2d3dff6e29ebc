//! Signature ("magic") checks.

use crate::bytes::{self, len_u64};
use crate::error::{Found, Kind, Layout, Result};

/// Checks that `data` holds `expected` at `offset`.
///
/// `what` names the kind of file the magic identifies, for the message
/// ("bad magic …; this is not a kastore file").
///
/// # Errors
/// [`Layout::Truncated`] when the input is too short to hold the magic, and
/// [`Layout::BadMagic`] when the bytes differ.
///
/// ```
/// use binfmt_core::magic::check;
/// assert!(check(b"blpk\x03", 0, b"blpk", "Bloscpack file").is_ok());
/// assert!(check(b"PK\x03\x04", 0, b"blpk", "Bloscpack file").is_err());
/// ```
pub fn check(data: &[u8], offset: u64, expected: &'static [u8], what: &'static str) -> Result<()> {
    let found = bytes::slice(data, offset, len_u64(expected), what)?;
    if found == expected {
        Ok(())
    } else {
        Err(Layout::BadMagic {
            what,
            expected: Found::new(expected),
            found: Found::new(found),
        }
        .at(offset))
    }
}

/// True when `data` starts with `expected`: a cheap test for format detection.
#[inline]
#[must_use]
pub fn starts_with(data: &[u8], expected: &[u8]) -> bool {
    data.starts_with(expected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_input_is_truncated_not_bad_magic() {
        assert!(matches!(
            check(b"bl", 0, b"blpk", "Bloscpack file").map_err(|e| e.into_kind()),
            Err(Layout::Truncated {
                needed: 4,
                available: 2,
                ..
            })
        ));
    }

    #[test]
    fn bad_magic_keeps_both_sides() {
        let e = check(b"xxxxblpq", 4, b"blpk", "Bloscpack file").unwrap_err();
        let offset = e.offset().unwrap();
        let Layout::BadMagic {
            expected, found, ..
        } = e.into_kind()
        else {
            panic!("not bad magic")
        };
        assert_eq!(
            (offset, expected.as_bytes(), found.as_bytes()),
            (4, &b"blpk"[..], &b"blpq"[..])
        );
    }
}
