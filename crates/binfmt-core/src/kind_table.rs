//! A format kind's blame and name tables written as one list: [`kind_table!`](crate::kind_table).
//!
//! A format crate's `ErrorKind` names each variant after itself ([`Kind::name`] is the
//! variant's identifier) and gives each a [`Fault`]. Written as two `match` tables, every
//! variant is listed twice, and the name table is the variant list again with each name
//! spelled out as a string. This macro takes the variants grouped by blame once and
//! writes both tables, so that a name cannot drift from its variant.
//!
//! [`Kind::name`]: crate::Kind::name
//! [`Fault`]: crate::Fault

/// Implements [`Kind`](crate::Kind), [`FormatKind`](crate::FormatKind) and (under the
/// calling crate's `std` feature) [`IoKind`](crate::IoKind) for a format crate's
/// `ErrorKind` from its variants grouped by blame: [`format_kind!`](crate::format_kind)
/// with its `fault` table written from the groups and its `name` table from the variants'
/// identifiers (`"CountTooLarge"` for `CountTooLarge`).
///
/// Each group is `Fault::BLAME => VARIANT, …;`, a blame being a [`Fault`](crate::Fault)
/// variant; a variant may carry attributes (`#[cfg(feature = "std")] NotAFile`), and a
/// blame may head more than one group. Variants are named alone, whatever their fields:
/// the macro matches each with `{ .. }`. The `Layout` and `Io` variants are not listed,
/// as with `format_kind!`, and a variant missing from the groups fails to compile
/// (`format_kind!`'s matches have no catch-all arm). A kind that writes its own
/// `into_io_error` passes it in a last section, `into_io_error { … }`, as to
/// `format_kind!`.
///
/// ```
/// use binfmt_core::{Fault, Kind};
///
/// #[derive(Debug, thiserror::Error)]
/// pub enum ErrorKind {
///     #[error(transparent)]
///     Layout(#[from] binfmt_core::Layout),
///     #[error("the count is {count}; at most 3 fit")]
///     CountTooLarge { count: u32 },
///     #[error("a record was asked for past the last one")]
///     NoSuchRecord,
///     #[error("the checksum does not match")]
///     Checksum,
///     #[cfg(feature = "std")]
///     #[error(transparent)]
///     Io(#[from] binfmt_core::IoError),
/// }
///
/// binfmt_core::kind_table! {
///     ErrorKind;
///     Fault::Input => CountTooLarge, Checksum;
///     Fault::Caller => NoSuchRecord;
/// }
///
/// let err = ErrorKind::CountTooLarge { count: 9 }.at(4);
/// assert_eq!((err.fault(), err.kind().name()), (Fault::Input, "CountTooLarge"));
/// let kind = ErrorKind::NoSuchRecord;
/// assert_eq!((kind.fault(), kind.name()), (Fault::Caller, "NoSuchRecord"));
/// ```
#[macro_export]
macro_rules! kind_table {
    (
        $kind:ident;
        $(Fault::$fault:ident => $($(#[$attr:meta])* $variant:ident),+;)+
        $(into_io_error { $($items:tt)* })?
    ) => {
        $crate::format_kind! {
            $kind;
            fault {
                $($(
                    $(#[$attr])*
                    $kind::$variant { .. } => $crate::Fault::$fault,
                )+)+
            }
            name {
                $($(
                    $(#[$attr])*
                    $kind::$variant { .. } => ::core::stringify!($variant),
                )+)+
            }
            $(into_io_error { $($items)* })?
        }
    };
}
