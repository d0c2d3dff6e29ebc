//! `binfmt` support for .taridx indexes of tar shards: inspect, verify, build, get.

use core::fmt::Write as _;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Map, Value, json};
use taridx::{BuildOptions, Diagnostic, Entry, Index, IndexBuilder, StemMap, Verifier};

use crate::formats::{InspectOptions, Inspection};
use crate::input::Input;
use crate::report::{Failure, Problem};

/// The keys this format adds to `binfmt inspect --json`.
pub(crate) const JSON_HELP: &str = "\
taridx:
  \"version\": \"MAJOR.MINOR\"
  \"n_stems\", \"n_rows\": N       as stored (n_stems: distinct stems)
  \"extensions\": [S, ...]       in id order
  \"crash_stems\": [S, ...]      crash id k is element k-1
  \"contiguous\": true|false     flag bit 0 as stored: each stem's rows are adjacent
  \"rows\" (with --rows): [{\"fid\", \"offset\", \"size\", \"ext\", \"crashid\", \"keyhash\"}, ...]
                               in order: shard id; offset of the tar header before the
                               payload (the payload starts at offset + 512); payload bytes;
                               the extension string; 0 = canonical stem; XXH64 of the stem
                               as 16 lower-case hex digits (a JSON number would lose bits
                               in jq and JavaScript)";

/// How many row problems `verify` lists before summarising the rest.
const MAX_ROW_PROBLEMS: usize = 100;

/// `binfmt taridx …`.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Index the tar shards of a fold into a .taridx file.
    ///
    /// The shards of fold FOLD are the files DIR/FOLD_SUFFIX.tar (exactly one `_`),
    /// ordered by SUFFIX as strings; the index goes to DIR/FOLD.taridx unless -o is given.
    /// Strict mode (the default) indexes regular files only, follows every tar extension
    /// (ustar prefix, GNU long names, pax, base-256 sizes), checks header checksums and
    /// fails on truncation. Skipped members and warnings are printed on stderr; a summary
    /// line `OUT: N rows, N stems, N extensions, N shards` on stdout. Only tar headers are
    /// read. A progress bar is drawn on stderr when it is a terminal.
    Build(BuildArgs),
    /// Write the payload of one member to standard output.
    ///
    /// STEM selects the sample (the stem rule applies: text after the last `/`, up to
    /// the first `.`); --ext, or else an extension in STEM itself (`x.jpg`), selects the
    /// member. The shards are found next to the index (INDEX is DIR/FOLD.taridx, shards
    /// DIR/FOLD_*.tar) unless --shards is given. By default the member's name is checked
    /// in the shard, so a stem that merely shares a 64-bit hash with an indexed one is
    /// reported as absent.
    Get(GetArgs),
}

/// The index to reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Compat {
    /// glzn's own indexer, byte for byte (bugs included: every header is a row).
    Glzn,
}

#[derive(Debug, Args)]
pub(crate) struct BuildArgs {
    /// Reproduce another indexer's output instead of strict mode.
    #[arg(long, value_enum, value_name = "INDEXER")]
    compat: Option<Compat>,
    /// Where to write the index (default: DIR/FOLD.taridx). Required with --shards.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// Index these shards, in this order, instead of a fold's shards.
    #[arg(long, num_args = 1.., value_name = "SHARD", conflicts_with_all = ["dir", "fold"])]
    shards: Vec<PathBuf>,
    /// Strict mode: replace invalid UTF-8 in member names by U+FFFD instead of failing.
    #[arg(long)]
    lossy_names: bool,
    /// The directory holding the shards.
    #[arg(value_name = "DIR", required_unless_present = "shards")]
    dir: Option<PathBuf>,
    /// The fold name (`train` for train_0000.tar, train_0001.tar, …).
    #[arg(value_name = "FOLD", required_unless_present = "shards")]
    fold: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct GetArgs {
    /// The .taridx file.
    #[arg(value_name = "INDEX")]
    index: PathBuf,
    /// The sample's stem (or a member name; see above).
    #[arg(value_name = "STEM")]
    stem: String,
    /// The member's extension (`jpg`, `b.c.json`; compared in lower case).
    #[arg(long, value_name = "EXT")]
    ext: Option<String>,
    /// The fold's shards in shard-id order (default: found next to the index).
    #[arg(long, num_args = 1.., value_name = "SHARD")]
    shards: Vec<PathBuf>,
    /// Trust the keyhash: skip reading the member's name from its shard.
    #[arg(long)]
    no_verify: bool,
}

fn problem(err: &taridx::Error) -> Problem {
    Problem::new(err.offset(), err.to_string())
}

fn parse(input: &Input) -> Result<Index<'_>, Failure> {
    Index::parse(input.bytes()).map_err(|e| Failure::diagnostic(input.path(), &e))
}

