//! Whole-archive verification: every rule, every problem reported.

use core::ops::ControlFlow;

use binfmt_core::data::Data;
use binfmt_core::verify::{Sink, Tally};
use binfmt_core::{Kind, bytes};

use crate::central::{CentralEntries, CentralEntry, LocalEntry};
use crate::error::{Error, ErrorKind};
use crate::header::{self, FLAG_DATA_DESCRIPTOR, RULES};
use crate::options::ReadOptions;
use crate::{raw, walk};

type Findings<'t, 's> = Tally<'s, dyn Sink<Error> + 't>;

binfmt_core::verify_fns! {
    /// Checks the whole archive `data` against every rule and reports each problem to
    /// `sink`: errors at [`Severity::Error`](crate::Severity::Error), and under
    /// [`ReadOptions::lenient`] what the strict header rules say at
    /// [`Severity::Warning`](crate::Severity::Warning). The sink may stop the walk.
    ///
    /// The rules are those of [`Archive::parse`](crate::Archive::parse) (the same functions)
    /// and, for every member: its central-directory entry parses; its local header has the
    /// same signature, name, method and CRC-32 (unless it uses a data descriptor) as its
    /// entry; its data ends before the central directory; no two members share bytes or a
    /// name; the declared count fills the central directory exactly; and, with
    /// [`ReadOptions::checksums`], the CRC-32 of every stored member's data. Compressed
    /// members (which tacozip never writes, but `zip` can append) are not inflated.
    ///
    /// Structure is reported in central-directory order, then overlaps and member CRCs in
    /// data order, then duplicate names. Each distinct payload is hashed once, whatever the
    /// number of entries that point at it, and no byte is hashed for a member that overlaps
    /// another; memory grows with the number of members (with `alloc`, a few dozen bytes
    /// each), never with the number of problems. Without `alloc`, duplicates and overlaps
    /// are not looked for, and the CRC of a member whose data precedes data already hashed
    /// is skipped with an [`ErrorKind::CrcNotChecked`] warning.
    ///
    /// ```
    /// use binfmt_core::verify::Findings;
    /// use taco_header::{Entries, ReadOptions, Writer};
    /// let mut writer = Writer::new(Entries::new());
    /// writer.add_bytes("a.txt", b"hello".to_vec());
    /// let mut bytes = writer.to_vec()?;
    /// let at = bytes.windows(5).position(|w| w == b"hello").unwrap();
    /// bytes[at] = b'j'; // damage the member's data
    ///
    /// let mut findings = Findings::new(10);
    /// let summary = taco_header::verify(&bytes, &ReadOptions::new(), &mut findings);
    /// assert!(!summary.is_valid());
    /// assert_eq!(
    ///     findings.errors()[0].to_string(),
    ///     format!("byte {at}: member 1's data hashes to 0x4cd0f5e6, but its CRC-32 is 0x3610a686")
    /// );
    /// # Ok::<(), taco_header::Error>(())
    /// ```
    pub fn verify;

    /// [`verify`] over any [`Data`]: a slice, or a
    /// [`ReadCache`](binfmt_core::cache::ReadCache) over a file or an object store, with the
    /// same rules and the same findings.
    ///
    /// Over a cache the metadata (the header, the end records, the central directory and
    /// the local headers, hinted in one batch) is read by ranges and kept; the member data
    /// hashed for the CRC checks is read with [`Data::payload`] in pieces of at most
    /// [`PIECE_SIZE`] bytes, announced first with [`Data::prefetch`] in the order they are hashed,
    /// and not kept: memory does not grow with the members' sizes. An I/O error while
    /// reading is reported as an error.
    ///
    /// ```
    /// # #[cfg(feature = "std")] {
    /// use binfmt_core::cache::ReadCache;
    /// use binfmt_core::source::Counting;
    /// use binfmt_core::verify::Findings;
    /// use taco_header::{Entries, ReadOptions, Writer};
    ///
    /// let mut writer = Writer::new(Entries::new());
    /// writer.add_bytes("big", vec![7u8; 1 << 20]);
    /// let bytes = writer.to_vec()?;
    /// let cache = ReadCache::new(Counting::new(&bytes[..]));
    /// let mut findings = Findings::new(10);
    /// let summary = taco_header::verify_data(&cache, &ReadOptions::new(), &mut findings);
    /// assert!(summary.is_valid());
    /// assert!(cache.held() < 100_000); // not the member's 1 MiB
    /// # }
    /// # Ok::<(), taco_header::Error>(())
    /// ```
    pub fn verify_data => walk_archive;
}

