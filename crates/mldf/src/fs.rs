//! Files by path: reading, mapping, and opening a ranged reader.

use std::path::Path;

use binfmt_core::source::FileSource;

use crate::error::Result;
use crate::options::ReadOptions;
use crate::reader::Reader;

binfmt_core::fs_fns! {
    /// Reads a whole file into memory with ordinary reads (for inputs that cannot be
    /// mapped, such as pipes), for [`crate::Dataset::parse`].
    ///
    /// # Errors
    /// [`ErrorKind::Io`](crate::ErrorKind::Io), naming the path, when the file cannot be
    /// read.
    pub fn read;

    /// Maps a file read-only, for [`crate::Dataset::parse`]: only the pages that accesses
    /// touch are read from disk. The caller promises that the file is not truncated while
    /// it is mapped (a read past the new end would raise `SIGBUS`); [`open`] has no such
    /// caveat.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), mldf::Error> {
    /// let map = mldf::fs::map("train.mldf")?;
    /// let dataset = mldf::Dataset::parse(&map)?;
    /// println!("{} samples", dataset.num_samples());
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::Io`](crate::ErrorKind::Io), naming the path, when the file cannot be
    /// opened or mapped.
    pub fn map;

    /// Opens a [`Reader`] over the file at `path` with every check of
    /// [`ReadOptions::new`]: [`open_with`] with the default options.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), mldf::Error> {
    /// let reader = mldf::fs::open("train.mldf")?;
    /// let view = reader.view(); // a `Dataset` over the reader's cache
    /// println!("{} samples, first: {:?}", view.num_samples(), view.fetch(0, 0)?.value());
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`open_with`].
    pub fn open;

    /// Opens a [`Reader`] over the file at `path`, read with positioned reads: the header
    /// and descriptors at open, then the slot and payload of each access. A file truncated
    /// meanwhile gives an error, never a signal.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), mldf::Error> {
    /// let reader = mldf::fs::open_with("train.mldf", &mldf::ReadOptions::new())?;
    /// let first = reader.value(0, 0)?;
    /// println!("{:?}", first.value());
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Reader::open_with`]; I/O errors name the path.
    pub fn open_with;
}

/// The earlier name of [`open_with`].
///
/// # Errors
/// As [`open_with`].
#[deprecated(note = "use fs::open_with")]
pub fn reader(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Reader<FileSource>> {
    open_with(path, options)
}
