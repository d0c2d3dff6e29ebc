#![no_main]
//! The TACO header parser over arbitrary bytes: no panic under any options; the options
//! nest (every stricter reading accepts less); a lenient parse warns exactly when the
//! strict rules fail; whatever parses serializes and parses back to the same value.
//! The checks live in the crate's tests (`tests/common/oracle.rs`), which replay every
//! file of `fuzz/regressions/taco_header/` through them.

#[path = "../../crates/taco-header/tests/common/oracle.rs"]
mod oracle;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    oracle::check_header(data);
});