/// The most member bytes [`verify_data`] reads at once over a cache: 8 MiB.
pub const PIECE_SIZE: u64 = 8 << 20;

/// The earlier name of [`PIECE_SIZE`].
#[deprecated(note = "use PIECE_SIZE")]
pub const VERIFY_PIECE: u64 = PIECE_SIZE;

fn walk_archive<'d, D: Data<'d>>(
    data: D,
    options: &ReadOptions,
    tally: &mut Findings<'_, '_>,
) -> ControlFlow<()>
where
    Error: From<D::Error>,
{
    let checksums = options.get_checksums();
    // The header: nothing else makes sense unless it is a TACO header at all.
    let head = match data.whole() {
        Some(all) => all,
        None => match data.head(bytes::to_u64(core::mem::size_of::<raw::Header>())) {
            Ok(head) => head,
            Err(e) => return tally.error(e.into()),
        },
    };
    let raw = match header::identify(head) {
        Ok(raw) => raw,
        Err(e) => return tally.error(e),
    };
    for (strict_only, rule) in RULES {
        if let Some(e) = rule(raw) {
            if strict_only && options.get_lenient() {
                tally.warning(e)?;
            } else {
                tally.error(e)?;
            }
        }
    }

    // The directory.
    let located = walk::find_directory(data).and_then(|(directory, tail)| {
        let cd = walk::central_directory(data, &directory, &tail)?;
        Ok((directory, cd))
    });
    let (directory, cd) = match located {
        Ok(found) => found,
        Err(e) => {
            if let Err(crc) = header::crc_rule(raw, None, checksums) {
                tally.error(crc)?;
            }
            return tally.error(e);
        }
    };

    let len = match data.whole() {
        Some(all) => bytes::len_u64(all),
        None => match data.size() {
            Ok(len) => len,
            Err(e) => return tally.error(e.into()),
        },
    };
    #[cfg(feature = "alloc")]
    if data.whole().is_none() {
        // Every local header in one batch (each with its central name's length).
        let ranges: alloc::vec::Vec<_> =
            CentralEntries::new(cd, directory.cd_offset, directory.entries)
                .map_while(Result::ok)
                .map(|entry| {
                    let at = entry.local_header_offset;
                    let n = bytes::to_u64(raw::LOCAL_HEADER_SIZE)
                        .saturating_add(bytes::len_u64(entry.name));
                    at..at.saturating_add(n).min(len)
                })
                .collect();
        if let Err(e) = data.hint(&ranges) {
            return tally.error(e.into());
        }
    }

    // The members, in central-directory order.
    let mut payloads = Payloads::new(data, len, checksums);
    let mut entries = CentralEntries::new(cd, directory.cd_offset, directory.entries);
    let mut header_crc_checked = false;
    for entry in entries.by_ref() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                if !header_crc_checked && let Err(crc) = header::crc_rule(raw, None, checksums) {
                    tally.error(crc)?;
                }
                // Without this entry's length the walk cannot find the next one.
                return tally.error(e);
            }
        };
        if entry.index == 0 {
            if let Err(e) = walk::check_header_entry(&entry) {
                tally.error(e)?;
            }
            header_crc_checked = true;
            if let Err(e) = header::crc_rule(raw, Some(entry.crc32()), checksums) {
                tally.error(e)?;
            }
        }
        match check_member(data, len, &entry, directory.cd_offset) {
            Ok(local) => payloads.add(&entry, &local, tally)?,
            Err(e) => tally.error(e)?,
        }
    }
    if !header_crc_checked {
        tally.error(ErrorKind::HeaderNotFirst.at(directory.cd_offset))?;
        if let Err(crc) = header::crc_rule(raw, None, checksums) {
            tally.error(crc)?;
        }
    }
    if let Err(e) = entries.check_end() {
        tally.error(e)?;
    }
    payloads.finish(tally)?;
    #[cfg(feature = "alloc")]
    duplicates(cd, &directory, tally)?;
    ControlFlow::Continue(())
}

