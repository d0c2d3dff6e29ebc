#![no_main]
//! `binfmt mldf pack`: SCHEMA and SAMPLES parsing and the conversion into an in-memory
//! writer, from arbitrary bytes. The input is SCHEMA, a NUL byte, then SAMPLES (valid
//! JSON never holds a raw NUL, so the seeds stay readable). Payload paths are resolved
//! in memory (a path's payload is its own bytes): the file system is never touched.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (schema, samples) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    binfmt_cli::fuzzing::mldf_pack(schema, samples);
});
