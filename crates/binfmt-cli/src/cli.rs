//! The command-line grammar, built from the registry, and the two format-independent
//! commands, `inspect` and `verify`.

use std::io::{self, Write};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgMatches, Args, Command, FromArgMatches};
use serde_json::{Map, Value, json};

use crate::input::{FirstRead, Input};
use crate::model::keys_help;
use crate::registry::{self, FORMATS, Format, InspectOptions};
use crate::report::{self, Failure, Problem};

const ABOUT: &str = "Inspect, verify and edit TACO, Bloscpack, kastore, MLDF and .taridx files.";

const EXIT_CODES: &str = "\
Exit codes:
  0  success (for verify: every file is valid; warnings count only with --strict)
  1  a file is invalid, unreadable or of an unknown format, or a command failed
  2  bad command-line arguments

FILE arguments: a path, - for standard input, or a URL: s3://BUCKET/KEY, gs://BUCKET/KEY,
az://CONTAINER/BLOB, http(s)://HOST/PATH, file:///PATH. URLs are read by range (only what
a command needs; from a server that ignores ranges, in order, as standard input is),
configured by the object stores' usual environment variables
(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT, AWS_ALLOW_HTTP,
GOOGLE_SERVICE_ACCOUNT, AZURE_STORAGE_ACCOUNT_NAME, …) and the BINFMT_REMOTE_* settings
(listed by binfmt --help).
Data and JSON go to standard output; messages go to standard error.";

/// `--help`'s closing text: [`EXIT_CODES`] and, with URL support, every `BINFMT_REMOTE_*`
/// setting with what it does (an installed binary has no docs/remote.md beside it).
fn long_after_help() -> String {
    let help = EXIT_CODES.to_owned();
    #[cfg(feature = "remote")]
    let help = {
        let mut help = help;
        help.push_str("\n\nRemote settings (environment variables):\n");
        for (name, what) in binfmt_remote::ENV_VARS {
            help.push_str(&format!("  {name}: {what}\n"));
        }
        help
    };
    help
}

#[derive(Debug, Args)]
struct InspectArgs {
    /// Print one JSON object per line per file instead of a readable summary.
    #[arg(long)]
    json: bool,
    /// .taridx: also list every row (`"rows"` in JSON).
    #[arg(long)]
    rows: bool,
    /// Files to inspect (- for standard input).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
struct VerifyArgs {
    /// Print one JSON object per line per file instead of lines of text.
    #[arg(long)]
    json: bool,
    /// Show at most N problems (and N warnings) per file; the rest are counted.
    #[arg(long, value_name = "N", default_value_t = 100)]
    max_problems: u64,
    /// Count warnings as problems: a file with warnings is not valid (exit 1).
    #[arg(long)]
    strict: bool,
    /// Files to verify (- for standard input).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

const VERIFY_HELP: &str = "\
Output: for each valid file, `FILE: OK (FORMAT)` on standard output. Every problem is one
line on standard error, `FILE: byte N: MESSAGE` (or `FILE: MESSAGE` when the problem has no
position), and every warning (something worth knowing that does not make the file invalid,
nor change the exit code, unless --strict) `FILE: warning: byte N: MESSAGE`. Past --max-problems, one line `FILE: … and K more
problems` counts the rest.

JSON output (--json): one object per line per file: \"file\", \"format\" (null when
unknown), \"valid\" (true or false), \"errors\" and \"warnings\" (lists of {\"offset\": N or
null, \"message\": TEXT}, at most --max-problems each), \"more_errors\" and
\"more_warnings\" (counts past the cap); a file that cannot be read or has no known format
also has \"error\": MESSAGE.

A URL is read by range: what the checks need. A URL whose name ends in .blp (a Bloscpack
file: every chunk digest is checked) is read with one request for the whole object, the
chunks checked as they arrive. A URL whose name ends in .taco (a TACO archive) has its last
64 KiB asked for with its first bytes, at the same time.";

/// The whole grammar: `inspect`, `verify`, then one subcommand per format.
pub(crate) fn command() -> Command {
    let mut command = Command::new("binfmt")
        .version(env!("CARGO_PKG_VERSION"))
        .about(ABOUT)
        .after_help(EXIT_CODES)
        .after_long_help(long_after_help())
        .subcommand_required(true)
        .arg_required_else_help(true)
        .arg(
            clap::Arg::new("stats")
                .long("stats")
                .global(true)
                .action(clap::ArgAction::SetTrue)
                .help(
                    "At the end, print to standard error what was read from each input: \
                     `binfmt: stats: FILE: N reads, B bytes`, or for a URL \
                     `binfmt: stats: URL: N requests (H HEAD, T HTTP with retries), B bytes`",
                ),
        )
        .subcommand(
            InspectArgs::augment_args(Command::new("inspect"))
                .about("Print a summary of each file; the format is detected from its first bytes.")
                .after_long_help(inspect_help()),
        )
        .subcommand(
            VerifyArgs::augment_args(Command::new("verify"))
                .about("Check every structure and checksum of each file.")
                .after_long_help(VERIFY_HELP),
        );
    for format in FORMATS {
        let sub = Command::new(format.name)
            .about(format.about)
            .subcommand_required(true)
            .arg_required_else_help(true);
        // The registry's line, not the subcommand enum's doc comment, which clap's derive
        // would otherwise put in its place.
        command = command.subcommand((format.command)(sub).about(format.about));
    }
    command
        .subcommand(
            Command::new("completions")
                .about("Print a completion script for SHELL (bash, zsh, fish, elvish, powershell).")
                .after_long_help(COMPLETIONS_HELP)
                .arg(
                    clap::Arg::new("shell")
                        .value_name("SHELL")
                        .required(true)
                        .value_parser(clap::value_parser!(clap_complete::Shell)),
                ),
        )
        .subcommand(
            Command::new("man")
                .about("Print the man page of binfmt, or of one of its commands, in roff.")
                .after_long_help(MAN_HELP)
                .arg(
                    clap::Arg::new("command")
                        .value_name("COMMAND")
                        .num_args(0..)
                        .help("The command whose page to print (`taco update`: binfmt-taco-update(1))"),
                ),
        )
}

const COMPLETIONS_HELP: &str = "\
The script is generated from the same definitions as --help, and goes to standard output;
its text is not part of the contract (it follows the clap version). Install it with, e.g.:

