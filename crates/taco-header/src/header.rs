//! The 157-byte header: a zero-copy view that validates once, and serialization.

use binfmt_core::{Found, bytes, magic};
use zerocopy::{FromBytes, IntoBytes};

use crate::entries::{Entries, Entry};
use crate::error::{Error, Result};
use crate::raw::{
    self, HEADER_NAME, HEADER_NAME_LEN, HEADER_SIZE, LOCAL_HEADER_SIGNATURE, MAX_COUNT,
    MAX_ENTRIES, PAYLOAD_OFFSET_U64, PAYLOAD_SIZE_U32,
};
use crate::time::DosDateTime;

/// General-purpose flag bit 0: the member is encrypted.
const FLAG_ENCRYPTED: u16 = 1 << 0;
/// General-purpose flag bit 3: CRC and sizes follow the data in a descriptor.
const FLAG_DATA_DESCRIPTOR: u16 = 1 << 3;
/// General-purpose flag bit 11: the name is UTF-8.
pub(crate) const FLAG_UTF8: u16 = 1 << 11;

/// Little-endian word of `N` ≤ 8 bytes at `at` of a header. The offsets are constants,
/// so no bounds check survives compilation.
#[inline(always)]
fn word<const N: usize>(b: &[u8; HEADER_SIZE], at: usize) -> u64 {
    let mut w = [0u8; 8];
    if let (Some(dst), Some(src)) = (w.get_mut(..N), b.get(at..at.saturating_add(N))) {
        dst.copy_from_slice(src);
    }
    u64::from_le_bytes(w)
}

/// Bytes 0..8 under this mask: the signature, and flag bits 0 (encrypted) and 3 (data
/// descriptor), which must be clear; the version (4..6) and other flags are free.
const SIGNATURE_AND_FLAGS_MASK: u64 = 0x0009_0000_FFFF_FFFF;
const SIGNATURE_WORD: u64 = 0x0403_4b50;
/// Bytes 18..41 of every valid header: both sizes 116, name length 11, extra length 0,
/// and the name.
const FIXED: [u8; 23] = *b"\x74\0\0\0\x74\0\0\0\x0b\0\0\0TACO_HEADER";
/// `FIXED` as three (overlapping) words at 18, 26 and 33.
const FIXED_WORDS: [u64; 3] = [fixed_word(0), fixed_word(8), fixed_word(15)];
/// The name's last four bytes (file bytes 37..41).
const NAME_TAIL: u64 = u64::from_le_bytes([b'A', b'D', b'E', b'R', 0, 0, 0, 0]);

// Evaluated at compile time only: an index out of range fails the build.
#[allow(clippy::indexing_slicing)]
const fn fixed_word(at: usize) -> u64 {
    let mut w = [0u8; 8];
    let mut i = 0;
    while i < 8 {
        w[i] = FIXED[at + i];
        i += 1;
    }
    u64::from_le_bytes(w)
}

/// Everything but the CRC: signature and flags, method (8..10) zero, the fixed bytes,
/// count ≤ 7 with zero padding (of 41..45 only the count's low three bits may be set).
#[inline(always)]
fn structure_ok(b: &[u8; HEADER_SIZE]) -> bool {
    // `&`, not `&&`: every word is loaded anyway, and one branch beats six.
    (word::<8>(b, 0) & SIGNATURE_AND_FLAGS_MASK == SIGNATURE_WORD)
        & (word::<2>(b, 8) == 0)
        & (word::<8>(b, 18) == FIXED_WORDS[0])
        & (word::<8>(b, 26) == FIXED_WORDS[1])
        & (word::<8>(b, 33) == FIXED_WORDS[2])
        & (word::<4>(b, 41) & !7 == 0)
}

/// What tacozip checks: signature, name (30..41), count ≤ 7.
#[inline(always)]
fn reference_ok(b: &[u8; HEADER_SIZE]) -> bool {
    (word::<4>(b, 0) == SIGNATURE_WORD)
        & (word::<8>(b, 30) == u64::from_le_bytes(*b"TACO_HEA"))
        & (word::<4>(b, 37) == NAME_TAIL)
        & (word::<1>(b, 41) <= 7)
}

/// The stored CRC-32 (14..18) matches the payload (41..157).
#[inline(always)]
fn crc_ok(b: &[u8; HEADER_SIZE]) -> bool {
    let payload = b.get(raw::PAYLOAD_OFFSET..).unwrap_or(&[]);
    u64::from(crate::crc::crc32(payload)) == word::<4>(b, 14)
}

