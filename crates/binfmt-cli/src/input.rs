//! The files named on the command line, read as byte sources.
//!
//! Nothing here maps a file: a file that another process truncates while we read it gives
//! an error line, never `SIGBUS`. Regular files are read with positioned reads, so that a
//! command reads only the ranges it needs (a `taridx get` reads one member of a 100 GB
//! shard); pipes, devices and `-` (standard input) are read forward only as far as needed,
//! so `binfmt inspect /dev/zero` reads one block, finds no format, and stops. URLs
//! (`s3://`, `gs://`, `az://`, `http(s)://`, `file://`) are read by range through
//! `binfmt-remote`, with the same code paths; one whose server ignores ranges is read as a
//! stream instead, as standard input is (one GET, in order, as far as the command asks).
//!
//! Every input's reads are counted, for `binfmt --stats`.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use binfmt_core::cache::ReadCache;
use binfmt_core::source::{ByteSource, Counting, FileSource, STREAM_LIMIT, StreamSource};
#[cfg(feature = "remote")]
use binfmt_remote::{RemoteSource, StreamFallback};

use crate::escape;
use crate::report::Failure;

/// How many leading bytes an input reads at open, in one request: enough to detect the
/// format, and for most files everything the format's view needs next (a kastore store's
/// descriptors and keys, a Bloscpack file's metadata and offsets, an MLDF header and
/// descriptors): the view starts from these bytes ([`Input::head`]), so detection's
/// request serves it and opening costs no further round trip. 64 KiB costs no more time
/// than 256 bytes over any network, and nothing locally.
pub(crate) const HEAD_SIZE: u64 = 64 << 10;

/// The first read of `binfmt taco header`: 256 bytes, what tacoreader asks for.
pub(crate) const SMALL_HEAD_SIZE: u64 = 256;

/// The size of the ranges a whole remote object is read in (several in flight at once).
const WHOLE_PART: u64 = 8 << 20;

/// How many whole-object ranges are asked for at once (binfmt-remote runs up to 8).
const REMOTE_CONCURRENCY: usize = 8;

/// True when `arg` names a URL rather than a path (`s3://`, `gs://`, `az://`, `http://`,
/// `https://`, `file://`, in any case).
pub(crate) fn is_url(arg: &str) -> bool {
    binfmt_core::text::is_url(arg)
}

/// The identity (device, inode) of the file an input argument reads, whatever form names
/// it: a path, `-` (standard input redirected from a file), a `file://` URL. `None` for
/// what has none to compare (other URLs, a name that does not exist). Writers refuse an
/// OUT with the identity of one of their inputs.
pub(crate) fn identity(arg: &Path) -> Option<binfmt_core::output::FileId> {
    use binfmt_core::output::FileId;
    if arg.as_os_str() == "-" {
        return FileId::of_stdin();
    }
    if let Some(text) = arg.to_str().filter(|a| is_url(a)) {
        return file_url_path(text).and_then(FileId::of_path);
    }
    FileId::of_path(arg)
}

/// The local path a `file://` URL names, percent-decoded; `None` for other URLs.
fn file_url_path(text: &str) -> Option<PathBuf> {
    #[cfg(feature = "remote")]
    {
        binfmt_remote::file_url_path(text)
    }
    #[cfg(not(feature = "remote"))]
    {
        let _ = text;
        None
    }
}

/// Where the reads of one input are counted.
#[derive(Clone)]
enum Meter {
    /// Local files and streams: our reads.
    Local(Arc<Counting<Box<dyn ByteSource + Send + Sync>>>),
    /// URLs: the remote source's requests (HEAD included) and bytes.
    #[cfg(feature = "remote")]
    Remote(Arc<StreamFallback>),
}

/// Every input opened so far, for `--stats`.
static OPENED: Mutex<Vec<(String, Meter)>> = Mutex::new(Vec::new());

/// One line per input opened so far: what was read from it (`--stats`).
pub(crate) fn stats_lines() -> Vec<String> {
    let opened = OPENED.lock().map(|o| o.clone()).unwrap_or_default();
    opened
        .into_iter()
        .map(|(name, meter)| match meter {
            Meter::Local(c) => {
                let s = c.stats();
                format!("{name}: {} reads, {} bytes", s.requests, s.bytes)
            }
            #[cfg(feature = "remote")]
            Meter::Remote(r) => {
                let s = r.stats();
                format!(
                    "{name}: {} requests ({} HEAD, {} HTTP with retries), {} bytes",
                    s.requests, s.head_requests, s.http_requests, s.bytes
                )
            }
        })
        .collect()
}

