//! Files on disk: reading one whole, mapped or by ranges, and editing one in place.
//!
//! ```no_run
//! # fn main() -> Result<(), bloscpack_header::Error> {
//! let bytes = bloscpack_header::fs::read("data.blp")?;
//! let file = bloscpack_header::Bloscpack::parse(&bytes)?;
//! file.verify_digests()?;
//! # Ok(()) }
//! ```

#[cfg(feature = "blosc")]
use std::path::Path;

use crate::error::Result;
use crate::options::ReadOptions;
use crate::reader::Reader;

#[cfg(feature = "blosc")]
pub use crate::append::{AppendOptions, AppendReport};

binfmt_core::fs_fns! {
    /// Reads the whole file at `path` into memory (ordinary reads).
    ///
    /// # Errors
    /// [`ErrorKind::Io`](crate::ErrorKind::Io), naming `path`.
    pub fn read;

    /// Maps the file at `path` read-only: nothing is read until it is used, so parsing and
    /// walking a large file touches only the pages of its headers.
    ///
    /// The file must not be modified or truncated by anyone while the map lives (see
    /// `binfmt_core::mmap`); use [`read`] when that cannot be promised.
    ///
    /// # Errors
    /// [`ErrorKind::Io`](crate::ErrorKind::Io), naming `path`.
    pub fn map;

    /// Opens a [`Reader`] over the file at `path` with the default [`ReadOptions`]:
    /// [`open_with`] with [`ReadOptions::new`].
    ///
    /// ```no_run
    /// let reader = bloscpack_header::fs::open("data.blp")?; // header, metadata, offsets
    /// println!("{} chunks", reader.nchunks());
    /// # Ok::<(), bloscpack_header::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`open_with`].
    pub fn open;

    /// Opens a [`Reader`] over the file at `path`, read with positioned reads (no map: a
    /// file truncated meanwhile gives an error, never a signal). The structure is read and
    /// checked at open (the request plan of [`Reader`]); chunks are read when asked for.
    ///
    /// # Errors
    /// As [`Reader::open_with`]; I/O errors name the path.
    pub fn open_with;
}

/// Appends `data` to the Bloscpack file at `path`, in place, as bloscpack's `append`
/// does: the last chunk is topped up to `chunk_size` and recompressed, further data goes
/// into new chunks that use the spare offset slots, and the header and offsets are
/// updated.
///
/// **Crash-consistent**: the file is locked (`binfmt_core::file::open_locked`; a second
/// writer waits, so concurrent appends all land), an undo record is written past the end
/// and synced before anything committed is overwritten, and one small write of the
/// header and offsets commits; an interrupted append is repaired by the next one (see
/// [`repair`] and docs/edit-protocol.md). After taking the lock, and again just before
/// the commit, the append checks that `path` still names the file it holds (device and
/// inode): a writer that replaces the file (renames another over the path) meanwhile
/// makes it fail, having committed nothing and changed nothing in the new file.
///
/// Stricter than bloscpack: the header, the sections, the order of the offsets and the
/// last chunk (Blosc header, block table, size, digest) are checked first; earlier chunks
/// are not read (run [`verify`](crate::verify) for a full check). The file ends after the
/// new last digest (stale bytes are cut off). Memory: the last chunk decompressed, plus
/// the new data compressed.
///
/// # Errors
/// [`ErrorKind::CannotAppend`](crate::ErrorKind::CannotAppend) for a file without offsets,
/// with an unknown or zero chunk size, or with a short last chunk;
/// [`ErrorKind::NotEnoughSpace`](crate::ErrorKind::NotEnoughSpace) when the spare slots
/// are too few (nothing is written); any parse or digest error of the parts read;
/// [`ErrorKind::Io`](crate::ErrorKind::Io), also when the file was replaced by another
/// writer.
#[cfg(feature = "blosc")]
pub fn append(
    path: impl AsRef<Path>,
    data: &[u8],
    options: &AppendOptions,
) -> Result<AppendReport> {
    crate::append::append(path.as_ref(), data, options)
}

/// Repairs what an interrupted [`append`] left: when the file's committed state says an
/// append was in flight, the append is finished if it had committed (the record is cut
/// off) and undone otherwise (the overwritten bytes are written back, the file cut at
/// its old end). Returns whether there was anything to repair. [`append`] does this
/// first.
///
/// An undo record counts only when it starts at or after the end of the committed file
/// (as its header, offsets and last chunk header say) and names the header in place as
/// its old or new one; bytes that merely look like a record, such as the end of a chunk
/// stored as is, are data (docs/edit-protocol.md). `verify` applies the same rule.
///
/// # Errors
/// [`ErrorKind::Io`](crate::ErrorKind::Io), also when the path no longer names the file
/// that was locked (another writer replaced it).
#[cfg(feature = "blosc")]
pub fn repair(path: impl AsRef<Path>) -> Result<bool> {
    crate::append::repair(path.as_ref())
}
