//! The `binfmt` command: inspect, verify and edit TACO, Bloscpack, kastore, MLDF and
//! .taridx files.
//!
//! This crate is the command; install it with `cargo install binfmt-cli` (the binary is
//! `binfmt`). The command line is a contract with users' scripts: subcommand names, flags,
//! exit codes and `--json` keys are documented in `--help` and in the README, and change
//! only in a major release. The library target exists so that the command's code paths can
//! be fuzzed ([`fuzzing`]); it is not an API.
#![forbid(unsafe_code)]
// A command-line program is std through and through; `core` paths would only add noise.
#![allow(clippy::std_instead_of_core, clippy::alloc_instead_of_core)]

mod cli;
mod escape;
mod formats;
mod input;
mod model;
mod registry;
mod report;
#[cfg(unix)]
mod signals;
mod write;

#[doc(hidden)]
pub mod fuzzing;

#[doc(hidden)]
pub use write::started_without_standard_output;

use std::process::ExitCode;

/// Runs `binfmt` with the process's arguments.
#[must_use]
pub fn main() -> ExitCode {
    #[cfg(unix)]
    signals::install();
    let matches = match cli::command().try_get_matches() {
        Ok(matches) => matches,
        // `--help` and `--version` (standard output) as clap prints them.
        Err(e) if !e.use_stderr() => e.exit(),
        // An argument error quotes the arguments: through the message sink, exit 2.
        Err(e) => {
            let code = e.exit_code();
            report::say(format_args!("{}", e.to_string().trim_end()));
            return ExitCode::from(u8::try_from(code).unwrap_or(report::EXIT_USAGE));
        }
    };
    let code = match cli::run(&matches) {
        Ok(code) => code,
        Err(failure) => {
            report::say(format_args!("binfmt: {failure}"));
            failure.exit_code()
        }
    };
    if matches.get_flag("stats") {
        for line in input::stats_lines() {
            report::say(format_args!("binfmt: stats: {line}"));
        }
    }
    code
}