/// What formats read an input through ([`Input::cache`]): metadata is read by ranges
/// and kept, payloads are streamed and not kept, so memory does not grow with the input.
pub(crate) type Cache<'i> = ReadCache<&'i dyn ByteSource>;

/// An input file.
pub(crate) struct Input {
    /// How the user named it, escaped for messages.
    name: String,
    /// The local path, for regular files.
    path: Option<PathBuf>,
    /// The argument as given (a path, `-`, a URL): writers refuse an OUT that is the
    /// same file, by [`identity`], whatever form names it.
    arg: PathBuf,
    /// Read through `binfmt-remote`.
    remote: bool,
    /// A URL opened to be read whole ([`Input::open_whole`]).
    #[cfg(feature = "remote")]
    read_whole: Option<Arc<RemoteSource>>,
    source: Box<dyn ByteSource>,
    /// The first `head_len` bytes (fewer for a shorter input).
    head: Vec<u8>,
    head_len: u64,
    whole: OnceCell<Vec<u8>>,
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input")
            .field("name", &self.name)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// What a URL's first request asks for besides the input's first bytes
/// ([`Input::open_for`]; files and streams read their head alone whatever this says).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FirstRead {
    /// The head alone.
    Head,
    /// The whole object, whose rest the command's streams of ranges take over
    /// ([`binfmt_remote::Options::with_whole_object`]).
    Whole,
    /// The head, and this many bytes at the end at the same time
    /// ([`binfmt_remote::Options::with_tail_ahead`]).
    HeadAndTail(u64),
}

impl Input {
    /// Opens a path, or standard input for `-`, and reads its first [`HEAD_SIZE`] bytes.
    ///
    /// # Errors
    /// A failure naming the input: it cannot be opened or read, or it is a directory.
    pub(crate) fn open(arg: &Path) -> Result<Input, Failure> {
        Input::open_with_head(arg, HEAD_SIZE)
    }

    /// [`Input::open`], reading the first `head_len` bytes at open.
    ///
    /// # Errors
    /// As [`Input::open`].
    pub(crate) fn open_with_head(arg: &Path, head_len: u64) -> Result<Input, Failure> {
        Input::open_as(arg, head_len, FirstRead::Head)
    }

    /// [`Input::open`] for a command that reads the whole input, in order (`verify`,
    /// `unpack` into a file): a URL's first request asks for the whole object, and what
    /// comes after the head is kept coming for the command's stream of ranges
    /// ([`binfmt_remote::Options::with_whole_object`]): one round trip fewer.
    ///
    /// # Errors
    /// As [`Input::open`].
    pub(crate) fn open_whole(arg: &Path) -> Result<Input, Failure> {
        Input::open_for(arg, FirstRead::Whole)
    }

    /// [`Input::open`], with a URL's first request asking for `first`.
    ///
    /// # Errors
    /// As [`Input::open`].
    pub(crate) fn open_for(arg: &Path, first: FirstRead) -> Result<Input, Failure> {
        Input::open_as(arg, HEAD_SIZE, first)
    }

    fn open_as(arg: &Path, head_len: u64, first: FirstRead) -> Result<Input, Failure> {
        let name = escape::path(arg);
        let opened = open_location(arg, &name, first)?;
        let mut input = Input::from_source_with(name, opened.path, opened.source, head_len)?;
        input.remote = opened.remote;
        #[cfg(feature = "remote")]
        {
            input.read_whole = opened.whole;
        }
        input.arg = arg.to_path_buf();
        Ok(input)
    }

    /// For an input opened by [`Input::open_whole`] that will not be read whole after
    /// all (`verify` of a format whose checks read only its structure): stops the rest of
    /// the URL's first response, which the command would not take.
    pub(crate) fn not_whole(&self) {
        #[cfg(feature = "remote")]
        if let Some(source) = &self.read_whole {
            source.release_rest();
        }
    }

