//! Scratch directories that tests create and that go away with the test.
//!
//! Every test that writes files used to make `temp_dir()/<crate>-<test>-<pid>` and leave it
//! behind: each run of the suite left a new set, and a machine that runs it all day filled
//! its disk (a CI run failed with "No space left on device"). A [`Scratch`] is removed when
//! it is dropped, unless the test is failing: then it is kept, and its path printed, so the
//! files a failed test left can be looked at.

use core::ops::Deref;
use std::path::{Path, PathBuf};

/// A fresh, empty directory under the system's temporary directory, removed on drop.
///
/// It dereferences to [`Path`], so `dir.join("a.kas")` and `&dir` work where a path is
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
    pub fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("binfmt-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Scratch { path }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
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
            eprintln!("kept the failed test's files in {}", self.path.display());
        } else {
            // Modes a test set (a read-only file, a directory without write permission) can
            // make removal fail; what is left is then the test's own business to report.
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Scratch;

    #[test]
    fn a_scratch_directory_is_removed_when_dropped() {
        let dir = Scratch::new("test-support-scratch");
        std::fs::write(dir.join("a"), b"x").unwrap();
        let path = dir.path().to_path_buf();
        assert!(path.join("a").exists());
        drop(dir);
        assert!(!path.exists());
    }
}
