//! Typed views of an item's array.

use core::fmt;
use core::iter::FusedIterator;

use zerocopy::{FromBytes, IntoBytes};

use crate::dtype::{DType, Element};

/// An array of `T` as stored: little-endian, possibly unaligned, not copied.
///
/// Element access decodes on the fly (free on little-endian hosts); [`Array::as_slice`]
/// gives a `&[T]` when the memory allows one.
pub struct Array<'a, T: Element> {
    stored: &'a [T::Le],
}

impl<'a, T: Element> Array<'a, T> {
    /// A view of `bytes`; a trailing partial element (never present in a validated store)
    /// is ignored.
    pub(crate) fn from_le_bytes(bytes: &'a [u8]) -> Self {
        let whole = bytes.len() - bytes.len() % T::DTYPE.size();
        let stored = bytes
            .get(..whole)
            .and_then(|b| <[T::Le]>::ref_from_bytes(b).ok())
            .unwrap_or(&[]);
        Array { stored }
    }

    /// The number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        self.stored.len()
    }

    /// True when there are no elements.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.stored.is_empty()
    }

    /// The element at `index`.
    #[must_use]
    pub fn get(&self, index: usize) -> Option<T> {
        self.stored.get(index).map(|&v| T::from_le(v))
    }

    /// The elements, decoded one by one.
    #[must_use]
    pub fn iter(&self) -> Values<'a, T> {
        Values {
            stored: self.stored.iter(),
        }
    }

    /// The stored bytes (little-endian).
    #[must_use]
    pub fn as_bytes(&self) -> &'a [u8] {
        self.stored.as_bytes()
    }

    /// The stored elements as they lie on disk (little-endian, alignment 1).
    #[must_use]
    pub fn as_stored(&self) -> &'a [T::Le] {
        self.stored
    }

    /// The elements as `&[T]` without copying, when the host is little-endian and the
    /// array is aligned for `T` in memory; `None` otherwise.
    ///
    /// Arrays start at multiples of 8 from the start of their store, so this succeeds for
    /// every array of a store that starts at an 8-aligned address.
    #[must_use]
    pub fn as_slice(&self) -> Option<&'a [T]> {
        if cfg!(target_endian = "little") {
            <[T]>::ref_from_bytes(self.as_bytes()).ok()
        } else {
            None
        }
    }

    /// The elements in a new vector.
    #[cfg(feature = "alloc")]
    #[must_use]
    pub fn to_vec(&self) -> alloc::vec::Vec<T> {
        if cfg!(target_endian = "little") {
            // Same bytes in memory: one copy, whatever the source alignment.
            let mut out = alloc::vec![T::default(); self.len()];
            out.as_mut_bytes().copy_from_slice(self.as_bytes());
            out
        } else {
            self.iter().collect()
        }
    }

    /// The elements as a slice: borrowed when [`as_slice`](Array::as_slice) can,
    /// copied otherwise.
    #[cfg(feature = "alloc")]
    #[must_use]
    pub fn to_cow(&self) -> alloc::borrow::Cow<'a, [T]> {
        match self.as_slice() {
            Some(slice) => alloc::borrow::Cow::Borrowed(slice),
            None => alloc::borrow::Cow::Owned(self.to_vec()),
        }
    }
}

impl<T: Element> Clone for Array<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Element> Copy for Array<'_, T> {}

impl<T: Element> fmt::Debug for Array<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a, T: Element> IntoIterator for Array<'a, T> {
    type Item = T;
    type IntoIter = Values<'a, T>;

    fn into_iter(self) -> Values<'a, T> {
        self.iter()
    }
}

impl<'a, T: Element> IntoIterator for &Array<'a, T> {
    type Item = T;
    type IntoIter = Values<'a, T>;

    fn into_iter(self) -> Values<'a, T> {
        self.iter()
    }
}

/// The decoded elements of an [`Array`].
#[derive(Clone)]
pub struct Values<'a, T: Element> {
    stored: core::slice::Iter<'a, T::Le>,
}

impl<T: Element> Iterator for Values<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        self.stored.next().map(|&v| T::from_le(v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.stored.size_hint()
    }

    fn nth(&mut self, n: usize) -> Option<T> {
        self.stored.nth(n).map(|&v| T::from_le(v))
    }
}

impl<T: Element> DoubleEndedIterator for Values<'_, T> {
    fn next_back(&mut self) -> Option<T> {
        self.stored.next_back().map(|&v| T::from_le(v))
    }
}

impl<T: Element> ExactSizeIterator for Values<'_, T> {}
impl<T: Element> FusedIterator for Values<'_, T> {}

impl<T: Element> fmt::Debug for Values<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Values")
            .field("remaining", &self.stored.len())
            .finish()
    }
}

