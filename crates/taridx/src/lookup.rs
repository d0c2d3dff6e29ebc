//! Fast lookups by stem: a one-time map from `(keyhash, crashid)` to row ranges.
//!
//! The map is bucketed by the top bits of the keyhash (XXH64 output is uniform, so a
//! bucket holds about one run of rows) and sorted within each bucket. Building it is a
//! counting sort: linear in the rows for real data, O(n log n) at worst, and no input can
//! make it quadratic, because there is no hashing of ours to attack. A lookup is a
//! bucket read and a binary search over about one entry.

use alloc::vec::Vec;

use crate::error::{Error, Result};
use crate::index::{Entry, Index};
use crate::{key, raw};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Run {
    keyhash: u64,
    crashid: u32,
    start: u32,
    len: u32,
}

impl Run {
    fn key(&self) -> (u64, u32) {
        (self.keyhash, self.crashid)
    }
}

/// Lookups by stem over a parsed [`Index`], and positional access to samples.
///
/// Building it reads every row once, checks every row's ids (so it also validates the
/// index fully), and recomputes contiguity and the number of distinct stems.
///
/// ```
/// # use taridx::{Index, IndexFile, RowData, StemMap, keyhash};
/// let rows = vec![
///     RowData { fid: 0, offset: 0, size: 3, extid: 0, crashid: 0, keyhash: keyhash("a") },
///     RowData { fid: 0, offset: 1024, size: 5, extid: 1, crashid: 0, keyhash: keyhash("a") },
/// ];
/// let file = IndexFile::new(vec!["cls".into(), "jpg".into()], vec![], rows)?;
/// let bytes = file.to_bytes();
/// let index = Index::parse(&bytes)?;
/// let map = StemMap::build(&index)?;
/// let jpg = map.lookup("a.jpg").find(|e| map.extension(e.extid) == Some("jpg")).unwrap();
/// assert_eq!((jpg.offset, jpg.size), (1024, 5));
/// assert_eq!(map.lookup("b").count(), 0);
/// # Ok::<(), taridx::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct StemMap<'a> {
    index: Index<'a>,
    rows: &'a [raw::Row],
    exts: Vec<&'a str>,
    crash: Vec<(&'a str, u32)>,
    shift: u32,
    buckets: Vec<u32>,
    runs: Vec<Run>,
    starts: Vec<u32>,
    distinct: u64,
}

