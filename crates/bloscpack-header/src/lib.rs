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
mod journal;
mod metadata;
mod options;
pub mod raw;

#[cfg(feature = "blosc")]
mod append;
#[cfg(feature = "blosc")]
mod blosc;
#[cfg(feature = "std")]
pub mod fs;
#[cfg(feature = "blosc")]
mod pack;
#[cfg(feature = "blosc")]
mod pipeline;
#[cfg(feature = "std")]
mod reader;
#[cfg(feature = "blosc")]
mod unpack;
#[cfg(feature = "blosc")]
mod writer;

pub use checksum::{Checksum, DigestBytes, UnknownChecksum};
pub use chunk::{BLOSC_VERSION, BloscFlags, Chunk, ChunkHeader, Codec, MAX_BLOCKSIZE, Shuffle};
pub use error::{Error, ErrorKind, Result};
#[allow(deprecated)] // the earlier name, re-exported for one release
pub use file::{Bloscpack, Chunks, HEAD_REQUEST, HEAD_SIZE, verify, verify_data};
pub use header::{Header, HeaderFields, MAX_CHUNK_SIZE, Options};
#[cfg(feature = "alloc")]
pub use metadata::Metadata;
pub use metadata::{JSON_FORMAT, MetaCodec, MetadataSection};
pub use options::ReadOptions;
pub use raw::{HEADER_SIZE, MAGIC, VERSION};

binfmt_core::reexport_shared!();

#[cfg(feature = "std")]
pub use reader::Reader;

#[cfg(feature = "blosc")]
pub use pack::{BloscArgs, Compressor, PackOptions};
#[cfg(feature = "blosc")]
pub use unpack::{UnpackOptions, UnpackReport};
#[cfg(feature = "blosc")]
pub use writer::Writer;

/// True when `head` (the first bytes of a file) looks like a Bloscpack file.
///
/// ```
/// assert!(bloscpack_header::sniff(b"blpk\x03\x01\x01\x08"));
/// assert!(!bloscpack_header::sniff(b"PK\x03\x04"));
/// ```
#[must_use]
pub fn sniff(head: &[u8]) -> bool {
    binfmt_core::magic::starts_with(head, MAGIC)
}
