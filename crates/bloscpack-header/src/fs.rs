//! Getting a file's bytes, to hand to [`Bloscpack::parse`](crate::Bloscpack::parse).
//!
//! ```no_run
//! # fn main() -> Result<(), bloscpack_header::Error> {
//! let bytes = bloscpack_header::fs::read("data.blp")?;
//! let file = bloscpack_header::Bloscpack::parse(&bytes)?;
//! file.verify()?;
//! # Ok(()) }
//! ```

use alloc::vec::Vec;
use std::path::Path;

use crate::error::Result;

/// Reads the whole file at `path` into memory.
///
/// # Errors
/// [`Error::Io`](crate::Error::Io).
pub fn read(path: impl AsRef<Path>) -> Result<Vec<u8>> {
    Ok(std::fs::read(path)?)
}

/// Maps the file at `path` read-only: nothing is read until it is used, so parsing and
/// walking a large file touches only the pages of its headers.
///
/// The file must not be modified or truncated by anyone while the map lives (see
/// `binfmt_core::mmap`); use [`read`] when that cannot be promised.
///
/// # Errors
/// [`Error::Io`](crate::Error::Io).
#[cfg(feature = "mmap")]
#[cfg_attr(docsrs, doc(cfg(feature = "mmap")))]
pub fn map(path: impl AsRef<Path>) -> Result<binfmt_core::mmap::Mmap> {
    Ok(binfmt_core::mmap::Mmap::open(path)?)
}
