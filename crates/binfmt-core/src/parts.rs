//! Ranges streamed in the background, handed over one by one as each is complete
//! ([`ByteSource::stream_ranges`](crate::source::ByteSource::stream_ranges)), with the
//! bytes received and not yet taken bounded by a budget.
//!
//! A cache that reads every payload of a file in order (`verify`, `unpack` of a URL) asks
//! for them as one stream: one request (one round trip) for all the adjacent ranges,
//! received as fast as the consumer takes them. The budget is what bounds memory: when
//! it is spent the producer stops reading, and the transport's flow control holds the
//! rest at the server. Windows of a fixed size ([`ByteSource::start_ranges`]) bound memory
//! too, but pay a round trip per window in flight.
//!
//! [`ByteSource::start_ranges`]: crate::source::ByteSource::start_ranges
//!
//! ```
//! use binfmt_core::parts::part_stream;
//!
//! let (sender, mut parts) = part_stream(8);
//! std::thread::spawn(move || {
//!     for part in [b"abcd".to_vec(), b"efgh".to_vec(), b"ij".to_vec()] {
//!         // Waits while more than 8 bytes are received and not taken.
//!         if sender.send(Ok(part)).is_err() {
//!             return; // the consumer is gone
//!         }
//!     }
//! });
//! assert_eq!(parts.next().unwrap().unwrap(), b"abcd");
//! assert_eq!(parts.next().unwrap().unwrap(), b"efgh");
//! assert_eq!(parts.next().unwrap().unwrap(), b"ij");
//! assert!(parts.next().is_none());
//! ```

use std::io;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::vec::Vec;

use crate::bytes::len_u64;

/// Bytes sent and not yet taken, whether the consumer is gone, and the buffers it gave
/// back ([`PartStream::recycle`]).
#[derive(Debug, Default)]
struct Held {
    bytes: u64,
    closed: bool,
    spare: Vec<Vec<u8>>,
}

/// The most buffers a stream keeps given back (their bytes are bounded too: a quarter of
/// the budget).
const SPARE_MAX: usize = 8;

impl Held {
    /// Whether a part of `len` bytes goes at once: the consumer is gone (the send fails
    /// at once), nothing is held (a part larger than the budget goes alone), or it fits.
    fn room(&self, len: u64, limit: u64) -> bool {
        self.closed || self.bytes == 0 || self.bytes.saturating_add(len) <= limit
    }
}

#[derive(Debug)]
struct Budget {
    limit: u64,
    held: Mutex<Held>,
    changed: Condvar,
}

impl Budget {
    fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The producer's end of a [`part_stream`].
#[derive(Debug)]
pub struct PartSender {
    tx: Sender<io::Result<Vec<u8>>>,
    budget: Arc<Budget>,
}

/// The consumer's end of a [`part_stream`]: the parts in the order they were sent.
/// Dropping it tells the producer to stop.
#[derive(Debug)]
pub struct PartStream {
    rx: Receiver<io::Result<Vec<u8>>>,
    budget: Arc<Budget>,
}

/// The consumer dropped its [`PartStream`]: nothing more is wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gone;

/// A stream of parts whose bytes sent and not yet taken stay within `budget` (a part
/// larger than the whole budget is sent when nothing else is held).
#[must_use]
pub fn part_stream(budget: u64) -> (PartSender, PartStream) {
    let (tx, rx) = channel();
    let budget = Arc::new(Budget {
        limit: budget,
        held: Mutex::new(Held::default()),
        changed: Condvar::new(),
    });
    (
        PartSender {
            tx,
            budget: Arc::clone(&budget),
        },
        PartStream { rx, budget },
    )
}

impl PartSender {
    /// Sends the next part (or the error that ends the stream), first waiting, on this
    /// thread, until it fits the budget.
    ///
    /// # Errors
    /// [`Gone`] when the consumer dropped its end.
    pub fn send(&self, part: io::Result<Vec<u8>>) -> Result<(), Gone> {
        let len = part.as_ref().map_or(0, |p| len_u64(p));
        let mut held = self.budget.lock();
        while !held.room(len, self.budget.limit) {
            held = self
                .budget
                .changed
                .wait(held)
                .unwrap_or_else(PoisonError::into_inner);
        }
        if held.closed {
            return Err(Gone);
        }
        held.bytes = held.bytes.saturating_add(len);
        drop(held);
        self.tx.send(part).map_err(|_| Gone)
    }

    /// An empty buffer of at least `min` bytes' capacity that the consumer gave back
    /// ([`PartStream::recycle`]), or a new one without capacity. A recycled buffer's pages
    /// are already mapped: a producer that fills one does not fault them in again.
    ///
    /// ```
    /// use binfmt_core::parts::part_stream;
    ///
    /// let (sender, mut parts) = part_stream(1 << 20);
    /// sender.send(Ok(vec![7; 1000])).unwrap();
    /// let part = parts.next().unwrap().unwrap();
    /// parts.recycle(part);
    /// let buf = sender.spare(1000);
    /// assert!(buf.is_empty() && buf.capacity() >= 1000);
    /// assert_eq!(sender.spare(1000).capacity(), 0); // none left
    /// ```
    #[must_use]
    pub fn spare(&self, min: usize) -> Vec<u8> {
        let mut held = self.budget.lock();
        match held.spare.iter().position(|b| b.capacity() >= min) {
            Some(i) => {
                let mut buf = held.spare.swap_remove(i);
                buf.clear();
                buf
            }
            None => Vec::new(),
        }
    }

