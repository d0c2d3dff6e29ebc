#![doc = include_str!("../README.md")]
#![no_std]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(any(feature = "std", test))]
extern crate std;

mod array;
mod check;
mod code;
mod dtype;
mod error;
mod key;
mod options;
mod store;
mod stores;
mod trailing;
mod verify;

#[cfg(feature = "alloc")]
mod builder;
#[cfg(feature = "alloc")]
mod owned;

#[cfg(feature = "std")]
mod array_buf;
#[cfg(feature = "std")]
pub mod fs;
#[cfg(feature = "std")]
mod reader;
#[cfg(feature = "std")]
mod stream;

pub mod raw;

pub use array::{AnyArray, Array, Values};
pub use code::ErrorCode;
pub use dtype::{DType, Element};
pub use error::{Error, ErrorKind, Result};
pub use key::{KeyExcerpt, KeyText};
pub use options::ReadOptions;
pub use raw::{DESCRIPTOR_SIZE, HEADER_SIZE, MAGIC, VERSION};
pub use store::{HEAD_SIZE, Item, Items, Store};
pub use stores::{Stores, stores, stores_with};
pub use trailing::Warnings;
pub use verify::{verify, verify_data};

#[cfg(feature = "std")]
pub use array_buf::ArrayBuf;
#[cfg(feature = "alloc")]
#[allow(deprecated)]
pub use builder::Builder;
#[cfg(feature = "alloc")]
pub use builder::Writer;
#[cfg(feature = "alloc")]
pub use owned::{AlignedBytes, OwnedStore};
#[cfg(feature = "std")]
pub use reader::{Entries, Entry, Reader};
#[cfg(feature = "std")]
pub use stream::StreamReader;

// The shared vocabulary, so that matching an error, asking who is to blame or passing a
// sink needs no direct dependency on binfmt-core.
binfmt_core::reexport_shared!();

/// Arrays start at multiples of this many bytes, counted from the start of their store.
pub const ARRAY_ALIGN: u64 = 8;

/// True when `head` (the first bytes of a file) looks like this format: it starts with
/// [`MAGIC`].
///
/// ```
/// assert!(kastore::sniff(b"\x89KAS\r\n\x1a\n\x01\x00"));
/// assert!(!kastore::sniff(b"PK\x03\x04"));
/// ```
#[must_use]
pub fn sniff(head: &[u8]) -> bool {
    binfmt_core::magic::starts_with(head, MAGIC)
}
