//! Fast lookups by stem: a one-time map from `(keyhash, crashid)` to row ranges.
//!
//! Two layouts, chosen at build time:
//!
//! * **Direct** (every key is one run of rows, the normal case): an open-addressing table
//!   indexed by the top bits of the keyhash, filled during the single pass over the rows.
//!   XXH64 output is uniform, so a lookup reads one slot (one cache miss) and then the rows.
//! * **Sorted** (a key has several runs, or the keyhashes are so skewed that a probe
//!   sequence grows past a fixed limit, which real XXH64 output never does): the runs,
//!   bucketed by the top bits of the keyhash with a counting sort and sorted inside each
//!   bucket; a lookup is a bucket read and a binary search over about one entry.
//!
//! Neither layout can be driven quadratic by crafted input: the direct table gives up after
//! a bounded probe length, and the sorted layout is O(n log n) at worst.
//!
//! The tables ([`Keys`]) hold row numbers and block offsets, never references, so that a
//! [`Reader`](crate::Reader) can keep them next to the bytes they describe.

use alloc::vec::Vec;
use core::ops::Range;

use binfmt_core::Kind;
use binfmt_core::bytes::to_u64;
use binfmt_core::data::Data;

use crate::error::{ErrorKind, Result};
use crate::index::{self, Entry, IdBounds, Index};
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
/// Building it reads every row once, checks every row's ids (with the index's
/// [`ReadOptions`](crate::ReadOptions)), and recomputes contiguity and the number of
/// distinct stems. Its memory is bounded by the rows and the text blocks, never by a
/// count the header declares: at most 65,536 extensions are tabled (a row's extension id
/// has 16 bits), and the crash table is 8 bytes per crash stem.
///
/// ```
/// # use taridx::{Index, IndexFile, RowData, StemMap, keyhash};
/// let rows = vec![
///     RowData { fid: 0, offset: 0, size: 3, extid: 0, crashid: 0, keyhash: keyhash("a") },
///     RowData { fid: 0, offset: 1024, size: 5, extid: 1, crashid: 0, keyhash: keyhash("a") },
/// ];
/// let file = IndexFile::new(vec!["cls".into(), "jpg".into()], vec![], rows)?;
/// let bytes = file.to_vec()?;
/// let index = Index::parse(&bytes)?;
/// let map = StemMap::build(&index)?;
/// let jpg = map.lookup("a.jpg").find(|e| map.extension(e.extid) == Some("jpg")).unwrap();
/// assert_eq!((jpg.offset, jpg.size), (1024, 5));
/// assert_eq!(map.lookup("b").count(), 0);
/// # Ok::<(), taridx::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct StemMap<'a, D: Data<'a> = &'a [u8]> {
    index: Index<'a, D>,
    keys: Keys,
}

/// The lookup tables of an index, as row numbers and block offsets.
#[derive(Debug, Clone)]
pub(crate) struct Keys {
    table: Table,
    starts: Vec<u32>,
    distinct: u64,
    /// The byte ranges of the first 65,536 extensions in the extension block.
    exts: Vec<Range<usize>>,
    /// `(start in the crash block, crash id)`, sorted by the stem's text, one per text
    /// (the smallest id).
    crash: Vec<(u32, u32)>,
    /// False when the crash block is too large for `u32` offsets: `crash` is empty and
    /// lookups scan the block.
    crash_tabled: bool,
}

/// A direct-table slot: `(low 32 bits of keyhash) << 32 | (first row + 1)`; 0 is empty.
/// The row itself holds the full key, and the run ends where the key changes.
type Slot = u64;

/// Runs are inserted in batches whose slots are touched first, so that their cache misses
/// overlap instead of being paid one after the other.
const BATCH: usize = 64;

#[derive(Debug, Clone)]
enum Table {
    Direct {
        slots: Vec<Slot>,
        shift: u32,
        /// The longest probe sequence any key needed.
        probes: usize,
    },
    Sorted {
        shift: u32,
        buckets: Vec<u32>,
        runs: Vec<Run>,
    },
}

/// A direct-table probe sequence longer than this means skewed keyhashes: use the
/// sorted layout. Uniform keys at load ≤ 0.75 stay far below it.
const PROBE_LIMIT: usize = 256;