  binfmt completions bash > ~/.local/share/bash-completion/completions/binfmt
  binfmt completions zsh > \"${fpath[1]}/_binfmt\"
  binfmt completions fish > ~/.config/fish/completions/binfmt.fish";

const MAN_HELP: &str = "\
The page is generated from the same definitions as --help, and goes to standard output
(roff; its text is not part of the contract). For every page:

  for c in '' inspect verify taco 'taco update' …; do binfmt man $c > …; done

or view one with `binfmt man taco update | man -l -`.";

/// `binfmt completions SHELL`: the completion script, on standard output.
fn completions(m: &ArgMatches) -> Result<ExitCode, Failure> {
    let shell = m
        .get_one::<clap_complete::Shell>("shell")
        .copied()
        .ok_or_else(|| Failure::usage("a SHELL is required; see binfmt completions --help"))?;
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command(), "binfmt", &mut script);
    print(&script)
}

/// `binfmt man [COMMAND]…`: the man page of binfmt or of one of its commands, in roff.
fn man(m: &ArgMatches) -> Result<ExitCode, Failure> {
    // Built, so that each command knows its full name (`binfmt-taco-update`), and without
    // the `help` subcommand, as clap_mangen's own `generate_to` does.
    let mut page_of = command().disable_help_subcommand(true);
    page_of.build();
    let mut path = String::from("binfmt");
    for name in m.get_many::<String>("command").into_iter().flatten() {
        path = format!("{path} {name}");
        let Some(sub) = page_of.find_subcommand(name) else {
            return Err(Failure::usage(format!(
                "no command `{path}`; see binfmt --help"
            )));
        };
        page_of = sub.clone();
    }
    let mut page = Vec::new();
    clap_mangen::Man::new(page_of)
        .render(&mut page)
        .map_err(Failure::stdout)?;
    print(&page)
}

/// Writes generated text to standard output (its rules: a reader that closes it early
/// ends the command quietly).
fn print(bytes: &[u8]) -> Result<ExitCode, Failure> {
    let mut out = crate::write::stdout()?;
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(Failure::stdout)?;
    Ok(ExitCode::SUCCESS)
}

