//! The ten element types of kastore 1.0 and the Rust types that hold them.

use core::fmt;

use binfmt_core::le;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

binfmt_core::code_enum! {
    /// The element type of an array, stored as one byte in its descriptor.
    ///
    /// kastore 1.0 has exactly these ten numeric types: no bool, float16, complex or string
    /// (tskit stores text as `Int8`/`UInt8` arrays). The format has not changed since 2018 and a
    /// new type would need a new major version, so the enum is exhaustive.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum DType {
        /// Code 0, `i8`, numpy `int8`.
        Int8 = 0,
        /// Code 1, `u8`, numpy `uint8`.
        UInt8 = 1,
        /// Code 2, `i16`, numpy `int16`.
        Int16 = 2,
        /// Code 3, `u16`, numpy `uint16`.
        UInt16 = 3,
        /// Code 4, `i32`, numpy `int32`.
        Int32 = 4,
        /// Code 5, `u32`, numpy `uint32`.
        UInt32 = 5,
        /// Code 6, `i64`, numpy `int64`.
        Int64 = 6,
        /// Code 7, `u64`, numpy `uint64`.
        UInt64 = 7,
        /// Code 8, `f32`, numpy `float32`.
        Float32 = 8,
        /// Code 9, `f64`, numpy `float64`.
        Float64 = 9,
    }
    const fn from_code;
}

impl DType {
    /// The type whose numpy name is `name` (`"int8"` … `"float64"`).
    #[must_use]
    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Bytes per element: 1, 2, 4 or 8.
    #[must_use]
    pub const fn size(self) -> usize {
        match self {
            DType::Int8 | DType::UInt8 => 1,
            DType::Int16 | DType::UInt16 => 2,
            DType::Int32 | DType::UInt32 | DType::Float32 => 4,
            DType::Int64 | DType::UInt64 | DType::Float64 => 8,
        }
    }

    /// The numpy name, which `binfmt inspect --json` prints: `"int8"` … `"float64"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            DType::Int8 => "int8",
            DType::UInt8 => "uint8",
            DType::Int16 => "int16",
            DType::UInt16 => "uint16",
            DType::Int32 => "int32",
            DType::UInt32 => "uint32",
            DType::Int64 => "int64",
            DType::UInt64 => "uint64",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
        }
    }

    /// The reference C library's name for the type: `"KAS_INT8"` … `"KAS_FLOAT64"`.
    #[must_use]
    pub const fn c_name(self) -> &'static str {
        match self {
            DType::Int8 => "KAS_INT8",
            DType::UInt8 => "KAS_UINT8",
            DType::Int16 => "KAS_INT16",
            DType::UInt16 => "KAS_UINT16",
            DType::Int32 => "KAS_INT32",
            DType::UInt32 => "KAS_UINT32",
            DType::Int64 => "KAS_INT64",
            DType::UInt64 => "KAS_UINT64",
            DType::Float32 => "KAS_FLOAT32",
            DType::Float64 => "KAS_FLOAT64",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type that holds one kastore element: `i8`, `u8`, `i16`, `u16`, `i32`, `u32`,
/// `i64`, `u64`, `f32` or `f64`.
///
/// Sealed: the format has exactly these ten types. Typed access
/// ([`Store::get`](crate::Store::get), [`Item::array`](crate::Item::array)) and the
/// [`Writer`](crate::Writer) are generic over it.
pub trait Element:
    Copy
    + PartialEq
    + Default
    + fmt::Debug
    + FromBytes
    + IntoBytes
    + Immutable
    + KnownLayout
    + Send
    + Sync
    + 'static
    + sealed::Sealed
{
    /// The element type code this Rust type stands for.
    const DTYPE: DType;

    /// The same value as stored in the file: little-endian with alignment 1
    /// (`binfmt_core::le::I32` for `i32`, `u8` itself for `u8`).
    type Le: FromBytes
        + IntoBytes
        + Immutable
        + KnownLayout
        + Unaligned
        + Copy
        + fmt::Debug
        + Send
        + Sync
        + 'static;

    /// Decodes a stored element.
    fn from_le(stored: Self::Le) -> Self;

    /// Encodes an element as stored.
    fn to_le(self) -> Self::Le;
}

macro_rules! element {
    ($($t:ty => $le:ty, $dtype:ident, $get:expr, $new:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$dtype;
            type Le = $le;
            #[inline]
            fn from_le(stored: $le) -> $t {
                $get(stored)
            }
            #[inline]
            fn to_le(self) -> $le {
                $new(self)
            }
        }
    )*};
}

element! {
    i8 => i8, Int8, core::convert::identity, core::convert::identity;
    u8 => u8, UInt8, core::convert::identity, core::convert::identity;
    i16 => le::I16, Int16, le::I16::get, le::I16::new;
    u16 => le::U16, UInt16, le::U16::get, le::U16::new;
    i32 => le::I32, Int32, le::I32::get, le::I32::new;
    u32 => le::U32, UInt32, le::U32::get, le::U32::new;
    i64 => le::I64, Int64, le::I64::get, le::I64::new;
    u64 => le::U64, UInt64, le::U64::get, le::U64::new;
    f32 => le::F32, Float32, le::F32::get, le::F32::new;
    f64 => le::F64, Float64, le::F64::get, le::F64::new;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_sizes_and_names_round_trip() {
        for (i, t) in DType::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(t.code()), i);
            assert_eq!(DType::from_code(t.code()), Some(t));
            assert_eq!(DType::from_name(t.name()), Some(t));
        }
        assert_eq!(DType::from_code(10), None);
        assert_eq!(DType::from_code(255), None);
        assert_eq!(DType::from_name("bool"), None);
    }

    fn same<T: Element>() {
        assert_eq!(size_of::<T>(), T::DTYPE.size());
        assert_eq!(size_of::<T::Le>(), T::DTYPE.size());
        assert_eq!(align_of::<T::Le>(), 1);
    }

    #[test]
    fn rust_types_match_their_codes() {
        same::<i8>();
        same::<u8>();
        same::<i16>();
        same::<u16>();
        same::<i32>();
        same::<u32>();
        same::<i64>();
        same::<u64>();
        same::<f32>();
        same::<f64>();
        assert_eq!(f64::from_le(f64::NAN.to_le()).to_bits(), f64::NAN.to_bits());
        assert_eq!((-2i16).to_le().as_bytes(), &[0xfe, 0xff]);
    }
}
