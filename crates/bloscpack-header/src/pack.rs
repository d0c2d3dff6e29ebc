//! Packing bytes into a Bloscpack file and unpacking them again (feature `blosc`).

use alloc::vec::Vec;
use core::ffi::CStr;
use core::fmt;
use core::str::FromStr;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::Mutex;

use binfmt_core::Kind;
use binfmt_core::bytes::{len_u64, to_u64};
use binfmt_core::output::{Output, OutputOptions};

use crate::blosc::{self, OVERHEAD, Refusal, Settings};
use crate::checksum::Checksum;
use crate::chunk::{Codec, Shuffle};
use crate::error::{Error, ErrorKind, Result, io, io_at};
use crate::header::{Header, HeaderFields, MAX_CHUNK_SIZE, Options};
use crate::metadata::Metadata;
use crate::pipeline::{self, Shape};
use crate::raw::HEADER_SIZE;

/// The compressors of the bundled c-blosc (snappy is not built, as in python-blosc 1.11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum Compressor {
    /// Blosc's own codec, bloscpack's default.
    #[default]
    BloscLz,
    /// LZ4.
    Lz4,
    /// LZ4 HC (same stream format as LZ4, slower and tighter).
    Lz4Hc,
    /// zlib.
    Zlib,
    /// Zstandard.
    Zstd,
}

impl Compressor {
    /// Every compressor.
    pub const ALL: [Compressor; 5] = [
        Compressor::BloscLz,
        Compressor::Lz4,
        Compressor::Lz4Hc,
        Compressor::Zlib,
        Compressor::Zstd,
    ];

    /// c-blosc's name: `"blosclz"`, `"lz4"`, `"lz4hc"`, `"zlib"`, `"zstd"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Compressor::BloscLz => "blosclz",
            Compressor::Lz4 => "lz4",
            Compressor::Lz4Hc => "lz4hc",
            Compressor::Zlib => "zlib",
            Compressor::Zstd => "zstd",
        }
    }

    const fn cname(self) -> &'static CStr {
        match self {
            Compressor::BloscLz => c"blosclz",
            Compressor::Lz4 => c"lz4",
            Compressor::Lz4Hc => c"lz4hc",
            Compressor::Zlib => c"zlib",
            Compressor::Zstd => c"zstd",
        }
    }

    /// The codec recorded in the chunks' flags.
    #[must_use]
    pub const fn codec(self) -> Codec {
        match self {
            Compressor::BloscLz => Codec::BloscLz,
            Compressor::Lz4 | Compressor::Lz4Hc => Codec::Lz4,
            Compressor::Zlib => Codec::Zlib,
            Compressor::Zstd => Codec::Zstd,
        }
    }
}

impl fmt::Display for Compressor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Compressor {
    type Err = Error;

    /// Parses c-blosc's name, in any case.
    fn from_str(s: &str) -> Result<Self> {
        Compressor::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                ErrorKind::InvalidArgument {
                    what: "compressor",
                    reason: "use one of blosclz, lz4, lz4hc, zlib, zstd",
                }
                .unlocated()
            })
    }
}

/// How each chunk is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BloscArgs {
    /// The element size for the shuffle filters, 1..=255 (bloscpack's default: 8).
    pub typesize: u8,
    /// The compression level, 0..=9 (default 7; 0 stores the data uncompressed).
    pub clevel: u8,
    /// The shuffle filter (default: byte shuffle).
    pub shuffle: Shuffle,
    /// The compressor (default: blosclz).
    pub compressor: Compressor,
}

impl Default for BloscArgs {
    fn default() -> Self {
        BloscArgs {
            typesize: 8,
            clevel: 7,
            shuffle: Shuffle::Byte,
            compressor: Compressor::BloscLz,
        }
    }
}

impl BloscArgs {
    pub(crate) fn check(&self) -> Result<()> {
        if self.typesize == 0 {
            return Err(out_of_range("typesize", 0, 1, 255));
        }
        if self.clevel > 9 {
            return Err(out_of_range("clevel", self.clevel.into(), 0, 9));
        }
        Ok(())
    }