/// The `--json` keys of every format, for `binfmt inspect --help`.
pub(crate) fn inspect_help() -> String {
    let mut help = format!(
        "JSON output (--json): one object per line per file, in the order given. Every object \
         has \"file\" (the file as named) and \"format\" ({}; null when unknown), and \
         \"warnings\" (a list of {{\"offset\": N or null, \"message\": TEXT}}) when there are \
         any. A file that cannot be read or parsed gets {{\"file\", \"format\", \"error\": \
         MESSAGE}} and the exit code is 1. The other keys, per format:\n",
        registry::names()
    );
    for format in FORMATS {
        help.push('\n');
        help.push_str(&keys_help(format.name, format.keys));
    }
    help.push_str(
        "\nA URL is read by range: the metadata only. A URL whose name ends in .taco (a TACO \
         archive: its end records and directory are at its end) has its last 64 KiB asked for \
         with its first bytes, at the same time: one round trip fewer.",
    );
    help
}

/// Runs the command line.
pub(crate) fn run(matches: &ArgMatches) -> Result<ExitCode, Failure> {
    let result = match matches.subcommand() {
        Some(("inspect", m)) => inspect(&InspectArgs::from_arg_matches(m)?),
        Some(("verify", m)) => verify(&VerifyArgs::from_arg_matches(m)?),
        Some(("completions", m)) => completions(m),
        Some(("man", m)) => man(m),
        Some((name, m)) => match registry::by_name(name) {
            Some(format) => (format.run)(m),
            None => Err(Failure::usage(format!("unknown command {name}"))),
        },
        None => Err(Failure::usage("a command is required; see binfmt --help")),
    };
    match result {
        Err(f) if f.is_broken_pipe() => Ok(ExitCode::SUCCESS),
        other => other,
    }
}

/// Opens a file, a URL's first request asking for `first`, and detects its format.
fn open(path: &std::path::Path, first: FirstRead) -> Result<(Input, &'static Format), Failure> {
    let input = Input::open_for(path, first)?;
    match registry::detect(input.head()) {
        Some(format) => Ok((input, format)),
        None if input.head().is_empty() => Err(Failure::file(input.name(), "empty file")),
        None => {
            let head = input.head().get(..16).unwrap_or(input.head());
            Err(Failure::file(
                input.name(),
                format!(
                    "unknown format (first bytes: {}); binfmt reads TACO, Bloscpack, kastore, MLDF and .taridx files",
                    binfmt_core::Found::new(head)
                ),
            ))
        }
    }
}

fn problem_json(p: &Problem) -> Value {
    json!({"offset": p.offset(), "message": p.message()})
}

fn inspect(args: &InspectArgs) -> Result<ExitCode, Failure> {
    let options = InspectOptions {
        rows: args.rows,
        json: args.json,
    };
    let stdout = crate::write::stdout()?;
    // Names and text from the files are escaped for a terminal only (as `ls` does).
    let terminal = io::IsTerminal::is_terminal(&stdout);
    let mut out = io::BufWriter::new(stdout);
    let mut all_ok = true;
    for path in &args.files {
        let mut object = Map::new();
        object.insert("file".into(), Value::String(crate::escape::path(path)));
        let result = open(path, registry::first_read(path, false)).and_then(|(input, format)| {
            object.insert("format".into(), Value::String(format.name.into()));
            (format.inspect)(&input, &options).map(|i| (input, i))
        });
        match result {
            Ok((input, inspection)) => {
                for warning in &inspection.warnings {
                    report::say(format_args!("binfmt: {}: {warning}", input.name()));
                }
                if args.json {
                    // Streamed: `{"file":…,"format":…,` then the facts as they are walked
                    // (never a second copy of a 70,000-row table), then "warnings".
                    let head = Value::Object(object).to_string();
                    let head = head.strip_suffix('}').unwrap_or(&head);
                    let line = |out: &mut dyn Write| -> io::Result<()> {
                        out.write_all(head.as_bytes())?;
                        if !inspection.facts.items().is_empty() {
                            out.write_all(b",")?;
                        }
                        inspection.facts.write_json_members(out)?;
                        if !inspection.warnings.is_empty() {
                            let list: Vec<Value> =
                                inspection.warnings.iter().map(problem_json).collect();
                            out.write_all(b",\"warnings\":")?;
                            serde_json::to_writer(&mut *out, &list)?;
                        }
                        out.write_all(b"}\n")
                    };
                    let mut safe = crate::escape::JsonSafe::new(&mut out);
                    line(&mut safe)
                        .and_then(|()| safe.flush())
                        .map_err(Failure::stdout)?;
                } else {
                    let format = object.get("format").and_then(Value::as_str).unwrap_or("?");
                    writeln!(out, "{}: {format}", input.name()).map_err(Failure::stdout)?;
                    inspection
                        .facts
                        .write_text_as(&mut out, 2, terminal)
                        .map_err(Failure::stdout)?;
                }
            }
            Err(failure) => {
                all_ok = false;
                out.flush().map_err(Failure::stdout)?;
                report::say(format_args!("binfmt: {failure}"));
                if args.json {
                    object.entry("format").or_insert(Value::Null);
                    object.insert("error".into(), Value::String(failure.message().to_owned()));
                    let line = crate::escape::json_line(&Value::Object(object));
                    writeln!(out, "{line}").map_err(Failure::stdout)?;
                }
            }
        }
    }
    out.flush().map_err(Failure::stdout)?;
    Ok(exit(all_ok))
}

