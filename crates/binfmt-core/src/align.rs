//! Alignment arithmetic on file offsets.
//!
//! Alignments are powers of two. Values come from files, so rounding up can overflow
//! and every function here reports that instead of wrapping.

use crate::error::{Error, Layout, Result};

/// Rounds `value` up to the next multiple of `align` (a power of two).
///
/// Returns `None` when `align` is not a power of two or the result overflows `u64`.
///
/// ```
/// use binfmt_core::align::align_up;
/// assert_eq!(align_up(73 + 2 * 208, 64), Some(512));
/// assert_eq!(align_up(136, 8), Some(136));
/// assert_eq!(align_up(u64::MAX, 8), None);
/// assert_eq!(align_up(5, 6), None);
/// ```
#[inline]
#[must_use]
pub const fn align_up(value: u64, align: u64) -> Option<u64> {
    if !align.is_power_of_two() {
        return None;
    }
    let mask = align - 1;
    match value.checked_add(mask) {
        Some(v) => Some(v & !mask),
        None => None,
    }
}

/// The number of zero bytes that take `value` to the next multiple of `align`.
///
/// Returns `None` under the same conditions as [`align_up`].
///
/// ```
/// assert_eq!(binfmt_core::align::padding(197, 8), Some(3));
/// ```
#[inline]
#[must_use]
pub const fn padding(value: u64, align: u64) -> Option<u64> {
    match align_up(value, align) {
        Some(up) => Some(up - value),
        None => None,
    }
}

/// True when `value` is a multiple of `align` (a power of two; false otherwise).
#[inline]
#[must_use]
pub const fn is_aligned(value: u64, align: u64) -> bool {
    align.is_power_of_two() && value & (align - 1) == 0
}

/// Checks that `value`, read at `offset`, is a multiple of `align`.
///
/// # Errors
/// [`Layout::Misaligned`] naming `what` otherwise.
#[inline]
pub fn check_aligned(value: u64, align: u64, what: &'static str, offset: u64) -> Result<()> {
    if is_aligned(value, align) {
        Ok(())
    } else {
        Err(Error::new(
            Some(offset),
            Layout::Misaligned { what, value, align },
        ))
    }
}

/// [`align_up`] that reports overflow as [`Layout::Overflow`] naming `what` at `offset`.
///
/// # Errors
/// [`Layout::Overflow`] when the rounded value does not fit in `u64` or `align` is not a
/// power of two.
#[inline]
pub fn align_up_checked(value: u64, align: u64, what: &'static str, offset: u64) -> Result<u64> {
    match align_up(value, align) {
        Some(v) => Ok(v),
        None => Err(Error::overflow(what, offset)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding() {
        assert_eq!(align_up(0, 8), Some(0));
        assert_eq!(align_up(1, 8), Some(8));
        assert_eq!(align_up(8, 8), Some(8));
        assert_eq!(align_up(u64::MAX - 7, 8), Some(u64::MAX - 7));
        assert_eq!(align_up(u64::MAX - 6, 8), None);
        assert_eq!(align_up(3, 0), None);
        assert_eq!(padding(13, 8), Some(3));
        assert!(is_aligned(4096, 4096));
        assert!(!is_aligned(4097, 4096));
        assert!(!is_aligned(0, 3));
    }

    #[test]
    fn check_reports_value_and_offset() {
        assert_eq!(
            check_aligned(137, 8, "array offset", 88),
            Err(Error::new(
                Some(88),
                Layout::Misaligned {
                    what: "array offset",
                    value: 137,
                    align: 8
                }
            ))
        );
        assert!(align_up_checked(u64::MAX, 8, "x", 0).is_err());
    }
}
