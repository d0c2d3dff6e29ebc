//! Opening datasets from paths.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::vec::Vec;

use crate::error::Result;

/// Reads a whole file into memory (for inputs that cannot be mapped, such as pipes).
///
/// # Errors
/// [`crate::Error::Io`] when the file cannot be read.
pub fn read(path: impl AsRef<Path>) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    File::open(path)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Maps a file read-only, for [`crate::Dataset::parse`]: only the pages that accesses
/// touch are read from disk.
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
/// [`crate::Error::Io`] when the file cannot be opened or mapped.
#[cfg(feature = "mmap")]
#[cfg_attr(docsrs, doc(cfg(feature = "mmap")))]
pub fn map(path: impl AsRef<Path>) -> Result<binfmt_core::mmap::Mmap> {
    Ok(binfmt_core::mmap::Mmap::open(path)?)
}
