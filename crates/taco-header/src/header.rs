//! The 157-byte header: a zero-copy view that validates once, its rules, and
//! serialization.
//!
//! Every rule is a function over the layout struct, listed once in [`RULES`] in the
//! order of the documentation; [`Header::parse_with`] stops at the first that fails,
//! [`Header::warnings`] lists what a lenient parse let through, and
//! [`verify`](crate::verify()) reports them all. A fast path compares whole words first;
//! only when it fails do the rules run one by one to say which.

use binfmt_core::{Found, Kind, bytes, field_offset, magic};
use zerocopy::{FromBytes, IntoBytes};

use crate::Error;
use crate::entries::{Entries, Entry};
use crate::error::{ErrorKind, Result, TornState};
use crate::options::ReadOptions;
use crate::raw::{self, HEADER_NAME, HEADER_SIZE, LOCAL_HEADER_SIGNATURE, MAX_ENTRIES, VERSION};
use crate::time::DosDateTime;

/// General-purpose flag bit 0: the member is encrypted.
pub(crate) const FLAG_ENCRYPTED: u16 = 1 << 0;
/// General-purpose flag bit 3: CRC and sizes follow the data in a descriptor.
pub(crate) const FLAG_DATA_DESCRIPTOR: u16 = 1 << 3;
/// General-purpose flag bit 11: the name is UTF-8.
pub(crate) const FLAG_UTF8: u16 = 1 << 11;

/// Where the header's fields are, from its layout struct.
pub(crate) mod at {
    use super::{field_offset, raw};
    /// The flags.
    pub(crate) const FLAGS: u64 = field_offset!(raw::Header, local.flags);
    /// The compression method.
    pub(crate) const METHOD: u64 = field_offset!(raw::Header, local.method);
    /// The CRC-32 of the payload.
    pub(crate) const CRC: u64 = field_offset!(raw::Header, local.crc32);
    /// The compressed size.
    pub(crate) const COMPRESSED_SIZE: u64 = field_offset!(raw::Header, local.compressed_size);
    /// The uncompressed size.
    pub(crate) const SIZE: u64 = field_offset!(raw::Header, local.uncompressed_size);
    /// The name length.
    pub(crate) const NAME_LEN: u64 = field_offset!(raw::Header, local.name_len);
    /// The extra field length.
    pub(crate) const EXTRA_LEN: u64 = field_offset!(raw::Header, local.extra_len);
    /// The name.
    pub(crate) const NAME: u64 = field_offset!(raw::Header, name);
    /// The payload (and its first field, the count).
    pub(crate) const PAYLOAD: u64 = field_offset!(raw::Header, payload);
    /// The padding after the count.
    pub(crate) const PADDING: u64 = field_offset!(raw::Header, payload.padding);
}

// The same offsets as `usize`, for the fast path's word loads.
const CRC_AT: usize = core::mem::offset_of!(raw::Header, local.crc32);
const METHOD_AT: usize = core::mem::offset_of!(raw::Header, local.method);
const SIZES_AT: usize = core::mem::offset_of!(raw::Header, local.compressed_size);
const NAME_AT: usize = core::mem::offset_of!(raw::Header, name);
const PAYLOAD_AT: usize = core::mem::offset_of!(raw::Header, payload);

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
#[allow(clippy::cast_lossless)] // `u64::from` is not `const`
const SIGNATURE_WORD: u64 = u32::from_le_bytes(LOCAL_HEADER_SIGNATURE) as u64;
/// The bytes from the compressed size to the end of the name (18..41) of every valid
/// header: both sizes 116, name length 11, extra length 0, and the name.
const FIXED: [u8; PAYLOAD_AT - SIZES_AT] = *b"\x74\0\0\0\x74\0\0\0\x0b\0\0\0TACO_HEADER";
/// `FIXED` as three (overlapping) words at its start, 8 bytes in, and 8 bytes before
/// its end.
const FIXED_WORDS: [u64; 3] = [fixed_word(0), fixed_word(8), fixed_word(FIXED.len() - 8)];
/// The name's first eight and last four bytes.
const NAME_HEAD: u64 = u64::from_le_bytes(*b"TACO_HEA");
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

