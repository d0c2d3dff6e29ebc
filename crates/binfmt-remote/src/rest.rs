//! The rest of a whole-object response ([`Options::with_whole_object`]): the first GET
//! asks for the whole object; its first bytes answer the head read, and the bytes after
//! them keep coming for the streams of ranges ([`ByteSource::stream_ranges`]) asked after
//! it. A caller that reads a whole object in order (`verify`, `unpack`) so makes one
//! request, and waits one round trip, where a head read followed by a stream of the
//! ranges the head announced makes two, one after the other.
//!
//! The response's task cuts the ranges out of the chunks as they come ([`Feed`]): each
//! byte is copied once, into the buffer of the range it belongs to, and the chunk is
//! dropped at once, so that the HTTP client reads the next bytes into the buffer it just
//! freed (hot in the cache, its pages mapped) rather than a fresh one. The task leaves
//! its worker (`block_in_place`) only to wait for a reader. Until a stream is asked,
//! what comes is held, [`REST_BUDGET`] at most; past that the response is not read
//! further, and TCP's flow control holds the rest at the server.
//!
//! [`Options::with_whole_object`]: crate::Options::with_whole_object
//! [`ByteSource::stream_ranges`]: binfmt_core::source::ByteSource::stream_ranges

use core::ops::Range;
use std::io;
use std::sync::mpsc::{Receiver, Sender, TryRecvError};
use std::vec::Vec;

use binfmt_core::parts::{Gone, PartSender, PartStream, part_stream};
use binfmt_core::source::past_end;

/// The most bytes the rest of a whole-object response holds before a stream takes it
/// over (4 MiB). A command parses its head and asks for its ranges within a millisecond
/// or so; what came meanwhile is kept, not asked again.
pub(crate) const REST_BUDGET: usize = 4 << 20;

/// At most this much is reserved for a range before its bytes come (as the source's
/// own streams do); past that its buffer grows with the bytes.
const RESERVED_AHEAD: usize = 32 << 20;

/// A range's new buffer is this much larger at most (its length rounded up to a multiple
/// of 64 KiB), so that a buffer given back fits the next ranges of about its length.
const SPARE_ROUNDING: usize = 64 << 10;

/// One stream asked of a whole-object response: its ranges, in order, and where their
/// bytes go. `short`: the last range may end early, at the end of the object (the head
/// read's).
pub(crate) struct Job {
    ranges: Vec<Range<u64>>,
    sender: PartSender,
    short: bool,
}

impl Job {
    /// The head read's job: the first `len` bytes, or all of a shorter object.
    pub(crate) fn head(len: u64, sender: PartSender) -> Job {
        Job {
            ranges: std::vec![0..len],
            sender,
            short: true,
        }
    }
}

/// The job being served, and the range being filled.
struct Active {
    job: Job,
    next: usize,
    part: Vec<u8>,
}

/// The response's side: cuts the queued jobs' ranges out of the bytes as they come.
pub(crate) struct Feed {
    jobs: Receiver<Job>,
    active: Option<Active>,
    /// Bytes that came while no job was queued, from `held_at` on.
    held: Vec<u8>,
    held_at: u64,
    /// The first bytes of the object (the head job's), for ranges that start in them.
    head: Vec<u8>,
    /// The offset of the next byte the response brings.
    at: u64,
}

impl Feed {
    /// A feed of the jobs sent to `jobs`, the head read's first.
    pub(crate) fn new(jobs: Receiver<Job>) -> Feed {
        Feed {
            jobs,
            active: None,
            held: Vec::new(),
            held_at: 0,
            head: Vec::new(),
            at: 0,
        }
    }

    /// Takes the response's next bytes. Blocks while a reader holds its budget, or while
    /// [`REST_BUDGET`] is held and no stream is asked; `Err(Gone)` when no stream will
    /// ever be asked (the source dropped, or stopped the rest).
    pub(crate) fn push(&mut self, data: &[u8]) -> Result<(), Gone> {
        self.take(data, true).map(drop)
    }

    /// Takes as much of the response's next bytes as it can without waiting: how many
    /// (all of them, or fewer where [`push`](Self::push) would wait for a reader). The
    /// response's task cuts what comes with this, and leaves its worker to wait only
    /// when it must.
    pub(crate) fn push_nowait(&mut self, data: &[u8]) -> Result<usize, Gone> {
        self.take(data, false)
    }

