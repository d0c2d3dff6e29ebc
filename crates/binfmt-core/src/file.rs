//! In-place edits of a file: open it locked against other binfmt writers, write small
//! patches at offsets, make them durable.
//!
//! Formats that edit a file in place (TACO `update`, Bloscpack `append`) build their
//! crash-consistency protocol on these pieces; each crate documents its protocol (which
//! write commits, what a torn edit looks like, how `verify` reports it and how the next
//! edit repairs it). Ranges are read through [`FileSource`](crate::source::FileSource).
//!
//! ```
//! use binfmt_core::file::{open_locked, patch};
//! # let path = std::env::temp_dir().join(format!("binfmt-file-doc-{}", std::process::id()));
//! std::fs::write(&path, b"hello world")?;
//! let file = open_locked(&path)?; // waits while another writer holds the lock
//! patch(&file, &[(0, b"J"), (6, b"W")])?;
//! drop(file); // unlocks
//! assert_eq!(std::fs::read(&path)?, b"Jello World");
//! # std::fs::remove_file(&path)?;
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// Opens `path` for reading and writing and takes an exclusive advisory lock on it,
/// waiting while another process holds one. The lock is released when the file is
/// closed.
///
/// Every binfmt in-place writer locks, so two of them never interleave their writes;
/// readers do not lock.
///
/// # Errors
/// I/O errors from opening or locking.
pub fn open_locked(path: impl AsRef<Path>) -> io::Result<File> {
    let file = OpenOptions::new().read(true).write(true).open(path)?;
    file.lock()?;
    Ok(file)
}

/// Like [`open_locked`], but fails with `WouldBlock` instead of waiting.
///
/// # Errors
/// `WouldBlock` when another process holds the lock; I/O errors.
pub fn try_open_locked(path: impl AsRef<Path>) -> io::Result<File> {
    let file = OpenOptions::new().read(true).write(true).open(path)?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(io::Error::new(
            io::ErrorKind::WouldBlock,
            "another process is writing this file",
        )),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

/// Writes all of `bytes` at `offset` (a positioned write; the file position is unused).
///
/// # Errors
/// I/O errors.
pub fn write_all_at(file: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
    }
    #[cfg(windows)]
    {
        let mut done = 0usize;
        while let Some(rest) = bytes.get(done..).filter(|r| !r.is_empty()) {
            let at = offset.saturating_add(crate::bytes::to_u64(done));
            match std::os::windows::fs::FileExt::seek_write(file, rest, at) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => done = done.saturating_add(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// Performs `writes` (offset, bytes) in order, then syncs the data to disk.
///
/// # Errors
/// I/O errors; the writes before the failing one have happened.
pub fn patch(file: &File, writes: &[(u64, &[u8])]) -> io::Result<()> {
    for &(offset, bytes) in writes {
        write_all_at(file, bytes, offset)?;
    }
    file.sync_data()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scratch::Scratch;

    #[test]
    fn a_second_locker_fails_fast_or_waits() {
        let dir = Scratch::new("core-file-lock");
        let path = dir.file("locked", b"x");
        let first = open_locked(&path).unwrap();
        assert_eq!(
            try_open_locked(&path).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        drop(first);
        assert!(try_open_locked(&path).is_ok());
    }
}
