//! [`RemoteSource`]: a [`ByteSource`] over an object store.

use core::fmt;
use core::ops::Range;
use core::sync::atomic::{AtomicU64, Ordering};
use core::time::Duration;
use std::borrow::Cow;
use std::collections::TryReserveError;
use std::io;
use std::string::String;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::vec::Vec;

use binfmt_core::parts::{PartSender, PartStream, part_stream};
use binfmt_core::source::{ByteSource, past_end};
use futures_util::{StreamExt, TryStreamExt};
use object_store::path::Path;
use object_store::{GetOptions, GetRange, GetResult, GetResultPayload, ObjectMeta, ObjectStore};
use tokio::time::Instant;
use url::Url;

use crate::error::{Problem, RemoteError, classify, is_unsatisfiable, range_text};
use crate::options::{Options, SMALL_RANGE, deadline_for, human_bytes};
use crate::plan::plan;
use crate::rest::{Feed, Feeding, Job};
use crate::runtime::run;

/// Blocks fetched by `read_head`/`read_tail` are kept for later reads when at most this
/// long (1 MiB), so a source holds at most 2 MiB of them.
pub const CACHE_BLOCK_MAX: u64 = 1024 * 1024;

/// The largest range length asked of a server: `i64::MAX`, which every server parses.
const MAX_RANGE_END: u64 = i64::MAX as u64;

/// The most runs of adjacent ranges a stream reads, one GET after another
/// ([`ByteSource::stream_ranges`]); more are left to the cache's windows, which fetch
/// them concurrently.
const STREAM_RUNS: usize = 4;

/// What a [`RemoteSource`] has sent and received so far.
///
/// `requests` counts the requests this source made (GET and HEAD); object_store's
/// retries of a failed request are not counted (the server's log shows them). `bytes`
/// counts body bytes received.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Stats {
    /// Requests made (GET and HEAD).
    pub requests: u64,
    /// Of `requests`, the HEAD requests (to learn the length).
    pub head_requests: u64,
    /// Body bytes received.
    pub bytes: u64,
    /// Ranges served from the read-ahead blocks, with no request.
    pub cache_hits: u64,
    /// HTTP requests the store's client sent: `requests` plus object_store's retries
    /// (and credential requests: instance metadata, STS, OAuth tokens). What the server's
    /// log counts. 0 for `file://` and for [`RemoteSource::from_store`].
    pub http_requests: u64,
}

impl From<Stats> for binfmt_core::source::Stats {
    fn from(s: Stats) -> Self {
        binfmt_core::source::Stats {
            requests: s.requests,
            bytes: s.bytes,
        }
    }
}

/// The version of the object a [`RemoteSource`] reads, pinned by its first response.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Pinned {
    /// The object's length.
    pub len: u64,
    /// Its ETag, where the store sent one.
    pub e_tag: Option<String>,
    /// Its version (S3 version ID, GCS generation, Azure version), where the store has
    /// versions.
    pub version: Option<String>,
}

/// A [`ByteSource`] over an object in S3, GCS, Azure Blob Storage, on an HTTP(S) server,
/// or in a local file (`file://`), through object_store.
///
/// Every read is a blocking call that works from any thread; the requests run on a
/// tokio runtime shared by all sources of the process. The request policy (one ranged
/// GET per `read_head`/`read_tail`, concurrent merged GETs for `read_ranges`, a
/// read-ahead block at each end, a HEAD only when the length is asked before any
/// response) and the failure messages are in the crate documentation and
/// `docs/remote.md`.
///
/// The first response pins the object's version (ETag, version ID, length); every later
/// request asks for that version (`If-Match`), and a response of another version is an
/// error ([`Problem::Changed`]) rather than a mix of two versions.
pub struct RemoteSource {
    inner: Arc<Inner>,
    /// The rest of a whole-object response, until a stream takes it over
    /// ([`Options::with_whole_object`]).
    rest: Mutex<Option<Feeding>>,
}

struct Inner {
    shown: String,
    store: Arc<dyn ObjectStore>,
    path: Path,
    suffix_ranges: bool,
    timeout: Option<Duration>,
    deadline: Duration,
    min_rate: u64,
    gap: u64,
    read_ahead: u64,
    /// The first read asks for the whole object ([`Options::with_whole_object`]).
    whole: bool,
    /// The first read also asks for this many bytes at the end
    /// ([`Options::with_tail_ahead`]).
    tail_ahead: u64,
    concurrency: usize,
    /// In flight at once when every request of a call is small.
    small_concurrency: usize,
    if_match: bool,
    state: Mutex<State>,
    requests: AtomicU64,
    heads: AtomicU64,
    bytes: AtomicU64,
    hits: AtomicU64,
    http_requests: Arc<AtomicU64>,
}

#[derive(Default)]
struct State {
    pin: Option<ObjectMeta>,
    head: Option<Block>,
    tail: Option<Block>,
    /// The tail asked with the head ([`Options::with_tail_ahead`]), while it comes.
    tail_coming: Option<std::sync::mpsc::Receiver<Result<Fetched, Fail>>>,
}

struct Block {
    start: u64,
    data: Vec<u8>,
}

impl Block {
    fn get(&self, r: &Range<u64>) -> Option<&[u8]> {
        let from = usize::try_from(r.start.checked_sub(self.start)?).ok()?;
        let to = usize::try_from(r.end.checked_sub(self.start)?).ok()?;
        self.data.get(from..to)
    }
}

/// A local file is read in pieces of this size (`file://`).
const LOCAL_PIECE: u64 = 1 << 20;

