//! `binfmt` support for TACO archives (tacozip): inspect, verify, `taco create`,
//! `taco update`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::str::FromStr;

use binfmt_core::Summary;
use clap::{FromArgMatches as _, Subcommand};
use serde_json::Value;
use taco_header::fs::UpdateOptions;
use taco_header::{
    Archive, Entries, Entry, Error, ErrorKind, Header, ReadOptions, Writer, WriterOptions,
};

use crate::escape;
use crate::input::{Cache, Input};
use crate::model::{Facts, Key, keys};
use crate::registry::{self, Format, InspectOptions, Inspection, Report};
use crate::report::{Failure, Problem};
use crate::write;

/// The TACO entry of the registry.
pub(crate) static FORMAT: Format = registry::format_entry! {
    name: "taco",
    about: "TACO archives (tacozip): print the header alone, create an archive, update its header in place.",
    noun: "a TACO archive",
    sniff: taco_header::sniff,
    structure_at_end: ("taco", taco_header::TAIL_SIZE),
};

/// Members listed in the text rendering of `inspect` (`--json` lists every one): a
/// 70,000-member archive is a page of text, not 70,000 lines.
const TEXT_MEMBERS: usize = 32;

const KEYS: &[Key] = keys! {
    "count": "entries in the header (0..7)",
    "entries": "the first `count` header entries, in order" => keys! {
        "offset": "where the entry's bytes start",
        "length": "how many bytes",
    },
    "crc32": "the header's stored CRC-32",
    "version_needed": "10 (tacozip create) or 20 (tacozip serialize_header)",
    "members": "every member in central-directory order, TACO_HEADER first; null when the \
                file holds the header but no readable ZIP structure (e.g. the 157 bytes of a \
                range request), with \"members_error\"" => keys! {
        "name": "the member's name (invalid UTF-8 replaced by U+FFFD)",
        "size": "its uncompressed size",
        "data_offset": "where its stored data starts (null for a URL: it would cost a read \
                        of every member's local header)",
    },
    "members_error": "why the members could not be listed (only when \"members\" is null)",
    "zip64": "whether the archive has ZIP64 end records (null without members)",
};

/// `binfmt taco …`: read the header alone, create TACO archives, update their header in
/// place.
#[derive(Debug, Subcommand)]
enum Command {
    /// Print the TACO header alone: its entries, CRC-32 and version, checked.
    ///
    /// Reads the first 256 bytes and nothing else: for a URL, one GET of at most 256
    /// bytes (what tacoreader reads), whatever the archive's size. The header's CRC is
    /// checked; a header that fails it is an error (exit 1) — `binfmt inspect` shows it as
    /// it is. Text: one `key: value` line each, the entries as `offset length` rows;
    /// --json: one object with "file", "count", "entries" ([{"offset", "length"}]),
    /// "crc32" and "version_needed", as `inspect --json` names them.
    Header {
        /// The archive: a path, - for standard input, or a URL.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// One JSON object on standard output.
        #[arg(long)]
        json: bool,
    },
    /// Create a TACO archive: the header, then FILE... stored, in order.
    ///
    /// Each file is stored under its path as given (a leading "./" removed), or its file
    /// name with --strip-dirs. Absolute paths and ".." components are refused unless
    /// --verbatim-names. With no FILE the archive holds only the header (tacozip cannot
    /// make one; it is a valid TACO archive). OUT is written through a temporary file
    /// beside it and renamed into place, so it is never left half-written; an existing
    /// OUT is replaced only with --force (so `binfmt taco create precious.txt`, OUT
    /// forgotten, cannot empty precious.txt), and never when it is one of the FILEs.
    /// OUT `-` writes the archive to standard output. Timestamps are 1980-01-01, so the
    /// same inputs give the same bytes.
    Create {
        /// The archive to write (- for standard output).
        #[arg(value_name = "OUT")]
        out: PathBuf,
        /// A header entry, `OFFSET:LENGTH` in decimal; repeat for up to 7, in order.
        #[arg(long = "entry", value_name = "OFFSET:LENGTH")]
        entries: Vec<EntryArg>,
        /// Store each file under its file name only.
        #[arg(long)]
        strip_dirs: bool,
        /// Store names exactly as given, even absolute paths or ".." components.
        #[arg(long)]
        verbatim_names: bool,
        /// Replace OUT if it exists (through a symbolic link, its target; never a FILE).
        #[arg(short, long)]
        force: bool,
        /// The files to store (none: an archive holding only the header).
        #[arg(value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Replace the header's entries in place (124 bytes are written), or in a copy with
    /// --output.
    ///
    /// Checks the local header, the end records and the header's central-directory entry
    /// before writing anything; on any error the file is unchanged. With no --entry the
    /// header is reset to zero entries.
    ///
    /// In place, the update locks FILE (no two updates interleave) and is
    /// crash-consistent: its three writes (the CRC in the central directory, the
    /// entries, the header's CRC) are each synced before the next, so a crash or kill
    /// between them leaves an archive that `binfmt verify` reports as a "torn update"
    /// and that the next `binfmt taco update` repairs (with any entries). Readers of the
    /// header alone never see entries that do not match their CRC.
    Update {
        /// The archive to update (- for standard input, with --output).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// A header entry, `OFFSET:LENGTH` in decimal; repeat for up to 7, in order.
        #[arg(long = "entry", value_name = "OFFSET:LENGTH")]
        entries: Vec<EntryArg>,
        /// Write the updated archive to OUT (- for standard output) and leave FILE as it
        /// is.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// Replace OUT if it exists (with --output; through a symbolic link, its target).
        #[arg(short, long, requires = "output")]
        force: bool,
        /// Do not fsync after each write (in place only). The writes still happen in
        /// order, but a power failure may keep any subset of them.
        #[arg(long, conflicts_with = "output")]
        no_sync: bool,
    },
}

/// `OFFSET:LENGTH`, parsed by clap so that a malformed one is a usage error (exit 2).
#[derive(Debug, Clone, Copy)]
struct EntryArg(Entry);

impl FromStr for EntryArg {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let (offset, length) = s
            .split_once(':')
            .ok_or_else(|| format!("{s:?} is not OFFSET:LENGTH"))?;
        let number = |what: &str, v: &str| {
            v.parse::<u64>().map_err(|e| {
                format!("{what} {v:?} in {s:?}: {e} (expected a decimal number below 2^64)")
            })
        };
        Ok(EntryArg(Entry::new(
            number("offset", offset)?,
            number("length", length)?,
        )))
    }
}

