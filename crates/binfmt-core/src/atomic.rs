//! Writing a regular file so that it appears whole or not at all.
//!
//! [`AtomicFile`] is a temporary file created next to the target (same directory, hence
//! same file system), which [`AtomicFile::commit`] flushes, syncs and moves into place.
//! If the writer fails or is dropped before `commit`, the temporary file is removed and
//! the target is untouched. Most callers want [`Output`](crate::output::Output), which
//! applies the workspace's rules for what a target may be and uses this type for
//! regular files.
//!
//! Temporary files are named `.NAME.binfmt-PID-N.tmp`: hidden, never the output's own
//! name, and marked with the process that owns them. Every live temporary file is listed
//! in a process-wide registry, so that a signal handler can remove them
//! ([`remove_temporaries`]); one left by a process that was killed outright is removed
//! by the next `AtomicFile` for the same target once that process no longer exists.

use core::sync::atomic::{AtomicU64, Ordering};
use std::format;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::string::String;
use std::sync::Mutex;
use std::vec::Vec;

/// How the temporary file becomes the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Commit {
    /// Rename over whatever is there.
    Replace,
    /// Fail with `AlreadyExists` if the target appeared meanwhile (link, then unlink).
    NoClobber,
}

/// A temporary file that becomes `target` on [`commit`](AtomicFile::commit).
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    temp: PathBuf,
    file: File,
    commit: Commit,
    committed: bool,
    /// Bytes written since the last early writeback started.
    unsynced: u64,
    /// The early writeback in flight, if any (see [`WRITEBACK_EVERY`]).
    writeback: Option<std::thread::JoinHandle<io::Result<()>>>,
    /// Whether the data and the rename are synced (see [`set_sync`](AtomicFile::set_sync)).
    sync: bool,
}

/// After this many bytes are written, a background thread syncs what is written so far
/// (`sync_data` on a second handle), so that the disk works while the writer computes
/// and the `fsync` of [`AtomicFile::commit`] finds little left to flush. Writing a large
/// output then costs about what an unsynced write costs, and the commit stays durable.
pub const WRITEBACK_EVERY: u64 = 8 << 20;

/// Distinguishes temporary files of one process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// The temporary files of this process that are not yet committed or removed.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

const MARKER: &str = ".binfmt-";

impl AtomicFile {
    /// Creates a new, empty temporary file beside `target`, which [`commit`] will rename
    /// over `target` whether or not it exists.
    ///
    /// The temporary file is created with `create_new`, so it never overwrites anything,
    /// with the permissions a new file gets (mode 0666 less the umask).
    ///
    /// [`commit`]: AtomicFile::commit
    ///
    /// # Errors
    /// I/O errors from creating the file; `InvalidInput` when `target` has no file name.
    pub fn create(target: impl AsRef<Path>) -> io::Result<Self> {
        Self::with_commit(target.as_ref(), Commit::Replace)
    }

    /// Like [`create`](AtomicFile::create), but [`commit`](AtomicFile::commit) fails
    /// with `AlreadyExists` instead of replacing a target that appeared meanwhile.
    ///
    /// # Errors
    /// As [`create`](AtomicFile::create).
    pub fn create_new(target: impl AsRef<Path>) -> io::Result<Self> {
        Self::with_commit(target.as_ref(), Commit::NoClobber)
    }

