//! `binfmt` support for Bloscpack files: inspect, verify, pack, unpack, append.

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use binfmt_core::{Diagnostic as _, Fault, Severity, Summary};
use bloscpack_header::fs::AppendOptions;
use bloscpack_header::{
    BloscArgs, Bloscpack, Checksum, Compressor, Error, MetaCodec, Metadata, MetadataSection,
    PackOptions, ReadOptions, Shuffle, UnpackOptions,
};
use clap::{Args, FromArgMatches as _, Subcommand, ValueEnum};
use serde_json::Value;

use crate::escape;

use crate::input::{Cache, Input};
use crate::model::{Facts, Key, keys};
use crate::registry::{self, Format, InspectOptions, Inspection, Report};
use crate::report::{self, Failure, Problem};
use crate::write;

/// The Bloscpack entry of the registry.
pub(crate) static FORMAT: Format = registry::format_entry! {
    name: "bloscpack",
    about: "Bloscpack files: pack a file, unpack one, append to one in place.",
    noun: "a Bloscpack file",
    sniff: bloscpack_header::sniff,
    verify_reads_all: "blp",
};

const KEYS: &[Key] = keys! {
    "version": "\"3\" (or \"2\"): the format version, a string as every format's (Bloscpack \
                versions have no minor number)",
    "options": "the options byte: 0x01 offsets section, 0x02 metadata section",
    "checksum": "the chunk digest: \"None\", \"adler32\", \"crc32\", \"md5\", \"sha1\", \
                 \"sha224\", \"sha256\", \"sha384\" or \"sha512\"",
    "typesize": "the header's element size",
    "chunk_size": "uncompressed bytes per chunk (-1 = unknown)",
    "last_chunk": "uncompressed bytes of the last chunk (-1 = unknown)",
    "nchunks": "the number of chunks (-1 = unknown)",
    "max_app_chunks": "spare offset slots for appending",
    "offsets": "the used offset entries, each chunk's byte position ([] without an offsets \
                section)",
    "metadata": "the metadata's JSON value (null without a metadata section). Numbers appear \
                 exactly as stored, integers beyond 64 bits included (never rounded through \
                 a float); the non-finite floats Python's json module writes (NaN, Infinity, \
                 -Infinity, which JSON has no syntax for) appear as the strings \"NaN\", \
                 \"Infinity\" and \"-Infinity\". The text output shows the stored text itself",
    "chunks": "each chunk's position and its Blosc header, in file order" => keys! {
        "offset": "the byte at which the chunk starts",
        "nbytes": "uncompressed bytes",
        "cbytes": "compressed bytes (the Blosc buffer, without the digest)",
        "blocksize": "the Blosc block size",
        "typesize": "the Blosc element size",
        "flags": "the Blosc flags byte (codec in the top 3 bits, 0x01 byte shuffle, 0x02 \
                  stored uncompressed, 0x04 bit shuffle)",
    },
};

/// Characters of the metadata text shown by `inspect` in text (the model cuts too).
const METADATA_TEXT_CHARS: usize = 400;
/// Most bytes `fuzz` unpacks.
const FUZZ_MAX_LEN: u64 = 1 << 20;

