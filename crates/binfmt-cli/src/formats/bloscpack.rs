//! `binfmt` support for Bloscpack files: inspect, verify, pack, unpack, append.

use core::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bloscpack_header::{
    BloscArgs, Bloscpack, Checksum, Compressor, Error, MetaCodec, Metadata, PackOptions, Shuffle,
    UnpackOptions,
};
use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Map, Value, json};

use crate::formats::{InspectOptions, Inspection};
use crate::input::Input;
use crate::report::{Failure, Problem};

/// The keys this format adds to `binfmt inspect --json`.
pub(crate) const JSON_HELP: &str = "\
bloscpack:
  \"version\": 3 (or 2)          the format version
  \"options\": N                 the options byte: 0x01 offsets section, 0x02 metadata section
  \"checksum\": S                the chunk digest: \"None\", \"adler32\", \"crc32\", \"md5\", \"sha1\",
                               \"sha224\", \"sha256\", \"sha384\" or \"sha512\"
  \"typesize\", \"chunk_size\", \"last_chunk\", \"nchunks\": N   header values (-1 = unknown)
  \"max_app_chunks\": N          spare offset slots for appending
  \"offsets\": [N, ...]          the used offset entries: each chunk's byte position
                               ([] without an offsets section)
  \"metadata\": VALUE|null       the decoded JSON metadata
  \"chunks\": [{\"offset\", \"nbytes\", \"cbytes\", \"blocksize\", \"typesize\", \"flags\"}, ...]
                               each chunk's position and its Blosc header";

