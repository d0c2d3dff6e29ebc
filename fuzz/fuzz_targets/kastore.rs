#![no_main]
//! kastore from slices: parse anything, reach every item, and check that what parses
//! re-serializes to the same bytes (exactly, when the input was canonical), that `verify`
//! agrees with `parse` (first error, warnings), and that the stream reader agrees with
//! `stores` (the same stores, and trailing bytes read as the error the warnings quote).
//! The checks live in the crate's tests (`tests/common/oracle.rs`), which replay every
//! file of `fuzz/regressions/kastore/` through them.

#[path = "../../crates/kastore/tests/common/oracle.rs"]
mod oracle;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    oracle::check_slices(data);
});
