//! The one byte-data trait every format's view reads through: [`Data`].
//!
//! After gimli-rs/object's `ReadRef`: a view (`Store<'d, D>`, `Archive<'d, D>`, …) is
//! generic over `D: Data<'d>` and gets bounds-checked byte ranges and zerocopy layout
//! structs that borrow for `'d`, whatever holds the bytes:
//!
//! | `D` | what | a range costs |
//! |---|---|---|
//! | `&'d [u8]` (a file read into memory, a memory map, a response body) | a sub-slice | nothing: zero-copy, `no_std` |
//! | `&'d` [`ReadCache`](crate::cache::ReadCache) over any [`ByteSource`](crate::source::ByteSource) (a file, a stream, an object store) | a borrow from the cache's arena | one request the first time, batched with the ranges [`Data::hint`] announced; nothing after |
//!
//! A view monomorphised to `&[u8]` compiles to the slice code it replaces: every method
//! here is a bounds check and a sub-slice for slices.
//!
//! Bulk payloads (arrays, chunks, members) are read with [`Data::payload`]: a borrow for
//! slices, a buffer the caller owns for caches (never kept in the arena, so the arena
//! holds metadata only).
//!
//! ```
//! use binfmt_core::data::Data;
//! use binfmt_core::le::U32;
//!
//! let bytes = [1u8, 0, 0, 0, 2, 0, 0, 0];
//! let data: &[u8] = &bytes;
//! assert_eq!(data.read::<U32>(4, "count")?.get(), 2);
//! assert_eq!(data.read_slice::<U32>(0, 2, "table")?.len(), 2);
//! assert!(data.bytes(6, 4, "field").is_err()); // past the end: `Layout::Truncated`
//! # Ok::<(), binfmt_core::Error>(())
//! ```

use core::ops::Range;

use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

use crate::bytes::{self, len_u64, size_of_table, size_u64};
use crate::error::Error;