/// How much of the header [`Header::parse_with`] checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Check {
    /// Everything: the structure and the payload's CRC-32. What [`Header::parse`] does.
    #[default]
    Full,
    /// Everything but the CRC-32: for hot paths that trust the bytes' integrity (they
    /// came from a checksummed transport, or were checked once already).
    Structure,
    /// Only what tacozip 0.13's `parse_header` checks: signature, name, count ≤ 7.
    /// The payload is read at byte 41 whatever the name and extra lengths say.
    Reference,
}

/// A validated TACO header, borrowed from the bytes it was parsed from.
///
/// ```
/// use taco_header::{Entries, Entry, Header};
/// let bytes = Entries::from_slice(&[Entry::new(157, 13)])?.to_header_bytes();
/// let header = Header::parse(&bytes)?;
/// assert_eq!(header.entries().as_slice(), &[Entry::new(157, 13)]);
/// # Ok::<(), taco_header::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header<'a> {
    raw: &'a raw::Header,
}

impl<'a> Header<'a> {
    /// Parses and fully checks the header at the start of `bytes`, which may be longer
    /// than 157 bytes (a whole archive, or the body of a `Range: bytes=0-255` response).
    ///
    /// # Errors
    /// The first problem found: [`binfmt_core::Error::Truncated`] for fewer than 157
    /// bytes, [`binfmt_core::Error::BadMagic`] for a missing local-header signature,
    /// [`Error::WrongName`] when the first member is not `TACO_HEADER`, then in byte
    /// order [`Error::Encrypted`], [`Error::DataDescriptor`], [`Error::Compressed`],
    /// [`Error::PayloadSize`], [`Error::NameLength`], [`Error::ExtraField`],
    /// [`Error::CountTooLarge`], [`Error::NonZeroPadding`], and last
    /// [`Error::CrcMismatch`].
    #[must_use = "parsing only validates; use the returned header"]
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        Header::parse_with(bytes, Check::Full)
    }

    /// Parses the header at the start of `bytes`, checking as much as `check` says.
    ///
    /// # Errors
    /// As [`Header::parse`], limited to the checks `check` selects.
    #[must_use = "parsing only validates; use the returned header"]
    #[inline]
    pub fn parse_with(bytes: &'a [u8], check: Check) -> Result<Self> {
        // The fast path compares whole little-endian words against the bytes that never
        // vary; only when it fails does the slow path work out which check failed.
        if let Some(b) = bytes.first_chunk::<HEADER_SIZE>() {
            let ok = match check {
                Check::Full => structure_ok(b) && crc_ok(b),
                Check::Structure => structure_ok(b),
                Check::Reference => reference_ok(b),
            };
            if ok && let Ok(raw) = raw::Header::ref_from_bytes(b) {
                return Ok(Header { raw });
            }
        }
        Err(Header::first_problem(bytes, check))
    }

    /// The first check that `bytes` fails at level `check`, as an error.
    #[cold]
    #[inline(never)]
    fn first_problem(bytes: &'a [u8], check: Check) -> Error {
        match Header::check_in_order(bytes, check) {
            Err(e) => e,
            // Unreachable when the fast path is right (the fuzz target and a unit test
            // check that they agree); say something true regardless.
            Ok(()) => binfmt_core::Error::Overflow {
                what: "TACO header",
                offset: 0,
            }
            .into(),
        }
    }

    /// Every check of `check`, in the documented order.
    fn check_in_order(bytes: &'a [u8], check: Check) -> Result<()> {
        let raw: &raw::Header = bytes::read(bytes, 0, "TACO header")?;
        let header = Header { raw };
        magic::check(
            bytes,
            0,
            &LOCAL_HEADER_SIGNATURE,
            "TACO archive (ZIP local file header)",
        )?;
        // The name first: for an ordinary ZIP file, "this is not a TACO archive" is
        // the useful message, not whichever field happens to differ first.
        if raw.name != HEADER_NAME {
            return Err(header.wrong_name());
        }
        if check != Check::Reference {
            header.check_fields()?;
        }
        if raw.payload.count > MAX_COUNT {
            return Err(Error::CountTooLarge {
                offset: PAYLOAD_OFFSET_U64,
                count: raw.payload.count,
            });
        }
        if check != Check::Reference && raw.payload.padding != [0; 3] {
            return Err(Error::NonZeroPadding {
                offset: PAYLOAD_OFFSET_U64 + 1,
                found: Found::new(&raw.payload.padding),
            });
        }
        if check == Check::Full {
            let computed = header.computed_crc32();
            if computed != header.crc32() {
                return Err(Error::CrcMismatch {
                    offset: 14,
                    stored: header.crc32(),
                    computed,
                });
            }
        }
        Ok(())
    }

    /// The local-header fields and the name, in file order.
    #[inline]
    fn check_fields(&self) -> Result<()> {
        let local = &self.raw.local;
        let flags = local.flags.get();
        if flags & FLAG_ENCRYPTED != 0 {
            return Err(Error::Encrypted { offset: 6, flags });
        }
        if flags & FLAG_DATA_DESCRIPTOR != 0 {
            return Err(Error::DataDescriptor { offset: 6, flags });
        }
        if local.method.get() != 0 {
            return Err(Error::Compressed {
                offset: 8,
                method: local.method.get(),
            });
        }
        for (offset, field, value) in [
            (18, "compressed size", local.compressed_size.get()),
            (22, "uncompressed size", local.uncompressed_size.get()),
        ] {
            if value != PAYLOAD_SIZE_U32 {
                return Err(Error::PayloadSize {
                    offset,
                    field,
                    found: value,
                });
            }
        }
        if local.name_len.get() != HEADER_NAME_LEN {
            return Err(Error::NameLength {
                offset: 26,
                found: local.name_len.get(),
            });
        }
        if local.extra_len.get() != 0 {
            return Err(Error::ExtraField {
                offset: 28,
                len: local.extra_len.get(),
            });
        }
        Ok(())
    }

    fn wrong_name(&self) -> Error {
        Error::WrongName {
            offset: 30,
            found: Found::new(&self.raw.name),
        }
    }

    /// The layout struct, for fields this type has no accessor for.
    #[must_use]
    pub fn raw(&self) -> &'a raw::Header {
        self.raw
    }

    /// The 157 bytes of the header.
    #[must_use]
    pub fn as_bytes(&self) -> &'a [u8] {
        self.raw.as_bytes()
    }

    /// The 116 bytes of the payload (file bytes 41..157), which the CRC-32 covers.
    #[must_use]
    pub fn payload_bytes(&self) -> &'a [u8] {
        self.raw.payload.as_bytes()
    }

    /// The number of entries (0..=7).
    #[must_use]
    pub fn count(&self) -> usize {
        usize::from(self.raw.payload.count)
    }

    /// Entry `index`, if `index < count()`.
    #[must_use]
    pub fn entry(&self, index: usize) -> Option<Entry> {
        if index < self.count() {
            self.slot(index)
        } else {
            None
        }
    }

    /// The first `count()` entries.
    #[must_use]
    #[inline]
    pub fn entries(&self) -> Entries {
        let mut slots = [Entry::default(); MAX_ENTRIES];
        for (dst, src) in slots
            .iter_mut()
            .zip(&self.raw.payload.slots)
            .take(self.count())
        {
            *dst = Entry::new(src.offset.get(), src.length.get());
        }
        // count() ≤ 7 was checked at parse time.
        Entries::from_array(slots, self.raw.payload.count)
    }

    /// All seven slots, including those past the count. tacozip does not zero them on
    /// write, so they may hold stale values; only `entries()` is meaningful.
    #[must_use]
    #[inline]
    pub fn slots(&self) -> [Entry; MAX_ENTRIES] {
        self.raw
            .payload
            .slots
            .map(|s| Entry::new(s.offset.get(), s.length.get()))
    }

    fn slot(&self, index: usize) -> Option<Entry> {
        let s = self.raw.payload.slots.get(index)?;
        Some(Entry::new(s.offset.get(), s.length.get()))
    }

    /// The stored CRC-32 of the payload.
    #[must_use]
    pub fn crc32(&self) -> u32 {
        self.raw.local.crc32.get()
    }

    /// The CRC-32 the payload actually has.
    #[must_use]
    pub fn computed_crc32(&self) -> u32 {
        crate::crc::crc32(self.payload_bytes())
    }

    /// The version-needed-to-extract field (10 from tacozip's `create`, 20 from its
    /// `serialize_header`; both are accepted).
    #[must_use]
    pub fn version_needed(&self) -> u16 {
        self.raw.local.version_needed.get()
    }

    /// The general-purpose flags.
    #[must_use]
    pub fn flags(&self) -> u16 {
        self.raw.local.flags.get()
    }

    /// The modification time stored in the header.
    #[must_use]
    pub fn modified(&self) -> DosDateTime {
        DosDateTime::from_raw(self.raw.local.dos_date.get(), self.raw.local.dos_time.get())
    }
}