/// The header entries of the `--entry` flags; more than 7 is an argument error.
fn entries(args: &[EntryArg]) -> Result<Entries, Failure> {
    let list: Vec<Entry> = args.iter().map(|a| a.0).collect();
    Entries::from_slice(&list).map_err(|e| Failure::usage(format!("--entry: {}", e.kind())))
}

fn run(matches: &clap::ArgMatches) -> Result<ExitCode, Failure> {
    match Command::from_arg_matches(matches)? {
        Command::Header { file, json } => header(&file, json),
        Command::Create {
            out,
            entries: args,
            strip_dirs,
            verbatim_names,
            force,
            files,
        } => create(
            &out,
            &entries(&args)?,
            strip_dirs,
            verbatim_names,
            force,
            &files,
        ),
        Command::Update {
            file,
            entries: args,
            output,
            force,
            no_sync,
        } => {
            let entries = entries(&args)?;
            match output {
                Some(out) => update_copy(&file, &entries, &out, force),
                None => update_in_place(&file, &entries, no_sync),
            }
        }
    }
}

/// `binfmt taco header FILE`: the header from the first bytes the input read at open
/// (one read, one GET for a URL), checked.
fn header(file: &Path, json: bool) -> Result<ExitCode, Failure> {
    let input = Input::open_with_head(file, crate::input::SMALL_HEAD_SIZE)?;
    registry::expect(&input, &FORMAT)?;
    let header = Header::parse_with(input.head(), &ReadOptions::new())
        .map_err(|e| Failure::diagnostic(input.name(), &e))?;
    let facts = header_facts(&header);
    let mut out = write::stdout()?;
    let written = if json {
        let mut object = serde_json::Map::new();
        object.insert("file".into(), Value::String(input.name().to_owned()));
        object.extend(facts.to_json());
        let line = escape::json_line(&Value::Object(object));
        writeln!(out, "{line}")
    } else {
        let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
        writeln!(out, "{}: taco header", input.name())
            .and_then(|()| facts.write_text_as(&mut out, 2, terminal))
    };
    written
        .and_then(|()| out.flush())
        .map_err(Failure::stdout)?;
    Ok(ExitCode::SUCCESS)
}

fn create(
    out: &Path,
    entries: &Entries,
    strip_dirs: bool,
    verbatim_names: bool,
    force: bool,
    files: &[PathBuf],
) -> Result<ExitCode, Failure> {
    let mut writer = Writer::new(*entries);
    writer.options(WriterOptions::new().verbatim_names(verbatim_names));
    for file in files {
        writer.add_file(member_name(file, strip_dirs)?, file);
    }
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let mut output = write::open(out, force, &inputs, true).map_err(|f| {
        if files.is_empty() && out.exists() && !force {
            // The likely slip: `binfmt taco create precious.txt`, OUT forgotten.
            Failure::file(
                escape::path(out),
                format!(
                    "{}; with no FILE the only argument is OUT (did you forget OUT?)",
                    f.message()
                ),
            )
        } else {
            f
        }
    })?;
    // The output seeks (a stream is spooled): each file is read once.
    writer
        .write_to_seekable(&mut output)
        .map_err(|e| create_failure(out, &e))?;
    write::commit(output, out)?;
    Ok(ExitCode::SUCCESS)
}

