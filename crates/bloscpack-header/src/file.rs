//! A whole Bloscpack file: header, sections and a checked walk over the chunks, over any
//! [`Data`] (bytes in memory, or a `ReadCache` over a
//! file, a stream or an object store); and [`verify`], which applies the same rules and
//! reports every problem.
//!
//! The request plan of a view over a cache is in [`Bloscpack`]'s documentation.

use core::marker::PhantomData;
use core::ops::{ControlFlow, Range};

use binfmt_core::bytes::{self, len_u64, to_u64};
use binfmt_core::data::Data;
use binfmt_core::le::I64;
use binfmt_core::verify::{Sink, Tally};
use binfmt_core::{Kind, Severity};

use crate::checksum::Checksum;
use crate::chunk::{Bulk, Chunk, ChunkHeader, bulk};
use crate::error::{Error, ErrorKind, Result};
use crate::header::Header;
use crate::journal;
use crate::metadata::MetadataSection;
use crate::options::ReadOptions;
use crate::raw::{self, BLOSC_HEADER_SIZE, HEADER_SIZE, METADATA_HEADER_SIZE, MetadataHeader};

/// How much a view over a cache asks for first: the header and, for most files, the
/// metadata header (the only part whose length the header does not give).
pub const HEAD_SIZE: u64 = 256;

/// The earlier name of [`HEAD_SIZE`].
#[deprecated(note = "use HEAD_SIZE")]
pub const HEAD_REQUEST: u64 = HEAD_SIZE;

/// The checked shape of a file as plain data: what a view knows besides its borrows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    pub(crate) header: Header,
    pub(crate) offsets_at: u64,
    pub(crate) chunks_at: u64,
    pub(crate) end: u64,
    pub(crate) total: u64,
    pub(crate) nchunks: u64,
    pub(crate) uncompressed: u64,
    pub(crate) largest_chunk: u32,
    /// Where the last chunk starts (for the short-last-chunk warning).
    pub(crate) last_at: u64,
    /// The last chunk holds `last_chunk` rounded down to whole elements, short of it
    /// (bloscpack 0.11/0.13, [`legacy_short_last`]).
    pub(crate) short_last: bool,
    /// Every chunk was announced for reading ahead from the offsets section, before the
    /// walk ([`Bloscpack::announce_from_offsets`]).
    pub(crate) announced: bool,
}

/// A walk that checks each chunk as it reaches it (`verify` over a cache that reads
/// ahead): each chunk is read once, from the window that brings it, and its header,
/// digest and block table are checked from that read. Without it the walk fetches every
/// chunk header in a request of its own before the first chunk is checked: 200 requests
/// and four dependent round trips for a 200-chunk file, 64 in flight. The problems found
/// in the chunks wait here and are reported after the walk's own, so that the findings
/// come in the order bytes in memory give them.
#[cfg(feature = "alloc")]
pub(crate) struct Fused<'o> {
    options: &'o ReadOptions,
    /// The problems of chunks `0..checked`, in order (fusing stops at [`Fused::HELD`]).
    pub(crate) found: alloc::vec::Vec<Error>,
    /// Chunks `0..checked` were checked during the walk.
    pub(crate) checked: u64,
    /// Where chunk `checked` starts.
    pub(crate) resume: u64,
    /// Fusing stopped: the chunks from `checked` on are checked after the walk.
    off: bool,
    /// What is done with each chunk read, instead of `verify`'s checks: given the chunk
    /// over the bytes read (unpacking: decompress and write). Its first error is held in
    /// `found` and stops fusing.
    visit: Option<Visit<'o>>,
}

/// [`Fused`]'s visitor: the chunk over its bytes as read.
#[cfg(feature = "alloc")]
pub(crate) type Visit<'o> = &'o mut dyn FnMut(&Chunk<'_>) -> Result<()>;

#[cfg(feature = "alloc")]
impl<'o> Fused<'o> {
    /// Problems held before fusing stops (the rest of the chunks are then checked after
    /// the walk, read again): memory does not grow with the number of problems.
    const HELD: usize = 64;

    pub(crate) fn new(options: &'o ReadOptions) -> Self {
        Fused {
            options,
            found: alloc::vec::Vec::new(),
            checked: 0,
            resume: 0,
            off: false,
            visit: None,
        }
    }

    /// A walk that hands each chunk it reads to `visit` (unpacking) instead of checking
    /// its digest and block table.
    #[cfg_attr(not(feature = "blosc"), allow(dead_code))]
    pub(crate) fn visiting(options: &'o ReadOptions, visit: Visit<'o>) -> Self {
        Fused {
            visit: Some(visit),
            ..Fused::new(options)
        }
    }
}

/// Without an allocator there is nowhere to hold problems: no walk is fused.
#[cfg(not(feature = "alloc"))]
pub(crate) struct Fused<'o>(core::convert::Infallible, PhantomData<&'o ()>);

