//! A whole TACO archive in memory or memory-mapped: the header, the directory, the
//! members.

use binfmt_core::bytes;

use crate::central::{CentralEntries, CentralEntry, local_fixed};
use crate::directory::Directory;
use crate::entries::Entries;
use crate::error::{Error, Result};
use crate::header::{self, Header};
use crate::member::Member;
use crate::options::ReadOptions;
use crate::patch::Patch;
use crate::walk;

/// A parsed TACO archive: its header, the position of its central directory, and a
/// checked first central-directory entry (`TACO_HEADER`, pointing at offset 0).
///
/// Parsing reads the header, the end records and that one entry: O(1), whatever the
/// number of members. [`Archive::members`] walks the rest; [`verify`](crate::verify())
/// checks everything.
///
/// ```
/// use taco_header::{Archive, ArchiveBuilder, Entries, Entry};
/// let mut builder = ArchiveBuilder::new(Entries::from_slice(&[Entry::new(157, 13)])?);
/// builder.add_bytes("COLLECTION.json", b"{}".to_vec());
/// let bytes = builder.to_vec()?; // or a file: taco_header::fs::read / fs::map
///
/// let archive = Archive::parse(&bytes)?;
/// assert_eq!(archive.header().count(), 1);
/// for member in archive.members() {
///     let member = member?;
///     println!("{} ({} bytes at {})", member.name_escaped(), member.size(), member.data_offset());
/// }
/// # Ok::<(), taco_header::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Archive<'a> {
    data: &'a [u8],
    header: Header<'a>,
    directory: Directory,
    central_directory: &'a [u8],
    first: CentralEntry<'a>,
}

impl<'a> Archive<'a> {
    /// Parses the archive `data` (the whole file), checking everything
    /// [`ReadOptions::new`] checks.
    ///
    /// # Errors
    /// As [`Archive::parse_with`].
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        Archive::parse_with(data, &ReadOptions::new())
    }

    /// Parses the archive `data` (the whole file), checking what `options` says.
    ///
    /// # Errors
    /// Header errors as [`Header::parse_with`] (the CRC-32 last); end-record errors as
    /// [`Directory::locate`]; [`ErrorKind::HeaderNotFirst`],
    /// [`ErrorKind::HeaderNotAtStart`] and [`ErrorKind::LocalMismatch`] when the first
    /// central-directory entry is not a stored, 116-byte `TACO_HEADER` at offset 0; with
    /// checksums, [`ErrorKind::TornUpdate`] when the header's CRC and the central
    /// directory's copy differ (an interrupted update; `checksums(false)` lists the
    /// archive anyway, and [`fs::update`](crate::fs::update) repairs it).
    ///
    /// [`ErrorKind::HeaderNotFirst`]: crate::ErrorKind::HeaderNotFirst
    /// [`ErrorKind::HeaderNotAtStart`]: crate::ErrorKind::HeaderNotAtStart
    /// [`ErrorKind::LocalMismatch`]: crate::ErrorKind::LocalMismatch
    /// [`ErrorKind::TornUpdate`]: crate::ErrorKind::TornUpdate
    pub fn parse_with(data: &'a [u8], options: &ReadOptions) -> Result<Self> {
        // The field rules now, the CRC rule once the central copy is known.
        let header = Header::parse_with(data, &options.checksums(false))?;
        let (directory, tail) = walk::find_directory(data)?;
        let central_directory = walk::central_directory(data, &directory, tail)?.bytes;
        let first = walk::header_entry(central_directory, &directory)?;
        header::crc_rule(
            header.raw(),
            Some(first.crc32()),
            options.checks_checksums(),
        )?;
        Ok(Archive {
            data,
            header,
            directory,
            central_directory,
            first,
        })
    }

    /// The header.
    #[must_use]
    pub fn header(&self) -> Header<'a> {
        self.header
    }

    /// What a reader should know that does not make the archive invalid: under
    /// [`ReadOptions::lenient`], what the strict header rules say.
    pub fn warnings(&self) -> impl Iterator<Item = Error> + use<'a> {
        self.header.warnings()
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
        CentralEntries::new(
            self.central_directory,
            self.directory.cd_offset,
            self.directory.entries,
        )
    }

    /// The members, in central-directory order (`TACO_HEADER` first), each with the
    /// offset of its data, so that a caller can range-request one member. Each member
    /// costs one central-directory entry and the fixed 30 bytes of its local header, read
    /// in place.
    #[must_use]
    pub fn members(&self) -> Members<'a> {
        Members {
            data: self.data,
            entries: self.central_entries(),
        }
    }

    /// The writes that replace the header's entries with `entries`. [`Patch::apply`]
    /// performs them on a buffer; [`fs::update`](crate::fs::update) on a file.
    #[must_use]
    pub fn patch(&self, entries: &Entries) -> Patch {
        Patch::new(entries, self.first.offset)
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
        let data = self.data;
        Some(self.entries.next()?.and_then(|entry| {
            let at = entry.local_header_offset;
            let (_, data_offset) = local_fixed(bytes::rest(data, at, "local file header")?, at)?;
            Ok(Member::new(&entry, data_offset))
        }))
    }
}
