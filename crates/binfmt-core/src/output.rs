//! Where a writer's bytes go: the one rule every binfmt writer follows.
//!
//! | OUT is | what happens |
//! |---|---|
//! | `-` | the bytes are streamed to standard output |
//! | missing | a temporary file beside it is written, synced and moved into place; if OUT appears meanwhile, the write fails rather than replace it |
//! | a regular file | refused unless [`OutputOptions::replace`] (the command line's `--force`); then written to a temporary file and renamed over it, keeping its permissions and, where permitted, its owner |
//! | one of the writer's inputs | refused, even with `replace` (compared by device and inode, after symlinks) |
//! | a symbolic link | followed: the link stays, its final target gets the output under the rules of this table |
//! | a FIFO, a character device, a socket | the bytes are streamed into it, no rename (a pipe or `/dev/null` is never replaced by a regular file) |
//! | a block device | refused unless `replace`; then streamed into |
//! | a directory | refused |
//!
//! Writers that must seek (a header written last) ask for [`OutputOptions::seekable`]:
//! a stream target then gets its bytes spooled through an unlinked temporary file and
//! copied on [`Output::commit`]. Nothing is left at OUT unless `commit` succeeds, except
//! for streams, which receive bytes as they come.
//!
//! ```
//! use std::io::Write;
//! use binfmt_core::output::{Output, OutputOptions};
//! # let dir = std::env::temp_dir().join(format!("binfmt-output-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! let path = dir.join("out.bin");
//! let mut out = Output::create(&path, &OutputOptions::new())?;
//! out.write_all(b"first")?;
//! out.commit()?;
//! // An existing file is not replaced without `replace` …
//! let err = Output::create(&path, &OutputOptions::new()).unwrap_err();
//! assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
//! // … and never when it is also an input.
//! let err = Output::create(&path, &OutputOptions::new().replace(true).input(&path)).unwrap_err();
//! assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::vec::Vec;

use crate::atomic::AtomicFile;

/// How an [`Output`] may treat what is already at its path.
#[derive(Debug, Clone, Default)]
pub struct OutputOptions {
    replace: bool,
    /// Stored inverted so that the derived `Default` is the safe choice: sync.
    no_sync: bool,
    seekable: bool,
    inputs: Vec<PathBuf>,
    input_ids: Vec<FileId>,
}

impl OutputOptions {
    /// Never replace an existing file; no inputs named; no seeking needed.
    #[must_use]
    pub fn new() -> Self {
        OutputOptions::default()
    }

    /// Whether an existing regular file (or block device) may be replaced: `--force`.
    #[must_use]
    pub fn replace(mut self, replace: bool) -> Self {
        self.replace = replace;
        self
    }

    /// Whether a regular file is made durable before [`Output::commit`] returns
    /// (default: true; see [`AtomicFile::set_sync`]). It is written beside its path and
    /// renamed over it either way.
    #[must_use]
    pub fn sync(mut self, sync: bool) -> Self {
        self.no_sync = !sync;
        self
    }

    /// Whether the writer needs `Seek`: stream targets are then spooled.
    #[must_use]
    pub fn seekable(mut self, seekable: bool) -> Self {
        self.seekable = seekable;
        self
    }

    /// A file the writer reads: the output may not be it.
    #[must_use]
    pub fn input(mut self, path: impl AsRef<Path>) -> Self {
        self.inputs.push(path.as_ref().to_path_buf());
        self
    }

    /// Files the writer reads.
    #[must_use]
    pub fn inputs<P: AsRef<Path>>(mut self, paths: impl IntoIterator<Item = P>) -> Self {
        self.inputs
            .extend(paths.into_iter().map(|p| p.as_ref().to_path_buf()));
        self
    }

    /// A file the writer reads, by identity: for inputs that are not named by a path
    /// (standard input redirected from a file, a `file://` URL, an open handle).
    #[must_use]
    pub fn input_id(mut self, id: FileId) -> Self {
        self.input_ids.push(id);
        self
    }
}

