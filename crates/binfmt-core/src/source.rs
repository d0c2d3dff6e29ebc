//! Byte sources: one trait for "give me bytes `[offset, offset + len)`", over memory,
//! files, streams and (in `binfmt-remote`) object stores.
//!
//! After gimli-rs/object's `ReadRef`, with one difference that remote reading needs: a
//! reader *states the ranges it needs*, several at once where it can
//! ([`ByteSource::read_ranges`]), so that a remote source can fetch them concurrently and
//! merge nearby ones into one request. Ranges of memory come back borrowed; everything
//! else comes back owned.
//!
//! | source | what | `len` costs |
//! |---|---|---|
//! | `[u8]`, `Vec<u8>`, [`Mmap`](crate::mmap::Mmap) | memory | nothing |
//! | [`FileSource`] | positioned reads of a file (no map, so a file truncated under us gives an error, never `SIGBUS`) | nothing (taken at open) |
//! | [`SeekSource`] | any `Read + Seek` | one seek |
//! | [`StreamSource`] | any `Read` (pipes, sockets): reads forward only as far as asked, keeps what it read | reads to the end |
//! | [`Counting`] | any source, counting requests and bytes (`--stats`, request-plan tests) | the inner source's |
//!
//! ```
//! use binfmt_core::source::{ByteSource, Counting};
//!
//! let data = b"0123456789".to_vec();
//! let counted = Counting::new(&data[..]);
//! assert_eq!(&*counted.read_range(2..5)?, b"234");
//! let parts = counted.read_ranges(&[0..1, 8..10])?;
//! assert_eq!((&*parts[0], &*parts[1]), (&b"0"[..], &b"89"[..]));
//! assert_eq!(&*counted.read_head(256)?, b"0123456789"); // short at the end: no error
//! let (at, tail) = counted.read_tail(3)?;
//! assert_eq!((at, &*tail), (7, &b"789"[..]));
//! assert!(counted.read_range(8..11).is_err()); // an exact range past the end is an error
//! assert_eq!(counted.stats().requests, 5);
//! # Ok::<(), std::io::Error>(())
//! ```

use core::ops::Range;
use core::sync::atomic::{AtomicU64, Ordering};
use std::borrow::Cow;
use std::boxed::Box;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::Mutex;
use std::vec::Vec;

use crate::bytes::{len_u64, to_u64};
use crate::error::{Error, IoError, IoKind, Layout};
use crate::parts::PartStream;

/// A source of bytes addressed by `u64` offsets.
///
/// Every method takes `&self`, so one source can serve several readers (and threads,
/// where it is `Sync`). Implementations check ranges against the source's length and
/// never allocate more than the bytes they return.
pub trait ByteSource {
    /// The total length in bytes.
    ///
    /// # Errors
    /// I/O errors; for a remote source, the request that learns the length.
    fn len(&self) -> io::Result<u64>;

    /// True when the source has no bytes.
    ///
    /// # Errors
    /// As [`len`](ByteSource::len).
    fn is_empty(&self) -> io::Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Exactly the bytes of `range`.
    ///
    /// # Errors
    /// [`past_end`] (`UnexpectedEof`) when the range extends past the end; I/O errors.
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>>;