    fn take(&mut self, data: &[u8], wait: bool) -> Result<usize, Gone> {
        let mut used = 0;
        loop {
            if self.active.is_none() {
                self.poll(false)?;
            }
            if self.active.is_some() && !self.held.is_empty() {
                // What was held first.
                let held = core::mem::take(&mut self.held);
                let (n, blocked) = self.serve(&held, self.held_at, wait);
                self.held = held;
                self.held.drain(..n);
                self.held_at += crate::usize_u64(n);
                if blocked {
                    return Ok(used);
                }
                continue;
            }
            let left = data.get(used..).unwrap_or_default();
            if left.is_empty() {
                return Ok(used);
            }
            if self.active.is_some() {
                let (n, blocked) = self.serve(left, self.at, wait);
                used += n;
                self.at += crate::usize_u64(n);
                if blocked {
                    return Ok(used);
                }
                continue;
            }
            // No stream asked yet: hold the bytes, and wait for one past the budget.
            if self.held.len() > REST_BUDGET {
                if !wait {
                    return Ok(used);
                }
                self.poll(true)?;
                continue;
            }
            if self.held.is_empty() {
                self.held_at = self.at;
            }
            self.held.extend_from_slice(left);
            used += left.len();
            self.at += crate::bytes_len(left);
        }
    }

    /// The response ended: `error` when it broke (`None`: complete). The range being
    /// filled is handed over when the job allows an early end (the head of a shorter
    /// object; the ranges asked after it are then served from it); otherwise it gets the
    /// error a read of it gives, and the streams queued after it end unserved. After a
    /// complete response, waits for the streams still to be asked, until the source's
    /// side is dropped.
    pub(crate) fn finish(mut self, mut error: Option<io::Error>) {
        loop {
            // A complete response keeps what it held for the streams still to be asked (a
            // small object can arrive whole before its reader asks for its ranges), until
            // the source drops its side or stops the rest.
            if self.active.is_none() && self.poll(error.is_none()).is_err() {
                return;
            }
            if self.active.is_none() {
                return;
            }
            // What was held, then the ranges that the head holds whole.
            if self.push(&[]).is_err() {
                return;
            }
            let _ = self.serve(&[], self.at, true);
            let Some(mut active) = self.active.take() else {
                continue;
            };
            let Some(r) = active.job.ranges.get(active.next).cloned() else {
                continue;
            };
            let last = active.next + 1 == active.job.ranges.len();
            if error.is_none() && active.job.short && last {
                let part = core::mem::take(&mut active.part);
                if self.head.is_empty() {
                    self.head.clone_from(&part);
                }
                let _ = active.job.sender.send(Ok(part));
                continue;
            }
            let part = Err(error.take().unwrap_or_else(|| past_end(r, self.at)));
            let _ = active.job.sender.send(part);
            return;
        }
    }

    /// Makes the next queued job active; `wait`: blocks until there is one.
    fn poll(&mut self, wait: bool) -> Result<(), Gone> {
        let job = if wait {
            self.jobs.recv().map_err(|_| Gone)?
        } else {
            match self.jobs.try_recv() {
                Ok(job) => job,
                Err(TryRecvError::Empty) => return Ok(()),
                Err(TryRecvError::Disconnected) => return Err(Gone),
            }
        };
        self.active = Some(Active {
            job,
            next: 0,
            part: Vec::new(),
        });
        Ok(())
    }

