#![no_main]
//! binfmt_core's JSON validator (Bloscpack metadata, MLDF JSON fields) on arbitrary text:
//! it never panics, and it accepts every text serde_json accepts (RFC 8259), in both
//! dialects; the Python dialect accepts whatever the strict one does.

use binfmt_core::json::{Dialect, validate};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = core::str::from_utf8(data) else {
        return;
    };
    let strict = validate(text, Dialect::Strict);
    let python = validate(text, Dialect::Python);
    if strict.is_ok() {
        assert!(python.is_ok(), "the Python dialect is a superset: {text:?}");
    }
    if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() {
        assert!(
            strict.is_ok(),
            "serde_json accepts {text:?}, we say {strict:?}"
        );
    }
});
