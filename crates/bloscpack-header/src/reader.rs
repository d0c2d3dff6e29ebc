//! Reading a file by ranges through a [`ByteSource`] (a file, a stream, an object
//! store), fetching only what an access needs.

use alloc::vec::Vec;
#[cfg(feature = "blosc")]
use core::ops::Range;

use binfmt_core::Kind;
use binfmt_core::bytes::{self, len_u64, to_u64};
use binfmt_core::le::I64;
use binfmt_core::source::{ByteSource, read_exact};

#[cfg(feature = "blosc")]
use crate::chunk::Chunk;
use crate::chunk::ChunkHeader;
#[cfg(feature = "blosc")]
use crate::error::Error;
use crate::error::{ErrorKind, Result, io};
use crate::header::Header;
use crate::metadata::MetadataSection;
use crate::options::ReadOptions;
use crate::raw::{BLOSC_HEADER_SIZE, HEADER_SIZE, METADATA_HEADER_SIZE, MetadataHeader};

/// How much [`Reader::open`] asks for first: enough for the header, a typical metadata
/// section and the offsets of thousands of chunks.
pub const HEAD_REQUEST: u64 = 64 * 1024;

/// A Bloscpack file read by ranges.
///
/// The request plan (checked with `binfmt_core::source::Counting` in the tests):
///
/// * [`Reader::open`]: the header, metadata section and offsets section in **at most 2
///   requests**: the first [`HEAD_REQUEST`] bytes, then the rest of the sections if they
///   extend past them. A file **without an offsets section** has its chunk positions
///   found by walking the chunk headers once, at open: one 16-byte request per chunk that
///   does not lie in the bytes already fetched (none for a small file).
/// * [`Reader::read_range`] (feature `blosc`): **one** `read_ranges` call for exactly the
///   chunks that hold the range (a remote source fetches them concurrently), each
///   checked (digest, Blosc header, block table) and decompressed as it is used.
///
/// ```
/// # #[cfg(feature = "blosc")] {
/// use binfmt_core::source::Counting;
/// use bloscpack_header::{PackOptions, Reader};
///
/// let data: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
/// let packed = PackOptions { chunk_size: 65536, ..PackOptions::default() }.to_vec(&data)?;
/// let source = Counting::new(packed);
/// let reader = Reader::open(&source)?;
/// assert_eq!(source.stats().requests, 1); // header, sections and offsets in one
/// assert_eq!(reader.read_range(70_000..70_010)?, &data[70_000..70_010]);
/// assert_eq!(source.stats().requests, 2); // only chunk 1
/// # }
/// # Ok::<(), bloscpack_header::Error>(())
/// ```
#[derive(Debug)]
pub struct Reader<S> {
    source: S,
    options: ReadOptions,
    prefix: Vec<u8>,
    header: Header,
    metadata: bool,
    /// Where each chunk starts.
    positions: Vec<u64>,
    len: u64,
}

impl<S: ByteSource> Reader<S> {
    /// Opens `source` with the default [`ReadOptions`].
    ///
    /// # Errors
    /// As for [`Reader::open_with`].
    pub fn open(source: S) -> Result<Self> {
        Self::open_with(source, &ReadOptions::new())
    }

    /// Reads the header, metadata section and offsets section (see the request plan) and
    /// checks them: the header's rules, the metadata section's, used offsets increasing
    /// from the first chunk and inside the source, spare slots free.
    ///
    /// # Errors
    /// Any structural error of those parts, with its offset; I/O errors.
    pub fn open_with(source: S, options: &ReadOptions) -> Result<Self> {
        let mut prefix = source.read_head(HEAD_REQUEST).map_err(io)?.into_owned();
        // The header is checked on the first bytes before the length is asked for: a
        // stream learns its length by reading to its end, and `/dev/zero` has none.
        let header = Header::parse_with(&prefix, options)?;
        let len = source.len().map_err(io)?;
        let mut end = to_u64(HEADER_SIZE);
        if header.has_metadata() {
            let meta: &MetadataHeader = bytes::read(&prefix, end, "metadata header")?;
            let digest =
                crate::Checksum::from_id(meta.meta_checksum).map_or(0, crate::Checksum::size_u64);
            end = bytes::end(
                end,
                to_u64(METADATA_HEADER_SIZE) + u64::from(meta.max_meta_size.get()) + digest,
                "metadata section",
            )?;
        }
        let offsets_at = end;
        let table = bytes::size_of_table(header.offsets_len(), 8, "offsets", end)?;
        let chunks_at = bytes::end(end, table, "offsets")?;
        let have = len_u64(&prefix);
        if chunks_at > have {
            let rest = read_exact(&source, have, chunks_at - have, "offsets")?;
            prefix.extend_from_slice(&rest);
        }
        if header.has_metadata() {
            MetadataSection::parse(&prefix, to_u64(HEADER_SIZE))?;
        }
        let mut reader = Reader {
            source,
            options: *options,
            prefix,
            header,
            metadata: header.has_metadata(),
            positions: Vec::new(),
            len,
        };
        if header.has_offsets() {
            reader.read_offsets(offsets_at, chunks_at)?;
        } else {
            reader.walk(chunks_at)?;
        }
        Ok(reader)
    }

