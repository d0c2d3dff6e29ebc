//! `binfmt` support for TACO archives (tacozip).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::str::FromStr;

use clap::Subcommand;
use serde_json::{Value, json};
use taco_header::{
    Archive, ArchiveBuilder, Check, CreateOptions, Entries, Entry, Header, Level, UpdateOptions,
};

use crate::formats::{InspectOptions, Inspection};
use crate::input::Input;
use crate::report::{Failure, Problem};

/// The keys this format adds to `binfmt inspect --json`.
pub(crate) const JSON_HELP: &str = "\
taco (tacozip archives):
  \"count\": N                 entries in the header (0..7)
  \"entries\": [{\"offset\": N, \"length\": N}, ...]   the first `count` slots, in order
  \"crc32\": N                 the header's stored CRC-32
  \"version_needed\": N        10 (tacozip create) or 20 (tacozip serialize_header)
  \"members\": [{\"name\": S, \"size\": N, \"data_offset\": N}, ...]
                             central-directory order, TACO_HEADER first; null when the
                             file holds the header but no readable ZIP structure (e.g. the
                             157 bytes of a range request), with \"members_error\": S
  \"zip64\": true|false        whether the archive has ZIP64 end records";

/// `binfmt taco …`: create TACO archives and update their header in place.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Create a TACO archive: the header, then FILE... stored, in order.
    ///
    /// Each file is stored under its path as given (a leading "./" removed), or its file
    /// name with --strip-dirs. Absolute paths and ".." components are refused unless
    /// --verbatim-names. The archive is written to a temporary file beside OUT and renamed
    /// into place, so OUT is never left half-written. Timestamps are 1980-01-01, so the same
    /// inputs give the same bytes.
    Create {
        /// The archive to write.
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
        /// The files to store (none: an archive holding only the header).
        #[arg(value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Replace the header's entries in place (124 bytes are written).
    ///
    /// Checks the local header, the end records and the header's central-directory entry
    /// before writing anything; on any error the file is unchanged. With no --entry the
    /// header is reset to zero entries.
    Update {
        /// The archive to update.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// A header entry, `OFFSET:LENGTH` in decimal; repeat for up to 7, in order.
        #[arg(long = "entry", value_name = "OFFSET:LENGTH")]
        entries: Vec<EntryArg>,
        /// Do not fsync after writing.
        #[arg(long)]
        no_sync: bool,
    },
}

/// `OFFSET:LENGTH`, parsed by clap so that a malformed one is a usage error (exit 2).
#[derive(Debug, Clone, Copy)]
pub(crate) struct EntryArg(Entry);

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

fn entries(args: &[EntryArg]) -> Result<Entries, Failure> {
    let list: Vec<Entry> = args.iter().map(|a| a.0).collect();
    Entries::from_slice(&list).map_err(|e| Failure::new(format!("--entry: {e}")))
}

pub(crate) fn run(command: Command) -> Result<ExitCode, Failure> {
    match command {
        Command::Create {
            out,
            entries: args,
            strip_dirs,
            verbatim_names,
            files,
        } => {
            let mut builder = ArchiveBuilder::new(entries(&args)?);
            builder.options(CreateOptions::default().verbatim_names(verbatim_names));
            for file in &files {
                builder.add_file(member_name(file, strip_dirs)?, file);
            }
            builder
                .write_to_path(&out)
                .map_err(|e| Failure::new(e.to_string()))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Update {
            file,
            entries: args,
            no_sync,
        } => {
            taco_header::update_with(&file, &entries(&args)?, &UpdateOptions::sync(!no_sync))
                .map_err(|e| Failure::diagnostic(&file, &e))?;
            Ok(ExitCode::SUCCESS)
        }
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
        Failure::file(
            path,
            "the path is not valid UTF-8, which a ZIP member name must be",
        )
    })?;
    // ZIP names use '/', whatever the platform's separator.
    Ok(name.replace(std::path::MAIN_SEPARATOR, "/"))
}

pub(crate) fn inspect(input: &Input, _options: &InspectOptions) -> Result<Inspection, Failure> {
    let data = input.bytes();
    // Inspect shows what is there: a damaged CRC is `verify`'s business.
    let header = Header::parse_with(data, Check::Structure)
        .map_err(|e| Failure::diagnostic(input.path(), &e))?;
    let mut json = serde_json::Map::new();
    let mut text = String::new();
    let entries = header.entries();
    json.insert("count".into(), json!(entries.len()));
    json.insert(
        "entries".into(),
        Value::Array(
            entries
                .as_slice()
                .iter()
                .map(|e| json!({"offset": e.offset, "length": e.length}))
                .collect(),
        ),
    );
    json.insert("crc32".into(), json!(header.crc32()));
    json.insert("version_needed".into(), json!(header.version_needed()));
    let _ = writeln!(
        text,
        "  header: {} entries, CRC-32 {:#010x}, version needed {}, modified {}",
        entries.len(),
        header.crc32(),
        header.version_needed(),
        header.modified()
    );
    for (i, e) in entries.as_slice().iter().enumerate() {
        let _ = writeln!(text, "  entry {i}: offset {} length {}", e.offset, e.length);
    }

    match Archive::parse(data).and_then(|archive| {
        let members = archive.members().collect::<Result<Vec<_>, _>>()?;
        Ok((archive.directory().is_zip64(), members))
    }) {
        Ok((zip64, members)) => {
            let _ = writeln!(
                text,
                "  members: {}{}",
                members.len(),
                if zip64 { " (ZIP64)" } else { "" }
            );
            let list = members
                .iter()
                .map(|m| {
                    let name = String::from_utf8_lossy(m.name);
                    let _ = writeln!(text, "    {name}: {} bytes at {}", m.size, m.data_offset);
                    json!({"name": name, "size": m.size, "data_offset": m.data_offset})
                })
                .collect();
            json.insert("members".into(), Value::Array(list));
            json.insert("zip64".into(), json!(zip64));
        }
        Err(e) => {
            let _ = writeln!(
                text,
                "  members: unavailable ({})",
                Problem::from_diagnostic(&e)
            );
            json.insert("members".into(), Value::Null);
            json.insert(
                "members_error".into(),
                json!(Problem::from_diagnostic(&e).to_string()),
            );
            json.insert("zip64".into(), Value::Null);
        }
    }
    Ok(Inspection { json, text })
}

pub(crate) fn verify(input: &Input) -> Vec<Problem> {
    let mut problems = Vec::new();
    match Archive::parse(input.bytes()) {
        Ok(archive) => archive.validate_each(Level::Deep, &mut |e| {
            problems.push(Problem::from_diagnostic(&e))
        }),
        Err(e) => problems.push(Problem::from_diagnostic(&e)),
    }
    problems
}