    fn with_commit(target: &Path, commit: Commit) -> io::Result<Self> {
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
        let name = temp_stem(&name);
        remove_stale(&dir, name);
        let pid = std::process::id();
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let temp = dir.join(format!(".{name}{MARKER}{pid}-{n}.tmp"));
            // Registered before it exists, so that a signal between the two cannot miss it.
            register(&temp);
            match OpenOptions::new()
                .write(true)
                .read(true)
                .create_new(true)
                .open(&temp)
            {
                Ok(file) => {
                    return Ok(AtomicFile {
                        target: target.to_path_buf(),
                        temp,
                        file,
                        commit,
                        committed: false,
                        unsynced: 0,
                        writeback: None,
                        sync: true,
                    });
                }
                // Ours from an earlier run of a process with the same pid: next name.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => unregister(&temp),
                Err(e) => {
                    unregister(&temp);
                    return Err(e);
                }
            }
        }
    }

    /// Whether [`commit`](AtomicFile::commit) makes the file durable (default: true):
    /// the data is synced before the rename (with early writebacks while it is written,
    /// see [`WRITEBACK_EVERY`]) and the directory after it.
    ///
    /// Without it the file is still written beside the target and renamed over it, so
    /// every process sees either the old file or the whole new one, also after the
    /// writer is killed; only a power loss or a kernel crash soon after the commit may
    /// leave the target empty or incomplete, as after any unsynced write. For callers
    /// that mirror a reference which never syncs (the Python drop-ins); the command line
    /// always syncs.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("binfmt-doc-sync-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// use std::io::Write;
    /// let mut out = binfmt_core::atomic::AtomicFile::create(dir.join("out.bin")).unwrap();
    /// out.set_sync(false);
    /// out.write_all(b"data").unwrap();
    /// out.commit().unwrap();
    /// assert_eq!(std::fs::read(dir.join("out.bin")).unwrap(), b"data");
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn set_sync(&mut self, sync: bool) {
        self.sync = sync;
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

    /// Flushes and syncs the data, moves the file into place, and syncs the directory so
    /// that the move itself survives a crash.
    ///
    /// # Errors
    /// I/O errors (`AlreadyExists` for a target that appeared since
    /// [`create_new`](AtomicFile::create_new)); on error the temporary file is removed
    /// and the target is untouched.
    pub fn commit(mut self) -> io::Result<()> {
        self.file.flush()?;
        if let Some(writeback) = self.writeback.take() {
            writeback
                .join()
                .map_err(|_| io::Error::other("the writeback thread panicked"))??;
        }
        if self.sync {
            self.file.sync_all()?;
        }
        match self.commit {
            Commit::Replace => {
                // The file being replaced is locked first, as in-place editors lock it
                // (`file::open_locked`): an edit in progress finishes before its file is
                // replaced, and an editor that was waiting finds, once it has the lock,
                // that its path names another file, and fails instead of writing into
                // an unlinked inode.
                let replaced = match File::open(&self.target) {
                    Ok(old) => match old.metadata() {
                        Ok(m) if m.is_file() => {
                            old.lock()?;
                            Some((old, m.len()))
                        }
                        _ => None,
                    },
                    Err(_) => None,
                };
                fs::rename(&self.temp, &self.target)?;
                if let Some((old, len)) = replaced {
                    release(old, len);
                }
            }
            Commit::NoClobber => match fs::hard_link(&self.temp, &self.target) {
                Ok(()) => {
                    // The data is in place under its name; the temporary name goes.
                    let _ = fs::remove_file(&self.temp);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(e),
                // File systems without hard links: check, then rename (a small window).
                Err(_) => {
                    if fs::symlink_metadata(&self.target).is_ok() {
                        return Err(io::Error::new(
                            io::ErrorKind::AlreadyExists,
                            "appeared while the output was being written",
                        ));
                    }
                    fs::rename(&self.temp, &self.target)?;
                }
            },
        }
        self.committed = true;
        unregister(&self.temp);
        if self.sync {
            sync_parent_dir(&self.target);
        }
        Ok(())
    }
}

/// Files at least this large that a commit replaced are closed on a thread of their own
/// ([`release`]).
const RELEASE_IN_BACKGROUND: u64 = 4 << 20;

/// Closes the replaced file, which the rename unlinked: the last descriptor of an
/// unlinked file frees it, and for a large file that is the kernel dropping its cached
/// pages and its blocks, synchronously, in `close` (37 ms for a 51 MB file on ext4 here,
/// more than writing the new one took). The caller does not need to wait for that: a
/// large file is closed on a short-lived thread (the lock it holds guards an inode that
/// no path names any more). A small one, or one no thread can be started for, is closed
/// here.
fn release(old: File, len: u64) {
    if len < RELEASE_IN_BACKGROUND {
        return drop(old);
    }
    // On failure the closure, and with it the file, is dropped here.
    let _ = std::thread::Builder::new()
        .name("binfmt-release".into())
        .spawn(move || drop(old));
}

/// The longest part of the target's name a temporary name repeats: with the marker, the
/// pid, the counter and `.tmp` the temporary name stays under `NAME_MAX` (255 bytes),
/// whatever the length of the target's own name.
const STEM_MAX: usize = 200;

/// The part of `name` that temporary names repeat, cut on a character boundary.
fn temp_stem(name: &str) -> &str {
    let mut end = name.len().min(STEM_MAX);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    name.get(..end).unwrap_or_default()
}

/// Best effort: on Unix a directory can be opened and synced; elsewhere this is a no-op.
pub(crate) fn sync_parent_dir(path: &Path) {
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

fn register(temp: &Path) {
    if let Ok(mut pending) = PENDING.lock() {
        pending.push(temp.to_path_buf());
    }
}

fn unregister(temp: &Path) {
    if let Ok(mut pending) = PENDING.lock() {
        pending.retain(|p| p != temp);
    }
}

/// Removes every temporary file this process has not committed yet.
///
/// For signal handlers that run on an ordinary thread (the `binfmt` command calls it on
/// SIGINT and SIGTERM before exiting): the writer's own cleanup will not run once the
/// process exits.
pub fn remove_temporaries() {
    let pending = match PENDING.lock() {
        Ok(mut pending) => core::mem::take(&mut *pending),
        Err(poisoned) => core::mem::take(&mut *poisoned.into_inner()),
    };
    for temp in pending {
        let _ = fs::remove_file(temp);
    }
}

/// Removes `.NAME.binfmt-PID-N.tmp` files in `dir` whose process no longer exists: they
/// are provably ours (our marker, this target's name) and provably abandoned.
fn remove_stale(dir: &Path, name: &str) {
    let prefix = format!(".{name}{MARKER}");
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix.as_str()))
            .and_then(|n| n.strip_suffix(".tmp"))
        else {
            continue;
        };
        let Some((pid, n)) = rest.split_once('-') else {
            continue;
        };
        let (Ok(pid), true) = (pid.parse::<u32>(), n.bytes().all(|b| b.is_ascii_digit())) else {
            continue;
        };
        if pid != std::process::id() && process_is_gone(pid) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// True only when we can tell that no process `pid` exists (Linux: no `/proc/PID`).
/// Elsewhere we cannot tell, so nothing is removed.
fn process_is_gone(pid: u32) -> bool {
    if cfg!(target_os = "linux") && Path::new("/proc/self").exists() {
        let mut path = String::from("/proc/");
        path.push_str(&format!("{pid}"));
        !Path::new(&path).exists()
    } else {
        false
    }
}

impl AtomicFile {
    /// Counts `n` written bytes and starts an early writeback when due.
    fn wrote(&mut self, n: usize) {
        self.unsynced = self.unsynced.saturating_add(crate::bytes::to_u64(n));
        if !self.sync || self.unsynced < WRITEBACK_EVERY {
            return;
        }
        if self.writeback.as_ref().is_some_and(|w| !w.is_finished()) {
            return; // the one in flight will cover part of it; the next write retries
        }
        if let Some(done) = self.writeback.take() {
            // A failed early sync is not final: commit's own sync reports what matters.
            let _ = done.join();
        }
        if let Ok(handle) = self.file.try_clone() {
            self.unsynced = 0;
            self.writeback = std::thread::Builder::new()
                .name("binfmt-writeback".into())
                .spawn(move || handle.sync_data())
                .ok();
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.wrote(n);
        Ok(n)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file.write_all(buf)?;
        self.wrote(buf.len());
        Ok(())
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
            unregister(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scratch::Scratch;
    use std::format;

    fn scratch(name: &str) -> Scratch {
        Scratch::new(&format!("core-atomic-{name}"))
    }

    /// A scratch directory and the path `out.bin` in it, not created.
    fn out_bin(name: &str) -> (Scratch, PathBuf) {
        let dir = scratch(name);
        let target = dir.join("out.bin");
        (dir, target)
    }

    /// Replaces `target` with `contents`, as a writer of the whole file does.
    fn replace(target: &Path, contents: &[u8]) {
        let mut f = AtomicFile::create(target).unwrap();
        f.write_all(contents).unwrap();
        f.commit().unwrap();
    }

    /// `target` holds `contents` and is all `dir` holds: no temporary file is left.
    fn assert_alone(dir: &Path, target: &Path, contents: &[u8]) {
        assert_eq!(fs::read(target).unwrap(), contents);
        assert_eq!(fs::read_dir(dir).unwrap().count(), 1);
    }

    #[test]
    fn a_target_name_of_255_bytes_can_be_written() {
        let dir = scratch("long-name");
        let target = dir.join("é".repeat(127) + "x"); // 255 bytes, the most a name holds
        std::fs::write(&target, b"old").unwrap();
        replace(&target, b"new");
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
    }

    #[test]
    fn replacing_waits_for_an_editor_lock() {
        let dir = scratch("replace-lock");
        let target = dir.join("t.bin");
        std::fs::write(&target, b"old").unwrap();
        let editor = crate::file::open_locked(&target).unwrap();
        let writer = {
            let target = target.clone();
            std::thread::spawn(move || replace(&target, b"new"))
        };
        std::thread::sleep(core::time::Duration::from_millis(200));
        // The replacing writer is still waiting for the editor's lock.
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        drop(editor);
        writer.join().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
    }

    /// A large replaced file is closed on a thread of its own: the commit returns with the
    /// new contents in place, the temporary file gone, and the next writer of the path
    /// locks the new file at once (the old one's lock guards an unlinked inode).
    #[test]
    fn a_large_replaced_file_is_released_in_the_background() {
        let dir = scratch("release");
        let target = dir.join("big.bin");
        let old = std::vec![7u8; usize::try_from(RELEASE_IN_BACKGROUND).unwrap() + 1];
        for round in 0..3u8 {
            fs::write(&target, &old).unwrap();
            replace(&target, &[round; 10]);
            assert_alone(&dir, &target, &[round; 10]);
            let editor = crate::file::open_locked(&target).unwrap();
            drop(editor);
        }
    }

    #[test]
    fn commit_replaces_target() {
        let (dir, target) = out_bin("commit");
        fs::write(&target, b"old").unwrap();
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"new contents").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"old");
        f.commit().unwrap();
        assert_alone(&dir, &target, b"new contents");
    }

    #[test]
    fn no_clobber_commit_refuses_a_target_that_appeared() {
        let (dir, target) = out_bin("noclobber");
        let mut f = AtomicFile::create_new(&target).unwrap();
        f.write_all(b"mine").unwrap();
        fs::write(&target, b"theirs").unwrap();
        assert_eq!(f.commit().unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        assert_alone(&dir, &target, b"theirs");
    }

    #[test]
    fn drop_without_commit_leaves_nothing() {
        let (dir, target) = out_bin("drop");
        {
            let mut f = AtomicFile::create(&target).unwrap();
            f.write_all(b"partial").unwrap();
            assert!(f.temp_path().exists());
        }
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);
    }

    #[test]
    fn stale_temporaries_of_dead_processes_are_removed() {
        let (dir, target) = out_bin("stale");
        // No process has pid 4294967; an unrelated dot file stays.
        let stale = dir.join(".out.bin.binfmt-4294967-0.tmp");
        let unrelated = dir.join(".out.bin.keep");
        fs::write(&stale, b"x").unwrap();
        fs::write(&unrelated, b"y").unwrap();
        let f = AtomicFile::create(&target).unwrap();
        drop(f);
        if cfg!(target_os = "linux") {
            assert!(!stale.exists());
        }
        assert!(unrelated.exists());
    }
}
