//! Declaring layout structs and their little-endian accessors: [`layout!`](crate::layout)
//! and [`le_getters!`](crate::le_getters).
//!
//! Every format crate keeps its on-disk records as `#[repr(C)]` structs of
//! [`le`](crate::le) scalars and byte arrays in a `raw` module. These macros state once
//! what such a struct derives, and write the one-line getters that return a stored
//! little-endian field in native byte order.

/// Declares a layout struct: `#[repr(C)]`, deriving zerocopy's `FromBytes`, `IntoBytes`,
/// `KnownLayout`, `Immutable` and `Unaligned` and `Debug`, `Clone`, `Copy`, `PartialEq`.
///
/// Attributes (doc comments, a further `#[derive(Eq, …)]`) pass through to the struct.
/// Every field must have alignment 1 (the [`le`](crate::le) scalars, `u8` and byte
/// arrays, other layout structs), or `Unaligned` fails to derive. The caller depends on
/// `zerocopy` itself, as zerocopy's derives name it.
///
/// ```
/// use binfmt_core::le::{U16, U32};
/// use binfmt_core::zerocopy::FromBytes;
///
/// binfmt_core::layout! {
///     /// A record.
///     #[derive(Eq)]
///     pub struct Record {
///         /// @0: the kind.
///         pub kind: U16,
///         /// @2: the length.
///         pub len: U32,
///     }
/// }
///
/// let record = Record::ref_from_bytes(&[1, 0, 9, 0, 0, 0]).unwrap();
/// assert_eq!((record.kind.get(), record.len.get(), size_of::<Record>()), (1, 9, 6));
/// ```
#[macro_export]
macro_rules! layout {
    ($(#[$attr:meta])* $vis:vis struct $name:ident { $($fields:tt)* }) => {
        $(#[$attr])*
        #[derive(
            $crate::zerocopy::FromBytes,
            $crate::zerocopy::IntoBytes,
            $crate::zerocopy::KnownLayout,
            $crate::zerocopy::Immutable,
            $crate::zerocopy::Unaligned,
            Debug,
            Clone,
            Copy,
            PartialEq,
        )]
        #[repr(C)]
        $vis struct $name { $($fields)* }
    };
}

/// Getters for the little-endian fields of a layout struct held in `self`: each returns
/// the stored field in native byte order (`self.PATH.FIELD.get()`), marked `#[must_use]`.
///
/// `PATH =>` names where the layout struct is (`header`, `raw.local`); each getter
/// is `fn NAME -> TYPE;` for the field `NAME`, or `fn NAME -> TYPE = FIELD;` for another
/// field, with its attributes (its doc comment) and visibility before `fn`.
///
/// ```
/// use binfmt_core::le::{U16, U64};
///
/// struct Header { count: U16, off_data: U64 }
/// struct View { header: Header }
///
/// impl View {
///     binfmt_core::le_getters! { header =>
///         /// The number of records.
///         pub fn count -> u16;
///         /// Where the data starts.
///         pub fn data_offset -> u64 = off_data;
///     }
/// }
///
/// let view = View { header: Header { count: U16::new(3), off_data: U64::new(64) } };
/// assert_eq!((view.count(), view.data_offset()), (3, 64));
/// ```
#[macro_export]
macro_rules! le_getters {
    ($($path:ident).+ => $($getters:tt)*) => {
        $crate::le_getters!(@each [$($path).+] $($getters)*);
    };
    (@each [$($path:ident).+]) => {};
    (
        @each [$($path:ident).+]
        $(#[$attr:meta])* $vis:vis fn $name:ident -> $ty:ty = $field:ident;
        $($rest:tt)*
    ) => {
        $(#[$attr])*
        #[must_use]
        $vis fn $name(&self) -> $ty {
            self.$($path.)+$field.get()
        }
        $crate::le_getters!(@each [$($path).+] $($rest)*);
    };
    (
        @each [$($path:ident).+]
        $(#[$attr:meta])* $vis:vis fn $name:ident -> $ty:ty;
        $($rest:tt)*
    ) => {
        $crate::le_getters!(@each [$($path).+] $(#[$attr])* $vis fn $name -> $ty = $name; $($rest)*);
    };
}
