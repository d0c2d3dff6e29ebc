//! Bounds-checked access to an input buffer, with offsets as `u64`.
//!
//! Offsets and lengths read from a file are `u64` and untrusted. Every function here
//! adds and multiplies them with checked arithmetic, converts to `usize` with
//! `try_from`, and slices with `get`, so no input can make them panic. A failure is
//! a [`Layout::Truncated`] (the range lies past the end of the input) or a
//! [`Layout::Overflow`] (the range does not even fit the arithmetic).

use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

#[allow(unused_imports)] // named by the docs
use crate::error::Layout;
use crate::error::{Error, Result};

/// `offset + len`, or [`Layout::Overflow`] naming `what` at `offset`.
///
/// # Errors
/// [`Layout::Overflow`] when the sum does not fit in `u64`.
#[inline]
pub fn end(offset: u64, len: u64, what: &'static str) -> Result<u64> {
    match offset.checked_add(len) {
        Some(end) => Ok(end),
        None => Err(Error::overflow(what, offset)),
    }
}

/// `count * size`, or [`Layout::Overflow`] naming `what` at `offset`.
///
/// # Errors
/// [`Layout::Overflow`] when the product does not fit in `u64`.
#[inline]
pub fn size_of_table(count: u64, size: u64, what: &'static str, offset: u64) -> Result<u64> {
    match count.checked_mul(size) {
        Some(n) => Ok(n),
        None => Err(Error::overflow(what, offset)),
    }
}

/// Converts a `u64` read from a file to `usize`, or [`Layout::Overflow`].
///
/// # Errors
/// [`Layout::Overflow`] on a 32-bit target when the value is 4 GiB or more.
#[inline]
pub fn to_usize(value: u64, what: &'static str, offset: u64) -> Result<usize> {
    usize::try_from(value).map_err(|_| Error::overflow(what, offset))
}

// `to_u64` relies on this; Rust supports no target with wider pointers today.
const _: () = assert!(usize::BITS <= u64::BITS);

/// A `usize` (a length, a `size_of`, an `offset_of!`) as `u64`: the one usize→u64
/// conversion of the workspace, lossless because `usize` is at most 64 bits wide (a
/// compile-time assertion in this module).
#[inline]
#[must_use]
#[allow(clippy::cast_possible_truncation)] // widening: usize ≤ 64 bits, asserted above
pub const fn to_u64(n: usize) -> u64 {
    n as u64
}

/// The length of `data` as `u64`.
#[inline]
#[must_use]
pub const fn len_u64(data: &[u8]) -> u64 {
    to_u64(data.len())
}

/// Checks that `offset..offset + len` lies within an input of `total` bytes (a slice, or
/// a file whose length is known) and returns the range as `usize`s.
///
/// Check a range with this before allocating a buffer for it, so that a length read from
/// a file never sizes an allocation beyond the file itself.
///
/// # Errors
/// [`Layout::Overflow`] when `offset + len` overflows or does not fit `usize`,
/// [`Layout::Truncated`] when the range extends past `total`.
#[inline]
pub fn checked_range(
    offset: u64,
    len: u64,
    total: u64,
    what: &'static str,
) -> Result<core::ops::Range<usize>> {
    let stop = end(offset, len, what)?;
    if stop > total {
        return Err(Error::truncated(
            what,
            offset,
            len,
            total.saturating_sub(offset),
        ));
    }
    Ok(to_usize(offset, what, offset)?..to_usize(stop, what, offset)?)
}

/// Checks that `offset..offset + len` lies within `data` and returns it.
///
/// # Errors
/// As [`checked_range`].
#[inline]
pub fn slice<'a>(data: &'a [u8], offset: u64, len: u64, what: &'static str) -> Result<&'a [u8]> {
    let range = checked_range(offset, len, len_u64(data), what)?;
    data.get(range).ok_or_else(|| Error::overflow(what, offset))
}

/// Everything from `offset` to the end of `data`.
///
/// # Errors
/// [`Layout::Truncated`] when `offset` is past the end of `data`.
#[inline]
pub fn rest<'a>(data: &'a [u8], offset: u64, what: &'static str) -> Result<&'a [u8]> {
    let total = len_u64(data);
    match total.checked_sub(offset) {
        Some(len) => slice(data, offset, len, what),
        None => Err(Error::truncated(what, offset, 1, 0)),
    }
}