    /// Exactly the bytes of each range, in order: a reader that knows several ranges it
    /// needs asks for them at once, and a remote source fetches them concurrently,
    /// merging nearby ones. The default reads them one by one.
    ///
    /// # Errors
    /// As [`read_range`](ByteSource::read_range), for the first range that fails.
    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Cow<'_, [u8]>>> {
        ranges.iter().map(|r| self.read_range(r.clone())).collect()
    }

    /// The first `min(max_len, len)` bytes, in one request: a header read that does not
    /// need to know the length first (a short input is the format's problem to report,
    /// not an I/O error).
    ///
    /// # Errors
    /// I/O errors.
    fn read_head(&self, max_len: u64) -> io::Result<Cow<'_, [u8]>> {
        let len = self.len()?;
        self.read_range(0..max_len.min(len))
    }

    /// The last `min(max_len, len)` bytes and the offset at which they start, in one
    /// request (a suffix range, for formats whose directory is at the end).
    ///
    /// # Errors
    /// I/O errors.
    fn read_tail(&self, max_len: u64) -> io::Result<(u64, Cow<'_, [u8]>)> {
        let len = self.len()?;
        let start = len.saturating_sub(max_len);
        Ok((start, self.read_range(start..len)?))
    }

    /// All of the source, when it is already in memory: readers use this for their
    /// zero-copy paths. `None` for sources that read on demand.
    fn as_slice(&self) -> Option<&[u8]> {
        None
    }

    /// True for forward-only sources ([`StreamSource`]), whose [`len`](ByteSource::len)
    /// reads to the end: a reader checks their first bytes before it asks for more than
    /// a header, so that `/dev/zero` is refused at once. False by default.
    fn is_stream(&self) -> bool {
        false
    }

    /// Starts reading `ranges` without waiting for them, for a source that can read in
    /// the background (a file through a handle of its own, an object store on its
    /// runtime): [`Pending::wait`] then gives what [`read_ranges`](ByteSource::read_ranges)
    /// would have. A cache reads the next window of a walk this way while the current one
    /// is checked, so that a whole-object read is bounded by the slower of the link and
    /// the checks, not by their sum. `None` (the default) when the source cannot; the
    /// caller then reads the ranges when it needs them.
    fn start_ranges(&self, ranges: Vec<Range<u64>>) -> Option<Pending> {
        let _ = ranges;
        None
    }

    /// Starts reading `ranges` (in order, each at or after the end of the one before) in
    /// the background as one stream: adjacent ranges in one request, each range's bytes
    /// handed over as soon as they are all in ([`PartStream`], an iterator), with at most `budget`
    /// bytes received and not yet taken (the producer then stops reading, and the
    /// transport holds the rest). A cache reads every announced payload of a walk this way
    /// where it can: one round trip for the whole object rather than one per window in
    /// flight. `None` (the default) when the source cannot; the cache then reads windows
    /// ([`start_ranges`](ByteSource::start_ranges)). A part that fails ends the stream
    /// with its error; the reader then reads that range alone, which says what is wrong.
    fn stream_ranges(&self, ranges: Vec<Range<u64>>, budget: u64) -> Option<PartStream> {
        let _ = (ranges, budget);
        None
    }

    /// Whether [`stream_ranges`](ByteSource::stream_ranges) may stream: a cache then
    /// starts no windows when payloads are announced, and streams them from the first
    /// one read. False (the default) for sources that cannot.
    fn streams(&self) -> bool {
        false
    }

    /// Whether reading announced payloads ahead, a window at a time
    /// ([`Data::prefetch`](crate::data::Data::prefetch) over a
    /// [`ReadCache`](crate::cache::ReadCache)), pays for the memory it holds: true (the
    /// default) where a request costs a round trip; false for [`FileSource`], where the
    /// kernel's page cache and read-ahead already do it and reading one payload at a
    /// time is faster (measured: `verify` of a 200 MB Bloscpack file 0.03 s against
    /// 0.2–0.5 s through windows, which fault in fresh memory).
    fn read_ahead_pays(&self) -> bool {
        true
    }
}

/// Ranges being read in the background ([`ByteSource::start_ranges`]): on a thread of
/// their own, which ends when they are read (dropping a `Pending` does not wait for it).
#[derive(Debug)]
pub struct Pending(std::thread::JoinHandle<io::Result<Vec<Vec<u8>>>>);

impl Pending {
    /// Runs `read` on a new thread; `None` when no thread can be started.
    pub fn spawn(read: impl FnOnce() -> io::Result<Vec<Vec<u8>>> + Send + 'static) -> Option<Self> {
        std::thread::Builder::new()
            .name("binfmt-read-ahead".into())
            .spawn(read)
            .ok()
            .map(Pending)
    }

    /// Waits for the bytes of each range, in order.
    ///
    /// # Errors
    /// The read's error; an error when its thread panicked.
    pub fn wait(self) -> io::Result<Vec<Vec<u8>>> {
        self.0
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("a read-ahead thread panicked")))
    }
}

/// The error a source returns for a range past its end: `UnexpectedEof`, carrying the
/// range and the length so that [`read_exact`] can report a format's `Truncated` error.
#[must_use]
pub fn past_end(range: Range<u64>, len: u64) -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, PastEnd { range, len })
}

/// The payload of [`past_end`] errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PastEnd {
    /// The range asked for.
    pub range: Range<u64>,
    /// The source's length.
    pub len: u64,
}

