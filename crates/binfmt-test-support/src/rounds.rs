//! A byte source that counts the calls its readers make: each call is one round trip a
//! remote reader would wait for, however many ranges it asks for.

use core::ops::Range;
use core::sync::atomic::{AtomicU64, Ordering};
use std::borrow::Cow;
use std::io;

use binfmt_core::source::ByteSource;

/// Wraps a source and counts the calls that reach it (`read_ranges` of many ranges is
/// one), unlike [`binfmt_core::source::Counting`], which counts ranges and bytes.
#[derive(Debug)]
pub struct Rounds<S> {
    inner: S,
    rounds: AtomicU64,
}

impl<S: ByteSource> Rounds<S> {
    /// Counts the calls to `inner`.
    pub fn new(inner: S) -> Self {
        Rounds {
            inner,
            rounds: AtomicU64::new(0),
        }
    }

    /// The calls so far.
    pub fn rounds(&self) -> u64 {
        self.rounds.load(Ordering::Relaxed)
    }

    /// The inner source.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    fn round(&self) {
        self.rounds.fetch_add(1, Ordering::Relaxed);
    }
}

impl<S: ByteSource> ByteSource for Rounds<S> {
    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        self.round();
        self.inner.read_range(range)
    }
    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Cow<'_, [u8]>>> {
        self.round();
        self.inner.read_ranges(ranges)
    }
    fn read_head(&self, max_len: u64) -> io::Result<Cow<'_, [u8]>> {
        self.round();
        self.inner.read_head(max_len)
    }
    fn read_tail(&self, max_len: u64) -> io::Result<(u64, Cow<'_, [u8]>)> {
        self.round();
        self.inner.read_tail(max_len)
    }
}