/// What `verify` keeps of one file's findings: the first `cap` of each kind.
#[derive(Debug, Default)]
struct Kept {
    errors: Vec<Problem>,
    warnings: Vec<Problem>,
    more_errors: u64,
    more_warnings: u64,
}

fn verify(args: &VerifyArgs) -> Result<ExitCode, Failure> {
    let mut stdout = crate::write::stdout()?;
    let cap = usize::try_from(args.max_problems).unwrap_or(usize::MAX);
    let mut all_ok = true;
    for path in &args.files {
        let mut kept = Kept::default();
        let mut record = |p: Problem| {
            let (list, more) = match p.severity() {
                binfmt_core::Severity::Error => (&mut kept.errors, &mut kept.more_errors),
                binfmt_core::Severity::Warning => (&mut kept.warnings, &mut kept.more_warnings),
            };
            if list.len() < cap {
                list.push(p);
            } else {
                *more = more.saturating_add(1);
            }
            ControlFlow::Continue(())
        };
        let outcome = open(path, registry::first_read(path, true)).and_then(|(input, format)| {
            if format.verify_reads_all.is_none() {
                input.not_whole();
            }
            let summary = (format.verify)(&input, &mut record)?;
            Ok((input, format, summary))
        });
        let name = crate::escape::path(path);
        match outcome {
            Ok((input, format, summary)) => {
                // Warnings leave the file valid (and the exit code 0) unless --strict.
                let valid = summary.is_valid() && !(args.strict && summary.warnings() > 0);
                all_ok &= valid;
                if args.json {
                    let line = json!({
                        "file": input.name(),
                        "format": format.name,
                        "valid": valid,
                        "errors": kept.errors.iter().map(problem_json).collect::<Vec<_>>(),
                        "warnings": kept.warnings.iter().map(problem_json).collect::<Vec<_>>(),
                        "more_errors": kept.more_errors,
                        "more_warnings": kept.more_warnings,
                    });
                    writeln!(stdout, "{}", crate::escape::json_line(&line))
                        .map_err(Failure::stdout)?;
                    continue;
                }
                for p in kept.errors.iter().chain(&kept.warnings) {
                    report::say(format_args!("{}: {p}", input.name()));
                }
                for (more, what) in [
                    (kept.more_errors, "problems"),
                    (kept.more_warnings, "warnings"),
                ] {
                    if more > 0 {
                        report::say(format_args!(
                            "{}: … and {more} more {what} (--max-problems)",
                            input.name()
                        ));
                    }
                }
                if valid {
                    writeln!(stdout, "{}: OK ({})", input.name(), format.name)
                        .map_err(Failure::stdout)?;
                }
            }
            Err(failure) => {
                all_ok = false;
                if args.json {
                    let line = json!({
                        "file": name,
                        "format": Value::Null,
                        "valid": false,
                        "errors": [],
                        "warnings": [],
                        "more_errors": 0,
                        "more_warnings": 0,
                        "error": failure.message(),
                    });
                    writeln!(stdout, "{}", crate::escape::json_line(&line))
                        .map_err(Failure::stdout)?;
                } else {
                    report::say(format_args!("{failure}"));
                }
            }
        }
    }
    Ok(exit(all_ok))
}

fn exit(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(report::EXIT_PROBLEMS)
    }
}
