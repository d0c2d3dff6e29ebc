//! A whole TACO archive in memory or memory-mapped: members, validation, in-place patch.

use binfmt_core::{bytes, le::U32};
use zerocopy::IntoBytes;

use crate::central::{CentralEntries, CentralEntry, LOCAL_LEN, LocalEntry};
use crate::directory::Directory;
use crate::entries::Entries;
use crate::error::{Error, Result};
use crate::header::{Check, FLAG_UTF8, Header};
use crate::raw::{self, HEADER_NAME, PAYLOAD_OFFSET_U64, PAYLOAD_SIZE_U64};

/// General-purpose flag bit 3: CRC and sizes are in a data descriptor after the data.
const FLAG_DATA_DESCRIPTOR: u16 = 1 << 3;

/// A parsed TACO archive: its header, the position of its central directory, and a
/// checked first central-directory entry (`TACO_HEADER`, pointing at offset 0).
///
/// Parsing reads the header, the end records and that one entry: O(1), whatever the
/// number of members. [`Archive::members`] and [`Archive::validate`] walk the rest.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let data = std::fs::read("tests/fixtures/three_entries.taco")?;
/// let archive = taco_header::Archive::parse(&data)?;
/// assert_eq!(archive.header().count(), 3);
/// for member in archive.members() {
///     let member = member?;
///     println!("{} ({} bytes at {})", member.name_lossy(), member.size, member.data_offset);
/// }
/// archive.validate(taco_header::Level::Deep)?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Archive<'a> {
    data: &'a [u8],
    header: Header<'a>,
    directory: Directory,
    first: CentralEntry<'a>,
}

impl<'a> Archive<'a> {
    /// Parses the archive `data` (the whole file).
    ///
    /// The header's structure is checked, not its CRC (that is [`Archive::validate`]'s
    /// job), so that a reader can still list a damaged archive.
    ///
    /// # Errors
    /// Header errors as [`Header::parse_with`] with [`Check::Structure`]; end-record
    /// errors as [`Directory::locate`]; [`Error::HeaderNotFirst`],
    /// [`Error::HeaderNotAtStart`] and [`Error::LocalMismatch`] when the first
    /// central-directory entry is not a stored, 116-byte `TACO_HEADER` at offset 0.
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        let header = Header::parse_with(data, Check::Structure)?;
        let directory = Directory::locate(data)?;
        let first = first_central_entry(data, &directory)?;
        Ok(Archive {
            data,
            header,
            directory,
            first,
        })
    }

    /// The header.
    #[must_use]
    pub fn header(&self) -> Header<'a> {
        self.header
    }

    /// Where the central directory is.
    #[must_use]
    pub fn directory(&self) -> &Directory {
        &self.directory
    }

    /// The archive's bytes.
    #[must_use]
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The central-directory entries, in order (the header's first).
    #[must_use]
    pub fn central_entries(&self) -> CentralEntries<'a> {
        // The range was checked at parse time.
        let cd = bytes::slice(
            self.data,
            self.directory.cd_offset,
            self.directory.cd_size,
            "central directory",
        )
        .unwrap_or(&[]);
        CentralEntries::new(cd, self.directory.cd_offset, self.directory.entries)
    }

    /// The members, in central-directory order (`TACO_HEADER` first), each with the
    /// offset of its data, so that a caller can range-request one member.
    #[must_use]
    pub fn members(&self) -> Members<'a> {
        Members {
            data: self.data,
            entries: self.central_entries(),
        }
    }

    /// The first problem [`Archive::validate_each`] finds.
    ///
    /// # Errors
    /// That problem.
    pub fn validate(&self, level: Level) -> Result<()> {
        let mut first = None;
        self.validate_each(level, &mut |e| {
            first.get_or_insert(e);
        });
        first.map_or(Ok(()), Err)
    }

    /// Checks the archive to `level` and reports every problem found to `report`, in
    /// archive order. Nothing is reported for a valid archive.
    ///
    /// * [`Level::Header`]: the header's CRC-32 (its structure was checked by `parse`).
    /// * [`Level::Structure`]: also every central-directory entry, the count, each local
    ///   header against its entry, that member data stays before the central directory,
    ///   that the header's two CRC copies agree, and (with `std`) unique member names.
    /// * [`Level::Deep`]: also the CRC-32 of every stored member's data. Compressed
    ///   members (which tacozip never writes, but `zip` can append) are not inflated.
    pub fn validate_each(&self, level: Level, report: &mut dyn FnMut(Error)) {
        if let Err(e) = Header::parse_with(self.data, Check::Full) {
            report(e);
        }
        if level == Level::Header {
            return;
        }
        if self.first.crc32() != self.header.crc32() {
            report(Error::LocalMismatch {
                offset: 14,
                index: 0,
                field: "CRC-32",
                central: u64::from(self.first.crc32()),
                local: u64::from(self.header.crc32()),
            });
        }
        #[cfg(feature = "std")]
        let mut names = std::collections::HashSet::new();
        let mut entries = self.central_entries();
        for entry in entries.by_ref() {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => return report(e),
            };
            #[cfg(feature = "std")]
            if !names.insert(entry.name) {
                report(Error::DuplicateMember {
                    offset: entry.offset,
                    index: entry.index,
                });
            }
            match check_member(self.data, &entry, self.directory.cd_offset) {
                Ok(member) => {
                    if level == Level::Deep {
                        check_member_crc(self.data, &member, &entry, report);
                    }
                }
                Err(e) => report(e),
            }
        }
        if let Err(e) = entries.check_end() {
            report(e);
        }
    }

    /// The writes that replace the header's entries with `entries`: payload, local CRC,
    /// central-directory CRC. [`Patch::apply`] performs them on a buffer; the
    /// file-based [`crate::update`] performs them on a file.
    #[must_use]
    pub fn patch(&self, entries: &Entries) -> Patch {
        Patch::new(entries, self.first.offset)
    }
}