impl<'a> StemMap<'a> {
    /// Builds the map: one pass over the rows, then a counting sort of the runs.
    ///
    /// # Errors
    /// [`Error::ExtId`] or [`Error::CrashId`] for the first bad row (strict read mode);
    /// [`Error::TooManyRows`] beyond 2³² − 1 rows.
    pub fn build(index: &Index<'a>) -> Result<Self> {
        let rows = index.raw_rows();
        let n = u32::try_from(rows.len()).map_err(|_| Error::TooManyRows {
            n_rows: index.n_rows(),
        })?;
        let (n_ext, n_crash) = (index.n_ext(), index.n_crash());
        let strict = index.mode() == crate::ReadMode::Strict;

        // Pass 1: runs of equal (keyhash, crashid), in row order.
        let mut in_order: Vec<Run> = Vec::new();
        let mut current: Option<Run> = None;
        for (i, r) in (0u32..n).zip(rows) {
            let (keyhash, crashid) = (r.keyhash.get(), r.crashid.get());
            if strict && (u32::from(r.extid.get()) >= n_ext || crashid > n_crash) {
                index.check_row(u64::from(i), r)?;
            }
            match &mut current {
                Some(run) if run.key() == (keyhash, crashid) => run.len += 1,
                _ => {
                    in_order.extend(current.take());
                    current = Some(Run {
                        keyhash,
                        crashid,
                        start: i,
                        len: 1,
                    });
                }
            }
        }
        in_order.extend(current);

        // A power-of-two number of buckets near the number of runs: about one run each.
        let bits = in_order.len().max(1).next_power_of_two().trailing_zeros();
        let shift = 64 - bits;
        let n_buckets = 1usize << bits;
        let mut buckets = alloc::vec![0u32; n_buckets + 1];
        for run in &in_order {
            if let Some(c) = buckets.get_mut(bucket(run.keyhash, shift) + 1) {
                *c += 1;
            }
        }
        let mut total = 0u32;
        for c in &mut buckets {
            total += *c;
            *c = total;
        }
        // buckets[b] is now where bucket b starts; scatter keeps row order inside a bucket.
        let mut fill = buckets.clone();
        let mut runs = alloc::vec![Run::default(); in_order.len()];
        for run in &in_order {
            let b = bucket(run.keyhash, shift);
            if let Some(slot) = fill.get_mut(b) {
                if let Some(dst) = runs.get_mut(*slot as usize) {
                    *dst = *run;
                }
                *slot += 1;
            }
        }
        let starts: Vec<u32> = in_order.iter().map(|r| r.start).collect();
        drop(in_order);

        // Sort inside buckets (stable: equal keys stay in row order) and count repeats.
        let mut repeats = 0u64;
        for w in buckets.windows(2) {
            if let [lo, hi] = *w {
                if let Some(slice) = runs.get_mut(lo as usize..hi as usize) {
                    if slice.len() > 1 {
                        if !slice.is_sorted_by_key(Run::key) {
                            slice.sort_by_key(Run::key);
                        }
                        repeats += crate::len_u64(
                            slice
                                .windows(2)
                                .filter(|p| matches!(p, [a, b] if a.key() == b.key()))
                                .count(),
                        );
                    }
                }
            }
        }
        let distinct = crate::len_u64(runs.len()) - repeats;

        let mut crash: Vec<(&'a str, u32)> = (1..)
            .zip(index.crash_stems())
            .map(|(i, s)| (s, i))
            .collect();
        crash.sort_unstable();
        Ok(StemMap {
            index: *index,
            rows,
            exts: index.extensions().collect(),
            crash,
            shift,
            buckets,
            runs,
            starts,
            distinct,
        })
    }

    /// The index the map was built from.
    #[must_use]
    pub fn index(&self) -> &Index<'a> {
        &self.index
    }