/// The body of a response as a stream of buffers. A local file's (`file://`) is read in
/// pieces of [`LOCAL_PIECE`], each by one positioned read on a blocking thread, where
/// object_store's own stream reads 8 KiB per blocking task: the whole-object read of a
/// 51 MB file took 150 ms that way, 30 times what the same file takes by path.
fn body_of(
    res: GetResult,
) -> futures_util::stream::BoxStream<'static, object_store::Result<bytes::Bytes>> {
    match res.payload {
        GetResultPayload::File(file, path) => {
            let file = Arc::new(file);
            futures_util::stream::try_unfold(res.range, move |at| {
                let (file, path) = (Arc::clone(&file), path.clone());
                async move {
                    if at.start >= at.end {
                        return Ok(None);
                    }
                    let n = (at.end - at.start).min(LOCAL_PIECE);
                    let start = at.start;
                    // A file that ends sooner (it shrank) fails the read: a short body.
                    let piece = tokio::task::spawn_blocking(move || {
                        let mut piece = std::vec![0u8; usize::try_from(n).unwrap_or(0)];
                        binfmt_core::source::read_exact_at(&file, &mut piece, start).map(|()| piece)
                    })
                    .await
                    .unwrap_or_else(|e| Err(io::Error::other(e)))
                    .map_err(|e| object_store::Error::Generic {
                        store: "LocalFileSystem",
                        source: std::format!("{}: {e}", path.display()).into(),
                    })?;
                    Ok(Some((
                        bytes::Bytes::from(piece),
                        start.saturating_add(n)..at.end,
                    )))
                }
            })
            .boxed()
        }
        GetResultPayload::Stream(stream) => stream,
    }
}

/// One response.
struct Fetched {
    range: Range<u64>,
    /// The response's bytes, when it was received whole (no `split` asked).
    data: Vec<u8>,
    /// With a `split`: each asked range's bytes (as far as the response reached), in the
    /// order of the split.
    parts: Vec<Vec<u8>>,
    meta: ObjectMeta,
}

/// Copies the bytes of a response that arrived at `at` into the parts of `split` they
/// belong to (a byte in two overlapping ranges goes to both), each part growing with the
/// bytes that came and never past its range. `ahead` is what may still be reserved before
/// the bytes come (a part's first bytes reserve its range from it): the response's
/// parts together reserve at most [`RESERVED_AHEAD`] ahead, as a response received whole
/// does, however many ranges overlap. An error when the allocator refuses.
fn scatter(
    split: &[Range<u64>],
    parts: &mut [Vec<u8>],
    ahead: &mut usize,
    at: u64,
    bytes: &[u8],
) -> Result<(), TryReserveError> {
    let end = at.saturating_add(crate::bytes_len(bytes));
    for (r, part) in split.iter().zip(parts.iter_mut()) {
        let from = r.start.max(at);
        let to = r.end.min(end);
        if from >= to {
            continue;
        }
        let (Ok(a), Ok(b)) = (usize::try_from(from - at), usize::try_from(to - at)) else {
            continue;
        };
        let Some(piece) = bytes.get(a..b) else {
            continue;
        };
        let cap = usize::try_from(r.end - r.start).unwrap_or(usize::MAX);
        if part.capacity() == 0 {
            let reserve = cap.min(*ahead).max(piece.len());
            part.try_reserve_exact(reserve)?;
            *ahead = ahead.saturating_sub(reserve);
        }
        grow(part, piece.len(), cap)?;
        part.extend_from_slice(piece);
    }
    Ok(())
}

/// Where a GET's bytes go besides its [`Fetched`].
enum Emit<'a> {
    /// Nowhere: the response is returned whole, or in its `split`.
    No,
    /// Each range of the `split` as soon as it is whole (a stream).
    Parts(&'a PartSender),
    /// Every chunk, as it comes, cut into the ranges asked of a whole-object response
    /// ([`crate::rest`]).
    Feed(&'a mut Feed),
}

/// Why a GET gave no bytes.
enum Fail {
    /// The answer says nothing of the object's bytes, and an empty object would explain
    /// it: HTTP 416 (`None`), or a 200 to a range request (the error to report when the
    /// object is not empty after all): nginx, for one, ignores ranges of an empty file.
    NoBytes(Option<RemoteError>),
    /// Anything else.
    Error(RemoteError),
}

/// A response without bytes: [`Fail::NoBytes`] on the blocking side.
struct NoBytes(Option<RemoteError>);

impl From<RemoteError> for Fail {
    fn from(e: RemoteError) -> Self {
        Fail::Error(e)
    }
}

/// `fut`, unless `until` passes first (`None`).
async fn within<F: core::future::Future>(until: Option<Instant>, fut: F) -> Option<F::Output> {
    match until {
        Some(t) => tokio::time::timeout_at(t, fut).await.ok(),
        None => Some(fut.await),
    }
}

/// The most a response's buffer reserves before its bytes arrive: 32 MiB (a read-ahead
/// window), whatever length the server announced.
const RESERVED_AHEAD: usize = 32 << 20;

/// Makes room in `data` for `more` bytes, growing geometrically but never past `cap`
/// (the length the response announced), so the capacity stays within twice what came.
/// An error when the allocator refuses.
fn grow(data: &mut Vec<u8>, more: usize, cap: usize) -> Result<(), TryReserveError> {
    let need = data.len().saturating_add(more);
    if need <= data.capacity() {
        return Ok(());
    }
    let target = data
        .capacity()
        .saturating_mul(2)
        .max(need)
        .min(cap.max(need));
    data.try_reserve_exact(target.saturating_sub(data.len()))
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, String::from(what))
}

impl RemoteSource {
    /// Opens `url` with [`Options::from_env`]. No request is made until the first read.
    ///
    /// # Errors
    /// `InvalidInput` when the URL is not one of [`SCHEMES`](crate::SCHEMES), a
    /// `BINFMT_REMOTE_*` variable does not parse, or the store cannot be configured (a
    /// missing bucket, a bad option); the message names the URL.
    pub fn open(url: &str) -> io::Result<Self> {
        Self::open_with(url, &Options::from_env()?)
    }

    /// Opens `url` with `options`. No request is made until the first read.
    ///
    /// # Errors
    /// As [`open`](RemoteSource::open).
    pub fn open_with(url: &str, options: &Options) -> io::Result<Self> {
        let parsed = Url::parse(url).map_err(|e| {
            RemoteError::new(
                crate::error::one_line(url),
                Problem::Config(std::format!("not a URL ({e})")),
            )
        })?;
        let shown = crate::location::shown(&parsed);
        let built = crate::store::build(&parsed, options, &shown)?;
        let mut source = Self::new(
            shown,
            built.store,
            built.path,
            built.suffix_ranges,
            built.timeout,
            options,
        );
        if let Some(inner) = Arc::get_mut(&mut source.inner) {
            inner.http_requests = built.http_requests;
        }
        Ok(source)
    }