/// Bytes a view reads from, borrowed for `'d`; see the [module documentation](self).
///
/// Every method takes `self` by value: implementors are references (`&'d [u8]`,
/// `&'d ReadCache<S>`), cheap to copy into every item a view hands out.
pub trait Data<'d>: Copy {
    /// What a read can fail with: [`Error`] (a range past the end) for slices, and also
    /// I/O errors for caches ([`SourceError`](crate::source::SourceError)). Every format's
    /// error converts from both with `?`.
    type Error: From<Error> + core::fmt::Debug;

    /// The total length in bytes. For a stream this reads to its end: views ask for it
    /// only after the header on the first bytes is checked.
    ///
    /// # Errors
    /// I/O errors.
    fn size(self) -> Result<u64, Self::Error>;

    /// Exactly `len` bytes at `offset`, for the structure `what`.
    ///
    /// # Errors
    /// [`Layout::Truncated`](crate::Layout::Truncated) (with the offset) when the range
    /// extends past the end; [`Layout::Overflow`](crate::Layout::Overflow); I/O errors.
    fn bytes(self, offset: u64, len: u64, what: &'static str) -> Result<&'d [u8], Self::Error>;

    /// The first `min(max, len)` bytes, in one read, without asking the length first (a
    /// stream is judged on its first bytes).
    ///
    /// # Errors
    /// I/O errors.
    fn head(self, max: u64) -> Result<&'d [u8], Self::Error>;

    /// The last `min(max, len)` bytes and the offset where they start, in one read (a
    /// suffix range, for formats whose directory is at the end).
    ///
    /// # Errors
    /// I/O errors.
    fn tail(self, max: u64) -> Result<(u64, &'d [u8]), Self::Error>;

    /// States ranges the view will read next, so that a cache fetches them in one batch
    /// (concurrently and coalesced, for a remote source) instead of one round trip each.
    /// A hint is only a hint: ranges past the end are clipped, and a slice ignores it.
    ///
    /// # Errors
    /// I/O errors of a cache that fetches at once.
    fn hint(self, ranges: &[Range<u64>]) -> Result<(), Self::Error> {
        let _ = ranges;
        Ok(())
    }

    /// States the bulk payload ranges the view will read next with
    /// [`payload`](Data::payload), in the order it will read them (a verify or an unpack
    /// walking every chunk), so that a cache reads ahead: a window of them in one
    /// batch (concurrent and coalesced for a remote source), each handed out once and
    /// not kept. Memory stays within the window whatever the file's size. A slice
    /// ignores it.
    ///
    /// # Errors
    /// None today; the signature leaves room for caches that fetch at once.
    fn prefetch(self, ranges: &[Range<u64>]) -> Result<(), Self::Error> {
        let _ = ranges;
        Ok(())
    }

    /// A bulk payload (an array, a chunk, a member): a borrow for slices; for caches a
    /// buffer the caller owns, read in one request and not kept.
    ///
    /// # Errors
    /// As [`Data::bytes`].
    #[cfg(feature = "alloc")]
    fn payload(
        self,
        offset: u64,
        len: u64,
        what: &'static str,
    ) -> Result<alloc::borrow::Cow<'d, [u8]>, Self::Error> {
        self.bytes(offset, len, what)
            .map(alloc::borrow::Cow::Borrowed)
    }

    /// Gives back a [`payload`](Data::payload) the caller is done with, for a cache to
    /// fill again with the next payload it streams (its pages are mapped already). A
    /// borrow, and any payload of a slice, is simply dropped.
    ///
    /// ```
    /// use binfmt_core::data::Data;
    ///
    /// let file: &[u8] = b"0123456789";
    /// let chunk = file.payload(2, 4, "chunk").unwrap();
    /// assert_eq!(&*chunk, b"2345");
    /// file.recycle(chunk);
    /// ```
    #[cfg(feature = "alloc")]
    fn recycle(self, payload: alloc::borrow::Cow<'d, [u8]>) {
        drop(payload);
    }

    /// All of the data, when it is memory: views use it for whole-input checks (CRCs
    /// over everything) that would otherwise read range by range.
    fn whole(self) -> Option<&'d [u8]> {
        None
    }

    /// True for forward-only data whose [`size`](Data::size) reads to the end.
    fn is_stream(self) -> bool {
        false
    }

    /// The fixed-layout structure `T` at `offset`, without copying.
    ///
    /// # Errors
    /// As [`Data::bytes`].
    #[inline]
    fn read<T>(self, offset: u64, what: &'static str) -> Result<&'d T, Self::Error>
    where
        T: FromBytes + KnownLayout + Immutable + Unaligned,
    {
        let b = self.bytes(offset, size_u64::<T>(), what)?;
        // The length is exactly size_of::<T>() and T is Unaligned: the cast cannot fail.
        Ok(T::ref_from_bytes(b).map_err(|_| Error::overflow(what, offset))?)
    }

    /// A table of `count` records `T` at `offset`, without copying; the byte length is
    /// computed with checked arithmetic before anything is read, so a huge `count` from a
    /// file costs nothing.
    ///
    /// # Errors
    /// As [`Data::bytes`].
    #[inline]
    fn read_slice<T>(
        self,
        offset: u64,
        count: u64,
        what: &'static str,
    ) -> Result<&'d [T], Self::Error>
    where
        T: FromBytes + KnownLayout + Immutable + Unaligned,
    {
        let size = size_of_table(count, size_u64::<T>(), what, offset)?;
        let b = self.bytes(offset, size, what)?;
        Ok(<[T]>::ref_from_bytes(b).map_err(|_| Error::overflow(what, offset))?)
    }
}

impl<'d> Data<'d> for &'d [u8] {
    type Error = Error;

    #[inline]
    fn size(self) -> Result<u64, Error> {
        Ok(len_u64(self))
    }

    #[inline]
    fn bytes(self, offset: u64, len: u64, what: &'static str) -> Result<&'d [u8], Error> {
        bytes::slice(self, offset, len, what)
    }

    #[inline]
    fn head(self, max: u64) -> Result<&'d [u8], Error> {
        let n = usize::try_from(max).unwrap_or(usize::MAX);
        Ok(self.get(..n).unwrap_or(self))
    }

    #[inline]
    fn tail(self, max: u64) -> Result<(u64, &'d [u8]), Error> {
        let len = len_u64(self);
        let start = len.saturating_sub(max);
        Ok((start, bytes::slice(self, start, len - start, "tail")?))
    }

    #[inline]
    fn whole(self) -> Option<&'d [u8]> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::le::U32;

    #[test]
    fn slices_borrow_and_check() {
        let bytes = [1u8, 0, 0, 0, 2, 0, 0, 0, 9];
        let d: &[u8] = &bytes;
        assert_eq!(d.size().unwrap(), 9);
        assert_eq!(d.head(4).unwrap(), &[1, 0, 0, 0]);
        assert_eq!(d.head(100).unwrap().len(), 9);
        assert_eq!(d.tail(2).unwrap(), (7, &[0u8, 9][..]));
        assert_eq!(d.read::<U32>(4, "x").unwrap().get(), 2);
        assert!(d.read::<U32>(6, "x").is_err());
        assert!(d.read_slice::<U32>(0, u64::MAX, "t").is_err());
        assert_eq!(d.whole().unwrap().as_ptr(), bytes.as_ptr());
    }
}
