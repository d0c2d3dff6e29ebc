//! Central-directory entries and local headers: the per-member records.

use binfmt_core::{Kind, bytes, field_offset, magic};

use crate::error::{ErrorKind, Result};
use crate::raw::{self, CENTRAL_ENTRY_SIGNATURE, LOCAL_HEADER_SIGNATURE, ZIP64_EXTRA_ID};

/// Where a central-directory entry's CRC-32 is, from the entry's start.
pub(crate) const CENTRAL_CRC_AT: u64 = field_offset!(raw::CentralEntry, crc32);

/// One central-directory entry, with its ZIP64 values resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CentralEntry<'a> {
    /// Position in the central directory (0 for the header).
    pub index: u64,
    /// Offset of this entry in the archive.
    pub offset: u64,
    /// The fixed fields, as stored.
    pub raw: &'a raw::CentralEntry,
    /// The name's bytes (UTF-8 when flag bit 11 is set; in practice, always).
    pub name: &'a [u8],
    /// The extra field.
    pub extra: &'a [u8],
    /// Compressed size (from the ZIP64 extra field when the entry defers to it).
    pub compressed_size: u64,
    /// Uncompressed size.
    pub size: u64,
    /// Offset of the member's local header.
    pub local_header_offset: u64,
}

impl<'a> CentralEntry<'a> {
    /// Parses the entry at the start of `bytes`, which is at `offset` in the archive and
    /// is entry number `index`.
    ///
    /// # Errors
    /// [`Layout::Truncated`](binfmt_core::Layout::Truncated) or
    /// [`Layout::BadMagic`](binfmt_core::Layout::BadMagic) when the entry does not fit or
    /// lacks its signature; [`ErrorKind::MalformedExtra`] and
    /// [`ErrorKind::Zip64ExtraMissing`] for a bad ZIP64 extra field.
    pub fn parse(bytes: &'a [u8], offset: u64, index: u64) -> Result<Self> {
        let mut cursor = bytes::Cursor::new(bytes, offset);
        let raw: &raw::CentralEntry = cursor.read("central-directory entry")?;
        if raw.signature != CENTRAL_ENTRY_SIGNATURE {
            magic::check(
                bytes,
                0,
                &CENTRAL_ENTRY_SIGNATURE,
                "central-directory entry",
            )
            .map_err(|e| e.rebased(offset))?;
        }
        let name = cursor.take(
            u64::from(raw.name_len.get()),
            "central-directory entry name",
        )?;
        let extra_offset = cursor.offset();
        let extra = cursor.take(
            u64::from(raw.extra_len.get()),
            "central-directory extra field",
        )?;
        cursor.skip(
            u64::from(raw.comment_len.get()),
            "central-directory entry comment",
        )?;

        let mut entry = CentralEntry {
            index,
            offset,
            raw,
            name,
            extra,
            compressed_size: u64::from(raw.compressed_size.get()),
            size: u64::from(raw.uncompressed_size.get()),
            local_header_offset: u64::from(raw.local_header_offset.get()),
        };
        entry.resolve_zip64(extra_offset)?;
        Ok(entry)
    }

    /// Replaces `0xFFFFFFFF` fields with their values from the ZIP64 extra field, which
    /// holds exactly the deferred fields, in this order.
    fn resolve_zip64(&mut self, extra_offset: u64) -> Result<()> {
        let deferred = [
            &mut self.size as &mut u64,
            &mut self.compressed_size,
            &mut self.local_header_offset,
        ];
        if deferred.iter().all(|v| **v != u64::from(u32::MAX)) {
            return Ok(());
        }
        let missing = || ErrorKind::Zip64ExtraMissing.at(self.offset);
        let data = zip64_extra(self.extra, extra_offset)?.ok_or_else(missing)?;
        let mut values = bytes::Cursor::new(data, 0);
        for field in deferred {
            if *field == u64::from(u32::MAX) {
                let v: &binfmt_core::le::U64 =
                    values.read("ZIP64 extra field").map_err(|_| missing())?;
                *field = v.get();
            }
        }
        Ok(())
    }

    /// Offset of the entry that follows this one.
    #[must_use]
    pub fn end(&self) -> u64 {
        let variable = u64::from(self.raw.name_len.get())
            + u64::from(self.raw.extra_len.get())
            + u64::from(self.raw.comment_len.get());
        self.offset
            .saturating_add(bytes::to_u64(raw::CENTRAL_ENTRY_SIZE))
            .saturating_add(variable)
    }

    binfmt_core::le_getters! { raw =>
        /// The general-purpose flags.
        pub fn flags -> u16;
        /// The compression method (0 = stored).
        pub fn method -> u16;
        /// The CRC-32 of the member's data.
        pub fn crc32 -> u32;
    }
}

