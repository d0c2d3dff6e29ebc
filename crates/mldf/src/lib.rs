#![doc = include_str!("../README.md")]
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
// Without `alloc` there is no `Dataset` or writer to use the slot rules.
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
mod slot;
mod types;
mod value;

pub mod raw;

#[cfg(feature = "alloc")]
mod dataset;
#[cfg(feature = "alloc")]
mod json;
#[cfg(feature = "alloc")]
mod schema;

#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub mod fs;
#[cfg(feature = "std")]
mod writer;

pub use binfmt_core::{Compatibility, Version};
pub use error::{Error, Result, ValueProblem};
pub use field::Field;
pub use header::{
    ALLOC_ENTRY_SIZE, DEFAULT_PAGE_SIZE, DESCRIPTOR_SIZE, DESCRIPTORS_OFFSET, FIELD_FLAG_NULLABLE,
    FLAG_CHECKSUMMED, FLAG_COMPRESSED, FLAG_ENCRYPTED, FLAG_LITTLE_ENDIAN, HEADER_OFFSET, Header,
    MAGIC, MIN_PAGE_SIZE, MUST_UNDERSTAND_FLAGS, VERSION, is_valid_page_size,
};
pub use image::{ImageInfo, jpeg_info, png_info};
pub use types::{AudioCodec, Dtype, FieldType, ImageMode, MAX_NDIM, NdarraySpec, TypeId};
pub use value::{Audio, Image, Text, Value};

#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub use dataset::{Dataset, ReadOptions, Sample, verify};
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub use json::validate_json;
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub use schema::{FieldDef, Schema};
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use writer::{FileWriter, Layout, Writer, WriterOptions};

/// True when `head` (the first bytes of a file) starts with the MLDF magic.
#[must_use]
pub fn sniff(head: &[u8]) -> bool {
    binfmt_core::magic::starts_with(head, MAGIC)
}
