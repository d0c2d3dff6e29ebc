#![doc = include_str!("../README.md")]
#![no_std]
// Only the `mmap` module needs `unsafe`; without that feature none is allowed at all.
#![cfg_attr(not(feature = "mmap"), forbid(unsafe_code))]
#![cfg_attr(feature = "mmap", deny(unsafe_code))]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(any(feature = "std", test))]
extern crate std;

pub mod align;
pub mod bytes;
mod code_enum;
pub mod data;
pub mod error;
// `fs_fns!` writes functions over files: it needs `std`.
#[cfg(feature = "std")]
mod fs_fns;
mod kind_table;
mod layout;
pub mod le;
pub mod magic;
mod reexport;
pub mod text;
pub mod verify;
pub mod version;

#[cfg(feature = "alloc")]
pub mod json;

#[cfg(feature = "std")]
pub mod atomic;
#[cfg(feature = "std")]
pub mod cache;
#[cfg(feature = "std")]
pub mod file;
#[cfg(feature = "std")]
pub mod output;
#[cfg(feature = "std")]
pub mod parts;
#[cfg(feature = "std")]
pub mod source;

#[cfg(feature = "mmap")]
pub mod mmap;

// Test support shared by every crate's tests (see the module); not API.
#[cfg(feature = "std")]
#[doc(hidden)]
pub mod scratch;

pub use error::{Diagnostic, Error, Fault, FormatKind, Found, Kind, Layout, Result};
#[cfg(feature = "std")]
pub use error::{IoError, IoKind};
pub use verify::{Severity, Sink, Summary};
pub use version::{Compatibility, Version, VersionPolicy};

/// The zerocopy version the layout structs of every format crate are built on.
///
/// Format crates expose their layout structs in a `raw` module; those types implement
/// zerocopy's traits, so zerocopy is part of their public API. Re-exported here so that
/// users can name the traits without adding a dependency of their own.
pub use zerocopy;
