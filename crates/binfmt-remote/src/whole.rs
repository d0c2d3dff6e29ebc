//! The whole object as a [`Read`]: one GET without a `Range` header, read in order.
//!
//! For a server that ignores ranges (`python -m http.server`, some application servers),
//! where ranged reads are refused ([`Problem::RangeIgnored`]): a caller that still wants
//! the object wraps this in a stream source (`binfmt_core::source::StreamSource`), which
//! reads only as far as it is asked and spills to a temporary file past its memory, as
//! for standard input. The bytes come through the same whole-object response as
//! [`Options::with_whole_object`]'s (one copy, buffers given back, at most a few MiB held
//! ahead of the reader; past that TCP's flow control holds the rest at the server).
//!
//! [`Problem::RangeIgnored`]: crate::Problem::RangeIgnored

use core::ops::Range;
use core::sync::atomic::{AtomicBool, Ordering};
use std::borrow::Cow;
use std::boxed::Box;
use std::io::{self, Read};
use std::string::String;
use std::sync::{Arc, OnceLock};
use std::vec::Vec;

use binfmt_core::parts::PartStream;
use binfmt_core::source::{ByteSource, StreamSource};

use crate::{Options, Problem, RemoteSource, Stats};

/// The size of the pieces the response is cut into (1 MiB).
const PIECE: u64 = 1 << 20;

/// Pieces asked per stream: the ranges of a stream are a list, so the object's length (a
/// figure the server claims) never sizes one; each stream asks for the next 16 MiB.
const PIECES: u64 = 16;

/// What a stream holds received and not yet read (4 MiB).
const BUDGET: u64 = 4 << 20;

/// The whole object at a URL, read in order with one GET.
///
/// # Examples
///
/// ```no_run
/// use std::io::Read;
/// use binfmt_remote::{Options, WholeObject};
///
/// let mut object = WholeObject::open("http://127.0.0.1:8000/data.kas", &Options::new())?;
/// let mut first = [0u8; 8];
/// object.read_exact(&mut first)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct WholeObject {
    source: Arc<RemoteSource>,
    /// The object's length, as its response announced it.
    len: u64,
    /// Where the next stream starts.
    asked: u64,
    parts: Option<PartStream>,
    /// The piece being read, and how much of it was.
    piece: Vec<u8>,
    at: usize,
}

impl WholeObject {
    /// Opens `url` and asks for the whole object: its first bytes (or the failure, one
    /// line naming the URL) are in when this returns.
    ///
    /// # Errors
    /// As [`RemoteSource::open_with`] and its first read.
    pub fn open(url: &str, options: &Options) -> io::Result<WholeObject> {
        let options = options.clone().with_whole_object(true).with_tail_ahead(0);
        let source = Arc::new(RemoteSource::open_with(url, &options)?);
        let piece = source.read_head(PIECE)?.into_owned();
        let len = source.len()?;
        Ok(WholeObject {
            source,
            len,
            asked: crate::bytes_len(&piece),
            parts: None,
            piece,
            at: 0,
        })
    }

    /// The source the bytes come through, for its [`RemoteSource::stats`].
    #[must_use]
    pub fn source(&self) -> &Arc<RemoteSource> {
        &self.source
    }

    /// The next piece: `None` at the end of the object.
    fn next_piece(&mut self) -> io::Result<Option<Vec<u8>>> {
        loop {
            if let Some(parts) = &mut self.parts {
                match parts.next() {
                    Some(piece) => return piece.map(Some),
                    None => self.parts = None,
                }
            }
            if self.asked >= self.len {
                return Ok(None);
            }
            let mut ranges: Vec<Range<u64>> = Vec::new();
            let mut at = self.asked;
            while at < self.len && crate::usize_u64(ranges.len()) < PIECES {
                let end = at.saturating_add(PIECE).min(self.len);
                ranges.push(at..end);
                at = end;
            }
            self.asked = at;
            let parts = self.source.stream_ranges(ranges, BUDGET).ok_or_else(|| {
                io::Error::other(std::format!(
                    "{}: the rest of the object could not be streamed",
                    self.source.url()
                ))
            })?;
            self.parts = Some(parts);
        }
    }
}

impl Read for WholeObject {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at >= self.piece.len() {
            match self.next_piece()? {
                Some(piece) => {
                    let done = core::mem::replace(&mut self.piece, piece);
                    if let Some(parts) = &self.parts {
                        parts.recycle(done);
                    }
                    self.at = 0;
                }
                None => return Ok(0),
            }
        }
        let left = self.piece.get(self.at..).unwrap_or_default();
        let n = left.len().min(buf.len());
        if let (Some(dst), Some(src)) = (buf.get_mut(..n), left.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.at += n;
        Ok(n)
    }
}

/// A URL read by range or, when its server ignores ranges ([`Problem::RangeIgnored`]), in
/// order as a stream: the ranged source's reads until one is refused for that reason,
/// then a [`WholeObject`] under a [`StreamSource`] (in memory up to
/// [`StreamSource::MEMORY`], spilled to an unlinked temporary file past that, `limit`
/// bytes at most), which serves that read and every later one. A read of bytes near the
/// end then reads every byte before them, so callers say when it happened
/// ([`StreamFallback::streamed`]).
///
/// # Examples
///
/// ```no_run
/// use std::sync::Arc;
/// use binfmt_core::source::ByteSource;
/// use binfmt_remote::{Options, RemoteSource, StreamFallback};
///
/// let url = "http://127.0.0.1:8000/data.kas";
/// let options = Options::from_env()?;
/// let ranged = Arc::new(RemoteSource::open_with(url, &options)?);
/// let source = StreamFallback::new(ranged, url, &options, 16 << 30)
///     .with_notice(|shown| eprintln!("{shown}: the server ignores ranges; read in order"));
/// let head = source.read_head(65536)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct StreamFallback {
    ranged: Arc<RemoteSource>,
    /// The URL as given (credentials included): to open the stream with. Never shown.
    url: String,
    options: Options,
    limit: u64,
    /// The stream, and the source its bytes come through (for [`StreamFallback::stats`]).
    stream: OnceLock<Box<(StreamSource<WholeObject>, Arc<RemoteSource>)>>,
    /// A ranged read succeeded: the server honours ranges, and the ranged source's own
    /// plans (`start_ranges`, `stream_ranges`) may be used.
    ranges_work: AtomicBool,
    /// Called once, with the URL as shown, when the stream is made.
    notice: Option<Notice>,
}