/// The bytes of the local header at `at` of `data` (`len` bytes long) that
/// [`LocalEntry::parse`] reads: everything from `at` in memory; over a cache, the fixed
/// part and the name, or the rest of the input when it is shorter (the same error).
fn local_bytes<'d, D: Data<'d>>(data: D, len: u64, at: u64) -> Result<&'d [u8], Error>
where
    Error: From<D::Error>,
{
    if let Some(all) = data.whole() {
        return Ok(bytes::rest(all, at, "local file header")?);
    }
    let Some(rest) = len.checked_sub(at) else {
        return Err(binfmt_core::Error::truncated("local file header", at, 1, 0).into());
    };
    let fixed_len = bytes::to_u64(raw::LOCAL_HEADER_SIZE);
    let fixed = data.bytes(at, rest.min(fixed_len), "local file header")?;
    let Ok(local) = bytes::read::<raw::LocalHeader>(fixed, 0, "local file header") else {
        return Ok(fixed);
    };
    let want = fixed_len.saturating_add(u64::from(local.name_len.get()));
    Ok(data.bytes(at, want.min(rest), "local file header")?)
}

/// A member's local header against its central-directory entry.
fn check_member<'d, D: Data<'d>>(
    data: D,
    len: u64,
    entry: &CentralEntry<'_>,
    data_limit: u64,
) -> Result<LocalEntry<'d>, Error>
where
    Error: From<D::Error>,
{
    let at = entry.local_header_offset;
    let local = LocalEntry::parse(local_bytes(data, len, at)?, at)?;
    let mismatch = |field, central: u64, local: u64| {
        ErrorKind::LocalMismatch {
            index: entry.index,
            field,
            central,
            local,
        }
        .at(at)
    };
    if local.name != entry.name {
        let name_at = at.saturating_add(bytes::to_u64(raw::LOCAL_HEADER_SIZE));
        return Err(ErrorKind::LocalNameMismatch { index: entry.index }.at(name_at));
    }
    if local.raw.method.get() != entry.method() {
        return Err(mismatch(
            "compression method",
            u64::from(entry.method()),
            u64::from(local.raw.method.get()),
        ));
    }
    // With a data descriptor the local CRC and sizes are zero by design. The header's
    // two CRCs are the CRC rule's business (a difference there is a torn update).
    if entry.index != 0
        && local.raw.flags.get() & FLAG_DATA_DESCRIPTOR == 0
        && local.raw.crc32.get() != entry.crc32()
    {
        return Err(mismatch(
            "CRC-32",
            u64::from(entry.crc32()),
            u64::from(local.raw.crc32.get()),
        ));
    }
    let end = bytes::end(local.data_offset, entry.compressed_size, "member data")?;
    if end > data_limit {
        return Err(ErrorKind::MemberBounds {
            index: entry.index,
            end,
            limit: data_limit,
        }
        .at(local.data_offset));
    }
    Ok(local)
}

/// What the payload checks need of one member.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Span {
    /// Where the member's record (local header) starts.
    start: u64,
    /// Where its data starts.
    data: u64,
    /// Its stored size.
    size: u64,
    /// Its compression method.
    method: u16,
    /// Its position in the central directory.
    index: u64,
    /// The CRC-32 its entry states.
    crc: u32,
}

impl Span {
    /// The payload of `entry`, whose local header is `local`.
    fn new(entry: &CentralEntry<'_>, local: &LocalEntry<'_>) -> Span {
        Span {
            start: entry.local_header_offset,
            data: local.data_offset,
            size: entry.compressed_size,
            method: entry.method(),
            index: entry.index,
            crc: entry.crc32(),
        }
    }

    /// The payload's identity for the CRC cache.
    fn key(&self) -> (u64, u64, u16) {
        (self.data, self.size, self.method)
    }

    /// True if the payload is one whose CRC we check.
    fn hashed(&self, checksums: bool) -> bool {
        // The header's payload CRC is the CRC rule's; compressed members are not inflated.
        checksums && self.index != 0 && self.method == 0
    }

