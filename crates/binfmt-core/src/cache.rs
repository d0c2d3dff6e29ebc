//! [`ReadCache`]: any [`ByteSource`] as [`Data`], for views that read by range.
//!
//! After gimli-rs/object's `ReadCache`: the ranges a view reads are fetched once and kept
//! in an append-only arena, so the view can hand out `&'d [u8]` and zerocopy structs that
//! borrow from the cache exactly as they borrow from a slice. The arena is
//! [`elsa::sync::FrozenVec`] (boxed buffers that never move or go away while the cache lives),
//! so no `unsafe` is needed here.
//!
//! Reads are planned, not issued one by one:
//! - [`Data::hint`] queues ranges the view will need next; the next read that misses the
//!   arena fetches them together with it in one [`ByteSource::read_ranges`] call, sorted
//!   and merged where the gap between two is at most [`ReadCache::gap`] (a remote source
//!   runs the batch concurrently, in one dependent round trip);
//! - bytes already at hand (an input's first bytes, read for format detection) are given
//!   with [`ReadCache::with_head`] and never read again;
//! - bulk payloads ([`Data::payload`]) are read into buffers the caller owns and are not
//!   kept.
//!
//! Memory is bounded: the arena refuses to hold more than [`ReadCache::limit`] bytes (an
//! error, never an abort), and nothing is allocated before the bytes are in hand.
//!
//! ```
//! use binfmt_core::cache::ReadCache;
//! use binfmt_core::data::Data;
//! use binfmt_core::source::Counting;
//!
//! let file = (0..=255u8).collect::<Vec<u8>>();
//! let source = Counting::new(&file[..]);
//! let cache = ReadCache::new(&source);
//! let data = &cache;
//! data.hint(&[100..110, 120..130])?;
//! assert_eq!(data.bytes(100, 4, "a")?, &[100, 101, 102, 103]); // one batch: hints and this read
//! assert_eq!(data.bytes(125, 2, "b")?, &[125, 126]);            // already held
//! assert_eq!(source.stats().requests, 1);
//! # Ok::<(), binfmt_core::source::SourceError>(())
//! ```

use core::ops::Range;
use core::sync::atomic::{AtomicU64, Ordering};
use std::borrow::Cow;
use std::boxed::Box;
use std::io;
use std::sync::Mutex;
use std::vec::Vec;

use elsa::sync::FrozenVec;

use crate::bytes::len_u64;
use crate::data::Data;
use crate::error::Error;
use crate::parts::PartStream;
use crate::source::{ByteSource, Pending, SourceError, from_io};

/// How many payload bytes a [`ReadCache`] reads ahead at once for
/// [`Data::prefetch`]: 16 MiB (for a remote source, one request of at most 16 MiB). While
/// one window is handed out, the next [`PREFETCH_DEPTH`] are read in the background where
/// the source can ([`ByteSource::start_ranges`]): at most 64 MiB are held.
pub const PREFETCH_WINDOW: u64 = 16 << 20;

/// How many windows of [`PREFETCH_WINDOW`] bytes are read in the background at once. Over
/// a link with a long round trip, one window in flight moves one window per round trip;
/// three keep three in flight, for the same memory as two windows of twice the size
/// (measured at 80 ms RTT: see docs/performance.md).
pub const PREFETCH_DEPTH: usize = 3;

/// The most bytes a stream of announced payloads ([`ByteSource::stream_ranges`]) holds
/// received and not yet handed out: 16 MiB. The transport's flow control holds the rest.
pub const STREAM_BUDGET: u64 = 16 << 20;

/// Payload ranges announced for reading ahead ([`Data::prefetch`]).
#[derive(Debug, Default)]
struct Ahead {
    /// Announced and not yet read, in the order they will be asked for.
    queue: std::collections::VecDeque<Range<u64>>,
    /// Read ahead and not yet handed out (at most one window).
    ready: Vec<(Range<u64>, Vec<u8>)>,
    /// The windows after `ready`, in order, being read in the background (at most
    /// [`PREFETCH_DEPTH`]).
    next: std::collections::VecDeque<(Vec<Range<u64>>, Pending)>,
    /// The streams of announced ranges ([`ByteSource::stream_ranges`]), in order, each
    /// with its ranges not yet handed out: the first started when payloads were first
    /// announced, the second (the last) with every range announced after it, when the
    /// first payload is read.
    streams: std::collections::VecDeque<(std::collections::VecDeque<Range<u64>>, PartStream)>,
    /// No more streams: the source declined one, or one failed (windows from then on).
    no_stream: bool,
}