    /// True for URLs.
    pub(crate) fn is_remote(&self) -> bool {
        self.remote
    }

    /// An input over any byte source (remote objects, tests).
    ///
    /// # Errors
    /// A failure naming the input when its first bytes cannot be read.
    pub(crate) fn from_source(
        name: String,
        path: Option<PathBuf>,
        source: Box<dyn ByteSource>,
    ) -> Result<Input, Failure> {
        Input::from_source_with(name, path, source, HEAD_SIZE)
    }

    /// [`Input::from_source`], reading the first `head_len` bytes.
    fn from_source_with(
        name: String,
        path: Option<PathBuf>,
        source: Box<dyn ByteSource>,
        head_len: u64,
    ) -> Result<Input, Failure> {
        let head = source
            .read_head(head_len)
            .map_err(|e| Failure::file(&name, e))?
            .into_owned();
        Ok(Input {
            head_len,
            arg: path.clone().unwrap_or_default(),
            name,
            path,
            remote: false,
            #[cfg(feature = "remote")]
            read_whole: None,
            source,
            head,
            whole: OnceCell::new(),
        })
    }

    /// How the user named the input, escaped: for messages and the `"file"` JSON key.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The argument that named the input, as given (a path, `-`, a URL): what writers
    /// compare OUT with ([`identity`]).
    pub(crate) fn arg(&self) -> &Path {
        &self.arg
    }

    /// The local path of a regular file.
    pub(crate) fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// How many leading bytes were asked for at open ([`HEAD_SIZE`] unless
    /// [`Input::open_with_head`]): [`Input::head`] holds fewer only when the input is
    /// shorter, which tells its length.
    pub(crate) fn head_len(&self) -> u64 {
        self.head_len
    }

    /// The first [`Input::head_len`] bytes (fewer for a shorter input).
    pub(crate) fn head(&self) -> &[u8] {
        &self.head
    }

    /// The input as a byte source, for formats that read only the ranges they need.
    pub(crate) fn source(&self) -> &dyn ByteSource {
        &*self.source
    }

    /// The input as the one door reads it: a range cache over [`Input::source`] that
    /// starts with the bytes detection read ([`Input::head`]), so that what they hold
    /// costs no request.
    pub(crate) fn cache(&self) -> Cache<'_> {
        ReadCache::with_head(self.source(), self.head(), self.head_len())
    }

    /// The whole input, read once with ordinary reads and kept.
    ///
    /// # Errors
    /// A failure naming the input when it cannot be read (including a file truncated
    /// while being read).
    pub(crate) fn bytes(&self) -> Result<&[u8], Failure> {
        if let Some(bytes) = self.whole.get() {
            return Ok(bytes);
        }
        let bytes = self.read_whole()?;
        Ok(self.whole.get_or_init(|| bytes))
    }

    /// The whole input, owned (for a command that edits a copy): no second copy of what
    /// [`Input::bytes`] keeps.
    ///
    /// # Errors
    /// As [`Input::bytes`].
    pub(crate) fn into_bytes(mut self) -> Result<Vec<u8>, Failure> {
        match self.whole.take() {
            Some(bytes) => Ok(bytes),
            None => self.read_whole(),
        }
    }

    fn read_whole(&self) -> Result<Vec<u8>, Failure> {
        let fail = |e: std::io::Error| Failure::file(&self.name, e);
        let len = self.source.len().map_err(fail)?;
        if !(self.remote && len > WHOLE_PART) {
            return match self.source.read_range(0..len).map_err(fail)? {
                Cow::Borrowed(b) => Ok(b.to_vec()),
                Cow::Owned(v) => Ok(v),
            };
        }
        // Large ranges, several in flight: the remote source runs them concurrently. The
        // ranges are made group by group and memory grows only with the bytes that have
        // arrived: the length is the server's claim, and a claim of 2^62 bytes must end
        // in an error line once the bytes fail to come, not in an allocation of it.
        let mut whole = Vec::new();
        let mut at = 0u64;
        while at < len {
            let mut group = Vec::with_capacity(REMOTE_CONCURRENCY);
            while group.len() < REMOTE_CONCURRENCY && at < len {
                let end = len.min(at.saturating_add(WHOLE_PART));
                group.push(at..end);
                at = end;
            }
            for part in self.source.read_ranges(&group).map_err(fail)? {
                whole.try_reserve(part.len()).map_err(|_| {
                    fail(std::io::Error::new(
                        std::io::ErrorKind::OutOfMemory,
                        format!("cannot hold {len} bytes in memory"),
                    ))
                })?;
                whole.extend_from_slice(&part);
            }
        }
        Ok(whole)
    }
}