/// A reference to the fixed-layout structure `T` at `offset`, without copying.
///
/// `T` is one of the `#[repr(C)]` structs of `Unaligned` little-endian fields that every
/// format crate keeps in its `raw` module, so any offset works.
///
/// # Errors
/// [`Layout::Truncated`] or [`Layout::Overflow`] as for [`slice()`].
#[inline]
pub fn read<'a, T>(data: &'a [u8], offset: u64, what: &'static str) -> Result<&'a T>
where
    T: FromBytes + KnownLayout + Immutable + Unaligned,
{
    let bytes = slice(data, offset, size_u64::<T>(), what)?;
    // The length is exactly size_of::<T>() and T is Unaligned: the cast cannot fail.
    T::ref_from_bytes(bytes).map_err(|_| Error::overflow(what, offset))
}

/// A table of `count` fixed-layout records `T` at `offset`, without copying.
///
/// The table's byte length is computed with checked arithmetic and compared with the
/// input before anything else happens, so a huge `count` read from a file costs nothing.
///
/// # Errors
/// [`Layout::Overflow`] when `count * size_of::<T>()` or the end offset overflows,
/// [`Layout::Truncated`] when the table extends past the end of `data`.
#[inline]
pub fn read_table<'a, T>(
    data: &'a [u8],
    offset: u64,
    count: u64,
    what: &'static str,
) -> Result<&'a [T]>
where
    T: FromBytes + KnownLayout + Immutable + Unaligned,
{
    let bytes = slice(
        data,
        offset,
        size_of_table(count, size_u64::<T>(), what, offset)?,
        what,
    )?;
    <[T]>::ref_from_bytes(bytes).map_err(|_| Error::overflow(what, offset))
}

/// `size_of::<T>()` as `u64`.
#[inline]
#[must_use]
pub const fn size_u64<T>() -> u64 {
    to_u64(core::mem::size_of::<T>())
}

/// The offset of a field in a layout struct, as `u64`: `field_offset!(raw::Header, count)`.
///
/// Error offsets of fixed fields come from the layout structs through this macro rather
/// than from literals, so that they cannot drift from the layout.
///
/// ```
/// use binfmt_core::{field_offset, le::U32};
/// #[repr(C)]
/// struct Header { magic: [u8; 4], count: U32 }
/// const COUNT_AT: u64 = field_offset!(Header, count);
/// assert_eq!(COUNT_AT, 4);
/// // Plus the structure's own position in the file:
/// assert_eq!(64 + field_offset!(Header, count), 68);
/// ```
#[macro_export]
macro_rules! field_offset {
    ($type:ty, $($field:tt).+) => {
        $crate::bytes::to_u64(::core::mem::offset_of!($type, $($field).+))
    };
}

/// A forward-only reader over an input, for formats that are walked record by record.
///
/// The cursor knows the absolute offset of its first byte (`base`), so errors from a
/// cursor over a sub-slice still report offsets in the whole input. Like gimli-rs/object's
/// readers it empties itself when a read fails, so a caller that ignores an error cannot
/// go on reading garbage.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    data: &'a [u8],
    base: u64,
    pos: u64,
}

impl<'a> Cursor<'a> {
    /// A cursor over `data`, whose first byte is at absolute offset `base`.
    #[must_use]
    pub const fn new(data: &'a [u8], base: u64) -> Self {
        Cursor { data, base, pos: 0 }
    }

