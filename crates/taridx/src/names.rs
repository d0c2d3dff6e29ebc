//! Name verification: does the member at a row's offset really have the queried stem?
//!
//! A lookup trusts the 64-bit keyhash, so a stem that is absent from the index but
//! collides with an indexed one returns the wrong rows. Verification settles it by
//! reading the member's own header blocks in its shard: the stored offset is the member's
//! *last* header, and a name that came from a pax `path` or a GNU long name is in the
//! extended headers directly before it, which start no earlier than where the previous
//! indexed member of the shard ends. So one member is verified from its own blocks, in
//! O(1) whatever the shard's size, and damage elsewhere in the shard does not matter.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::ops::Range;

use binfmt_core::data::Data;

use crate::error::Result;
use crate::index::{Entry, Index};
use crate::key;
use crate::tar::{self, Member, Name};

/// Verifies member names from their own header blocks.
///
/// A lookup trusts the 64-bit keyhash, so a stem that is absent from the index but
/// collides with an indexed one returns the wrong rows; verification reads the member's
/// name in its shard. The stored offset is the member's *last* header: a name that came
/// from a pax `path` or a GNU long name is in the extended headers directly before it,
/// which start no earlier than where the previous indexed member of the shard ends. So
/// a member is verified from its own blocks ([`member_range`](Self::member_range)), in
/// O(1) whatever the shard's size, and damage elsewhere in the shard does not matter
/// (see [`tar::member_at`] for the rules and the one thing it cannot see).
///
/// Made once per index: O(rows) for an index whose rows are in shard order (every index
/// the indexer writes), O(rows log rows) otherwise; 8 bytes per row.
///
/// ```
/// use taridx::{BuildOptions, Index, StemMap, Verifier, Writer};
/// # fn tar(members: &[(&str, &[u8])]) -> Vec<u8> {
/// #     let mut out = Vec::new();
/// #     for (name, data) in members {
/// #         let mut h = [0u8; 512];
/// #         h[..name.len()].copy_from_slice(name.as_bytes());
/// #         h[100..107].copy_from_slice(b"0000644");
/// #         h[124..135].copy_from_slice(format!("{:011o}", data.len()).as_bytes());
/// #         h[156] = b'0';
/// #         h[257..263].copy_from_slice(b"ustar\0");
/// #         h[263..265].copy_from_slice(b"00");
/// #         h[148..156].copy_from_slice(b"        ");
/// #         let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
/// #         h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
/// #         out.extend_from_slice(&h);
/// #         out.extend_from_slice(data);
/// #         out.resize(out.len().div_ceil(512) * 512, 0);
/// #     }
/// #     out.resize(out.len() + 1024, 0);
/// #     out
/// # }
/// let shard = tar(&[("a.jpg", b"JPEG"), ("a.cls", b"7")]);
/// let mut writer = Writer::new(BuildOptions::strict());
/// writer.add("train_0000.tar", &shard)?;
/// let bytes = writer.finish()?.index.to_vec()?;
/// let index = Index::parse(&bytes)?;
/// let map = StemMap::build(&index)?;
/// let verifier = Verifier::new(&index);
/// for entry in map.lookup("a") {
///     assert!(verifier.verify(&entry, "a", &shard)?);
///     assert!(!verifier.verify(&entry, "b", &shard)?);
/// }
/// # Ok::<(), taridx::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Verifier {
    /// For each row: where the previous row of its shard (in offset order) ends.
    lower: Vec<u64>,
}

