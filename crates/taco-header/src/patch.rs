//! The in-place header update: three writes, in the order that keeps an interrupted
//! update recognisable.

use binfmt_core::le::U32;
use binfmt_core::{bytes, field_offset};
use zerocopy::IntoBytes;

use crate::archive::Archive;
use crate::central::CENTRAL_CRC_AT;
use crate::entries::Entries;
use crate::error::Result;
use crate::options::ReadOptions;
use crate::raw;

/// The three writes of an in-place header update, from [`Archive::patch`].
///
/// An update replaces the payload (116 bytes at 41) and both copies of its CRC-32: the
/// header's (at 14) and the `TACO_HEADER` central-directory entry's. They are written
/// in this order:
///
/// 1. the central directory's CRC;
/// 2. the payload;
/// 3. the header's CRC, which commits the update.
///
/// The two CRC copies differ only while an update is under way, so an archive left by
/// a process killed between two writes is recognised as such
/// ([`ErrorKind::TornUpdate`](crate::ErrorKind::TornUpdate)): after write 1 the header
/// still holds (and checks out as) the old entries; after write 2 it holds the new
/// entries, and a header-only reader sees a CRC mismatch rather than unchecked values.
/// The next update repairs either state, since it checks everything but those CRCs
/// before writing. `docs/taco-header.md` ("Updating in place") has the whole protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Patch {
    payload: raw::Payload,
    crc: U32,
    central_crc_offset: u64,
}

impl Patch {
    /// The writes for `entries`, given where the `TACO_HEADER` central-directory entry is.
    #[must_use]
    pub(crate) fn new(entries: &Entries, central_entry_offset: u64) -> Self {
        Patch {
            payload: entries.to_payload(),
            crc: U32::new(entries.crc32()),
            central_crc_offset: central_entry_offset.saturating_add(CENTRAL_CRC_AT),
        }
    }

    /// `(offset, bytes)` of each write, in the order they must be made: the central
    /// directory's CRC, the 116 payload bytes at 41, the header's CRC at 14 (124 bytes
    /// in all). See [`Patch`] for why this order.
    #[must_use]
    pub fn writes(&self) -> [(u64, &[u8]); 3] {
        [
            (self.central_crc_offset, self.crc.as_bytes()),
            (field_offset!(raw::Header, payload), self.payload.as_bytes()),
            (field_offset!(raw::Header, local.crc32), self.crc.as_bytes()),
        ]
    }

    /// Performs the writes on `data`, all or none.
    ///
    /// # Errors
    /// [`Layout::Truncated`](binfmt_core::Layout::Truncated) when a write would not fit;
    /// `data` is then unchanged.
    pub fn apply(&self, data: &mut [u8]) -> Result<()> {
        let len = bytes::to_u64(data.len());
        let mut ranges = [0..0, 0..0, 0..0];
        for (range, (offset, bytes)) in ranges.iter_mut().zip(self.writes()) {
            *range =
                bytes::checked_range(offset, bytes::to_u64(bytes.len()), len, "patched range")?;
        }
        for (range, (_, bytes)) in ranges.into_iter().zip(self.writes()) {
            if let Some(target) = data.get_mut(range) {
                target.copy_from_slice(bytes);
            }
        }
        Ok(())
    }
}

/// Replaces the header's entries in the archive `data`, after checking everything the
/// writes depend on (the header's fields, the end records, the `TACO_HEADER`
/// central-directory entry). The CRCs are not checked, so that this repairs an archive
/// left by an interrupted update.
///
/// # Errors
/// As [`Archive::parse_with`] without checksums; `data` is unchanged on error.
///
/// ```
/// use taco_header::{Archive, Entries, Entry, Writer};
/// let mut data = Writer::new(Entries::new()).to_vec()?;
/// taco_header::update_in_memory(&mut data, &Entries::from_slice(&[Entry::new(1, 2)])?)?;
/// assert_eq!(Archive::parse(&data)?.header().entry(0), Some(Entry::new(1, 2)));
/// # Ok::<(), taco_header::Error>(())
/// ```
pub fn update_in_memory(data: &mut [u8], entries: &Entries) -> Result<()> {
    let patch = Archive::parse_with(data, &ReadOptions::new().checksums(false))?.patch(entries);
    patch.apply(data)
}
