//! Helpers shared by the integration tests.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used)]

pub mod oracle;

use taco_header::{Entries, Writer};

/// An archive of four members of 100 KB each (`big0` … `big3`, each byte its index):
/// members farther apart than the 64 KiB a reader merges across.
pub fn four_large_members() -> Vec<u8> {
    let mut b = Writer::new(Entries::new());
    for i in 0..4u8 {
        b.add_bytes(format!("big{i}"), vec![i; 100_000]);
    }
    b.to_vec().unwrap()
}