/// A parsed Bloscpack file, reading its bytes through `D`.
///
/// [`Bloscpack::parse`] checks the whole structure once: the header, the metadata
/// section, the offsets section (used entries point at their chunks, spare ones are -1)
/// and every chunk's Blosc header (what c-blosc 1.21 checks before decompressing), size
/// and digest position. Digests, metadata text and the chunks' block tables are checked
/// by [`verify`] (and before anything is decompressed), because that reads every byte of
/// the file. Nothing here allocates.
///
/// `Bloscpack<'a>` borrows bytes in memory (zero-copy); `Bloscpack<'a, &'a ReadCache<S>>`
/// (built by [`Bloscpack::from_data`] or `Reader::view`) reads
/// by range with the plan below, through the same accessors and the same rules.
///
/// ```
/// use bloscpack_header::{Bloscpack, ReadOptions};
///
/// let mut file = [0u8; 48];
/// file[..8].copy_from_slice(b"blpk\x03\x00\x00\x08");
/// file[16] = 1; // nchunks 1
/// file[32..].copy_from_slice(&[2, 1, 0x13, 8, 0, 0, 0, 0, 1, 0, 0, 0, 16, 0, 0, 0]);
/// let in_memory = Bloscpack::parse(&file)?;
/// assert_eq!((in_memory.nchunks(), in_memory.end()), (1, 48));
/// # #[cfg(feature = "std")] {
/// use binfmt_core::cache::ReadCache;
/// let cache = ReadCache::new(&file[..]);
/// let by_range = Bloscpack::from_data(&cache)?;
/// assert_eq!((by_range.nchunks(), by_range.end()), (1, 48));
/// # }
/// # Ok::<(), bloscpack_header::Error>(())
/// ```
///
/// # Request plan over a cache
///
/// Over a `ReadCache` the view reads only what it needs, and announces with
/// [`Data::hint`] what it will read next so that the cache fetches it in one batch
/// (checked with `binfmt_core::source::Counting` in tests/plan.rs). Round trips count
/// dependent waits; requests count ranges (a batch of several ranges is one round trip).
///
/// | operation | requests | dependent round trips |
/// |---|---|---|
/// | `Reader::open`: header (the first [`HEAD_SIZE`] bytes) | 1 | 1 |
/// | … metadata section and offsets section, when they end past the head | 1 (one range: they are adjacent) | +1 |
/// | … every chunk's 16-byte Blosc header, hinted at once from the offsets | one per chunk not yet held (fewer where the cache's gap merges them: `Reader` merges those under 4 KiB apart) | +1 |
/// | … a file **without** an offsets section: each chunk header after the previous one | one per chunk not yet held | +1 per chunk |
/// | [`Bloscpack::chunk`], [`Bloscpack::chunks`], offsets, metadata, warnings (no undo record) | 0 (held) | 0 |
/// | a chunk's [`verify`](crate::Chunk::verify), [`check_blocks`](crate::Chunk::check_blocks) | 1 each (a payload, not kept) | 1 |
/// | `Reader::read_range` (feature `blosc`) | one per chunk holding the range, as one batch | 1 |
/// | `unpack_*` (feature `blosc`) | every chunk announced ([`Data::prefetch`]) and read ahead: over a URL one streamed request, otherwise a window at a time; memory holds a few windows (or the stream's budget) | 1 (streamed), or one per window, several in flight |
/// | [`verify_data`], [`Bloscpack::parse_and_unpack`] | the head and the sections, then every chunk announced and read ahead as for `unpack_*`; the walk checks each chunk header from the bytes that bring the chunk: no request per header | as `unpack_*` |
///
/// The cache holds the head, the sections and 16 bytes per chunk (bounded by its limit):
/// never a chunk's buffer.
#[derive(Debug, Clone, Copy)]
pub struct Bloscpack<'d, D: Data<'d> = &'d [u8]> {
    data: D,
    metadata: Option<MetadataSection<'d>>,
    offsets: &'d [I64],
    shape: Shape,
}

/// Where a walk's findings go: the first error stops `parse`; `verify` counts them all.
pub(crate) type Report<'r> = &'r mut dyn FnMut(Error) -> ControlFlow<()>;

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
        Self::from_data_with(data, &ReadOptions::new())
    }

    /// [`Bloscpack::parse`] with explicit [`ReadOptions`].
    ///
    /// # Errors
    /// As for [`Bloscpack::parse`].
    pub fn parse_with(data: &'a [u8], options: &ReadOptions) -> Result<Bloscpack<'a>> {
        Self::from_data_with(data, options)
    }

    /// The bytes after the last chunk's digest (normally none).
    #[must_use]
    pub fn trailing(&self) -> &'a [u8] {
        bytes::rest(self.data, self.shape.end, "trailing bytes").unwrap_or(&[])
    }
}