impl core::fmt::Display for PastEnd {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "bytes {}..{} are past the end of the input ({} bytes)",
            self.range.start, self.range.end, self.len
        )
    }
}

impl core::error::Error for PastEnd {}

/// Why [`read_exact`] failed: the range is past the end of the input (the input's fault,
/// reported as [`Layout::Truncated`] at the range's offset), or the source failed.
///
/// It converts into every format's error with `?`.
#[derive(Debug)]
pub enum SourceError {
    /// The input is shorter than the structure being read.
    Layout(Error),
    /// Reading failed.
    Io(IoError),
}

impl From<Error> for SourceError {
    fn from(e: Error) -> Self {
        SourceError::Layout(e)
    }
}

impl core::fmt::Display for SourceError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SourceError::Layout(e) => core::fmt::Display::fmt(e, f),
            SourceError::Io(e) => core::fmt::Display::fmt(e, f),
        }
    }
}

impl core::error::Error for SourceError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            SourceError::Layout(e) => Some(e),
            SourceError::Io(e) => Some(e),
        }
    }
}

impl<K: IoKind> From<SourceError> for Error<K> {
    fn from(e: SourceError) -> Self {
        match e {
            SourceError::Layout(e) => e.into(),
            SourceError::Io(e) => e.into(),
        }
    }
}

impl From<SourceError> for io::Error {
    fn from(e: SourceError) -> io::Error {
        match e {
            SourceError::Layout(e) => e.into(),
            SourceError::Io(e) => e.source,
        }
    }
}

/// Reads `len` bytes at `offset` of `source` for the structure `what`, as a format
/// reader needs them: a range past the end becomes [`Layout::Truncated`] (the input's
/// fault, with the offset), any other failure an I/O error.
///
/// # Errors
/// As described.
pub fn read_exact<'s, S: ByteSource + ?Sized>(
    source: &'s S,
    offset: u64,
    len: u64,
    what: &'static str,
) -> Result<Cow<'s, [u8]>, SourceError> {
    let end = crate::bytes::end(offset, len, what).map_err(SourceError::Layout)?;
    source
        .read_range(offset..end)
        .map_err(|e| from_io(e, offset, len, what))
}

/// Converts a source's I/O error about `len` bytes at `offset` into a [`SourceError`],
/// as [`read_exact`] does.
#[must_use]
pub fn from_io(e: io::Error, offset: u64, len: u64, what: &'static str) -> SourceError {
    if let Some(past) = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<PastEnd>())
    {
        let available = past.len.saturating_sub(offset);
        return SourceError::Layout(Error::new(
            Some(offset),
            Layout::Truncated {
                what,
                needed: len,
                available,
            },
        ));
    }
    SourceError::Io(IoError::from(e))
}

/// Checks `range` against `len` and converts it to `usize` bounds.
fn bounds(range: &Range<u64>, len: u64) -> io::Result<Range<usize>> {
    if range.start > range.end || range.end > len {
        return Err(past_end(range.clone(), len));
    }
    let start = usize::try_from(range.start).map_err(|_| past_end(range.clone(), len))?;
    let end = usize::try_from(range.end).map_err(|_| past_end(range.clone(), len))?;
    Ok(start..end)
}

impl ByteSource for [u8] {
    fn len(&self) -> io::Result<u64> {
        Ok(len_u64(self))
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        let r = bounds(&range, len_u64(self))?;
        self.get(r)
            .map(Cow::Borrowed)
            .ok_or_else(|| past_end(range, len_u64(self)))
    }
    fn as_slice(&self) -> Option<&[u8]> {
        Some(self)
    }
}