/// An array whose element type is known only at run time, one variant per [`DType`].
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs)] // each variant is the type of the same name
pub enum AnyArray<'a> {
    Int8(Array<'a, i8>),
    UInt8(Array<'a, u8>),
    Int16(Array<'a, i16>),
    UInt16(Array<'a, u16>),
    Int32(Array<'a, i32>),
    UInt32(Array<'a, u32>),
    Int64(Array<'a, i64>),
    UInt64(Array<'a, u64>),
    Float32(Array<'a, f32>),
    Float64(Array<'a, f64>),
}

/// Applies `$body` to the typed array inside any variant.
macro_rules! with_array {
    ($any:expr, $a:ident => $body:expr) => {
        match $any {
            AnyArray::Int8($a) => $body,
            AnyArray::UInt8($a) => $body,
            AnyArray::Int16($a) => $body,
            AnyArray::UInt16($a) => $body,
            AnyArray::Int32($a) => $body,
            AnyArray::UInt32($a) => $body,
            AnyArray::Int64($a) => $body,
            AnyArray::UInt64($a) => $body,
            AnyArray::Float32($a) => $body,
            AnyArray::Float64($a) => $body,
        }
    };
}

impl<'a> AnyArray<'a> {
    /// A view of little-endian `bytes` as elements of `dtype`.
    #[must_use]
    pub fn new(dtype: DType, bytes: &'a [u8]) -> AnyArray<'a> {
        match dtype {
            DType::Int8 => AnyArray::Int8(Array::from_le_bytes(bytes)),
            DType::UInt8 => AnyArray::UInt8(Array::from_le_bytes(bytes)),
            DType::Int16 => AnyArray::Int16(Array::from_le_bytes(bytes)),
            DType::UInt16 => AnyArray::UInt16(Array::from_le_bytes(bytes)),
            DType::Int32 => AnyArray::Int32(Array::from_le_bytes(bytes)),
            DType::UInt32 => AnyArray::UInt32(Array::from_le_bytes(bytes)),
            DType::Int64 => AnyArray::Int64(Array::from_le_bytes(bytes)),
            DType::UInt64 => AnyArray::UInt64(Array::from_le_bytes(bytes)),
            DType::Float32 => AnyArray::Float32(Array::from_le_bytes(bytes)),
            DType::Float64 => AnyArray::Float64(Array::from_le_bytes(bytes)),
        }
    }

    /// The element type.
    #[must_use]
    pub fn dtype(&self) -> DType {
        fn of<T: Element>(_: &Array<'_, T>) -> DType {
            T::DTYPE
        }
        with_array!(self, a => of(a))
    }

    /// The number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        with_array!(self, a => a.len())
    }

    /// True when there are no elements.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The stored bytes (little-endian).
    #[must_use]
    pub fn as_bytes(&self) -> &'a [u8] {
        with_array!(self, a => a.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eight-aligned backing, so that offsets 0 and 1 have known alignments.
    const WORDS: [u64; 2] = [0x0807_0605_0403_0201, 0x100f_0e0d_0c0b_0a09];

    #[test]
    fn unaligned_bytes_decode_and_refuse_to_borrow() {
        let bytes = WORDS.as_bytes();
        let aligned: Array<'_, u32> = Array::from_le_bytes(&bytes[..8]);
        assert_eq!(aligned.len(), 2);
        assert_eq!(aligned.get(0), Some(0x0403_0201));
        if cfg!(target_endian = "little") {
            assert_eq!(aligned.as_slice(), Some(&[0x0403_0201u32, 0x0807_0605][..]));
        }
        let shifted: Array<'_, u32> = Array::from_le_bytes(&bytes[1..9]);
        assert_eq!(shifted.as_slice(), None);
        let mut values = shifted.iter();
        assert_eq!(values.next(), Some(0x0504_0302));
        assert_eq!(values.next(), Some(0x0908_0706));
        assert_eq!(values.next(), None);
        assert_eq!(shifted.iter().next_back(), Some(0x0908_0706));
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn unaligned_arrays_are_copied() {
        let shifted: Array<'_, u32> = Array::from_le_bytes(&WORDS.as_bytes()[1..9]);
        assert_eq!(shifted.to_vec(), [0x0504_0302, 0x0908_0706]);
        assert!(matches!(shifted.to_cow(), alloc::borrow::Cow::Owned(_)));
        let aligned: Array<'_, u32> = Array::from_le_bytes(&WORDS.as_bytes()[..8]);
        assert_eq!(
            matches!(aligned.to_cow(), alloc::borrow::Cow::Borrowed(_)),
            cfg!(target_endian = "little")
        );
    }

    #[test]
    fn any_array_knows_its_type() {
        let v = [1.5f64, f64::NAN, f64::NEG_INFINITY, -0.0];
        let a = AnyArray::new(DType::Float64, v.as_bytes());
        assert_eq!(
            (a.dtype(), a.len(), a.as_bytes().len()),
            (DType::Float64, 4, 32)
        );
        let AnyArray::Float64(f) = a else { panic!() };
        assert_eq!(f.get(0), Some(1.5));
    }
}