    fn settings(&self) -> Settings {
        Settings {
            clevel: self.clevel,
            shuffle: self.shuffle.code(),
            typesize: self.typesize,
            cname: self.compressor.cname(),
        }
    }
}

pub(crate) fn out_of_range(what: &'static str, value: u64, min: u64, max: u64) -> Error {
    ErrorKind::ArgumentOutOfRange {
        what,
        value,
        min,
        max,
    }
    .unlocated()
}

pub(crate) fn out_of_memory(bytes: usize) -> Error {
    ErrorKind::OutOfMemory {
        bytes: to_u64(bytes),
    }
    .unlocated()
}

/// Compresses one piece into `buffer` at `start`, followed by its digest, and returns
/// the length of both. `buffer` is grown (and zero-filled) only when it is shorter than
/// `start` plus the piece's size, 16 bytes and the digest; otherwise its bytes are
/// reused as they are (a pipeline's buffer is written over, not cleared, for each chunk).
pub(crate) fn compress_at(
    settings: Settings,
    checksum: Checksum,
    piece: &[u8],
    buffer: &mut Vec<u8>,
    start: usize,
) -> Result<usize> {
    let room = piece
        .len()
        .saturating_add(OVERHEAD)
        .saturating_add(checksum.size());
    let need = start.saturating_add(room);
    if buffer.len() < need {
        buffer
            .try_reserve_exact(need - buffer.len())
            .map_err(|_| out_of_memory(room))?;
        buffer.resize(need, 0);
    }
    compress_into(
        settings,
        checksum,
        piece,
        buffer.get_mut(start..need).unwrap_or(&mut []),
    )
}

/// Compresses one piece into the start of `area` (at least the piece's size, 16 bytes
/// and the digest long), followed by its digest, and returns the length of both.
fn compress_into(
    settings: Settings,
    checksum: Checksum,
    piece: &[u8],
    area: &mut [u8],
) -> Result<usize> {
    let n = blosc::compress(piece, area, settings).map_err(|r| {
        ErrorKind::Compress {
            code: match r {
                Refusal::Code(code) => code,
                Refusal::Invalid | Refusal::OutputTooSmall | Refusal::NotInPlace => -1,
            },
        }
        .unlocated()
    })?;
    let (body, rest) = area.split_at_mut(n);
    let digest = checksum.compute(body);
    let d = digest.as_bytes();
    let Some(dst) = rest.get_mut(..d.len()) else {
        return Err(ErrorKind::Compress { code: -1 }.unlocated());
    };
    dst.copy_from_slice(d);
    Ok(n + d.len())
}

/// Compresses `pieces` on up to `threads` threads (chunks are independent, and each is
/// compressed by one c-blosc thread, so the bytes do not depend on the count) and returns
/// each chunk with its digest, in order.
pub(crate) fn compress_all(
    args: &BloscArgs,
    checksum: Checksum,
    pieces: &[&[u8]],
    threads: usize,
) -> Result<Vec<Vec<u8>>> {
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    chunks
        .try_reserve_exact(pieces.len())
        .map_err(|_| out_of_memory(pieces.len()))?;
    compress_ordered(args, checksum, pieces, threads, &mut |chunk| {
        chunks.push(chunk.to_vec());
        Ok(())
    })?;
    Ok(chunks)
}