/// A destination for a writer's bytes; see the [module documentation](self) for the rules.
#[derive(Debug)]
pub struct Output {
    target: Target,
    /// A stream's bytes, while they are spooled for a writer that seeks.
    spool: Option<File>,
}

#[derive(Debug)]
enum Target {
    Stdout(io::Stdout),
    Stream(File),
    File(AtomicFile),
}

/// The file type checks this module needs, without `std::os` in every caller.
#[cfg(unix)]
fn is_stream(meta: &Metadata) -> (bool, bool) {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    (
        t.is_fifo() || t.is_char_device() || t.is_socket(),
        t.is_block_device(),
    )
}

#[cfg(not(unix))]
fn is_stream(_: &Metadata) -> (bool, bool) {
    (false, false)
}

/// True when [`Output::create`] would stream into `path` rather than write a file beside
/// it and rename it into place: standard output (`-`), or a path that names (through
/// symbolic links) a FIFO, a character or block device, or a socket. Bytes written to a
/// stream cannot be taken back, so a writer that would write before everything is
/// checked asks this first.
///
/// ```
/// assert!(binfmt_core::output::names_a_stream("-".as_ref()));
/// assert!(binfmt_core::output::names_a_stream("/dev/null".as_ref()));
/// assert!(!binfmt_core::output::names_a_stream("/nonexistent/out.bin".as_ref()));
/// ```
#[must_use]
pub fn names_a_stream(path: &Path) -> bool {
    if path.as_os_str() == "-" {
        return true;
    }
    resolve(path).and_then(fs::metadata).is_ok_and(|meta| {
        let (stream, block) = is_stream(&meta);
        stream || block
    })
}

/// Follows `path` through symbolic links (at most 40, as Linux does) to the path that
/// would be opened.
fn resolve(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        "too many levels of symbolic links",
    ))
}

/// True when `a` and `b` are the same file (same device and inode).
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    FileId::of(a).is_some_and(|id| Some(id) == FileId::of(b))
}

/// A file's identity: its device and inode. Two names (a path, a `file://` URL, a hard
/// link, standard input redirected from a file) name the same file when their
/// identities are equal, whatever the names say.
///
/// ```
/// use binfmt_core::output::FileId;
/// # let dir = std::env::temp_dir().join(format!("binfmt-fileid-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("a.bin");
/// std::fs::write(&path, b"x")?;
/// let by_path = FileId::of(&std::fs::metadata(&path)?);
/// let by_handle = FileId::of(&std::fs::File::open(&path)?.metadata()?);
/// assert!(by_path.is_some() || cfg!(not(unix)));
/// assert_eq!(by_path, by_handle);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The identity in `meta`; `None` where the platform gives none.
    #[must_use]
    pub fn of(meta: &Metadata) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(FileId {
                dev: meta.dev(),
                ino: meta.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }

    /// The identity of the file at `path`, after symbolic links; `None` when it cannot
    /// be looked up.
    #[must_use]
    pub fn of_path(path: impl AsRef<Path>) -> Option<FileId> {
        fs::metadata(path).ok().as_ref().and_then(FileId::of)
    }

    /// The identity of what standard input reads: a file it was redirected from, a
    /// pipe, a terminal. `None` when it cannot be looked up.
    #[must_use]
    pub fn of_stdin() -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::fd::AsFd;
            let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
            File::from(fd).metadata().ok().as_ref().and_then(FileId::of)
        }
        #[cfg(not(unix))]
        {
            None
        }
    }
}

/// The same check, on paths: for writers that edit a file in place and must not read
/// from it at the same time.
///
/// # Errors
/// I/O errors from looking the files up.
pub fn is_same_file(a: impl AsRef<Path>, b: impl AsRef<Path>) -> io::Result<bool> {
    Ok(same_file(&fs::metadata(a)?, &fs::metadata(b)?))
}