    /// Reads `path` of an object store that the caller built (an `InMemory` store in
    /// tests, a store shared with DataFusion, …); `url` names it in messages. Suffix
    /// ranges are assumed to work (all of object_store's stores but Azure have them).
    #[must_use]
    pub fn from_store(
        store: Arc<dyn ObjectStore>,
        path: Path,
        url: impl Into<String>,
        options: &Options,
    ) -> Self {
        Self::new(url.into(), store, path, true, options.timeout(), options)
    }

    fn new(
        shown: String,
        store: Arc<dyn ObjectStore>,
        path: Path,
        suffix_ranges: bool,
        timeout: Option<Duration>,
        options: &Options,
    ) -> Self {
        RemoteSource {
            inner: Arc::new(Inner {
                shown,
                store,
                path,
                suffix_ranges,
                timeout,
                deadline: options.deadline(),
                min_rate: options.min_rate(),
                gap: options.coalesce_gap(),
                read_ahead: options.read_ahead(),
                whole: options.whole_object(),
                tail_ahead: options.tail_ahead().min(CACHE_BLOCK_MAX),
                concurrency: options.concurrency(),
                small_concurrency: options.small_concurrency(),
                if_match: options.if_match(),
                state: Mutex::new(State::default()),
                requests: AtomicU64::new(0),
                heads: AtomicU64::new(0),
                bytes: AtomicU64::new(0),
                hits: AtomicU64::new(0),
                http_requests: Arc::new(AtomicU64::new(0)),
            }),
            rest: Mutex::new(None),
        }
    }

    /// The URL as messages show it (no credentials, no query string).
    #[must_use]
    pub fn url(&self) -> &str {
        &self.inner.shown
    }

    /// Requests and bytes so far; cheap, callable at any time from any thread.
    #[must_use]
    pub fn stats(&self) -> Stats {
        let i = &self.inner;
        Stats {
            requests: i.requests.load(Ordering::Relaxed),
            head_requests: i.heads.load(Ordering::Relaxed),
            bytes: i.bytes.load(Ordering::Relaxed),
            cache_hits: i.hits.load(Ordering::Relaxed),
            http_requests: i.http_requests.load(Ordering::Relaxed),
        }
    }

    /// Stops the rest of the first response of a whole-object source
    /// ([`Options::with_whole_object`]) now, for a caller that found it will not read the
    /// object whole after all (its connection is closed, which stops the transfer); a
    /// stream asked for later is a GET of its own. Nothing happens otherwise.
    ///
    /// ```no_run
    /// use binfmt_core::source::ByteSource;
    /// use binfmt_remote::{Options, RemoteSource};
    ///
    /// let options = Options::new().with_whole_object(true);
    /// let source = RemoteSource::open_with("https://example.org/data.bin", &options)?;
    /// let head = source.read_head(64 << 10)?;
    /// if !head.starts_with(b"blpk") {
    ///     source.release_rest();
    /// }
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn release_rest(&self) {
        drop(
            self.rest
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
    }

    /// The pinned version, once a response has come.
    #[must_use]
    pub fn pinned(&self) -> Option<Pinned> {
        self.inner.lock().pin.as_ref().map(|m| Pinned {
            len: m.size,
            e_tag: m.e_tag.clone(),
            version: m.version.clone(),
        })
    }

    fn block_on<T: Send + 'static>(
        &self,
        fut: impl core::future::Future<Output = Result<T, RemoteError>> + Send + 'static,
    ) -> io::Result<T> {
        run(fut)?.map_err(io::Error::from)
    }

    /// A GET, blocking; `Err(NoBytes)` as [`Fail::NoBytes`].
    fn get_blocking(&self, range: GetRange) -> io::Result<Result<Fetched, NoBytes>> {
        let inner = Arc::clone(&self.inner);
        let out = run(async move { inner.get(range, Vec::new(), Emit::No).await })?;
        match out {
            Ok(f) => Ok(Ok(f)),
            Err(Fail::NoBytes(e)) => Ok(Err(NoBytes(e))),
            Err(Fail::Error(e)) => Err(e.into()),
        }
    }

    /// The error for a response without bytes (`none`) to `range` of an object of `len`
    /// bytes, `len` > 0: a 416 for a range that should have been satisfiable, or the
    /// server's ignoring of ranges.
    fn no_bytes_error(&self, none: NoBytes, range: &Range<u64>, len: u64) -> io::Error {
        match none.0 {
            Some(e) => e.into(),
            None => RemoteError::new(
                self.inner.shown.clone(),
                Problem::WrongRange(std::format!(
                    "HTTP 416 for bytes {}..{} of an object of {len} bytes",
                    range.start,
                    range.end
                )),
            )
            .into(),
        }
    }