impl<'a, D: Data<'a>> StemMap<'a, D> {
    /// Builds the map: one pass over the rows (and, for indexes whose stems are not
    /// contiguous, a counting sort of the runs).
    ///
    /// # Errors
    /// [`ErrorKind::ExtId`] or [`ErrorKind::CrashId`] for the first bad row (when the
    /// index's options check row ids); [`ErrorKind::TooManyRows`] beyond 2³² − 1 rows.
    pub fn build(index: &Index<'a, D>) -> Result<Self> {
        Ok(StemMap {
            index: *index,
            keys: Keys::build(index)?,
        })
    }

    #[cfg(feature = "std")]
    pub(crate) fn into_keys(self) -> Keys {
        self.keys
    }
}

impl Keys {
    pub(crate) fn build<'d, D: Data<'d>>(index: &Index<'d, D>) -> Result<Self> {
        let rows = index.raw_rows();
        let n = u32::try_from(rows.len()).map_err(|_| {
            ErrorKind::TooManyRows {
                n_rows: index.n_rows(),
            }
            .at(index::N_ROWS_AT)
        })?;
        let build = Build {
            index,
            rows,
            n,
            bounds: index.options().get_row_ids().then(|| IdBounds::of(index)),
        };
        let (table, starts, distinct) = match build.direct()? {
            Some(direct) => direct,
            None => build.sorted()?,
        };
        let exts = spans(index.ext_block())
            .take(usize::from(u16::MAX) + 1)
            .take(usize::try_from(index.n_ext()).unwrap_or(usize::MAX))
            .collect();
        let block = index.crash_block();
        let crash_tabled = u32::try_from(block.len()).is_ok();
        let mut crash: Vec<(u32, u32)> = if crash_tabled && index.n_crash() > 0 {
            (1..)
                .zip(spans(block).take(usize::try_from(index.n_crash()).unwrap_or(usize::MAX)))
                .map(|(id, span)| (u32::try_from(span.start).unwrap_or(u32::MAX), id))
                .collect()
        } else {
            Vec::new()
        };
        crash.sort_unstable_by(|a, b| {
            text_at(block, a.0)
                .cmp(text_at(block, b.0))
                .then(a.1.cmp(&b.1))
        });
        // A repeated stem keeps its first id only: that is the one a lookup finds.
        crash.dedup_by(|b, a| text_at(block, a.0) == text_at(block, b.0));
        crash.shrink_to_fit();
        Ok(Keys {
            table,
            starts,
            distinct,
            exts,
            crash,
            crash_tabled,
        })
    }
}

/// What both layouts are built from: the index, its rows (`n` of them, at most 2³² − 1),
/// and the bounds each row's ids are checked against when the index's options say so.
struct Build<'i, 'd, D: Data<'d>> {
    index: &'i Index<'d, D>,
    rows: &'i [raw::Row],
    n: u32,
    bounds: Option<IdBounds>,
}

impl<'d, D: Data<'d>> Build<'_, 'd, D> {
    /// Row `i` (`r`) has its ids in range, or they are not checked: each layout's pass
    /// over the rows checks them as it goes.
    #[inline]
    fn check_ids(&self, i: u32, r: &raw::Row) -> Result<()> {
        if self.bounds.is_some_and(|b| b.out_of_range(r)) {
            index::row_rule(self.index, u64::from(i), r)?;
        }
        Ok(())
    }