/// Implements [`ByteSource`] for owners of bytes (`Deref<Target = [u8]>`) as their slice.
macro_rules! slice_byte_source {
    ($($(#[$attr:meta])* $ty:ty),* $(,)?) => {$(
        $(#[$attr])*
        impl ByteSource for $ty {
            fn len(&self) -> io::Result<u64> {
                Ok(len_u64(self))
            }
            fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
                <[u8] as ByteSource>::read_range(self, range)
            }
            fn as_slice(&self) -> Option<&[u8]> {
                Some(self)
            }
        }
    )*};
}

slice_byte_source!(
    Vec<u8>,
    #[cfg(feature = "mmap")]
    crate::mmap::Mmap
);

/// Forwards every method of [`ByteSource`] through a pointer type (`&S`, `Box<S>`,
/// `Arc<S>`), so that the provided methods the inner source overrides stay overridden.
macro_rules! forward_byte_source {
    ($($ptr:ty),*) => {$(
        impl<S: ByteSource + ?Sized> ByteSource for $ptr {
            fn is_stream(&self) -> bool {
                (**self).is_stream()
            }
            fn len(&self) -> io::Result<u64> {
                (**self).len()
            }
            fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
                (**self).read_range(range)
            }
            fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Cow<'_, [u8]>>> {
                (**self).read_ranges(ranges)
            }
            fn read_head(&self, max_len: u64) -> io::Result<Cow<'_, [u8]>> {
                (**self).read_head(max_len)
            }
            fn read_tail(&self, max_len: u64) -> io::Result<(u64, Cow<'_, [u8]>)> {
                (**self).read_tail(max_len)
            }
            fn as_slice(&self) -> Option<&[u8]> {
                (**self).as_slice()
            }
            fn start_ranges(&self, ranges: Vec<Range<u64>>) -> Option<Pending> {
                (**self).start_ranges(ranges)
            }
            fn stream_ranges(&self, ranges: Vec<Range<u64>>, budget: u64) -> Option<PartStream> {
                (**self).stream_ranges(ranges, budget)
            }
            fn streams(&self) -> bool {
                (**self).streams()
            }
            fn read_ahead_pays(&self) -> bool {
                (**self).read_ahead_pays()
            }
        }
    )*};
}

forward_byte_source!(&S, Box<S>, std::sync::Arc<S>);

/// A file read with positioned reads (`pread`), never mapped.
///
/// The length is taken when the source is made. If another process truncates the file
/// afterwards, a read past the new end fails with an error; unlike a memory map it cannot
/// raise `SIGBUS`.
#[derive(Debug)]
pub struct FileSource {
    file: File,
    len: u64,
}

impl FileSource {
    /// Opens the file at `path` for reading.
    ///
    /// # Errors
    /// I/O errors from opening it or reading its length.
    pub fn open(path: impl AsRef<std::path::Path>) -> io::Result<Self> {
        Self::new(File::open(path)?)
    }

    /// Reads from `file`, whose current length is taken now.
    ///
    /// # Errors
    /// I/O errors from reading its length.
    pub fn new(file: File) -> io::Result<Self> {
        let len = file.metadata()?.len();
        Ok(FileSource { file, len })
    }

    /// The file.
    #[must_use]
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Reads exactly `buf.len()` bytes at `offset` (a file that ends sooner is an
    /// `UnexpectedEof` error).
    ///
    /// # Errors
    /// I/O errors.
    pub fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        read_exact_at(&self.file, buf, offset)
    }
}

/// `pread` until `buf` is full.
///
/// # Errors
/// I/O errors; `UnexpectedEof` when the file ends first.
pub fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        let mut done = 0usize;
        while let Some(rest) = buf.get_mut(done..).filter(|r| !r.is_empty()) {
            let at = offset.saturating_add(to_u64(done));
            match std::os::windows::fs::FileExt::seek_read(file, rest, at) {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => done = done.saturating_add(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// A zeroed buffer for `range`, refusing lengths that do not fit memory with an error
/// (`OutOfMemory`) instead of aborting the process: the length comes from a file or a
/// caller, and a 4 TiB sparse file is a valid file.
fn buffer(range: &Range<u64>, len: u64) -> io::Result<Vec<u8>> {
    let n = usize::try_from(range.end.saturating_sub(range.start))
        .map_err(|_| past_end(range.clone(), len))?;
    let mut buf = Vec::new();
    buf.try_reserve_exact(n).map_err(|_| too_large(n))?;
    buf.resize(n, 0);
    Ok(buf)
}

/// The error for a read whose buffer cannot be allocated.
fn too_large(n: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::OutOfMemory,
        std::format!("cannot hold {n} bytes in memory"),
    )
}

impl ByteSource for FileSource {
    fn len(&self) -> io::Result<u64> {
        Ok(self.len)
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        bounds(&range, self.len)?;
        let mut buf = buffer(&range, self.len)?;
        match self.read_exact_at(&mut buf, range.start) {
            Ok(()) => Ok(Cow::Owned(buf)),
            // The file shrank since we took its length.
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                std::format!(
                    "the file ends before byte {}: it was truncated while being read",
                    range.end
                ),
            )),
            Err(e) => Err(e),
        }
    }
    fn read_ahead_pays(&self) -> bool {
        false
    }
}