    /// The head read of a whole-object source: one GET of the whole object, whose first
    /// `fetch` bytes are the head (`max_len` of them returned) and whose rest is kept
    /// coming for the first stream ([`crate::rest`]). The GET has no `Range` header, so
    /// a server that ignores ranges serves it too, and an empty object is an empty head.
    /// `None`: a request that gave no bytes, for the ranged head read to tell why.
    fn head_and_rest(&self, max_len: u64, fetch: u64) -> io::Result<Option<Vec<u8>>> {
        let (jobs, queued) = std::sync::mpsc::channel();
        let (sender, mut head) = part_stream(fetch);
        let _ = jobs.send(Job::head(fetch, sender));
        let (no_bytes, no_bytes_in) = std::sync::mpsc::sync_channel(1);
        let inner = Arc::clone(&self.inner);
        crate::runtime::spawn(async move {
            let mut feed = Feed::new(queued);
            let got = inner
                .get(GetRange::Offset(0), Vec::new(), Emit::Feed(&mut feed))
                .await;
            let error = match got {
                Ok(_) => None,
                Err(Fail::Error(e)) => Some(io::Error::from(e)),
                // Sent before the head's stream ends (with `feed`): the head read then
                // asks a ranged GET, which tells an empty object from a server that
                // ignores ranges.
                Err(Fail::NoBytes(_)) => {
                    let _ = no_bytes.send(());
                    return;
                }
            };
            // What is left waits for the streams still to be asked: off the workers.
            drop(tokio::task::spawn_blocking(move || feed.finish(error)));
        })?;
        let mut data = match head.next() {
            Some(Ok(data)) => data,
            Some(Err(e)) => return Err(e),
            None => {
                return match no_bytes_in.try_recv() {
                    Ok(()) => Ok(None),
                    Err(_) => Err(io::Error::other("binfmt-remote: a request was dropped")),
                };
            }
        };
        self.inner.keep(true, 0, &data);
        let len = self.inner.known_len().unwrap_or(0);
        let at = crate::bytes_len(&data);
        if len > at {
            *self.rest.lock().unwrap_or_else(PoisonError::into_inner) =
                Some(Feeding::new(jobs, at, len));
        }
        data.truncate(usize::try_from(max_len).unwrap_or(usize::MAX));
        Ok(Some(data))
    }

    /// The tail asked with the head ([`Options::with_tail_ahead`]), started in the
    /// background: the first read only (`known`: the length is not known yet), and only
    /// where suffix ranges work (without them the length would take a request first).
    fn tail_ahead(
        &self,
        known: Option<u64>,
    ) -> Option<std::sync::mpsc::Receiver<Result<Fetched, Fail>>> {
        if self.inner.tail_ahead == 0 || known.is_some() || !self.inner.suffix_ranges {
            return None;
        }
        let (done, tail) = std::sync::mpsc::sync_channel(1);
        let inner = Arc::clone(&self.inner);
        let len = inner.tail_ahead;
        crate::runtime::spawn(async move {
            let _ = done.send(inner.get(GetRange::Suffix(len), Vec::new(), Emit::No).await);
        })
        .ok()?;
        Some(tail)
    }

    /// Waits for the tail asked with the head when `range` lies in it, and keeps it: the
    /// read is then served from it rather than asked again. A tail that failed is dropped
    /// (the read asks for its bytes itself, and reports what is wrong).
    fn tail_for(&self, range: &Range<u64>) {
        if self.inner.tail_ahead == 0 {
            return;
        }
        let coming = {
            let mut st = self.inner.lock();
            let from = st
                .pin
                .as_ref()
                .map(|m| m.size.saturating_sub(self.inner.tail_ahead));
            match from {
                Some(from) if range.start >= from && st.tail_coming.is_some() => {
                    st.tail_coming.take()
                }
                _ => None,
            }
        };
        if let Some(Ok(Ok(t))) = coming.map(|c| c.recv()) {
            self.inner.keep(false, t.range.start, &t.data);
        }
    }

    /// `ranges` read from the rest of a whole-object response, when it can serve them (in
    /// order, after what it was asked before: a parse that reads on past its head); `None`
    /// otherwise, or when the response broke (the caller's own GET then reports what is
    /// wrong). A read it cannot serve leaves it for the streams to come.
    fn read_from_rest(&self, ranges: &[Range<u64>]) -> Option<Vec<Vec<u8>>> {
        if ranges.is_empty() {
            return None;
        }
        let parts = {
            let mut slot = self.rest.lock().unwrap_or_else(PoisonError::into_inner);
            slot.as_mut()?.read(ranges.to_vec())?
        };
        let parts: Vec<Vec<u8>> = parts.collect::<io::Result<_>>().ok()?;
        (parts.len() == ranges.len()).then_some(parts)
    }

