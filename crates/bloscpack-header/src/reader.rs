//! The owned form of a [`Bloscpack`] view over a [`ReadCache`]: a file read by ranges
//! through a [`ByteSource`] (a file, a stream, an object store), fetching only what an
//! access needs.

use alloc::vec::Vec;
#[cfg(feature = "blosc")]
use core::ops::Range;

#[cfg(feature = "blosc")]
use binfmt_core::Kind;
use binfmt_core::cache::ReadCache;
use binfmt_core::source::ByteSource;

#[cfg(feature = "blosc")]
use crate::chunk::Chunk;
use crate::error::Result;
#[cfg(feature = "blosc")]
use crate::error::{Error, ErrorKind};
use crate::file::{Bloscpack, Shape};
use crate::header::Header;
use crate::metadata::MetadataSection;
use crate::options::ReadOptions;

/// Two hinted chunk headers closer than this are fetched as one range: a page. Chunks
/// further apart (a file of large chunks) cost 16 bytes each, so opening reads a tiny
/// part of the file; the cache's default gap (64 KiB) would read all of a file of
/// chunks smaller than that.
const CHUNK_HEADER_GAP: u64 = 4096;

/// A Bloscpack file read by ranges: the owned form of [`Bloscpack`] over a
/// [`ReadCache`].
///
/// It keeps the cache and the checked shape as plain data; [`view`](Reader::view)
/// rebuilds the view from cached bytes in O(log n) (no I/O, no re-validation), and every
/// accessor of [`Bloscpack`] works on it. The request plan is in
/// [`Bloscpack`'s documentation](Bloscpack#request-plan-over-a-cache) (checked with `binfmt_core::source::Counting` in
/// the tests):
///
/// * [`Reader::open`]: the first [`HEAD_SIZE`](crate::HEAD_SIZE) bytes; then, when the metadata and
///   offsets sections end past them, **one** more request for both; then every chunk's
///   16-byte header, hinted from the offsets and fetched as **one** batch. A file
///   **without** an offsets section has its chunk headers walked one after the other
///   (one request per chunk header not yet held).
/// * [`Reader::read_range`] (feature `blosc`): **one** `read_ranges` call for exactly the
///   chunks that hold the range (a remote source fetches them concurrently), each
///   checked (digest, block table) and decompressed as it is used, none kept.
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
/// // The head; the sections (past the first 256 bytes: the spare slots); the chunk
/// // headers, hinted at once (and merged into one range: they are close together).
/// assert_eq!(source.stats().requests, 3);
/// assert_eq!(reader.view().nchunks(), 7);
/// let before = source.stats().requests;
/// assert_eq!(reader.read_range(70_000..70_010)?, &data[70_000..70_010]);
/// assert_eq!(source.stats().requests, before + 1); // only chunk 1
/// # }
/// # Ok::<(), bloscpack_header::Error>(())
/// ```
#[derive(Debug)]
pub struct Reader<S> {
    cache: ReadCache<S>,
    options: ReadOptions,
    shape: Shape,
}

impl<S: ByteSource> Reader<S> {
    /// Opens `source` with the default [`ReadOptions`].
    ///
    /// # Errors
    /// As for [`Reader::open_with`].
    pub fn open(source: S) -> Result<Self> {
        Self::open_with(source, &ReadOptions::new())
    }

    /// Reads and checks the structure as [`Bloscpack::parse_with`] does (see the request
    /// plan): header, metadata section, offsets section, every chunk's Blosc header,
    /// size and position. The cache holds at most
    /// [`ReadCache::DEFAULT_LIMIT`] bytes plus `options`' metadata limit, and merges
    /// hinted ranges less than 4 KiB apart.
    ///
    /// # Errors
    /// Any structural error, with its offset; I/O errors.
    pub fn open_with(source: S, options: &ReadOptions) -> Result<Self> {
        let limit = ReadCache::<S>::DEFAULT_LIMIT.saturating_add(options.get_max_metadata_size());
        let cache = ReadCache::new(source)
            .with_limit(limit)
            .with_gap(CHUNK_HEADER_GAP);
        Self::from_cache(cache, options)
    }