pub(crate) fn inspect(input: &Input, options: &InspectOptions) -> Result<Inspection, Failure> {
    let index = parse(input)?;
    let exts: Vec<&str> = index.extensions().collect();
    let crash: Vec<&str> = index.crash_stems().collect();
    let mut json = Map::new();
    json.insert("version".into(), json!(index.version().to_string()));
    json.insert("n_stems".into(), json!(index.n_stems()));
    json.insert("n_rows".into(), json!(index.n_rows()));
    json.insert("extensions".into(), json!(exts));
    json.insert("crash_stems".into(), json!(crash));
    json.insert("contiguous".into(), json!(index.is_contiguous()));
    let mut text = String::new();
    let _ = writeln!(text, "  version:     {}", index.version());
    let _ = writeln!(
        text,
        "  rows:        {} ({} stems, {})",
        index.n_rows(),
        index.n_stems(),
        if index.is_contiguous() {
            "contiguous"
        } else {
            "not contiguous"
        }
    );
    let _ = writeln!(text, "  extensions:  {}", quoted_list(&exts));
    let _ = writeln!(text, "  crash stems: {}", quoted_list(&crash));
    if options.rows {
        let mut rows = Vec::new();
        let _ = writeln!(
            text,
            "  {:>8} {:>5} {:>12} {:>10} {:<10} {:>7} keyhash",
            "row", "fid", "offset", "size", "ext", "crashid"
        );
        for entry in index.entries() {
            let e = entry.map_err(|e| Failure::diagnostic(input.path(), &e))?;
            let ext = exts.get(usize::from(e.extid)).copied().unwrap_or("");
            let keyhash = format!("{:016x}", e.keyhash);
            let _ = writeln!(
                text,
                "  {:>8} {:>5} {:>12} {:>10} {:<10} {:>7} {keyhash}",
                e.row, e.fid, e.offset, e.size, ext, e.crashid
            );
            rows.push(json!({
                "fid": e.fid,
                "offset": e.offset,
                "size": e.size,
                "ext": ext,
                "crashid": e.crashid,
                "keyhash": keyhash,
            }));
        }
        json.insert("rows".into(), Value::Array(rows));
    }
    Ok(Inspection { json, text })
}

