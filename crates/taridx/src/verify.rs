//! Whole-index verification: every rule of `Index::parse` and the deep checks, every
//! problem reported.

use alloc::vec::Vec;
use core::ops::ControlFlow;

use binfmt_core::bytes;
use binfmt_core::data::Data;
use binfmt_core::verify::{Sink, Tally};

use crate::error::{Block, Error};
use crate::index::{self, HEAD_SIZE, HEADER_LEN, IdBounds, Index, ROW_LEN};
use crate::options::ReadOptions;
use crate::raw;

binfmt_core::verify_fns! {
    /// Checks a whole index and reports every problem to `sink`: the header and block checks
    /// of [`Index::parse_with`] (the same functions), every row whose ids are out of range,
    /// and, when every id is in range, `n_stems` and flag bit 0 against the rows. The
    /// index's [warnings](Index::warnings) are reported at
    /// [`Severity::Warning`](binfmt_core::Severity::Warning); with lenient `options`, so are
    /// the header sizes and row ids such a read ignores.
    ///
    /// Only the index is read, never its shards. Memory is O(rows) for the deep checks (the
    /// keys of each run of rows are sorted), never O(problems); the sink may stop the walk.
    ///
    /// ```
    /// use binfmt_core::verify::Findings;
    /// use taridx::{IndexFile, ReadOptions, RowData, keyhash, verify};
    ///
    /// let row = RowData { fid: 0, offset: 0, size: 1, extid: 0, crashid: 0, keyhash: keyhash("a") };
    /// let mut bytes = IndexFile::new(vec!["jpg".into()], vec![], vec![row])?.to_vec()?;
    /// bytes[16] = 9; // n_stems
    /// bytes[64 + 3 + 18] = 4; // row 0's extid
    /// let mut findings = Findings::new(10);
    /// let summary = verify(&bytes, &ReadOptions::new(), &mut findings);
    /// assert!(!summary.is_valid());
    /// assert_eq!(findings.errors()[0].to_string(), "byte 85: row 0 has extension id 4, but the index has 1 extensions");
    /// // The deep checks need valid ids; fix the row and the stem count is reported.
    /// bytes[64 + 3 + 18] = 0;
    /// let mut findings = Findings::new(10);
    /// verify(&bytes, &ReadOptions::new(), &mut findings);
    /// assert!(findings.errors()[0].to_string().starts_with("byte 16: the header declares 9 stems"));
    /// # Ok::<(), taridx::Error>(())
    /// ```
    pub fn verify;

    /// [`verify`] over any [`Data`]: a slice, or a
    /// [`ReadCache`](binfmt_core::cache::ReadCache) over a file or an object store, with the
    /// same rules and the same findings.
    ///
    /// Over a cache the header and the two text blocks are read by ranges and kept; the rows
    /// are read with [`Data::payload`] in pieces of 256 Ki rows (8 MiB), announced with
    /// [`Data::prefetch`], and not kept: a second pass reads them again only to locate rows
    /// with ids out of range. Memory is then the deep checks' O(distinct keys), not the
    /// index's size. An I/O error is reported as an error.
    ///
    /// ```
    /// use binfmt_core::cache::ReadCache;
    /// use binfmt_core::source::Counting;
    /// use binfmt_core::verify::Findings;
    /// use taridx::{IndexFile, ReadOptions, RowData, keyhash};
    ///
    /// let rows = (0..10_000u64)
    ///     .map(|i| RowData { fid: 0, offset: i * 1024, size: 1, extid: 0, crashid: 0, keyhash: keyhash(&i.to_string()) })
    ///     .collect();
    /// let bytes = IndexFile::new(vec!["jpg".into()], vec![], rows)?.to_vec()?;
    /// let cache = ReadCache::new(Counting::new(&bytes[..]));
    /// let mut findings = Findings::new(10);
    /// assert!(taridx::verify_data(&cache, &ReadOptions::new(), &mut findings).is_valid());
    /// assert!(cache.held() < 70_000); // not the 320 KB of rows
    /// # Ok::<(), taridx::Error>(())
    /// ```
    pub fn verify_data => walk, walk_ranged;
}
/// The most rows [`verify_data`] reads at once over a cache: 256 Ki rows (8 MiB).
const ROWS_PER_PIECE: u64 = 256 << 10;

/// Reports the error of `result`, if any.
fn report<S: Sink<Error> + ?Sized>(
    tally: &mut Tally<'_, S>,
    result: Result<(), Error>,
) -> ControlFlow<()> {
    match result {
        Ok(()) => ControlFlow::Continue(()),
        Err(e) => tally.error(e),
    }
}