impl<'d, D: Data<'d>> Bloscpack<'d, D>
where
    Error: From<D::Error>,
{
    /// [`Bloscpack::parse`] over any [`Data`], with every check on: see
    /// [`Bloscpack::from_data_with`].
    ///
    /// # Errors
    /// As for [`Bloscpack::parse`]; I/O errors of a cache's source.
    pub fn from_data(data: D) -> Result<Self> {
        Self::from_data_with(data, &ReadOptions::new())
    }

    /// [`Bloscpack::parse_with`] over any [`Data`]: bytes in memory, or a
    /// `ReadCache`, read with the plan in the
    /// [request plan](Bloscpack#request-plan-over-a-cache).
    ///
    /// # Errors
    /// As for [`Bloscpack::parse`]; I/O errors of a cache's source.
    pub fn from_data_with(data: D, options: &ReadOptions) -> Result<Self> {
        let mut first = None;
        let file = Self::scan(data, options, false, None, &mut |e| {
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

    /// Rebuilds a view from a shape `scan` checked over the same `data`: reads of bytes
    /// the data holds (a cache has them: no I/O), no re-validation of the walk.
    #[cfg(feature = "std")]
    pub(crate) fn rebuild(data: D, shape: Shape) -> Self {
        let metadata = if shape.header.has_metadata() {
            MetadataSection::parse_in(data, to_u64(HEADER_SIZE)).ok()
        } else {
            None
        };
        let offsets = data
            .read_slice::<I64>(shape.offsets_at, shape.header.offsets_len(), "offsets")
            .unwrap_or(&[]);
        Bloscpack {
            data,
            metadata,
            offsets,
            shape,
        }
    }

    /// The checked shape, as plain data.
    #[cfg(feature = "std")]
    pub(crate) const fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The rules of the format, shared by `parse` and `verify`: every problem goes to
    /// `report`; the view is returned when the walk reached the end (the problems on the
    /// way, if any, did not stop it).
    ///
    /// `every_chunk`: the caller will read every chunk after (`verify`): over a cache, the
    /// chunks the offsets section names are announced for reading ahead before the walk,
    /// so that their windows arrive while the walk's chunk headers are fetched.
    ///
    /// `fused`: the walk checks each chunk as it reaches it, from the one read that brings
    /// its header ([`Fused`]), where the chunks were announced.
    pub(crate) fn scan(
        data: D,
        options: &ReadOptions,
        every_chunk: bool,
        mut fused: Option<&mut Fused<'_>>,
        report: Report<'_>,
    ) -> Option<Self> {
        let fail = |report: Report<'_>, e: Error| {
            let _ = report(e);
            None
        };
        // The header is checked on the first bytes before the length is asked for: a
        // stream learns its length by reading to its end, and `/dev/zero` has none.
        let head = match data.head(HEAD_SIZE) {
            Ok(h) => h,
            Err(e) => return fail(report, e.into()),
        };
        let header = match Header::parse_with(head, options) {
            Ok(h) => h,
            Err(e) => return fail(report, e),
        };
        let total = match data.size() {
            Ok(t) => t,
            Err(e) => return fail(report, e.into()),
        };
        let mut pos = to_u64(HEADER_SIZE);
        if data.whole().is_none() {
            // Metadata and offsets in one batch (a hint: a slice ignores it).
            Self::hint_sections(data, head, &header, total);
        }
        let metadata = if header.has_metadata() {
            let section = MetadataSection::parse_in(data, pos)
                .and_then(|s| Ok((s, bytes::end(pos, s.len(), "metadata section")?)));
            match section {
                Ok((section, next)) => {
                    pos = next;
                    Some(section)
                }
                Err(e) => return fail(report, e),
            }
        } else {
            None
        };
        let offsets_at = pos;
        let table = data
            .read_slice::<I64>(pos, header.offsets_len(), "offsets")
            .map_err(Error::from)
            .and_then(|t| Ok((t, bytes::end(pos, 8 * to_u64(t.len()), "offsets")?)));
        let offsets = match table {
            Ok((t, next)) => {
                pos = next;
                t
            }
            Err(e) => return fail(report, e),
        };
        let mut file = Bloscpack {
            data,
            metadata,
            offsets,
            shape: Shape {
                header,
                offsets_at,
                chunks_at: pos,
                end: pos,
                total,
                nchunks: 0,
                uncompressed: 0,
                largest_chunk: 0,
                last_at: pos,
                short_last: false,
                announced: false,
            },
        };
        if data.whole().is_none() {
            if every_chunk || options.get_read_every_chunk() {
                file.announce_from_offsets();
            }
            if !file.shape.announced {
                fused = None;
            }
            if fused.is_none() {
                file.hint_chunk_headers(0);
            }
        } else {
            fused = None;
        }
        file.walk(fused, report).ok()?;
        file.check_spare_slots(report).ok()?;
        Some(file)
    }

    /// Hints the metadata and offsets sections (one range from the end of the header)
    /// when the header and the metadata header in `head` say where they end, inside the
    /// data.
    fn hint_sections(data: D, head: &[u8], header: &Header, total: u64) {
        let mut end = to_u64(HEADER_SIZE);
        if header.has_metadata() {
            let Ok(meta) = bytes::read::<MetadataHeader>(head, end, "metadata header") else {
                return;
            };
            let digest = Checksum::from_id(meta.meta_checksum).map_or(0, Checksum::size_u64);
            end = end
                .saturating_add(to_u64(METADATA_HEADER_SIZE))
                .saturating_add(u64::from(meta.max_meta_size.get()))
                .saturating_add(digest);
        }
        end = end.saturating_add(header.offsets_len().saturating_mul(8));
        if end > to_u64(head.len()) && end <= total {
            let sections = to_u64(HEADER_SIZE)..end;
            let _ = data.hint(core::slice::from_ref(&sections));
        }
    }

    /// Hints the Blosc header of every chunk the offsets section names from chunk `from`
    /// on, so that the walk finds them all fetched in one batch.
    fn hint_chunk_headers(&self, first: usize) {
        let size = to_u64(BLOSC_HEADER_SIZE);
        let used = self
            .shape
            .header
            .nchunks()
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0)
            .min(self.offsets.len());
        let (from, total) = (self.shape.chunks_at, self.shape.total);
        let headers = self
            .offsets
            .get(first.min(used)..used)
            .unwrap_or(&[])
            .iter()
            .filter_map(|e| u64::try_from(e.get()).ok())
            .filter(|&at| at >= from && at.saturating_add(size) <= total)
            .map(|at| at..at + size);
        in_batches(headers, |batch| {
            let _ = self.data.hint(batch);
        });
    }

    /// Announces every chunk's bytes (its Blosc buffer and digest) to the data, in file
    /// order, for a walk that will load them all (`verify`, `unpack`): a cache then reads
    /// them ahead a window at a time, several requests in flight, instead of one request
    /// per chunk as each is loaded, so that a remote file is read at the link's bandwidth
    /// rather than one round trip per chunk. Bytes in memory need nothing.
    pub(crate) fn prefetch_chunks(&self) {
        if self.data.whole().is_some() || self.announced_as_walked() {
            return;
        }
        in_batches(self.chunks().map(|chunk| chunk.span()), |batch| {
            let _ = self.data.prefetch(batch);
        });
    }

    /// The range each used offsets entry gives its chunk, up to the next entry (the last
    /// one up to the end of the data): what the chunks span when they follow each other
    /// with nothing between, as every writer puts them. `None` when an entry is out of
    /// order or outside the data.
    fn chunk_spans_from_offsets(&self) -> Option<impl Iterator<Item = Range<u64>> + '_> {
        let used = usize::try_from(self.shape.header.nchunks()?).ok()?;
        let entries = self.offsets.get(..used)?;
        let mut prev = self.shape.chunks_at;
        for e in entries {
            let at = u64::try_from(e.get()).ok()?;
            if at < prev || at > self.shape.total {
                return None;
            }
            prev = at;
        }
        let total = self.shape.total;
        Some(entries.iter().enumerate().map(move |(i, e)| {
            let at = u64::try_from(e.get()).unwrap_or(total);
            let end = entries
                .get(i + 1)
                .and_then(|n| u64::try_from(n.get()).ok())
                .unwrap_or(total);
            at..end
        }))
    }

    /// Announces the chunk ranges the offsets section gives ([`Data::prefetch`]), before
    /// the walk reads a chunk header: a cache starts reading the first windows at once,
    /// and they arrive while the walk fetches the headers.
    fn announce_from_offsets(&mut self) {
        let Some(spans) = self.chunk_spans_from_offsets() else {
            return;
        };
        in_batches(spans, |batch| {
            let _ = self.data.prefetch(batch);
        });
        self.shape.announced = true;
    }

    /// Whether the chunks were announced from the offsets section and the walk found each
    /// where its entry said, ending where the next begins: then what was announced is what
    /// the walk will read, and nothing more need be announced.
    fn announced_as_walked(&self) -> bool {
        if !self.shape.announced {
            return false;
        }
        let Some(mut spans) = self.chunk_spans_from_offsets() else {
            return false;
        };
        self.chunks()
            .all(|chunk| spans.next() == Some(chunk.span()))
            && spans.next().is_none()
    }

    /// Walks the chunks once, checking each, and records where they end. `Err` when the
    /// walk cannot go on (or the report said stop).
    fn walk(
        &mut self,
        mut fused: Option<&mut Fused<'_>>,
        report: Report<'_>,
    ) -> core::result::Result<(), ()> {
        let digest_len = self.shape.header.checksum().size_u64();
        let total = self.shape.total;
        let known = self.shape.header.nchunks();
        let mut pos = self.shape.chunks_at;
        let mut index = 0u64;
        let stop = |flow: ControlFlow<()>| if flow.is_break() { Err(()) } else { Ok(()) };
        loop {
            match known {
                Some(n) if index == n => break,
                None if pos == total => break,
                _ => {}
            }
            let checked = fused
                .as_deref_mut()
                .and_then(|f| self.fused_chunk(pos, index, digest_len, f));
            let chunk = match checked.map_or_else(|| self.chunk_at(pos, index, digest_len), Ok) {
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
            self.shape.uncompressed = self
                .shape
                .uncompressed
                .saturating_add(chunk.header.nbytes.into());
            self.shape.largest_chunk = self.shape.largest_chunk.max(chunk.header.nbytes);
            self.shape.last_at = pos;
            pos = next;
            index += 1;
        }
        self.shape.nchunks = index;
        self.shape.end = pos;
        Ok(())
    }

    /// The chunks from chunk `index`, which starts at `pos` (as a fused walk left them).
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    pub(crate) fn chunks_from(&self, index: u64, pos: u64) -> Chunks<'d, D> {
        let mut chunks = self.chunks();
        chunks.pos = pos;
        chunks.index = index;
        chunks
    }

    /// Chunk `index` at `pos`: its Blosc header checked, buffer and digest inside the
    /// data (checked against its length: neither is read).
    fn chunk_at(&self, pos: u64, index: u64, digest_len: u64) -> Result<Chunk<'d, D>> {
        let header =
            ChunkHeader::from_raw(self.data.read::<raw::BloscHeader>(pos, "chunk header")?);
        header.check(pos, index)?;
        let total = self.shape.total;
        bytes::checked_range(pos, header.cbytes.into(), total, "chunk")?;
        let digest_at = bytes::end(pos, header.cbytes.into(), "chunk")?;
        bytes::checked_range(digest_at, digest_len, total, "chunk digest")?;
        Ok(self.chunk_unchecked(index, pos, header))
    }

    /// Chunk `index` at `pos` read whole, as announced from the offsets section, and
    /// checked from that one read: its header as [`chunk_at`](Self::chunk_at) checks it,
    /// then its digest and block table as `verify` checks them (problems held in `fused`),
    /// or handed to `fused`'s visitor. `None` when the chunk is not exactly where and as
    /// long as its offsets entry says, a check fails, or `fused` holds enough problems.
    /// Whenever fusing stops (then, or after a visitor's error) the walk reads the
    /// remaining headers as it does without it: hinted here, in one batch.
    fn fused_chunk(
        &self,
        pos: u64,
        index: u64,
        digest_len: u64,
        fused: &mut Fused<'_>,
    ) -> Option<Chunk<'d, D>> {
        #[cfg(not(feature = "alloc"))]
        {
            let _ = (pos, index, digest_len);
            match fused.0 {}
        }
        #[cfg(feature = "alloc")]
        {
            if fused.off {
                return None;
            }
            let chunk = self.fused_read(pos, index, digest_len, fused);
            if chunk.is_none() || fused.off {
                fused.off = true;
                let first = if chunk.is_some() { index + 1 } else { index };
                self.hint_chunk_headers(usize::try_from(first).unwrap_or(usize::MAX));
            }
            chunk
        }
    }

    #[cfg(feature = "alloc")]
    fn fused_read(
        &self,
        pos: u64,
        index: u64,
        digest_len: u64,
        fused: &mut Fused<'_>,
    ) -> Option<Chunk<'d, D>> {
        if fused.found.len() >= Fused::HELD || fused.checked != index {
            return None;
        }
        let i = usize::try_from(index).ok()?;
        let used = usize::try_from(self.shape.header.nchunks()?).ok()?;
        let at = u64::try_from(self.offsets.get(..used)?.get(i)?.get()).ok()?;
        let end = match self.offsets.get(..used)?.get(i + 1) {
            Some(next) => u64::try_from(next.get()).ok()?,
            None => self.shape.total,
        };
        if at != pos || end < at {
            return None;
        }
        let read = bulk(self.data, at, end - at, "chunk").ok()?;
        let header = ChunkHeader::read(&read, 0).ok()?;
        header.check(pos, index).ok()?;
        let next = pos
            .checked_add(header.cbytes.into())?
            .checked_add(digest_len)?;
        if next != end {
            return None;
        }
        let chunk = self.chunk_unchecked(index, pos, header);
        if let Some(visit) = fused.visit.as_mut() {
            let read: &[u8] = &read;
            let over = Chunk::detached(index, pos, header, chunk.checksum, read);
            if let Err(e) = visit(&over) {
                fused.found.push(e);
                // Nothing after a failed chunk is visited: the walk goes on without.
                fused.off = true;
            }
        } else {
            let (body, digest) = chunk.split(&read);
            if fused.options.get_checksums()
                && let Err(e) = chunk.verify_bytes(body, digest)
            {
                fused.found.push(e);
            }
            if let Err(e) = chunk.header.check_blocks(body, pos, index) {
                fused.found.push(e);
            }
        }
        // Over a cache that streams, the buffer fills again with a later chunk.
        self.data.recycle(read);
        fused.checked = index + 1;
        fused.resume = next;
        Some(chunk)
    }

    fn chunk_unchecked(&self, index: u64, pos: u64, header: ChunkHeader) -> Chunk<'d, D> {
        Chunk {
            index,
            offset: pos,
            header,
            checksum: self.shape.header.checksum(),
            data: self.data,
            at: pos,
            _bytes: PhantomData,
        }
    }

    fn check_size(&mut self, chunk: &Chunk<'d, D>, last: bool) -> Result<()> {
        let nbytes = chunk.header.nbytes;
        let header = &self.shape.header;
        let (expected, field) = if last {
            (header.last_chunk(), "last_chunk")
        } else {
            (header.chunk_size(), "chunk_size")
        };
        match expected {
            Some(expected) if expected != nbytes => {
                if last && legacy_short_last(header, chunk.index, nbytes, expected) {
                    self.shape.short_last = true;
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
            .at(self.shape.offsets_at + 8 * index))
        }
    }

    fn check_spare_slots(&self, report: Report<'_>) -> core::result::Result<(), ()> {
        let used = usize::try_from(self.shape.nchunks).unwrap_or(usize::MAX);
        let spare = self.offsets.get(used..).unwrap_or(&[]);
        for (i, e) in spare.iter().enumerate() {
            if e.get() != -1 {
                let index = self.shape.nchunks + to_u64(i);
                let err = ErrorKind::SpareSlotInUse {
                    index,
                    stored: e.get(),
                }
                .at(self.shape.offsets_at + 8 * index);
                if report(err).is_break() {
                    return Err(());
                }
            }
        }
        Ok(())
    }

    /// What a reader should know that does not make the file invalid, each with its
    /// offset: a last chunk holding `last_chunk` rounded down to whole elements
    /// ([`ErrorKind::ShortLastChunk`], as bloscpack 0.11 and 0.13 wrote it), the undo
    /// record of an interrupted append ([`ErrorKind::InterruptedAppend`]), other bytes
    /// after the last chunk ([`ErrorKind::TrailingBytes`]). Over a cache, only a file
    /// with bytes after its last chunk costs reads (the undo record's check).
    pub fn warnings(&self) -> impl Iterator<Item = Error> + '_ {
        let shape = &self.shape;
        let short = shape.short_last.then(|| {
            ErrorKind::ShortLastChunk {
                promised: shape.header.uncompressed_len().unwrap_or(0),
                held: shape.uncompressed,
                last_chunk: shape.header.last_chunk().unwrap_or(0),
                typesize: shape.header.typesize(),
                metadata: self.metadata.is_some(),
            }
            .at(shape.last_at.saturating_add(4))
        });
        let trailing = self.trailing_len();
        let tail = (trailing > 0).then(|| {
            // The one rule (journal::in_flight): the committed state must say so.
            if self.in_flight() {
                ErrorKind::InterruptedAppend { len: trailing }.at(shape.end)
            } else {
                ErrorKind::TrailingBytes { len: trailing }.at(shape.end)
            }
        });
        short.into_iter().chain(tail)
    }

    /// Whether the committed state places an edit in flight (`journal::in_flight`).
    fn in_flight(&self) -> bool {
        match self.data.whole() {
            Some(bytes) => matches!(journal::in_flight(bytes, |_, _| ()), Ok(Some(()))),
            None => matches!(
                journal::in_flight(&DataPeek(self.data, PhantomData), |_, _| ()),
                Ok(Some(()))
            ),
        }
    }

    /// The data the view reads from (for bytes in memory: the whole input).
    #[must_use]
    pub const fn data(&self) -> D {
        self.data
    }

    /// The file header.
    #[must_use]
    pub const fn header(&self) -> &Header {
        &self.shape.header
    }

    /// The metadata section, if the file has one (its digest is checked by
    /// [`MetadataSection::text`] and [`verify`]).
    #[must_use]
    pub const fn metadata(&self) -> Option<&MetadataSection<'d>> {
        self.metadata.as_ref()
    }

    /// Where the offsets section starts (also when the file has none: then it is empty).
    #[must_use]
    pub const fn offsets_offset(&self) -> u64 {
        self.shape.offsets_at
    }

    /// The used offsets entries: the position of each chunk (empty without an offsets
    /// section).
    pub fn offsets(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        let used = usize::try_from(self.shape.nchunks).unwrap_or(usize::MAX);
        self.offsets
            .get(..used)
            .unwrap_or(&[])
            .iter()
            .map(|e| e.get().unsigned_abs())
    }

    /// Where the first chunk starts.
    #[must_use]
    pub const fn chunks_offset(&self) -> u64 {
        self.shape.chunks_at
    }

    /// The number of chunks (the header's count, or the count walked when it is unknown).
    #[must_use]
    pub const fn nchunks(&self) -> u64 {
        self.shape.nchunks
    }

    /// The total uncompressed size the chunks hold: the sum of every chunk's `nbytes`
    /// (1 to typesize − 1 bytes less than the header promises for a file with a short last
    /// chunk, see [`warnings`](Self::warnings)).
    #[must_use]
    pub const fn uncompressed_len(&self) -> u64 {
        self.shape.uncompressed
    }

    /// The bytes the header promises but the chunks do not hold: 0, or `last_chunk %
    /// typesize` for a file with a short last chunk (bloscpack 0.11 and 0.13).
    #[must_use]
    pub fn shortfall(&self) -> u64 {
        if self.shape.short_last {
            self.shape
                .header
                .uncompressed_len()
                .unwrap_or(0)
                .saturating_sub(self.shape.uncompressed)
        } else {
            0
        }
    }

    /// The largest `nbytes` of any chunk.
    #[must_use]
    pub const fn largest_chunk(&self) -> u32 {
        self.shape.largest_chunk
    }

    /// Where the last chunk's digest ends: the committed end of the file.
    #[must_use]
    pub const fn end(&self) -> u64 {
        self.shape.end
    }

    /// The data's whole length in bytes.
    #[must_use]
    pub const fn size(&self) -> u64 {
        self.shape.total
    }

    /// How many bytes follow the last chunk's digest (normally none).
    #[must_use]
    pub const fn trailing_len(&self) -> u64 {
        self.shape.total.saturating_sub(self.shape.end)
    }

    /// The chunks in file order.
    #[must_use]
    pub fn chunks(&self) -> Chunks<'d, D> {
        Chunks {
            data: self.data,
            pos: self.shape.chunks_at,
            index: 0,
            count: self.shape.nchunks,
            checksum: self.shape.header.checksum(),
            _bytes: PhantomData,
        }
    }

    /// Chunk `index`: found through the offsets section when there is one, by walking
    /// otherwise.
    #[must_use]
    pub fn chunk(&self, index: u64) -> Option<Chunk<'d, D>> {
        if index >= self.shape.nchunks {
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

    /// Checks every digest: the metadata's, then each chunk's (over a cache: one request
    /// per chunk, each read once and not kept).
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

/// A [`Data`] as `journal::Peek`, for the undo-record rule over a cache.
struct DataPeek<'d, D>(D, PhantomData<&'d [u8]>);

