//! One set of rules, two kinds of data: `verify` over the bytes and `verify_data` over a
//! range cache (`ReadCache<&Counting<&[u8]>>`) must report exactly the same findings, in
//! the same order, with the same summary, on every file, however damaged.
//!
//! Every format crate has a `tests/verify_data.rs` that runs this over its fixtures and
//! files it builds, with the truncations and corruptions that reach its own structures
//! (a [`Damage`]); the format's `verify` and `verify_data` come in as closures, since this
//! crate depends on no format crate.

use core::fmt::Debug;

use binfmt_core::Summary;
use binfmt_core::cache::ReadCache;
use binfmt_core::source::Counting;
use binfmt_core::verify::Findings;

/// The range cache `verify_data` reads through: over the bytes, counting what it asks for.
pub type Cache<'s> = ReadCache<&'s Counting<&'s [u8]>>;

/// How many findings of each severity are kept: more than any fixture produces, so that
/// a difference late in a file is not cut off.
const KEPT: usize = 1000;

/// The findings and summary of `slice` over `data` and of `ranged` over a cache of the
/// same bytes, each as one line of text (equal when the two agree).
pub fn both<E: Debug>(
    data: &[u8],
    slice: impl FnOnce(&[u8], &mut Findings<E>) -> Summary,
    ranged: impl FnOnce(&Cache<'_>, &mut Findings<E>) -> Summary,
) -> (String, String) {
    let mut found = Findings::new(KEPT);
    let a = slice(data, &mut found);
    let source = Counting::new(data);
    let cache = ReadCache::new(&source);
    let mut ranged_found = Findings::new(KEPT);
    let b = ranged(&cache, &mut ranged_found);
    (
        format!("{a:?} {:?} {:?}", found.errors(), found.warnings()),
        format!(
            "{b:?} {:?} {:?}",
            ranged_found.errors(),
            ranged_found.warnings()
        ),
    )
}

/// What a cache held and its source gave while `verify_data` read a file.
#[derive(Debug, Clone, Copy)]
pub struct Cached {
    /// The summary `verify_data` returned.
    pub summary: Summary,
    /// What the cache holds after it.
    pub held: u64,
    /// How many bytes it read from the source.
    pub read: u64,
}

/// Runs `ranged` (a format's `verify_data`) over a cache of `data`, which must find no
/// error, and says what the cache held and read (a `verify_data` must not keep payloads).
pub fn verify_cached<E: Debug>(
    data: &[u8],
    ranged: impl FnOnce(&Cache<'_>, &mut Findings<E>) -> Summary,
) -> Cached {
    let source = Counting::new(data);
    let cache = ReadCache::new(&source);
    let mut findings = Findings::new(10);
    let summary = ranged(&cache, &mut findings);
    assert!(summary.is_valid(), "{:?}", findings.errors());
    Cached {
        summary,
        held: cache.held(),
        read: source.stats().bytes,
    }
}

/// `|data, options| both(…)` for the format crate `$krate`, through the names every
/// format crate shares (`verify`, `verify_data`, `ReadOptions`: docs/architecture.md, "One
/// vocabulary for every format crate"); the closure [`assert_all_agree`] takes.
#[macro_export]
macro_rules! verify_pair {
    ($krate:ident) => {
        |data: &[u8], options: &$krate::ReadOptions| {
            $crate::agree::both(
                data,
                |d, f| $krate::verify(d, options, f),
                |c, f| $krate::verify_data(c, options, f),
            )
        }
    };
}

/// Which damaged copies of a file [`variants`] makes, chosen per format to reach its
/// header, tables and payload.
#[derive(Debug, Clone, Copy)]
pub struct Damage<'a> {
    /// Lengths to truncate to (besides empty, half and all but the last byte); lengths
    /// past the end keep the whole file.
    pub cuts: &'a [usize],
    /// Bytes to append, one copy each.
    pub tails: &'a [&'a [u8]],
    /// Also append the file to itself (a second file after the first).
    pub doubled: bool,
    /// Where single bytes are changed.
    pub at: Positions,
    /// The values each of those bytes is set to, one copy each.
    pub values: &'a [u8],
}

/// Where [`variants`] changes single bytes.
#[derive(Debug, Clone, Copy)]
pub enum Positions {
    /// About this many positions spread evenly over the whole file (every byte of a
    /// shorter one).
    Spread(usize),
    /// Every `step`th byte of the first `len` (a format whose structure is at the start).
    Prefix {
        /// How many leading bytes.
        len: usize,
        /// The distance between changed bytes.
        step: usize,
    },
}

/// `data` itself, empty, truncated, with bytes appended, and with single bytes changed, as
/// `damage` says.
pub fn variants(data: &[u8], damage: &Damage<'_>) -> Vec<Vec<u8>> {
    let mut out = vec![data.to_vec(), Vec::new()];
    let fixed = damage.cuts.iter().copied();
    for cut in fixed.chain([data.len() / 2, data.len().saturating_sub(1)]) {
        out.push(data.get(..cut).unwrap_or(data).to_vec());
    }
    let doubled = damage.doubled.then_some(data);
    for tail in damage.tails.iter().copied().chain(doubled) {
        let mut v = data.to_vec();
        v.extend_from_slice(tail);
        out.push(v);
    }
    let (end, step) = match damage.at {
        Positions::Spread(n) => (data.len(), (data.len() / n.max(1)).max(1)),
        Positions::Prefix { len, step } => (data.len().min(len), step.max(1)),
    };
    for at in (0..end).step_by(step) {
        for &value in damage.values {
            let mut v = data.to_vec();
            if let Some(byte) = v.get_mut(at) {
                *byte = value;
            }
            out.push(v);
        }
    }
    out
}

/// Checks that `both` agrees on every variant of every file under every one of
/// `options`, naming the file on a failure, and that it made more than 1000 comparisons
/// (fewer means the fixtures were not found); returns how many it made.
pub fn assert_all_agree<O>(
    files: &[(String, Vec<u8>)],
    damage: &Damage<'_>,
    options: &[O],
    both: impl Fn(&[u8], &O) -> (String, String),
) -> usize {
    let mut checked = 0;
    for (name, data) in files {
        for v in variants(data, damage) {
            for o in options {
                let (slice, ranged) = both(&v, o);
                assert_eq!(slice, ranged, "{name}");
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "only {checked} comparisons");
    checked
}
