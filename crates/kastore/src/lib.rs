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
mod dtype;
mod error;
mod store;
mod stores;

#[cfg(feature = "alloc")]
mod builder;
#[cfg(feature = "alloc")]
mod owned;

#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub mod fs;
#[cfg(feature = "std")]
mod reader;

pub mod raw;

pub use array::{AnyArray, Array, Values};
pub use dtype::{DType, Element};
pub use error::{Error, ErrorCode, KeyExcerpt, Result};
pub use store::{Item, Items, Store};
pub use stores::{Stores, stores, verify};

#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub use builder::Builder;
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub use owned::{AlignedBytes, OwnedStore};
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use reader::{Limits, StoreReader};

pub use binfmt_core::{Compatibility, Version};

const MAGIC_BYTES: [u8; 8] = *b"\x89KAS\r\n\x1a\n";

/// The signature at the start of every store: `89 4B 41 53 0D 0A 1A 0A` (`\211KAS\r\n\032\n`).
pub const MAGIC: &[u8] = &MAGIC_BYTES;

/// The file format version this crate writes; it reads every 1.x.
pub const VERSION: Version = Version::new(1, 0);

/// Size of the header, and offset of the first descriptor.
pub const HEADER_SIZE: u64 = 64;

/// Size of one item descriptor.
pub const DESCRIPTOR_SIZE: u64 = 64;

/// Arrays start at multiples of this many bytes, counted from the start of their store.
pub const ARRAY_ALIGN: u64 = 8;

/// True when `head` (the first bytes of a file) looks like this format.
#[must_use]
pub fn sniff(head: &[u8]) -> bool {
    binfmt_core::magic::starts_with(head, MAGIC)
}