impl<'d, D: Data<'d>> journal::Peek for DataPeek<'d, D>
where
    Error: From<D::Error>,
{
    type Buf<'s>
        = Bulk<'d>
    where
        Self: 's;

    fn total(&self) -> Result<u64> {
        Ok(self.0.size()?)
    }

    fn peek(&self, at: u64, len: u64) -> Result<Option<Bulk<'d>>> {
        let total = self.total()?;
        match at.checked_add(len) {
            Some(end) if end <= total => Ok(Some(bulk(self.0, at, len, "undo record")?)),
            _ => Ok(None),
        }
    }
}

binfmt_core::verify_fns! {
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
    pub fn verify;

    /// [`verify`] over any [`Data`]: the same rules, the same findings, for bytes in memory or
    /// a `ReadCache` (the structure with the plan of the
    /// [request plan](Bloscpack#request-plan-over-a-cache), then each chunk read once, as a payload that is not
    /// kept: memory does not grow with the file). I/O errors are reported as errors.
    ///
    /// ```
    /// use core::ops::ControlFlow;
    /// use bloscpack_header::{ReadOptions, Severity, verify_data};
    ///
    /// let mut file = [0u8; 48];
    /// file[..8].copy_from_slice(b"blpk\x03\x00\x00\x08");
    /// file[16] = 1; // nchunks 1
    /// file[32..].copy_from_slice(&[2, 1, 0x13, 8, 0, 0, 0, 0, 1, 0, 0, 0, 16, 0, 0, 0]);
    /// let summary = verify_data(&file[..], &ReadOptions::new(), &mut |_: Severity, _| {
    ///     ControlFlow::Continue(())
    /// });
    /// assert!(summary.is_valid());
    /// ```
    pub fn verify_data => walk;
}

