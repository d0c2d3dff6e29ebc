//! `binfmt`: inspect, verify and edit TACO, Bloscpack, kastore, MLDF and .taridx files.
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    binfmt_cli::main()
}