    /// Serves the active jobs from `data`, the bytes at `at`, taking the next queued job
    /// as one ends; how many bytes were used (all, unless the jobs ran out first), and
    /// whether it stopped where it would wait for a reader (`wait` false).
    fn serve(&mut self, data: &[u8], at: u64, wait: bool) -> (usize, bool) {
        let mut used = 0;
        loop {
            let Some(active) = self.active.as_mut() else {
                return (used, false);
            };
            let Some(r) = active.job.ranges.get(active.next).cloned() else {
                // The job is done: its stream ends; on to the next.
                self.active = None;
                if self.poll(false).is_err() {
                    return (used, false);
                }
                continue;
            };
            let head = crate::bytes_len(&self.head);
            if active.part.is_empty() && r.start < head {
                let (from, to) = (r.start, r.end.min(head));
                let bytes = self.head.get(index(from)..index(to)).unwrap_or_default();
                active.part.extend_from_slice(bytes);
            }
            let want = r.start + crate::bytes_len(&active.part);
            let pos = at + crate::usize_u64(used);
            let done = want >= r.end;
            if !done {
                let left = data.len() - used;
                if left == 0 {
                    return (used, false);
                }
                if want > pos {
                    // A hole between two ranges.
                    used += index(want - pos).min(left);
                    continue;
                }
                if want < pos {
                    // Before what the response still brings: the ranges were checked to
                    // be in order, so this is not reached; end the stream (the cache then
                    // reads the range alone).
                    self.active = None;
                    continue;
                }
                let take = index(r.end - want).min(left);
                if active.part.capacity() == 0 {
                    let whole = index(r.end - r.start).min(RESERVED_AHEAD);
                    // A buffer the reader gave back, if one is large enough: its pages
                    // are mapped already. A new one is a little larger than asked, so
                    // that it serves the next ranges too when their lengths differ by a
                    // few bytes (compressed chunks).
                    active.part = active.job.sender.spare(whole);
                    let room =
                        whole.max(whole.next_multiple_of(SPARE_ROUNDING).min(RESERVED_AHEAD));
                    if active.part.capacity() < whole
                        && active.part.try_reserve_exact(room).is_err()
                    {
                        if !wait && !active.job.sender.fits(0) {
                            return (used, true);
                        }
                        let oom = io::Error::other("binfmt-remote: out of memory for a range");
                        let _ = active.job.sender.send(Err(oom));
                        self.active = None;
                        continue;
                    }
                }
                active
                    .part
                    .extend_from_slice(data.get(used..used + take).unwrap_or_default());
                used += take;
                if want + crate::usize_u64(take) < r.end {
                    continue;
                }
            }
            if !wait && !active.job.sender.fits(crate::bytes_len(&active.part)) {
                // The range stays whole in `part`, sent when this is called again.
                return (used, true);
            }
            let part = core::mem::take(&mut active.part);
            if active.next == 0 && active.job.short && self.head.is_empty() {
                // The head job's bytes: kept for later ranges that start in them.
                self.head.clone_from(&part);
            }
            active.next += 1;
            if active.job.sender.send(Ok(part)).is_err() {
                // The reader is gone: the rest of its ranges are read through, as holes.
                self.active = None;
            }
        }
    }
}

