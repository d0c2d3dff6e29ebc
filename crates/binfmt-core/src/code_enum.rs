//! Enums of one-byte stored codes written as one list: [`code_enum!`](crate::code_enum).
//!
//! Several format crates store a small closed set as one byte (kastore's element types,
//! MLDF's array dtypes, image modes and audio codecs) and read it into a field-less enum
//! whose discriminants are the stored codes. Written by hand, each such enum lists its
//! variants three more times: in an `ALL` array, in `from_code`'s `match` and (through
//! `as u8`) in `code`. This macro takes the variants with their codes once and writes the
//! enum and those three items, so that a code cannot drift between them.

/// Declares a field-less `#[repr(u8)]` enum whose discriminants are the codes a format
/// stores, with, in an `impl` block of its own:
///
/// - `ALL: [T; N]`, every variant in code order;
/// - `from_code(u8) -> Option<T>`, the variant with that code, or `None`;
/// - `code(self) -> u8`, the variant's code (its discriminant).
///
/// The enum's attributes (doc comment, derives, `#[non_exhaustive]`), visibility and
/// name come first, then its variants, each `VARIANT = CODE,` with its own attributes.
/// The macro adds `#[repr(u8)]`, so a code above 255 fails to compile, as do two variants
/// with one code and variants not listed in ascending code order (`ALL` is listed in the
/// order given). A last line, `const fn from_code;` or `fn from_code;`, says whether
/// `from_code` is a `const fn`. The items have the enum's visibility and their own doc
/// comments; other methods (sizes, names) go in a further `impl` block.
///
/// ```
/// binfmt_core::code_enum! {
///     /// How a record is compressed.
///     #[derive(Debug, Clone, Copy, PartialEq, Eq)]
///     pub enum Codec {
///         /// Stored as is.
///         None = 0,
///         /// Deflate.
///         Deflate = 1,
///         /// Zstandard.
///         Zstd = 5,
///     }
///     const fn from_code;
/// }
///
/// assert_eq!(Codec::ALL, [Codec::None, Codec::Deflate, Codec::Zstd]);
/// assert_eq!((Codec::Zstd.code(), Codec::from_code(5)), (5, Some(Codec::Zstd)));
/// assert_eq!(Codec::from_code(2), None);
/// const DEFLATE: Option<Codec> = Codec::from_code(1);
/// assert_eq!(DEFLATE, Some(Codec::Deflate));
/// ```
///
/// Variants out of code order do not compile, since `ALL` would not be in code order:
///
/// ```compile_fail
/// binfmt_core::code_enum! {
///     enum Backwards { Second = 1, First = 0, }
///     fn from_code;
/// }
/// ```
#[macro_export]
macro_rules! code_enum {
    (
        @write [$($const:tt)?]
        $(#[$attr:meta])*
        $vis:vis enum $name:ident {
            $($(#[$variant_attr:meta])* $variant:ident = $code:literal,)+
        }
    ) => {
        $(#[$attr])*
        #[repr(u8)]
        $vis enum $name {
            $($(#[$variant_attr])* $variant = $code,)+
        }

        impl $name {
            #[doc = ::core::concat!("Every `", ::core::stringify!($name), "`, in code order.")]
            $vis const ALL: [$name; [$($name::$variant),+].len()] = [$($name::$variant),+];

            #[doc = ::core::concat!(
                "The `", ::core::stringify!($name),
                "` whose stored code is `code`, or `None` if no variant has that code."
            )]
            #[must_use]
            $vis $($const)? fn from_code(code: u8) -> ::core::option::Option<$name> {
                match code {
                    $($code => ::core::option::Option::Some($name::$variant),)+
                    _ => ::core::option::Option::None,
                }
            }

            /// The stored code.
            #[must_use]
            $vis const fn code(self) -> u8 {
                self as u8
            }
        }

        // `ALL` is in the order the variants are listed; this holds it to code order.
        const _: () = {
            let codes: &[u8] = &[$($code),+];
            let mut i = 1;
            while i < codes.len() {
                ::core::assert!(
                    codes[i - 1] < codes[i],
                    "code_enum!: list the variants in ascending code order"
                );
                i += 1;
            }
        };
    };
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident { $($variants:tt)* }
        const fn from_code;
    ) => {
        $crate::code_enum! { @write [const] $(#[$attr])* $vis enum $name { $($variants)* } }
    };
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident { $($variants:tt)* }
        fn from_code;
    ) => {
        $crate::code_enum! { @write [] $(#[$attr])* $vis enum $name { $($variants)* } }
    };
}