    /// The extension with id `extid`.
    #[must_use]
    pub fn extension(&self, extid: u16) -> Option<&'a str> {
        self.exts.get(usize::from(extid)).copied()
    }

    /// The id of an extension (compared as stored: lower-case).
    #[must_use]
    pub fn extension_id(&self, ext: &str) -> Option<u16> {
        let i = self.exts.iter().position(|e| *e == ext)?;
        u16::try_from(i).ok()
    }

    /// The crash id of a stem: its crash-block id, else 0.
    #[must_use]
    pub fn crashid_of(&self, stem: &str) -> u32 {
        if self.crash.is_empty() {
            return 0;
        }
        self.crash
            .binary_search_by(|(s, _)| (*s).cmp(stem))
            .ok()
            .and_then(|i| self.crash.get(i))
            .map_or(0, |&(_, id)| id)
    }

    /// The rows of the sample named by `query`. The stem rule is applied first, so
    /// `"x.jpg"` and `"dir/x.cls"` both find sample `x`.
    ///
    /// This trusts the keyhash: a stem that is *not* in the index but has the same
    /// XXH64 as an indexed canonical stem returns that stem's rows. Check names with
    /// [`Verifier`](crate::Verifier) when that matters.
    #[must_use]
    pub fn lookup(&self, query: &str) -> Sample<'_> {
        let stem = key::stem(query);
        self.lookup_key(key::keyhash(stem), self.crashid_of(stem))
    }

    /// The rows with exactly this `(keyhash, crashid)`.
    #[must_use]
    pub fn lookup_key(&self, keyhash: u64, crashid: u32) -> Sample<'_> {
        let b = bucket(keyhash, self.shift);
        let (lo, hi) = match (self.buckets.get(b), self.buckets.get(b + 1)) {
            (Some(&lo), Some(&hi)) => (lo as usize, hi as usize),
            _ => (0, 0),
        };
        let slice = self.runs.get(lo..hi).unwrap_or(&[]);
        let k = (keyhash, crashid);
        let first = slice.partition_point(|r| r.key() < k);
        let rest = slice.get(first..).unwrap_or(&[]);
        let count = rest.partition_point(|r| r.key() == k);
        Sample {
            rows: self.rows,
            runs: rest.get(..count).unwrap_or(&[]),
            next: 0,
            end: 0,
        }
    }

    /// True when every stem's rows are contiguous (recomputed, not the stored flag).
    #[must_use]
    pub fn is_contiguous(&self) -> bool {
        crate::len_u64(self.runs.len()) == self.distinct
    }

    /// The number of distinct `(keyhash, crashid)` pairs (recomputed).
    #[must_use]
    pub fn distinct_stems(&self) -> u64 {
        self.distinct
    }

    /// Deep check of the header against the rows: `n_stems` and flag bit 0.
    ///
    /// # Errors
    /// [`Error::StemCount`] or [`Error::Flags`].
    pub fn check_header(&self) -> Result<()> {
        if self.index.n_stems() != self.distinct {
            return Err(Error::StemCount {
                declared: self.index.n_stems(),
                found: self.distinct,
            });
        }
        if self.index.is_contiguous() != self.is_contiguous() {
            return Err(Error::Flags {
                declared: self.index.is_contiguous(),
            });
        }
        Ok(())
    }

    /// The number of samples, when the rows are contiguous.
    ///
    /// # Errors
    /// [`Error::NotContiguous`].
    pub fn n_samples(&self) -> Result<usize> {
        if self.is_contiguous() {
            Ok(self.starts.len())
        } else {
            Err(Error::NotContiguous)
        }
    }

    /// The `i`-th sample in row order (`None` past the end), when rows are contiguous.
    ///
    /// # Errors
    /// [`Error::NotContiguous`].
    pub fn sample(&self, i: usize) -> Result<Option<Sample<'_>>> {
        if !self.is_contiguous() {
            return Err(Error::NotContiguous);
        }
        let Some(&start) = self.starts.get(i) else {
            return Ok(None);
        };
        let end = match self.starts.get(i + 1) {
            Some(&e) => e,
            None => u32::try_from(self.rows.len()).unwrap_or(u32::MAX),
        };
        Ok(Some(Sample {
            rows: self.rows,
            runs: &[],
            next: start,
            end,
        }))
    }
}

fn bucket(keyhash: u64, shift: u32) -> usize {
    // shift is 64 for a single bucket; bits ≤ 32, so the value fits usize on 32-bit targets.
    usize::try_from(keyhash.checked_shr(shift).unwrap_or(0)).unwrap_or(0)
}

/// The rows of one sample, in row order (an iterator of [`Entry`]).
#[derive(Debug, Clone)]
pub struct Sample<'m> {
    rows: &'m [raw::Row],
    runs: &'m [Run],
    next: u32,
    end: u32,
}

impl Sample<'_> {
    /// The number of rows left.
    #[must_use]
    pub fn len(&self) -> usize {
        let runs: u64 = self.runs.iter().map(|r| u64::from(r.len)).sum();
        usize::try_from(runs + u64::from(self.end - self.next)).unwrap_or(usize::MAX)
    }

    /// True when no rows are left (the stem is not in the index).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.next == self.end && self.runs.is_empty()
    }
}

impl Iterator for Sample<'_> {
    type Item = Entry;

    fn next(&mut self) -> Option<Entry> {
        while self.next == self.end {
            let (run, rest) = self.runs.split_first()?;
            self.runs = rest;
            self.next = run.start;
            self.end = run.start.saturating_add(run.len);
        }
        let i = self.next;
        self.next += 1;
        self.rows
            .get(i as usize)
            .map(|r| Entry::decode(u64::from(i), r))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len();
        (n, Some(n))
    }
}

impl ExactSizeIterator for Sample<'_> {}
impl core::iter::FusedIterator for Sample<'_> {}