/// A length or offset within what is in memory, as an index.
fn index(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// Whether the rest of a response (whose head ends at `at`, of an object of `len` bytes)
/// can serve `ranges` after the ranges before them, which end at `from`: in order, none
/// empty, none before `from` nor overlapping the one before, and not skipping more of
/// the object than they read (the response is read through the holes between them). A
/// range inside the head is served from it.
fn serves(ranges: &[Range<u64>], from: u64, at: u64, len: u64) -> bool {
    let (mut end, mut read) = (from, 0u64);
    for r in ranges {
        if r.is_empty() || r.start < end || r.end > len {
            return false;
        }
        read += r.end.saturating_sub(r.start.max(at));
        end = r.end;
    }
    let through = end.saturating_sub(from.max(at));
    !ranges.is_empty() && through - read <= read
}

/// The source's side of a whole-object response: the streams it is asked queue jobs to
/// the response's [`Feed`], so that a reader that announces its ranges in batches (the
/// cache's streams) still makes one request.
pub(crate) struct Feeding {
    jobs: Sender<Job>,
    /// The end of the last range queued (0: none yet, ranges may start in the head).
    end: u64,
    /// Where the head ends, and the object's length.
    at: u64,
    len: u64,
    /// A stream was handed out: reads are no longer queued. A reader waiting for a read
    /// queued behind a stream it has not read yet would wait for ever (the feed serves
    /// jobs in order, and the stream's budget holds it back).
    streamed: bool,
}

impl Feeding {
    /// The source's side of a response whose head, `at` bytes of an object of `len`,
    /// was read.
    pub(crate) fn new(jobs: Sender<Job>, at: u64, len: u64) -> Feeding {
        Feeding {
            jobs,
            end: 0,
            at,
            len,
            streamed: false,
        }
    }

    /// A read of `ranges` (a parse reading on past its head), as a stream to collect; only
    /// before any stream was handed out, otherwise as [`Feeding::queue`].
    pub(crate) fn read(&mut self, ranges: Vec<Range<u64>>) -> Option<PartStream> {
        if self.streamed {
            return None;
        }
        self.job(ranges, u64::MAX)
    }

    /// A stream of `ranges` after the ones queued before, holding at most `budget`
    /// bytes the reader has not taken; `None` when they are not all after them (or too
    /// sparse: [`serves`]) or the response is gone.
    pub(crate) fn queue(&mut self, ranges: Vec<Range<u64>>, budget: u64) -> Option<PartStream> {
        let parts = self.job(ranges, budget)?;
        self.streamed = true;
        Some(parts)
    }

    fn job(&mut self, ranges: Vec<Range<u64>>, budget: u64) -> Option<PartStream> {
        if !serves(&ranges, self.end, self.at, self.len) {
            return None;
        }
        let end = ranges.last()?.end;
        let (sender, parts) = part_stream(budget);
        let job = Job {
            ranges,
            sender,
            short: false,
        };
        self.jobs.send(job).ok()?;
        self.end = end;
        Some(parts)
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation,
    clippy::single_range_in_vec_init
)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    /// Numbers below `n`, deterministic (xorshift64; the unit tests also run as
    /// published, where binfmt-test-support is not there).
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            let x = &mut self.0;
            *x ^= *x << 13;
            *x ^= *x >> 7;
            *x ^= *x << 17;
            *x % n.max(1)
        }
    }

    /// Random objects in random chunks, a head job and then batches of random ranges (in
    /// order, with holes, some inside the head), queued before, between and after the
    /// chunks: every range gets exactly its bytes, and the head its first bytes (all of a
    /// shorter object).
    #[test]
    fn ranges_are_cut_from_chunks_whatever_their_split() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..300 {
            let len = rng.below(if round % 10 == 0 { 300 } else { 60_000 }) + 1;
            let data: Vec<u8> = (0..len).map(|i| (i * 7 + i / 251) as u8).collect();
            let head_len = rng.below(2000) + 1;
            let (jobs, queued) = channel();
            let (sender, head) = part_stream(u64::MAX);
            jobs.send(Job::head(head_len, sender)).unwrap();
            let mut feeding = Feeding::new(jobs, head_len.min(len), len);
            let mut batches = Vec::new();
            let mut at = 0;
            while at < len && batches.len() < 4 {
                let mut ranges = Vec::new();
                for _ in 0..rng.below(6) + 1 {
                    let start = at + rng.below(300);
                    let end = (start + rng.below(5000) + 1).min(len);
                    if start >= end {
                        break;
                    }
                    ranges.push(start..end);
                    at = end;
                }
                if ranges.is_empty() {
                    break;
                }
                batches.push(ranges);
            }
            let mut feed = Feed::new(queued);
            let mut streams = Vec::new();
            let mut pos = 0usize;
            let queue_at: Vec<u64> = batches.iter().map(|_| rng.below(len + 1)).collect();
            let mut next_batch = 0;
            while pos < data.len() {
                while next_batch < batches.len() && queue_at[next_batch] <= pos as u64 {
                    let ranges = batches[next_batch].clone();
                    streams.push((ranges.clone(), feeding.queue(ranges, u64::MAX)));
                    next_batch += 1;
                }
                let n = (rng.below(3000) + 1) as usize;
                let end = (pos + n).min(data.len());
                feed.push(&data[pos..end]).unwrap();
                pos = end;
            }
            for ranges in &batches[next_batch..] {
                streams.push((ranges.clone(), feeding.queue(ranges.clone(), u64::MAX)));
            }
            // The source's side gone: `finish` serves what was queued and returns.
            drop(feeding);
            feed.finish(None);
            let got: Vec<Vec<u8>> = head.map(Result::unwrap).collect();
            let want = &data[..head_len.min(len) as usize];
            assert_eq!(got, [want.to_vec()], "round {round}");
            for (ranges, parts) in streams {
                // A batch that a shorter head's holes made too sparse is not streamed.
                let Some(parts) = parts else { continue };
                let got: Vec<Vec<u8>> = parts
                    .map(|p| p.unwrap_or_else(|e| panic!("round {round}: {e}")))
                    .collect();
                let want: Vec<Vec<u8>> = ranges
                    .iter()
                    .map(|r| data[r.start as usize..r.end as usize].to_vec())
                    .collect();
                assert_eq!(got, want, "round {round}");
            }
        }
    }

    /// A buffer the reader gives back is filled again with a later range: its pages are
    /// mapped already.
    #[test]
    fn a_recycled_buffer_is_filled_again() {
        let data: Vec<u8> = (0..10_000u32).map(|i| i as u8).collect();
        let (jobs, queued) = channel();
        let (sender, mut head) = part_stream(u64::MAX);
        jobs.send(Job::head(100, sender)).unwrap();
        let mut feeding = Feeding::new(jobs, 100, 10_000);
        let mut feed = Feed::new(queued);
        let mut parts = feeding
            .queue(std::vec![100..1100, 1100..2000], u64::MAX)
            .unwrap();
        feed.push(&data[..1100]).unwrap();
        let first = parts.next().unwrap().unwrap();
        assert_eq!(first, &data[100..1100]);
        let (ptr, cap) = (first.as_ptr(), first.capacity());
        parts.recycle(first);
        feed.push(&data[1100..]).unwrap();
        let second = parts.next().unwrap().unwrap();
        assert_eq!(second, &data[1100..2000]);
        assert_eq!((second.as_ptr(), second.capacity()), (ptr, cap));
        drop(feeding);
        feed.finish(None);
        assert_eq!(head.next().unwrap().unwrap(), &data[..100]);
    }

    /// `push_nowait` stops where a reader's budget is spent (the range stays whole, sent
    /// by the next call), and says how much it took; nothing is lost or sent twice.
    #[test]
    fn push_nowait_stops_at_a_spent_budget_and_resumes() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 253) as u8).collect();
        let (jobs, queued) = channel();
        let (sender, mut head) = part_stream(u64::MAX);
        jobs.send(Job::head(100, sender)).unwrap();
        let mut feeding = Feeding::new(jobs, 100, 10_000);
        let mut feed = Feed::new(queued);
        let ranges = std::vec![100..700, 700..1300, 1300..1900, 2000..2600];
        let mut parts = feeding.queue(ranges.clone(), 1000).unwrap();
        // The first range fits the budget; the second would pass it: the feed stops
        // where that range is whole, before the bytes after it.
        let took = feed.push_nowait(&data[..2000]).unwrap();
        assert_eq!(took, 1300);
        let first = parts.next().unwrap().unwrap();
        assert_eq!(first, &data[100..700]);
        // Room again: the held range goes, and the third is whole and held in turn.
        let more = feed.push_nowait(&data[took..2000]).unwrap();
        assert_eq!(took + more, 1900);
        let mut at = took + more;
        let mut got = std::vec![first];
        while at < data.len() {
            let n = feed.push_nowait(&data[at..]).unwrap();
            if n == 0 {
                got.push(parts.next().unwrap().unwrap());
            }
            at += n;
        }
        drop(feeding);
        feed.finish(None);
        got.extend(parts.map(Result::unwrap));
        let want: Vec<Vec<u8>> = ranges
            .iter()
            .map(|r| data[r.start as usize..r.end as usize].to_vec())
            .collect();
        assert_eq!(got, want);
        assert_eq!(head.next().unwrap().unwrap(), &data[..100]);
    }

    /// A reader that drops its stream early: the feed goes on with the next stream, and a
    /// response that ends before a range gives that range the past-the-end error.
    #[test]
    fn a_dropped_stream_is_read_through_and_an_early_end_is_an_error() {
        let data: Vec<u8> = (0..10_000u32).map(|i| i as u8).collect();
        let (jobs, queued) = channel();
        let (sender, head) = part_stream(u64::MAX);
        jobs.send(Job::head(100, sender)).unwrap();
        let mut feeding = Feeding::new(jobs, 100, 20_000);
        let first = feeding.queue(vec![100..200, 200..300], 1).unwrap();
        let second = feeding
            .queue(vec![300..400, 5_000..12_000], 1 << 20)
            .unwrap();
        drop(first);
        // Ranges before the ones queued, or mostly holes, are not served.
        assert!(feeding.queue(vec![50..60], 1 << 20).is_none());
        assert!(feeding.queue(vec![13_000..13_010], 1 << 20).is_none());
        let mut feed = Feed::new(queued);
        for piece in data.chunks(700) {
            feed.push(piece).unwrap();
        }
        drop(feeding);
        feed.finish(None);
        assert_eq!(
            head.map(Result::unwrap).collect::<Vec<_>>(),
            [data[..100].to_vec()]
        );
        let mut second = second;
        assert_eq!(second.next().unwrap().unwrap(), &data[300..400]);
        // The response ends at 10,000, inside the range.
        let e = second.next().unwrap().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert!(second.next().is_none());
    }

    /// A small object arrives whole before its reader asks for its ranges: what the
    /// response held serves them, until the source's side is dropped.
    #[test]
    fn a_complete_response_serves_the_streams_asked_after_it() {
        let data: Vec<u8> = (0..50_000u32).map(|i| (i % 253) as u8).collect();
        let (jobs, queued) = channel();
        let (sender, head) = part_stream(u64::MAX);
        jobs.send(Job::head(1000, sender)).unwrap();
        let mut feeding = Feeding::new(jobs, 1000, 50_000);
        let mut feed = Feed::new(queued);
        for piece in data.chunks(4096) {
            feed.push(piece).unwrap();
        }
        let finished = std::thread::spawn(move || feed.finish(None));
        assert_eq!(
            head.map(Result::unwrap).collect::<Vec<_>>(),
            [data[..1000].to_vec()]
        );
        let parts = feeding
            .queue(vec![1000..30_000, 30_000..50_000], 1 << 20)
            .unwrap();
        let parts: Vec<Vec<u8>> = parts.map(Result::unwrap).collect();
        assert_eq!(parts, [&data[1000..30_000], &data[30_000..]]);
        drop(feeding);
        finished.join().unwrap();
    }
}
