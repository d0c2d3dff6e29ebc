#![no_main]
//! `binfmt verify` of arbitrary bytes: detection, the format's library `verify` through
//! the command's sink, every problem rendered. Nothing may panic.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    binfmt_cli::fuzzing::verify(data);
});