/// The header's size fields (when checked) and its warnings, on either path.
fn header_rules<S: Sink<Error> + ?Sized>(
    header: &crate::raw::Header,
    compatibility: binfmt_core::Compatibility,
    options: &ReadOptions,
    tally: &mut Tally<'_, S>,
) -> ControlFlow<()> {
    if options.get_header_sizes() {
        report(tally, index::rec_size_rule(header))?;
        report(tally, index::hdr_size_rule(header))?;
    }
    for warning in index::warnings(header, compatibility, options) {
        tally.warning(warning)?;
    }
    ControlFlow::Continue(())
}

/// The extension and crash-stem blocks and their counts, on either path: each block's
/// text, empty when it cannot be read (its problem reported).
fn text_blocks<'d, D: Data<'d>, S: Sink<Error> + ?Sized>(
    data: D,
    header: &crate::raw::Header,
    off_crash: u64,
    off_arr: u64,
    tally: &mut Tally<'_, S>,
) -> ControlFlow<(), (&'d [u8], &'d [u8])>
where
    Error: From<D::Error>,
{
    let mut blocks = [(&[][..], Block::Extensions), (&[][..], Block::CrashStems)];
    for ((text, block), (start, end, count)) in blocks.iter_mut().zip([
        (HEADER_LEN, off_crash, header.n_ext.get()),
        (off_crash, off_arr, header.n_crash.get()),
    ]) {
        if let Some(t) = tally.check(index::text_block(data, start, end, *block)) {
            report(tally, index::count_rule(t, *block, count))?;
            *text = t;
        }
    }
    let [(exts, _), (crash, _)] = blocks;
    ControlFlow::Continue((exts, crash))
}

fn walk<S: Sink<Error> + ?Sized>(
    data: &[u8],
    options: &ReadOptions,
    tally: &mut Tally<'_, S>,
) -> ControlFlow<()> {
    let Some((header, compatibility)) = tally.check(index::header_rule(data)) else {
        return ControlFlow::Break(());
    };
    header_rules(header, compatibility, options, tally)?;
    let file_len = bytes::len_u64(data);
    let Some((off_crash, off_arr)) = tally.check(index::offsets_rule(header, file_len)) else {
        return ControlFlow::Break(());
    };
    let rows = tally.check(index::rows_rule(data, header, off_arr, file_len));
    let (exts, crash) = text_blocks(data, header, off_crash, off_arr, tally)?;
    let Some(rows) = rows else {
        return ControlFlow::Continue(());
    };
    if tally.is_stopped() {
        return ControlFlow::Break(());
    }
    let index = Index::assemble(data, header, exts, crash, rows, compatibility, options);
    let bounds = IdBounds::of(&index);
    // One branch-free pass; the offending rows are located only if there are some.
    let bad = rows
        .iter()
        .fold(false, |bad, r| bad | bounds.out_of_range(r));
    if bad {
        for (i, r) in (0u64..).zip(rows) {
            if let Err(e) = index::row_rule(&index, i, r) {
                if options.get_row_ids() {
                    tally.error(e)?;
                } else {
                    tally.warning(e)?;
                }
            }
        }
        if options.get_row_ids() {
            // The deep checks would only repeat the damage in other words.
            return ControlFlow::Continue(());
        }
    }
    let (distinct, runs) = stem_counts(rows.iter().map(|r| (r.keyhash.get(), r.crashid.get())));
    report(tally, index::stem_count_rule(&index, distinct))?;
    report(tally, index::flag_rule(&index, runs == distinct))
}