/// `binfmt bloscpack …`.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Compress a file into a Bloscpack file (format 3), as bloscpack 0.16 does.
    ///
    /// The defaults are bloscpack's: 1 MiB chunks, typesize 8, blosclz level 7 with byte
    /// shuffle, adler32 digests, an offsets section with 10 spare slots per chunk.
    Pack(PackArgs),
    /// Decompress a Bloscpack file (format 2 or 3), checking every digest first.
    Unpack(UnpackArgs),
    /// Append a file's bytes to a Bloscpack file in place, using its spare offset slots.
    ///
    /// Like bloscpack's append: the last chunk is topped up to chunk_size and
    /// recompressed, then new chunks are added. Fails, leaving FILE unchanged, when the
    /// file has no offsets section or too few spare slots.
    Append(AppendArgs),
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum CodecArg {
    Blosclz,
    Lz4,
    Lz4hc,
    Zlib,
    Zstd,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ShuffleArg {
    None,
    Byte,
    Bit,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum MetaCodecArg {
    None,
    Zlib,
}

/// How chunks are compressed.
#[derive(Debug, Args)]
struct BloscOpts {
    /// Compression level, 0 (none) to 9.
    #[arg(long, short = 'l', default_value_t = 7, value_parser = clap::value_parser!(u8).range(0..=9))]
    clevel: u8,
    /// Compressor.
    #[arg(long, short = 'c', value_enum, default_value = "blosclz")]
    codec: CodecArg,
    /// Shuffle filter.
    #[arg(long, short = 's', value_enum, default_value = "byte")]
    shuffle: ShuffleArg,
}

impl BloscOpts {
    fn args(&self, typesize: u8) -> BloscArgs {
        BloscArgs {
            typesize,
            clevel: self.clevel,
            shuffle: match self.shuffle {
                ShuffleArg::None => Shuffle::None,
                ShuffleArg::Byte => Shuffle::Byte,
                ShuffleArg::Bit => Shuffle::Bit,
            },
            compressor: match self.codec {
                CodecArg::Blosclz => Compressor::BloscLz,
                CodecArg::Lz4 => Compressor::Lz4,
                CodecArg::Lz4hc => Compressor::Lz4Hc,
                CodecArg::Zlib => Compressor::Zlib,
                CodecArg::Zstd => Compressor::Zstd,
            },
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct PackArgs {
    /// The file to compress.
    input: PathBuf,
    /// The Bloscpack file to write (atomically: a temporary file, then a rename).
    output: PathBuf,
    /// Uncompressed bytes per chunk: a number with an optional B, K, M or G suffix
    /// (powers of 1024), or "max" (2147483631).
    #[arg(long, short = 'z', default_value = "1M", value_parser = parse_size)]
    chunk_size: u32,
    /// Element size for the shuffle filter, 1 to 255.
    #[arg(long, short = 't', default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..))]
    typesize: u8,
    #[command(flatten)]
    blosc: BloscOpts,
    /// Digest stored after each chunk: none, adler32, crc32, md5, sha1, sha224, sha256,
    /// sha384 or sha512.
    #[arg(long, short = 'k', default_value = "adler32")]
    checksum: Checksum,
    /// Write no offsets section (such a file cannot be appended to).
    #[arg(long)]
    no_offsets: bool,
    /// Spare offset slots for later appends [default: 10 per chunk].
    #[arg(long)]
    max_app_chunks: Option<u64>,
    /// Store this JSON file's value as metadata (serialized compactly).
    #[arg(long, short = 'm', value_name = "JSON_FILE")]
    metadata: Option<PathBuf>,
    /// How the metadata is stored (zlib falls back to none when that is smaller).
    #[arg(long, value_enum, default_value = "zlib")]
    meta_codec: MetaCodecArg,
    /// zlib level of the metadata, 0 to 9.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u8).range(0..=9))]
    meta_level: u8,
    /// Digest of the metadata (same names as --checksum).
    #[arg(long, default_value = "adler32")]
    meta_checksum: Checksum,
    /// Bytes reserved for the stored metadata [default: 10 × its serialized length].
    #[arg(long)]
    max_meta_size: Option<u32>,
    /// Replace OUTPUT if it exists.
    #[arg(long, short = 'f')]
    force: bool,
}

#[derive(Debug, Args)]
pub(crate) struct UnpackArgs {
    /// The Bloscpack file.
    input: PathBuf,
    /// Where to write the decompressed bytes (atomically).
    output: PathBuf,
    /// c-blosc threads per chunk.
    #[arg(long, short = 'n', default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// Replace OUTPUT if it exists.
    #[arg(long, short = 'f')]
    force: bool,
}

#[derive(Debug, Args)]
pub(crate) struct AppendArgs {
    /// The Bloscpack file to extend, in place.
    file: PathBuf,
    /// The file whose bytes are appended.
    input: PathBuf,
    #[command(flatten)]
    blosc: BloscOpts,
}

/// `1M`, `512K`, `100`, `max`: bloscpack's chunk-size syntax.
fn parse_size(s: &str) -> Result<u32, String> {
    let max = bloscpack_header::MAX_CHUNK_SIZE;
    if s.eq_ignore_ascii_case("max") {
        return Ok(max);
    }
    let (digits, shift) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'B' => 0,
                'K' => 10,
                'M' => 20,
                'G' => 30,
                _ => return Err(format!("unknown size suffix '{c}': use B, K, M or G")),
            };
            (&s[..i], shift)
        }
        _ => (s, 0),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{s}' is not a size (e.g. 65536, 512K, 1M, max)"))?;
    n.checked_shl(shift)
        .filter(|&v| v >= 1 && v <= u64::from(max) && n.leading_zeros() >= shift)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| format!("chunk size must be between 1 and {max} bytes"))
}

fn parse(input: &Input) -> Result<Bloscpack<'_>, Failure> {
    Bloscpack::parse(input.bytes()).map_err(|e| Failure::diagnostic(input.path(), &e))
}

/// The decoded metadata (digest checked), or why it cannot be decoded.
fn metadata_value(path: &Path, file: &Bloscpack<'_>) -> Result<Option<Value>, Failure> {
    let Some(section) = file.metadata() else {
        return Ok(None);
    };
    let text = section.text().map_err(|e| Failure::diagnostic(path, &e))?;
    serde_json::from_str(&text).map(Some).map_err(|e| {
        Failure::file(
            path,
            format!(
                "byte {}: the metadata is not valid JSON ({e})",
                section.offset() + 32
            ),
        )
    })
}

pub(crate) fn inspect(input: &Input, _options: &InspectOptions) -> Result<Inspection, Failure> {
    let file = parse(input)?;
    let h = file.header();
    let metadata = metadata_value(input.path(), &file)?;
    let offsets: Vec<u64> = file.offsets().collect();
    let chunks: Vec<Value> = file
        .chunks()
        .map(|c| {
            let b = c.header();
            json!({
                "offset": c.offset(),
                "nbytes": b.nbytes,
                "cbytes": b.cbytes,
                "blocksize": b.blocksize,
                "typesize": b.typesize,
                "flags": b.flags.bits(),
            })
        })
        .collect();

    let mut text = String::new();
    let unknown = |v: i64| {
        if v < 0 {
            "unknown".to_string()
        } else {
            v.to_string()
        }
    };
    let _ = writeln!(
        text,
        "  format version {}, options {:#04x} (offsets: {}, metadata: {}), checksum {}, typesize {}",
        h.version(),
        h.options().bits(),
        if h.has_offsets() { "yes" } else { "no" },
        if h.has_metadata() { "yes" } else { "no" },
        h.checksum(),
        h.typesize()
    );
    let _ = writeln!(
        text,
        "  chunk_size {}, last_chunk {}, nchunks {}, max_app_chunks {}: {} bytes uncompressed in {} bytes",
        unknown(h.raw_chunk_size().into()),
        unknown(h.raw_last_chunk().into()),
        unknown(h.raw_nchunks()),
        h.max_app_chunks(),
        file.uncompressed_len(),
        input.bytes().len()
    );
    if let (Some(section), Some(value)) = (file.metadata(), &metadata) {
        let _ = writeln!(
            text,
            "  metadata ({} bytes, {} {}, stored {} of {} bytes, {} digest): {}",
            section.meta_size(),
            String::from_utf8_lossy(section.format()),
            section.codec().name(),
            section.meta_comp_size(),
            section.max_meta_size(),
            section.checksum(),
            value
        );
    }
    for c in file.chunks() {
        let b = c.header();
        let _ = writeln!(
            text,
            "  chunk {} at byte {}: {} -> {} bytes, {}, shuffle {}, blocksize {}, typesize {}, flags {:#04x}{}",
            c.index(),
            c.offset(),
            b.nbytes,
            b.cbytes,
            b.flags.codec(),
            b.flags.shuffle(),
            b.blocksize,
            b.typesize,
            b.flags.bits(),
            if b.flags.memcpyed() { " (stored)" } else { "" }
        );
    }
    if !file.trailing().is_empty() {
        let _ = writeln!(
            text,
            "  {} bytes after the last chunk (ignored)",
            file.trailing().len()
        );
    }

    let mut json = Map::new();
    json.insert("version".into(), h.version().into());
    json.insert("options".into(), h.options().bits().into());
    json.insert("checksum".into(), h.checksum().name().into());
    json.insert("typesize".into(), h.typesize().into());
    json.insert("chunk_size".into(), h.raw_chunk_size().into());
    json.insert("last_chunk".into(), h.raw_last_chunk().into());
    json.insert("nchunks".into(), h.raw_nchunks().into());
    json.insert("max_app_chunks".into(), h.max_app_chunks().into());
    json.insert("offsets".into(), offsets.into());
    json.insert("metadata".into(), metadata.unwrap_or(Value::Null));
    json.insert("chunks".into(), chunks.into());
    Ok(Inspection { json, text })
}

pub(crate) fn verify(input: &Input) -> Vec<Problem> {
    let file = match Bloscpack::parse(input.bytes()) {
        Ok(file) => file,
        Err(e) => return vec![Problem::from_diagnostic(&e)],
    };
    let mut problems: Vec<Problem> = file
        .digest_errors()
        .map(|e| Problem::from_diagnostic(&e))
        .collect();
    // A metadata section whose digest is right must also hold JSON.
    if let Some(section) = file.metadata().filter(|m| m.verify().is_ok()) {
        match section.text() {
            Ok(text) => {
                if serde_json::from_str::<Value>(&text).is_err() {
                    problems.push(Problem::new(
                        Some(section.offset() + 32),
                        "the metadata is not valid JSON",
                    ));
                }
            }
            Err(e) => problems.push(Problem::from_diagnostic(&e)),
        }
    }
    problems
}

pub(crate) fn run(command: Command) -> Result<ExitCode, Failure> {
    match command {
        Command::Pack(args) => pack(&args),
        Command::Unpack(args) => unpack(&args),
        Command::Append(args) => append(&args),
    }
}

fn refuse_overwrite(path: &Path, force: bool) -> Result<(), Failure> {
    if !force && path.exists() {
        return Err(Failure::file(
            path,
            "already exists; use --force to replace it",
        ));
    }
    Ok(())
}

fn caller(path: &Path, e: &Error) -> Failure {
    Failure::file(path, e)
}

fn pack(args: &PackArgs) -> Result<ExitCode, Failure> {
    refuse_overwrite(&args.output, args.force)?;
    let metadata = match &args.metadata {
        Some(path) => {
            let text = std::fs::read(path).map_err(|e| Failure::io(path, &e))?;
            let value: Value = serde_json::from_slice(&text)
                .map_err(|e| Failure::file(path, format!("not valid JSON: {e}")))?;
            let mut m =
                Metadata::new(serde_json::to_vec(&value).map_err(|e| Failure::file(path, e))?);
            m.codec = match args.meta_codec {
                MetaCodecArg::None => MetaCodec::None,
                MetaCodecArg::Zlib => MetaCodec::Zlib,
            };
            m.level = args.meta_level;
            m.checksum = args.meta_checksum;
            m.max_meta_size = args.max_meta_size;
            Some(m)
        }
        None => None,
    };
    let options = PackOptions {
        chunk_size: args.chunk_size,
        blosc: args.blosc.args(args.typesize),
        checksum: args.checksum,
        offsets: !args.no_offsets,
        max_app_chunks: args.max_app_chunks,
        metadata,
    };
    let input = Input::open(&args.input)?;
    let written = options
        .pack_to_path(input.bytes(), &args.output)
        .map_err(|e| caller(&args.output, &e))?;
    writeln!(
        std::io::stdout(),
        "{}: packed {} bytes into {} bytes",
        args.output.display(),
        input.bytes().len(),
        written
    )
    .map_err(Failure::stdout)?;
    Ok(ExitCode::SUCCESS)
}

fn unpack(args: &UnpackArgs) -> Result<ExitCode, Failure> {
    refuse_overwrite(&args.output, args.force)?;
    let input = Input::open(&args.input)?;
    let file = parse(&input)?;
    let options = UnpackOptions::DEFAULT.threads(args.threads);
    let written = file
        .unpack_to_path(&args.output, options)
        .map_err(|e| match e {
            Error::Io(ref io) => Failure::io(&args.output, io),
            e => Failure::diagnostic(&args.input, &e),
        })?;
    writeln!(
        std::io::stdout(),
        "{}: unpacked {} bytes",
        args.output.display(),
        written
    )
    .map_err(Failure::stdout)?;
    Ok(ExitCode::SUCCESS)
}

fn append(args: &AppendArgs) -> Result<ExitCode, Failure> {
    let input = Input::open(&args.input)?;
    // The typesize comes from the file's header; BloscArgs needs a placeholder.
    let report = bloscpack_header::append_path(&args.file, input.bytes(), &args.blosc.args(8))
        .map_err(|e| Failure::diagnostic(&args.file, &e))?;
    writeln!(
        std::io::stdout(),
        "{}: appended {} bytes ({} new chunks; {} chunks, {} spare slots left)",
        args.file.display(),
        report.appended,
        report.new_chunks,
        report.header.raw_nchunks(),
        report.header.max_app_chunks()
    )
    .map_err(Failure::stdout)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1M"), Ok(1 << 20));
        assert_eq!(parse_size("512k"), Ok(512 << 10));
        assert_eq!(parse_size("100"), Ok(100));
        assert_eq!(parse_size("10B"), Ok(10));
        assert_eq!(parse_size("max"), Ok(2_147_483_631));
        assert!(parse_size("2G").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("1X").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
        assert!(parse_size("").is_err());
    }
}
