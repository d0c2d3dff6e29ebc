//! The undo record an in-place append leaves at the end of the file until it has committed
//! (see `fs::append` and docs/bloscpack.md, "Append": the crash-consistency protocol).
//!
//! ```text
//! | body | trailer (24) |                       at the very end of the file
//! body:    old_end u64 | new_end u64 | new_header [32] | old_header [32] |
//!          patch count u64 | (at u64, len u64, bytes)…   the bytes the append replaces
//! trailer: b"blpkUNDO" | body length u64 | CRC-32 of the body u32 | 4 zero bytes
//! ```
//!
//! All integers little-endian. Parsing needs no allocation, so `verify` recognises a
//! record in `no_std`.

use binfmt_core::bytes::{self, Cursor, len_u64, to_u64};

/// The trailer's signature.
pub(crate) const MAGIC: &[u8; 8] = b"blpkUNDO";
/// The trailer's size.
pub(crate) const TRAILER: usize = 24;
/// The body's fixed part: two ends, two headers, the patch count.
const FIXED: u64 = 8 + 8 + 32 + 32 + 8;

/// An undo record, borrowed from the end of a file.
#[derive(Debug, Clone, Copy)]
// Without `blosc` (no append, no repair) only `verify`'s detection reads it.
#[cfg_attr(not(feature = "blosc"), allow(dead_code))]
pub(crate) struct Record<'a> {
    /// Where the record (its body) starts.
    pub(crate) at: u64,
    /// The committed end before the append.
    pub(crate) old_end: u64,
    /// The committed end after it.
    pub(crate) new_end: u64,
    /// The header the append commits.
    pub(crate) new_header: &'a [u8],
    /// The header before it.
    pub(crate) old_header: &'a [u8],
    patches: &'a [u8],
    count: u64,
}

impl<'a> Record<'a> {
    /// The record at the end of `data` (whose first byte is at file offset `base`), if
    /// its trailer and CRC are sound. Offsets in the record are file offsets.
    pub(crate) fn find(data: &'a [u8], base: u64) -> Option<Record<'a>> {
        let total = len_u64(data);
        let trailer_at = total.checked_sub(to_u64(TRAILER))?;
        let trailer = bytes::slice(data, trailer_at, to_u64(TRAILER), "undo trailer").ok()?;
        let (magic, rest) = trailer.split_at_checked(8)?;
        if magic != MAGIC {
            return None;
        }
        let body_len = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?);
        let crc = u32::from_le_bytes(rest.get(8..12)?.try_into().ok()?);
        let at = trailer_at.checked_sub(body_len)?;
        let body = bytes::slice(data, at, body_len, "undo record").ok()?;
        if crc32fast::hash(body) != crc || body_len < FIXED {
            return None;
        }
        let at = base.checked_add(at)?;
        let mut c = Cursor::new(body, at);
        let u64_ = |c: &mut Cursor<'a>| -> Option<u64> {
            Some(u64::from_le_bytes(c.take(8, "undo").ok()?.try_into().ok()?))
        };
        let old_end = u64_(&mut c)?;
        let new_end = u64_(&mut c)?;
        let new_header = c.take(32, "undo").ok()?;
        let old_header = c.take(32, "undo").ok()?;
        let count = u64_(&mut c)?;
        let patches = c.take_rest();
        let record = Record {
            at,
            old_end,
            new_end,
            new_header,
            old_header,
            patches,
            count,
        };
        // Every patch must be well-formed and lie below the record.
        let mut n = 0u64;
        for (offset, bytes) in record.patches() {
            n += 1;
            if offset.checked_add(len_u64(bytes))? > at {
                return None;
            }
        }
        (n == count && old_end <= at && new_end <= at).then_some(record)
    }

    /// The (offset, old bytes) pairs to write back.
    #[cfg_attr(not(feature = "blosc"), allow(dead_code))]
    pub(crate) fn patches(&self) -> impl Iterator<Item = (u64, &'a [u8])> + 'a {
        let mut c = Cursor::new(self.patches, 0);
        let mut left = self.count;
        core::iter::from_fn(move || {
            if left == 0 {
                return None;
            }
            left -= 1;
            let at = u64::from_le_bytes(c.take(8, "undo").ok()?.try_into().ok()?);
            let len = u64::from_le_bytes(c.take(8, "undo").ok()?.try_into().ok()?);
            Some((at, c.take(len, "undo").ok()?))
        })
    }
}

/// Encodes a record (body then trailer).
#[cfg(feature = "blosc")]
pub(crate) fn encode(
    old_end: u64,
    new_end: u64,
    new_header: &[u8; 32],
    old_header: &[u8; 32],
    patches: &[(u64, &[u8])],
) -> alloc::vec::Vec<u8> {
    let mut body = alloc::vec::Vec::new();
    body.extend_from_slice(&old_end.to_le_bytes());
    body.extend_from_slice(&new_end.to_le_bytes());
    body.extend_from_slice(new_header);
    body.extend_from_slice(old_header);
    body.extend_from_slice(&to_u64(patches.len()).to_le_bytes());
    for (at, bytes) in patches {
        body.extend_from_slice(&at.to_le_bytes());
        body.extend_from_slice(&len_u64(bytes).to_le_bytes());
        body.extend_from_slice(bytes);
    }
    let crc = crc32fast::hash(&body);
    let len = len_u64(&body);
    body.extend_from_slice(MAGIC);
    body.extend_from_slice(&len.to_le_bytes());
    body.extend_from_slice(&crc.to_le_bytes());
    body.extend_from_slice(&[0; 4]);
    body
}

#[cfg(all(test, feature = "blosc"))]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_refuse_damage() {
        let mut file = alloc::vec![7u8; 100];
        let rec = encode(60, 90, &[1; 32], &[2; 32], &[(0, &[2; 32]), (40, b"old")]);
        file.extend_from_slice(&rec);
        let r = Record::find(&file, 0).unwrap();
        assert_eq!((r.at, r.old_end, r.new_end), (100, 60, 90));
        let patches: alloc::vec::Vec<_> = r.patches().collect();
        assert_eq!(patches, [(0, &[2u8; 32][..]), (40, &b"old"[..])]);
        let n = file.len();
        file[n - 30] ^= 1;
        assert!(Record::find(&file, 0).is_none());
        assert!(Record::find(b"blpkUNDO", 0).is_none());
    }
}
