//! Packing bytes into a Bloscpack file and unpacking them again (feature `blosc`).

use alloc::vec::Vec;
use core::ffi::CStr;
use core::fmt;
use core::str::FromStr;
use std::io::Write;
use std::path::Path;

use binfmt_core::Kind;
use binfmt_core::bytes::{len_u64, to_u64};
use binfmt_core::output::{Output, OutputOptions};

use crate::blosc::{self, OVERHEAD, Refusal, Settings};
use crate::checksum::Checksum;
use crate::chunk::{Codec, Shuffle};
use crate::error::{Error, ErrorKind, Result, io, io_at};
use crate::header::{Header, HeaderFields, MAX_CHUNK_SIZE, Options};
use crate::metadata::Metadata;
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
            .ok_or(
                ErrorKind::InvalidArgument {
                    what: "compressor",
                    reason: "use one of blosclz, lz4, lz4hc, zlib, zstd",
                }
                .unlocated(),
            )
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

/// Compresses one piece into a new chunk and appends it and its digest to `out`; the
/// buffer grows by the piece's own size (plus 16), never by a header's claim.
pub(crate) fn compress_chunk(
    settings: Settings,
    checksum: Checksum,
    piece: &[u8],
    out: &mut Vec<u8>,
) -> Result<()> {
    let start = out.len();
    let room = piece.len().saturating_add(OVERHEAD);
    out.try_reserve_exact(room)
        .map_err(|_| out_of_memory(room))?;
    out.resize(start + room, 0);
    let n =
        blosc::compress(piece, out.get_mut(start..).unwrap_or(&mut []), settings).map_err(|r| {
            ErrorKind::Compress {
                code: match r {
                    Refusal::Code(code) => code,
                    Refusal::Invalid | Refusal::OutputTooSmall => -1,
                },
            }
            .unlocated()
        })?;
    out.truncate(start + n);
    let digest = checksum.compute(out.get(start..).unwrap_or(&[]));
    out.extend_from_slice(digest.as_bytes());
    Ok(())
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
    args.check()?;
    let settings = args.settings();
    let one = |piece: &[u8]| {
        let mut out = Vec::new();
        compress_chunk(settings, checksum, piece, &mut out).map(|()| out)
    };
    let threads = threads.clamp(1, pieces.len().max(1));
    if threads == 1 {
        return pieces.iter().map(|p| one(p)).collect();
    }
    let next = core::sync::atomic::AtomicUsize::new(0);
    let parts: Vec<Result<Numbered>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
                        let Some(piece) = pieces.get(i) else {
                            return Ok(done);
                        };
                        done.push((i, one(piece)?));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|_| Err(ErrorKind::Compress { code: -1 }.unlocated()))
            })
            .collect()
    });
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    chunks.resize_with(pieces.len(), Vec::new);
    for part in parts {
        for (i, chunk) in part? {
            if let Some(slot) = chunks.get_mut(i) {
                *slot = chunk;
            }
        }
    }
    Ok(chunks)
}

/// Compressed chunks with their indices, as one worker made them.
type Numbered = Vec<(usize, Vec<u8>)>;

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

    /// Packs `data` into a new `Vec`.
    ///
    /// # Errors
    /// As for [`write_to`](Self::write_to).
    pub fn to_vec(&self, data: &[u8]) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write_to(data, &mut out)?;
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
        let threads = if self.threads == 0 {
            default_threads()
        } else {
            self.threads
        };
        let chunks = compress_all(&self.blosc, self.checksum, &pieces, threads)?;
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

    /// Packs `data` into the file at `path`, replacing it atomically (a temporary file
    /// beside it is written, synced and renamed over `path`, through
    /// `binfmt_core::output::Output`), and returns the number of bytes written.
    ///
    /// # Errors
    /// As for [`write_to`](Self::write_to); `path` is untouched on error.
    pub fn write_to_path(&self, data: &[u8], path: impl AsRef<Path>) -> Result<u64> {
        let path = path.as_ref();
        // Check the options before creating anything.
        self.plan(len_u64(data))?;
        let mut out =
            Output::create(path, &OutputOptions::new().replace(true)).map_err(io_at(path))?;
        let n = self.write_to(data, std::io::BufWriter::with_capacity(1 << 20, &mut out))?;
        out.commit().map_err(io_at(path))?;
        Ok(n)
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