impl Output {
    /// Opens `path` for writing under the rules of the [module documentation](self).
    ///
    /// # Errors
    /// `AlreadyExists` for an existing file without `replace`; `InvalidInput` when the
    /// output is one of the inputs, or a directory; I/O errors.
    pub fn create(path: impl AsRef<Path>, options: &OutputOptions) -> io::Result<Output> {
        let path = path.as_ref();
        if path.as_os_str() == "-" {
            return Output::stream(Target::Stdout(io::stdout()), options);
        }
        let target = resolve(path)?;
        let meta = match fs::metadata(&target) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let mut file = AtomicFile::create_new(&target)?;
                file.set_sync(!options.no_sync);
                return Ok(Output {
                    target: Target::File(file),
                    spool: None,
                });
            }
            Err(e) => return Err(e),
        };
        if meta.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "is a directory; name a file to write",
            ));
        }
        let is_input = |input: &PathBuf| fs::metadata(input).is_ok_and(|m| same_file(&m, &meta));
        let id = FileId::of(&meta);
        let is_input_id = |input: &FileId| Some(*input) == id;
        if options.inputs.iter().any(is_input) || options.input_ids.iter().any(is_input_id) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "is also an input of this command; write the output elsewhere",
            ));
        }
        let (stream, block) = is_stream(&meta);
        if stream || block {
            if block && !options.replace {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "is a block device; use --force to write over it",
                ));
            }
            let file = open_stream(&target, &meta)?;
            return Output::stream(Target::Stream(file), options);
        }
        if !options.replace {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "already exists; use --force to replace it",
            ));
        }
        let mut file = AtomicFile::create(&target)?;
        file.set_sync(!options.no_sync);
        keep_permissions(file.file(), &meta);
        Ok(Output {
            target: Target::File(file),
            spool: None,
        })
    }

    fn stream(target: Target, options: &OutputOptions) -> io::Result<Output> {
        let spool = if options.seekable {
            Some(anonymous_file()?)
        } else {
            None
        };
        Ok(Output { target, spool })
    }

    /// True when the bytes go to a stream (standard output, a FIFO, a device) rather
    /// than a file that appears on [`commit`](Output::commit).
    #[must_use]
    pub fn is_stream(&self) -> bool {
        !matches!(self.target, Target::File(_))
    }

    /// Finishes the output: a regular file is synced (unless [`OutputOptions::sync`] is
    /// off) and moved into place; spooled bytes are copied to their stream; a stream is
    /// flushed.
    ///
    /// # Errors
    /// I/O errors. A regular file's target is then untouched.
    pub fn commit(self) -> io::Result<()> {
        let Output { target, spool } = self;
        match target {
            Target::File(file) => file.commit(),
            Target::Stdout(out) => finish_stream(out.lock(), spool),
            Target::Stream(file) => finish_stream(file, spool),
        }
    }

    fn writer(&mut self) -> &mut dyn Write {
        if let Some(spool) = &mut self.spool {
            return spool;
        }
        match &mut self.target {
            Target::Stdout(out) => out,
            Target::Stream(file) => file,
            Target::File(file) => file,
        }
    }
}

/// Opens a stream target for writing: a FIFO or a device is opened; a Unix socket,
/// which `open` refuses (`ENXIO`), is connected to.
fn open_stream(target: &Path, meta: &Metadata) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if meta.file_type().is_socket() {
            let stream = std::os::unix::net::UnixStream::connect(target)?;
            return Ok(File::from(std::os::fd::OwnedFd::from(stream)));
        }
    }
    let _ = meta;
    OpenOptions::new().write(true).open(target)
}

fn finish_stream(mut out: impl Write, spool: Option<File>) -> io::Result<()> {
    if let Some(mut spool) = spool {
        spool.seek(SeekFrom::Start(0))?;
        io::copy(&mut spool, &mut out)?;
    }
    out.flush()
}