    /// Whether the rest of a whole-object response is there to read from.
    fn has_rest(&self) -> bool {
        self.rest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    fn hit(&self, range: &Range<u64>) -> Option<Vec<u8>> {
        self.tail_for(range);
        let found = self.inner.cached(range);
        if found.is_some() {
            self.inner.hits.fetch_add(1, Ordering::Relaxed);
        }
        found
    }
}

impl fmt::Debug for RemoteSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteSource")
            .field("url", &self.inner.shown)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is a few values that are always consistent; a panic elsewhere does
        // not make them wrong.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn known_len(&self) -> Option<u64> {
        self.lock().pin.as_ref().map(|m| m.size)
    }

    fn cached(&self, r: &Range<u64>) -> Option<Vec<u8>> {
        let st = self.lock();
        [&st.head, &st.tail]
            .into_iter()
            .flatten()
            .find_map(|b| b.get(r))
            .map(<[u8]>::to_vec)
    }

    fn keep(&self, at_head: bool, start: u64, data: &[u8]) {
        if crate::bytes_len(data) > CACHE_BLOCK_MAX || data.is_empty() {
            return;
        }
        let block = Some(Block {
            start,
            data: data.to_vec(),
        });
        let mut st = self.lock();
        if at_head {
            st.head = block;
        } else {
            st.tail = block;
        }
    }

    fn error(&self, e: &object_store::Error) -> RemoteError {
        let problem = classify(e, self.timeout);
        RemoteError::new(self.shown.clone(), problem).with_source(&e.to_string())
    }

    fn fail(&self, problem: Problem) -> RemoteError {
        RemoteError::new(self.shown.clone(), problem)
    }

    /// The conditions that pin later requests to the first response's version.
    fn conditions(&self) -> GetOptions {
        let mut o = GetOptions::default();
        let st = self.lock();
        if let Some(p) = &st.pin {
            match &p.e_tag {
                // A weak ETag never matches `If-Match` (strong comparison): compare it
                // ourselves instead.
                Some(t) if t.starts_with("W/") => {}
                Some(_) if !self.if_match => {}
                Some(t) => o.if_match = Some(t.clone()),
                None if !self.if_match => {}
                None if p.last_modified.timestamp() != 0 => {
                    o.if_unmodified_since = Some(p.last_modified);
                }
                None => {}
            }
            o.version.clone_from(&p.version);
        }
        o
    }

    /// Pins the version of the first response; checks every later one against it.
    fn pin_or_check(&self, meta: &ObjectMeta) -> Result<(), RemoteError> {
        let mut st = self.lock();
        let Some(p) = &st.pin else {
            st.pin = Some(meta.clone());
            return Ok(());
        };
        let changed = if p.size != meta.size {
            Some(std::format!("it was {} bytes, now {}", p.size, meta.size))
        } else if let (Some(a), Some(b)) = (&p.e_tag, &meta.e_tag)
            && a != b
        {
            Some(std::format!("ETag {a} became {b}"))
        } else if let (Some(a), Some(b)) = (&p.version, &meta.version)
            && a != b
        {
            Some(std::format!("version {a} became {b}"))
        } else if p.e_tag.is_none()
            && meta.e_tag.is_none()
            && p.last_modified.timestamp() != 0
            && meta.last_modified.timestamp() != 0
            && p.last_modified != meta.last_modified
        {
            Some(std::format!(
                "Last-Modified {} became {}",
                p.last_modified.to_rfc2822(),
                meta.last_modified.to_rfc2822()
            ))
        } else {
            None
        };
        drop(st);
        match changed {
            Some(c) => Err(self.fail(Problem::Changed(c))),
            None => Ok(()),
        }
    }

    /// When a request of `len` bytes that started at `started` must be complete; `None`
    /// when there is no deadline (a minimum rate of 0, or a deadline past the clock's
    /// range).
    fn deadline_at(&self, started: Instant, len: u64) -> Option<Instant> {
        deadline_for(self.deadline, self.min_rate, len).and_then(|d| started.checked_add(d))
    }

    /// The error for a request of `len` bytes past its deadline.
    fn past_deadline(&self, len: u64, range: Option<Range<u64>>, received: u64) -> RemoteError {
        let deadline = deadline_for(self.deadline, self.min_rate, len).unwrap_or(Duration::MAX);
        self.fail(Problem::Deadline {
            deadline,
            range,
            received,
        })
    }

    /// One ranged GET, reading at most the bytes asked for, within its deadline.
    ///
    /// With a `split` (ranges within the one asked for), the bytes go straight into one
    /// buffer per split range, as they arrive: a response that coalesces many ranges is
    /// copied once, not received whole and then copied apart (for a read-ahead window of
    /// 32 MiB, that second copy and the page faults of the whole buffer were a third of
    /// the time on loopback).
    async fn get(
        self: Arc<Self>,
        range: GetRange,
        split: Vec<Range<u64>>,
        mut emit: Emit<'_>,
    ) -> Result<Fetched, Fail> {
        let (asked_start, asked_len) = match &range {
            GetRange::Bounded(r) => (Some(r.start), r.end.saturating_sub(r.start)),
            GetRange::Suffix(n) => (None, *n),
            GetRange::Offset(o) => (Some(*o), u64::MAX),
        };
        let mut opts = self.conditions();
        // The whole object is asked without a `Range` header: a server that ignores ranges
        // (`python -m http.server`) then answers what was asked, and an empty object is a
        // 200 of no bytes, where `bytes=0-` gets a 416 and a HEAD after it.
        opts.range = match range {
            GetRange::Offset(0) => None,
            r => Some(r),
        };
        self.requests.fetch_add(1, Ordering::Relaxed);
        let started = Instant::now();
        // The headers within the deadline's fixed part (object_store's retries included).
        let headers_by = self.deadline_at(started, 0);
        let Some(answer) = within(headers_by, self.store.get_opts(&self.path, opts)).await else {
            return Err(self.past_deadline(0, None, 0).into());
        };
        let res = match answer {
            Ok(r) => r,
            Err(e) if is_unsatisfiable(&e) => return Err(Fail::NoBytes(None)),
            Err(e) => {
                let err = self.error(&e);
                return Err(if matches!(err.problem(), Problem::RangeIgnored) {
                    Fail::NoBytes(Some(err))
                } else {
                    Fail::Error(err)
                });
            }
        };
        let got = res.range.clone();
        let meta = res.meta.clone();
        // A response of another version is not read at all.
        self.pin_or_check(&meta)?;
        let want = got.end.saturating_sub(got.start);
        if want > asked_len || asked_start.is_some_and(|s| s != got.start) {
            return Err(self
                .fail(Problem::WrongRange(std::format!(
                    "asked for {asked_len} bytes at {}, got bytes {}..{}",
                    asked_start
                        .map_or_else(|| String::from("the end"), |s| std::format!("byte {s}")),
                    got.start,
                    got.end
                )))
                .into());
        }
        let cap = usize::try_from(want).map_err(|_| {
            self.fail(Problem::Other(std::format!(
                "a range of {want} bytes does not fit in memory"
            )))
        })?;
        // At most `RESERVED_AHEAD` bytes are reserved before they come (a range of that
        // size or less, as the cache's read-ahead windows and the listings ask for, is
        // then received without a reallocation and its copies); past that the buffer
        // grows with the bytes that came (never past the announced length): nothing
        // larger is sized by what the server announced, and a refused allocation is an
        // error, not an abort.
        let mut data = Vec::new();
        let mut parts: Vec<Vec<u8>> = split.iter().map(|_| Vec::new()).collect();
        let mut ahead = RESERVED_AHEAD;
        let mut received = 0usize;
        let mut emitted = 0usize;
        let fed = matches!(emit, Emit::Feed(_));
        if split.is_empty() && !fed && data.try_reserve_exact(cap.min(RESERVED_AHEAD)).is_err() {
            return Err(self
                .fail(Problem::Other(std::format!(
                    "cannot allocate memory for the {} of {}",
                    human_bytes(want),
                    range_text(&got)
                )))
                .into());
        }
        let body_by = self.deadline_at(started, want);
        let body = async {
            let mut stream = body_of(res);
            while let Some(chunk) = stream.next().await {
                match chunk {
                    Ok(c) => {
                        self.bytes
                            .fetch_add(crate::bytes_len(&c), Ordering::Relaxed);
                        if received.saturating_add(c.len()) > cap {
                            // Dropping the stream closes the connection: nothing more is
                            // read.
                            return Err(self.fail(Problem::LongBody { range: got.clone() }));
                        }
                        if let Emit::Feed(feed) = &mut emit {
                            // A whole-object response: cut here, and the chunk dropped
                            // before the next read, whose buffer it then frees. Only
                            // waiting for a reader leaves the worker (`block_in_place`
                            // hands its scheduler to another thread: dear per chunk).
                            received = received.saturating_add(c.len());
                            let fed = match feed.push_nowait(&c) {
                                Ok(n) if n == c.len() => Ok(()),
                                Ok(n) => tokio::task::block_in_place(|| {
                                    feed.push(c.get(n..).unwrap_or_default())
                                }),
                                Err(gone) => Err(gone),
                            };
                            if fed.is_err() {
                                return Err(self.fail(Problem::Other(String::from(
                                    "the reader stopped reading the stream",
                                ))));
                            }
                            continue;
                        }
                        let kept = if split.is_empty() {
                            grow(&mut data, c.len(), cap).map(|()| data.extend_from_slice(&c))
                        } else {
                            let at = got.start.saturating_add(crate::usize_u64(received));
                            scatter(&split, &mut parts, &mut ahead, at, &c)
                        };
                        kept.map_err(|_| {
                            self.fail(Problem::Other(std::format!(
                                "cannot allocate memory for {} of the {} of {}",
                                human_bytes(
                                    crate::usize_u64(received).saturating_add(crate::bytes_len(&c))
                                ),
                                human_bytes(want),
                                range_text(&got)
                            )))
                        })?;
                        received = received.saturating_add(c.len());
                        if let Emit::Parts(sender) = emit {
                            // Streamed: each range handed over as soon as it is whole.
                            while let (Some(r), Some(part)) =
                                (split.get(emitted), parts.get_mut(emitted))
                            {
                                if crate::usize_u64(part.len()) < r.end - r.start {
                                    break;
                                }
                                let whole = core::mem::take(part);
                                // Waits (off the runtime's workers) while the consumer
                                // holds its budget.
                                let sent = if sender.fits(crate::bytes_len(&whole)) {
                                    sender.send(Ok(whole))
                                } else {
                                    tokio::task::block_in_place(|| sender.send(Ok(whole)))
                                };
                                if sent.is_err() {
                                    return Err(self.fail(Problem::Other(String::from(
                                        "the reader stopped reading the stream",
                                    ))));
                                }
                                emitted += 1;
                            }
                        }
                    }
                    Err(e) => {
                        let problem = match classify(&e, self.timeout) {
                            p @ Problem::TimedOut { .. } => p,
                            _ => Problem::ShortBody {
                                range: got.clone(),
                                received: crate::usize_u64(received),
                            },
                        };
                        return Err(self.fail(problem).with_source(&e.to_string()));
                    }
                }
            }
            Ok(())
        };
        match within(body_by, body).await {
            Some(done) => done?,
            None => {
                return Err(self
                    .past_deadline(want, Some(got), crate::usize_u64(received))
                    .into());
            }
        }
        if received < cap {
            return Err(self
                .fail(Problem::ShortBody {
                    range: got,
                    received: crate::usize_u64(received),
                })
                .into());
        }
        Ok(Fetched {
            range: got,
            data,
            parts,
            meta,
        })
    }

    /// One HEAD (with the pinning conditions): the length.
    async fn head(self: Arc<Self>) -> Result<u64, RemoteError> {
        let mut opts = self.conditions();
        opts.head = true;
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.heads.fetch_add(1, Ordering::Relaxed);
        let by = self.deadline_at(Instant::now(), 0);
        let res = within(by, self.store.get_opts(&self.path, opts))
            .await
            .ok_or_else(|| self.past_deadline(0, None, 0))?
            .map_err(|e| self.error(&e))?;
        self.pin_or_check(&res.meta)?;
        Ok(res.meta.size)
    }
}