/// Every strict rule but the CRC: signature and flags, method zero, the fixed bytes,
/// count ≤ 7 with zero padding (of the four bytes at the count only its low three bits
/// may be set).
#[inline(always)]
fn strict_ok(b: &[u8; HEADER_SIZE]) -> bool {
    // `&`, not `&&`: every word is loaded anyway, and one branch beats six.
    (word::<8>(b, 0) & SIGNATURE_AND_FLAGS_MASK == SIGNATURE_WORD)
        & (word::<2>(b, METHOD_AT) == 0)
        & (word::<8>(b, SIZES_AT) == FIXED_WORDS[0])
        & (word::<8>(b, SIZES_AT + 8) == FIXED_WORDS[1])
        & (word::<8>(b, PAYLOAD_AT - 8) == FIXED_WORDS[2])
        & (word::<4>(b, PAYLOAD_AT) & !7 == 0)
}

/// What tacozip checks: signature, name, count ≤ 7.
#[inline(always)]
fn lenient_ok(b: &[u8; HEADER_SIZE]) -> bool {
    (word::<4>(b, 0) == SIGNATURE_WORD)
        & (word::<8>(b, NAME_AT) == NAME_HEAD)
        & (word::<4>(b, PAYLOAD_AT - 4) == NAME_TAIL)
        & (word::<1>(b, PAYLOAD_AT) <= 7)
}

/// The stored CRC-32 matches the payload.
#[inline(always)]
fn crc_ok(b: &[u8; HEADER_SIZE]) -> bool {
    let payload = b.get(PAYLOAD_AT..).unwrap_or(&[]);
    u64::from(crate::crc::crc32(payload)) == word::<4>(b, CRC_AT)
}

/// One rule over the header's fields: the problem, if the header breaks it.
type Rule = fn(&raw::Header) -> Option<Error>;

/// The field rules, in the documented order, each with whether only the strict check
/// has it (tacozip checks the count, and nothing else here).
pub(crate) const RULES: [(bool, Rule); 9] = [
    (true, |h| {
        let flags = h.local.flags.get();
        (flags & FLAG_ENCRYPTED != 0).then(|| ErrorKind::Encrypted { flags }.at(at::FLAGS))
    }),
    (true, |h| {
        let flags = h.local.flags.get();
        (flags & FLAG_DATA_DESCRIPTOR != 0)
            .then(|| ErrorKind::DataDescriptor { flags }.at(at::FLAGS))
    }),
    (true, |h| {
        let method = h.local.method.get();
        (method != 0).then(|| ErrorKind::Compressed { method }.at(at::METHOD))
    }),
    (true, |h| {
        payload_size(
            "compressed size",
            h.local.compressed_size.get(),
            at::COMPRESSED_SIZE,
        )
    }),
    (true, |h| {
        payload_size(
            "uncompressed size",
            h.local.uncompressed_size.get(),
            at::SIZE,
        )
    }),
    (true, |h| {
        let found = h.local.name_len.get();
        (usize::from(found) != HEADER_NAME.len())
            .then(|| ErrorKind::NameLength { found }.at(at::NAME_LEN))
    }),
    (true, |h| {
        let len = h.local.extra_len.get();
        (len != 0).then(|| ErrorKind::ExtraField { len }.at(at::EXTRA_LEN))
    }),
    (false, |h| {
        let count = h.payload.count;
        (usize::from(count) > MAX_ENTRIES)
            .then(|| ErrorKind::CountTooLarge { count }.at(at::PAYLOAD))
    }),
    (true, |h| {
        (h.payload.padding != [0; 3]).then(|| {
            ErrorKind::NonZeroPadding {
                found: Found::new(&h.payload.padding),
            }
            .at(at::PADDING)
        })
    }),
];