    /// The direct table, or `None` when a key has more than one run or probes run long.
    fn direct(&self) -> Result<Option<(Table, Vec<u32>, u64)>> {
        let Build { index, rows, n, .. } = *self;
        if n == u32::MAX {
            return Ok(None); // a slot holds row + 1 in 32 bits
        }
        // Size from n_stems (untrusted, so bounded by the rows): load ≤ 2/3 when it is right.
        let hint = usize::try_from(index.n_stems())
            .unwrap_or(usize::MAX)
            .min(rows.len())
            .max(1);
        let capacity = hint
            .saturating_add(hint / 2)
            .saturating_add(1)
            .next_power_of_two();
        let shift = 64 - capacity.trailing_zeros();
        let mut table = Direct {
            slots: alloc::vec![0; capacity],
            shift,
            mask: capacity - 1,
            probes: 0,
            rows,
        };
        let mut starts: Vec<u32> = Vec::with_capacity(hint);
        let mut current: Option<(u64, u32)> = None;
        let mut pending = [(0u64, 0u32); BATCH];
        let mut n_pending = 0;
        for (i, r) in (0u32..n).zip(rows) {
            let key = (r.keyhash.get(), r.crashid.get());
            self.check_ids(i, r)?;
            if current == Some(key) {
                continue;
            }
            current = Some(key);
            if starts.len() >= capacity - capacity / 4 {
                return Ok(None);
            }
            starts.push(i);
            if let Some(p) = pending.get_mut(n_pending) {
                *p = (key.0, i);
                n_pending += 1;
            }
            if n_pending == BATCH {
                if !table.insert_batch(&pending) {
                    return Ok(None);
                }
                n_pending = 0;
            }
        }
        if !table.insert_batch(pending.get(..n_pending).unwrap_or(&[])) {
            return Ok(None);
        }
        let distinct = to_u64(starts.len());
        Ok(Some((
            Table::Direct {
                slots: table.slots,
                shift,
                probes: table.probes,
            },
            starts,
            distinct,
        )))
    }

    /// The sorted layout: runs bucketed by keyhash bits, sorted inside each bucket.
    fn sorted(&self) -> Result<(Table, Vec<u32>, u64)> {
        let Build { rows, n, .. } = *self;

        // Pass 1: runs of equal (keyhash, crashid), in row order.
        let mut in_order: Vec<Run> = Vec::new();
        let mut current: Option<Run> = None;
        for (i, r) in (0u32..n).zip(rows) {
            let (keyhash, crashid) = (r.keyhash.get(), r.crashid.get());
            self.check_ids(i, r)?;
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
            if let Some(slot) = fill.get_mut(bucket(run.keyhash, shift)) {
                if let Some(dst) = runs.get_mut(*slot as usize) {
                    *dst = *run;
                }
                *slot += 1;
            }
        }
        let starts: Vec<u32> = in_order.iter().map(|r| r.start).collect();
        drop(in_order);

        // Buckets whose runs are out of key order (rare: two runs in one bucket, the later
        // one with the smaller key) are sorted; equal keys stay in row order (stable).
        let mut unsorted: Vec<usize> = Vec::new();
        for pair in runs.windows(2) {
            if let [a, b] = pair {
                let bb = bucket(b.keyhash, shift);
                if bucket(a.keyhash, shift) == bb
                    && b.key() < a.key()
                    && unsorted.last() != Some(&bb)
                {
                    unsorted.push(bb);
                }
            }
        }
        for b in unsorted {
            if let (Some(&lo), Some(&hi)) = (buckets.get(b), buckets.get(b + 1))
                && let Some(slice) = runs.get_mut(lo as usize..hi as usize)
            {
                slice.sort_by_key(Run::key);
            }
        }
        let repeats = runs
            .windows(2)
            .filter(|p| matches!(p, [a, b] if a.key() == b.key()))
            .count();
        let distinct = to_u64(runs.len() - repeats);
        Ok((
            Table::Sorted {
                shift,
                buckets,
                runs,
            },
            starts,
            distinct,
        ))
    }
}

impl Keys {
    /// The crash id of `stem`: its crash-block id (the smallest, if the block repeats
    /// it), else 0.
    pub(crate) fn crashid_of<'d, D: Data<'d>>(&self, index: &Index<'d, D>, stem: &str) -> u32 {
        if index.n_crash() == 0 {
            return 0;
        }
        if !self.crash_tabled {
            return index.crashid_of(stem);
        }
        let block = index.crash_block();
        let first = self
            .crash
            .partition_point(|&(at, _)| text_at(block, at) < stem.as_bytes());
        match self.crash.get(first) {
            Some(&(at, id)) if text_at(block, at) == stem.as_bytes() => id,
            _ => 0,
        }
    }

