//! Reading headers and member lists from files and other readers.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::vec::Vec;

use binfmt_core::bytes;

use crate::archive::{Member, check_header_entry};
use crate::central::{CentralEntries, LOCAL_LEN, LocalEntry};
use crate::directory::{Directory, EndRecords, TAIL_LEN, ZIP64_RECORD_LEN};
use crate::entries::Entries;
use crate::error::{Error, Result};
use crate::header::Header;
use crate::raw::{HEADER_SIZE, HEADER_SIZE_U64};

/// Reads the first 157 bytes of `reader` with as few reads as it allows (one, for a
/// file). Fewer than 157 bytes is a format error ([`binfmt_core::Error::Truncated`]),
/// not an I/O error: the input is simply not a TACO archive.
///
/// # Errors
/// [`Error::Io`] (reported for the path `<reader>`) or a truncation error.
pub fn read_header_bytes<R: Read>(mut reader: R) -> Result<[u8; HEADER_SIZE]> {
    let mut buf = [0u8; HEADER_SIZE];
    let mut filled = 0;
    while let Some(rest) = buf.get_mut(filled..).filter(|r| !r.is_empty()) {
        match reader.read(rest) {
            Ok(0) => break,
            Ok(n) => filled = filled.saturating_add(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io("<reader>")(e)),
        }
    }
    if filled < HEADER_SIZE {
        return Err(binfmt_core::Error::Truncated {
            what: "TACO header",
            offset: 0,
            needed: HEADER_SIZE_U64,
            available: filled as u64,
        }
        .into());
    }
    Ok(buf)
}

/// Reads and fully checks the header at the start of `reader`, and returns its entries.
///
/// # Errors
/// As [`read_header_bytes`] and [`Header::parse`].
pub fn read_entries<R: Read>(reader: R) -> Result<Entries> {
    let bytes = read_header_bytes(reader)?;
    Ok(Header::parse(&bytes)?.entries())
}

/// Reads and fully checks the header of the archive at `path`, and returns its entries.
/// Only the first 157 bytes are read.
///
/// # Errors
/// [`Error::Io`] naming the path, or as [`Header::parse`].
pub fn read_entries_from_path(path: impl AsRef<Path>) -> Result<Entries> {
    let path = path.as_ref();
    let file = File::open(path).map_err(Error::io(path))?;
    read_entries(file).map_err(|e| match e {
        Error::Io { source, .. } => Error::io(path)(source),
        other => other,
    })
}

/// The central directory of an archive read from a `Read + Seek` source, with the data
/// offset of every member.
///
/// It reads the tail of the archive, the ZIP64 record if any, the central directory,
/// and the fixed part and name of each member's local header: the same ranges a
/// client of a remote archive would request.
#[derive(Debug, Clone)]
pub struct MemberList {
    central_directory: Vec<u8>,
    directory: Directory,
    data_offsets: Vec<u64>,
}

impl MemberList {
    /// Reads the member list of the archive in `reader`.
    ///
    /// # Errors
    /// [`Error::Io`] (for `<reader>`), or as [`Archive::parse`](crate::Archive::parse) and
    /// [`Archive::members`](crate::Archive::members).
    pub fn read<R: Read + Seek>(mut reader: R) -> Result<Self> {
        let len = reader
            .seek(SeekFrom::End(0))
            .map_err(Error::io("<reader>"))?;
        let mut read = |offset: u64, n: u64, what: &'static str| {
            read_range(&mut reader, len, offset, n, what, Path::new("<reader>"))
        };

        let tail_len = len.min(TAIL_LEN);
        let records = EndRecords::find(
            &read(len.saturating_sub(tail_len), tail_len, "archive tail")?,
            len,
        )?;
        let zip64 = match records.zip64_record_offset() {
            Some(at) => Some(read(
                at,
                ZIP64_RECORD_LEN,
                "ZIP64 end-of-central-directory record",
            )?),
            None => None,
        };
        let directory = records.directory(zip64.as_deref())?;
        let central_directory = read(directory.cd_offset, directory.cd_size, "central directory")?;

        // Every entry takes at least 46 bytes, so the central directory's size (already
        // read) bounds this allocation, not the declared count.
        let mut data_offsets = Vec::with_capacity(
            bytes::len_u64(&central_directory)
                .div_ceil(46)
                .try_into()
                .unwrap_or(0),
        );
        let mut entries =
            CentralEntries::new(&central_directory, directory.cd_offset, directory.entries);
        for entry in entries.by_ref() {
            let entry = entry?;
            if entry.index == 0 {
                check_header_entry(&entry)?;
            }
            let n = LOCAL_LEN.saturating_add(u64::from(entry.raw.name_len.get()));
            let local_bytes = read(entry.local_header_offset, n, "local file header")?;
            data_offsets
                .push(LocalEntry::parse(&local_bytes, entry.local_header_offset)?.data_offset);
        }
        entries.check_end()?;
        if data_offsets.is_empty() {
            return Err(Error::HeaderNotFirst {
                offset: directory.cd_offset,
            });
        }
        Ok(MemberList {
            central_directory,
            directory,
            data_offsets,
        })
    }

    /// Where the central directory is.
    #[must_use]
    pub fn directory(&self) -> &Directory {
        &self.directory
    }

    /// The number of members, `TACO_HEADER` included.
    #[must_use]
    pub fn len(&self) -> usize {
        self.data_offsets.len()
    }

    /// Always false: a TACO archive has at least its header.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.data_offsets.is_empty()
    }

    /// The members, in central-directory order.
    pub fn iter(&self) -> impl Iterator<Item = Member<'_>> {
        CentralEntries::new(
            &self.central_directory,
            self.directory.cd_offset,
            self.directory.entries,
        )
        .map_while(core::result::Result::ok)
        .zip(&self.data_offsets)
        .map(|(entry, &data_offset)| Member::new(&entry, data_offset))
    }
}

/// Reads `n` bytes at `offset` of a source of `len` bytes, after checking that they are
/// there; I/O errors are reported for `path`.
pub(crate) fn read_range<R: Read + Seek>(
    reader: &mut R,
    len: u64,
    offset: u64,
    n: u64,
    what: &'static str,
    path: &Path,
) -> Result<Vec<u8>> {
    let range = bytes::checked_range(offset, n, len, what)?;
    let mut buf = std::vec![0u8; range.len()];
    reader
        .seek(SeekFrom::Start(offset))
        .map_err(Error::io(path))?;
    reader.read_exact(&mut buf).map_err(Error::io(path))?;
    Ok(buf)
}