/// [`walk`] over a cache: the same rules in the same order, the rows read in pieces.
fn walk_ranged<'d, D: Data<'d>, S: Sink<Error> + ?Sized>(
    data: D,
    options: &ReadOptions,
    tally: &mut Tally<'_, S>,
) -> ControlFlow<()>
where
    Error: From<D::Error>,
{
    let Some(head) = tally.check(data.head(HEAD_SIZE).map_err(Error::from)) else {
        return ControlFlow::Break(());
    };
    let Some((header, compatibility)) = tally.check(index::header_rule(head)) else {
        return ControlFlow::Break(());
    };
    header_rules(header, compatibility, options, tally)?;
    let Some(file_len) = tally.check(data.size().map_err(Error::from)) else {
        return ControlFlow::Break(());
    };
    let Some((off_crash, off_arr)) = tally.check(index::offsets_rule(header, file_len)) else {
        return ControlFlow::Break(());
    };
    let n_rows = tally.check(index::row_count_rule(header, off_arr, file_len));
    let held = bytes::len_u64(head);
    if off_arr > held
        && let Err(e) = data.hint(core::slice::from_ref(&(HEADER_LEN..off_arr)))
    {
        tally.error(e.into())?;
    }
    let (exts, crash) = text_blocks(data, header, off_crash, off_arr, tally)?;
    let Some(n_rows) = n_rows else {
        return ControlFlow::Continue(());
    };
    if tally.is_stopped() {
        return ControlFlow::Break(());
    }
    let index = Index::assemble(data, header, exts, crash, &[], compatibility, options);
    let bounds = IdBounds::of(&index);
    // One pass for the ids and the keys; a second, only if some ids are out of range, to
    // locate them.
    let mut stems = StemCounter::default();
    let mut bad = false;
    for_rows(data, off_arr, n_rows, tally, |_, (_, r)| {
        bad |= bounds.out_of_range(r);
        stems.push((r.keyhash.get(), r.crashid.get()));
        ControlFlow::Continue(())
    })?;
    if bad {
        for_rows(data, off_arr, n_rows, tally, |tally, (i, r)| {
            if let Err(e) = index::row_rule(&index, i, r) {
                if options.get_row_ids() {
                    tally.error(e)?;
                } else {
                    tally.warning(e)?;
                }
            }
            ControlFlow::Continue(())
        })?;
        if options.get_row_ids() {
            return ControlFlow::Continue(());
        }
    }
    let (distinct, runs) = stems.finish();
    report(tally, index::stem_count_rule(&index, distinct))?;
    report(tally, index::flag_rule(&index, runs == distinct))
}

/// Calls `each` with every row (and its index) of the `n_rows` at `off_arr`, read in
/// pieces announced first; an I/O error is reported and ends the walk.
fn for_rows<'d, D: Data<'d>, S: Sink<Error> + ?Sized>(
    data: D,
    off_arr: u64,
    n_rows: u64,
    tally: &mut Tally<'_, S>,
    mut each: impl FnMut(&mut Tally<'_, S>, (u64, &raw::Row)) -> ControlFlow<()>,
) -> ControlFlow<()>
where
    Error: From<D::Error>,
{
    let piece = |first: u64| {
        let count = ROWS_PER_PIECE.min(n_rows - first);
        let start = off_arr.saturating_add(first.saturating_mul(ROW_LEN));
        start..start.saturating_add(count.saturating_mul(ROW_LEN))
    };
    let firsts = || (0..n_rows).step_by(usize::try_from(ROWS_PER_PIECE).unwrap_or(usize::MAX));
    let pieces: Vec<_> = firsts().map(piece).collect();
    if let Err(e) = data.prefetch(&pieces) {
        return tally.error(e.into());
    }
    for (first, range) in firsts().zip(pieces) {
        let len = range.end - range.start;
        // Without `std` there is no cache (binfmt-core's `payload` needs its `alloc`):
        // only slices and borrowing `Data`.
        #[cfg(feature = "std")]
        let read = data.payload(range.start, len, "rows");
        #[cfg(not(feature = "std"))]
        let read = data
            .bytes(range.start, len, "rows")
            .map(alloc::borrow::Cow::Borrowed);
        let bytes = match read {
            Ok(bytes) => bytes,
            Err(e) => return tally.error(e.into()),
        };
        // Whole rows: the piece is a multiple of the row size.
        let rows = <[raw::Row] as zerocopy::FromBytes>::ref_from_bytes(&bytes).unwrap_or_default();
        for (i, r) in (first..).zip(rows) {
            each(&mut *tally, (i, r))?;
        }
    }
    ControlFlow::Continue(())
}

/// [`stem_counts`], fed one key at a time.
#[derive(Default)]
struct StemCounter {
    all: Vec<(u64, u32)>,
    runs: u64,
    prev: Option<(u64, u32)>,
}

impl StemCounter {
    fn push(&mut self, key: (u64, u32)) {
        if self.prev != Some(key) {
            self.runs += 1;
            self.all.push(key);
            self.prev = Some(key);
        }
    }

    fn finish(mut self) -> (u64, u64) {
        self.all.sort_unstable();
        self.all.dedup();
        (bytes::to_u64(self.all.len()), self.runs)
    }
}

/// The number of distinct `(keyhash, crashid)` keys, and of runs of equal keys in order:
/// the definition of `n_stems` and of flag bit 0 (contiguous iff runs = distinct).
pub(crate) fn stem_counts(keys: impl Iterator<Item = (u64, u32)>) -> (u64, u64) {
    let mut counter = StemCounter::default();
    for key in keys {
        counter.push(key);
    }
    counter.finish()
}