    /// The extension with id `extid`.
    pub(crate) fn extension<'a, D: Data<'a>>(
        &self,
        index: &Index<'a, D>,
        extid: u16,
    ) -> Option<&'a str> {
        let span = self.exts.get(usize::from(extid))?.clone();
        core::str::from_utf8(index.ext_block().get(span)?).ok()
    }

    /// The rows with exactly this `(keyhash, crashid)`.
    pub(crate) fn lookup_key<'m>(
        &'m self,
        rows: &'m [raw::Row],
        keyhash: u64,
        crashid: u32,
    ) -> Sample<'m> {
        let mut sample = Sample {
            rows,
            runs: &[],
            next: 0,
            end: 0,
        };
        match &self.table {
            Table::Direct {
                slots,
                shift,
                probes,
            } => {
                let mask = slots.len().wrapping_sub(1);
                let tag = tag_of(keyhash);
                let mut at = bucket(keyhash, *shift);
                for _ in 0..=*probes {
                    let Some(&slot) = slots.get(at) else { break };
                    if slot == 0 {
                        break;
                    }
                    if slot >> 32 == tag {
                        let start = slot_row(slot);
                        if key_at(rows, start) == Some((keyhash, crashid)) {
                            let mut end = start + 1;
                            while key_at(rows, end) == Some((keyhash, crashid)) {
                                end += 1;
                            }
                            sample.next = start;
                            sample.end = end;
                            break;
                        }
                    }
                    at = (at + 1) & mask;
                }
            }
            Table::Sorted {
                shift,
                buckets,
                runs,
            } => {
                let b = bucket(keyhash, *shift);
                let (lo, hi) = match (buckets.get(b), buckets.get(b + 1)) {
                    (Some(&lo), Some(&hi)) => (lo as usize, hi as usize),
                    _ => (0, 0),
                };
                let slice = runs.get(lo..hi).unwrap_or(&[]);
                let k = (keyhash, crashid);
                let first = slice.partition_point(|r| r.key() < k);
                let rest = slice.get(first..).unwrap_or(&[]);
                let count = rest.partition_point(|r| r.key() == k);
                sample.runs = rest.get(..count).unwrap_or(&[]);
            }
        }
        sample
    }

    fn is_contiguous(&self) -> bool {
        to_u64(self.starts.len()) == self.distinct
    }

    /// The `i`-th sample in row order, when rows are contiguous.
    fn sample<'m>(&'m self, rows: &'m [raw::Row], i: usize) -> Result<Option<Sample<'m>>> {
        if !self.is_contiguous() {
            return Err(ErrorKind::NotContiguous.unlocated());
        }
        let Some(&start) = self.starts.get(i) else {
            return Ok(None);
        };
        let end = match self.starts.get(i + 1) {
            Some(&e) => e,
            None => u32::try_from(rows.len()).unwrap_or(u32::MAX),
        };
        Ok(Some(Sample {
            rows,
            runs: &[],
            next: start,
            end,
        }))
    }
}

impl<'a, D: Data<'a>> StemMap<'a, D> {
    /// The index the map was built from.
    #[must_use]
    pub fn index(&self) -> &Index<'a, D> {
        &self.index
    }

    /// The extension with id `extid`, in O(1).
    #[must_use]
    pub fn extension(&self, extid: u16) -> Option<&'a str> {
        self.keys.extension(&self.index, extid)
    }

    /// The id of an extension (compared as stored: lower-case).
    #[must_use]
    pub fn extension_id(&self, ext: &str) -> Option<u16> {
        let block = self.index.ext_block();
        let i = self
            .keys
            .exts
            .iter()
            .position(|span| block.get(span.clone()) == Some(ext.as_bytes()))?;
        u16::try_from(i).ok()
    }

    /// The crash id of a stem: its crash-block id, else 0.
    #[must_use]
    pub fn crashid_of(&self, stem: &str) -> u32 {
        self.keys.crashid_of(&self.index, stem)
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
        self.keys
            .lookup_key(self.index.raw_rows(), keyhash, crashid)
    }

    /// True when every stem's rows are contiguous (recomputed, not the stored flag).
    #[must_use]
    pub fn is_contiguous(&self) -> bool {
        self.keys.is_contiguous()
    }

    /// The number of distinct `(keyhash, crashid)` pairs (recomputed).
    #[must_use]
    pub fn distinct_stems(&self) -> u64 {
        self.keys.distinct
    }

    /// The number of samples, when the rows are contiguous.
    ///
    /// # Errors
    /// [`ErrorKind::NotContiguous`].
    pub fn n_samples(&self) -> Result<usize> {
        if self.is_contiguous() {
            Ok(self.keys.starts.len())
        } else {
            Err(ErrorKind::NotContiguous.unlocated())
        }
    }

    /// The `i`-th sample in row order (`None` past the end), when rows are contiguous.
    ///
    /// # Errors
    /// [`ErrorKind::NotContiguous`].
    pub fn sample(&self, i: usize) -> Result<Option<Sample<'_>>> {
        self.keys.sample(self.index.raw_rows(), i)
    }
}