/// Passes `ranges` to `f` in batches of up to 64, without allocating: hints and
/// announcements of every chunk, which a file can have millions of.
fn in_batches(ranges: impl Iterator<Item = Range<u64>>, mut f: impl FnMut(&[Range<u64>])) {
    const BATCH: usize = 64;
    let mut batch: [Range<u64>; BATCH] = core::array::from_fn(|_| 0..0);
    let mut n = 0;
    for r in ranges {
        if let Some(slot) = batch.get_mut(n) {
            *slot = r;
            n += 1;
        }
        if n == BATCH {
            f(&batch);
            n = 0;
        }
    }
    if n > 0 {
        f(batch.get(..n).unwrap_or(&[]));
    }
}

/// [`verify_data`]'s walk: the structure, then the metadata, every chunk and the warnings.
fn walk<'d, D: Data<'d>>(
    data: D,
    options: &ReadOptions,
    tally: &mut Tally<'_, dyn Sink<Error> + '_>,
) where
    Error: From<D::Error>,
{
    #[cfg(feature = "alloc")]
    let mut fused = Fused::new(options);
    #[cfg(feature = "alloc")]
    let fuse = Some(&mut fused);
    #[cfg(not(feature = "alloc"))]
    let fuse = None;
    let file = Bloscpack::scan(data, options, true, fuse, &mut |e| tally.error(e));
    let Some(file) = file else {
        if !tally.is_stopped() {
            let record = match data.whole() {
                Some(bytes) => journal::in_flight(bytes, |record, _| record.at),
                None => journal::in_flight(&DataPeek(data, PhantomData), |record, _| record.at),
            };
            if let Ok(Some(at)) = record {
                let total = data
                    .whole()
                    .map_or_else(|| data.size().unwrap_or(at), len_u64);
                let len = total.saturating_sub(at);
                let _ = tally.error(ErrorKind::InterruptedAppend { len }.at(at));
            }
        }
        return;
    };
    if let Some(meta) = file.metadata()
        && let Err(e) = decode_metadata(meta, options)
        && tally.error(e).is_break()
    {
        return;
    }
    #[cfg_attr(not(feature = "alloc"), allow(unused_mut))]
    let mut chunks = file.chunks();
    #[cfg(feature = "alloc")]
    if fused.checked > 0 {
        for e in fused.found.drain(..) {
            if tally.error(e).is_break() {
                return;
            }
        }
        // The chunks checked during the walk are not read again.
        chunks = file.chunks_from(fused.checked, fused.resume);
    }
    if chunks.index == 0 {
        file.prefetch_chunks();
    }
    for chunk in chunks {
        // One read per chunk (a borrow for bytes in memory) serves both checks.
        let read = match chunk.load() {
            Ok(read) => read,
            Err(e) => {
                if tally.error(e).is_break() {
                    return;
                }
                continue;
            }
        };
        let (body, digest) = chunk.split(&read);
        if options.get_checksums()
            && let Err(e) = chunk.verify_bytes(body, digest)
            && tally.error(e).is_break()
        {
            return;
        }
        if let Err(e) = chunk.header.check_blocks(body, chunk.offset, chunk.index)
            && tally.error(e).is_break()
        {
            return;
        }
    }
    for warning in file.warnings() {
        if tally.report(Severity::Warning, warning).is_break() {
            break;
        }
    }
}

