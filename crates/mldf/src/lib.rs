// The README's example writes a file: it needs `std`.
#![cfg_attr(feature = "std", doc = include_str!("../README.md"))]
#![cfg_attr(
    not(feature = "std"),
    doc = "ML Data Format (MLDF) v1.0; see README.md."
)]
#![no_std]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod error;
mod field;
mod header;
mod image;
mod options;
// Without `alloc` there is no reader or writer to use every slot rule.
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
mod slot;
mod types;
mod value;

pub mod raw;

#[cfg(feature = "alloc")]
mod buf;
#[cfg(feature = "alloc")]
mod catalog;
#[cfg(feature = "alloc")]
mod dataset;
#[cfg(feature = "alloc")]
mod schema;
#[cfg(feature = "alloc")]
mod verify;

#[cfg(feature = "std")]
pub mod diff;
#[cfg(feature = "std")]
pub mod fs;
#[cfg(feature = "std")]
mod reader;
#[cfg(feature = "std")]
mod writer;

binfmt_core::reexport_shared!();
pub use error::{Error, ErrorKind, Result, ValueProblem};
pub use field::Field;
pub use header::{
    DEFAULT_PAGE_SIZE, FIELD_FLAG_NULLABLE, FLAG_CHECKSUMMED, FLAG_COMPRESSED, FLAG_ENCRYPTED,
    FLAG_LITTLE_ENDIAN, Header, MIN_PAGE_SIZE, MUST_UNDERSTAND_FLAGS, is_valid_page_size,
};
pub use image::{ImageInfo, jpeg_info, png_info};
pub use options::ReadOptions;
pub use raw::{
    ALLOC_ENTRY_SIZE, DESCRIPTOR_SIZE, DESCRIPTORS_OFFSET, HEADER_OFFSET, HEADER_SIZE, MAGIC,
    MAX_NDIM, VERSION,
};
pub use types::{AudioCodec, Dtype, FieldType, ImageMode, NdarraySpec, TypeId};
pub use value::{Audio, Image, Text, Value};

#[cfg(feature = "alloc")]
pub use buf::ValueBuf;
#[cfg(feature = "alloc")]
pub use dataset::{Dataset, HEAD_SIZE, PIECE_SIZE, Sample};
#[cfg(feature = "std")]
pub use reader::{Held, Reader};
#[cfg(feature = "alloc")]
pub use schema::{FieldDef, Schema};
#[cfg(feature = "alloc")]
pub use verify::{verify, verify_data};
#[cfg(feature = "std")]
pub use writer::{FileLayout, FileOutput, Writer, WriterOptions};

/// True when `head` (the first bytes of a file) starts with the MLDF magic.
///
/// ```
/// assert!(mldf::sniff(b"\x89MLDF\r\n\x1a\n\x01\x00"));
/// assert!(!mldf::sniff(b"\x89PNG\r\n\x1a\n"));
/// ```
#[must_use]
pub fn sniff(head: &[u8]) -> bool {
    binfmt_core::magic::starts_with(head, MAGIC)
}
