//! A whole Bloscpack file, borrowed: header, sections and a checked walk over the chunks;
//! and [`verify`], which applies the same rules and reports every problem.

use core::ops::ControlFlow;

use binfmt_core::bytes::{self, len_u64, to_u64};
use binfmt_core::le::I64;
use binfmt_core::verify::{Sink, Summary, Tally};
use binfmt_core::{Kind, Severity};

use crate::checksum::Checksum;
use crate::chunk::{Chunk, ChunkHeader};
use crate::error::{Error, ErrorKind, Result};
use crate::header::Header;
use crate::journal;
use crate::metadata::MetadataSection;
use crate::options::ReadOptions;
use crate::raw::HEADER_SIZE;

/// A parsed Bloscpack file, borrowing its bytes.
///
/// [`Bloscpack::parse`] checks the whole structure once: the header, the metadata
/// section, the offsets section (used entries point at their chunks, spare ones are -1)
/// and every chunk's Blosc header (what c-blosc 1.21 checks before decompressing), size
/// and digest position. Digests, metadata text and the chunks' block tables are checked
/// by [`verify`] (and before anything is decompressed), because that reads every byte of
/// the file. Nothing here allocates.
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
    /// Where the last chunk starts (for the short-last-chunk warning).
    last_at: u64,
    /// The last chunk holds one element less than `last_chunk` (bloscpack 0.11/0.13).
    short_last: bool,
}

/// Where a walk's findings go: the first error stops `parse`; `verify` counts them all.
type Report<'r> = &'r mut dyn FnMut(Error) -> ControlFlow<()>;

impl<'a> Bloscpack<'a> {
    /// Parses and checks the structure of a whole file (format 2 or 3).
    ///
    /// Bytes after the last chunk's digest are tolerated when the header gives the chunk
    /// count (bloscpack's append can leave some): see [`trailing`](Self::trailing) and
    /// [`warnings`](Self::warnings).
    ///
    /// # Errors
    /// The first problem found, with its byte offset.
    pub fn parse(data: &'a [u8]) -> Result<Bloscpack<'a>> {
        Self::parse_with(data, &ReadOptions::new())
    }

    /// [`Bloscpack::parse`] with explicit [`ReadOptions`].
    ///
    /// # Errors
    /// As for [`Bloscpack::parse`].
    pub fn parse_with(data: &'a [u8], options: &ReadOptions) -> Result<Bloscpack<'a>> {
        let mut first = None;
        let file = Self::scan(data, options, &mut |e| {
            first = Some(e);
            ControlFlow::Break(())
        });
        match (first, file) {
            (Some(e), _) => Err(e),
            (None, Some(file)) => Ok(file),
            // A walk that stops always reports why first.
            (None, None) => Err(binfmt_core::Error::overflow("file", 0).into()),
        }
    }

    /// The rules of the format, shared by `parse` and `verify`: every problem goes to
    /// `report`; the view is returned when the walk reached the end (the problems on the
    /// way, if any, did not stop it).
    fn scan(data: &'a [u8], options: &ReadOptions, report: Report<'_>) -> Option<Bloscpack<'a>> {
        let header = match Header::parse_with(data, options) {
            Ok(h) => h,
            Err(e) => {
                let _ = report(e);
                return None;
            }
        };
        let mut pos = to_u64(HEADER_SIZE);
        let metadata = if header.has_metadata() {
            let section = MetadataSection::parse(data, pos)
                .and_then(|s| Ok((s, bytes::end(pos, s.len(), "metadata section")?)));
            match section {
                Ok((section, next)) => {
                    pos = next;
                    Some(section)
                }
                Err(e) => {
                    let _ = report(e);
                    return None;
                }
            }
        } else {
            None
        };
        let offsets_at = pos;
        let table = bytes::read_table::<I64>(data, pos, header.offsets_len(), "offsets")
            .and_then(|t| Ok((t, bytes::end(pos, 8 * len_u64_of(t), "offsets")?)));
        let offsets = match table {
            Ok((t, next)) => {
                pos = next;
                t
            }
            Err(e) => {
                let _ = report(e.into());
                return None;
            }
        };
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
            last_at: pos,
            short_last: false,
        };
        file.walk(report).ok()?;
        file.check_spare_slots(report).ok()?;
        Some(file)
    }

    /// Walks the chunks once, checking each, and records where they end. `Err` when the
    /// walk cannot go on (or the report said stop).
    fn walk(&mut self, report: Report<'_>) -> core::result::Result<(), ()> {
        let digest_len = self.header.checksum().size_u64();
        let total = len_u64(self.data);
        let known = self.header.nchunks();
        let mut pos = self.chunks_at;
        let mut index = 0u64;
        let stop = |flow: ControlFlow<()>| if flow.is_break() { Err(()) } else { Ok(()) };
        loop {
            match known {
                Some(n) if index == n => break,
                None if pos == total => break,
                _ => {}
            }
            let chunk = match self.chunk_at(pos, index, digest_len) {
                Ok(c) => c,
                Err(e) => {
                    let _ = report(e);
                    return Err(());
                }
            };
            let next = chunk.digest_offset().saturating_add(digest_len);
            let last = match known {
                Some(n) => index + 1 == n,
                None => next == total,
            };
            if let Err(e) = self.check_size(&chunk, last) {
                stop(report(e))?;
            }
            if let Err(e) = self.check_offset(index, pos) {
                stop(report(e))?;
            }
            self.uncompressed = self.uncompressed.saturating_add(chunk.header.nbytes.into());
            self.largest_chunk = self.largest_chunk.max(chunk.header.nbytes);
            self.last_at = pos;
            pos = next;
            index += 1;
        }
        self.nchunks = index;
        self.end = pos;
        Ok(())
    }

