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