/// What [`StreamFallback::with_notice`] calls.
type Notice = Box<dyn Fn(&str) + Send + Sync>;

impl StreamFallback {
    /// `ranged`, opened from `url` with `options`, falling back to a stream of at most
    /// `limit` bytes.
    #[must_use]
    pub fn new(ranged: Arc<RemoteSource>, url: &str, options: &Options, limit: u64) -> Self {
        StreamFallback {
            ranged,
            url: String::from(url),
            options: options.clone(),
            limit,
            stream: OnceLock::new(),
            ranges_work: AtomicBool::new(false),
            notice: None,
        }
    }

    /// Calls `notice` once, with the URL as shown in messages (no credentials, no query),
    /// when the server is found to ignore ranges and the stream is made: a command line
    /// says so, since the reads that follow read every byte before the ones they want.
    #[must_use]
    pub fn with_notice(mut self, notice: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.notice = Some(Box::new(notice));
        self
    }

    /// True once the server was found to ignore ranges and the object is read as a stream.
    #[must_use]
    pub fn streamed(&self) -> bool {
        self.stream.get().is_some()
    }

    /// What was asked of the server, by the ranged source and the stream together.
    #[must_use]
    pub fn stats(&self) -> Stats {
        let mut stats = self.ranged.stats();
        if let Some((_, source)) = self.stream.get().map(|b| &**b) {
            let more = source.stats();
            stats.requests += more.requests;
            stats.head_requests += more.head_requests;
            stats.bytes += more.bytes;
            stats.cache_hits += more.cache_hits;
            stats.http_requests += more.http_requests;
        }
        stats
    }

    /// `read` from the ranged source, or from the stream once there is one; a read the
    /// server refuses because it ignores ranges opens the stream and is read from it.
    fn read<'s, T>(&'s self, read: impl Fn(&'s dyn ByteSource) -> io::Result<T>) -> io::Result<T> {
        if let Some((stream, _)) = self.stream.get().map(|b| &**b) {
            return read(stream);
        }
        match read(&*self.ranged) {
            Err(e) if ignores_ranges(&e) => {
                let (stream, _) = match self.stream.get().map(|b| &**b) {
                    Some(made) => made,
                    None => {
                        let object = WholeObject::open(&self.url, &self.options)?;
                        let source = Arc::clone(object.source());
                        let made = Box::new((StreamSource::new(object, self.limit), source));
                        // Two threads may fail at once: the first stream made is kept,
                        // and only its making is told.
                        let mut kept = false;
                        let made = self.stream.get_or_init(|| {
                            kept = true;
                            made
                        });
                        if kept && let Some(notice) = &self.notice {
                            notice(self.ranged.url());
                        }
                        &**made
                    }
                };
                read(stream)
            }
            Ok(v) => {
                self.ranges_work.store(true, Ordering::Relaxed);
                Ok(v)
            }
            Err(e) => Err(e),
        }
    }
}

fn ignores_ranges(e: &io::Error) -> bool {
    crate::RemoteError::from_io(e).is_some_and(|r| matches!(r.problem(), Problem::RangeIgnored))
}

impl core::fmt::Debug for StreamFallback {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StreamFallback")
            .field("ranged", &self.ranged)
            .field("streamed", &self.streamed())
            .finish_non_exhaustive()
    }
}

impl ByteSource for StreamFallback {
    fn len(&self) -> io::Result<u64> {
        // The ranged source knows it (the HEAD that told a server ignoring ranges from an
        // empty object); a stream would read to its end to learn it.
        self.ranged.len()
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        self.read(|s| s.read_range(range.clone()))
    }
    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Cow<'_, [u8]>>> {
        self.read(|s| s.read_ranges(ranges))
    }
    fn read_head(&self, max_len: u64) -> io::Result<Cow<'_, [u8]>> {
        self.read(|s| s.read_head(max_len))
    }
    fn read_tail(&self, max_len: u64) -> io::Result<(u64, Cow<'_, [u8]>)> {
        self.read(|s| s.read_tail(max_len))
    }
    fn is_stream(&self) -> bool {
        self.streamed()
    }
    fn start_ranges(&self, ranges: Vec<Range<u64>>) -> Option<binfmt_core::source::Pending> {
        self.ranges_work
            .load(Ordering::Relaxed)
            .then(|| self.ranged.start_ranges(ranges))
            .flatten()
    }
    fn stream_ranges(&self, ranges: Vec<Range<u64>>, budget: u64) -> Option<PartStream> {
        self.ranges_work
            .load(Ordering::Relaxed)
            .then(|| self.ranged.stream_ranges(ranges, budget))
            .flatten()
    }
    fn streams(&self) -> bool {
        self.ranges_work.load(Ordering::Relaxed) && self.ranged.streams()
    }
    fn read_ahead_pays(&self) -> bool {
        !self.streamed() && self.ranged.read_ahead_pays()
    }
}