impl Ahead {
    /// The next window's ranges, taken from the front of the queue: up to
    /// [`PREFETCH_WINDOW`] bytes (at least one range).
    fn take_window(&mut self) -> Vec<Range<u64>> {
        let mut window = Vec::new();
        let mut total = 0u64;
        while let Some(r) = self.queue.front() {
            let n = r.end - r.start;
            if !window.is_empty() && total.saturating_add(n) > PREFETCH_WINDOW {
                break;
            }
            total = total.saturating_add(n);
            window.extend(self.queue.pop_front());
        }
        window
    }
}

/// [`ReadCache`]'s mark for a length not yet known.
const UNKNOWN: u64 = u64::MAX;

/// A range cache over a [`ByteSource`]; `&ReadCache` implements [`Data`]. It is `Sync`
/// when the source is (several threads may read through one cache: the arena and its
/// index are behind locks that are held only to look up or to add a buffer, never
/// during I/O).
pub struct ReadCache<S> {
    source: S,
    /// The bytes read, each buffer where `spans` says it starts.
    arena: FrozenVec<Box<[u8]>>,
    /// `(start, end, arena index)`, sorted by start.
    spans: Mutex<Vec<(u64, u64, usize)>>,
    /// Ranges hinted and not yet fetched.
    hints: Mutex<Vec<Range<u64>>>,
    /// Payload ranges announced with `prefetch`, and those read ahead.
    ahead: Mutex<Ahead>,
    held: AtomicU64,
    /// The source's length, once known (`u64::MAX`: not yet).
    len: AtomicU64,
    limit: u64,
    gap: u64,
}

impl<S> core::fmt::Debug for ReadCache<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ReadCache")
            .field("buffers", &self.arena.len())
            .field("held", &self.held.load(Ordering::Relaxed))
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

impl<S: ByteSource> ReadCache<S> {
    /// The most a cache holds by default: 256 MiB of metadata.
    pub const DEFAULT_LIMIT: u64 = 256 << 20;

    /// The default gap under which two hinted ranges are fetched as one: 64 KiB (a
    /// request costs more than that many bytes, locally and remotely).
    pub const DEFAULT_GAP: u64 = 64 << 10;

    /// A cache over `source`, empty.
    pub fn new(source: S) -> Self {
        ReadCache {
            source,
            arena: FrozenVec::new(),
            spans: Mutex::new(Vec::new()),
            hints: Mutex::new(Vec::new()),
            ahead: Mutex::new(Ahead::default()),
            held: AtomicU64::new(0),
            len: AtomicU64::new(UNKNOWN),
            limit: Self::DEFAULT_LIMIT,
            gap: Self::DEFAULT_GAP,
        }
    }

    /// A cache over `source` whose first bytes, `head`, were already read (`max` asked
    /// for: when fewer came, the source's length is known too). They are never read
    /// again: detection's request serves the view.
    #[must_use]
    pub fn with_head(source: S, head: &[u8], max: u64) -> Self {
        let cache = ReadCache::new(source);
        let n = len_u64(head);
        if n < max {
            cache.set_len(n);
        }
        cache.keep(0, head.to_vec().into_boxed_slice());
        cache
    }

    /// The most bytes the arena may hold ([`ReadCache::DEFAULT_LIMIT`] unless set): a
    /// read past it fails with `OutOfMemory`. Views set it from their `ReadOptions`.
    #[must_use]
    pub fn with_limit(mut self, limit: u64) -> Self {
        self.limit = limit;
        self
    }

    /// The gap under which two hinted ranges are fetched as one.
    #[must_use]
    pub fn with_gap(mut self, gap: u64) -> Self {
        self.gap = gap;
        self
    }

    /// The arena's limit.
    #[must_use]
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The coalescing gap.
    #[must_use]
    pub fn gap(&self) -> u64 {
        self.gap
    }

