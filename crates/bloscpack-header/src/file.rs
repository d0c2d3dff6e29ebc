//! A whole Bloscpack file, borrowed: header, sections and a checked walk over the chunks.

use binfmt_core::bytes::{self, len_u64};
use binfmt_core::le::I64;

use crate::checksum::Checksum;
use crate::chunk::{Chunk, ChunkHeader};
use crate::error::{Error, Result};
use crate::header::{Config, HEADER_LEN, Header};
use crate::metadata::MetadataSection;

/// A parsed Bloscpack file, borrowing its bytes.
///
/// [`Bloscpack::parse`] checks the whole structure once: the header, the metadata
/// section, the offsets section (used entries point at their chunks, spare ones are -1)
/// and every chunk's Blosc header, size and digest position. Digests themselves are
/// compared by [`verify`](Bloscpack::verify) (and before anything is decompressed),
/// because that reads every byte of the file. Nothing here allocates.
#[derive(Debug, Clone, Copy)]
pub struct Bloscpack<'a> {
    data: &'a [u8],
    header: Header,
    metadata: Option<MetadataSection<'a>>,
    offsets: &'a [I64],
    offsets_at: u64,
    chunks_at: u64,
    end: u64,
    nchunks: u64,
    uncompressed: u64,
    largest_chunk: u32,
}

impl<'a> Bloscpack<'a> {
    /// Parses and checks the structure of a whole file (format 2 or 3).
    ///
    /// Bytes after the last chunk's digest are tolerated when the header gives the chunk
    /// count (bloscpack's append can leave some); see [`trailing`](Self::trailing).
    ///
    /// # Errors
    /// The [`Error`] variant of the first problem found, with its byte offset.
    pub fn parse(data: &'a [u8]) -> Result<Bloscpack<'a>> {
        Self::parse_with(data, Config::DEFAULT)
    }

    /// [`Bloscpack::parse`] with an explicit [`Config`].
    ///
    /// # Errors
    /// As for [`Bloscpack::parse`].
    pub fn parse_with(data: &'a [u8], config: Config) -> Result<Bloscpack<'a>> {
        let header = Header::parse_with(data, config)?;
        let mut pos = HEADER_LEN as u64;
        let metadata = if header.has_metadata() {
            let section = MetadataSection::parse(data, pos)?;
            pos = bytes::end(pos, section.len(), "metadata section")?;
            Some(section)
        } else {
            None
        };
        let offsets_at = pos;
        let offsets: &[I64] = bytes::read_table(data, pos, header.offsets_len(), "offsets")?;
        let table_len = bytes::size_of_table(header.offsets_len(), 8, "offsets", pos)?;
        pos = bytes::end(pos, table_len, "offsets")?;
        let mut file = Bloscpack {
            data,
            header,
            metadata,
            offsets,
            offsets_at,
            chunks_at: pos,
            end: pos,
            nchunks: 0,
            uncompressed: 0,
            largest_chunk: 0,
        };
        file.walk()?;
        file.check_spare_slots()?;
        Ok(file)
    }

    /// Walks the chunks once, checking each, and records where they end.
    fn walk(&mut self) -> Result<()> {
        let digest_len = self.header.checksum().size_u64();
        let total = len_u64(self.data);
        let known = self.header.nchunks();
        let mut pos = self.chunks_at;
        let mut index = 0u64;
        loop {
            match known {
                Some(n) if index == n => break,
                None if pos == total => break,
                _ => {}
            }
            let chunk = ChunkHeader::read(self.data, pos)?;
            chunk.check(pos, index)?;
            let digest_at = bytes::end(pos, chunk.cbytes.into(), "chunk")?;
            let next = bytes::end(digest_at, digest_len, "chunk digest")?;
            bytes::slice(self.data, pos, chunk.cbytes.into(), "chunk")?;
            bytes::slice(self.data, digest_at, digest_len, "chunk digest")?;
            let last = match known {
                Some(n) => index + 1 == n,
                None => next == total,
            };
            self.check_size(&chunk, pos, index, last)?;
            self.check_offset(index, pos)?;
            self.uncompressed = self.uncompressed.saturating_add(chunk.nbytes.into());
            self.largest_chunk = self.largest_chunk.max(chunk.nbytes);
            pos = next;
            index += 1;
        }
        self.nchunks = index;
        self.end = pos;
        Ok(())
    }

    fn check_size(&self, chunk: &ChunkHeader, pos: u64, index: u64, last: bool) -> Result<()> {
        let (expected, field) = if last {
            (self.header.last_chunk(), "last_chunk")
        } else {
            (self.header.chunk_size(), "chunk_size")
        };
        match expected {
            Some(expected) if expected != chunk.nbytes => Err(Error::ChunkSizeMismatch {
                offset: pos + 4,
                index,
                nbytes: chunk.nbytes,
                expected,
                field,
            }),
            _ => Ok(()),
        }
    }

    fn check_offset(&self, index: u64, pos: u64) -> Result<()> {
        let Some(entry) = usize::try_from(index)
            .ok()
            .and_then(|i| self.offsets.get(i))
        else {
            return Ok(());
        };
        if u64::try_from(entry.get()) == Ok(pos) {
            Ok(())
        } else {
            Err(Error::OffsetMismatch {
                offset: self.offsets_at + 8 * index,
                index,
                stored: entry.get(),
                actual: pos,
            })
        }
    }

    fn check_spare_slots(&self) -> Result<()> {
        let used = usize::try_from(self.nchunks).unwrap_or(usize::MAX);
        let spare = self.offsets.get(used..).unwrap_or(&[]);
        match spare.iter().position(|e| e.get() != -1) {
            Some(i) => {
                let index = self.nchunks + len_u64_usize(i);
                Err(Error::SpareSlotInUse {
                    offset: self.offsets_at + 8 * index,
                    index,
                    stored: spare.get(i).map_or(0, |e| e.get()),
                })
            }
            None => Ok(()),
        }
    }

    /// The whole input.
    #[must_use]
    pub const fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The file header.
    #[must_use]
    pub const fn header(&self) -> &Header {
        &self.header
    }

    /// The metadata section, if the file has one (its digest is checked by
    /// [`MetadataSection::text`] and [`verify`](Self::verify)).
    #[must_use]
    pub const fn metadata(&self) -> Option<&MetadataSection<'a>> {
        self.metadata.as_ref()
    }

    /// Where the offsets section starts (also when the file has none: then it is empty).
    #[must_use]
    pub const fn offsets_offset(&self) -> u64 {
        self.offsets_at
    }

    /// The used offsets entries: the position of each chunk (empty without an offsets
    /// section).
    pub fn offsets(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        let used = usize::try_from(self.nchunks).unwrap_or(usize::MAX);
        self.offsets
            .get(..used)
            .unwrap_or(&[])
            .iter()
            .map(|e| e.get().unsigned_abs())
    }

    /// Where the first chunk starts.
    #[must_use]
    pub const fn chunks_offset(&self) -> u64 {
        self.chunks_at
    }

    /// The number of chunks (the header's count, or the count walked when it is unknown).
    #[must_use]
    pub const fn nchunks(&self) -> u64 {
        self.nchunks
    }

    /// The total uncompressed size: the sum of every chunk's `nbytes`.
    #[must_use]
    pub const fn uncompressed_len(&self) -> u64 {
        self.uncompressed
    }

    /// The largest `nbytes` of any chunk.
    #[must_use]
    pub const fn largest_chunk(&self) -> u32 {
        self.largest_chunk
    }

    /// Where the last chunk's digest ends.
    #[must_use]
    pub const fn end(&self) -> u64 {
        self.end
    }

    /// The bytes after the last chunk's digest (normally none).
    #[must_use]
    pub fn trailing(&self) -> &'a [u8] {
        bytes::rest(self.data, self.end, "trailing bytes").unwrap_or(&[])
    }

