//! `binfmt taridx build`: index a fold's shards.

use std::io::{self, IsTerminal as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use taridx::{BuildOptions, Writer};

use crate::escape;
use crate::input::Input;
use crate::report::{self, Failure};
use crate::write;

/// The index to reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum Compat {
    /// glzn's own indexer, byte for byte (bugs included: every header is a row).
    Glzn,
}

#[derive(Debug, Args)]
pub(super) struct BuildArgs {
    /// Reproduce another indexer's output instead of strict mode.
    #[arg(long, value_enum, value_name = "INDEXER")]
    compat: Option<Compat>,
    /// Where to write the index (default: DIR/FOLD.taridx; - for standard output).
    /// Required with --shards.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// Replace OUT if it exists (through a symbolic link, its target; a shard is never replaced).
    #[arg(short = 'f', long)]
    force: bool,
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

/// The shards to index and where the index goes.
fn plan(args: BuildArgs) -> Result<(Vec<PathBuf>, PathBuf), Failure> {
    if !args.shards.is_empty() {
        let Some(output) = args.output else {
            return Err(Failure::usage(
                "--shards needs -o OUT: there is no fold to name the index after",
            ));
        };
        return Ok((args.shards, output));
    }
    let (Some(dir), Some(fold)) = (args.dir, args.fold) else {
        return Err(Failure::usage("give DIR and FOLD, or --shards"));
    };
    if fold.is_empty() || fold.contains(['_', '/']) {
        return Err(Failure::usage(format!(
            "\"{}\" is not a fold name: shards are FOLD_SUFFIX.tar with exactly one '_'",
            escape::text(&fold)
        )));
    }
    let shards = taridx::fs::fold_shards(&dir, &fold)
        .map_err(|e| Failure::diagnostic(escape::path(&dir), &e))?;
    if shards.is_empty() {
        return Err(Failure::file(
            escape::path(&dir),
            format!(
                "no shards of fold \"{0}\" (files named {0}_SUFFIX.tar)",
                escape::text(&fold)
            ),
        ));
    }
    let output = args
        .output
        .unwrap_or_else(|| dir.join(format!("{fold}.taridx")));
    Ok((shards, output))
}

/// A shard's name in the index's report: its file name.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

pub(super) fn run(args: BuildArgs) -> Result<ExitCode, Failure> {
    let options = match args.compat {
        Some(Compat::Glzn) => BuildOptions::glzn(),
        None => BuildOptions::strict().lossy_names(args.lossy_names),
    };
    let force = args.force;
    let (shards, out) = plan(args)?;
    // Refused before any shard is read: an existing index without --force, a shard.
    let inputs: Vec<&Path> = shards.iter().map(PathBuf::as_path).collect();
    let mut output = write::open(&out, force, &inputs, false)?;

    let progress = progress_bar(shards.len());
    let mut writer = Writer::new(options);
    for path in &shards {
        progress.set_message(escape::text_cut(&file_name(path), 64));
        let input = Input::open(path)?;
        writer
            .add(file_name(path), input.bytes()?)
            .map_err(|e| Failure::diagnostic(input.name(), &e))?;
        progress.inc(1);
    }
    progress.finish_and_clear();
    let taridx::Finished {
        index: file,
        report,
        ..
    } = writer
        .finish()
        .map_err(|e| Failure::diagnostic(escape::path(&out), &e))?;
    // Capped per kind by the library, names escaped and cut there.
    for message in report.skipped_messages() {
        report::say(format_args!("binfmt: skipped {message}"));
    }
    for message in report.warning_messages() {
        report::say(format_args!("binfmt: warning: {message}"));
    }
    let written = file.write_to(&mut output);
    let is_stdout = out.as_os_str() == "-";
    written.map_err(|e| match e.kind() {
        taridx::ErrorKind::Io(io) if is_stdout => {
            Failure::stdout(io::Error::new(io.source.kind(), io.source.to_string()))
        }
        _ => Failure::diagnostic(escape::path(&out), &e),
    })?;
    write::commit(output, &out)?;
    report::say(format_args!(
        "{}: {} rows, {} stems, {} extensions, {} shards ({} members skipped, {} warnings)",
        if is_stdout {
            "-".to_owned()
        } else {
            escape::path(&out)
        },
        file.rows().len(),
        file.n_stems(),
        file.extensions().len(),
        shards.len(),
        report.skipped_count(),
        report.warning_count()
    ));
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