    /// How many bytes the arena holds.
    #[must_use]
    pub fn held(&self) -> u64 {
        self.held.load(Ordering::Relaxed)
    }

    /// The source.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// The source back.
    pub fn into_source(self) -> S {
        self.source
    }

    fn known_len(&self) -> Option<u64> {
        Some(self.len.load(Ordering::Relaxed)).filter(|&n| n != UNKNOWN)
    }

    fn set_len(&self, len: u64) {
        self.len.store(len, Ordering::Relaxed);
    }

    fn keep(&self, start: u64, buf: Box<[u8]>) -> &[u8] {
        let end = start.saturating_add(len_u64(&buf));
        self.held.fetch_add(len_u64(&buf), Ordering::Relaxed);
        // The index from the push itself: another thread may push at the same time.
        let index = self.arena.push_get_index(buf);
        let kept = self.arena.get(index).unwrap_or_default();
        let mut spans = self
            .spans
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let at = spans.partition_point(|s| s.0 <= start);
        spans.insert(at, (start, end, index));
        kept
    }

    /// The held bytes of `range`, if one buffer holds all of them.
    fn find(&self, range: &Range<u64>) -> Option<&[u8]> {
        let spans = self
            .spans
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let upto = spans.partition_point(|s| s.0 <= range.start);
        // Buffers seldom overlap: the few before the range's start are enough to look at.
        let (start, _, index) = spans
            .get(..upto)?
            .iter()
            .rev()
            .take(16)
            .find(|s| s.1 >= range.end)
            .copied()?;
        let buf = self.arena.get(index)?;
        let from = usize::try_from(range.start - start).ok()?;
        let to = usize::try_from(range.end - start).ok()?;
        buf.get(from..to)
    }

    fn source_len(&self) -> Result<u64, SourceError> {
        if let Some(len) = self.known_len() {
            return Ok(len);
        }
        let len = self
            .source
            .len()
            .map_err(|e| SourceError::Io(crate::error::IoError::from(e)))?;
        self.set_len(len);
        Ok(len)
    }

    fn room_for(&self, n: u64, offset: u64, what: &'static str) -> Result<(), SourceError> {
        if self.held.load(Ordering::Relaxed).saturating_add(n) > self.limit {
            return Err(from_io(
                io::Error::new(
                    io::ErrorKind::OutOfMemory,
                    std::format!(
                        "reading {n} bytes of {what} would hold more than {} bytes of metadata in memory, the limit",
                        self.limit
                    ),
                ),
                offset,
                n,
                what,
            ));
        }
        Ok(())
    }

    /// `range` from the read-ahead window: handed out if it was read ahead (waiting for
    /// the background read of its window if need be); if it was announced, the window
    /// from it on is read in one batch (what the consumer skipped is dropped, so memory
    /// stays within `1 + PREFETCH_DEPTH` windows). Then the windows after it are started
    /// in the background. `None` when it was not announced or the batch failed: the caller
    /// then reads it alone, and that read says what is wrong.
    fn read_ahead(&self, range: &Range<u64>) -> Option<Vec<u8>> {
        let mut ahead = self.lock_ahead();
        if let Some(streamed) = self.streamed(&mut ahead, range) {
            return streamed;
        }
        if let Some(at) = ahead.ready.iter().position(|(r, _)| r == range) {
            return Some(ahead.ready.swap_remove(at).1);
        }
        let in_next = ahead
            .next
            .iter()
            .position(|(ranges, _)| ranges.contains(range));
        let (window, parts) = if let Some(at) = in_next {
            // Windows before it were skipped by the walk: not wanted.
            ahead.next.drain(..at);
            let (window, pending) = ahead.next.pop_front()?;
            ahead.ready.clear();
            drop(ahead);
            // An error leaves the range to a read of its own, which reports it.
            (window, pending.wait().ok()?)
        } else {
            let at = ahead.queue.iter().position(|r| r == range)?;
            // The walk skipped ahead: what was read for the ranges before is not wanted.
            ahead.queue.drain(..at);
            ahead.ready.clear();
            ahead.next.clear();
            let window = ahead.take_window();
            drop(ahead);
            let parts = self.source.read_ranges(&window).ok()?;
            let parts = parts.into_iter().map(Cow::into_owned).collect();
            (window, parts)
        };
        let mut ahead = self.lock_ahead();
        // The next windows are read while this one is handed out and checked.
        self.start_windows(&mut ahead);
        let mut wanted = None;
        for (r, part) in window.into_iter().zip(parts) {
            if wanted.is_none() && r == *range {
                wanted = Some(part);
            } else {
                ahead.ready.push((r, part));
            }
        }
        wanted
    }