/// A failure of `taco create`: names (from the arguments) and the entry count are
/// argument errors; the rest names the file it is about.
fn create_failure(out: &Path, e: &Error) -> Failure {
    match e.kind() {
        ErrorKind::DuplicateName { .. }
        | ErrorKind::ReservedName
        | ErrorKind::BadName { .. }
        | ErrorKind::TooManyEntries { .. } => Failure::usage(escape::text(&e.to_string())),
        ErrorKind::Io(io) => match &io.path {
            Some(path) => Failure::file(escape::path(path), &io.source),
            None => write::failure(
                out,
                std::io::Error::new(io.source.kind(), io.source.to_string()),
            ),
        },
        ErrorKind::NotAFile { path, .. } => Failure::file(escape::path(path), "not a regular file"),
        ErrorKind::SourceChanged {
            path,
            expected,
            found,
            ..
        } => Failure::file(
            escape::path(path),
            format!(
                "the file changed while it was being archived ({expected} bytes expected, {found} read)"
            ),
        ),
        _ => Failure::diagnostic(escape::path(out), e),
    }
}

/// The member name for a file given on the command line.
fn member_name(path: &Path, strip_dirs: bool) -> Result<String, Failure> {
    let name = if strip_dirs {
        path.file_name().map(Path::new).unwrap_or(path)
    } else {
        path.strip_prefix(".").unwrap_or(path)
    };
    let name = name.to_str().ok_or_else(|| {
        Failure::usage(format!(
            "{}: the path is not valid UTF-8, which a ZIP member name must be",
            escape::path(path)
        ))
    })?;
    // ZIP names use '/', whatever the platform's separator.
    Ok(name.replace(std::path::MAIN_SEPARATOR, "/"))
}