/// `binfmt bloscpack …`.
#[derive(Debug, Subcommand)]
enum Command {
    /// Compress a file into a Bloscpack file (format 3), as bloscpack 0.16 does.
    ///
    /// The defaults are bloscpack's: 1 MiB chunks, typesize 8, blosclz level 7 with byte
    /// shuffle, adler32 digests, an offsets section with 10 spare slots per chunk.
    Pack(PackArgs),
    /// Decompress a Bloscpack file (format 2 or 3), checking every digest.
    ///
    /// Chunks are decompressed in parallel while the output is written. A file written by
    /// bloscpack 0.11 or 0.13 whose last chunk holds less than its header promises is
    /// unpacked to the bytes its chunks hold, with a message saying how many are missing.
    ///
    /// From a URL into a file, the file is checked and unpacked in one pass, from one
    /// request for the whole object (no request per chunk header), into a temporary file
    /// that replaces
    /// OUTPUT only when every check passed; a refused OUTPUT is then reported before a
    /// problem of the input. Into `-` or a FIFO, nothing is written before the whole
    /// structure is checked.
    Unpack(UnpackArgs),
    /// Append a file's bytes to a Bloscpack file in place, using its spare offset slots.
    ///
    /// Like bloscpack's append: the last chunk is topped up to chunk_size and
    /// recompressed, then new chunks are added. Fails, leaving FILE unchanged, when the
    /// file has no offsets section or too few spare slots. The file is locked while it
    /// is changed (a concurrent append waits for it) and the change is crash-consistent:
    /// an append that was interrupted (a crash, a full disk) is repaired first.
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
struct PackArgs {
    /// The file to compress (- for standard input).
    input: PathBuf,
    /// The Bloscpack file to write (- for standard output). A file is replaced
    /// atomically (a temporary file, then a rename), and only with --force.
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
    /// Store this JSON file's value as metadata (serialized compactly; numbers kept as
    /// written).
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
    /// Replace OUTPUT if it exists (through a symbolic link, its target; never the input).
    #[arg(long, short = 'f')]
    force: bool,
}

#[derive(Debug, Args)]
struct UnpackArgs {
    /// The Bloscpack file (- for standard input).
    input: PathBuf,
    /// Where to write the decompressed bytes (- for standard output). A file is replaced
    /// atomically (a temporary file, then a rename), and only with --force.
    output: PathBuf,
    /// Chunks decompressed at once; 0 (the default) uses every core, at most 8.
    #[arg(long, short = 'n', default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=256))]
    threads: u16,
    /// Replace OUTPUT if it exists (through a symbolic link, its target; never the input).
    #[arg(long, short = 'f')]
    force: bool,
}

#[derive(Debug, Args)]
struct AppendArgs {
    /// The Bloscpack file to extend, in place.
    file: PathBuf,
    /// The file whose bytes are appended (- for standard input).
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
            (s.get(..i).unwrap_or(""), shift)
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

/// `every_chunk`: the command reads every chunk after (`unpack`): the chunks are read ahead
/// while the parse fetches their headers.
fn parse<'c>(
    input: &Input,
    cache: &'c Cache<'_>,
    every_chunk: bool,
) -> Result<Bloscpack<'c, &'c Cache<'c>>, Failure> {
    Bloscpack::from_data_with(cache, &ReadOptions::new().read_every_chunk(every_chunk))
        .map_err(|e| Failure::diagnostic(input.name(), &e))
}

/// The metadata's JSON text (digest checked, Python's dialect validated), as stored.
fn metadata_text<'a>(section: &MetadataSection<'a>) -> Result<std::borrow::Cow<'a, str>, Error> {
    section.json(&ReadOptions::new())
}

/// Python-dialect JSON (already validated) as a JSON value: numbers exactly as written
/// (serde_json's `arbitrary_precision`), `NaN`, `Infinity` and `-Infinity` as strings.
fn metadata_value(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str(&quote_non_finite(text))
}

/// `text` with the bare tokens `NaN`, `Infinity` and `-Infinity` (outside strings)
/// quoted.
fn quote_non_finite(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("NaN") && !text.contains("Infinity") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len().saturating_add(16));
    let (mut in_string, mut escaped) = (false, false);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if let Some(token) = ["NaN", "Infinity", "-Infinity"]
            .into_iter()
            .find(|t| rest.starts_with(t))
        {
            out.push('"');
            out.push_str(token);
            out.push('"');
            rest = rest.get(token.len()..).unwrap_or("");
            continue;
        }
        out.push(c);
        rest = rest.get(c.len_utf8()..).unwrap_or("");
    }
    std::borrow::Cow::Owned(out)
}

/// A header count for text: `-1` is `unknown`.
fn count_text(v: i64) -> String {
    if v < 0 {
        format!("unknown ({v})")
    } else {
        v.to_string()
    }
}