    /// Chunk `index` at `pos`: its Blosc header checked, buffer and digest inside the input.
    fn chunk_at(&self, pos: u64, index: u64, digest_len: u64) -> Result<Chunk<'a>> {
        let header = ChunkHeader::read(self.data, pos)?;
        header.check(pos, index)?;
        let body = bytes::slice(self.data, pos, header.cbytes.into(), "chunk")?;
        let digest_at = bytes::end(pos, header.cbytes.into(), "chunk")?;
        let digest = bytes::slice(self.data, digest_at, digest_len, "chunk digest")?;
        Ok(Chunk {
            index,
            offset: pos,
            header,
            bytes: body,
            digest,
            checksum: self.header.checksum(),
        })
    }

    fn check_size(&mut self, chunk: &Chunk<'_>, last: bool) -> Result<()> {
        let nbytes = chunk.header.nbytes;
        let (expected, field) = if last {
            (self.header.last_chunk(), "last_chunk")
        } else {
            (self.header.chunk_size(), "chunk_size")
        };
        match expected {
            Some(expected) if expected != nbytes => {
                // bloscpack 0.11 and 0.13 compressed one element too few of the last chunk.
                let typesize = u32::from(self.header.typesize());
                if last && typesize > 0 && nbytes.checked_add(typesize) == Some(expected) {
                    self.short_last = true;
                    return Ok(());
                }
                Err(ErrorKind::ChunkSizeMismatch {
                    index: chunk.index,
                    nbytes,
                    expected,
                    field,
                }
                .at(chunk.nbytes_offset()))
            }
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
            Err(ErrorKind::OffsetMismatch {
                index,
                stored: entry.get(),
                actual: pos,
            }
            .at(self.offsets_at + 8 * index))
        }
    }

    fn check_spare_slots(&self, report: Report<'_>) -> core::result::Result<(), ()> {
        let used = usize::try_from(self.nchunks).unwrap_or(usize::MAX);
        let spare = self.offsets.get(used..).unwrap_or(&[]);
        for (i, e) in spare.iter().enumerate() {
            if e.get() != -1 {
                let index = self.nchunks + to_u64(i);
                let err = ErrorKind::SpareSlotInUse {
                    index,
                    stored: e.get(),
                }
                .at(self.offsets_at + 8 * index);
                if report(err).is_break() {
                    return Err(());
                }
            }
        }
        Ok(())
    }

    /// What a reader should know that does not make the file invalid, each with its
    /// offset: a last chunk one element short of `last_chunk`
    /// ([`ErrorKind::ShortLastChunk`], as bloscpack 0.11 and 0.13 wrote it), the undo
    /// record of an interrupted append ([`ErrorKind::InterruptedAppend`]), other bytes
    /// after the last chunk ([`ErrorKind::TrailingBytes`]).
    pub fn warnings(&self) -> impl Iterator<Item = Error> + '_ {
        let short = self.short_last.then(|| {
            ErrorKind::ShortLastChunk {
                promised: self.header.uncompressed_len().unwrap_or(0),
                held: self.uncompressed,
                metadata: self.metadata.is_some(),
            }
            .at(self.last_at.saturating_add(4))
        });
        let trailing = len_u64(self.trailing());
        let tail = (trailing > 0).then(|| {
            // The one rule (journal::in_flight): the committed state must say so.
            if matches!(journal::in_flight(self.data, |_, _| ()), Ok(Some(()))) {
                ErrorKind::InterruptedAppend { len: trailing }.at(self.end)
            } else {
                ErrorKind::TrailingBytes { len: trailing }.at(self.end)
            }
        });
        short.into_iter().chain(tail)
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
    /// [`MetadataSection::text`] and [`verify`]).
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

    /// The total uncompressed size the chunks hold: the sum of every chunk's `nbytes`
    /// (one element less than the header promises for a file with a short last chunk,
    /// see [`warnings`](Self::warnings)).
    #[must_use]
    pub const fn uncompressed_len(&self) -> u64 {
        self.uncompressed
    }

    /// The bytes the header promises but the chunks do not hold: 0, or one element for a
    /// file with a short last chunk (bloscpack 0.11 and 0.13).
    #[must_use]
    pub fn shortfall(&self) -> u64 {
        if self.short_last {
            self.header
                .uncompressed_len()
                .unwrap_or(0)
                .saturating_sub(self.uncompressed)
        } else {
            0
        }
    }

    /// The largest `nbytes` of any chunk.
    #[must_use]
    pub const fn largest_chunk(&self) -> u32 {
        self.largest_chunk
    }

    /// Where the last chunk's digest ends: the committed end of the file.
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
    /// The first [`ErrorKind::MetadataDigestMismatch`] or
    /// [`ErrorKind::ChunkDigestMismatch`]. For every rule, with every problem reported,
    /// use [`verify`](crate::verify).
    pub fn verify_digests(&self) -> Result<()> {
        if let Some(m) = &self.metadata {
            m.verify()?;
        }
        self.chunks().try_for_each(|c| c.verify())
    }
}

