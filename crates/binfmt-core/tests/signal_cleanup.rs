//! `remove_temporaries` removes every pending temporary file of the process, so it gets a
//! test binary of its own (no other test runs beside it).
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used)]

use binfmt_core::atomic::{AtomicFile, remove_temporaries};

#[test]
fn pending_temporaries_can_be_removed_by_a_signal_handler() {
    let dir = std::env::temp_dir().join(format!("binfmt-core-signal-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let f = AtomicFile::create(dir.join("out.bin")).unwrap();
    let temp = f.temp_path().to_path_buf();
    assert!(temp.exists());
    remove_temporaries();
    assert!(!temp.exists());
    drop(f);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(dir).unwrap();
}
