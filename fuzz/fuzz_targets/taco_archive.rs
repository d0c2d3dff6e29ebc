#![no_main]
//! Whole TACO archives over arbitrary bytes: `verify`, the member listing in memory and
//! by ranges, and the in-place update never panic; `verify` reports whatever makes
//! `Archive::parse` fail; the ranged `Reader` keeps to its request plan and lists what
//! the slice parser lists; an accepted update leaves an archive that parses, with the new
//! entries, and changes nothing but the 124 bytes.
//! The checks live in the crate's tests (`tests/common/oracle.rs`), which replay every
//! file of `fuzz/regressions/taco_archive/` through them.

#[path = "../../crates/taco-header/tests/common/oracle.rs"]
mod oracle;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    oracle::check_archive(data);
});