    fn read_offsets(&mut self, offsets_at: u64, chunks_at: u64) -> Result<()> {
        let entries: &[I64] = bytes::read_table(
            &self.prefix,
            offsets_at,
            self.header.offsets_len(),
            "offsets",
        )?;
        let used = usize::try_from(self.header.nchunks().unwrap_or(0)).unwrap_or(usize::MAX);
        let mut at_least = chunks_at;
        let mut positions = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            let index = to_u64(i);
            let at = offsets_at + 8 * index;
            let v = e.get();
            if i < used {
                let ok = u64::try_from(v)
                    .is_ok_and(|v| v >= at_least && v < self.len && (i > 0 || v == chunks_at));
                if !ok {
                    return Err(ErrorKind::OffsetMismatch {
                        index,
                        stored: v,
                        actual: at_least,
                    }
                    .at(at));
                }
                at_least = v.unsigned_abs().saturating_add(to_u64(BLOSC_HEADER_SIZE));
                // One entry per 16 bytes of the source at most: bounded by its length.
                positions.push(v.unsigned_abs());
            } else if v != -1 {
                return Err(ErrorKind::SpareSlotInUse { index, stored: v }.at(at));
            }
        }
        self.positions = positions;
        Ok(())
    }

    /// Finds the chunks of a file without offsets by reading each chunk header.
    fn walk(&mut self, chunks_at: u64) -> Result<()> {
        let digest = self.header.checksum().size_u64();
        let known = self.header.nchunks();
        let mut pos = chunks_at;
        let mut index = 0u64;
        loop {
            match known {
                Some(n) if index == n => break,
                None if pos >= self.len => break,
                _ => {}
            }
            let head = self.chunk_header_at(pos)?;
            head.check(pos, index)?;
            self.positions.push(pos);
            pos = bytes::end(pos, u64::from(head.cbytes) + digest, "chunk")?;
            if pos > self.len {
                return Err(binfmt_core::Error::truncated(
                    "chunk",
                    self.positions.last().copied().unwrap_or(pos),
                    u64::from(head.cbytes) + digest,
                    self.len
                        .saturating_sub(self.positions.last().copied().unwrap_or(pos)),
                )
                .into());
            }
            index += 1;
        }
        Ok(())
    }

    fn chunk_header_at(&self, pos: u64) -> Result<ChunkHeader> {
        let size = to_u64(BLOSC_HEADER_SIZE);
        if bytes::end(pos, size, "chunk header")? <= len_u64(&self.prefix) {
            return ChunkHeader::read(&self.prefix, pos);
        }
        let bytes = read_exact(&self.source, pos, size, "chunk header")?;
        ChunkHeader::read(&bytes, 0).map_err(|e| e.rebased(pos))
    }

    /// The file header.
    #[must_use]
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The metadata section, borrowed from the bytes read at open.
    #[must_use]
    pub fn metadata(&self) -> Option<MetadataSection<'_>> {
        if !self.metadata {
            return None;
        }
        MetadataSection::parse(&self.prefix, to_u64(HEADER_SIZE)).ok()
    }

    /// The number of chunks.
    #[must_use]
    pub fn nchunks(&self) -> u64 {
        to_u64(self.positions.len())
    }

    /// Where each chunk starts.
    #[must_use]
    pub fn chunk_offsets(&self) -> &[u64] {
        &self.positions
    }

    /// The source.
    #[must_use]
    pub fn source(&self) -> &S {
        &self.source
    }

    /// The options it reads with.
    #[must_use]
    pub fn options(&self) -> &ReadOptions {
        &self.options
    }

    /// The byte range of chunk `index` and of what follows it up to the next chunk (or
    /// the end of the source): its buffer and digest lie inside.
    #[cfg(feature = "blosc")]
    fn chunk_span(&self, index: usize) -> Option<Range<u64>> {
        let start = *self.positions.get(index)?;
        let end = self.positions.get(index + 1).copied().unwrap_or(self.len);
        Some(start..end)
    }

    /// Checks chunk `index` in `span` (the bytes from its start) and returns it.
    #[cfg(feature = "blosc")]
    fn chunk<'b>(&self, index: usize, at: u64, span: &'b [u8]) -> Result<Chunk<'b>> {
        let index64 = to_u64(index);
        let header = ChunkHeader::read(span, 0).map_err(|e| e.rebased(at))?;
        header.check(at, index64)?;
        let cbytes = u64::from(header.cbytes);
        let digest = self.header.checksum().size_u64();
        let body = bytes::slice(span, 0, cbytes, "chunk").map_err(|e| e.rebased(at))?;
        let stored =
            bytes::slice(span, cbytes, digest, "chunk digest").map_err(|e| e.rebased(at))?;
        let chunk = Chunk {
            index: index64,
            offset: at,
            header,
            bytes: body,
            digest: stored,
            checksum: self.header.checksum(),
        };
        if self.options.checksums_checked() {
            chunk.verify()?;
        }
        chunk.check_blocks()?;
        Ok(chunk)
    }

    /// The uncompressed bytes `range`, fetching only the chunks that hold them (one
    /// `read_ranges` call) and decompressing each as it is used. The range is cut at the
    /// end of the data.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidArgument`] for a file whose chunk size is unknown or 0;
    /// structural and digest errors of the chunks read; [`ErrorKind::Decompress`] and
    /// [`ErrorKind::UnsupportedCodec`]; I/O errors.
    #[cfg(feature = "blosc")]
    #[cfg_attr(docsrs, doc(cfg(feature = "blosc")))]
    pub fn read_range(&self, range: Range<u64>) -> Result<Vec<u8>> {
        let Some(chunk_size) = self.header.chunk_size().filter(|&c| c > 0) else {
            return Err(ErrorKind::InvalidArgument {
                what: "range",
                reason: "the file's chunk size is unknown or 0, so chunks cannot be addressed by byte",
            }
            .unlocated());
        };
        let cs = u64::from(chunk_size);
        let total = cs.saturating_mul(self.nchunks());
        let (start, end) = (range.start.min(total), range.end.min(total));
        if start >= end {
            return Ok(Vec::new());
        }
        let first = usize::try_from(start / cs).unwrap_or(usize::MAX);
        let last = usize::try_from((end - 1) / cs).unwrap_or(usize::MAX);
        let spans: Vec<Range<u64>> = (first..=last)
            .map(|i| self.chunk_span(i))
            .collect::<Option<_>>()
            .unwrap_or_default();
        let fetched = self.source.read_ranges(&spans).map_err(|e| {
            Error::from(binfmt_core::source::from_io(
                e,
                spans.first().map_or(0, |r| r.start),
                0,
                "chunk",
            ))
        })?;
        let mut out = Vec::new();
        let mut buffer = Vec::new();
        for ((i, span), bytes_) in (first..=last).zip(&spans).zip(&fetched) {
            let chunk = self.chunk(i, span.start, bytes_)?;
            let n = usize::try_from(chunk.header.nbytes).unwrap_or(usize::MAX);
            buffer.resize(n, 0);
            chunk.decompress_into(&mut buffer)?;
            let chunk_start = to_u64(i) * cs;
            let from = usize::try_from(start.saturating_sub(chunk_start)).unwrap_or(0);
            let to = usize::try_from((end - chunk_start).min(to_u64(n))).unwrap_or(0);
            out.extend_from_slice(buffer.get(from..to).unwrap_or(&[]));
        }
        Ok(out)
    }
}
