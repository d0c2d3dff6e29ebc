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
//!
//! # When a record counts: [`in_flight`]
//!
//! A record is honoured only where the file's committed state says an edit was in
//! flight, never because some bytes at the end of the file look like one (a chunk stored
//! as is ends with whatever the user packed). [`in_flight`] is the one place that
//! decides it, for `verify`, `append` and `fs::repair` alike (docs/edit-protocol.md):
//!
//! 1. the committed state is read first, from the header at byte 0, the metadata header,
//!    the offsets entry of the last chunk and that chunk's Blosc header: it says where
//!    the committed file ends (`E`). A file without offsets, with an unknown chunk count
//!    or with a last offset that points nowhere has no edit in flight (append refuses
//!    such files, so it never wrote a record there);
//! 2. the record (trailer, CRC) must start at or after `E`, in bytes that are not part
//!    of the committed file; bytes below `E` are never read as a record;
//! 3. it must refer back to the committed state: the header at byte 0 is its new header
//!    and `E` is its new end (the append committed), or the header is its old header or
//!    its new one with `E` elsewhere (it did not, or the commit write was torn);
//! 4. its patches write nothing below the offsets section (the header is restored from
//!    the record's old header, which equals the header in place or the one the append
//!    wrote), nothing at or past the record, and its old end is not inside the prefix.

use binfmt_core::bytes::{self, Cursor, len_u64, to_u64};

use crate::chunk::ChunkHeader;
use crate::error::Result;
use crate::header::Header;
use crate::options::ReadOptions;
use crate::raw::{HEADER_SIZE, METADATA_HEADER_SIZE, MetadataHeader};

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

/// Positioned reads for [`in_flight`]: the bytes in memory (`verify`, no allocation) or
/// an open file (`append`, `fs::repair`).
pub(crate) trait Peek {
    /// The bytes of one read.
    type Buf<'s>: core::ops::Deref<Target = [u8]>
    where
        Self: 's;

    /// The length of the file.
    ///
    /// # Errors
    /// I/O errors.
    fn total(&self) -> Result<u64>;

    /// `len` bytes at `at`, or `None` when they are not all in the file.
    ///
    /// # Errors
    /// I/O errors.
    fn peek(&self, at: u64, len: u64) -> Result<Option<Self::Buf<'_>>>;
}

impl Peek for [u8] {
    type Buf<'s> = &'s [u8];

    fn total(&self) -> Result<u64> {
        Ok(len_u64(self))
    }

    fn peek(&self, at: u64, len: u64) -> Result<Option<&[u8]>> {
        Ok(bytes::slice(self, at, len, "undo record").ok())
    }
}

#[cfg(feature = "blosc")]
impl Peek for binfmt_core::source::FileSource {
    type Buf<'s> = alloc::borrow::Cow<'s, [u8]>;

    fn total(&self) -> Result<u64> {
        binfmt_core::source::ByteSource::len(self).map_err(crate::error::io)
    }

    fn peek(&self, at: u64, len: u64) -> Result<Option<Self::Buf<'_>>> {
        let total = self.total()?;
        match at.checked_add(len) {
            Some(end) if end <= total => {
                binfmt_core::source::read_exact(self, at, len, "undo record")
                    .map(Some)
                    .map_err(crate::error::Error::from)
            }
            _ => Ok(None),
        }
    }
}

/// Where the committed file ends, as its committed state says: the end of the chunk the
/// last used offsets entry points at (its Blosc header's `cbytes` plus the digest).
/// Also where the offsets section starts. `None` when the file has no offsets section
/// or no known chunk count, or the last entry points nowhere: no append ever ran on it.
fn committed_end<S: Peek + ?Sized>(src: &S, header: &Header) -> Result<Option<(u64, u64)>> {
    let Some(nchunks) = header.nchunks() else {
        return Ok(None);
    };
    if !header.has_offsets() || nchunks > header.offsets_len() {
        return Ok(None);
    }
    let mut offsets_at = to_u64(HEADER_SIZE);
    if header.has_metadata() {
        let meta_len = to_u64(METADATA_HEADER_SIZE);
        let Some(meta) = src.peek(offsets_at, meta_len)? else {
            return Ok(None);
        };
        let Ok(meta) = bytes::read::<MetadataHeader>(&meta, 0, "metadata header") else {
            return Ok(None);
        };
        let digest =
            crate::Checksum::from_id(meta.meta_checksum).map_or(0, crate::Checksum::size_u64);
        offsets_at += meta_len + u64::from(meta.max_meta_size.get()) + digest;
    }
    let Some(chunks_at) = header
        .offsets_len()
        .checked_mul(8)
        .and_then(|n| n.checked_add(offsets_at))
    else {
        return Ok(None);
    };
    let Some(last) = nchunks.checked_sub(1) else {
        return Ok(Some((chunks_at, offsets_at)));
    };
    let Some(entry) = src.peek(offsets_at + 8 * last, 8)? else {
        return Ok(None);
    };
    let last_at = <[u8; 8]>::try_from(&*entry).map_or(-1, i64::from_le_bytes);
    let Some(last_at) = u64::try_from(last_at).ok().filter(|&at| at >= chunks_at) else {
        return Ok(None);
    };
    let Some(chunk) = src.peek(last_at, 16)? else {
        return Ok(None);
    };
    let Ok(chunk) = ChunkHeader::read(&chunk, 0) else {
        return Ok(None);
    };
    let end = last_at
        .checked_add(u64::from(chunk.cbytes))
        .and_then(|e| e.checked_add(header.checksum().size_u64()));
    Ok(end.map(|end| (end, offsets_at)))
}

