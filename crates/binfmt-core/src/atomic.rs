//! Writing a file so that it either appears whole or not at all.
//!
//! Every binfmt writer validates its input, then writes through an [`AtomicFile`]: a
//! temporary file created next to the target (same directory, hence same file system),
//! which [`AtomicFile::commit`] flushes, syncs and renames over the target. If the
//! writer fails or is dropped before `commit`, the temporary file is removed and the
//! target is untouched, so a crash or an error never leaves a half-written file where a
//! good one used to be.

use core::sync::atomic::{AtomicU64, Ordering};
use std::format;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A temporary file that becomes `target` on [`commit`](AtomicFile::commit).
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    temp: PathBuf,
    file: File,
    committed: bool,
}

/// Distinguishes temporary files of one process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

impl AtomicFile {
    /// Creates a new, empty temporary file beside `target`.
    ///
    /// The temporary file is named `.<target name>.<pid>.<n>.tmp`; it is created with
    /// `create_new`, so it never overwrites anything.
    ///
    /// # Errors
    /// I/O errors from creating the file; `InvalidInput` when `target` has no file name.
    pub fn create(target: impl AsRef<Path>) -> io::Result<Self> {
        let target = target.as_ref().to_path_buf();
        let name = target
            .file_name()
            .ok_or_else(|| {
                io::Error::new(io::ErrorKind::InvalidInput, "target path has no file name")
            })?
            .to_string_lossy()
            .into_owned();
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let temp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
            match OpenOptions::new()
                .write(true)
                .read(true)
                .create_new(true)
                .open(&temp)
            {
                Ok(file) => {
                    return Ok(AtomicFile {
                        target,
                        temp,
                        file,
                        committed: false,
                    });
                }
                // A leftover from a crashed process with our pid: try the next name.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// The file being written, for callers that need `File` methods (`set_len`, …).
    pub fn file(&mut self) -> &mut File {
        &mut self.file
    }

    /// The path of the temporary file.
    #[must_use]
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// The path the file will have after [`commit`](AtomicFile::commit).
    #[must_use]
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flushes and syncs the data, renames the file over the target, and syncs the
    /// directory so that the rename itself survives a crash.
    ///
    /// # Errors
    /// I/O errors; on error the temporary file is removed and the target is untouched.
    pub fn commit(mut self) -> io::Result<()> {
        self.file.flush()?;
        self.file.sync_all()?;
        fs::rename(&self.temp, &self.target)?;
        self.committed = true;
        sync_parent_dir(&self.target);
        Ok(())
    }
}

/// Best effort: on Unix a directory can be opened and synced; elsewhere this is a no-op.
fn sync_parent_dir(path: &Path) {
    #[cfg(unix)]
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Ok(d) = File::open(dir) {
            // The data is already durable; a failed directory sync only risks the name.
            let _ = d.sync_all();
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file.write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Seek for AtomicFile {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.file.seek(pos)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.committed {
            // Nothing useful can be done if removal fails; the name marks it as ours.
            let _ = fs::remove_file(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::format;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("binfmt-core-atomic-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn commit_replaces_target() {
        let dir = scratch("commit");
        let target = dir.join("out.bin");
        fs::write(&target, b"old").unwrap();
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"new contents").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"old");
        f.commit().unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new contents");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn drop_without_commit_leaves_nothing() {
        let dir = scratch("drop");
        let target = dir.join("out.bin");
        {
            let mut f = AtomicFile::create(&target).unwrap();
            f.write_all(b"partial").unwrap();
            assert!(f.temp_path().exists());
        }
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);
        fs::remove_dir_all(dir).unwrap();
    }
}