/// Any `Read + Seek` as a byte source (reads are serialised by a lock).
#[derive(Debug)]
pub struct SeekSource<R> {
    inner: Mutex<R>,
}

impl<R: Read + Seek> SeekSource<R> {
    /// Reads from `inner`.
    pub fn new(inner: R) -> Self {
        SeekSource {
            inner: Mutex::new(inner),
        }
    }

    /// The reader back.
    ///
    /// # Errors
    /// When a thread panicked while reading (the lock is poisoned).
    pub fn into_inner(self) -> io::Result<R> {
        self.inner.into_inner().map_err(|_| poisoned())
    }
}

fn poisoned() -> io::Error {
    io::Error::other("a reader panicked while holding the source")
}

impl<R: Read + Seek> ByteSource for SeekSource<R> {
    fn len(&self) -> io::Result<u64> {
        let mut inner = self.inner.lock().map_err(|_| poisoned())?;
        inner.seek(SeekFrom::End(0))
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        let mut inner = self.inner.lock().map_err(|_| poisoned())?;
        let len = inner.seek(SeekFrom::End(0))?;
        bounds(&range, len)?;
        let mut buf = buffer(&range, len)?;
        inner.seek(SeekFrom::Start(range.start))?;
        inner.read_exact(&mut buf)?;
        Ok(Cow::Owned(buf))
    }
}

/// How much of a stream is read at most by binfmt's command line and Python package
/// (16 GiB): a stream cannot be measured first, and one may never end (`/dev/zero`, a
/// server that ignores ranges and sends forever). The `limit` of their [`StreamSource`]s.
pub const STREAM_LIMIT: u64 = 16 << 30;

/// A forward-only `Read` (a pipe, a socket, standard input) as a byte source.
///
/// It reads only as far as the furthest byte asked for and keeps what it has read, so
/// that earlier ranges can be asked for again. The first [`StreamSource::MEMORY`] bytes
/// are kept in memory; past that they are spilled to an unlinked temporary file, so that
/// memory does not grow with the stream. `len` reads to the end. A `limit` bounds how far
/// it will read at all, for inputs that may never end (`/dev/zero`): a range past it is
/// an error (`FileTooLarge`) after at most `limit` bytes were read.
#[derive(Debug)]
pub struct StreamSource<R> {
    state: Mutex<Stream<R>>,
    limit: u64,
    memory: u64,
}

#[derive(Debug)]
struct Stream<R> {
    reader: R,
    /// What was read, while it fits [`StreamSource::MEMORY`].
    buf: Vec<u8>,
    /// Everything read, once it outgrew memory.
    spill: Option<File>,
    /// How many bytes were read.
    read: u64,
    ended: bool,
}

impl<R: Read> StreamSource<R> {
    /// How many bytes of a stream are kept in memory before the rest is spilled to a
    /// temporary file (in [`std::env::temp_dir`]): 64 MiB.
    pub const MEMORY: u64 = 64 << 20;

    /// Reads from `reader`, at most `limit` bytes in all.
    pub fn new(reader: R, limit: u64) -> Self {
        StreamSource::with_memory(reader, limit, Self::MEMORY)
    }

    /// [`StreamSource::new`], keeping at most `memory` bytes in memory before spilling.
    pub fn with_memory(reader: R, limit: u64, memory: u64) -> Self {
        StreamSource {
            state: Mutex::new(Stream {
                reader,
                buf: Vec::new(),
                spill: None,
                read: 0,
                ended: false,
            }),
            limit,
            memory,
        }
    }

