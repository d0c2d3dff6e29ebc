//! Scratch directories for binfmt-core's own unit tests, removed when the test passes.
//!
//! This mirrors `binfmt_test_support::Scratch`, which every other crate's tests use:
//! binfmt-core cannot dev-depend on binfmt-test-support, because that crate depends on
//! binfmt-core (its tests would then see two copies of core's types). Keep the two alike.
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
pub(crate) struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// `temp_dir()/binfmt-<name>-<pid>`, emptied if an earlier run left it.
    ///
    /// `name` must be unique among core's unit tests (they run in parallel in one
    /// process); naming it after the module and test does that.
    pub(crate) fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("binfmt-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Scratch { path }
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