/// What to put in the header fields that carry no entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HeaderOptions {
    /// Version needed to extract. Default 10, the lowest version that covers a stored
    /// member, as tacozip's `create` writes.
    pub version_needed: u16,
    /// Modification time. Default 1980-01-01 00:00:00, so that the same entries always
    /// give the same bytes.
    pub modified: DosDateTime,
}

impl Default for HeaderOptions {
    fn default() -> Self {
        HeaderOptions {
            version_needed: 10,
            modified: DosDateTime::EPOCH,
        }
    }
}

impl Entries {
    /// The 157-byte header holding these entries, with default [`HeaderOptions`].
    #[must_use]
    pub fn to_header_bytes(&self) -> [u8; HEADER_SIZE] {
        self.to_header_bytes_with(&HeaderOptions::default())
    }

    /// The 157-byte header holding these entries: count, entries, zeros past the count,
    /// and the payload's CRC-32.
    #[must_use]
    pub fn to_header_bytes_with(&self, options: &HeaderOptions) -> [u8; HEADER_SIZE] {
        use binfmt_core::le::{U16, U32};
        let payload = self.to_payload();
        let header = raw::Header {
            local: raw::LocalHeader {
                signature: LOCAL_HEADER_SIGNATURE,
                version_needed: U16::new(options.version_needed),
                flags: U16::ZERO,
                method: U16::ZERO,
                dos_time: U16::new(options.modified.time()),
                dos_date: U16::new(options.modified.date()),
                crc32: U32::new(crate::crc::crc32(payload.as_bytes())),
                compressed_size: U32::new(PAYLOAD_SIZE_U32),
                uncompressed_size: U32::new(PAYLOAD_SIZE_U32),
                name_len: U16::new(HEADER_NAME_LEN),
                extra_len: U16::ZERO,
            },
            name: HEADER_NAME,
            payload,
        };
        let mut out = [0u8; HEADER_SIZE];
        out.copy_from_slice(header.as_bytes());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn three() -> Entries {
        Entries::from_slice(&[
            Entry::new(157, 13),
            Entry::new(1000, 1000),
            Entry::new((1 << 32) + 5, 0x0102_0304_0506_0708),
        ])
        .unwrap()
    }

    /// The reference's 157 bytes for the count-3 vector, with its time and date.
    fn reference_three() -> [u8; 157] {
        let mut b = [0u8; 157];
        let head: &[u8] = &[
            0x50, 0x4b, 0x03, 0x04, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x54, 0x65, 0x76, 0x5d,
            0x7c, 0xf9, 0xf3, 0x70, 0x74, 0x00, 0x00, 0x00, 0x74, 0x00, 0x00, 0x00, 0x0b, 0x00,
            0x00, 0x00, 0x54, 0x41, 0x43, 0x4f, 0x5f, 0x48, 0x45, 0x41, 0x44, 0x45, 0x52, 0x03,
            0x00, 0x00, 0x00, 0x9d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0d, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x00, 0xe8, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe8,
            0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
            0x00, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
        ];
        b[..head.len()].copy_from_slice(head);
        b
    }

    #[test]
    fn serializes_like_the_reference_apart_from_the_timestamp() {
        let options = HeaderOptions {
            version_needed: 10,
            modified: DosDateTime::from_raw(0x5d76, 0x6554),
        };
        assert_eq!(three().to_header_bytes_with(&options), reference_three());
    }

    #[test]
    fn parses_the_reference_bytes() {
        let bytes = reference_three();
        let header = Header::parse(&bytes).unwrap();
        assert_eq!(header.entries(), three());
        assert_eq!(header.count(), 3);
        assert_eq!(header.entry(3), None);
        assert_eq!(header.crc32(), 0x70F3_F97C);
        assert_eq!(header.version_needed(), 10);
    }

    #[test]
    fn each_field_has_its_own_error() {
        let good = three().to_header_bytes();
        type Case = (usize, u8, fn(&Error) -> bool);
        let cases: &[Case] = &[
            (0, b'Q', |e| {
                matches!(
                    e,
                    Error::Layout(binfmt_core::Error::BadMagic { offset: 0, .. })
                )
            }),
            (6, 1, |e| matches!(e, Error::Encrypted { offset: 6, .. })),
            (6, 8, |e| {
                matches!(e, Error::DataDescriptor { offset: 6, .. })
            }),
            (8, 8, |e| {
                matches!(
                    e,
                    Error::Compressed {
                        offset: 8,
                        method: 8
                    }
                )
            }),
            (18, 0, |e| {
                matches!(
                    e,
                    Error::PayloadSize {
                        offset: 18,
                        found: 0,
                        ..
                    }
                )
            }),
            (22, 0, |e| {
                matches!(
                    e,
                    Error::PayloadSize {
                        offset: 22,
                        found: 0,
                        ..
                    }
                )
            }),
            (26, 12, |e| {
                matches!(
                    e,
                    Error::NameLength {
                        offset: 26,
                        found: 12
                    }
                )
            }),
            (28, 4, |e| {
                matches!(e, Error::ExtraField { offset: 28, len: 4 })
            }),
            (30, b't', |e| {
                matches!(e, Error::WrongName { offset: 30, .. })
            }),
            (41, 8, |e| {
                matches!(
                    e,
                    Error::CountTooLarge {
                        offset: 41,
                        count: 8
                    }
                )
            }),
            (43, 1, |e| {
                matches!(e, Error::NonZeroPadding { offset: 42, .. })
            }),
            (60, 1, |e| {
                matches!(e, Error::CrcMismatch { offset: 14, .. })
            }),
            (14, 0, |e| {
                matches!(e, Error::CrcMismatch { offset: 14, .. })
            }),
        ];
        for &(at, value, expected) in cases {
            let mut bytes = good;
            bytes[at] = value;
            let err = Header::parse(&bytes).unwrap_err();
            assert!(expected(&err), "byte {at} = {value}: {err:?}");
        }
    }

    /// The word-compare fast path and the field-by-field checks agree on every
    /// single-byte change of a valid header, at every level.
    #[test]
    fn fast_path_agrees_with_the_ordered_checks() {
        let good = three().to_header_bytes();
        for at in 0..HEADER_SIZE {
            for value in 0..=255u8 {
                let mut bytes = good;
                bytes[at] = value;
                for check in [Check::Full, Check::Structure, Check::Reference] {
                    assert_eq!(
                        Header::parse_with(&bytes, check).is_ok(),
                        Header::check_in_order(&bytes, check).is_ok(),
                        "byte {at} = {value} at {check:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn structure_check_skips_only_the_crc() {
        let mut bytes = three().to_header_bytes();
        bytes[60] ^= 1;
        assert!(Header::parse_with(&bytes, Check::Structure).is_ok());
        bytes[8] = 8;
        assert!(Header::parse_with(&bytes, Check::Structure).is_err());
    }

    #[test]
    fn reference_check_accepts_what_tacozip_accepts() {
        let mut bytes = three().to_header_bytes();
        for (at, value) in [
            (14, 0),
            (8, 8),
            (18, 0),
            (26, 12),
            (28, 4),
            (42, 1),
            (4, 99),
            (6, 0xff),
        ] {
            bytes[at] = value;
        }
        let header = Header::parse_with(&bytes, Check::Reference).unwrap();
        assert_eq!(header.entries(), three());
        bytes[41] = 8;
        assert!(Header::parse_with(&bytes, Check::Reference).is_err());
    }

    #[test]
    fn short_input_is_truncated_and_longer_input_is_fine() {
        let bytes = three().to_header_bytes();
        assert!(matches!(
            Header::parse(&bytes[..156]),
            Err(Error::Layout(binfmt_core::Error::Truncated {
                needed: 157,
                available: 156,
                ..
            }))
        ));
        let mut longer = [0u8; 256];
        longer[..157].copy_from_slice(&bytes);
        assert!(Header::parse(&longer).is_ok());
    }

    #[test]
    fn stale_slots_past_the_count_are_exposed_but_not_entries() {
        let mut bytes = Entries::from_slice(&[Entry::new(0, 0), Entry::new(100, 200)])
            .unwrap()
            .to_header_bytes();
        // tacozip's Python wrapper leaves a third slot behind the count.
        bytes[45 + 32] = 44;
        let header = Header::parse_with(&bytes, Check::Structure).unwrap();
        assert_eq!(header.entries().len(), 2);
        assert_eq!(header.slots()[2], Entry::new(44, 0));
    }
}