    /// Reads until `want` bytes are held or the stream ends.
    fn fill(&self, stream: &mut Stream<R>, want: u64) -> io::Result<()> {
        if want > self.limit {
            // Read up to the limit first: a stream that ends before it is fine.
            self.fill(stream, self.limit)?;
            if !stream.ended {
                return Err(io::Error::new(
                    io::ErrorKind::FileTooLarge,
                    std::format!(
                        "the input is longer than {} bytes, the limit for streams",
                        self.limit
                    ),
                ));
            }
            return Ok(());
        }
        let mut chunk = std::vec![0u8; 64 * 1024];
        while !stream.ended && stream.read < want {
            let room = usize::try_from(want - stream.read)
                .unwrap_or(usize::MAX)
                .min(chunk.len());
            let dst = chunk.get_mut(..room).unwrap_or(&mut []);
            match stream.reader.read(dst) {
                Ok(0) => stream.ended = true,
                Ok(n) => self.keep(stream, dst.get(..n).unwrap_or(&[]))?,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Keeps `bytes`, just read: in memory while it fits, in the spill file after.
    fn keep(&self, stream: &mut Stream<R>, bytes: &[u8]) -> io::Result<()> {
        let after = stream.read.saturating_add(len_u64(bytes));
        if stream.spill.is_none() && after > self.memory {
            let mut file = crate::output::anonymous_file()?;
            std::io::Write::write_all(&mut file, &stream.buf)?;
            stream.buf = Vec::new();
            stream.spill = Some(file);
        }
        match &mut stream.spill {
            Some(file) => std::io::Write::write_all(file, bytes)?,
            None => stream.buf.extend_from_slice(bytes),
        }
        stream.read = after;
        Ok(())
    }

    /// Copies `range` (within what was read) out of memory or the spill file.
    fn copy(stream: &Stream<R>, range: &Range<u64>) -> io::Result<Vec<u8>> {
        let r = bounds(range, stream.read)?;
        match &stream.spill {
            None => Ok(stream.buf.get(r).unwrap_or(&[]).to_vec()),
            Some(file) => {
                let mut buf = buffer(range, stream.read)?;
                read_exact_at(file, &mut buf, range.start)?;
                Ok(buf)
            }
        }
    }
}

impl<R: Read> ByteSource for StreamSource<R> {
    fn is_stream(&self) -> bool {
        true
    }
    fn len(&self) -> io::Result<u64> {
        let mut stream = self.state.lock().map_err(|_| poisoned())?;
        self.fill(&mut stream, u64::MAX)?;
        Ok(stream.read)
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        let mut stream = self.state.lock().map_err(|_| poisoned())?;
        self.fill(&mut stream, range.end)?;
        Ok(Cow::Owned(Self::copy(&stream, &range)?))
    }
    fn read_head(&self, max_len: u64) -> io::Result<Cow<'_, [u8]>> {
        let mut stream = self.state.lock().map_err(|_| poisoned())?;
        self.fill(&mut stream, max_len.min(self.limit))?;
        let end = max_len.min(stream.read);
        Ok(Cow::Owned(Self::copy(&stream, &(0..end))?))
    }
}

/// Requests and bytes that went through a [`Counting`] source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// Calls that reached the inner source (one per range of `read_ranges`).
    pub requests: u64,
    /// Bytes returned.
    pub bytes: u64,
}

/// A source that counts what its readers ask of the inner one: the plan a remote
/// reader would send, measured on any source.
#[derive(Debug)]
pub struct Counting<S> {
    inner: S,
    requests: AtomicU64,
    bytes: AtomicU64,
}

impl<S: ByteSource> Counting<S> {
    /// Counts reads of `inner`.
    pub fn new(inner: S) -> Self {
        Counting {
            inner,
            requests: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
        }
    }

    /// The counts so far.
    #[must_use]
    pub fn stats(&self) -> Stats {
        Stats {
            requests: self.requests.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
        }
    }