    /// The payload's pieces as [`verify_data`] reads them over a cache, in order.
    #[cfg(feature = "alloc")]
    fn pieces(&self) -> impl Iterator<Item = core::ops::Range<u64>> + use<> {
        let (start, end) = (self.data, self.data.saturating_add(self.size));
        (0..self.size.div_ceil(PIECE_SIZE)).map(move |i| {
            let from = start.saturating_add(i.saturating_mul(PIECE_SIZE));
            from..from.saturating_add(PIECE_SIZE).min(end)
        })
    }

    /// Hashes the payload if it is one whose CRC we check. `Err`: an I/O error.
    fn computed_crc<'d, D: Data<'d>>(
        &self,
        data: D,
        len: u64,
        checksums: bool,
    ) -> Result<Option<u32>, Error>
    where
        Error: From<D::Error>,
    {
        if !self.hashed(checksums) {
            return Ok(None);
        }
        if let Some(all) = data.whole() {
            // In bounds: `check_member` found the data before the central directory.
            return Ok(bytes::slice(all, self.data, self.size, "member data")
                .ok()
                .map(crate::crc::crc32));
        }
        if self.data.checked_add(self.size).is_none_or(|end| end > len) {
            return Ok(None);
        }
        #[cfg(feature = "alloc")]
        {
            let mut hasher = crc32fast::Hasher::new();
            for piece in self.pieces() {
                let bytes = data.payload(piece.start, piece.end - piece.start, "member data")?;
                hasher.update(&bytes);
            }
            Ok(Some(hasher.finalize()))
        }
        #[cfg(not(feature = "alloc"))]
        {
            Ok(Some(crate::crc::crc32(data.bytes(
                self.data,
                self.size,
                "member data",
            )?)))
        }
    }

    fn check_crc(&self, computed: Option<u32>) -> Result<(), Error> {
        match computed {
            Some(computed) if computed != self.crc => Err(ErrorKind::MemberCrc {
                index: self.index,
                stored: self.crc,
                computed,
            }
            .at(self.data)),
            _ => Ok(()),
        }
    }
}

/// Overlaps and member CRCs, checked as the walk adds the members: what is remembered of
/// the members added so far depends on the build ([`Seen`]).
struct Payloads<D> {
    data: D,
    len: u64,
    checksums: bool,
    seen: Seen,
}

/// Overlaps and member CRCs: with `alloc`, over the members sorted by position, so that
/// each distinct payload is hashed once and overlapping ones not at all.
#[cfg(feature = "alloc")]
type Seen = alloc::vec::Vec<Span>;

/// Member CRCs without `alloc`: in central-directory order, hashing a payload only when
/// it starts at or after the end of the last one hashed (or is that same payload), so
/// that no byte is hashed twice.
#[cfg(not(feature = "alloc"))]
#[derive(Default)]
struct Seen {
    hashed_until: u64,
    last: Option<(Span, Option<u32>)>,
}

impl<'d, D: Data<'d>> Payloads<D>
where
    Error: From<D::Error>,
{
    fn new(data: D, len: u64, checksums: bool) -> Self {
        Payloads {
            data,
            len,
            checksums,
            seen: Seen::default(),
        }
    }

    /// Adds the member of `entry`, whose local header is `local`.
    fn add(
        &mut self,
        entry: &CentralEntry<'_>,
        local: &LocalEntry<'_>,
        tally: &mut Findings<'_, '_>,
    ) -> ControlFlow<()> {
        self.add_span(Span::new(entry, local), tally)
    }
}

