//! `binfmt`: inspect, verify and edit TACO, Bloscpack, kastore, MLDF and .taridx files.
//!
//! The command line is a contract with users' scripts: subcommand names, flags, exit
//! codes and `--json` keys are documented in `--help` and in this crate's README, and
//! change only in a major release.
#![forbid(unsafe_code)]
// A command-line program is std through and through; `core` paths would only add noise.
#![allow(clippy::std_instead_of_core, clippy::alloc_instead_of_core)]

mod cli;
mod detect;
mod formats;
mod input;
mod report;

use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::parse();
    match cli::run(cli) {
        Ok(code) => code,
        Err(failure) => {
            crate::report::say(format_args!("binfmt: {failure}"));
            ExitCode::from(report::EXIT_PROBLEMS)
        }
    }
}