/// Gives the new file the mode and, where permitted, the owner of the file it replaces.
fn keep_permissions(file: &File, old: &Metadata) {
    // Failures leave the defaults of a new file, which is what an editor does too.
    let _ = file.set_permissions(old.permissions());
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid()));
    }
}

/// A temporary file with no name (unlinked at once where the platform allows), for
/// spooling: nothing of it is left behind, whatever happens to the process.
pub(crate) fn anonymous_file() -> io::Result<File> {
    let dir = std::env::temp_dir();
    let mut file = AtomicFile::create(dir.join("spool"))?;
    let handle = file.file().try_clone()?;
    // Dropping the `AtomicFile` without committing removes its name; the open handle
    // keeps the data (on Unix; elsewhere the file is removed when the handle closes).
    drop(file);
    Ok(handle)
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer().write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}

impl Seek for Output {
    /// Seeks in the file or spool; a stream that is not spooled cannot seek.
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        if let Some(spool) = &mut self.spool {
            return spool.seek(pos);
        }
        match &mut self.target {
            Target::File(file) => file.seek(pos),
            Target::Stdout(_) | Target::Stream(_) => Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "the output is a stream; this writer needs OutputOptions::seekable",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scratch::Scratch;
    use std::format;

    #[cfg(unix)]
    #[test]
    fn a_unix_socket_is_streamed_into() {
        use std::io::Read as _;
        let dir = scratch("socket");
        let path = dir.join("out.sock");
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let reader = std::thread::spawn(move || {
            let (mut conn, _) = listener.accept().unwrap();
            let mut got = Vec::new();
            conn.read_to_end(&mut got).unwrap();
            got
        });
        let mut out = Output::create(&path, &OutputOptions::new()).unwrap();
        assert!(out.is_stream());
        out.write_all(b"through the socket").unwrap();
        out.commit().unwrap();
        assert_eq!(reader.join().unwrap(), b"through the socket");
        // The socket is still a socket: never replaced by a regular file.
        assert!(std::os::unix::fs::FileTypeExt::is_socket(
            &fs::symlink_metadata(&path).unwrap().file_type()
        ));
    }

    fn scratch(name: &str) -> Scratch {
        Scratch::new(&format!("core-output-{name}"))
    }

    fn write(path: &Path, options: &OutputOptions, bytes: &[u8]) -> io::Result<()> {
        let mut out = Output::create(path, options)?;
        out.write_all(bytes)?;
        out.commit()
    }

    #[test]
    fn existing_files_need_replace() {
        let dir = scratch("replace");
        let path = dir.join("out");
        write(&path, &OutputOptions::new(), b"one").unwrap();
        let e = write(&path, &OutputOptions::new(), b"two").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&path).unwrap(), b"one");
        write(&path, &OutputOptions::new().replace(true), b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
    }

    #[test]
    fn directories_are_refused() {
        let dir = scratch("dir");
        let e = write(&dir, &OutputOptions::new().replace(true), b"x").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_followed_and_modes_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("symlink");
        let real = dir.join("real");
        fs::write(&real, b"old").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.join("link");
        std::os::unix::fs::symlink("real", &link).unwrap();
        write(&link, &OutputOptions::new().replace(true), b"new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&real).unwrap(), b"new");
        assert_eq!(
            fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o600
        );
        // The input, reached through the link, is refused even with replace.
        let e = write(
            &link,
            &OutputOptions::new().replace(true).input(&real),
            b"x",
        )
        .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_streamed_into_not_replaced() {
        let null = Path::new("/dev/null");
        if !null.exists() {
            return;
        }
        let mut out = Output::create(null, &OutputOptions::new().seekable(true)).unwrap();
        assert!(out.is_stream());
        out.write_all(b"abc").unwrap();
        out.seek(SeekFrom::Start(0)).unwrap();
        out.write_all(b"x").unwrap();
        out.commit().unwrap();
        assert!(!fs::metadata(null).unwrap().is_file());
    }
}