fn payload_size(field: &'static str, found: u32, offset: u64) -> Option<Error> {
    (u64::from(found) != bytes::to_u64(raw::PAYLOAD_SIZE))
        .then(|| ErrorKind::PayloadSize { field, found }.at(offset))
}

/// The rules that must pass before any other makes sense, in order: 157 bytes, the
/// signature, and the name (before the other fields, so that an ordinary ZIP file is
/// reported as "not a TACO archive" rather than by whichever field differs first).
pub(crate) fn identify(bytes: &[u8]) -> Result<&raw::Header> {
    let raw: &raw::Header = bytes::read(bytes, 0, "TACO header")?;
    magic::check(
        bytes,
        0,
        &LOCAL_HEADER_SIGNATURE,
        "TACO archive (ZIP local file header)",
    )?;
    if raw.name != HEADER_NAME {
        return Err(ErrorKind::WrongName {
            found: Found::new(&raw.name),
        }
        .at(at::NAME));
    }
    Ok(raw)
}

/// The CRC rule: the payload against the header's CRC-32 and, for a whole archive, the
/// header's CRC against its copy in the `TACO_HEADER` central-directory entry. Two
/// copies that differ are the trace of an interrupted update (the update protocol
/// writes the central copy first); one CRC that the payload does not match, when the
/// copies agree, is damage. Without `checksums`, nothing is compared.
pub(crate) fn crc_rule(raw: &raw::Header, central: Option<u32>, checksums: bool) -> Result<()> {
    if !checksums {
        return Ok(());
    }
    let local = raw.local.crc32.get();
    let computed = crate::crc::crc32(raw.payload.as_bytes());
    match central {
        Some(central) if central != local => {
            let state = if computed == local {
                TornState::OldEntries
            } else if computed == central {
                TornState::NewEntries
            } else {
                TornState::Unknown
            };
            Err(ErrorKind::TornUpdate {
                local,
                central,
                state,
            }
            .at(at::CRC))
        }
        _ if computed != local => Err(ErrorKind::CrcMismatch {
            stored: local,
            computed,
        }
        .at(at::CRC)),
        _ => Ok(()),
    }
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
    /// The first problem found: [`Layout::Truncated`] for fewer than 157 bytes,
    /// [`Layout::BadMagic`] for a missing local-header signature,
    /// [`ErrorKind::WrongName`] when the first member is not `TACO_HEADER`, then in byte
    /// order [`ErrorKind::Encrypted`], [`ErrorKind::DataDescriptor`],
    /// [`ErrorKind::Compressed`], [`ErrorKind::PayloadSize`], [`ErrorKind::NameLength`],
    /// [`ErrorKind::ExtraField`], [`ErrorKind::CountTooLarge`],
    /// [`ErrorKind::NonZeroPadding`], and last [`ErrorKind::CrcMismatch`].
    ///
    /// [`Layout::Truncated`]: binfmt_core::Layout::Truncated
    /// [`Layout::BadMagic`]: binfmt_core::Layout::BadMagic
    #[must_use = "parsing only validates; use the returned header"]
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        Header::parse_with(bytes, &ReadOptions::new())
    }

    /// Parses the header at the start of `bytes`, checking what `options` says.
    ///
    /// # Errors
    /// As [`Header::parse`]; under [`ReadOptions::lenient`] only the truncation,
    /// signature, name and count errors, and without [`ReadOptions::checksums`] no
    /// [`ErrorKind::CrcMismatch`].
    #[must_use = "parsing only validates; use the returned header"]
    #[inline]
    pub fn parse_with(bytes: &'a [u8], options: &ReadOptions) -> Result<Self> {
        // The fast path compares whole little-endian words against the bytes that never
        // vary; only when it fails do the rules run one by one to say which failed.
        if let Some(b) = bytes.first_chunk::<HEADER_SIZE>() {
            let fields = if options.get_lenient() {
                lenient_ok(b)
            } else {
                strict_ok(b)
            };
            let ok = fields && (!options.get_checksums() || crc_ok(b));
            if ok && let Ok(raw) = raw::Header::ref_from_bytes(b) {
                return Ok(Header { raw });
            }
        }
        Err(Header::first_problem(bytes, options))
    }

    /// The first rule that `bytes` breaks under `options`, as an error.
    #[cold]
    #[inline(never)]
    fn first_problem(bytes: &'a [u8], options: &ReadOptions) -> Error {
        match Header::check_in_order(bytes, options) {
            Err(e) => e,
            // Unreachable when the fast path is right (the fuzz target and a unit test
            // check that they agree); say something true regardless.
            Ok(()) => binfmt_core::Error::overflow("TACO header", 0).into(),
        }
    }

    /// Every rule `options` selects, in the documented order.
    pub(crate) fn check_in_order(bytes: &'a [u8], options: &ReadOptions) -> Result<()> {
        let raw = identify(bytes)?;
        for (strict_only, rule) in RULES {
            if (!strict_only || !options.get_lenient())
                && let Some(e) = rule(raw)
            {
                return Err(e);
            }
        }
        crc_rule(raw, None, options.get_checksums())
    }

    /// A view of a header whose rules have been checked.
    #[cfg(feature = "std")]
    pub(crate) fn from_raw(raw: &'a raw::Header) -> Self {
        Header { raw }
    }

    /// What the strict rules say about a header that a [lenient](ReadOptions::lenient)
    /// parse accepted: each is an error that tacozip does not check (such as a
    /// compression method other than 0). Empty for a header that passes the strict
    /// rules. The CRC-32 is not recomputed here.
    pub fn warnings(&self) -> impl Iterator<Item = Error> + use<'a> {
        let raw = self.raw;
        RULES
            .into_iter()
            .filter(|(strict_only, _)| *strict_only)
            .filter_map(move |(_, rule)| rule(raw))
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

    binfmt_core::le_getters! { raw.local =>
        /// The version-needed-to-extract field (10 from tacozip's `create`, 20 from its
        /// `serialize_header`; both are accepted).
        pub fn version_needed -> u16;
        /// The general-purpose flags.
        pub fn flags -> u16;
    }

    /// The modification time stored in the header.
    #[must_use]
    pub fn modified(&self) -> DosDateTime {
        DosDateTime::from_raw(self.raw.local.dos_date.get(), self.raw.local.dos_time.get())
    }
}

