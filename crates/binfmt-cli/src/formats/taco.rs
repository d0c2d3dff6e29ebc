//! `binfmt` support for taco files. Not implemented yet.

use std::process::ExitCode;

use clap::Subcommand;

use crate::formats::{InspectOptions, Inspection};
use crate::input::Input;
use crate::report::{Failure, Problem};

/// The keys this format adds to `binfmt inspect --json`.
pub(crate) const JSON_HELP: &str = "taco: (not implemented yet)";

/// `binfmt taco …`.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {}

pub(crate) fn inspect(input: &Input, _options: &InspectOptions) -> Result<Inspection, Failure> {
    Err(Failure::file(
        input.path(),
        "taco support is not implemented yet",
    ))
}

pub(crate) fn verify(_input: &Input) -> Vec<Problem> {
    vec![Problem::new(
        None,
        "taco verification is not implemented yet",
    )]
}

pub(crate) fn run(command: Command) -> Result<ExitCode, Failure> {
    match command {}
}
