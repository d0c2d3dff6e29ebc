#![no_main]
//! The read paths of each format's own subcommands (`kastore get`, `taridx get`,
//! `bloscpack unpack`, `mldf get`/`diff`, TACO listings) over arbitrary bytes, with their
//! formatting, output discarded. Nothing may panic.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    binfmt_cli::fuzzing::commands(data);
});