    /// `range` from a stream of announced payloads: the ranges the reader skipped are
    /// dropped as they come. `None`: not streamed (read it from a window, or alone);
    /// `Some(None)`: the stream failed there (read it alone, which says what is wrong;
    /// windows from then on).
    fn streamed(&self, ahead: &mut Ahead, range: &Range<u64>) -> Option<Option<Vec<u8>>> {
        if ahead.no_stream || !self.source.streams() {
            return None;
        }
        // The reader is past the first stream: on to the next.
        while ahead.streams.len() > 1
            && ahead
                .streams
                .front()
                .is_some_and(|(pending, _)| !pending.contains(range))
        {
            ahead.streams.pop_front();
        }
        let in_streams = ahead
            .streams
            .front()
            .is_some_and(|(pending, _)| pending.contains(range));
        if !in_streams {
            // Announced after the streams (or none was started): one stream from it on.
            let at = ahead.queue.iter().position(|r| r == range)?;
            ahead.queue.drain(..at);
            ahead.streams.clear();
            self.start_stream(ahead);
        } else if ahead.streams.len() == 1 && !ahead.queue.is_empty() {
            // Every range announced after the first stream, in a second one that starts
            // now, while the first is read.
            self.start_stream(ahead);
        }
        let (pending, parts) = ahead.streams.front_mut()?;
        let at = pending.iter().position(|r| r == range)?;
        for _ in 0..at {
            pending.pop_front();
            if !matches!(parts.next(), Some(Ok(_))) {
                return Some(Self::stream_failed(ahead));
            }
        }
        pending.pop_front();
        let got = match parts.next() {
            Some(Ok(part)) if len_u64(&part) == range.end - range.start => part,
            _ => return Some(Self::stream_failed(ahead)),
        };
        if pending.is_empty() {
            ahead.streams.pop_front();
        }
        Some(Some(got))
    }

    /// Starts a stream of the whole queue, when its ranges are in order and the source
    /// takes them; otherwise windows from then on.
    fn start_stream(&self, ahead: &mut Ahead) {
        if ahead.queue.is_empty() {
            return;
        }
        let ranges: Vec<Range<u64>> = ahead.queue.iter().cloned().collect();
        let ordered = ranges.windows(2).all(|w| match w {
            [a, b] => a.end <= b.start,
            _ => true,
        });
        match ordered
            .then(|| self.source.stream_ranges(ranges.clone(), STREAM_BUDGET))
            .flatten()
        {
            Some(parts) => {
                ahead.queue.clear();
                ahead.streams.push_back((ranges.into(), parts));
            }
            None => ahead.no_stream = true,
        }
    }

    /// Drops the streams after one failed; what they had not handed out goes back to
    /// the queue, for windows.
    fn stream_failed(ahead: &mut Ahead) -> Option<Vec<u8>> {
        let mut back: Vec<Range<u64>> = Vec::new();
        for (pending, _) in ahead.streams.drain(..) {
            back.extend(pending);
        }
        for r in back.into_iter().rev() {
            ahead.queue.push_front(r);
        }
        ahead.no_stream = true;
        None
    }

    /// Starts reading the next announced windows in the background, up to
    /// [`PREFETCH_DEPTH`] in flight, where the source can.
    fn start_windows(&self, ahead: &mut Ahead) {
        while ahead.next.len() < PREFETCH_DEPTH && !ahead.queue.is_empty() {
            let following = ahead.take_window();
            match self.source.start_ranges(following.clone()) {
                Some(pending) => ahead.next.push_back((following, pending)),
                None => {
                    for r in following.into_iter().rev() {
                        ahead.queue.push_front(r);
                    }
                    break;
                }
            }
        }
    }

