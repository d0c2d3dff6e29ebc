//! Scratch directories for tests, removed when the test passes (kept, and their path
//! printed, when it fails): every test that writes files used to leave its directory
//! behind, and a machine that runs the suites all day filled its disk.
//!
//! The one definition for the whole workspace, here because every crate's unit tests can
//! reach it: `binfmt-test-support` re-exports it for the integration tests, but core's own
//! unit tests cannot depend on that crate (it depends on core), and the format crates'
//! unit tests also run as published (`tools/ci/package-check.sh`), where the unpublished
//! test-support crate is not there. Not part of the API (`#[doc(hidden)]`).
// Test code: a directory that cannot be made is a failed test.
#![allow(clippy::unwrap_used)]

use core::ops::Deref;
use std::format;
use std::path::{Path, PathBuf};
use std::vec::Vec;

/// A fresh, empty directory under the system's temporary directory, removed on drop
/// unless the test is panicking (then it is kept and its path printed).
///
/// It dereferences to [`Path`], so `dir.join("a.bin")` and `&dir` work where a path is
/// wanted.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// `temp_dir()/binfmt-<name>-<pid>`, emptied if an earlier run left it.
    ///
    /// `name` must be unique among the tests of one test binary (they run in parallel in
    /// one process); naming it after the crate, file and test does that.
    ///
    /// # Panics
    /// When the directory cannot be made: a failed test.
    #[must_use]
    pub fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("binfmt-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Scratch { path }
    }

    /// The directory.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A file `name` in the directory, holding `bytes`: its path.
    ///
    /// # Panics
    /// When the file cannot be written: a failed test.
    #[must_use]
    pub fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.path.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

/// A file and a replacement staged beside it, in a scratch directory: what the tests of
/// an in-place edit (an append, an update) start from to check that the edit refuses a
/// file that another writer renamed over its path meanwhile. The directory is removed
/// with it (as a [`Scratch`] is).
///
/// ```
/// use binfmt_core::scratch::Replaced;
///
/// let r = Replaced::new("core-doc-replaced", "a.bin", "b.bin", b"old".to_vec(), b"new".to_vec());
/// std::fs::rename(&r.staged, &r.path).unwrap();
/// assert_eq!(std::fs::read(&r.path).unwrap(), r.new);
/// ```
#[derive(Debug)]
pub struct Replaced {
    /// The directory, held only to be removed with this.
    _dir: Scratch,
    /// The file the edit opens, holding `old`.
    pub path: PathBuf,
    /// The replacing file, holding `new`, for the test to rename over `path`.
    pub staged: PathBuf,
    /// What `path` holds.
    pub old: Vec<u8>,
    /// What `staged` holds.
    pub new: Vec<u8>,
}

impl Replaced {
    /// A fresh scratch directory `name` (as [`Scratch::new`]) with `old` in its file
    /// `file`, and `new` in its file `staged`.
    ///
    /// # Panics
    /// When a file cannot be written: a failed test.
    #[must_use]
    pub fn new(name: &str, file: &str, staged: &str, old: Vec<u8>, new: Vec<u8>) -> Self {
        let dir = Scratch::new(name);
        let path = dir.file(file, &old);
        let staged = dir.file(staged, &new);
        Replaced {
            _dir: dir,
            path,
            staged,
            old,
            new,
        }
    }
}

impl Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            std::eprintln!("kept the failed test's files in {}", self.path.display());
        } else {
            // Modes a test set can make removal fail; that is the test's business.
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}
