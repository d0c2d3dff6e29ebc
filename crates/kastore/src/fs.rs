//! Reading stores from files.
//!
//! Three ways, by cost: [`map`] (feature `mmap`) maps the file and copies nothing, so
//! opening is O(items) whatever the file's size; [`read`] reads the whole file into an
//! 8-aligned buffer; [`open`] reads it and keeps its first store. In every case typed
//! access borrows instead of copying on little-endian hosts, since both buffers are
//! 8-aligned.
//!
//! ```no_run
//! # fn main() -> Result<(), kastore::Error> {
//! let bytes = kastore::fs::read("example.trees")?;
//! let store = kastore::Store::parse(&bytes)?;
//! let time = store.get::<f64>("nodes/time")?; // borrowed from `bytes`
//! # let _ = time;
//! # Ok(())
//! # }
//! ```

use std::fs::File;
use std::path::Path;

use crate::error::Result;
use crate::owned::{AlignedBytes, OwnedStore};

/// Reads the whole file at `path` into an 8-aligned buffer. Parse it with
/// [`Store::parse`](crate::Store::parse) or [`stores`](crate::stores).
///
/// # Errors
/// [`Error::Io`](crate::Error::Io).
pub fn read(path: impl AsRef<Path>) -> Result<AlignedBytes> {
    let mut file = File::open(path)?;
    // A hint only: the file may be a pipe (size 0) or change while it is read.
    let hint = usize::try_from(file.metadata()?.len()).unwrap_or(0);
    Ok(crate::reader::read_to_end(&mut file, hint)?)
}

/// Reads the file at `path` and validates its first store. Bytes after that store
/// (further stores) are dropped; use [`read`] and [`stores`](crate::stores) to see them.
///
/// # Errors
/// [`Error::Io`](crate::Error::Io), and every error of
/// [`Store::parse`](crate::Store::parse).
pub fn open(path: impl AsRef<Path>) -> Result<OwnedStore> {
    OwnedStore::from_aligned(read(path)?)
}

/// A read-only memory map (re-exported from `binfmt_core::mmap`).
#[cfg(feature = "mmap")]
#[cfg_attr(docsrs, doc(cfg(feature = "mmap")))]
pub use binfmt_core::mmap::Mmap;

/// Maps the file at `path` read-only. Parse the map with
/// [`Store::parse`](crate::Store::parse): nothing is read until an array is touched.
///
/// The file must not be truncated or modified while mapped, by this process or another;
/// see `binfmt_core::mmap` for the safety argument. Use [`read`] when that cannot be
/// promised. Writing a new version with [`Builder::write_path`](crate::Builder::write_path)
/// is fine: it replaces the file by renaming, and the map keeps the old data.
///
/// # Errors
/// [`Error::Io`](crate::Error::Io).
#[cfg(feature = "mmap")]
#[cfg_attr(docsrs, doc(cfg(feature = "mmap")))]
pub fn map(path: impl AsRef<Path>) -> Result<Mmap> {
    Ok(Mmap::open(path)?)
}
