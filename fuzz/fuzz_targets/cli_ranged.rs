#![no_main]
//! `binfmt inspect`, `verify` and each format's subcommands over arbitrary bytes read the
//! way a file, a URL and a pipe are read: by range through the views' `ReadCache`, and as
//! a stream that spills to a temporary file (`binfmt_cli::fuzzing::ranged`). The slice
//! targets (`cli_inspect`, `cli_verify`, `cli_commands`) take the in-memory paths; this one
//! takes the cache's. Nothing may panic, and memory stays bounded by the input.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    binfmt_cli::fuzzing::ranged(data);
});