/// `taco update FILE`: the library's locked, crash-consistent in-place update.
fn update_in_place(file: &Path, entries: &Entries, no_sync: bool) -> Result<ExitCode, Failure> {
    if file.as_os_str() == "-" {
        return Err(Failure::usage(
            "standard input cannot be updated in place; use --output OUT (or - for standard output)",
        ));
    }
    let options = UpdateOptions::new().sync(!no_sync);
    taco_header::fs::update_with(file, entries, &options).map_err(|e| {
        let failure = file_failure(&escape::path(file), &e);
        match e.kind() {
            ErrorKind::Io(_) => failure,
            _ => registry::explain(file, &FORMAT, failure),
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

/// `taco update FILE --output OUT`: the same checks and patch, on a copy.
fn update_copy(
    file: &Path,
    entries: &Entries,
    out: &Path,
    force: bool,
) -> Result<ExitCode, Failure> {
    let input = Input::open(file)?;
    registry::expect(&input, &FORMAT)?;
    let name = input.name().to_owned();
    let arg = input.arg().to_path_buf();
    let mut data = input.into_bytes()?;
    taco_header::update_in_memory(&mut data, entries).map_err(|e| file_failure(&name, &e))?;
    let mut output = write::open(out, force, &[arg.as_path()], false)?;
    std::io::Write::write_all(&mut output, &data).map_err(|e| write::failure(out, e))?;
    write::commit(output, out)?;
    Ok(ExitCode::SUCCESS)
}

/// A library error about the file the user named `name`: an I/O error without the path
/// the library adds (the name is in front already), the rest as `byte N: message`.
fn file_failure(name: &str, e: &Error) -> Failure {
    match e.kind() {
        ErrorKind::Io(io) => Failure::file(name, &io.source),
        _ => Failure::diagnostic(name, e),
    }
}

/// `binfmt inspect`: the header from the first bytes, the member list by ranges (the
/// tail, the central directory, one batch of local headers): never the whole file.
/// `inspect`: the header from detection's bytes, the members through the one view over
/// a range cache seeded with them (the tail, then the central directory if the tail
/// does not hold it; locally also the local headers, one coalesced batch).
fn inspect(input: &Input, options: &InspectOptions) -> Result<Inspection, Failure> {
    // The header as it is: a damaged CRC is `verify`'s business (and "members_error").
    let header = Header::parse_with(input.head(), &ReadOptions::new().checksums(false))
        .map_err(|e| Failure::diagnostic(input.name(), &e))?;
    let mut facts = header_facts(&header);
    let cache = input.cache();
    // The members with every check, as `Archive::parse` lists them: a header whose CRC
    // does not match (or a torn update) gives "members_error".
    let archive = Archive::from_data_with(&cache, &ReadOptions::new());
    let error = |e: &Error| Problem::from_diagnostic(binfmt_core::Severity::Error, e).to_string();
    // Over a network, a data offset costs a read of the member's local header: the
    // listing comes from the central directory alone and `data_offset` is null
    // (documented in --help).
    let with_offsets = !input.is_remote();
    let listed = archive.as_ref().map_err(error).and_then(|a| {
        member_facts(&mut facts, a, options.json, with_offsets).map_err(|e| error(&e))
    });
    if let Err(message) = listed {
        facts
            .value("members", Value::Null)
            .value("members_error", message)
            .value("zip64", Value::Null);
    }
    Ok(Inspection {
        facts,
        warnings: Vec::new(),
    })
}

/// The header's facts: `count`, `entries`, `crc32`, `version_needed`.
fn header_facts(header: &Header<'_>) -> Facts {
    let entries = header.entries();
    let rows = entries
        .as_slice()
        .iter()
        .map(|e| Facts::build(|row| row.value("offset", e.offset).value("length", e.length)))
        .collect();
    let mut facts = Facts::new();
    facts
        .value("count", entries.len())
        .table("entries", rows)
        .shown("crc32", header.crc32(), format!("{:#010x}", header.crc32()))
        .value("version_needed", header.version_needed());
    facts
}

/// The member table (every member for JSON, the first [`TEXT_MEMBERS`] for text: a
/// 70,000-member listing builds a page of rows, not 70,000) and `zip64`; with
/// `with_offsets` each member's data offset (its local header read), else null.
fn member_facts<'c>(
    facts: &mut Facts,
    archive: &Archive<'c, &'c Cache<'_>>,
    json: bool,
    with_offsets: bool,
) -> Result<(), Error> {
    let shown = if json { usize::MAX } else { TEXT_MEMBERS };
    let mut rows = Vec::new();
    let mut total = 0usize;
    if with_offsets {
        for member in archive.members() {
            let m = member?;
            total += 1;
            if rows.len() < shown {
                let mut row = Facts::with_capacity(3);
                row.value("name", m.name_lossy().into_owned())
                    .value("size", m.size())
                    .value("data_offset", m.data_offset());
                rows.push(row);
            }
        }
    } else {
        for entry in archive.central_entries() {
            let entry = entry?;
            total += 1;
            if rows.len() < shown {
                let mut row = Facts::with_capacity(3);
                row.value("name", String::from_utf8_lossy(entry.name).into_owned())
                    .value("size", entry.size)
                    .value("data_offset", Value::Null);
                rows.push(row);
            }
        }
    }
    facts
        .table_head("members", rows, total)
        .value("zip64", archive.directory().is_zip64());
    Ok(())
}

fn verify(input: &Input, report: &mut Report<'_>) -> Result<Summary, Failure> {
    registry::verify_with(input, report, |cache, options, sink| {
        taco_header::verify_data(cache, options, sink)
    })
}

/// The read paths of `inspect` and of `taco update --output` over one input, output
/// discarded: the header under every reading, the member listing and its rendering, the
/// bytes of a few members and header entries, and the update's checks on a copy.
fn fuzz(input: &Input) {
    let no_crc = ReadOptions::new().checksums(false);
    for options in [
        ReadOptions::new(),
        no_crc,
        ReadOptions::new().lenient(true).checksums(false),
    ] {
        if let Ok(header) = Header::parse_with(input.head(), &options) {
            let _ = header_facts(&header).write_text(&mut std::io::sink(), 2);
            for w in header.warnings() {
                let _ = Problem::from_diagnostic(binfmt_core::Severity::Warning, &w).to_string();
            }
        }
    }
    let cache = input.cache();
    if let Ok(archive) = Archive::from_data_with(&cache, &no_crc) {
        for (json, with_offsets) in [(false, true), (true, true), (true, false)] {
            let mut facts = Facts::new();
            let _ = member_facts(&mut facts, &archive, json, with_offsets);
            let _ = facts.write_json_members(&mut std::io::sink());
            let _ = facts.write_text_as(&mut std::io::sink(), 2, json);
        }
        for m in archive.members().take(8).flatten() {
            let _ = m.name_escaped().to_string();
            let _ = archive.read_data(&m);
        }
        for &entry in archive.header().entries().as_slice() {
            let _ = archive.read_entry(entry);
        }
    }
    if let Ok(data) = input.bytes() {
        let mut copy = data.to_vec();
        let _ = taco_header::update_in_memory(&mut copy, &Entries::new());
    }
}
