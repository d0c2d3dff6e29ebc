//! An array read from a byte source, as a typed slice, copied only when it must be.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::fmt;
use core::ops::Deref;

use zerocopy::FromBytes;

use crate::array::Array;
use crate::dtype::Element;

/// The elements of an array that a [`Reader`](crate::Reader) read: a `&[T]` through
/// `Deref`, over the bytes as they came from the source whenever they can be used as they
/// are.
///
/// On a little-endian host the bytes are used in place when they are aligned for `T`:
/// borrowed from a source in memory ([`AlignedBytes`](crate::AlignedBytes), a map), or
/// the buffer an I/O source filled (large buffers from the allocator are aligned in
/// practice). Otherwise (unaligned bytes, a big-endian host) they are decoded into a
/// `Vec<T>` once. Either way reading an array costs at most one copy beyond the read
/// itself, and usually none.
pub struct ArrayBuf<'a, T: Element> {
    repr: Repr<'a, T>,
}

enum Repr<'a, T: Element> {
    /// Borrowed from the source, aligned.
    Slice(&'a [T]),
    /// The source's owned buffer, aligned for `T` (checked when made).
    Bytes(Vec<u8>),
    /// Decoded.
    Vec(Vec<T>),
}

impl<'a, T: Element> ArrayBuf<'a, T> {
    /// The array held by `bytes` (a whole number of little-endian elements).
    pub(crate) fn from_bytes(bytes: Cow<'a, [u8]>) -> ArrayBuf<'a, T> {
        let repr = match bytes {
            Cow::Borrowed(b) => match Array::<T>::from_le_bytes(b).as_slice() {
                Some(slice) => Repr::Slice(slice),
                None => Repr::Vec(Array::<T>::from_le_bytes(b).to_vec()),
            },
            Cow::Owned(v) => {
                if cfg!(target_endian = "little") && <[T]>::ref_from_bytes(&v).is_ok() {
                    Repr::Bytes(v)
                } else {
                    Repr::Vec(Array::<T>::from_le_bytes(&v).to_vec())
                }
            }
        };
        ArrayBuf { repr }
    }

    /// The elements.
    #[must_use]
    pub fn as_slice(&self) -> &[T] {
        match &self.repr {
            Repr::Slice(s) => s,
            // Checked aligned and whole when made: the cast cannot fail.
            Repr::Bytes(b) => <[T]>::ref_from_bytes(b).unwrap_or(&[]),
            Repr::Vec(v) => v,
        }
    }

    /// True when the elements are the source's own memory, not a copy.
    #[must_use]
    pub fn is_borrowed(&self) -> bool {
        matches!(self.repr, Repr::Slice(_))
    }

    /// The elements in a vector (a copy, unless they were already decoded into one).
    #[must_use]
    pub fn into_vec(self) -> Vec<T> {
        match self.repr {
            Repr::Vec(v) => v,
            Repr::Slice(_) | Repr::Bytes(_) => self.as_slice().to_vec(),
        }
    }
}

impl<T: Element> Deref for ArrayBuf<'_, T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Element> AsRef<[T]> for ArrayBuf<'_, T> {
    fn as_ref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Element> fmt::Debug for ArrayBuf<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerocopy::IntoBytes;

    #[test]
    fn aligned_bytes_are_used_in_place_and_others_decoded() {
        let words = [1u64, 2, 3];
        let bytes = words.as_bytes();
        let borrowed = ArrayBuf::<u64>::from_bytes(Cow::Borrowed(bytes));
        assert_eq!(*borrowed, [1, 2, 3]);
        assert_eq!(borrowed.is_borrowed(), cfg!(target_endian = "little"));
        let owned = ArrayBuf::<u32>::from_bytes(Cow::Owned(bytes.to_vec()));
        assert_eq!(owned.len(), 6);
        assert_eq!(owned[2], 2);
        // Shifted by one byte: not aligned for u32, so decoded.
        let shifted = ArrayBuf::<u32>::from_bytes(Cow::Borrowed(&bytes[1..9]));
        assert!(!shifted.is_borrowed());
        assert_eq!(shifted.into_vec(), [0, 0x0200_0000]);
    }
}
