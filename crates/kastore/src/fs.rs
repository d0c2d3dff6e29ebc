//! Reading stores from files.
//!
//! Four ways, by cost: [`open`] opens a [`Reader`] (the owned view over a
//! [`ReadCache`](binfmt_core::cache::ReadCache) of the file) that reads the header,
//! descriptors and keys, then each array you ask for, by positioned reads (no map: a file
//! truncated meanwhile gives an error, never `SIGBUS`); [`map`] (feature `mmap`) maps the
//! file and copies nothing, so opening is O(items) whatever the file's size; [`read`]
//! reads the whole file into an 8-aligned buffer; [`load`] reads it and validates its
//! first store.
//! Typed access from a map or a buffer borrows instead of copying on little-endian hosts,
//! since both are 8-aligned.
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

use binfmt_core::IoError;
use binfmt_core::source::FileSource;

use crate::error::Result;
use crate::options::ReadOptions;
use crate::owned::{AlignedBytes, OwnedStore};
use crate::reader::Reader;

/// Reads the whole file at `path` into an 8-aligned buffer. Parse it with
/// [`Store::parse`](crate::Store::parse) or [`stores`](crate::stores).
///
/// # Errors
/// [`ErrorKind::Io`](crate::ErrorKind::Io), naming the path.
pub fn read(path: impl AsRef<Path>) -> Result<AlignedBytes> {
    let path = path.as_ref();
    let io = IoError::at_path(path);
    let read = || {
        let mut file = File::open(path)?;
        // A hint only: the file may be a pipe (size 0) or change while it is read.
        let hint = usize::try_from(file.metadata()?.len()).unwrap_or(0);
        crate::stream::read_to_end(&mut file, hint)
    };
    Ok(read().map_err(io)?)
}

/// Reads the whole file at `path` and validates its first store. The buffer keeps what follows
/// it: [`OwnedStore::store`] and [`Store::warnings`](crate::Store::warnings) tell what that
/// is; [`stores`](crate::stores) over [`read`] reads further stores.
///
/// # Errors
/// [`ErrorKind::Io`](crate::ErrorKind::Io), and every error of
/// [`Store::parse`](crate::Store::parse).
pub fn load(path: impl AsRef<Path>) -> Result<OwnedStore> {
    OwnedStore::from_aligned(read(path)?)
}

binfmt_core::fs_fns! {
    /// Opens the file at `path` for reading by ranges, with the default [`ReadOptions`]: a
    /// [`Reader`] over a [`FileSource`] (one positioned read of the first 64 KiB for the
    /// metadata of most stores, then one per array).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), kastore::Error> {
    /// let reader = kastore::fs::open("example.trees")?; // header, descriptors, keys
    /// let time = reader.get::<f64>("nodes/time")?; // one positioned read
    /// # let _ = time;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::Io`](crate::ErrorKind::Io), naming the path, and every error of
    /// [`Reader::open`].
    pub fn open;
}

/// [`open`] with `options`.
///
/// # Errors
/// As [`open`], and [`ErrorKind::TooLarge`](crate::ErrorKind::TooLarge).
pub fn open_with(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Reader<FileSource>> {
    let path = path.as_ref();
    let source = FileSource::open(path).map_err(IoError::at_path(path))?;
    Reader::open_with(source, options)
}

/// The earlier name of [`open`].
///
/// # Errors
/// As [`open`].
#[deprecated(note = "use fs::open, or fs::open_with for options")]
pub fn reader(path: impl AsRef<Path>) -> Result<Reader<FileSource>> {
    open(path)
}

/// A read-only memory map (re-exported from `binfmt_core::mmap`).
#[cfg(feature = "mmap")]
pub use binfmt_core::mmap::Mmap;

binfmt_core::fs_fns! {
    /// Maps the file at `path` read-only. Parse the map with
    /// [`Store::parse`](crate::Store::parse): nothing is read until an array is touched.
    ///
    /// The file must not be truncated or modified while mapped, by this process or another;
    /// see `binfmt_core::mmap` for the safety argument. Use [`read`] when that cannot be
    /// promised. Writing a new version with
    /// [`Writer::write_to_path`](crate::Writer::write_to_path) is fine: it replaces the file
    /// by renaming, and the map keeps the old data.
    ///
    /// # Errors
    /// [`ErrorKind::Io`](crate::ErrorKind::Io), naming the path.
    pub fn map;
}