/// How far [`Archive::validate_each`] goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum Level {
    /// The header alone, its CRC-32 included.
    Header,
    /// The header and the ZIP structure.
    Structure,
    /// Everything, member CRCs included.
    #[default]
    Deep,
}

/// The first central-directory entry, checked to be the header's.
pub(crate) fn first_central_entry<'a>(
    data: &'a [u8],
    directory: &Directory,
) -> Result<CentralEntry<'a>> {
    let cd = bytes::slice(
        data,
        directory.cd_offset,
        directory.cd_size,
        "central directory",
    )?;
    let first = CentralEntries::new(cd, directory.cd_offset, directory.entries)
        .next()
        .unwrap_or(Err(Error::HeaderNotFirst {
            offset: directory.cd_offset,
        }))?;
    check_header_entry(&first)?;
    Ok(first)
}

/// The `TACO_HEADER` central-directory entry must be first, point at offset 0, and
/// describe a stored 116-byte member, like the local header it points at.
pub(crate) fn check_header_entry(first: &CentralEntry<'_>) -> Result<()> {
    if first.name != HEADER_NAME {
        return Err(Error::HeaderNotFirst {
            offset: first.offset,
        });
    }
    if first.local_header_offset != 0 {
        return Err(Error::HeaderNotAtStart {
            offset: first.offset,
            local_header_offset: first.local_header_offset,
        });
    }
    let payload = PAYLOAD_SIZE_U64;
    for (field, central, local) in [
        ("compression method", u64::from(first.method()), 0),
        ("compressed size", first.compressed_size, payload),
        ("uncompressed size", first.size, payload),
    ] {
        if central != local {
            return Err(Error::LocalMismatch {
                offset: 0,
                index: 0,
                field,
                central,
                local,
            });
        }
    }
    Ok(())
}

/// Checks a member's local header against its central-directory entry and returns
/// the member.
fn check_member<'a>(
    data: &'a [u8],
    entry: &CentralEntry<'a>,
    data_limit: u64,
) -> Result<Member<'a>> {
    let local = local_entry(data, entry)?;
    let member = Member::new(entry, local.data_offset);
    let mismatch = |field, central: u64, local_value: u64| Error::LocalMismatch {
        offset: entry.local_header_offset,
        index: entry.index,
        field,
        central,
        local: local_value,
    };
    if local.name != entry.name {
        return Err(Error::LocalNameMismatch {
            offset: entry.local_header_offset.saturating_add(LOCAL_LEN),
            index: entry.index,
        });
    }
    if local.raw.method.get() != entry.method() {
        return Err(mismatch(
            "compression method",
            u64::from(entry.method()),
            u64::from(local.raw.method.get()),
        ));
    }
    // With a data descriptor the local CRC and sizes are zero by design.
    if local.raw.flags.get() & FLAG_DATA_DESCRIPTOR == 0 && local.raw.crc32.get() != entry.crc32() {
        return Err(mismatch(
            "CRC-32",
            u64::from(entry.crc32()),
            u64::from(local.raw.crc32.get()),
        ));
    }
    let end = bytes::end(member.data_offset, member.compressed_size, "member data")?;
    if end > data_limit {
        return Err(Error::MemberBounds {
            offset: member.data_offset,
            index: entry.index,
            end,
            limit: data_limit,
        });
    }
    Ok(member)
}

fn check_member_crc(
    data: &[u8],
    member: &Member<'_>,
    entry: &CentralEntry<'_>,
    report: &mut dyn FnMut(Error),
) {
    if member.method != 0 {
        return;
    }
    match bytes::slice(data, member.data_offset, member.size, "member data") {
        Ok(bytes) => {
            let computed = crate::crc::crc32(bytes);
            if computed != member.crc32 {
                report(Error::MemberCrc {
                    offset: member.data_offset,
                    index: entry.index,
                    stored: member.crc32,
                    computed,
                });
            }
        }
        Err(e) => report(e.into()),
    }
}

