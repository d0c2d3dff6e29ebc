// The README's example needs `alloc` (IndexFile, StemMap, verify): without it the
// crate's documentation is the first paragraph only, so that its doctest is not built.
#![cfg_attr(feature = "alloc", doc = include_str!("../README.md"))]
#![cfg_attr(
    not(feature = "alloc"),
    doc = "Reader, writer, tar-shard indexer, fast lookup and ranged reader for .taridx v1.0 \
           (the README's example needs the `alloc` feature)."
)]
#![no_std]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(any(feature = "std", test))]
extern crate std;

mod error;
mod index;
mod key;
mod options;
pub mod raw;
pub mod tar;
mod text;

#[cfg(feature = "alloc")]
mod build;
#[cfg(feature = "alloc")]
mod lookup;
#[cfg(feature = "alloc")]
mod names;
#[cfg(feature = "alloc")]
mod report;
#[cfg(feature = "alloc")]
mod verify;
#[cfg(feature = "alloc")]
mod write;

#[cfg(feature = "std")]
pub mod fs;
#[cfg(feature = "std")]
mod reader;

binfmt_core::reexport_shared!();
pub use error::{Block, Error, ErrorKind, Result, TarPart};
pub use index::{Entry, HEAD_SIZE, Index, Texts};
#[cfg(feature = "alloc")]
pub use key::extension;
pub use key::{basename, keyhash, split_name, stem};
pub use options::ReadOptions;
pub use raw::{FLAG_CONTIGUOUS, HEADER_SIZE, MAGIC, ROW_SIZE, VERSION};
pub use text::Escaped;

#[cfg(feature = "alloc")]
#[allow(deprecated)]
pub use build::IndexBuilder;
#[cfg(feature = "alloc")]
pub use build::{BuildOptions, Finished, Mode, ShardStats, Writer, shard_suffix};
#[cfg(feature = "alloc")]
pub use lookup::{Sample, StemMap, extension_ids};
#[cfg(feature = "alloc")]
pub use names::Verifier;
#[cfg(feature = "std")]
pub use reader::{Payload, Reader};
#[cfg(feature = "alloc")]
pub use report::{NameExcerpt, Report, SkipReason, Skipped, Warning};
#[cfg(feature = "alloc")]
pub use verify::{verify, verify_data};
#[cfg(feature = "alloc")]
pub use write::{IndexFile, RowData};

/// True when `head` (the first bytes of a file) looks like a .taridx index.
///
/// ```
/// assert!(taridx::sniff(b"TARIDX\0\0\x01\x00"));
/// assert!(!taridx::sniff(b"ustar"));
/// ```
#[must_use]
pub fn sniff(head: &[u8]) -> bool {
    binfmt_core::magic::starts_with(head, MAGIC)
}