/// `inspect`: the header, metadata, offsets and chunk headers, by range (under 1 % of
/// a large file); never the chunks' data.
fn inspect(input: &Input, _options: &InspectOptions) -> Result<Inspection, Failure> {
    let cache = input.cache();
    let file = parse(input, &cache, false)?;
    let h = file.header();
    let metadata = match file.metadata() {
        None => None,
        Some(section) => {
            let text = metadata_text(section).map_err(|e| Failure::diagnostic(input.name(), &e))?;
            let value = metadata_value(&text).map_err(|e| {
                Failure::file(
                    input.name(),
                    format!(
                        "byte {}: the metadata cannot be shown as JSON ({e})",
                        section.stored_offset()
                    ),
                )
            })?;
            Some((section, text, value))
        }
    };
    let mut options_text = format!("{:#04x}", h.options().bits());
    options_text.push_str(match (h.has_offsets(), h.has_metadata()) {
        (true, true) => " (offsets, metadata)",
        (true, false) => " (offsets)",
        (false, true) => " (metadata)",
        (false, false) => " (no sections)",
    });
    let mut facts = Facts::new();
    facts
        .value("version", h.version().to_string())
        .shown("options", h.options().bits(), options_text)
        .value("checksum", h.checksum().name())
        .value("typesize", h.typesize())
        .shown(
            "chunk_size",
            h.raw_chunk_size(),
            count_text(h.raw_chunk_size().into()),
        )
        .shown(
            "last_chunk",
            h.raw_last_chunk(),
            count_text(h.raw_last_chunk().into()),
        )
        .shown(
            "nchunks",
            h.raw_nchunks(),
            format!(
                "{} ({} bytes uncompressed, {} bytes in the file)",
                count_text(h.raw_nchunks()),
                file.uncompressed_len(),
                file.size()
            ),
        )
        .value("max_app_chunks", h.max_app_chunks())
        .value("offsets", file.offsets().collect::<Vec<u64>>());
    match metadata {
        None => facts.shown("metadata", Value::Null, "none"),
        Some((section, text, value)) => facts.shown(
            "metadata",
            value,
            format!(
                "{} bytes, {} {}, stored {} of {} bytes, {} digest: {}",
                section.meta_size(),
                escape::bytes(section.format()),
                section.codec().name(),
                section.meta_comp_size(),
                section.max_meta_size(),
                section.checksum(),
                escape::text_cut(&text, METADATA_TEXT_CHARS)
            ),
        ),
    };
    let chunks = file
        .chunks()
        .map(|c| {
            let b = c.header();
            Facts::build(|row| {
                row.value("offset", c.offset())
                    .value("nbytes", b.nbytes)
                    .value("cbytes", b.cbytes)
                    .value("blocksize", b.blocksize)
                    .value("typesize", b.typesize)
                    .shown(
                        "flags",
                        b.flags.bits(),
                        format!(
                            "{:#04x} {}, shuffle {}{}",
                            b.flags.bits(),
                            b.flags.codec(),
                            b.flags.shuffle(),
                            if b.flags.memcpyed() { ", stored" } else { "" }
                        ),
                    )
            })
        })
        .collect();
    facts.table("chunks", chunks);
    Ok(Inspection::with_warnings(facts, file.warnings()))
}

/// `verify`: every rule and digest, the chunks streamed by range through the cache
/// (memory does not grow with the file).
fn verify(input: &Input, report: &mut Report<'_>) -> Result<Summary, Failure> {
    let cache = input.cache();
    Ok(bloscpack_header::verify_data(
        &cache,
        &ReadOptions::new(),
        &mut registry::sink(report),
    ))
}

fn run(matches: &clap::ArgMatches) -> Result<ExitCode, Failure> {
    match Command::from_arg_matches(matches)? {
        Command::Pack(args) => pack(&args),
        Command::Unpack(args) => unpack(&args),
        Command::Append(args) => append(&args),
    }
}

/// A library error of a command that reads `input` and writes `output`: I/O errors are
/// the output's (the input was read before; standard output's rule for `-`), the rest
/// the input's.
fn failure(input: &Input, output: &Path, e: Error) -> Failure {
    if e.fault() == Fault::Io {
        write::failure(output, io::Error::from(e))
    } else {
        Failure::diagnostic(input.name(), &e)
    }
}