impl ByteSource for RemoteSource {
    fn len(&self) -> io::Result<u64> {
        if let Some(n) = self.inner.known_len() {
            return Ok(n);
        }
        let inner = Arc::clone(&self.inner);
        self.block_on(async move { inner.head().await })
    }

    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        if range.start > range.end {
            return Err(invalid("a range that ends before it starts"));
        }
        if range.is_empty() {
            let len = self.len()?;
            return if range.end <= len {
                Ok(Cow::Owned(Vec::new()))
            } else {
                Err(past_end(range, len))
            };
        }
        if let Some(len) = self.inner.known_len()
            && range.end > len
        {
            return Err(past_end(range, len));
        }
        if let Some(data) = self.hit(&range) {
            return Ok(Cow::Owned(data));
        }
        if let Some(mut parts) = self.read_from_rest(core::slice::from_ref(&range)) {
            return Ok(Cow::Owned(parts.pop().unwrap_or_default()));
        }
        match self.get_blocking(GetRange::Bounded(range.clone()))? {
            Ok(f) if f.range.end >= range.end => Ok(Cow::Owned(f.data)),
            Ok(f) => Err(past_end(range, f.meta.size)),
            Err(none) => {
                let len = self.len()?;
                if range.end > len {
                    Err(past_end(range, len))
                } else {
                    Err(self.no_bytes_error(none, &range, len))
                }
            }
        }
    }

    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Cow<'_, [u8]>>> {
        let mut out: Vec<Option<Vec<u8>>> = std::vec![None; ranges.len()];
        let known = self.inner.known_len();
        let mut pending = Vec::new();
        let mut empties = Vec::new();
        for (i, r) in ranges.iter().enumerate() {
            if r.start > r.end {
                return Err(invalid("a range that ends before it starts"));
            }
            if let Some(len) = known
                && r.end > len
            {
                return Err(past_end(r.clone(), len));
            }
            if r.is_empty() {
                empties.push(i);
            } else if let Some(data) = self.hit(r) {
                if let Some(slot) = out.get_mut(i) {
                    *slot = Some(data);
                }
            } else {
                pending.push((i, r.clone()));
            }
        }
        let from_rest = if pending.is_empty() || !self.has_rest() {
            None
        } else {
            let asked: Vec<Range<u64>> = pending.iter().map(|(_, r)| r.clone()).collect();
            self.read_from_rest(&asked)
        };
        if let Some(parts) = from_rest {
            for ((i, _), part) in pending.iter().zip(parts) {
                if let Some(slot) = out.get_mut(*i) {
                    *slot = Some(part);
                }
            }
            pending.clear();
        }
        let groups = plan(&pending, self.inner.gap);
        if !groups.is_empty() {
            let inner = Arc::clone(&self.inner);
            let spans: Vec<Range<u64>> = groups.iter().map(|g| g.span.clone()).collect();
            // Small ranges (a listing's per-item headers: Bloscpack chunk headers, TACO
            // local headers) cost a round trip each and almost no bytes: more of them go
            // at once, so a listing of 64 items is one round trip, not eight. Memory in
            // flight stays bounded (64 × 64 KiB at most).
            let small = spans.iter().all(|s| s.end - s.start <= SMALL_RANGE);
            let concurrency = if small {
                inner.small_concurrency
            } else {
                inner.concurrency
            };
            // A group of one range is received as it is; a coalesced group straight into
            // its ranges' buffers.
            let splits: Vec<Vec<Range<u64>>> = groups
                .iter()
                .map(|g| match g.members[..] {
                    [i] if ranges.get(i) == Some(&g.span) => Vec::new(),
                    _ => g
                        .members
                        .iter()
                        .filter_map(|&i| ranges.get(i).cloned())
                        .collect(),
                })
                .collect();
            let requests = spans.into_iter().zip(splits).enumerate();
            let fetched = run(async move {
                futures_util::stream::iter(requests.map(|(gi, (span, split))| {
                    let inner = Arc::clone(&inner);
                    async move {
                        match inner.get(GetRange::Bounded(span), split, Emit::No).await {
                            Ok(f) => Ok((gi, Ok(f))),
                            Err(Fail::NoBytes(e)) => Ok((gi, Err(NoBytes(e)))),
                            Err(Fail::Error(e)) => Err(e),
                        }
                    }
                }))
                .buffer_unordered(concurrency)
                .try_collect::<Vec<_>>()
                .await
            })?
            .map_err(io::Error::from)?;
            // Errors are reported for the first range, in the caller's order, that has one.
            let mut first_past: Option<(usize, io::Error)> = None;
            let mut no_bytes: Option<(usize, NoBytes)> = None;
            for (gi, f) in fetched {
                let Some(group) = groups.get(gi) else {
                    continue;
                };
                let f = match f {
                    Ok(f) => f,
                    Err(none) => {
                        if let Some(&i) = group.members.iter().min()
                            && no_bytes.as_ref().is_none_or(|(j, _)| i < *j)
                        {
                            no_bytes = Some((i, none));
                        }
                        continue;
                    }
                };
                // A range fetched alone is handed over as it came; the ranges of a
                // coalesced group were received into their own buffers.
                let Fetched {
                    range: got,
                    data,
                    parts,
                    meta,
                } = f;
                let mut parts = if parts.is_empty() {
                    std::vec![data]
                } else {
                    parts
                }
                .into_iter();
                for &i in &group.members {
                    let part = parts.next();
                    let Some(r) = ranges.get(i) else { continue };
                    if r.end > got.end {
                        if first_past.as_ref().is_none_or(|(j, _)| i < *j) {
                            first_past = Some((i, past_end(r.clone(), meta.size)));
                        }
                        continue;
                    }
                    if let (Some(slot), Some(part)) = (out.get_mut(i), part) {
                        *slot = Some(part);
                    }
                }
            }
            match (first_past, no_bytes) {
                (Some((i, e)), Some((j, _))) if i < j => return Err(e),
                (Some((_, e)), None) => return Err(e),
                (_, Some((j, none))) => {
                    let r = ranges.get(j).cloned().unwrap_or_default();
                    let len = self.len()?;
                    return Err(if r.end > len {
                        past_end(r, len)
                    } else {
                        self.no_bytes_error(none, &r, len)
                    });
                }
                (None, None) => {}
            }
        }
        if !empties.is_empty() {
            let len = self.len()?;
            for i in empties {
                let Some(r) = ranges.get(i) else { continue };
                if r.end > len {
                    return Err(past_end(r.clone(), len));
                }
                if let Some(slot) = out.get_mut(i) {
                    *slot = Some(Vec::new());
                }
            }
        }
        out.into_iter()
            .map(|o| {
                o.map(Cow::Owned)
                    .ok_or_else(|| io::Error::other("binfmt-remote: a range was not served"))
            })
            .collect()
    }

    /// On a thread of its own that makes the same requests as
    /// [`read_ranges`](ByteSource::read_ranges) (on the shared runtime, counted in the
    /// same statistics, pinned to the same version).
    fn start_ranges(&self, ranges: Vec<Range<u64>>) -> Option<binfmt_core::source::Pending> {
        let twin = RemoteSource {
            inner: Arc::clone(&self.inner),
            rest: Mutex::new(None),
        };
        binfmt_core::source::Pending::spawn(move || {
            let parts = twin.read_ranges(&ranges)?;
            Ok(parts.into_iter().map(Cow::into_owned).collect())
        })
    }

    /// One GET per run of adjacent ranges (a Bloscpack file's chunks are one run: one
    /// round trip for all of them), received on the shared runtime and handed over range
    /// by range. Ranges scattered over the object (more than four runs) are
    /// not streamed: the cache's windows fetch those concurrently.
    fn stream_ranges(&self, ranges: Vec<Range<u64>>, budget: u64) -> Option<PartStream> {
        // The rest of a whole-object response serves the first stream that it can; one
        // it cannot is dropped, which stops it.
        {
            let mut slot = self.rest.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(mut feeding) = slot.take()
                && let Some(parts) = feeding.queue(ranges.clone(), budget)
            {
                *slot = Some(feeding);
                return Some(parts);
            }
        }
        let mut runs: Vec<(Range<u64>, Vec<Range<u64>>)> = Vec::new();
        for r in ranges {
            if r.is_empty() {
                return None;
            }
            match runs.last_mut() {
                Some((span, members))
                    if r.start >= span.end && r.start - span.end < self.inner.gap.max(1) =>
                {
                    span.end = r.end;
                    members.push(r);
                }
                Some((span, _)) if r.start < span.end => return None,
                _ => runs.push((r.clone(), std::vec![r])),
            }
            if runs.len() > STREAM_RUNS {
                return None;
            }
        }
        let (sender, parts) = part_stream(budget);
        let inner = Arc::clone(&self.inner);
        crate::runtime::spawn(async move {
            for (span, members) in runs {
                let got = Arc::clone(&inner)
                    .get(
                        GetRange::Bounded(span.clone()),
                        members,
                        Emit::Parts(&sender),
                    )
                    .await;
                // A response that ends early (the object is shorter) leaves the ranges
                // past its end unsent: the stream ends there, with the error a read of
                // them gives.
                if let Ok(f) = &got
                    && f.range.end < span.end
                {
                    let _ = sender.send(Err(past_end(f.range.end..span.end, f.meta.size)));
                    return;
                }
                if let Err(e) = got {
                    let e = match e {
                        Fail::Error(e) => io::Error::from(e),
                        Fail::NoBytes(_) => {
                            io::Error::other(std::format!("no bytes for {}", range_text(&span)))
                        }
                    };
                    let _ = sender.send(Err(e));
                    return;
                }
            }
        })
        .ok()?;
        Some(parts)
    }

    fn streams(&self) -> bool {
        true
    }

    fn read_head(&self, max_len: u64) -> io::Result<Cow<'_, [u8]>> {
        if max_len == 0 {
            return Ok(Cow::Owned(Vec::new()));
        }
        let known = self.inner.known_len();
        let want = known.map_or(max_len, |len| max_len.min(len));
        if want == 0 {
            return Ok(Cow::Owned(Vec::new()));
        }
        if let Some(data) = self.hit(&(0..want)) {
            return Ok(Cow::Owned(data));
        }
        // Servers parse range ends as signed 64-bit numbers (nginx answers 416 past
        // that): "the whole object" (`u64::MAX`) is asked as its largest form.
        let mut fetch = max_len.max(self.inner.read_ahead).min(MAX_RANGE_END);
        if let Some(len) = known {
            fetch = fetch.min(len);
        }
        if self.inner.whole
            && known.is_none()
            && let Some(head) = self.head_and_rest(max_len, fetch)?
        {
            return Ok(Cow::Owned(head));
        }
        let tail = self.tail_ahead(known);
        match self.get_blocking(GetRange::Bounded(0..fetch))? {
            Ok(f) => {
                self.inner.keep(true, 0, &f.data);
                // Not waited for here: a read that wants bytes at the end waits for it
                // (`hit`), others go on.
                self.inner.lock().tail_coming = tail;
                let n = usize::try_from(max_len)
                    .unwrap_or(usize::MAX)
                    .min(f.data.len());
                let mut data = f.data;
                data.truncate(n);
                Ok(Cow::Owned(data))
            }
            Err(none) => {
                let len = self.len()?;
                if len == 0 {
                    Ok(Cow::Owned(Vec::new()))
                } else {
                    Err(self.no_bytes_error(none, &(0..fetch), len))
                }
            }
        }
    }

    fn read_tail(&self, max_len: u64) -> io::Result<(u64, Cow<'_, [u8]>)> {
        if max_len == 0 {
            let len = self.len()?;
            return Ok((len, Cow::Owned(Vec::new())));
        }
        if let Some(len) = self.inner.known_len() {
            let start = len.saturating_sub(max_len);
            if start == len {
                return Ok((len, Cow::Owned(Vec::new())));
            }
            if let Some(data) = self.hit(&(start..len)) {
                return Ok((start, Cow::Owned(data)));
            }
        }
        let fetch = max_len.max(self.inner.read_ahead).min(MAX_RANGE_END);
        let got = if self.inner.suffix_ranges {
            self.get_blocking(GetRange::Suffix(fetch))?
        } else {
            // Azure has no suffix ranges: learn the length first.
            let len = self.len()?;
            if len == 0 {
                return Ok((0, Cow::Owned(Vec::new())));
            }
            self.get_blocking(GetRange::Bounded(len.saturating_sub(fetch)..len))?
        };
        match got {
            Ok(f) => {
                self.inner.keep(false, f.range.start, &f.data);
                let size = f.range.end;
                let n = max_len.min(crate::bytes_len(&f.data));
                let skip =
                    usize::try_from(crate::bytes_len(&f.data).saturating_sub(n)).unwrap_or(0);
                let mut data = f.data;
                data.drain(..skip);
                Ok((size.saturating_sub(n), Cow::Owned(data)))
            }
            Err(none) => {
                let len = self.len()?;
                if len == 0 {
                    Ok((0, Cow::Owned(Vec::new())))
                } else {
                    Err(self.no_bytes_error(none, &(len.saturating_sub(fetch)..len), len))
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::cast_possible_truncation)]
mod tests {
    use super::scatter;

    #[test]
    fn a_response_is_scattered_into_its_ranges_whatever_its_pieces() {
        let body: Vec<u8> = (0..=255).collect();
        // Ranges of a response at 100: apart, adjacent, overlapping, one inside another.
        let split = [100..110, 110..120, 115..140, 200..356, 250..260];
        // With room to reserve ahead, and with none (every part grows with its bytes).
        for (piece, room) in [1, 3, 7, 64, 256]
            .into_iter()
            .flat_map(|p| [(p, 1 << 10), (p, 0)])
        {
            let mut parts = vec![Vec::new(); split.len()];
            let mut ahead = room;
            for (n, chunk) in body.chunks(piece).enumerate() {
                scatter(
                    &split,
                    &mut parts,
                    &mut ahead,
                    100 + (n * piece) as u64,
                    chunk,
                )
                .unwrap();
            }
            for (r, part) in split.iter().zip(&parts) {
                let want = &body[(r.start - 100) as usize..(r.end - 100) as usize];
                assert_eq!(part, want, "range {r:?}, pieces of {piece}");
                assert!(part.capacity() <= want.len().max(1) * 2);
            }
        }
    }
}