    fn lock_ahead(&self) -> std::sync::MutexGuard<'_, Ahead> {
        self.ahead
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Fetches `range` (exact) with the pending hints, in one batch.
    fn fetch(&self, range: Range<u64>, what: &'static str) -> Result<&[u8], SourceError> {
        let len = range.end - range.start;
        self.room_for(len, range.start, what)?;
        let mut batch: Vec<Range<u64>> = Vec::new();
        let hints = core::mem::take(
            &mut *self
                .hints
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        if !hints.is_empty() && !self.source.is_stream() {
            let total = self.source_len()?;
            for h in hints {
                let h = h.start.min(total)..h.end.min(total);
                if h.start < h.end && self.find(&h).is_none() {
                    batch.push(h);
                }
            }
        }
        batch.push(range.clone());
        batch.sort_by_key(|r| r.start);
        let mut merged: Vec<Range<u64>> = Vec::with_capacity(batch.len());
        for r in batch {
            match merged.last_mut() {
                Some(last) if r.start <= last.end.saturating_add(self.gap) => {
                    last.end = last.end.max(r.end);
                }
                _ => merged.push(r),
            }
        }
        let want: u64 = merged.iter().map(|r| r.end - r.start).sum();
        let single = merged.len() == 1 && merged.first() == Some(&range);
        // A batch that fails (a hinted range the source refused) or that does not hold
        // the range falls through: the range alone then says what is wrong with it.
        if !single
            && self.held.load(Ordering::Relaxed).saturating_add(want) <= self.limit
            && let Ok(parts) = self.source.read_ranges(&merged)
        {
            for (r, part) in merged.iter().zip(parts) {
                self.keep(r.start, part.into_owned().into_boxed_slice());
            }
            if let Some(bytes) = self.find(&range) {
                return Ok(bytes);
            }
        }
        let part = self
            .source
            .read_range(range.clone())
            .map_err(|e| from_io(e, range.start, len, what))?;
        Ok(self.keep(range.start, part.into_owned().into_boxed_slice()))
    }
}

impl<'d, S: ByteSource> Data<'d> for &'d ReadCache<S> {
    type Error = SourceError;

    fn size(self) -> Result<u64, SourceError> {
        self.source_len()
    }

    fn bytes(self, offset: u64, len: u64, what: &'static str) -> Result<&'d [u8], SourceError> {
        let end = crate::bytes::end(offset, len, what).map_err(SourceError::Layout)?;
        let range = offset..end;
        if let Some(bytes) = self.find(&range) {
            return Ok(bytes);
        }
        if let Some(total) = self.known_len().filter(|&t| end > t) {
            return Err(SourceError::Layout(Error::truncated(
                what,
                offset,
                len,
                total.saturating_sub(offset),
            )));
        }
        self.fetch(range, what)
    }

    fn head(self, max: u64) -> Result<&'d [u8], SourceError> {
        let want = self.known_len().map_or(max, |len| len.min(max));
        if let Some(bytes) = self.find(&(0..want)) {
            return Ok(bytes);
        }
        self.room_for(want, 0, "head")?;
        let head = self
            .source
            .read_head(max)
            .map_err(|e| from_io(e, 0, max, "head"))?;
        let n = len_u64(&head);
        if n < max {
            self.set_len(n);
        }
        Ok(self.keep(0, head.into_owned().into_boxed_slice()))
    }

    fn tail(self, max: u64) -> Result<(u64, &'d [u8]), SourceError> {
        if let Some(len) = self.known_len() {
            let start = len.saturating_sub(max);
            if let Some(bytes) = self.find(&(start..len)) {
                return Ok((start, bytes));
            }
        }
        self.room_for(max, 0, "tail")?;
        let (start, tail) = self
            .source
            .read_tail(max)
            .map_err(|e| from_io(e, 0, max, "tail"))?;
        self.set_len(start.saturating_add(len_u64(&tail)));
        Ok((
            start,
            self.keep(start, tail.into_owned().into_boxed_slice()),
        ))
    }

    fn hint(self, ranges: &[Range<u64>]) -> Result<(), SourceError> {
        let mut hints = self
            .hints
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        hints.extend(ranges.iter().filter(|r| r.start < r.end).cloned());
        Ok(())
    }