#[cfg(feature = "alloc")]
impl<'d, D: Data<'d>> Payloads<D>
where
    Error: From<D::Error>,
{
    /// Announces the pieces of the payloads [`Payloads::finish`] will hash, in order:
    /// its walk, without the hashing.
    fn prefetch(&self) -> Result<(), Error> {
        if self.data.whole().is_some() || !self.checksums {
            return Ok(());
        }
        let mut ranges = alloc::vec::Vec::new();
        let mut furthest: Option<u64> = None;
        let mut last: Option<Span> = None;
        for span in &self.seen {
            let end = span.data.saturating_add(span.size);
            let same = last.is_some_and(|p| p.start == span.start && p.key() == span.key());
            let overlaps = furthest.is_some_and(|reach| span.start < reach);
            if !same && !overlaps && span.hashed(self.checksums) && end <= self.len {
                ranges.extend(span.pieces());
            }
            if furthest.is_none_or(|reach| end > reach) {
                furthest = Some(end);
            }
            last = Some(*span);
        }
        Ok(self.data.prefetch(&ranges)?)
    }

    fn add_span(&mut self, span: Span, _tally: &mut Findings<'_, '_>) -> ControlFlow<()> {
        self.seen.push(span);
        ControlFlow::Continue(())
    }

    fn finish(mut self, tally: &mut Findings<'_, '_>) -> ControlFlow<()> {
        // Members are almost always in data order already: the sort is then linear.
        self.seen.sort_unstable();
        if let Err(e) = self.prefetch() {
            tally.error(e)?;
        }
        // The member reaching furthest so far, and the last payload hashed.
        let mut furthest: Option<(u64, u64)> = None;
        let mut last: Option<(Span, Option<u32>)> = None;
        for span in &self.seen {
            let end = span.data.saturating_add(span.size);
            let computed = match last {
                Some((prev, computed)) if prev.start == span.start && prev.key() == span.key() => {
                    // Another entry for the same local header: an overlap, but the CRC
                    // check costs nothing more.
                    let overlap = ErrorKind::OverlappingMember {
                        index: span.index,
                        other: prev.index,
                    };
                    tally.error(overlap.at(span.start))?;
                    computed
                }
                _ => match furthest {
                    Some((reach, other)) if span.start < reach => {
                        let overlap = ErrorKind::OverlappingMember {
                            index: span.index,
                            other,
                        };
                        tally.error(overlap.at(span.start))?;
                        // Not hashed: overlapping payloads could make us hash the same
                        // bytes once per entry.
                        None
                    }
                    _ => match span.computed_crc(self.data, self.len, self.checksums) {
                        Ok(computed) => computed,
                        Err(e) => {
                            tally.error(e)?;
                            None
                        }
                    },
                },
            };
            if let Err(e) = span.check_crc(computed) {
                tally.error(e)?;
            }
            if furthest.is_none_or(|(reach, _)| end > reach) {
                furthest = Some((end, span.index));
            }
            last = Some((*span, computed));
        }
        ControlFlow::Continue(())
    }
}

#[cfg(not(feature = "alloc"))]
impl<'d, D: Data<'d>> Payloads<D>
where
    Error: From<D::Error>,
{
    fn add_span(&mut self, span: Span, tally: &mut Findings<'_, '_>) -> ControlFlow<()> {
        let computed = match self.seen.last {
            Some((prev, computed)) if prev.key() == span.key() => computed,
            _ if span.data >= self.seen.hashed_until => {
                let computed = match span.computed_crc(self.data, self.len, self.checksums) {
                    Ok(computed) => computed,
                    Err(e) => {
                        tally.error(e)?;
                        None
                    }
                };
                if computed.is_some() {
                    self.seen.hashed_until = span.data.saturating_add(span.size);
                }
                computed
            }
            _ => {
                if self.checksums && span.index != 0 && span.method == 0 {
                    let skipped = ErrorKind::CrcNotChecked { index: span.index };
                    tally.warning(skipped.at(span.data))?;
                }
                None
            }
        };
        if let Err(e) = span.check_crc(computed) {
            tally.error(e)?;
        }
        self.seen.last = Some((span, computed));
        ControlFlow::Continue(())
    }

    fn finish(self, _tally: &mut Findings<'_, '_>) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}

