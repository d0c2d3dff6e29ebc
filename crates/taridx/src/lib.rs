#![doc = include_str!("../README.md")]
#![no_std]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod error;
mod index;
mod key;
pub mod raw;
pub mod tar;

#[cfg(feature = "alloc")]
mod build;
#[cfg(feature = "alloc")]
mod lookup;
#[cfg(feature = "alloc")]
mod verify;
#[cfg(feature = "alloc")]
mod write;

#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub mod fs;

pub use binfmt_core::{Compatibility, Diagnostic, Fault, Version};
pub use error::{Block, Error, Result, TarPart};
pub use index::{Entry, FLAG_CONTIGUOUS, HEADER_SIZE, Index, MAGIC, ROW_SIZE, ReadMode, VERSION};
#[cfg(feature = "alloc")]
pub use key::extension;
pub use key::{basename, keyhash, split_name, stem};

#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub use build::{
    BuildOptions, IndexBuilder, Mode, Report, ShardStats, SkipReason, Skipped, Warning,
    shard_suffix,
};
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub use lookup::{Sample, StemMap};
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub use verify::Verifier;
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub use write::{IndexFile, RowData};

/// True when `head` (the first bytes of a file) looks like a .taridx index.
#[must_use]
pub fn sniff(head: &[u8]) -> bool {
    binfmt_core::magic::starts_with(head, MAGIC)
}

/// A length as `u64` (lossless on every supported target).
pub(crate) fn len_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}