/// Compresses `pieces` on up to `threads` worker threads and hands each chunk (with its
/// digest), in order, to `emit` on the caller's thread while the next ones compress.
///
/// Each worker compresses into buffers that are handed back after `emit` and reused, so
/// the memory every chunk is written to stays mapped: a new buffer per chunk (and
/// c-blosc's scratch block, allocated per call beside it) would be faulted in afresh for
/// every chunk, which costs more than the compression itself. At most `threads + 1`
/// chunks are in memory; as in the unpack pipeline, a worker holds a buffer before it
/// takes an index, so the next chunk to emit is always in some worker's hands.
pub(crate) fn compress_ordered(
    args: &BloscArgs,
    checksum: Checksum,
    pieces: &[&[u8]],
    threads: usize,
    emit: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    args.check()?;
    let settings = args.settings();
    let threads = threads.clamp(1, pieces.len().max(1));
    // The buffers are allocated here, on the caller's thread, not by the workers: a
    // worker's heap (glibc gives each thread an arena) then holds only c-blosc's scratch
    // block, small enough that glibc keeps it mapped from one pack to the next. Buffers
    // grown by the workers and freed here would leave the workers' heaps with megabytes
    // free at their top, which glibc returns to the kernel when the next pack's workers
    // start, and every page would be faulted in again.
    let room = pieces
        .iter()
        .map(|p| p.len())
        .max()
        .unwrap_or(0)
        .saturating_add(OVERHEAD)
        .saturating_add(checksum.size());
    let buffers = take_spare(threads + 1, room)?;
    let shape = Shape {
        threads,
        caller_helps: true,
        died: || ErrorKind::Compress { code: -1 }.unlocated(),
    };
    let work =
        |piece: &&[u8], buffer: &mut Vec<u8>| compress_at(settings, checksum, piece, buffer, 0);
    let kept = pipeline::run(pieces, &shape, buffers, &work, emit)?;
    keep_spare(kept.into_iter());
    Ok(())
}

/// Pipeline buffers kept from one call to the next (at most [`SPARE_COUNT`], each at
/// most [`SPARE_SIZE`] bytes): freed, they would be returned to the kernel and faulted
/// in again, page by page, by the next call, as c-blosc's scratch memory is by a new
/// thread. python-blosc likewise keeps its buffers for the life of the process.
static SPARE: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
const SPARE_COUNT: usize = 4;
const SPARE_SIZE: usize = 4 << 20;

/// `n` buffers at least `len` bytes long each: the spare ones first, grown where they are
/// short, then new ones. Made on the caller's thread (see [`compress_ordered`]'s comment).
///
/// # Errors
/// `Io` of kind `OutOfMemory` when a buffer cannot be grown.
pub(crate) fn take_spare(n: usize, len: usize) -> Result<Vec<Vec<u8>>> {
    let mut buffers = match SPARE.lock() {
        Ok(mut spare) => {
            let keep = spare.len().saturating_sub(n);
            spare.split_off(keep)
        }
        Err(_) => Vec::new(),
    };
    buffers.resize_with(n, Vec::new);
    for buffer in &mut buffers {
        if buffer.len() < len {
            buffer
                .try_reserve_exact(len - buffer.len())
                .map_err(|_| out_of_memory(len))?;
            buffer.resize(len, 0);
        }
    }
    Ok(buffers)
}

pub(crate) fn keep_spare(buffers: impl Iterator<Item = Vec<u8>>) {
    if let Ok(mut spare) = SPARE.lock() {
        for buffer in buffers {
            if spare.len() < SPARE_COUNT && buffer.capacity() <= SPARE_SIZE {
                spare.push(buffer);
            }
        }
    }
}