fn pack(args: &PackArgs) -> Result<ExitCode, Failure> {
    let metadata = match &args.metadata {
        Some(path) => {
            let file = Input::open(path)?;
            let value: Value = serde_json::from_slice(file.bytes()?)
                .map_err(|e| Failure::file(file.name(), format!("not valid JSON: {e}")))?;
            let json = serde_json::to_vec(&value).map_err(|e| Failure::file(file.name(), e))?;
            let mut m = Metadata::new(json);
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
        ..PackOptions::default()
    };
    let input = Input::open(&args.input)?;
    let data = input.bytes()?;
    // `-` and URLs too: OUT is compared with each input by device and inode.
    let inputs: Vec<&Path> = [Some(args.input.as_path()), args.metadata.as_deref()]
        .into_iter()
        .flatten()
        .collect();
    let mut output = write::open(&args.output, args.force, &inputs, false)?;
    let written = options
        .write_to(data, io::BufWriter::with_capacity(1 << 20, &mut output))
        .map_err(|e| match e.fault() {
            Fault::Io => write::failure(&args.output, io::Error::from(e)),
            // Every option of pack is an argument: one out of range is a usage error.
            Fault::Caller => Failure::usage(format!(
                "invalid arguments: {}; see binfmt bloscpack pack --help",
                e.message()
            )),
            _ => Failure::file(escape::path(&args.output), e),
        })?;
    write::commit(output, &args.output)?;
    report::say(format_args!(
        "{}: packed {} bytes into {written} bytes",
        escape::path(&args.output),
        data.len()
    ));
    Ok(ExitCode::SUCCESS)
}

fn unpack(args: &UnpackArgs) -> Result<ExitCode, Failure> {
    let into_file = !binfmt_core::output::names_a_stream(&args.output);
    let input = if into_file {
        Input::open_whole(&args.input)?
    } else {
        Input::open(&args.input)?
    };
    registry::expect(&input, &FORMAT)?;
    let cache = input.cache();
    if input.is_remote() && into_file {
        return unpack_in_one_pass(args, &input, &cache);
    }
    let file = parse(&input, &cache, true)?;
    // Everything that can be refused without decompressing is refused before OUTPUT is
    // touched; the output then grows as chunks are decompressed (nothing is allocated
    // from a header's sizes).
    for warning in file.warnings() {
        report::say(format_args!(
            "binfmt: {}: {}",
            input.name(),
            Problem::from_diagnostic(Severity::Warning, &warning)
        ));
    }
    let mut output = write::open(&args.output, args.force, &[input.arg()], false)?;
    let options = UnpackOptions::DEFAULT.threads(args.threads);
    let report = file
        .unpack_to_writer(io::BufWriter::with_capacity(1 << 20, &mut output), &options)
        .map_err(|e| failure(&input, &args.output, e))?;
    write::commit(output, &args.output)?;
    unpacked(args, &input, &report)
}

/// What `unpack` says on success (standard error): a short file, then the byte count.
fn unpacked(
    args: &UnpackArgs,
    input: &Input,
    report: &bloscpack_header::UnpackReport,
) -> Result<ExitCode, Failure> {
    let out = escape::path(&args.output);
    if report.shortfall > 0 {
        let promised = report.written.saturating_add(report.shortfall);
        report::say(format_args!(
            "binfmt: {}: the file is short: its header promises {promised} bytes, its chunks hold {} ({} missing, as bloscpack 0.11 and 0.13 wrote the last chunk); {out} has the {} bytes there are",
            input.name(),
            report.written,
            report.shortfall,
            report.written
        ));
    }
    report::say(format_args!("{out}: unpacked {} bytes", report.written));
    Ok(ExitCode::SUCCESS)
}

/// `unpack URL FILE`: parsed and unpacked in one pass (`Bloscpack::parse_and_unpack`),
/// each chunk read once as the read-ahead brings it (a URL: one streamed request), with
/// no request per chunk header.
/// The bytes go to the temporary file beside FILE, which is renamed into place only when
/// the whole file checked out: a problem anywhere leaves FILE as it was, as the two steps
/// do. The output is opened before the input is parsed, so a refused output (FILE exists,
/// no `--force`) is reported before a problem of the input; warnings come after the
/// bytes. A stream output (`-`, a FIFO) takes the two steps: nothing is written before
/// the structure is checked.
fn unpack_in_one_pass(
    args: &UnpackArgs,
    input: &Input,
    cache: &Cache<'_>,
) -> Result<ExitCode, Failure> {
    let mut output = write::open(&args.output, args.force, &[input.arg()], false)?;
    let options = UnpackOptions::DEFAULT.threads(args.threads);
    let read = ReadOptions::new().read_every_chunk(true);
    // An I/O error is the output's when a write failed, the input's otherwise.
    let mut sink = Tracked {
        inner: io::BufWriter::with_capacity(1 << 20, &mut output),
        failed: false,
    };
    let done = Bloscpack::parse_and_unpack(cache, &read, &options, &mut sink);
    let failed = sink.failed;
    drop(sink);
    let (file, report) = done.map_err(|e| {
        if failed {
            failure(input, &args.output, e)
        } else {
            Failure::diagnostic(input.name(), &e)
        }
    })?;
    for warning in file.warnings() {
        report::say(format_args!(
            "binfmt: {}: {}",
            input.name(),
            Problem::from_diagnostic(Severity::Warning, &warning)
        ));
    }
    write::commit(output, &args.output)?;
    unpacked(args, input, &report)
}

fn append(args: &AppendArgs) -> Result<ExitCode, Failure> {
    let name = escape::path(&args.file);
    if args.file.as_os_str() == "-" {
        return Err(Failure::usage(
            "append changes FILE in place; it cannot be standard input or output",
        ));
    }
    let input = Input::open(&args.input)?;
    if let Some(path) = input.path()
        && binfmt_core::output::is_same_file(path, &args.file).unwrap_or(false)
    {
        return Err(Failure::file(
            &name,
            "is also the input; append a copy of it instead",
        ));
    }
    let data = input.bytes()?;
    // The typesize comes from the file's header; BloscArgs needs a placeholder.
    let options = AppendOptions::new().blosc(args.blosc.args(8));
    let report = bloscpack_header::fs::append(&args.file, data, &options).map_err(|e| {
        if e.fault() == Fault::Io {
            Failure::file(&name, e.message())
        } else {
            registry::explain(&args.file, &FORMAT, Failure::diagnostic(&name, &e))
        }
    })?;
    if report.repaired {
        report::say(format_args!(
            "binfmt: {name}: repaired an interrupted append first"
        ));
    }
    report::say(format_args!(
        "{name}: appended {} bytes ({} new chunks; {} chunks, {} spare slots left)",
        report.appended,
        report.new_chunks,
        report.header.raw_nchunks(),
        report.header.max_app_chunks()
    ));
    Ok(ExitCode::SUCCESS)
}

/// `bloscpack unpack` into a sink (with a small limit), and the metadata as `inspect`
/// shows it.
fn fuzz(input: &Input) {
    let Ok(data) = input.bytes() else { return };
    let Ok(file) = Bloscpack::parse(data) else {
        return;
    };
    for warning in file.warnings() {
        let _ = Problem::from_diagnostic(Severity::Warning, &warning).to_string();
    }
    if let Some(section) = file.metadata()
        && let Ok(text) = metadata_text(section)
        && let Ok(value) = metadata_value(&text)
    {
        let _ = serde_json::to_writer(io::sink(), &value);
        let _ = escape::text_cut(&text, METADATA_TEXT_CHARS);
    }
    for threads in [1, 2] {
        let options = UnpackOptions::DEFAULT
            .max_len(FUZZ_MAX_LEN)
            .threads(threads);
        let _ = file.unpack_to_writer(io::sink(), &options);
    }
}

/// A writer that remembers whether a write failed.
struct Tracked<W> {
    inner: W,
    failed: bool,
}

impl<W: io::Write> io::Write for Tracked<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let r = self.inner.write(buf);
        self.failed |= r.is_err();
        r
    }
    fn flush(&mut self) -> io::Result<()> {
        let r = self.inner.flush();
        self.failed |= r.is_err();
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(parse_size("é").is_err());
    }

    #[test]
    fn python_json_becomes_json() {
        let text = r#"{"x":NaN,"y":[Infinity,-Infinity],"s":"NaN \"Infinity\"","big":123456789012345678901234567890,"f":1e-05}"#;
        let value = metadata_value(text).unwrap();
        assert_eq!(
            value.to_string(),
            r#"{"x":"NaN","y":["Infinity","-Infinity"],"s":"NaN \"Infinity\"","big":123456789012345678901234567890,"f":1e-05}"#
        );
        assert_eq!(quote_non_finite("[1, 2]"), "[1, 2]");
    }
}
