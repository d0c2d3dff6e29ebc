#![no_main]
//! `binfmt inspect` and `binfmt inspect --json --rows` of arbitrary bytes, as if they were
//! a file named on the command line: detection, every format's inspect, and both
//! renderings (text and JSON), output discarded. Nothing may panic.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    binfmt_cli::fuzzing::inspect(data);
});