/// One part of a packed file, in the order [`PackOptions::pack_parts`] gives them.
enum Part<'a> {
    /// The header and the metadata section, at offset 0.
    Head(&'a [u8]),
    /// The offsets section's length in bytes (every slot free for now), right after.
    Table(u64),
    /// The next chunk with its digest.
    Chunk(&'a [u8]),
    /// The used entries of the offsets section, to be written over the start of the
    /// table (after every chunk).
    Offsets(&'a [u8]),
}

/// The number of threads to use by default: the machine's, at most 8.
pub(crate) fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

/// Everything that decides how a file is packed; the defaults are bloscpack's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackOptions {
    /// Uncompressed bytes per chunk, 1..=2147483631 (default 1 MiB). Input shorter than
    /// this becomes a single chunk of its own length.
    pub chunk_size: u32,
    /// How chunks are compressed.
    pub blosc: BloscArgs,
    /// The digest stored after each chunk (default Adler-32).
    pub checksum: Checksum,
    /// Write an offsets section (default true). Appending needs one.
    pub offsets: bool,
    /// Spare offset slots for appending; `None` gives 10 × the chunk count, as bloscpack
    /// does. Ignored (0) without an offsets section.
    pub max_app_chunks: Option<u64>,
    /// A metadata section (default none).
    pub metadata: Option<Metadata>,
    /// Threads compressing chunks; 0 (the default) uses the machine's cores, at most 8.
    /// The output does not depend on it.
    pub threads: usize,
}

impl Default for PackOptions {
    fn default() -> Self {
        PackOptions {
            chunk_size: 1 << 20,
            blosc: BloscArgs::default(),
            checksum: Checksum::Adler32,
            offsets: true,
            max_app_chunks: None,
            metadata: None,
            threads: 0,
        }
    }
}

/// What a pack will write, worked out (and checked) before the first byte is.
struct Plan {
    header: Header,
    metadata: Vec<u8>,
    chunk_size: usize,
    nchunks: u64,
}

impl PackOptions {
    fn plan(&self, len: u64) -> Result<Plan> {
        if self.chunk_size == 0 || self.chunk_size > MAX_CHUNK_SIZE {
            return Err(out_of_range(
                "chunk_size",
                self.chunk_size.into(),
                1,
                MAX_CHUNK_SIZE.into(),
            ));
        }
        self.blosc.check()?;
        // Input shorter than a chunk is one chunk of its own size (0 for empty input).
        let chunk = u64::from(self.chunk_size).min(len);
        let nchunks = if len == 0 { 1 } else { len.div_ceil(chunk) };
        let last = len - chunk * (nchunks - 1);
        let max_app_chunks = if self.offsets {
            match self.max_app_chunks {
                Some(n) => n,
                None => nchunks.checked_mul(10).ok_or_else(|| {
                    out_of_range("input length", len, 0, i64::MAX.unsigned_abs() / 10)
                })?,
            }
        } else {
            0
        };
        // The offsets table must fit a file: 8 bytes per entry, within i64.
        if max_app_chunks
            .checked_add(nchunks)
            .and_then(|n| n.checked_mul(8))
            .is_none_or(|bytes| bytes > i64::MAX.unsigned_abs())
        {
            return Err(out_of_range(
                "max_app_chunks",
                max_app_chunks,
                0,
                (i64::MAX.unsigned_abs() / 8).saturating_sub(nchunks),
            ));
        }
        let metadata = match &self.metadata {
            Some(m) => m.encode()?,
            None => Vec::new(),
        };
        let mut options = Options::NONE;
        if self.offsets {
            options = options | Options::OFFSETS;
        }
        if self.metadata.is_some() {
            options = options | Options::METADATA;
        }
        let to_u32 = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        let header = Header::new(HeaderFields {
            options,
            checksum: self.checksum,
            typesize: self.blosc.typesize,
            chunk_size: Some(to_u32(chunk)),
            last_chunk: Some(to_u32(last)),
            nchunks: Some(nchunks),
            max_app_chunks,
        })?;
        Ok(Plan {
            header,
            metadata,
            chunk_size: usize::try_from(chunk).unwrap_or(usize::MAX),
            nchunks,
        })
    }

    fn thread_count(&self) -> usize {
        if self.threads == 0 {
            default_threads()
        } else {
            self.threads
        }
    }

    /// Packs `data` part by part: the head, the offsets section's room, each chunk as soon
    /// as it and those before it are compressed, then the offsets (known only now).
    /// Returns the file's length.
    fn pack_parts(&self, data: &[u8], out: &mut dyn FnMut(Part<'_>) -> Result<()>) -> Result<u64> {
        let plan = self.plan(len_u64(data))?;
        let pieces: Vec<&[u8]> = if data.is_empty() {
            alloc::vec![data]
        } else {
            data.chunks(plan.chunk_size).collect()
        };
        let mut head = Vec::new();
        head.extend_from_slice(&plan.header.to_bytes());
        head.extend_from_slice(&plan.metadata);
        out(Part::Head(&head))?;
        let table = if self.offsets {
            8 * plan.header.offsets_len()
        } else {
            0
        };
        out(Part::Table(table))?;
        let mut pos = len_u64(&head) + table;
        let mut offsets = Vec::new();
        compress_ordered(
            &self.blosc,
            self.checksum,
            &pieces,
            self.thread_count(),
            &mut |chunk| {
                if self.offsets {
                    offsets.extend_from_slice(&pos.to_le_bytes());
                }
                pos += len_u64(chunk);
                out(Part::Chunk(chunk))
            },
        )?;
        if self.offsets {
            out(Part::Offsets(&offsets))?;
        }
        Ok(pos)
    }

    /// The most bytes [`pack_into`](Self::pack_into) can write for `len` bytes of input
    /// (what it needs the buffer to hold): the file with every chunk stored
    /// uncompressed.
    ///
    /// # Errors
    /// As for [`write_to`](Self::write_to), for bad options.
    pub fn max_packed_len(&self, len: usize) -> Result<usize> {
        let plan = self.plan(to_u64(len))?;
        let per_chunk = OVERHEAD.saturating_add(self.checksum.size());
        let table = if self.offsets {
            8 * plan.header.offsets_len()
        } else {
            0
        };
        let fixed = to_u64(HEADER_SIZE) + len_u64(&plan.metadata) + table;
        usize::try_from(fixed)
            .ok()
            .and_then(|n| n.checked_add(len))
            .and_then(|n| {
                usize::try_from(plan.nchunks)
                    .ok()
                    .and_then(|c| c.checked_mul(per_chunk))
                    .and_then(|m| n.checked_add(m))
            })
            .ok_or_else(|| out_of_memory(usize::MAX))
    }

    /// Packs `data` into the start of `out` (at least
    /// [`max_packed_len`](Self::max_packed_len) bytes long) and returns the file's
    /// length. Chunks are written in place, in order, as they are compressed (by the
    /// threads, into buffers they reuse), the offsets last: `out` is written once, and
    /// only as far as the file reaches; the same bytes as [`to_vec`](Self::to_vec).
    ///
    /// # Errors
    /// As for [`write_to`](Self::write_to); [`ErrorKind::InvalidArgument`] when `out`
    /// is too short.
    pub fn pack_into(&self, data: &[u8], out: &mut [u8]) -> Result<usize> {
        fn put(out: &mut [u8], at: usize, bytes: &[u8]) {
            if let Some(dst) = out.get_mut(at..at.saturating_add(bytes.len())) {
                dst.copy_from_slice(bytes);
            }
        }
        if out.len() < self.max_packed_len(data.len())? {
            return Err(ErrorKind::InvalidArgument {
                what: "output buffer",
                reason: "it is shorter than max_packed_len",
            }
            .unlocated());
        }
        let mut at = 0usize;
        let mut offsets_at = 0usize;
        let n = self.pack_parts(data, &mut |part| {
            match part {
                Part::Head(bytes) => {
                    put(out, at, bytes);
                    at += bytes.len();
                    offsets_at = at;
                }
                Part::Chunk(bytes) => {
                    put(out, at, bytes);
                    at += bytes.len();
                }
                Part::Table(len) => {
                    let len = usize::try_from(len).unwrap_or(usize::MAX);
                    if let Some(dst) = out.get_mut(at..at.saturating_add(len)) {
                        dst.fill(0xff);
                    }
                    at = at.saturating_add(len);
                }
                Part::Offsets(bytes) => put(out, offsets_at, bytes),
            }
            Ok(())
        })?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    /// Packs `data` into a new `Vec`.
    ///
    /// # Errors
    /// As for [`write_to`](Self::write_to).
    pub fn to_vec(&self, data: &[u8]) -> Result<Vec<u8>> {
        let room = self.max_packed_len(data.len())?;
        let mut out = Vec::new();
        out.try_reserve_exact(room)
            .map_err(|_| out_of_memory(room))?;
        let mut offsets_at = 0usize;
        self.pack_parts(data, &mut |part| {
            match part {
                Part::Head(bytes) => {
                    out.extend_from_slice(bytes);
                    offsets_at = out.len();
                }
                Part::Chunk(bytes) => out.extend_from_slice(bytes),
                Part::Table(len) => {
                    out.resize(out.len() + usize::try_from(len).unwrap_or(0), 0xff);
                }
                Part::Offsets(bytes) => {
                    if let Some(dst) = out.get_mut(offsets_at..offsets_at + bytes.len()) {
                        dst.copy_from_slice(bytes);
                    }
                }
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// Packs `data` into `out` and returns the number of bytes written. The output is
    /// deterministic (whatever the number of threads).
    ///
    /// Every option is checked and the metadata encoded, then every chunk is compressed
    /// (in memory, on up to [`threads`](Self::threads) threads), before the first byte is
    /// written: the offsets section is known before it is written, so `out` need not
    /// seek. Memory: the compressed size of `data`.
    ///
    /// # Errors
    /// [`ErrorKind::ArgumentOutOfRange`], [`ErrorKind::InvalidArgument`],
    /// [`ErrorKind::MetadataTooLarge`] for bad options; [`ErrorKind::Io`] when writing
    /// fails.
    pub fn write_to<W: Write>(&self, data: &[u8], mut out: W) -> Result<u64> {
        let plan = self.plan(len_u64(data))?;
        let pieces: Vec<&[u8]> = if data.is_empty() {
            alloc::vec![data]
        } else {
            data.chunks(plan.chunk_size).collect()
        };
        let chunks = compress_all(&self.blosc, self.checksum, &pieces, self.thread_count())?;
        let offsets_at = to_u64(HEADER_SIZE) + len_u64(&plan.metadata);
        let mut pos = offsets_at + 8 * plan.header.offsets_len();
        let mut head = Vec::new();
        head.extend_from_slice(&plan.header.to_bytes());
        head.extend_from_slice(&plan.metadata);
        if self.offsets {
            for chunk in &chunks {
                head.extend_from_slice(&pos.to_le_bytes());
                pos += len_u64(chunk);
            }
            let spare = plan.header.offsets_len().saturating_sub(plan.nchunks);
            out.write_all(&head).map_err(io)?;
            write_free_slots(&mut out, spare)?;
        } else {
            pos += chunks.iter().map(|c| len_u64(c)).sum::<u64>();
            out.write_all(&head).map_err(io)?;
        }
        for chunk in &chunks {
            out.write_all(chunk).map_err(io)?;
        }
        out.flush().map_err(io)?;
        Ok(pos)
    }

    /// Packs `data` into `out`, which seeks: each chunk is written as soon as it is
    /// compressed (while the next ones compress), and the offsets section, written first
    /// with every slot free, is filled in at the end. Returns the number of bytes
    /// written; the same bytes as [`write_to`](Self::write_to), with memory for a few
    /// chunks only. `out` is left at the end of the file.
    ///
    /// # Errors
    /// As for [`write_to`](Self::write_to).
    pub fn write_to_seekable<W: Write + Seek>(&self, data: &[u8], mut out: W) -> Result<u64> {
        let start = out.stream_position().map_err(io)?;
        let mut offsets_at = start;
        let n = self.pack_parts(data, &mut |part| {
            match part {
                Part::Head(bytes) => {
                    out.write_all(bytes).map_err(io)?;
                    offsets_at = start + len_u64(bytes);
                }
                Part::Chunk(bytes) => out.write_all(bytes).map_err(io)?,
                Part::Table(len) => write_free_slots(&mut out, len / 8)?,
                Part::Offsets(bytes) => {
                    let end = out.stream_position().map_err(io)?;
                    out.seek(SeekFrom::Start(offsets_at)).map_err(io)?;
                    out.write_all(bytes).map_err(io)?;
                    out.seek(SeekFrom::Start(end)).map_err(io)?;
                }
            }
            Ok(())
        })?;
        out.flush().map_err(io)?;
        Ok(n)
    }

    /// Packs `data` into the file at `path`, replacing it atomically (a temporary file
    /// beside it is written, synced and renamed over `path`, through
    /// `binfmt_core::output::Output`), and returns the number of bytes written. Chunks
    /// are written while the next ones compress ([`write_to_seekable`](Self::write_to_seekable)).
    ///
    /// # Errors
    /// As for [`write_to`](Self::write_to); `path` is untouched on error.
    pub fn write_to_path(&self, data: &[u8], path: impl AsRef<Path>) -> Result<u64> {
        let path = path.as_ref();
        // Check the options before creating anything.
        self.plan(len_u64(data))?;
        let mut out =
            Output::create(path, &OutputOptions::new().replace(true)).map_err(io_at(path))?;
        let n = self.write_to_output(data, &mut out)?;
        out.commit().map_err(io_at(path))?;
        Ok(n)
    }

    /// Packs `data` into an [`Output`] the caller created under its own rules (for
    /// example [`OutputOptions::sync`] off, as the Python drop-in's writers have it) and
    /// commits: a file is written while the next chunks compress, a stream in order.
    /// Returns the number of bytes written. [`write_to_path`](Self::write_to_path) is
    /// this with the default rules and replacing.
    ///
    /// ```
    /// # #[cfg(feature = "blosc")] {
    /// use binfmt_core::output::{Output, OutputOptions};
    /// use bloscpack_header::PackOptions;
    /// # let dir = std::env::temp_dir().join(format!("blp-doc-output-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// let path = dir.join("data.blp");
    /// let mut out = Output::create(&path, &OutputOptions::new().sync(false)).unwrap();
    /// let n = PackOptions::default().write_to_output(&[7u8; 1000], &mut out).unwrap();
    /// out.commit().unwrap();
    /// assert_eq!(std::fs::metadata(&path).unwrap().len(), n);
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// # }
    /// ```
    ///
    /// # Errors
    /// As for [`write_to`](Self::write_to); nothing is in place until the caller commits.
    pub fn write_to_output(&self, data: &[u8], out: &mut Output) -> Result<u64> {
        if out.is_stream() {
            self.write_to(data, std::io::BufWriter::with_capacity(1 << 20, out))
        } else {
            self.write_to_seekable(data, out)
        }
    }
}

/// Writes `count` free (-1) offset slots without allocating `count` entries.
pub(crate) fn write_free_slots(w: &mut impl Write, count: u64) -> Result<()> {
    const FREE: [u8; 4096] = [0xff; 4096];
    let mut left = count.saturating_mul(8);
    while left > 0 {
        let n = left.min(len_u64(&FREE));
        w.write_all(FREE.get(..usize::try_from(n).unwrap_or(0)).unwrap_or(&[]))
            .map_err(io)?;
        left -= n;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_checked_before_writing() {
        let refused = |o: PackOptions| {
            let mut sink = Vec::new();
            let e = o.write_to(b"data", &mut sink).unwrap_err();
            assert!(sink.is_empty(), "wrote before failing: {e}");
            e
        };
        for options in [
            PackOptions {
                max_app_chunks: Some(u64::MAX),
                ..PackOptions::default()
            },
            PackOptions {
                max_app_chunks: Some(i64::MAX.unsigned_abs() / 8),
                ..PackOptions::default()
            },
            PackOptions {
                chunk_size: 0,
                ..PackOptions::default()
            },
            PackOptions {
                chunk_size: MAX_CHUNK_SIZE + 1,
                ..PackOptions::default()
            },
            PackOptions {
                blosc: BloscArgs {
                    clevel: 10,
                    ..BloscArgs::default()
                },
                ..PackOptions::default()
            },
            PackOptions {
                blosc: BloscArgs {
                    typesize: 0,
                    ..BloscArgs::default()
                },
                ..PackOptions::default()
            },
        ] {
            assert!(matches!(
                refused(options).kind(),
                ErrorKind::ArgumentOutOfRange { .. }
            ));
        }
        let mut meta = Metadata::new(&b"{\"a\":1}"[..]);
        meta.max_meta_size = Some(2);
        let e = refused(PackOptions {
            metadata: Some(meta),
            ..PackOptions::default()
        });
        assert!(matches!(e.kind(), ErrorKind::MetadataTooLarge { .. }));
        assert_eq!("LZ4HC".parse::<Compressor>().unwrap(), Compressor::Lz4Hc);
        assert!("snappy".parse::<Compressor>().is_err());
    }
}