/// A central-directory entry with its data located through its local header.
fn resolve_member<'a>(data: &'a [u8], entry: &CentralEntry<'a>) -> Result<Member<'a>> {
    Ok(Member::new(entry, local_entry(data, entry)?.data_offset))
}

/// The local header a central-directory entry points at (its own lengths bound the read).
fn local_entry<'a>(data: &'a [u8], entry: &CentralEntry<'a>) -> Result<LocalEntry<'a>> {
    let at = entry.local_header_offset;
    LocalEntry::parse(bytes::rest(data, at, "local file header")?, at)
}

/// A member of the archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Member<'a> {
    /// Position in the central directory (0 is `TACO_HEADER`).
    pub index: u64,
    /// The name's bytes as stored.
    pub name: &'a [u8],
    /// The general-purpose flags (bit 11: the name is UTF-8).
    pub flags: u16,
    /// Compression method (0 = stored).
    pub method: u16,
    /// CRC-32 of the uncompressed data.
    pub crc32: u32,
    /// Uncompressed size.
    pub size: u64,
    /// Size as stored (equal to `size` for a stored member).
    pub compressed_size: u64,
    /// Offset of the member's local header.
    pub local_header_offset: u64,
    /// Offset of the member's stored data: read `compressed_size` bytes from here.
    pub data_offset: u64,
}

impl<'a> Member<'a> {
    pub(crate) fn new(entry: &CentralEntry<'a>, data_offset: u64) -> Self {
        Member {
            index: entry.index,
            name: entry.name,
            flags: entry.flags(),
            method: entry.method(),
            crc32: entry.crc32(),
            size: entry.size,
            compressed_size: entry.compressed_size,
            local_header_offset: entry.local_header_offset,
            data_offset,
        }
    }

    /// The name as text, if it is UTF-8 (names written by tacozip and binfmt are).
    #[must_use]
    pub fn name_str(&self) -> Option<&'a str> {
        core::str::from_utf8(self.name).ok()
    }

    /// The name as text, with invalid UTF-8 replaced by U+FFFD.
    #[cfg(feature = "std")]
    #[must_use]
    pub fn name_lossy(&self) -> std::borrow::Cow<'a, str> {
        std::string::String::from_utf8_lossy(self.name)
    }

    /// True when the UTF-8 flag (bit 11) is set.
    #[must_use]
    pub fn is_utf8_flagged(&self) -> bool {
        self.flags & FLAG_UTF8 != 0
    }
}

/// The members of an archive, from [`Archive::members`].
#[derive(Debug, Clone)]
pub struct Members<'a> {
    data: &'a [u8],
    entries: CentralEntries<'a>,
}

impl<'a> Iterator for Members<'a> {
    type Item = Result<Member<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(
            self.entries
                .next()?
                .and_then(|entry| resolve_member(self.data, &entry)),
        )
    }
}

/// The three writes of an in-place header update.
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
            central_crc_offset: central_entry_offset.saturating_add(16),
        }
    }

    /// `(offset, bytes)` of each write, in the order they are made: 116 payload bytes at
    /// 41, the local CRC at 14, the central-directory CRC. 124 bytes in all.
    #[must_use]
    pub fn writes(&self) -> [(u64, &[u8]); 3] {
        [
            (PAYLOAD_OFFSET_U64, self.payload.as_bytes()),
            (14, self.crc.as_bytes()),
            (self.central_crc_offset, self.crc.as_bytes()),
        ]
    }

    /// Performs the writes on `data`, all or none.
    ///
    /// # Errors
    /// [`binfmt_core::Error::Truncated`] when a write would not fit; `data` is then
    /// unchanged.
    pub fn apply(&self, data: &mut [u8]) -> Result<()> {
        for (offset, bytes) in self.writes() {
            bytes::slice(data, offset, bytes::len_u64(bytes), "patched range")?;
        }
        for (offset, bytes) in self.writes() {
            let start = bytes::to_usize(offset, "patched range", offset)?;
            if let Some(target) = data.get_mut(start..start.saturating_add(bytes.len())) {
                target.copy_from_slice(bytes);
            }
        }
        Ok(())
    }
}

/// Replaces the header's entries in the archive `data`, after checking everything.
///
/// # Errors
/// As [`Archive::parse`]; `data` is unchanged on error.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use taco_header::{Archive, Entries, Entry};
/// let mut data = std::fs::read("tests/fixtures/three_entries.taco")?;
/// taco_header::update_in_memory(&mut data, &Entries::from_slice(&[Entry::new(1, 2)])?)?;
/// assert_eq!(Archive::parse(&data)?.header().entry(0), Some(Entry::new(1, 2)));
/// # Ok(()) }
/// ```
pub fn update_in_memory(data: &mut [u8], entries: &Entries) -> Result<()> {
    let patch = Archive::parse(data)?.patch(entries);
    patch.apply(data)
}
