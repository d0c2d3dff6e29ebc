//! The command-line grammar and the two format-independent commands.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use serde_json::{Map, Value};

use crate::detect::{self, Format};
use crate::formats::{self, InspectOptions};
use crate::input::Input;
use crate::report::{EXIT_PROBLEMS, Failure};

const ABOUT: &str = "Inspect, verify and edit TACO, Bloscpack, kastore, MLDF and .taridx files.";

const EXIT_CODES: &str = "\
Exit codes:
  0  success (for verify: every file is valid)
  1  a file is invalid, unreadable or of an unknown format, or a command failed
  2  bad command-line arguments";

/// `binfmt`: inspect, verify and edit binary data files.
#[derive(Debug, Parser)]
#[command(name = "binfmt", version, about = ABOUT, after_help = EXIT_CODES)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print a summary of each file; the format is detected from its first bytes.
    Inspect(InspectArgs),
    /// Check every structure and checksum of each file.
    ///
    /// Prints `FILE: OK (FORMAT)` on stdout for a valid file, and one line per problem,
    /// `FILE: byte N: MESSAGE`, on stderr. Exits 0 when every file is valid, 1 otherwise.
    Verify(VerifyArgs),
    /// TACO headers of tacozip archives: create an archive, update its header in place.
    #[command(subcommand)]
    Taco(formats::taco::Command),
    /// Bloscpack files.
    #[command(subcommand)]
    Bloscpack(formats::bloscpack::Command),
    /// kastore files (and tskit .trees files).
    #[command(subcommand)]
    Kastore(formats::kastore::Command),
    /// MLDF datasets.
    #[command(subcommand)]
    Mldf(formats::mldf::Command),
    /// .taridx indexes of tar shards.
    #[command(subcommand)]
    Taridx(formats::taridx::Command),
}

#[derive(Debug, Args)]
struct InspectArgs {
    /// Print one JSON object per line per file instead of a readable summary.
    #[arg(long)]
    json: bool,
    /// .taridx: also list every row (`"rows"` in JSON).
    #[arg(long)]
    rows: bool,
    /// Files to inspect.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
struct VerifyArgs {
    /// Files to verify.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// Parses the command line, with the `--json` keys of every format in `inspect --help`.
pub(crate) fn parse() -> Cli {
    let command =
        Cli::command().mut_subcommand("inspect", |c| c.after_long_help(formats::inspect_help()));
    let matches = command.get_matches();
    match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    }
}

pub(crate) fn run(cli: Cli) -> Result<ExitCode, Failure> {
    let result = match cli.command {
        Command::Inspect(args) => inspect(&args),
        Command::Verify(args) => verify(&args),
        Command::Taco(cmd) => formats::taco::run(cmd),
        Command::Bloscpack(cmd) => formats::bloscpack::run(cmd),
        Command::Kastore(cmd) => formats::kastore::run(cmd),
        Command::Mldf(cmd) => formats::mldf::run(cmd),
        Command::Taridx(cmd) => formats::taridx::run(cmd),
    };
    match result {
        // `binfmt inspect … | head`: the reader went away, which is not our failure.
        Err(f) if f.is_broken_pipe() => Ok(ExitCode::SUCCESS),
        other => other,
    }
}

fn open(path: &Path) -> Result<(Input, Format), Failure> {
    let input = Input::open(path)?;
    let head = input
        .bytes()
        .get(..detect::HEAD_LEN)
        .unwrap_or(input.bytes());
    match detect::detect(head) {
        Some(format) => Ok((input, format)),
        None => Err(Failure::file(
            path,
            format!(
                "unknown format (first bytes: {}); binfmt reads TACO, Bloscpack, kastore, MLDF and .taridx files",
                binfmt_core::Found::new(head)
            ),
        )),
    }
}

fn inspect(args: &InspectArgs) -> Result<ExitCode, Failure> {
    let options = InspectOptions { rows: args.rows };
    let mut out = io::BufWriter::new(io::stdout().lock());
    let mut all_ok = true;
    for path in &args.files {
        let mut object = Map::new();
        object.insert("file".into(), Value::String(path.display().to_string()));
        let result = open(path).and_then(|(input, format)| {
            object.insert("format".into(), Value::String(format.name().into()));
            formats::inspect(format, &input, &options)
        });
        match result {
            Ok(inspection) => {
                if args.json {
                    object.extend(inspection.json);
                    writeln!(out, "{}", Value::Object(object)).map_err(Failure::stdout)?;
                } else {
                    let format = object.get("format").and_then(Value::as_str).unwrap_or("?");
                    writeln!(out, "{}: {format}", path.display()).map_err(Failure::stdout)?;
                    out.write_all(inspection.text.as_bytes())
                        .map_err(Failure::stdout)?;
                }
            }
            Err(failure) => {
                all_ok = false;
                out.flush().map_err(Failure::stdout)?;
                crate::report::say(format_args!("binfmt: {failure}"));
                if args.json {
                    object.entry("format").or_insert(Value::Null);
                    object.insert("error".into(), Value::String(failure.message().to_string()));
                    writeln!(out, "{}", Value::Object(object)).map_err(Failure::stdout)?;
                }
            }
        }
    }
    out.flush().map_err(Failure::stdout)?;
    Ok(exit(all_ok))
}

fn verify(args: &VerifyArgs) -> Result<ExitCode, Failure> {
    let mut all_ok = true;
    for path in &args.files {
        match open(path) {
            Ok((input, format)) => {
                let problems = formats::verify(format, &input);
                if problems.is_empty() {
                    writeln!(io::stdout(), "{}: OK ({format})", path.display())
                        .map_err(Failure::stdout)?;
                }
                for problem in &problems {
                    all_ok = false;
                    crate::report::say(format_args!("{}: {problem}", path.display()));
                }
            }
            Err(failure) => {
                all_ok = false;
                crate::report::say(format_args!("{failure}"));
            }
        }
    }
    Ok(exit(all_ok))
}

fn exit(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_PROBLEMS)
    }
}
