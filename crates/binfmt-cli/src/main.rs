//! `binfmt`: inspect, verify and edit TACO, Bloscpack, kastore, MLDF and .taridx files.
// `unsafe` only in the audited `startup` module (docs/architecture.md).
#![deny(unsafe_code)]

#[allow(unsafe_code)]
mod startup;

fn main() -> std::process::ExitCode {
    binfmt_cli::main()
}