/// What to put in the header fields that carry no entries.
///
/// ```
/// use taco_header::{DosDateTime, Entries, Header, HeaderOptions};
/// let options = HeaderOptions::new().version_needed(20).modified(DosDateTime::EPOCH);
/// let bytes = Entries::new().to_header_bytes_with(&options);
/// assert_eq!(Header::parse(&bytes)?.version_needed(), 20);
/// # Ok::<(), taco_header::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HeaderOptions {
    version_needed: u16,
    modified: DosDateTime,
}

impl HeaderOptions {
    /// Version needed 10 ([`VERSION`](crate::VERSION), ZIP 1.0: the lowest that covers a
    /// stored member, as tacozip's `create` writes) and the time 1980-01-01 00:00:00, so
    /// that the same entries always give the same bytes.
    #[must_use]
    pub const fn new() -> Self {
        HeaderOptions {
            version_needed: VERSION.major * 10 + VERSION.minor,
            modified: DosDateTime::EPOCH,
        }
    }

    /// The version-needed-to-extract field.
    #[must_use]
    pub const fn version_needed(mut self, version_needed: u16) -> Self {
        self.version_needed = version_needed;
        self
    }

    /// The modification time.
    #[must_use]
    pub const fn modified(mut self, modified: DosDateTime) -> Self {
        self.modified = modified;
        self
    }
}