/// A location opened as a byte source, nothing read from it yet.
struct Opened {
    source: Box<dyn ByteSource>,
    /// The local path, for regular files.
    path: Option<PathBuf>,
    remote: bool,
    /// A URL opened to be read whole: its source, to stop the rest of its first response.
    #[cfg(feature = "remote")]
    whole: Option<Arc<RemoteSource>>,
}

/// Opens a location (a path, `-` for standard input, a URL) as a byte source without
/// reading from it, as [`Input::open`] opens its inputs: for a command that reads ranges
/// of a file it does not detect (a shard named by an index). Its reads are counted for
/// `--stats` like an input's.
///
/// # Errors
/// As [`Input::open`].
pub(crate) fn open_source(arg: &Path) -> Result<Box<dyn ByteSource>, Failure> {
    Ok(open_location(arg, &escape::path(arg), FirstRead::Head)?.source)
}

/// Opens `arg`, named `name` in messages and `--stats`.
fn open_location(arg: &Path, name: &str, first: FirstRead) -> Result<Opened, Failure> {
    let fail = |e: std::io::Error| Failure::file(name, e);
    #[cfg(not(feature = "remote"))]
    let _ = first;
    #[cfg(not(feature = "remote"))]
    if arg.to_str().is_some_and(is_url) {
        return Err(Failure::file(
            name,
            "this binfmt was built without the `remote` feature: URLs cannot be read",
        ));
    }
    #[cfg(feature = "remote")]
    if let Some(url) = arg.to_str().filter(|a| is_url(a)) {
        let whole = first == FirstRead::Whole;
        let tail = match first {
            FirstRead::HeadAndTail(len) => len,
            FirstRead::Head | FirstRead::Whole => 0,
        };
        let options = binfmt_remote::Options::from_env()
            .map_err(fail)?
            .with_whole_object(whole)
            .with_tail_ahead(tail);
        let remote = Arc::new(RemoteSource::open_with(url, &options).map_err(fail)?);
        // A server that ignores ranges is read in order, as standard input is: as far as
        // the command asks, spilled to a temporary file past 64 MiB, STREAM_LIMIT at most.
        let shown = name.to_owned();
        let source = Arc::new(
            StreamFallback::new(Arc::clone(&remote), url, &options, STREAM_LIMIT).with_notice(
                move |_| {
                    crate::report::say(format_args!(
                        "binfmt: {shown}: the server ignores Range headers; reading the object in order, as a stream"
                    ));
                },
            ),
        );
        register(name, Meter::Remote(Arc::clone(&source)));
        return Ok(Opened {
            whole: whole.then(|| Arc::clone(&remote)),
            source: Box::new(source),
            path: None,
            remote: true,
        });
    }
    let (source, path): (Box<dyn ByteSource + Send + Sync>, Option<PathBuf>) =
        if arg.as_os_str() == "-" {
            (
                Box::new(StreamSource::new(std::io::stdin(), STREAM_LIMIT)),
                None,
            )
        } else {
            let file = File::open(arg).map_err(fail)?;
            let meta = file.metadata().map_err(fail)?;
            if meta.is_dir() {
                return Err(Failure::file(name, "is a directory"));
            }
            if meta.is_file() {
                (
                    Box::new(FileSource::new(file).map_err(fail)?),
                    Some(arg.to_path_buf()),
                )
            } else {
                (Box::new(StreamSource::new(file, STREAM_LIMIT)), None)
            }
        };
    let counted = Arc::new(Counting::new(source));
    register(name, Meter::Local(Arc::clone(&counted)));
    Ok(Opened {
        source: Box::new(counted),
        path,
        remote: false,
        #[cfg(feature = "remote")]
        whole: None,
    })
}

fn register(name: &str, meter: Meter) {
    if let Ok(mut opened) = OPENED.lock() {
        opened.push((name.to_owned(), meter));
    }
}