/// The distinct extension ids of `entries`, in first-seen order, in O(entries) time (a
/// 65,536-bit set, 8 KiB): for "which members does this sample have?".
///
/// ```
/// # use taridx::{Index, IndexFile, RowData, StemMap, extension_ids, keyhash};
/// let row = |extid| RowData { fid: 0, offset: 0, size: 1, extid, crashid: 0, keyhash: keyhash("a") };
/// let file = IndexFile::new(vec!["cls".into(), "jpg".into()], vec![], vec![row(1), row(0), row(1)])?;
/// let bytes = file.to_vec()?;
/// let index = Index::parse(&bytes)?;
/// let map = StemMap::build(&index)?;
/// assert_eq!(extension_ids(map.lookup("a")), [1, 0]);
/// # Ok::<(), taridx::Error>(())
/// ```
pub fn extension_ids(entries: impl IntoIterator<Item = Entry>) -> Vec<u16> {
    let mut seen = alloc::vec![0u64; (usize::from(u16::MAX) + 1) / 64];
    let mut out = Vec::new();
    for e in entries {
        let i = usize::from(e.extid);
        if let Some(word) = seen.get_mut(i / 64) {
            let bit = 1u64 << (i % 64);
            if *word & bit == 0 {
                *word |= bit;
                out.push(e.extid);
            }
        }
    }
    out
}

/// The byte ranges of the `\n`-separated pieces of a block (one empty piece for an empty
/// block: callers bound the count).
fn spans(block: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut start = Some(0usize);
    core::iter::from_fn(move || {
        let s = start?;
        let rest = block.get(s..).unwrap_or(&[]);
        match rest.iter().position(|&b| b == b'\n') {
            Some(i) => {
                start = Some(s + i + 1);
                Some(s..s + i)
            }
            None => {
                start = None;
                Some(s..block.len())
            }
        }
    })
}

/// The piece of `block` starting at `at`, up to the next `\n`.
fn text_at(block: &[u8], at: u32) -> &[u8] {
    let rest = block.get(at as usize..).unwrap_or(&[]);
    match rest.iter().position(|&b| b == b'\n') {
        Some(i) => rest.get(..i).unwrap_or(&[]),
        None => rest,
    }
}

/// The direct table while it is filled.
struct Direct<'r> {
    slots: Vec<Slot>,
    shift: u32,
    mask: usize,
    probes: usize,
    rows: &'r [raw::Row],
}

impl Direct<'_> {
    /// Inserts runs given as (keyhash, first row); false when a key is already present
    /// (its rows are not contiguous) or a probe sequence exceeds the limit.
    fn insert_batch(&mut self, runs: &[(u64, u32)]) -> bool {
        // Touch every home slot first: independent loads whose misses overlap.
        let mut touched = 0u64;
        for &(keyhash, _) in runs {
            touched ^= self
                .slots
                .get(bucket(keyhash, self.shift))
                .copied()
                .unwrap_or(0);
        }
        core::hint::black_box(touched);
        for &(keyhash, start) in runs {
            let key = key_at(self.rows, start);
            let tag = tag_of(keyhash);
            let mut at = bucket(keyhash, self.shift);
            let mut probe = 0;
            loop {
                let Some(slot) = self.slots.get_mut(at) else {
                    return false;
                };
                if *slot == 0 {
                    *slot = tag << 32 | u64::from(start + 1);
                    break;
                }
                if *slot >> 32 == tag && key_at(self.rows, slot_row(*slot)) == key {
                    return false;
                }
                probe += 1;
                if probe > PROBE_LIMIT {
                    return false;
                }
                at = (at + 1) & self.mask;
            }
            self.probes = self.probes.max(probe);
        }
        true
    }
}

