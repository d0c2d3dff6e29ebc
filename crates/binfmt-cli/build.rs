//! Marks the tests that need nginx or moto as ignored, with the reason, when they are not
//! found (tools/test_skips.rs). The code itself does not depend on it.

include!("../../tools/test_skips.rs");

fn main() {
    servers_cfg();
}