/// Members with the same name, over the names sorted (equal names in
/// central-directory order).
#[cfg(feature = "alloc")]
fn duplicates(
    cd: &[u8],
    directory: &crate::directory::Directory,
    tally: &mut Findings<'_, '_>,
) -> ControlFlow<()> {
    let mut names: alloc::vec::Vec<(&[u8], u64, u64)> =
        CentralEntries::new(cd, directory.cd_offset, directory.entries)
            .map_while(Result::ok)
            .map(|entry| (entry.name, entry.index, entry.offset))
            .collect();
    names.sort_unstable();
    let mut first: Option<(&[u8], u64)> = None;
    for &(name, index, offset) in &names {
        match first {
            Some((seen, first_index)) if seen == name => {
                let duplicate = ErrorKind::DuplicateMember {
                    index,
                    first: first_index,
                };
                tally.error(duplicate.at(offset))?;
            }
            _ => first = Some((name, index)),
        }
    }
    ControlFlow::Continue(())
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use std::vec::Vec;

    use binfmt_core::verify::Findings;

    use super::*;
    use crate::{Archive, Entries, Writer};

    /// An archive whose central directory has `copies` entries for its one member, each
    /// an exact copy (the most entries a classic end record can count is 65,535).
    #[allow(clippy::unwrap_used)]
    pub(crate) fn many_entries_for_one_member(size: usize, copies: usize) -> Vec<u8> {
        let mut writer = Writer::new(Entries::new());
        writer.add_bytes("big", std::vec![7u8; size]);
        let bytes = writer.to_vec().unwrap();
        let archive = Archive::parse(&bytes).unwrap();
        let dir = *archive.directory();
        let cd_start = usize::try_from(dir.cd_offset).unwrap();
        let cd_end = cd_start + usize::try_from(dir.cd_size).unwrap();
        let second = archive.central_entries().nth(1).unwrap().unwrap();
        let second_at = usize::try_from(second.offset).unwrap();
        let (header_entry, member_entry) = (
            bytes.get(cd_start..second_at).unwrap(),
            bytes.get(second_at..cd_end).unwrap(),
        );
        let mut out = bytes.get(..cd_start).unwrap().to_vec();
        out.extend_from_slice(header_entry);
        for _ in 0..copies {
            out.extend_from_slice(member_entry);
        }
        let cd_size = out.len() - cd_start;
        let count = u16::try_from(copies + 1).unwrap();
        let end = raw::End {
            signature: raw::END_SIGNATURE,
            disk: 0.into(),
            cd_disk: 0.into(),
            disk_entries: count.into(),
            entries: count.into(),
            cd_size: u32::try_from(cd_size).unwrap().into(),
            cd_offset: u32::try_from(cd_start).unwrap().into(),
            comment_len: 0.into(),
        };
        out.extend_from_slice(zerocopy::IntoBytes::as_bytes(&end));
        out
    }

    #[test]
    fn a_payload_named_by_many_entries_is_hashed_once() {
        const SIZE: usize = 8 << 20;
        let bytes = many_entries_for_one_member(SIZE, 65_533);
        crate::crc::HASHED.with(|h| h.set(0));
        let mut findings = Findings::new(50);
        let summary = verify(&bytes, &ReadOptions::new(), &mut findings);
        let hashed = crate::crc::HASHED.with(core::cell::Cell::get);
        // The payload once, and the header's 116 bytes.
        assert_eq!(hashed, u64::try_from(SIZE).unwrap() + 116);
        // Every later entry overlaps the first and repeats its name.
        assert_eq!(summary.errors(), 2 * 65_532);
        assert_eq!(findings.errors().len(), 50);
        assert_eq!(findings.more_errors(), 2 * 65_532 - 50);
        assert!(matches!(
            findings.errors()[0].kind(),
            ErrorKind::OverlappingMember { index: 2, other: 1 }
        ));
    }

    #[test]
    fn without_checksums_nothing_is_hashed() {
        let bytes = many_entries_for_one_member(1000, 3);
        crate::crc::HASHED.with(|h| h.set(0));
        let mut findings = Findings::new(50);
        verify(&bytes, &ReadOptions::new().checksums(false), &mut findings);
        assert_eq!(crate::crc::HASHED.with(core::cell::Cell::get), 0);
        assert_eq!(findings.errors().len(), 4);
    }
}

/// The checks of a build without `alloc`, over an archive made by hand.
#[cfg(all(test, not(feature = "alloc")))]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]
mod no_alloc_tests {
    use std::vec::Vec;

    use binfmt_core::le::{U16, U32};
    use binfmt_core::verify::Summary;
    use zerocopy::IntoBytes;

    use super::*;
    use crate::{Entries, Severity};