/// The data of the ZIP64 extended-information block of an extra field, if it has one.
fn zip64_extra(extra: &[u8], extra_offset: u64) -> Result<Option<&[u8]>> {
    let mut cursor = bytes::Cursor::new(extra, extra_offset);
    while !cursor.is_empty() {
        let malformed = |_| ErrorKind::MalformedExtra.at(extra_offset);
        let block: &raw::ExtraBlock = cursor.read("extra field block").map_err(malformed)?;
        let data = cursor
            .take(u64::from(block.len.get()), "extra field block")
            .map_err(malformed)?;
        if block.id.get() == ZIP64_EXTRA_ID {
            return Ok(Some(data));
        }
    }
    Ok(None)
}

/// The entries of a central directory, in order, from its bytes.
///
/// Yields at most the declared number of entries; an entry that does not fit ends the
/// walk with an error. The count is never used to size anything.
#[derive(Debug, Clone)]
pub struct CentralEntries<'a> {
    bytes: &'a [u8],
    base: u64,
    position: u64,
    index: u64,
    declared: u64,
    failed: bool,
}

impl<'a> CentralEntries<'a> {
    /// The entries of the central directory `bytes`, which starts at `base` in the
    /// archive and declares `declared` entries.
    #[must_use]
    pub fn new(bytes: &'a [u8], base: u64, declared: u64) -> Self {
        CentralEntries {
            bytes,
            base,
            position: 0,
            index: 0,
            declared,
            failed: false,
        }
    }

    /// After the iterator is exhausted without error: checks that the declared entries
    /// filled the central directory exactly.
    ///
    /// # Errors
    /// [`ErrorKind::EntryCount`] when bytes are left over.
    pub fn check_end(&self) -> Result<()> {
        if self.position == bytes::to_u64(self.bytes.len()) {
            Ok(())
        } else {
            Err(ErrorKind::EntryCount {
                declared: self.declared,
                found: self.index,
            }
            .at(self.base.saturating_add(self.position)))
        }
    }
}

impl<'a> Iterator for CentralEntries<'a> {
    type Item = Result<CentralEntry<'a>>;

    // Inline across crates: a generic view's member walk is compiled where it is used.
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.index >= self.declared {
            return None;
        }
        let offset = self.base.saturating_add(self.position);
        let rest = bytes::rest(self.bytes, self.position, "central directory").unwrap_or(&[]);
        let result = if rest.is_empty() {
            Err(ErrorKind::EntryCount {
                declared: self.declared,
                found: self.index,
            }
            .at(offset))
        } else {
            CentralEntry::parse(rest, offset, self.index)
        };
        match &result {
            Ok(entry) => {
                self.position = entry.end().saturating_sub(self.base);
                self.index = self.index.saturating_add(1);
            }
            Err(_) => self.failed = true,
        }
        Some(result)
    }
}

/// A member's local header, as far as needed to find its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalEntry<'a> {
    /// The fixed fields, as stored.
    pub raw: &'a raw::LocalHeader,
    /// The name's bytes.
    pub name: &'a [u8],
    /// Offset of the member's data: local header + 30 + name + extra field.
    pub data_offset: u64,
}

impl<'a> LocalEntry<'a> {
    /// Parses the local header at the start of `bytes`, which is at `offset` in the
    /// archive. `bytes` must hold the fixed 30 bytes and the name; the extra field is
    /// only counted, not read.
    ///
    /// # Errors
    /// [`Layout::Truncated`](binfmt_core::Layout::Truncated) or
    /// [`Layout::BadMagic`](binfmt_core::Layout::BadMagic).
    pub fn parse(bytes: &'a [u8], offset: u64) -> Result<Self> {
        let (raw, data_offset) = local_fixed(bytes, offset)?;
        let name = bytes::slice(
            bytes,
            bytes::to_u64(raw::LOCAL_HEADER_SIZE),
            u64::from(raw.name_len.get()),
            "local file header name",
        )
        .map_err(|e| e.rebased(offset))?;
        Ok(LocalEntry {
            raw,
            name,
            data_offset,
        })
    }
}

/// The fixed part of the local header at the start of `bytes` (which is at `offset` in
/// the archive), checked for its signature, and where the member's data starts: after
/// the header, its name and its extra field, by the *local* lengths (the local extra
/// field may differ from the central one). What a listing needs; the name itself is not
/// read.
#[inline]
pub(crate) fn local_fixed(bytes: &[u8], offset: u64) -> Result<(&raw::LocalHeader, u64)> {
    let raw: &raw::LocalHeader =
        bytes::read(bytes, 0, "local file header").map_err(|e| e.rebased(offset))?;
    if raw.signature != LOCAL_HEADER_SIGNATURE {
        magic::check(bytes, 0, &LOCAL_HEADER_SIGNATURE, "local file header")
            .map_err(|e| e.rebased(offset))?;
    }
    let variable = u64::from(raw.name_len.get()) + u64::from(raw.extra_len.get());
    let fixed_end = bytes::end(offset, bytes::to_u64(raw::LOCAL_HEADER_SIZE), "member data")?;
    Ok((raw, bytes::end(fixed_end, variable, "member data")?))
}
