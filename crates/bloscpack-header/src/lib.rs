#![doc = include_str!("../README.md")]
#![no_std]
// Only `src/blosc.rs` (feature `blosc`) calls C; without that feature no `unsafe` at all.
#![cfg_attr(not(feature = "blosc"), forbid(unsafe_code))]
#![cfg_attr(feature = "blosc", deny(unsafe_code))]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(any(feature = "std", test))]
extern crate std;

mod checksum;
mod chunk;
mod error;
mod file;
mod header;
mod metadata;
pub mod raw;

#[cfg(feature = "blosc")]
mod append;
#[cfg(feature = "blosc")]
mod blosc;
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub mod fs;
#[cfg(feature = "blosc")]
mod pack;

pub use checksum::{Checksum, DigestBytes, UnknownChecksum};
pub use chunk::{BLOSC_HEADER_LEN, BLOSC_VERSION, BloscFlags, Chunk, ChunkHeader, Codec, Shuffle};
pub use error::{Error, Result};
pub use file::{Bloscpack, Chunks};
pub use header::{
    Config, FORMAT_VERSION, HEADER_LEN, Header, HeaderFields, MAGIC, MAX_CHUNK_SIZE, Options,
};
#[cfg(feature = "alloc")]
pub use metadata::Metadata;
pub use metadata::{JSON_FORMAT, METADATA_HEADER_LEN, MetaCodec, MetadataSection};

#[cfg(feature = "blosc")]
pub use append::{AppendReport, append, append_path};
#[cfg(feature = "blosc")]
pub use pack::{BloscArgs, Compressor, PackOptions, UnpackOptions};

/// True when `head` (the first bytes of a file) looks like a Bloscpack file.
#[must_use]
pub fn sniff(head: &[u8]) -> bool {
    binfmt_core::magic::starts_with(head, MAGIC)
}