    fn prefetch(self, ranges: &[Range<u64>]) -> Result<(), SourceError> {
        if !self.source.read_ahead_pays() {
            return Ok(());
        }
        let mut ahead = self
            .ahead
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        ahead
            .queue
            .extend(ranges.iter().filter(|r| r.start < r.end).cloned());
        if self.source.streams() && !ahead.no_stream {
            // Announcements come in batches: the first starts a stream at once (what the
            // caller reads before the first payload, a walk's headers, overlaps it); the
            // rest wait for a second stream, started when the first payload is read.
            if ahead.streams.is_empty() {
                self.start_stream(&mut ahead);
            }
            if !ahead.no_stream {
                return Ok(());
            }
        }
        // Reading starts now, in the background: what the caller reads before the first
        // payload (a walk's headers) overlaps the first windows.
        self.start_windows(&mut ahead);
        Ok(())
    }

    fn payload(
        self,
        offset: u64,
        len: u64,
        what: &'static str,
    ) -> Result<Cow<'d, [u8]>, SourceError> {
        let end = crate::bytes::end(offset, len, what).map_err(SourceError::Layout)?;
        if let Some(bytes) = self.find(&(offset..end)) {
            return Ok(Cow::Borrowed(bytes));
        }
        if let Some(bytes) = self.read_ahead(&(offset..end)) {
            return Ok(Cow::Owned(bytes));
        }
        let part = self
            .source
            .read_range(offset..end)
            .map_err(|e| from_io(e, offset, len, what))?;
        Ok(Cow::Owned(part.into_owned()))
    }

    fn recycle(self, payload: Cow<'d, [u8]>) {
        if let Cow::Owned(buf) = payload {
            let ahead = self
                .ahead
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            // The stream that fills the next payloads; with none, the buffer is freed
            // (after the lock).
            if let Some((_, parts)) = ahead.streams.front() {
                parts.recycle(buf);
            }
        }
    }

    fn whole(self) -> Option<&'d [u8]> {
        self.source.as_slice()
    }

    fn is_stream(self) -> bool {
        self.source.is_stream()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::to_u64;
    use crate::source::Counting;

    fn file() -> Vec<u8> {
        (0..10_000u32).map(|i| (i % 251) as u8).collect()
    }

    /// Reads each of `ranges` as a payload, checks it against `file` and gives it back.
    fn payloads_match<'d>(
        d: impl Data<'d>,
        file: &[u8],
        ranges: impl IntoIterator<Item = Range<u64>>,
    ) {
        for r in ranges {
            let got = d.payload(r.start, r.end - r.start, "chunk").unwrap();
            let want = file.get(usize::try_from(r.start).unwrap()..usize::try_from(r.end).unwrap());
            assert_eq!(Some(&*got), want, "{r:?}");
            // Given back, as the format crates do: the next payloads are unchanged.
            d.recycle(got);
        }
    }

    #[test]
    fn a_cache_is_shared_between_threads() {
        fn sync<T: Sync + Send>(_: &T) {}
        let f = file();
        let cache = ReadCache::new(&f[..]);
        sync(&cache);
        std::thread::scope(|scope| {
            for t in 0..4usize {
                let cache = &cache;
                let f = &f;
                scope.spawn(move || {
                    for i in 0..50usize {
                        let at = (t * 50 + i) * 13;
                        let got = cache.bytes(to_u64(at), 7, "x").unwrap();
                        assert_eq!(got, &f[at..at + 7]);
                    }
                });
            }
        });
    }

    #[test]
    fn payloads_are_read_ahead_in_windows_and_not_kept() {
        let f = file();
        let src = Counting::new(&f[..]);
        let cache = ReadCache::new(&src);
        let d = &cache;
        let chunks: Vec<Range<u64>> = (0..10u64).map(|i| i * 1000..i * 1000 + 900).collect();
        d.prefetch(&chunks).unwrap();
        payloads_match(d, &f, chunks.iter().cloned());
        // One read_ranges call for the whole window (Counting counts its ranges).
        assert_eq!(src.stats().requests, 10);
        assert_eq!(cache.held(), 0);
        // Not announced: read alone.
        assert_eq!(d.payload(5, 10, "x").unwrap().len(), 10);
    }

    /// Memory that reads ahead on a thread, counting the windows started that way.
    struct Background(std::sync::Arc<Vec<u8>>, AtomicU64);

    impl ByteSource for Background {
        fn len(&self) -> io::Result<u64> {
            Ok(len_u64(&self.0))
        }
        fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
            self.0[..].read_range(range)
        }
        fn start_ranges(&self, ranges: Vec<Range<u64>>) -> Option<Pending> {
            self.1.fetch_add(1, Ordering::Relaxed);
            let all = std::sync::Arc::clone(&self.0);
            Pending::spawn(move || {
                ranges
                    .into_iter()
                    .map(|r| all[..].read_range(r).map(Cow::into_owned))
                    .collect()
            })
        }
    }

    /// A source that streams: a thread sends each range's bytes (flipping the byte at
    /// `bad`, when given, and failing the part that holds `fail`).
    struct Streaming {
        all: std::sync::Arc<Vec<u8>>,
        streams: AtomicU64,
        fail: Option<u64>,
    }

    impl ByteSource for Streaming {
        fn len(&self) -> io::Result<u64> {
            Ok(len_u64(&self.all))
        }
        fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
            self.all[..].read_range(range)
        }
        fn stream_ranges(&self, ranges: Vec<Range<u64>>, budget: u64) -> Option<PartStream> {
            self.streams.fetch_add(1, Ordering::Relaxed);
            let all = std::sync::Arc::clone(&self.all);
            let fail = self.fail;
            let (sender, parts) = crate::parts::part_stream(budget);
            std::thread::spawn(move || {
                for r in ranges {
                    let part = if fail.is_some_and(|at| r.contains(&at)) {
                        Err(io::Error::other("the connection broke"))
                    } else {
                        all[..].read_range(r).map(Cow::into_owned)
                    };
                    let last = part.is_err();
                    if sender.send(part).is_err() || last {
                        return;
                    }
                }
            });
            Some(parts)
        }
        fn streams(&self) -> bool {
            true
        }
    }

    fn streaming(fail: Option<u64>) -> Streaming {
        Streaming {
            all: std::sync::Arc::new(file()),
            streams: AtomicU64::new(0),
            fail,
        }
    }

    #[test]
    fn announced_payloads_are_one_stream_and_skipped_ones_are_dropped() {
        let src = streaming(None);
        let f = std::sync::Arc::clone(&src.all);
        let cache = ReadCache::new(&src);
        let d = &cache;
        let chunks: Vec<Range<u64>> = (0..10u64).map(|i| i * 1000..i * 1000 + 900).collect();
        d.prefetch(&chunks[..4]).unwrap();
        d.prefetch(&chunks[4..]).unwrap();
        // The reader skips chunk 0 and 5: they are dropped as they come.
        let read = chunks.iter().filter(|r| r.start != 0 && r.start != 5000);
        payloads_match(d, &f, read.cloned());
        // The first batch streamed when announced, the second when the first payload was
        // read.
        assert_eq!(src.streams.load(Ordering::Relaxed), 2);
        assert_eq!(cache.held(), 0);
        // Behind the stream, or never announced: read alone.
        assert_eq!(d.payload(0, 900, "chunk").unwrap().len(), 900);
        assert_eq!(d.payload(5, 10, "x").unwrap().len(), 10);
    }

    #[test]
    fn a_stream_that_fails_leaves_the_rest_to_windows_and_reads_alone() {
        let src = streaming(Some(3500));
        let f = std::sync::Arc::clone(&src.all);
        let cache = ReadCache::new(&src);
        let d = &cache;
        let chunks: Vec<Range<u64>> = (0..10u64).map(|i| i * 1000..i * 1000 + 900).collect();
        d.prefetch(&chunks).unwrap();
        payloads_match(d, &f, chunks.iter().cloned());
        // One stream; after it broke at chunk 3, no other.
        assert_eq!(src.streams.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn ranges_out_of_order_are_not_streamed() {
        let src = streaming(None);
        let cache = ReadCache::new(&src);
        let d = &cache;
        let chunks = [5000..5900, 0..900];
        d.prefetch(&chunks).unwrap();
        for r in &chunks {
            assert_eq!(d.payload(r.start, 900, "chunk").unwrap().len(), 900);
        }
        assert_eq!(src.streams.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn the_next_window_is_read_in_the_background() {
        // 80 MiB in 1 MiB chunks: five windows of 16 chunks, all read in the background:
        // three started when they are announced, the others as windows are handed out.
        let f: Vec<u8> = (0..80u32 << 20).map(|i| (i % 251) as u8).collect();
        let src = Background(std::sync::Arc::new(f), AtomicU64::new(0));
        let cache = ReadCache::new(&src);
        let d = &cache;
        let chunks: Vec<Range<u64>> = (0..80u64).map(|i| i << 20..((i + 1) << 20) - 100).collect();
        d.prefetch(&chunks).unwrap();
        payloads_match(d, &src.0, chunks.iter().cloned());
        assert_eq!(src.1.load(Ordering::Relaxed), 5);
        assert_eq!(cache.held(), 0);
    }

    #[test]
    fn reads_are_kept_and_borrowed() {
        let f = file();
        let src = Counting::new(&f[..]);
        let cache = ReadCache::new(&src);
        let d = &cache;
        let a = d.bytes(10, 20, "a").unwrap();
        let b = d.bytes(15, 5, "b").unwrap();
        assert_eq!(a, &f[10..30]);
        assert_eq!(b, &f[15..20]);
        assert_eq!(src.stats().requests, 1);
    }

    #[test]
    fn hints_are_fetched_in_one_batch_and_coalesced() {
        let f = file();
        let src = Counting::new(&f[..]);
        let cache = ReadCache::new(&src).with_gap(100);
        let d = &cache;
        d.hint(&[1000..1010, 1050..1060, 5000..5010, 20_000..20_010])
            .unwrap();
        assert_eq!(d.bytes(1005, 2, "x").unwrap(), &f[1005..1007]);
        // One call of read_ranges: two merged ranges and one apart; the hint past the
        // end is clipped away.
        assert_eq!(src.stats().requests, 2);
        assert_eq!(d.bytes(1050, 10, "y").unwrap(), &f[1050..1060]);
        assert_eq!(d.bytes(5000, 10, "z").unwrap(), &f[5000..5010]);
        assert_eq!(src.stats().requests, 2);
    }

    #[test]
    fn head_given_is_not_read_again() {
        let f = file();
        let src = Counting::new(&f[..]);
        let cache = ReadCache::with_head(&src, &f[..256], 256);
        let d = &cache;
        assert_eq!(d.head(256).unwrap(), &f[..256]);
        assert_eq!(d.bytes(16, 8, "x").unwrap(), &f[16..24]);
        assert_eq!(src.stats().requests, 0);
        // A short head tells the length.
        let short = ReadCache::with_head(&src, &f[..100], 256);
        assert_eq!((&short).size().unwrap(), 100);
        assert!((&short).bytes(90, 20, "x").is_err());
    }

    #[test]
    fn past_the_end_is_truncated_and_the_limit_holds() {
        let f = file();
        let cache = ReadCache::new(&f[..]).with_limit(1000);
        let d = &cache;
        match d.bytes(9990, 20, "field") {
            Err(SourceError::Layout(e)) => assert_eq!(e.offset(), Some(9990)),
            other => panic!("{other:?}"),
        }
        assert!(d.bytes(0, 1001, "big").is_err());
        assert!(d.bytes(0, 1000, "ok").is_ok());
        assert!(d.bytes(5000, 1, "more").is_err());
        // Payloads are not kept.
        assert_eq!(d.payload(5000, 100, "p").unwrap().len(), 100);
        assert_eq!(cache.held(), 1000);
    }

    #[test]
    fn tail_learns_the_length() {
        let f = file();
        let src = Counting::new(&f[..]);
        let cache = ReadCache::new(&src);
        let d = &cache;
        let (at, t) = d.tail(100).unwrap();
        assert_eq!((at, t), (9900, &f[9900..]));
        assert_eq!(d.size().unwrap(), 10_000);
        assert_eq!(d.bytes(9950, 10, "x").unwrap(), &f[9950..9960]);
        assert_eq!(src.stats().requests, 1);
    }
}
