//! Read-only memory maps: the one place in the workspace that uses `unsafe`.
//!
//! # Safety argument
//!
//! [`memmap2::Mmap::map`] is `unsafe` because the returned `&[u8]` is only sound while no
//! one changes the mapped file: if another process writes to it, the bytes behind a
//! shared reference change (undefined behaviour in Rust's model), and if it is
//! truncated, touching a page past the new end raises `SIGBUS`.
//!
//! What we do about it:
//!
//! * The map is read-only (`PROT_READ`); nothing in this workspace writes through it,
//!   and no format writer opens a file that is mapped by the same process (writers
//!   create a temporary file and rename it into place, which leaves an existing mapping
//!   of the old inode intact; in-place updates (TACO, Bloscpack append) use ordinary
//!   file I/O and never go through a map).
//! * Every parser treats the mapped bytes as untrusted input and re-checks every offset
//!   on every access, so a concurrent writer can at worst make it return an error or
//!   wrong values; it cannot make it read outside the mapping.
//! * The remaining hazard, a file truncated or rewritten in place by *another* process
//!   while mapped, cannot be excluded by any library. It is the caller's contract,
//!   documented on [`Mmap::open`]. Callers who cannot give that guarantee read the file
//!   into memory instead (every format crate offers both).
//!
//! Empty files are not mapped at all (mapping zero bytes fails on some platforms); they
//! yield an empty slice.

use core::ops::Deref;
use std::fs::File;
use std::io;
use std::path::Path;

/// A read-only memory map of a whole file, usable as `&[u8]`.
#[derive(Debug)]
pub struct Mmap {
    map: Option<memmap2::Mmap>,
}

impl Mmap {
    /// Maps the file at `path` read-only.
    ///
    /// The file must not be truncated or modified by any process while the map is alive;
    /// see the module documentation. Use `std::fs::read` instead when that cannot be
    /// guaranteed.
    ///
    /// # Errors
    /// I/O errors from opening, inspecting or mapping the file.
    pub fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        Self::of_file(&File::open(path)?)
    }

    /// Maps an open file read-only. The same contract as [`Mmap::open`] applies.
    ///
    /// # Errors
    /// I/O errors from inspecting or mapping the file.
    pub fn of_file(file: &File) -> io::Result<Self> {
        if file.metadata()?.len() == 0 {
            return Ok(Mmap { map: None });
        }
        #[allow(unsafe_code)]
        // SAFETY: read-only map; the file must stay unchanged while it is mapped, which is
        // the documented contract of this function (module docs: "Safety argument").
        let map = unsafe { memmap2::Mmap::map(file)? };
        Ok(Mmap { map: Some(map) })
    }
}

impl Deref for Mmap {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }
}

impl AsRef<[u8]> for Mmap {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scratch::Scratch;

    #[test]
    fn maps_files_and_empty_files() {
        let dir = Scratch::new("core-mmap");
        let (full, empty) = (dir.file("full", b"hello"), dir.file("empty", b""));
        assert_eq!(&*Mmap::open(&full).unwrap(), b"hello");
        assert!(Mmap::open(&empty).unwrap().is_empty());
    }
}