/// The low 32 bits of a keyhash (the slot position uses the high bits).
fn tag_of(keyhash: u64) -> u64 {
    keyhash & 0xffff_ffff
}

/// The first row of a slot's run.
fn slot_row(slot: Slot) -> u32 {
    u32::try_from((slot & 0xffff_ffff).saturating_sub(1)).unwrap_or(u32::MAX)
}

fn key_at(rows: &[raw::Row], i: u32) -> Option<(u64, u32)> {
    rows.get(i as usize)
        .map(|r| (r.keyhash.get(), r.crashid.get()))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{IndexFile, RowData};
    use alloc::string::{String, ToString};

    fn file(rows: Vec<RowData>, crash: usize) -> Vec<u8> {
        let crash = (0..crash).map(|i| alloc::format!("c{i}")).collect();
        IndexFile::new(alloc::vec![String::from("x")], crash, rows)
            .unwrap()
            .to_vec()
            .unwrap()
    }

    fn row(keyhash: u64, crashid: u32) -> RowData {
        RowData {
            fid: 0,
            offset: 0,
            size: 1,
            extid: 0,
            crashid,
            keyhash,
        }
    }

    #[test]
    fn the_direct_table_serves_contiguous_indexes() {
        let rows = (0..1000u64)
            .flat_map(|k| [row(key::keyhash(&k.to_string()), 0); 2])
            .collect();
        let bytes = file(rows, 0);
        let index = Index::parse(&bytes).unwrap();
        let map = StemMap::build(&index).unwrap();
        assert!(matches!(map.keys.table, Table::Direct { .. }));
        assert!(map.is_contiguous());
        assert_eq!(map.distinct_stems(), 1000);
        for k in 0..1000u64 {
            let rows: alloc::vec::Vec<u64> = map.lookup(&k.to_string()).map(|e| e.row).collect();
            assert_eq!(rows, [2 * k, 2 * k + 1]);
        }
        assert!(map.lookup("absent").is_empty());
    }

    #[test]
    fn skewed_or_repeated_keys_fall_back_to_the_sorted_layout() {
        // 300 stems with one keyhash (distinct crash ids): a probe sequence of 300.
        let rows: alloc::vec::Vec<RowData> = (0..=300u32).map(|c| row(7, c)).collect();
        let bytes = file(rows, 300);
        let index = Index::parse(&bytes).unwrap();
        let map = StemMap::build(&index).unwrap();
        assert!(matches!(map.keys.table, Table::Sorted { .. }));
        assert!(map.is_contiguous());
        for c in 0..=300u32 {
            assert_eq!(
                map.lookup_key(7, c)
                    .map(|e| e.row)
                    .collect::<alloc::vec::Vec<_>>(),
                [u64::from(c)]
            );
        }
        // A key that comes back later: not contiguous.
        let bytes = file(alloc::vec![row(1, 0), row(2, 0), row(1, 0)], 0);
        let index = Index::parse(&bytes).unwrap();
        let map = StemMap::build(&index).unwrap();
        assert!(matches!(map.keys.table, Table::Sorted { .. }));
        assert!(!map.is_contiguous());
        assert_eq!(
            map.lookup_key(1, 0)
                .map(|e| e.row)
                .collect::<alloc::vec::Vec<_>>(),
            [0, 2]
        );
        // A lying n_stems (1 for 500 stems) overfills the table: sorted again, still right.
        let rows = (0..500u64)
            .map(|k| row(key::keyhash(&k.to_string()), 0))
            .collect();
        let mut bytes = file(rows, 0);
        bytes[16..24].copy_from_slice(&1u64.to_le_bytes());
        let index = Index::parse(&bytes).unwrap();
        let map = StemMap::build(&index).unwrap();
        assert!(matches!(map.keys.table, Table::Sorted { .. }));
        assert_eq!(map.lookup("499").len(), 1);
        assert_ne!(map.distinct_stems(), index.n_stems());
    }
}