    /// Whether a part of `len` bytes would be sent at once: [`send`](Self::send) waits
    /// only when this is false, as only the consumer changes what is held meanwhile, and
    /// only down. A producer on an async runtime so leaves its worker only when it must
    /// wait.
    ///
    /// ```
    /// use binfmt_core::parts::part_stream;
    ///
    /// let (sender, mut parts) = part_stream(8);
    /// assert!(sender.fits(100)); // nothing held: any part goes
    /// sender.send(Ok(b"abcdef".to_vec())).unwrap();
    /// assert!(!sender.fits(4)); // 6 + 4 > 8
    /// parts.next();
    /// assert!(sender.fits(4));
    /// ```
    #[must_use]
    pub fn fits(&self, len: u64) -> bool {
        self.budget.lock().room(len, self.budget.limit)
    }

    /// Whether the consumer dropped its end.
    #[must_use]
    pub fn is_gone(&self) -> bool {
        self.budget.lock().closed
    }
}

/// The parts in order, each waited for; the end when the producer finished (or died).
impl Iterator for PartStream {
    type Item = io::Result<Vec<u8>>;

    fn next(&mut self) -> Option<io::Result<Vec<u8>>> {
        let part = self.rx.recv().ok()?;
        let len = part.as_ref().map_or(0, |p| len_u64(p));
        let mut held = self.budget.lock();
        held.bytes = held.bytes.saturating_sub(len);
        drop(held);
        self.budget.changed.notify_all();
        Some(part)
    }
}

impl PartStream {
    /// Gives a part's buffer back for the producer to fill again
    /// ([`PartSender::spare`]). At most a quarter of the budget, in a few buffers, is kept
    /// this way; a buffer past that is freed (after the lock).
    pub fn recycle(&self, buf: Vec<u8>) {
        let keep = usize::try_from(self.budget.limit / 4).unwrap_or(usize::MAX);
        let mut held = self.budget.lock();
        let kept: usize = held.spare.iter().map(Vec::capacity).sum();
        if !held.closed
            && buf.capacity() > 0
            && held.spare.len() < SPARE_MAX
            && kept.saturating_add(buf.capacity()) <= keep
        {
            held.spare.push(buf);
        }
    }
}

impl Drop for PartStream {
    fn drop(&mut self) {
        let mut held = self.budget.lock();
        held.closed = true;
        // Freed after the lock.
        let spare = core::mem::take(&mut held.spare);
        drop(held);
        drop(spare);
        self.budget.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Buffers given back are kept up to a quarter of the budget and a few in number,
    /// whatever their size: many small ones do not pile up.
    #[test]
    fn recycled_buffers_are_bounded_in_bytes_and_number() {
        let (sender, parts) = part_stream(4000);
        for _ in 0..100 {
            parts.recycle(Vec::with_capacity(10));
        }
        let mut back = 0;
        while sender.spare(1).capacity() > 0 {
            back += 1;
        }
        assert_eq!(back, SPARE_MAX);
        parts.recycle(Vec::with_capacity(600));
        parts.recycle(Vec::with_capacity(600));
        assert!(sender.spare(600).capacity() >= 600);
        assert_eq!(
            sender.spare(600).capacity(),
            0,
            "past a quarter of 4000: freed"
        );
        drop(parts);
        assert_eq!(sender.spare(1).capacity(), 0, "a closed stream keeps none");
    }

    #[test]
    fn the_budget_holds_the_producer_back() {
        use core::sync::atomic::{AtomicUsize, Ordering};
        let sent = Arc::new(AtomicUsize::new(0));
        let (sender, parts) = part_stream(10);
        let producer = {
            let sent = Arc::clone(&sent);
            std::thread::spawn(move || {
                for i in 0..5u8 {
                    sender.send(Ok(std::vec![i; 6])).unwrap();
                    sent.fetch_add(1, Ordering::SeqCst);
                }
            })
        };
        std::thread::sleep(core::time::Duration::from_millis(100));
        // One part of 6 bytes fits a budget of 10; a second would not.
        assert_eq!(sent.load(Ordering::SeqCst), 1);
        let mut got = Vec::new();
        for part in parts {
            got.push(part.unwrap()[0]);
        }
        producer.join().unwrap();
        assert_eq!(got, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_dropped_consumer_stops_a_waiting_producer() {
        let (sender, parts) = part_stream(4);
        let producer = std::thread::spawn(move || {
            let mut sent = 0;
            while sender.send(Ok(std::vec![0; 4])).is_ok() {
                sent += 1;
            }
            sent
        });
        std::thread::sleep(core::time::Duration::from_millis(50));
        drop(parts);
        assert_eq!(producer.join().unwrap(), 1);
    }
}