    /// The chunks in file order.
    #[must_use]
    pub fn chunks(&self) -> Chunks<'a> {
        Chunks {
            data: self.data,
            pos: self.chunks_at,
            index: 0,
            count: self.nchunks,
            checksum: self.header.checksum(),
        }
    }

    /// Chunk `index`: found through the offsets section when there is one, by walking
    /// otherwise.
    #[must_use]
    pub fn chunk(&self, index: u64) -> Option<Chunk<'a>> {
        if index >= self.nchunks {
            return None;
        }
        let at = usize::try_from(index)
            .ok()
            .and_then(|i| self.offsets.get(i));
        match at {
            Some(pos) => {
                let mut chunks = self.chunks();
                chunks.pos = pos.get().unsigned_abs();
                chunks.index = index;
                chunks.next()
            }
            None => self.chunks().nth(usize::try_from(index).ok()?),
        }
    }

    /// Checks every digest: the metadata's, then each chunk's.
    ///
    /// # Errors
    /// The first [`Error::MetadataDigestMismatch`] or [`Error::ChunkDigestMismatch`].
    pub fn verify(&self) -> Result<()> {
        match self.digest_errors().next() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Every digest that does not match, in file order (none for a sound file).
    pub fn digest_errors(&self) -> impl Iterator<Item = Error> + 'a {
        let meta = self.metadata.and_then(|m| m.verify().err());
        meta.into_iter()
            .chain(self.chunks().filter_map(|c| c.verify().err()))
    }
}

fn len_u64_usize(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The chunks of a parsed file, in order; see [`Bloscpack::chunks`].
#[derive(Debug, Clone)]
pub struct Chunks<'a> {
    data: &'a [u8],
    pos: u64,
    index: u64,
    count: u64,
    checksum: Checksum,
}

impl<'a> Iterator for Chunks<'a> {
    type Item = Chunk<'a>;

    fn next(&mut self) -> Option<Chunk<'a>> {
        if self.index >= self.count {
            return None;
        }
        let chunk = self.read();
        if chunk.is_none() {
            // The parser has checked every chunk, so this does not happen; if it did,
            // the iterator would end for good.
            self.index = self.count;
        }
        chunk
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = usize::try_from(self.count.saturating_sub(self.index)).unwrap_or(usize::MAX);
        (0, Some(left))
    }
}

impl<'a> Chunks<'a> {
    fn read(&mut self) -> Option<Chunk<'a>> {
        let header = ChunkHeader::read(self.data, self.pos).ok()?;
        let bytes = bytes::slice(self.data, self.pos, header.cbytes.into(), "chunk").ok()?;
        let digest_at = self.pos.checked_add(header.cbytes.into())?;
        let digest = bytes::slice(
            self.data,
            digest_at,
            self.checksum.size_u64(),
            "chunk digest",
        )
        .ok()?;
        let chunk = Chunk {
            index: self.index,
            offset: self.pos,
            header,
            bytes,
            digest,
            checksum: self.checksum,
        };
        self.pos = digest_at.checked_add(self.checksum.size_u64())?;
        self.index += 1;
        Some(chunk)
    }
}

impl core::iter::FusedIterator for Chunks<'_> {}