    /// The inner source.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    fn count(&self, requests: u64, bytes: u64) {
        self.requests.fetch_add(requests, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }
}

impl<S: ByteSource> ByteSource for Counting<S> {
    fn is_stream(&self) -> bool {
        self.inner.is_stream()
    }
    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        let out = self.inner.read_range(range)?;
        self.count(1, len_u64(&out));
        Ok(out)
    }
    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Cow<'_, [u8]>>> {
        let out = self.inner.read_ranges(ranges)?;
        self.count(
            to_u64(out.len()),
            out.iter().map(|b| len_u64(b)).sum::<u64>(),
        );
        Ok(out)
    }
    fn read_head(&self, max_len: u64) -> io::Result<Cow<'_, [u8]>> {
        let out = self.inner.read_head(max_len)?;
        self.count(1, len_u64(&out));
        Ok(out)
    }
    fn read_tail(&self, max_len: u64) -> io::Result<(u64, Cow<'_, [u8]>)> {
        let (at, out) = self.inner.read_tail(max_len)?;
        self.count(1, len_u64(&out));
        Ok((at, out))
    }
    fn start_ranges(&self, ranges: Vec<Range<u64>>) -> Option<Pending> {
        let bytes = ranges.iter().map(|r| r.end.saturating_sub(r.start)).sum();
        let n = to_u64(ranges.len());
        let pending = self.inner.start_ranges(ranges)?;
        self.count(n, bytes);
        Some(pending)
    }
    /// Counted as the ranges asked for (what was asked, not what the consumer took).
    fn stream_ranges(&self, ranges: Vec<Range<u64>>, budget: u64) -> Option<PartStream> {
        let bytes = ranges.iter().map(|r| r.end.saturating_sub(r.start)).sum();
        let n = to_u64(ranges.len());
        let parts = self.inner.stream_ranges(ranges, budget)?;
        self.count(n, bytes);
        Some(parts)
    }
    fn streams(&self) -> bool {
        self.inner.streams()
    }
    fn read_ahead_pays(&self) -> bool {
        self.inner.read_ahead_pays()
    }
    // Deliberately no `as_slice`: a counted source must go through the counted methods.
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scratch::Scratch;

    #[test]
    fn file_source_reads_ranges_and_reports_truncation() {
        let dir = Scratch::new("core-source-file");
        let path = dir.file("f.bin", b"hello world");
        let src = FileSource::open(&path).unwrap();
        assert_eq!(&*src.read_range(6..11).unwrap(), b"world");
        assert_eq!(
            src.read_range(6..12).unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
        // Truncated under us: an error, not a signal.
        std::fs::write(&path, b"hi").unwrap();
        let e = src.read_range(6..11).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn stream_source_reads_only_what_is_asked() {
        let src = StreamSource::new(io::repeat(0), 1 << 20);
        assert_eq!(src.read_head(64).unwrap().len(), 64);
        assert_eq!(src.read_range(10..20).unwrap().len(), 10);
        // An endless stream hits the limit instead of filling memory.
        assert_eq!(src.len().unwrap_err().kind(), io::ErrorKind::FileTooLarge);
        let short = StreamSource::new(&b"abc"[..], 1 << 20);
        assert_eq!(&*short.read_head(64).unwrap(), b"abc");
        assert_eq!(short.len().unwrap(), 3);
        let (at, tail) = short.read_tail(2).unwrap();
        assert_eq!((at, &*tail), (1, &b"bc"[..]));
    }

    #[test]
    fn stream_source_spills_past_its_memory() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let src = StreamSource::with_memory(&data[..], 1 << 20, 1000);
        assert_eq!(&*src.read_range(10..20).unwrap(), &data[10..20]);
        assert_eq!(&*src.read_range(900..5000).unwrap(), &data[900..5000]);
        assert_eq!(src.len().unwrap(), 10_000);
        assert_eq!(&*src.read_head(u64::MAX).unwrap(), &data[..]);
        let (at, tail) = src.read_tail(7).unwrap();
        assert_eq!((at, &*tail), (9993, &data[9993..]));
        // Memory holds nothing once spilled.
        assert!(src.state.lock().unwrap().buf.capacity() == 0);
    }

    #[test]
    fn file_source_refuses_a_range_it_cannot_hold() {
        let dir = Scratch::new("core-source-sparse");
        let path = dir.join("sparse.bin");
        let file = File::create(&path).unwrap();
        // 4 TiB of hole: valid, and no machine holds it in memory.
        if file.set_len(4 << 40).is_ok() {
            let src = FileSource::open(&path).unwrap();
            let e = src.read_range(0..4 << 40).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::OutOfMemory);
        }
    }

    #[test]
    fn seek_source_and_past_end() {
        let src = SeekSource::new(io::Cursor::new(b"abcdef".to_vec()));
        assert_eq!(&*src.read_range(1..3).unwrap(), b"bc");
        let e = src.read_range(4..9).unwrap_err();
        let past = e.get_ref().unwrap().downcast_ref::<PastEnd>().unwrap();
        assert_eq!(past.len, 6);
    }
}