    /// The header, members `a` and `b`, and a central directory listing `order`.
    fn archive(data: [&[u8]; 2], order: [usize; 2]) -> Vec<u8> {
        let mut out = Entries::new().to_header_bytes().to_vec();
        let mut centrals = Vec::new();
        let header: &raw::Header = zerocopy::FromBytes::ref_from_bytes(&out[..]).unwrap();
        let header_crc = header.local.crc32;
        let entry = |name: &[u8], crc: U32, size: usize, at: usize| raw::CentralEntry {
            signature: raw::CENTRAL_ENTRY_SIGNATURE,
            version_made_by: U16::new(10),
            version_needed: U16::new(10),
            flags: U16::ZERO,
            method: U16::ZERO,
            dos_time: U16::ZERO,
            dos_date: U16::new(33),
            crc32: crc,
            compressed_size: U32::new(size as u32),
            uncompressed_size: U32::new(size as u32),
            name_len: U16::new(name.len() as u16),
            extra_len: U16::ZERO,
            comment_len: U16::ZERO,
            disk_start: U16::ZERO,
            internal_attributes: U16::ZERO,
            external_attributes: U32::ZERO,
            local_header_offset: U32::new(at as u32),
        };
        let mut header_entry = entry(&raw::HEADER_NAME, header_crc, raw::PAYLOAD_SIZE, 0)
            .as_bytes()
            .to_vec();
        header_entry.extend_from_slice(&raw::HEADER_NAME);
        for (name, bytes) in [(&b"a"[..], data[0]), (&b"b"[..], data[1])] {
            let crc = U32::new(crate::crc::crc32(bytes));
            let at = out.len();
            let central = entry(name, crc, bytes.len(), at);
            let local = raw::LocalHeader {
                signature: raw::LOCAL_HEADER_SIGNATURE,
                version_needed: central.version_needed,
                flags: central.flags,
                method: central.method,
                dos_time: central.dos_time,
                dos_date: central.dos_date,
                crc32: crc,
                compressed_size: central.compressed_size,
                uncompressed_size: central.uncompressed_size,
                name_len: central.name_len,
                extra_len: U16::ZERO,
            };
            out.extend_from_slice(local.as_bytes());
            out.extend_from_slice(name);
            out.extend_from_slice(bytes);
            let mut central = central.as_bytes().to_vec();
            central.extend_from_slice(name);
            centrals.push(central);
        }
        let cd_offset = out.len();
        out.extend_from_slice(&header_entry);
        for i in order {
            out.extend_from_slice(&centrals[i]);
        }
        let end = raw::End {
            signature: raw::END_SIGNATURE,
            disk: U16::ZERO,
            cd_disk: U16::ZERO,
            disk_entries: U16::new(3),
            entries: U16::new(3),
            cd_size: U32::new((out.len() - cd_offset) as u32),
            cd_offset: U32::new(cd_offset as u32),
            comment_len: U16::ZERO,
        };
        out.extend_from_slice(end.as_bytes());
        out
    }

    fn findings(bytes: &[u8]) -> (Summary, Vec<(Severity, u64)>) {
        let mut seen = Vec::new();
        let summary = verify(bytes, &ReadOptions::new(), &mut |severity, e: Error| {
            seen.push((severity, e.offset().unwrap_or(u64::MAX)));
            ControlFlow::Continue(())
        });
        (summary, seen)
    }

    #[test]
    fn in_order_archives_are_fully_checked() {
        let (summary, seen) = findings(&archive([b"hello", b"world"], [0, 1]));
        assert!(summary.is_valid() && seen.is_empty(), "{seen:?}");
        let mut bytes = archive([b"hello", b"world"], [0, 1]);
        let at = bytes.windows(5).position(|w| w == b"world").unwrap();
        bytes[at] = b'W';
        let (_, seen) = findings(&bytes);
        assert_eq!(seen, [(Severity::Error, at as u64)]);
    }

    #[test]
    fn out_of_order_members_are_skipped_with_a_warning() {
        let bytes = archive([b"hello", b"world"], [1, 0]);
        let (summary, seen) = findings(&bytes);
        assert!(summary.is_valid());
        let a_data = bytes.windows(5).position(|w| w == b"hello").unwrap();
        assert_eq!(seen, [(Severity::Warning, a_data as u64)]);
    }
}