    /// Absolute offset of the next byte to be read.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.base.saturating_add(self.pos)
    }

    /// Bytes left to read.
    #[must_use]
    pub fn remaining(&self) -> u64 {
        len_u64(self.data).saturating_sub(self.pos)
    }

    /// True when nothing is left.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The next `len` bytes.
    ///
    /// # Errors
    /// [`Layout::Truncated`] (with absolute offsets) when fewer than `len` bytes remain.
    pub fn take(&mut self, len: u64, what: &'static str) -> Result<&'a [u8]> {
        let result = slice(self.data, self.pos, len, what);
        self.advance(result, len)
    }

    /// The next `size_of::<T>()` bytes as a `T`, without copying.
    ///
    /// # Errors
    /// [`Layout::Truncated`] when the input ends first.
    pub fn read<T>(&mut self, what: &'static str) -> Result<&'a T>
    where
        T: FromBytes + KnownLayout + Immutable + Unaligned,
    {
        let result = read::<T>(self.data, self.pos, what);
        self.advance(result, size_u64::<T>())
    }

    /// The next `count` records of `T`, without copying.
    ///
    /// # Errors
    /// [`Layout::Overflow`] or [`Layout::Truncated`] as for [`read_table`].
    pub fn read_table<T>(&mut self, count: u64, what: &'static str) -> Result<&'a [T]>
    where
        T: FromBytes + KnownLayout + Immutable + Unaligned,
    {
        let result = read_table::<T>(self.data, self.pos, count, what);
        let len = count.saturating_mul(size_u64::<T>());
        self.advance(result, len)
    }

    /// Skips `len` bytes.
    ///
    /// # Errors
    /// [`Layout::Truncated`] when fewer than `len` bytes remain.
    pub fn skip(&mut self, len: u64, what: &'static str) -> Result<()> {
        self.take(len, what).map(|_| ())
    }

    /// Everything not yet read, leaving the cursor empty.
    pub fn take_rest(&mut self) -> &'a [u8] {
        let rest = usize::try_from(self.pos)
            .ok()
            .and_then(|p| self.data.get(p..))
            .unwrap_or(&[]);
        self.pos = len_u64(self.data);
        rest
    }

    fn advance<T>(&mut self, result: Result<T>, len: u64) -> Result<T> {
        match result {
            Ok(value) => {
                self.pos = self.pos.saturating_add(len);
                Ok(value)
            }
            Err(e) => {
                // Empty the cursor so that a caller cannot keep reading after an error.
                self.pos = len_u64(self.data);
                Err(e.rebased(self.base))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Layout;
    use zerocopy::little_endian::U32;

    #[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
    #[repr(C)]
    struct Pair {
        a: U32,
        b: U32,
    }

    #[test]
    fn slice_checks_bounds_and_overflow() {
        let data = [1u8, 2, 3, 4];
        assert_eq!(slice(&data, 1, 2, "x").unwrap(), &[2, 3]);
        assert_eq!(slice(&data, 4, 0, "x").unwrap(), &[] as &[u8]);
        assert_eq!(slice(&data, 3, 2, "x"), Err(Error::truncated("x", 3, 2, 1)));
        assert_eq!(slice(&data, 9, 1, "x"), Err(Error::truncated("x", 9, 1, 0)));
        assert_eq!(
            slice(&data, u64::MAX, 2, "x"),
            Err(Error::overflow("x", u64::MAX))
        );
    }

    #[test]
    fn checked_range_bounds_a_file_before_anything_is_allocated() {
        assert_eq!(checked_range(10, 5, 15, "x"), Ok(10..15));
        assert_eq!(
            checked_range(10, 6, 15, "x"),
            Err(Error::truncated("x", 10, 6, 5))
        );
        assert_eq!(
            checked_range(u64::MAX, 1, u64::MAX, "x"),
            Err(Error::overflow("x", u64::MAX))
        );
    }

    #[test]
    fn read_is_unaligned_and_zero_copy() {
        let data = [0u8, 1, 0, 0, 0, 2, 0, 0, 0];
        let pair: &Pair = read(&data, 1, "pair").unwrap();
        assert_eq!((pair.a.get(), pair.b.get()), (1, 2));
        assert!(read::<Pair>(&data, 2, "pair").is_err());
    }

    #[test]
    fn huge_table_counts_fail_before_anything_is_sized() {
        let data = [0u8; 16];
        assert!(matches!(
            read_table::<Pair>(&data, 0, u64::MAX, "t").map_err(|e| e.into_kind()),
            Err(Layout::Overflow { .. })
        ));
        assert!(matches!(
            read_table::<Pair>(&data, 0, 3, "t").map_err(|e| e.into_kind()),
            Err(Layout::Truncated { needed: 24, .. })
        ));
        assert_eq!(read_table::<Pair>(&data, 0, 2, "t").unwrap().len(), 2);
    }

    #[test]
    fn cursor_reports_absolute_offsets_and_empties_on_error() {
        let data = [0u8; 10];
        let mut c = Cursor::new(&data, 100);
        c.take(4, "a").unwrap();
        assert_eq!(c.offset(), 104);
        let err = c.take(7, "b").unwrap_err();
        assert_eq!(err, Error::truncated("b", 104, 7, 6));
        assert!(c.is_empty());
        assert!(c.take_rest().is_empty());
    }

    #[test]
    fn rest_past_end_is_truncated() {
        assert_eq!(rest(&[1, 2], 2, "r").unwrap(), &[] as &[u8]);
        assert!(rest(&[1, 2], 3, "r").is_err());
    }
}
