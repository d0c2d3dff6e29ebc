//! Packing bytes into a Bloscpack file and unpacking them again (feature `blosc`).

use alloc::vec::Vec;
use core::ffi::CStr;
use core::fmt;
use core::str::FromStr;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::Path;

use binfmt_core::atomic::AtomicFile;

use crate::blosc::{self, OVERHEAD, Refusal, Settings};
use crate::checksum::Checksum;
use crate::chunk::{Chunk, Codec, Shuffle};
use crate::error::{Error, Result};
use crate::file::Bloscpack;
use crate::header::{Header, HeaderFields, MAX_CHUNK_SIZE, Options};
use crate::metadata::Metadata;

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
            .ok_or(Error::InvalidArgument {
                what: "compressor",
                reason: "use one of blosclz, lz4, lz4hc, zlib, zstd",
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
            return Err(Error::ArgumentOutOfRange {
                what: "typesize",
                value: 0,
                min: 1,
                max: 255,
            });
        }
        if self.clevel > 9 {
            return Err(Error::ArgumentOutOfRange {
                what: "clevel",
                value: self.clevel.into(),
                min: 0,
                max: 9,
            });
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

/// Compresses chunks one after another into a reused buffer.
pub(crate) struct ChunkCompressor {
    settings: Settings,
    checksum: Checksum,
    buffer: Vec<u8>,
}

impl ChunkCompressor {
    pub(crate) fn new(args: &BloscArgs, checksum: Checksum, largest: usize) -> Result<Self> {
        args.check()?;
        let len = largest.saturating_add(OVERHEAD);
        let mut buffer = Vec::new();
        buffer
            .try_reserve_exact(len)
            .map_err(|_| Error::OutOfMemory {
                bytes: u64::try_from(len).unwrap_or(u64::MAX),
            })?;
        buffer.resize(len, 0);
        Ok(ChunkCompressor {
            settings: args.settings(),
            checksum,
            buffer,
        })
    }

    /// Compresses `data` and returns the Blosc buffer and its digest.
    pub(crate) fn compress(&mut self, data: &[u8]) -> Result<(&[u8], crate::DigestBytes)> {
        let n = blosc::compress(data, &mut self.buffer, self.settings).map_err(|r| {
            Error::Compress {
                code: match r {
                    Refusal::Code(code) => code,
                    Refusal::Invalid | Refusal::OutputTooSmall => -1,
                },
            }
        })?;
        let chunk = self.buffer.get(..n).unwrap_or(&[]);
        Ok((chunk, self.checksum.compute(chunk)))
    }
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
            return Err(Error::ArgumentOutOfRange {
                what: "chunk_size",
                value: self.chunk_size.into(),
                min: 1,
                max: MAX_CHUNK_SIZE.into(),
            });
        }
        self.blosc.check()?;
        // Input shorter than a chunk is one chunk of its own size (0 for empty input).
        let chunk = u64::from(self.chunk_size).min(len);
        let nchunks = if len == 0 { 1 } else { len.div_ceil(chunk) };
        let last = len - chunk * (nchunks - 1);
        let max_app_chunks = if self.offsets {
            match self.max_app_chunks {
                Some(n) => n,
                None => nchunks.checked_mul(10).ok_or(Error::ArgumentOutOfRange {
                    what: "input length",
                    value: len,
                    min: 0,
                    max: i64::MAX.unsigned_abs() / 10,
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
            return Err(Error::ArgumentOutOfRange {
                what: "max_app_chunks",
                value: max_app_chunks,
                min: 0,
                max: (i64::MAX.unsigned_abs() / 8).saturating_sub(nchunks),
            });
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

    /// Packs `data` into `out`, which must be seekable: the offsets section is written as
    /// -1 first and filled in once the chunks are written, as bloscpack does. Offsets are
    /// counted from `out`'s position when the call starts. The output is deterministic.
    ///
    /// Every option is checked, and the metadata encoded, before anything is written.
    ///
    /// # Errors
    /// [`Error::ArgumentOutOfRange`], [`Error::InvalidArgument`],
    /// [`Error::MetadataTooLarge`] for bad options; [`Error::Io`] when writing fails.
    pub fn pack<W: Write + Seek>(&self, data: &[u8], mut out: W) -> Result<u64> {
        let len = u64::try_from(data.len()).unwrap_or(u64::MAX);
        let plan = self.plan(len)?;
        let mut compressor = ChunkCompressor::new(&self.blosc, self.checksum, plan.chunk_size)?;
        let base = out.stream_position()?;
        let mut w = io::BufWriter::with_capacity(1 << 16, &mut out);
        w.write_all(&plan.header.to_bytes())?;
        w.write_all(&plan.metadata)?;
        let offsets_at = 32 + u64::try_from(plan.metadata.len()).unwrap_or(u64::MAX);
        write_free_slots(&mut w, plan.header.offsets_len())?;
        let mut pos = offsets_at + 8 * plan.header.offsets_len();
        let mut offsets = Vec::new();
        if self.offsets {
            // One entry per chunk: bounded by the input length (chunk_size >= 1).
            offsets.reserve_exact(usize::try_from(plan.nchunks).unwrap_or(0));
        }
        let pieces: &mut dyn Iterator<Item = &[u8]> = if data.is_empty() {
            &mut core::iter::once(data)
        } else {
            &mut data.chunks(plan.chunk_size)
        };
        for piece in pieces {
            let (chunk, digest) = compressor.compress(piece)?;
            w.write_all(chunk)?;
            w.write_all(digest.as_bytes())?;
            if self.offsets {
                offsets.push(pos);
            }
            pos += u64::try_from(chunk.len() + digest.as_bytes().len()).unwrap_or(u64::MAX);
        }
        w.flush()?;
        drop(w);
        if self.offsets {
            out.seek(SeekFrom::Start(base + offsets_at))?;
            let table: Vec<u8> = offsets.iter().flat_map(|p| p.to_le_bytes()).collect();
            out.write_all(&table)?;
            out.seek(SeekFrom::Start(base + pos))?;
        }
        out.flush()?;
        Ok(pos)
    }

    /// Packs `data` into a new `Vec`.
    ///
    /// # Errors
    /// As for [`pack`](Self::pack).
    pub fn pack_to_vec(&self, data: &[u8]) -> Result<Vec<u8>> {
        let mut out = io::Cursor::new(Vec::new());
        self.pack(data, &mut out)?;
        Ok(out.into_inner())
    }

    /// Packs `data` into the file at `path`, atomically: a temporary file beside it is
    /// written, synced and renamed over `path`, so `path` never holds a partial file.
    ///
    /// # Errors
    /// As for [`pack`](Self::pack); `path` is untouched on error.
    pub fn pack_to_path(&self, data: &[u8], path: impl AsRef<Path>) -> Result<u64> {
        let len = u64::try_from(data.len()).unwrap_or(u64::MAX);
        // Check the options before creating anything.
        self.plan(len)?;
        let mut file = AtomicFile::create(path)?;
        let n = self.pack(data, &mut file)?;
        file.commit()?;
        Ok(n)
    }
}

/// Writes `count` free (-1) offset slots without allocating `count` entries.
pub(crate) fn write_free_slots(w: &mut impl Write, count: u64) -> Result<()> {
    const FREE: [u8; 4096] = [0xff; 4096];
    let mut left = count.saturating_mul(8);
    while left > 0 {
        let n = left.min(FREE.len() as u64);
        w.write_all(FREE.get(..usize::try_from(n).unwrap_or(0)).unwrap_or(&[]))?;
        left -= n;
    }
    Ok(())
}

/// How [`Bloscpack::unpack_to_vec`] and friends decompress.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct UnpackOptions {
    /// Check each chunk's digest (and the metadata's) before decompressing (default
    /// true, as bloscpack does).
    pub verify: bool,
    /// c-blosc threads per chunk (default 1).
    pub threads: u16,
    /// The most uncompressed bytes to produce (default: no limit). The headers of a small
    /// file can claim up to 2 GiB per chunk; with a limit, such a file is refused before
    /// anything is allocated.
    pub max_len: u64,
}

impl Default for UnpackOptions {
    fn default() -> Self {
        UnpackOptions::DEFAULT
    }
}

impl UnpackOptions {
    /// Verify digests, one thread.
    pub const DEFAULT: UnpackOptions = UnpackOptions {
        verify: true,
        threads: 1,
        max_len: u64::MAX,
    };

    /// With a limit on the uncompressed length.
    #[must_use]
    pub const fn max_len(mut self, max_len: u64) -> Self {
        self.max_len = max_len;
        self
    }

    /// With `threads` c-blosc threads per chunk (at least 1).
    #[must_use]
    pub const fn threads(mut self, threads: u16) -> Self {
        self.threads = if threads == 0 { 1 } else { threads };
        self
    }

    /// With or without digest checks.
    #[must_use]
    pub const fn verify(mut self, verify: bool) -> Self {
        self.verify = verify;
        self
    }
}

impl Chunk<'_> {
    /// Decompresses the chunk into the start of `out` (at least `nbytes` long) and
    /// returns `nbytes`. The digest is not checked: see [`Chunk::verify`].
    ///
    /// # Errors
    /// [`Error::UnsupportedCodec`] for snappy or an unknown codec,
    /// [`Error::InvalidArgument`] when `out` is too short, [`Error::Decompress`] when
    /// c-blosc finds the chunk corrupt.
    #[cfg_attr(docsrs, doc(cfg(feature = "blosc")))]
    pub fn decompress_into(&self, out: &mut [u8], threads: u16) -> Result<usize> {
        let codec = self.header.flags.codec();
        if self.header.nbytes > 0
            && !self.header.flags.memcpyed()
            && matches!(codec, Codec::Snappy | Codec::Unknown(_))
        {
            return Err(Error::UnsupportedCodec {
                offset: self.offset + 2,
                index: self.index,
                codec: codec.name(),
            });
        }
        blosc::decompress(self.bytes, out, threads).map_err(|r| match r {
            Refusal::OutputTooSmall => Error::InvalidArgument {
                what: "output buffer",
                reason: "it is smaller than the chunk's nbytes",
            },
            Refusal::Invalid => Error::Decompress {
                offset: self.offset,
                index: self.index,
                code: -1,
            },
            Refusal::Code(code) => Error::Decompress {
                offset: self.offset,
                index: self.index,
                code,
            },
        })
    }
}

impl Bloscpack<'_> {
    fn check_limit(&self, options: UnpackOptions) -> Result<()> {
        if self.uncompressed_len() > options.max_len {
            return Err(Error::TooLarge {
                bytes: self.uncompressed_len(),
                limit: options.max_len,
            });
        }
        Ok(())
    }

    fn check_metadata(&self, options: UnpackOptions) -> Result<()> {
        self.check_limit(options)?;
        match self.metadata() {
            Some(m) if options.verify => m.verify(),
            _ => Ok(()),
        }
    }

    /// Decompresses every chunk into `out`, which must be exactly
    /// [`uncompressed_len`](Bloscpack::uncompressed_len) bytes long.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a wrong-sized `out`; digest mismatches (when
    /// verifying); [`Error::UnsupportedCodec`] and [`Error::Decompress`].
    #[cfg_attr(docsrs, doc(cfg(feature = "blosc")))]
    pub fn unpack_into(&self, out: &mut [u8], options: UnpackOptions) -> Result<()> {
        if u64::try_from(out.len()) != Ok(self.uncompressed_len()) {
            return Err(Error::InvalidArgument {
                what: "output buffer",
                reason: "its length must equal the uncompressed length",
            });
        }
        self.check_metadata(options)?;
        let mut rest = out;
        for chunk in self.chunks() {
            if options.verify {
                chunk.verify()?;
            }
            let n = chunk.decompress_into(rest, options.threads)?;
            rest = rest.get_mut(n..).unwrap_or(&mut []);
        }
        Ok(())
    }

    /// Decompresses the whole file into a new `Vec`.
    ///
    /// # Errors
    /// [`Error::TooLarge`] beyond `options.max_len`, [`Error::OutOfMemory`] when the
    /// uncompressed length cannot be allocated, otherwise as for
    /// [`unpack_into`](Self::unpack_into).
    #[cfg_attr(docsrs, doc(cfg(feature = "blosc")))]
    pub fn unpack_to_vec(&self, options: UnpackOptions) -> Result<Vec<u8>> {
        self.check_limit(options)?;
        let len = self.uncompressed_len();
        let mut out = Vec::new();
        let n = usize::try_from(len).map_err(|_| Error::OutOfMemory { bytes: len })?;
        out.try_reserve_exact(n)
            .map_err(|_| Error::OutOfMemory { bytes: len })?;
        out.resize(n, 0);
        self.unpack_into(&mut out, options)?;
        Ok(out)
    }

    /// Decompresses chunk by chunk into `out`, holding one chunk in memory, and returns
    /// the number of bytes written.
    ///
    /// # Errors
    /// As for [`unpack_into`](Self::unpack_into), and [`Error::Io`].
    #[cfg_attr(docsrs, doc(cfg(feature = "blosc")))]
    pub fn unpack_to_writer<W: Write>(&self, mut out: W, options: UnpackOptions) -> Result<u64> {
        self.check_metadata(options)?;
        let size = usize::try_from(self.largest_chunk()).unwrap_or(usize::MAX);
        let mut buffer = Vec::new();
        buffer
            .try_reserve_exact(size)
            .map_err(|_| Error::OutOfMemory {
                bytes: self.largest_chunk().into(),
            })?;
        buffer.resize(size, 0);
        let mut written = 0u64;
        for chunk in self.chunks() {
            if options.verify {
                chunk.verify()?;
            }
            let n = chunk.decompress_into(&mut buffer, options.threads)?;
            out.write_all(buffer.get(..n).unwrap_or(&[]))?;
            written += u64::try_from(n).unwrap_or(0);
        }
        out.flush()?;
        Ok(written)
    }

    /// Decompresses the file into a new file at `path`, atomically (temporary file,
    /// then rename).
    ///
    /// # Errors
    /// As for [`unpack_to_writer`](Self::unpack_to_writer); `path` is untouched on error.
    #[cfg_attr(docsrs, doc(cfg(feature = "blosc")))]
    pub fn unpack_to_path(&self, path: impl AsRef<Path>, options: UnpackOptions) -> Result<u64> {
        let mut file = AtomicFile::create(path)?;
        let n = self.unpack_to_writer(io::BufWriter::with_capacity(1 << 20, &mut file), options)?;
        file.commit()?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_checked_before_writing() {
        let out_of_range = |o: PackOptions| {
            let mut sink = io::Cursor::new(Vec::new());
            let e = o.pack(b"data", &mut sink).unwrap_err();
            assert!(sink.get_ref().is_empty(), "wrote before failing: {e}");
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
                out_of_range(options),
                Error::ArgumentOutOfRange { .. }
            ));
        }
        let mut meta = Metadata::new(&b"{\"a\":1}"[..]);
        meta.max_meta_size = Some(2);
        let e = out_of_range(PackOptions {
            metadata: Some(meta),
            ..PackOptions::default()
        });
        assert!(matches!(e, Error::MetadataTooLarge { .. }));
        assert_eq!("LZ4HC".parse::<Compressor>().unwrap(), Compressor::Lz4Hc);
        assert!("snappy".parse::<Compressor>().is_err());
    }
}