/// The metadata rules beyond the section's structure: limit, inflation, UTF-8, JSON.
fn decode_metadata(meta: &MetadataSection<'_>, options: &ReadOptions) -> Result<()> {
    #[cfg(feature = "alloc")]
    {
        meta.json(options).map(|_| ())
    }
    #[cfg(not(feature = "alloc"))]
    {
        if options.get_checksums() {
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
pub struct Chunks<'d, D: Data<'d> = &'d [u8]> {
    data: D,
    pos: u64,
    index: u64,
    count: u64,
    checksum: Checksum,
    _bytes: PhantomData<&'d [u8]>,
}

impl<'d, D: Data<'d>> Iterator for Chunks<'d, D> {
    type Item = Chunk<'d, D>;

    fn next(&mut self) -> Option<Chunk<'d, D>> {
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

impl<'d, D: Data<'d>> Chunks<'d, D> {
    /// The next chunk: its header read (held by a cache since the walk), nothing else.
    fn read(&mut self) -> Option<Chunk<'d, D>> {
        let raw = self
            .data
            .read::<raw::BloscHeader>(self.pos, "chunk header")
            .ok()?;
        let header = ChunkHeader::from_raw(raw);
        let digest_at = self.pos.checked_add(header.cbytes.into())?;
        let chunk = Chunk {
            index: self.index,
            offset: self.pos,
            header,
            checksum: self.checksum,
            data: self.data,
            at: self.pos,
            _bytes: PhantomData,
        };
        self.pos = digest_at.checked_add(self.checksum.size_u64())?;
        self.index += 1;
        Some(chunk)
    }
}

impl<'d, D: Data<'d>> core::iter::FusedIterator for Chunks<'d, D> {}

/// Whether the last chunk, `index`, holding `nbytes` where the header's last_chunk says
/// `expected`, is short the way bloscpack 0.11 and 0.13 wrote it, and only that way.
///
/// Their `pack_ndarray` split the array with the chunk size as requested, then rounded
/// chunk_size (not last_chunk) down to whole elements, and compressed
/// `int(last_chunk / itemsize)` elements for the last chunk (the header's typesize is the
/// itemsize). So: a file of two or more chunks, chunk_size a whole number of elements,
/// and the last chunk last_chunk rounded down to whole elements, 1 to typesize − 1 bytes
/// short (possibly empty). A single-chunk file never had its chunk size rounded; any
/// other shortfall, a whole element included, is not what they wrote.
pub(crate) fn legacy_short_last(header: &Header, index: u64, nbytes: u32, expected: u32) -> bool {
    let typesize = u32::from(header.typesize());
    index > 0
        && typesize > 1
        && header.chunk_size().is_some_and(|cs| cs % typesize == 0)
        && nbytes == expected - expected % typesize
}
