//! The (offset, length) pairs a header carries, as an owned value that cannot hold
//! more than seven.

use core::fmt;

use binfmt_core::le::U64;

use binfmt_core::Kind;

use crate::error::{Error, ErrorKind, Result};
use crate::raw::{self, MAX_ENTRIES};

/// One (offset, length) pair. Its meaning is up to the application; tacozip's own
/// writers store the byte range of a member's data (`METADATA/levelN.parquet`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Entry {
    /// Byte offset.
    pub offset: u64,
    /// Length in bytes.
    pub length: u64,
}

impl Entry {
    /// `(offset, length)`.
    #[must_use]
    pub const fn new(offset: u64, length: u64) -> Self {
        Entry { offset, length }
    }
}

impl From<(u64, u64)> for Entry {
    fn from((offset, length): (u64, u64)) -> Self {
        Entry { offset, length }
    }
}

/// Up to seven entries, in order. A header holds exactly these: its count is
/// `len()`, and its slots past the count are zero.
///
/// Entries are positional: an `(0, 0)` entry inside the count is kept as it is (unlike
/// tacozip's Python wrapper, which counts only the non-zero ones).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Entries {
    slots: [Entry; MAX_ENTRIES],
    len: u8,
}

impl Entries {
    /// No entries.
    #[must_use]
    pub const fn new() -> Self {
        Entries {
            slots: [Entry::new(0, 0); MAX_ENTRIES],
            len: 0,
        }
    }

    /// `len` entries from the start of `slots`, the rest zero. `len` ≤ 7 is the
    /// caller's promise (a parsed header's count).
    #[inline]
    pub(crate) fn from_array(slots: [Entry; MAX_ENTRIES], len: u8) -> Self {
        let max = u8::try_from(MAX_ENTRIES).unwrap_or(u8::MAX);
        Entries {
            slots,
            len: len.min(max),
        }
    }

    /// The given entries.
    ///
    /// # Errors
    /// [`ErrorKind::TooManyEntries`] for more than seven.
    ///
    /// ```
    /// use taco_header::{Entries, Entry};
    /// let entries = Entries::from_slice(&[Entry::new(157, 13), Entry::new(1000, 1000)])?;
    /// assert_eq!(entries.len(), 2);
    /// assert!(Entries::from_slice(&[Entry::default(); 8]).is_err());
    /// # Ok::<(), taco_header::Error>(())
    /// ```
    pub fn from_slice(entries: &[Entry]) -> Result<Self> {
        let mut out = Entries::new();
        for &entry in entries {
            out.push(entry).map_err(|_| {
                ErrorKind::TooManyEntries {
                    count: entries.len(),
                }
                .unlocated()
            })?;
        }
        Ok(out)
    }

    /// Appends an entry.
    ///
    /// # Errors
    /// [`ErrorKind::TooManyEntries`] when seven are already there.
    pub fn push(&mut self, entry: Entry) -> Result<()> {
        let slot = self.slots.get_mut(usize::from(self.len)).ok_or_else(|| {
            ErrorKind::TooManyEntries {
                count: MAX_ENTRIES.saturating_add(1),
            }
            .unlocated()
        })?;
        *slot = entry;
        self.len = self.len.saturating_add(1);
        Ok(())
    }

    /// The entries.
    #[must_use]
    pub fn as_slice(&self) -> &[Entry] {
        self.slots.get(..usize::from(self.len)).unwrap_or(&[])
    }

    /// How many there are (the header's count).
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    /// True when there are none.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The payload these entries serialize to: count, zero padding, the entries, and
    /// zeros in every slot past the count.
    #[must_use]
    pub fn to_payload(&self) -> raw::Payload {
        let mut payload = raw::Payload {
            count: self.len,
            padding: [0; 3],
            slots: [raw::Slot {
                offset: U64::ZERO,
                length: U64::ZERO,
            }; MAX_ENTRIES],
        };
        for (slot, entry) in payload.slots.iter_mut().zip(self.as_slice()) {
            slot.offset = U64::new(entry.offset);
            slot.length = U64::new(entry.length);
        }
        payload
    }

    /// The CRC-32 of the payload these entries serialize to.
    #[must_use]
    pub fn crc32(&self) -> u32 {
        crate::crc::crc32(zerocopy::IntoBytes::as_bytes(&self.to_payload()))
    }
}

impl fmt::Debug for Entries {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<'a> IntoIterator for &'a Entries {
    type Item = &'a Entry;
    type IntoIter = core::slice::Iter<'a, Entry>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl TryFrom<&[Entry]> for Entries {
    type Error = Error;

    fn try_from(entries: &[Entry]) -> Result<Self> {
        Entries::from_slice(entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// CRC test vectors from the reference (zlib CRC-32 of the 116-byte payload).
    #[test]
    fn payload_crc_vectors() {
        assert_eq!(Entries::new().crc32(), 0xEFDF_CDB2);
        let three = Entries::from_slice(&[
            Entry::new(157, 13),
            Entry::new(1000, 1000),
            Entry::new((1 << 32) + 5, 0x0102_0304_0506_0708),
        ])
        .unwrap();
        assert_eq!(three.crc32(), 0x70F3_F97C);
        let seven = Entries::from_slice(&[
            Entry::new(1, 2),
            Entry::new(3, 4),
            Entry::new(5, 6),
            Entry::new(7, 8),
            Entry::new(9, 10),
            Entry::new(u64::MAX, u64::MAX),
            Entry::new(0x1122_3344_5566_7788, 0x99AA_BBCC_DDEE_FF00),
        ])
        .unwrap();
        assert_eq!(seven.crc32(), 0xB2C7_9E78);
        let five: Vec<Entry> = (0..5)
            .map(|k| Entry::new(10 + 20 * k, 20 + 20 * k))
            .collect();
        assert_eq!(Entries::from_slice(&five).unwrap().crc32(), 0x7D02_8006);
    }

    #[test]
    fn zero_entries_inside_the_count_are_kept() {
        let e = Entries::from_slice(&[Entry::new(0, 0), Entry::new(100, 200)]).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e.to_payload().count, 2);
    }

    #[test]
    fn at_most_seven() {
        let mut e = Entries::new();
        for k in 0..7 {
            e.push(Entry::new(k, k)).unwrap();
        }
        assert!(matches!(
            e.push(Entry::default()).map_err(Error::into_kind),
            Err(ErrorKind::TooManyEntries { .. })
        ));
        assert!(matches!(
            Entries::from_slice(&[Entry::default(); 9]).map_err(Error::into_kind),
            Err(ErrorKind::TooManyEntries { count: 9 })
        ));
    }
}
