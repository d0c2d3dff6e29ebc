//! The items of this crate that every format crate re-exports.

/// Re-exports, at the root of a format crate, the shared vocabulary its users need:
/// matching an error ([`Layout`](crate::Layout), [`Found`](crate::Found), `IoError`),
/// asking who is to blame ([`Fault`](crate::Fault), [`Diagnostic`](crate::Diagnostic)),
/// checking a version ([`Version`](crate::Version),
/// [`Compatibility`](crate::Compatibility)), passing a sink to `verify`
/// ([`Sink`](crate::Sink), [`Severity`](crate::Severity), [`Summary`](crate::Summary)),
/// and reading through [`Data`](crate::data::Data), a `ReadCache` or a byte source; so
/// that a user of one format crate alone needs no direct dependency on this one, and every
/// format crate offers the same names.
///
/// The `std` items are re-exported under the calling crate's `std` feature.
///
/// ```text
/// // In a format crate's lib.rs:
/// binfmt_core::reexport_shared!();
/// ```
#[macro_export]
macro_rules! reexport_shared {
    () => {
        #[cfg(feature = "std")]
        pub use $crate::IoError;
        /// The byte-data trait the view reads through: `&[u8]`, or a [`ReadCache`] over a byte
        /// source (re-exported so that a user of this crate alone can name them).
        pub use $crate::data::Data;
        pub use $crate::{
            Compatibility, Diagnostic, Fault, Found, Layout, Severity, Sink, Summary, Version,
        };
        #[cfg(feature = "std")]
        pub use $crate::{
            cache::ReadCache,
            source::{ByteSource, Counting, FileSource, SeekSource, StreamSource},
        };
    };
}
