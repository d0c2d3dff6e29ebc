#![no_main]
//! kastore by ranges: `Reader::open` over a counted source gives the answer `Store::parse`
//! gives (the same store, or the same first error at the same offset) in at most three
//! requests, and then every array in one request, with the bytes the slice view has.
//! The checks live in the crate's tests (`tests/common/oracle.rs`), which replay every
//! file of `fuzz/regressions/kastore_reader/` through them.

#[path = "../../crates/kastore/tests/common/oracle.rs"]
mod oracle;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    oracle::check_reader(data);
});