/// The one rule for undo records (see the module's documentation): when the committed
/// state of the file in `src` says an append was in flight, calls `then` with its record
/// and whether the append had committed, and returns what `then` returns. `None` when
/// there is no edit in flight, whatever the bytes at the end of the file look like.
///
/// # Errors
/// I/O errors of `src` (never for bytes in memory).
pub(crate) fn in_flight<S: Peek + ?Sized, R>(
    src: &S,
    then: impl FnOnce(&Record<'_>, bool) -> R,
) -> Result<Option<R>> {
    let total = src.total()?;
    let header_len = to_u64(HEADER_SIZE);
    let Some(head) = src.peek(0, header_len)? else {
        return Ok(None);
    };
    let Ok(header) = Header::parse_with(&head, &ReadOptions::new()) else {
        return Ok(None);
    };
    let Some((end, offsets_at)) = committed_end(src, &header)? else {
        return Ok(None);
    };
    // Only the bytes past the committed end can hold a record.
    let Some(trailer_at) = total.checked_sub(to_u64(TRAILER)).filter(|&t| t >= end) else {
        return Ok(None);
    };
    let Some(trailer) = src.peek(trailer_at, to_u64(TRAILER))? else {
        return Ok(None);
    };
    if trailer.get(..8) != Some(&MAGIC[..]) {
        return Ok(None);
    }
    let body_len = trailer
        .get(8..16)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map_or(u64::MAX, u64::from_le_bytes);
    let Some(start) = trailer_at.checked_sub(body_len).filter(|&s| s >= end) else {
        return Ok(None);
    };
    let Some(bytes) = src.peek(start, total - start)? else {
        return Ok(None);
    };
    let Some(record) = Record::find(&bytes, start) else {
        return Ok(None);
    };
    let committed = *head == *record.new_header && end == record.new_end;
    let refers = committed || *head == *record.old_header || *head == *record.new_header;
    let patches_in_place = record.patches().all(|(at, _)| at >= offsets_at);
    let chunks_at = offsets_at + 8 * header.offsets_len();
    let sane = record.at >= end && record.old_end >= chunks_at && record.new_end >= chunks_at;
    Ok((refers && patches_in_place && sane).then(|| then(&record, committed)))
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

    #[test]
    #[allow(clippy::unwrap_used)]
    fn only_the_committed_state_places_a_record() {
        use crate::PackOptions;
        let options = PackOptions {
            chunk_size: 256,
            ..PackOptions::default()
        };
        let data: alloc::vec::Vec<u8> = (0..1000u32).map(|i| (i % 13) as u8).collect();
        let file = options.to_vec(&data).unwrap();
        let end = len_u64(&file);
        let header: [u8; 32] = file[..32].try_into().unwrap();
        let with = |rec: &[u8]| {
            let mut f = file.clone();
            f.extend_from_slice(rec);
            in_flight(&f[..], |r, committed| (r.at, committed)).unwrap()
        };
        // Uncommitted: the header in place is the old one, the record past the end.
        assert_eq!(
            with(&encode(end, end, &[9; 32], &header, &[(200, b"x")])),
            Some((end, false))
        );
        // Committed: the header is the new one and the file ends at the new end.
        assert_eq!(
            with(&encode(end - 50, end, &header, &[9; 32], &[])),
            Some((end, true))
        );
        // Naming another header; restoring the header through a patch; an old end
        // inside the prefix: none of them is this file's edit.
        assert_eq!(with(&encode(end, end, &[8; 32], &[9; 32], &[])), None);
        assert_eq!(
            with(&encode(end, end, &[9; 32], &header, &[(0, b"x")])),
            None
        );
        assert_eq!(with(&encode(3, end, &[9; 32], &header, &[])), None);
        // Inside the file (a record made of the last chunk's bytes) it is never read.
        let mut inside = file.clone();
        let n = inside.len();
        let rec = encode(0, 0, &[9; 32], &header, &[]);
        inside[n - rec.len()..].copy_from_slice(&rec);
        assert_eq!(in_flight(&inside[..], |_, _| ()).unwrap(), None);
    }
}