impl Verifier {
    /// Prepares verification for the rows of `index`.
    #[must_use]
    pub fn new<'d, D: Data<'d>>(index: &Index<'d, D>) -> Self {
        let rows = index.raw_rows();
        let key = |r: &crate::raw::Row| (r.fid.get(), r.offset.get());
        let end = |r: &crate::raw::Row| Entry::decode(0, r).next_header();
        let in_order = rows.windows(2).all(|w| match w {
            [a, b] => key(a) < key(b),
            _ => true,
        });
        let mut lower = alloc::vec![0u64; rows.len()];
        if in_order {
            for (i, pair) in rows.windows(2).enumerate() {
                if let ([a, b], Some(l)) = (pair, lower.get_mut(i + 1))
                    && a.fid.get() == b.fid.get()
                {
                    *l = end(a);
                }
            }
        } else {
            let mut order: Vec<usize> = (0..rows.len()).collect();
            order.sort_unstable_by_key(|&i| rows.get(i).map(key));
            // Rows at the same offset share the end of the last row before that offset.
            let (mut group, mut group_lower, mut last_end) = (None, 0u64, 0u64);
            for &i in &order {
                let Some(r) = rows.get(i) else { continue };
                if group != Some(key(r)) {
                    group_lower = if group.is_some_and(|(fid, _)| fid == r.fid.get()) {
                        last_end
                    } else {
                        0
                    };
                    group = Some(key(r));
                }
                if let Some(l) = lower.get_mut(i) {
                    *l = group_lower;
                }
                last_end = end(r);
            }
        }
        Verifier { lower }
    }

    /// Where the extended headers of `entry`'s member can start in its shard (see
    /// [`tar::chain_start`]).
    #[must_use]
    pub fn chain_start(&self, entry: &Entry) -> u64 {
        let lower = usize::try_from(entry.row)
            .ok()
            .and_then(|i| self.lower.get(i))
            .copied()
            .unwrap_or(0);
        tar::chain_start(lower, entry.offset)
    }

    /// The bytes of the shard that hold `entry`'s header blocks and its payload: one read
    /// of this range verifies the name and yields the payload. `None` on overflow.
    #[must_use]
    pub fn member_range(&self, entry: &Entry) -> Option<Range<u64>> {
        Some(self.chain_start(entry)..entry.payload_end()?)
    }

    /// The member `entry` points at, resolved from `window`, the shard's bytes from
    /// offset `base` on (all of the shard, or at least [`member_range`](Self::member_range)).
    ///
    /// # Errors
    /// As [`tar::member_at`].
    pub fn member<'w>(
        &self,
        entry: &Entry,
        window: &'w [u8],
        base: u64,
    ) -> Result<Option<Member<'w>>> {
        let lower = self.chain_start(entry);
        tar::member_at(window, base, entry.offset, lower, entry.fid)
    }

    /// True when the member `entry` points at has the stem of `query` (the stem rule is
    /// applied to both). `shard` is all of the entry's shard (a memory map: only the
    /// member's header blocks are read).
    ///
    /// # Errors
    /// As [`tar::member_at`]: damage in the member's own header blocks.
    pub fn verify(&self, entry: &Entry, query: &str, shard: &[u8]) -> Result<bool> {
        self.verify_window(entry, query, shard, 0)
    }

    /// As [`verify`](Self::verify), from `window`, the shard's bytes from offset `base`
    /// on (a ranged read of [`member_range`](Self::member_range)).
    ///
    /// # Errors
    /// As [`tar::member_at`].
    pub fn verify_window(
        &self,
        entry: &Entry,
        query: &str,
        window: &[u8],
        base: u64,
    ) -> Result<bool> {
        Ok(self
            .member(entry, window, base)?
            .is_some_and(|m| has_stem(&m.name, key::stem(query))))
    }
}

/// True when `name`'s stem is `stem` (invalid UTF-8 compared as the indexer's lossy
/// names decode it).
pub(crate) fn has_stem(name: &Name<'_>, stem: &str) -> bool {
    let base = name.basename();
    let own = match base.iter().position(|&b| b == b'.') {
        Some(i) => base.get(..i).unwrap_or(&[]),
        None => base,
    };
    // `/` and `.` are ASCII, so splitting before decoding is splitting after decoding.
    let text: Cow<'_, str> = String::from_utf8_lossy(own);
    text == stem
}