    /// [`Reader::open_with`] over a cache the caller built: with the first bytes it
    /// already read ([`ReadCache::with_head`], never read again), a limit or a gap.
    ///
    /// ```
    /// use binfmt_core::cache::ReadCache;
    /// use binfmt_core::source::Counting;
    /// use bloscpack_header::{HEAD_SIZE, ReadOptions, Reader};
    ///
    /// let mut file = Vec::new();
    /// file.extend_from_slice(b"blpk\x03\x00\x00\x08");
    /// file.extend_from_slice(&[0; 8]);
    /// file.extend_from_slice(&1i64.to_le_bytes());
    /// file.extend_from_slice(&0i64.to_le_bytes());
    /// file.extend_from_slice(&[2, 1, 0x13, 8, 0, 0, 0, 0, 1, 0, 0, 0, 16, 0, 0, 0]);
    /// let source = Counting::new(&file[..]);
    /// let head = &file[..]; // what format detection read (all of a small file)
    /// let cache = ReadCache::with_head(&source, head, HEAD_SIZE);
    /// let reader = Reader::from_cache(cache, &ReadOptions::new())?;
    /// assert_eq!(reader.nchunks(), 1);
    /// assert_eq!(source.stats().requests, 0);
    /// # Ok::<(), bloscpack_header::Error>(())
    /// ```
    ///
    /// # Errors
    /// As for [`Reader::open_with`].
    pub fn from_cache(cache: ReadCache<S>, options: &ReadOptions) -> Result<Self> {
        let shape = *Bloscpack::from_data_with(&cache, options)?.shape();
        Ok(Reader {
            cache,
            options: *options,
            shape,
        })
    }

    /// The view: every accessor of [`Bloscpack`], over the cached bytes (rebuilt in
    /// O(log n), no I/O for what `open` read).
    #[must_use]
    pub fn view(&self) -> Bloscpack<'_, &ReadCache<S>> {
        Bloscpack::rebuild(&self.cache, self.shape)
    }

    /// The file header: as `view().header()`.
    #[must_use]
    pub fn header(&self) -> &Header {
        &self.shape.header
    }

    /// The metadata section, borrowed from the cache: as `view().metadata()`.
    #[must_use]
    pub fn metadata(&self) -> Option<MetadataSection<'_>> {
        self.view().metadata().copied()
    }

    /// The number of chunks: as `view().nchunks()`.
    #[must_use]
    pub fn nchunks(&self) -> u64 {
        self.shape.nchunks
    }

    /// Where each chunk starts: as `view().chunks().map(|c| c.offset())` (no I/O: the
    /// chunk headers are held).
    #[must_use]
    pub fn chunk_offsets(&self) -> Vec<u64> {
        self.view().chunks().map(|c| c.offset()).collect()
    }

    /// The cache.
    #[must_use]
    pub fn cache(&self) -> &ReadCache<S> {
        &self.cache
    }

    /// The source.
    #[must_use]
    pub fn source(&self) -> &S {
        self.cache.source()
    }

    /// The options it reads with.
    #[must_use]
    pub fn options(&self) -> &ReadOptions {
        &self.options
    }

    /// The uncompressed bytes `range`, fetching only the chunks that hold them (one
    /// `read_ranges` call; nothing kept) and decompressing each as it is used. The range
    /// is cut at the end of the data.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidArgument`] for a file whose chunk size is unknown or 0;
    /// digest and block-table errors of the chunks read; [`ErrorKind::Decompress`] and
    /// [`ErrorKind::UnsupportedCodec`]; I/O errors.
    #[cfg(feature = "blosc")]
    pub fn read_range(&self, range: Range<u64>) -> Result<Vec<u8>> {
        let Some(chunk_size) = self.shape.header.chunk_size().filter(|&c| c > 0) else {
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
        let view = self.view();
        let (first, last) = (start / cs, (end - 1) / cs);
        let chunks: Vec<_> = (first..=last).filter_map(|i| view.chunk(i)).collect();
        let digest = self.shape.header.checksum().size_u64();
        let spans: Vec<Range<u64>> = chunks
            .iter()
            .map(|c| c.offset()..c.digest_offset().saturating_add(digest))
            .collect();
        let fetched = self.cache.source().read_ranges(&spans).map_err(|e| {
            Error::from(binfmt_core::source::from_io(
                e,
                spans.first().map_or(0, |r| r.start),
                0,
                "chunk",
            ))
        })?;
        let mut out = Vec::new();
        let mut buffer = Vec::new();
        for (chunk, bytes) in chunks.iter().zip(&fetched) {
            let detached = Chunk::detached(
                chunk.index(),
                chunk.offset(),
                *chunk.header(),
                self.shape.header.checksum(),
                bytes,
            );
            detached.unpack(self.options.get_checksums(), &mut buffer)?;
            let chunk_start = chunk.index() * cs;
            let from = usize::try_from(start.saturating_sub(chunk_start)).unwrap_or(0);
            let to = usize::try_from((end - chunk_start).min(binfmt_core::bytes::len_u64(&buffer)))
                .unwrap_or(0);
            out.extend_from_slice(buffer.get(from..to).unwrap_or(&[]));
        }
        Ok(out)
    }
}