fn quoted_list(items: &[&str]) -> String {
    if items.is_empty() {
        return "(none)".into();
    }
    items
        .iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn verify(input: &Input) -> Vec<Problem> {
    let index = match Index::parse(input.bytes()) {
        Ok(index) => index,
        Err(e) => return vec![problem(&e)],
    };
    let mut problems = Vec::new();
    let mut bad_rows = 0usize;
    for entry in index.entries() {
        if let Err(e) = entry {
            bad_rows += 1;
            if bad_rows <= MAX_ROW_PROBLEMS {
                problems.push(problem(&e));
            }
        }
    }
    if bad_rows > MAX_ROW_PROBLEMS {
        problems.push(Problem::new(
            None,
            format!(
                "… and {} more rows with out-of-range ids",
                bad_rows - MAX_ROW_PROBLEMS
            ),
        ));
    }
    if bad_rows == 0 {
        // The deep checks need valid ids: n_stems and flag bit 0 against the rows.
        match StemMap::build(&index) {
            Ok(map) => {
                if index.n_stems() != map.distinct_stems() {
                    problems.push(problem(&taridx::Error::StemCount {
                        declared: index.n_stems(),
                        found: map.distinct_stems(),
                    }));
                }
                if index.is_contiguous() != map.is_contiguous() {
                    problems.push(problem(&taridx::Error::Flags {
                        declared: index.is_contiguous(),
                    }));
                }
            }
            Err(e) => problems.push(problem(&e)),
        }
    }
    problems
}

pub(crate) fn run(command: Command) -> Result<ExitCode, Failure> {
    match command {
        Command::Build(args) => build(args),
        Command::Get(args) => get(&args),
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn build(args: BuildArgs) -> Result<ExitCode, Failure> {
    let (shards, output) = if args.shards.is_empty() {
        let (Some(dir), Some(fold)) = (args.dir, args.fold) else {
            return Err(Failure::new("give DIR and FOLD, or --shards"));
        };
        if fold.is_empty() || fold.contains(['_', '/']) {
            return Err(Failure::new(format!(
                "{fold:?} is not a fold name: shards are FOLD_SUFFIX.tar with exactly one '_'"
            )));
        }
        let shards =
            taridx::fs::fold_shards(&dir, &fold).map_err(|e| Failure::new(e.to_string()))?;
        if shards.is_empty() {
            return Err(Failure::file(
                &dir,
                format!("no shards of fold {fold:?} (files named {fold}_SUFFIX.tar)"),
            ));
        }
        let output = args
            .output
            .unwrap_or_else(|| dir.join(format!("{fold}.taridx")));
        (shards, output)
    } else {
        let Some(output) = args.output else {
            return Err(Failure::new(
                "--shards needs -o OUT: there is no fold to name the index after",
            ));
        };
        (args.shards, output)
    };
    let options = match args.compat {
        Some(Compat::Glzn) => BuildOptions::glzn(),
        None => BuildOptions::strict().lossy_names(args.lossy_names),
    };
    let progress = progress_bar(shards.len());
    let mut builder = IndexBuilder::new(options);
    for path in &shards {
        progress.set_message(file_name(path));
        let data = taridx::fs::map(path).map_err(|e| Failure::new(e.to_string()))?;
        builder
            .add_shard(file_name(path), &data)
            .map_err(|e| Failure::diagnostic(path, &e))?;
        progress.inc(1);
    }
    progress.finish_and_clear();
    let (file, report) = builder.finish();
    let mut err = io::stderr().lock();
    for s in &report.skipped {
        let _ = writeln!(
            err,
            "binfmt: skipped {}: byte {}: {:?}: {}",
            report.shard_name(usize::from(s.shard)),
            s.offset,
            s.name,
            s.reason
        );
    }
    for message in report.warning_messages() {
        let _ = writeln!(err, "binfmt: warning: {message}");
    }
    file.write_to_path(&output)
        .map_err(|e| Failure::new(e.to_string()))?;
    writeln!(
        io::stdout(),
        "{}: {} rows, {} stems, {} extensions, {} shards ({} members skipped, {} warnings)",
        output.display(),
        file.rows().len(),
        file.n_stems(),
        file.extensions().len(),
        shards.len(),
        report.skipped.len(),
        report.warnings.len()
    )
    .map_err(Failure::stdout)?;
    Ok(ExitCode::SUCCESS)
}

fn progress_bar(shards: usize) -> indicatif::ProgressBar {
    if shards < 2 || !io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(u64::try_from(shards).unwrap_or(u64::MAX));
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "indexing {bar:30} {pos}/{len} shards, {per_sec}, eta {eta} {msg}",
    ) {
        bar.set_style(style);
    }
    bar
}

fn get(args: &GetArgs) -> Result<ExitCode, Failure> {
    let input = Input::open(&args.index)?;
    let index = parse(&input)?;
    let map = StemMap::build(&index).map_err(|e| Failure::diagnostic(&args.index, &e))?;
    let query_ext = taridx::extension(&args.stem);
    let wanted = match &args.ext {
        Some(ext) => Some(ext.to_lowercase()),
        None if !query_ext.is_empty() => Some(query_ext.into_owned()),
        None => None,
    };
    let shards = if args.shards.is_empty() {
        taridx::fs::shards_of_index(&args.index).map_err(|e| Failure::new(e.to_string()))?
    } else {
        args.shards.clone()
    };
    let stem = taridx::stem(&args.stem);
    let mut verifier = Verifier::new();
    let mut candidates: Vec<Entry> = Vec::new();
    for entry in map.lookup(stem) {
        let ext = map.extension(entry.extid).unwrap_or("");
        if wanted.as_deref().is_some_and(|w| w != ext) {
            continue;
        }
        let shard = shard_path(&shards, entry.fid)?;
        if !args.no_verify && !verifier.has_shard(entry.fid) {
            let data = taridx::fs::map(shard).map_err(|e| Failure::new(e.to_string()))?;
            verifier
                .add_shard(entry.fid, &data)
                .map_err(|e| Failure::diagnostic(shard, &e))?;
        }
        let verified = args.no_verify
            || verifier
                .name_at(entry.fid, entry.offset)
                .is_some_and(|name| taridx::stem(name) == stem);
        if verified {
            candidates.push(entry);
        }
    }
    let Some(first) = candidates.first().copied() else {
        let what = match &wanted {
            Some(ext) => format!("no member {stem:?} with extension {ext:?}"),
            None => format!("no sample {stem:?}"),
        };
        return Err(Failure::file(&args.index, what));
    };
    let mut exts: Vec<&str> = Vec::new();
    for e in &candidates {
        let ext = map.extension(e.extid).unwrap_or("");
        if !exts.contains(&ext) {
            exts.push(ext);
        }
    }
    if wanted.is_none() && exts.len() > 1 {
        return Err(Failure::file(
            &args.index,
            format!(
                "sample {stem:?} has {} members ({}); choose one with --ext",
                exts.len(),
                exts.join(", ")
            ),
        ));
    }
    if candidates.len() > 1 {
        crate::report::say(format_args!(
            "binfmt: warning: {stem:?} has {} members with extension {:?}; writing the first (row {})",
            candidates.len(),
            exts.first().copied().unwrap_or(""),
            first.row
        ));
    }
    let shard = shard_path(&shards, first.fid)?;
    let mut out = io::stdout().lock();
    taridx::fs::copy_payload(shard, &first, &mut out).map_err(|e| match e {
        taridx::Error::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe => {
            Failure::stdout(source)
        }
        other => Failure::diagnostic(shard, &other),
    })?;
    out.flush().map_err(Failure::stdout)?;
    Ok(ExitCode::SUCCESS)
}

fn shard_path(shards: &[PathBuf], fid: u16) -> Result<&Path, Failure> {
    shards.get(usize::from(fid)).map(PathBuf::as_path).ok_or_else(|| {
        Failure::new(format!(
            "the index refers to shard {fid}, but only {} shards were found (give them with --shards)",
            shards.len()
        ))
    })
}