impl Default for HeaderOptions {
    fn default() -> Self {
        HeaderOptions::new()
    }
}

impl Entries {
    /// The 157-byte header holding these entries, with default [`HeaderOptions`].
    #[must_use]
    pub fn to_header_bytes(&self) -> [u8; HEADER_SIZE] {
        self.to_header_bytes_with(&HeaderOptions::new())
    }

    /// The 157-byte header holding these entries: count, entries, zeros past the count,
    /// and the payload's CRC-32.
    #[must_use]
    pub fn to_header_bytes_with(&self, options: &HeaderOptions) -> [u8; HEADER_SIZE] {
        use binfmt_core::le::{U16, U32};
        let payload = self.to_payload();
        // 116 and 11: `raw` asserts both at compile time, so neither conversion fails.
        let size = U32::new(u32::try_from(raw::PAYLOAD_SIZE).unwrap_or(u32::MAX));
        let name_len = U16::new(u16::try_from(HEADER_NAME.len()).unwrap_or(u16::MAX));
        let header = raw::Header {
            local: raw::LocalHeader {
                signature: LOCAL_HEADER_SIGNATURE,
                version_needed: U16::new(options.version_needed),
                flags: U16::ZERO,
                method: U16::ZERO,
                dos_time: U16::new(options.modified.time()),
                dos_date: U16::new(options.modified.date()),
                crc32: U32::new(crate::crc::crc32(payload.as_bytes())),
                compressed_size: size,
                uncompressed_size: size,
                name_len,
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
        let options = HeaderOptions::new()
            .version_needed(10)
            .modified(DosDateTime::from_raw(0x5d76, 0x6554));
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
        assert_eq!(header.warnings().count(), 0);
    }

    #[test]
    fn each_field_has_its_own_error() {
        use binfmt_core::Layout;
        let good = three().to_header_bytes();
        type Case = (usize, u8, u64, fn(&ErrorKind) -> bool);
        let cases: &[Case] = &[
            (0, b'Q', 0, |e| {
                matches!(e, ErrorKind::Layout(Layout::BadMagic { .. }))
            }),
            (6, 1, 6, |e| matches!(e, ErrorKind::Encrypted { .. })),
            (6, 8, 6, |e| matches!(e, ErrorKind::DataDescriptor { .. })),
            (8, 8, 8, |e| {
                matches!(e, ErrorKind::Compressed { method: 8 })
            }),
            (18, 0, 18, |e| {
                matches!(e, ErrorKind::PayloadSize { found: 0, .. })
            }),
            (22, 0, 22, |e| {
                matches!(e, ErrorKind::PayloadSize { found: 0, .. })
            }),
            (26, 12, 26, |e| {
                matches!(e, ErrorKind::NameLength { found: 12 })
            }),
            (28, 4, 28, |e| matches!(e, ErrorKind::ExtraField { len: 4 })),
            (30, b't', 30, |e| matches!(e, ErrorKind::WrongName { .. })),
            (41, 8, 41, |e| {
                matches!(e, ErrorKind::CountTooLarge { count: 8 })
            }),
            (43, 1, 42, |e| matches!(e, ErrorKind::NonZeroPadding { .. })),
            (60, 1, 14, |e| matches!(e, ErrorKind::CrcMismatch { .. })),
            (14, 0, 14, |e| matches!(e, ErrorKind::CrcMismatch { .. })),
        ];
        for &(at, value, offset, expected) in cases {
            let mut bytes = good;
            bytes[at] = value;
            let err = Header::parse(&bytes).unwrap_err();
            assert!(expected(err.kind()), "byte {at} = {value}: {err:?}");
            assert_eq!(err.offset(), Some(offset), "byte {at} = {value}: {err}");
        }
    }

    fn every_option() -> [ReadOptions; 4] {
        let o = ReadOptions::new();
        [
            o,
            o.checksums(false),
            o.lenient(true),
            o.lenient(true).checksums(false),
        ]
    }

    /// The word-compare fast path and the rule-by-rule checks agree on every
    /// single-byte change of a valid header, under every option.
    #[test]
    fn fast_path_agrees_with_the_ordered_checks() {
        let good = three().to_header_bytes();
        for at in 0..HEADER_SIZE {
            for value in 0..=255u8 {
                let mut bytes = good;
                bytes[at] = value;
                for options in every_option() {
                    assert_eq!(
                        Header::parse_with(&bytes, &options).is_ok(),
                        Header::check_in_order(&bytes, &options).is_ok(),
                        "byte {at} = {value} with {options:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn without_checksums_only_the_crc_is_skipped() {
        let mut bytes = three().to_header_bytes();
        bytes[60] ^= 1;
        let no_crc = ReadOptions::new().checksums(false);
        assert!(Header::parse_with(&bytes, &no_crc).is_ok());
        bytes[8] = 8;
        assert!(Header::parse_with(&bytes, &no_crc).is_err());
    }

    #[test]
    fn lenient_accepts_what_tacozip_accepts_and_warns() {
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
        let tacozip = ReadOptions::new().lenient(true).checksums(false);
        let header = Header::parse_with(&bytes, &tacozip).unwrap();
        assert_eq!(header.entries(), three());
        // Every strict rule but the CRC's, in order: flags (twice), method, size, name
        // length, extra length, padding.
        let offsets: std::vec::Vec<_> = header.warnings().map(|w| w.offset().unwrap()).collect();
        assert_eq!(offsets, [6, 6, 8, 18, 26, 28, 42]);
        // The CRC is the `checksums` option's, lenient or not.
        assert!(Header::parse_with(&bytes, &ReadOptions::new().lenient(true)).is_err());
        bytes[41] = 8;
        assert!(Header::parse_with(&bytes, &tacozip).is_err());
    }

    #[test]
    fn short_input_is_truncated_and_longer_input_is_fine() {
        use binfmt_core::Layout;
        let bytes = three().to_header_bytes();
        let err = Header::parse(&bytes[..156]).unwrap_err();
        assert!(matches!(
            err.kind(),
            ErrorKind::Layout(Layout::Truncated {
                needed: 157,
                available: 156,
                ..
            })
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
        let header = Header::parse_with(&bytes, &ReadOptions::new().checksums(false)).unwrap();
        assert_eq!(header.entries().len(), 2);
        assert_eq!(header.slots()[2], Entry::new(44, 0));
    }

    #[test]
    fn torn_and_damaged_crcs_are_told_apart() {
        let old = three().to_header_bytes();
        let raw = raw::Header::ref_from_bytes(&old).unwrap();
        let crc = raw.local.crc32.get();
        assert!(crc_rule(raw, Some(crc), true).is_ok());
        let torn = crc_rule(raw, Some(crc ^ 1), true).unwrap_err();
        assert!(matches!(
            torn.kind(),
            ErrorKind::TornUpdate {
                state: TornState::OldEntries,
                ..
            }
        ));
        use std::string::ToString;
        assert!(
            torn.to_string().starts_with("byte 14: torn update: "),
            "{torn}"
        );
        assert!(crc_rule(raw, Some(crc ^ 1), false).is_ok());
        let mut damaged = old;
        damaged[100] ^= 1;
        let raw = raw::Header::ref_from_bytes(&damaged).unwrap();
        assert!(matches!(
            crc_rule(raw, Some(crc), true).unwrap_err().kind(),
            ErrorKind::CrcMismatch { .. }
        ));
        assert!(matches!(
            crc_rule(raw, Some(crc ^ 1), true).unwrap_err().kind(),
            ErrorKind::TornUpdate {
                state: TornState::Unknown,
                ..
            }
        ));
    }
}