fn len_u64_of<T>(t: &[T]) -> u64 {
    to_u64(t.len())
}

/// Checks `data` against every rule of the format and reports **every** problem to
/// `sink`: the structure (as [`Bloscpack::parse_with`] checks it, through the same
/// functions), then, when the walk reached the end, the metadata (digest, inflated size
/// within `options`' limit, UTF-8, JSON as Python writes it — the JSON check needs the
/// `alloc` feature), each chunk's digest (unless `options.checksums(false)`) and each
/// chunk's block table (what c-blosc 1.21 would refuse). Warnings
/// ([`Bloscpack::warnings`]) go to the sink at [`Severity::Warning`]. An undo record of an
/// interrupted append at the end of a file whose structure is broken is reported as an
/// error ([`ErrorKind::InterruptedAppend`]): `fs::repair` restores the file. A record
/// counts only where the file's committed state says an append was in flight: it starts
/// at or after the end of the last chunk the header and offsets name, and it names the
/// header in place (docs/edit-protocol.md); bytes inside the file that look like one
/// are data.
///
/// Memory does not grow with the number of problems (the inflated metadata aside).
///
/// ```
/// use core::ops::ControlFlow;
/// use bloscpack_header::{ReadOptions, Severity, verify};
///
/// let mut file = Vec::new();
/// file.extend_from_slice(b"blpk\x03\x00\x00\x08"); // no sections, no digest, typesize 8
/// file.extend_from_slice(&[0; 8]); // chunk_size 0, last_chunk 0
/// file.extend_from_slice(&1i64.to_le_bytes()); // nchunks 1
/// file.extend_from_slice(&0i64.to_le_bytes()); // max_app_chunks 0
/// file.extend_from_slice(&[2, 1, 0x13, 8, 0, 0, 0, 0, 1, 0, 0, 0, 16, 0, 0, 0]);
/// file.extend_from_slice(b"junk");
/// let mut seen = Vec::new();
/// let summary = verify(&file, &ReadOptions::new(), &mut |s: Severity, e: bloscpack_header::Error| {
///     seen.push((s, e.to_string()));
///     ControlFlow::Continue(())
/// });
/// assert!(summary.is_valid());
/// assert_eq!(seen, [(Severity::Warning, "byte 48: 4 bytes after the last chunk are not part of the file".to_string())]);
/// ```
pub fn verify(data: &[u8], options: &ReadOptions, sink: &mut dyn Sink<Error>) -> Summary {
    let mut tally = Tally::new(sink);
    let file = Bloscpack::scan(data, options, &mut |e| tally.error(e));
    let Some(file) = file else {
        if !tally.is_stopped()
            && let Ok(Some(at)) = journal::in_flight(data, |record, _| record.at)
        {
            let len = len_u64(data).saturating_sub(at);
            let _ = tally.error(ErrorKind::InterruptedAppend { len }.at(at));
        }
        return tally.finish();
    };
    if let Some(meta) = file.metadata()
        && let Err(e) = decode_metadata(meta, options)
        && tally.error(e).is_break()
    {
        return tally.finish();
    }
    for chunk in file.chunks() {
        if options.checksums_checked()
            && let Err(e) = chunk.verify()
            && tally.error(e).is_break()
        {
            return tally.finish();
        }
        if let Err(e) = chunk.check_blocks()
            && tally.error(e).is_break()
        {
            return tally.finish();
        }
    }
    for warning in file.warnings() {
        if tally.report(Severity::Warning, warning).is_break() {
            break;
        }
    }
    tally.finish()
}

/// The metadata rules beyond the section's structure: limit, inflation, UTF-8, JSON.
fn decode_metadata(meta: &MetadataSection<'_>, options: &ReadOptions) -> Result<()> {
    #[cfg(feature = "alloc")]
    {
        meta.json(options).map(|_| ())
    }
    #[cfg(not(feature = "alloc"))]
    {
        if options.checksums_checked() {
            meta.verify()?;
        }
        meta.check_limit(options)?;
        // Without an allocator, raw metadata is checked for UTF-8; zlib metadata and the
        // JSON rule need `alloc`.
        if meta.codec() == crate::MetaCodec::None {
            core::str::from_utf8(meta.stored()).map_err(|e| {
                ErrorKind::MetadataNotUtf8 {
                    valid_up_to: e.valid_up_to(),
                }
                .at(meta.stored_offset())
            })?;
        }
        Ok(())
    }
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
