//! Marks the interop tests as ignored, with the reason, when `BINFMT_PYTHON` is not set
//! (tools/test_skips.rs). The library itself does not depend on it.

include!("../../tools/test_skips.rs");

fn main() {
    python_cfg();
}
