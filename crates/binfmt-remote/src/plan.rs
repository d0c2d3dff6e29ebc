//! Which requests serve a set of ranges: merging, done here rather than by
//! object_store's `get_ranges` so that request counts follow one documented rule (its
//! merge test is `hole <= coalesce`, so even a zero gap merges adjacent ranges: obstore
//! issue 678).

use core::ops::Range;
use std::vec::Vec;

/// Merging never makes one request longer than this (16 MiB), unless the ranges overlap:
/// past that size, separate concurrent requests are faster than one long one.
pub(crate) const MAX_MERGED: u64 = 16 * 1024 * 1024;

/// One request: `span`, serving the ranges whose indices are `members`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Group {
    pub(crate) span: Range<u64>,
    pub(crate) members: Vec<usize>,
}

/// Groups `ranges` (each non-empty, with its index in the caller's list) into requests.
///
/// Sorted by start, a range joins the group before it when it overlaps the group, or
/// when the hole between them is smaller than `gap` bytes and the group stays within
/// [`MAX_MERGED`]. So `gap = 0` merges only overlapping ranges, and `gap = 1` also
/// merges adjacent ones.
pub(crate) fn plan(ranges: &[(usize, Range<u64>)], gap: u64) -> Vec<Group> {
    let mut sorted: Vec<&(usize, Range<u64>)> = ranges.iter().collect();
    sorted.sort_by_key(|(i, r)| (r.start, r.end, *i));
    let mut groups: Vec<Group> = Vec::new();
    for (i, r) in sorted {
        if let Some(g) = groups.last_mut() {
            let overlaps = r.start < g.span.end;
            let hole = r.start.saturating_sub(g.span.end);
            let merged_end = g.span.end.max(r.end);
            let fits = merged_end.saturating_sub(g.span.start) <= MAX_MERGED;
            if overlaps || (hole < gap && fits) {
                g.span.end = merged_end;
                g.members.push(*i);
                continue;
            }
        }
        groups.push(Group {
            span: r.clone(),
            members: std::vec![*i],
        });
    }
    groups
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    fn spans(ranges: &[Range<u64>], gap: u64) -> Vec<Range<u64>> {
        let indexed: Vec<_> = ranges.iter().cloned().enumerate().collect();
        plan(&indexed, gap).into_iter().map(|g| g.span).collect()
    }

    #[test]
    fn gap_rule() {
        let r = [0..10, 10..20, 25..30, 100..110];
        // A zero gap keeps adjacent ranges apart (unlike object_store's `<=`).
        assert_eq!(spans(&r, 0), [0..10, 10..20, 25..30, 100..110]);
        assert_eq!(spans(&r, 1), [0..20, 25..30, 100..110]);
        assert_eq!(spans(&r, 5), [0..20, 25..30, 100..110]);
        assert_eq!(spans(&r, 6), [0..30, 100..110]);
        assert_eq!(spans(&r, 71), [0..110]);
        // Overlaps always merge; order does not matter.
        assert_eq!(spans(&[50..60, 0..10, 5..55], 0), [0..60]);
    }

    #[test]
    fn members_and_size_cap() {
        let indexed = std::vec![(0, 100..200), (1, 0..10), (2, 150..160)];
        let g = plan(&indexed, 0);
        assert_eq!(g[0].members, [1]);
        assert_eq!(g[1].members, [0, 2]);
        let big = [0..MAX_MERGED, MAX_MERGED..MAX_MERGED + 1];
        assert_eq!(spans(&big, 1024).len(), 2);
    }
}
