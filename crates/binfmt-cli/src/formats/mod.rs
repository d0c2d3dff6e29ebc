//! One module per format. Each provides the same four things:
//!
//! * `JSON_HELP`: the keys it adds to `binfmt inspect --json`, shown in `--help`;
//! * `inspect(&Input, &InspectOptions) -> Result<Inspection, Failure>`;
//! * `verify(&Input) -> Vec<Problem>`: every problem found, none for a valid file;
//! * `Command` (its subcommands) and `run(Command) -> Result<ExitCode, Failure>`.

pub(crate) mod bloscpack;
pub(crate) mod kastore;
pub(crate) mod mldf;
pub(crate) mod taco;
pub(crate) mod taridx;

use serde_json::{Map, Value};

use crate::detect::Format;
use crate::input::Input;
use crate::report::{Failure, Problem};

/// Flags of `binfmt inspect` that formats may use.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct InspectOptions {
    /// `--rows`: list every row of a .taridx index.
    pub(crate) rows: bool,
}

/// What `inspect` prints for one file.
#[derive(Debug, Default)]
pub(crate) struct Inspection {
    /// Keys after `"file"` and `"format"` in the `--json` object.
    pub(crate) json: Map<String, Value>,
    /// The readable summary: indented lines, each ending in `\n`.
    pub(crate) text: String,
}

pub(crate) fn inspect(
    format: Format,
    input: &Input,
    options: &InspectOptions,
) -> Result<Inspection, Failure> {
    match format {
        Format::Taco => taco::inspect(input, options),
        Format::Bloscpack => bloscpack::inspect(input, options),
        Format::Kastore => kastore::inspect(input, options),
        Format::Mldf => mldf::inspect(input, options),
        Format::Taridx => taridx::inspect(input, options),
    }
}

pub(crate) fn verify(format: Format, input: &Input) -> Vec<Problem> {
    match format {
        Format::Taco => taco::verify(input),
        Format::Bloscpack => bloscpack::verify(input),
        Format::Kastore => kastore::verify(input),
        Format::Mldf => mldf::verify(input),
        Format::Taridx => taridx::verify(input),
    }
}

/// The `--json` keys of every format, for `binfmt inspect --help`.
pub(crate) fn inspect_help() -> String {
    let mut help = String::from(
        "JSON output (--json): one object per line per file, in the order given. Every object \
         has \"file\" (the path as given) and \"format\" (\"taco\", \"bloscpack\", \"kastore\", \
         \"mldf\" or \"taridx\"; null when unknown). A file that cannot be read or parsed gets \
         {\"file\", \"format\", \"error\": MESSAGE} and the exit code is 1. The other keys, per format:\n",
    );
    for keys in [
        taco::JSON_HELP,
        bloscpack::JSON_HELP,
        kastore::JSON_HELP,
        mldf::JSON_HELP,
        taridx::JSON_HELP,
    ] {
        help.push('\n');
        help.push_str(keys);
        help.push('\n');
    }
    help
}
