//! Whole-index verification: every rule of `Index::parse` and the deep checks, every
//! problem reported.

use alloc::vec::Vec;
use core::ops::ControlFlow;

use binfmt_core::bytes;
use binfmt_core::verify::{Sink, Summary, Tally};

use crate::error::{Block, Error};
use crate::index::{self, HEADER_LEN, Index};
use crate::options::ReadOptions;

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
pub fn verify(data: &[u8], options: &ReadOptions, sink: &mut dyn Sink<Error>) -> Summary {
    let mut tally = Tally::new(sink);
    let _ = walk(data, options, &mut tally);
    tally.finish()
}

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

fn walk<S: Sink<Error> + ?Sized>(
    data: &[u8],
    options: &ReadOptions,
    tally: &mut Tally<'_, S>,
) -> ControlFlow<()> {
    let Some((header, compatibility)) = tally.check(index::header_rule(data)) else {
        return ControlFlow::Break(());
    };
    if options.checks_header_sizes() {
        report(tally, index::rec_size_rule(header))?;
        report(tally, index::hdr_size_rule(header))?;
    }
    for warning in index::warnings(header, compatibility, options) {
        tally.warning(warning)?;
    }
    let file_len = bytes::len_u64(data);
    let Some((off_crash, off_arr)) = tally.check(index::offsets_rule(header, file_len)) else {
        return ControlFlow::Break(());
    };
    let rows = tally.check(index::rows_rule(data, header, off_arr, file_len));
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
    let Some(rows) = rows else {
        return ControlFlow::Continue(());
    };
    if tally.is_stopped() {
        return ControlFlow::Break(());
    }
    let [(exts, _), (crash, _)] = blocks;
    let index = Index::assemble(data, header, exts, crash, rows, compatibility, options);
    let (n_ext, n_crash) = (index.n_ext(), index.n_crash());
    // One branch-free pass; the offending rows are located only if there are some.
    let bad = rows.iter().fold(false, |bad, r| {
        bad | (u32::from(r.extid.get()) >= n_ext) | (r.crashid.get() > n_crash)
    });
    if bad {
        for (i, r) in (0u64..).zip(rows) {
            if let Err(e) = index::row_rule(&index, i, r) {
                if options.checks_row_ids() {
                    tally.error(e)?;
                } else {
                    tally.warning(e)?;
                }
            }
        }
        if options.checks_row_ids() {
            // The deep checks would only repeat the damage in other words.
            return ControlFlow::Continue(());
        }
    }
    let (distinct, runs) = stem_counts(rows.iter().map(|r| (r.keyhash.get(), r.crashid.get())));
    report(tally, index::stem_count_rule(&index, distinct))?;
    report(tally, index::flag_rule(&index, runs == distinct))
}

/// The number of distinct `(keyhash, crashid)` keys, and of runs of equal keys in order:
/// the definition of `n_stems` and of flag bit 0 (contiguous iff runs = distinct).
pub(crate) fn stem_counts(keys: impl Iterator<Item = (u64, u32)>) -> (u64, u64) {
    let mut all: Vec<(u64, u32)> = Vec::new();
    let mut runs = 0u64;
    let mut prev = None;
    for key in keys {
        if prev != Some(key) {
            runs += 1;
            all.push(key);
            prev = Some(key);
        }
    }
    all.sort_unstable();
    all.dedup();
    (bytes::to_u64(all.len()), runs)
}
