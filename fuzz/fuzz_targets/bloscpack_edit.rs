#![no_main]
//! The append journal against arbitrary bytes (docs/edit-protocol.md): a file whose
//! `verify` reports no interrupted append must come out of `fs::repair` byte for byte as
//! it went in, whatever its payload or its trailing bytes hold (an undo record is
//! honoured only where the committed state places an edit in flight), and `fs::append`
//! must never lose the committed bytes of a file it accepted: either it fails and the
//! file is as it was (or repaired, when verify said an edit was in flight), or the file
//! starts with everything the chunks held before.

use std::ops::ControlFlow;

use bloscpack_header::fs::AppendOptions;
use bloscpack_header::{ErrorKind, ReadOptions, Severity};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut in_flight = false;
    let mut valid = true;
    let _ = bloscpack_header::verify(
        data,
        &ReadOptions::new(),
        &mut |severity, e: bloscpack_header::Error| {
            if matches!(e.kind(), ErrorKind::InterruptedAppend { .. }) {
                in_flight = true;
            }
            if severity == Severity::Error {
                valid = false;
            }
            ControlFlow::Continue(())
        },
    );
    let dir = std::env::temp_dir().join(format!("binfmt-fuzz-edit-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("f.blp");
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let repaired = bloscpack_header::fs::repair(&path);
    let after = std::fs::read(&path).unwrap_or_default();
    if !in_flight {
        assert!(
            after == data,
            "repair changed a file without an edit in flight ({repaired:?})"
        );
    }
    if valid && !in_flight {
        let before = after.clone();
        let appended = bloscpack_header::fs::append(&path, &[7u8; 100], &AppendOptions::new());
        let now = std::fs::read(&path).unwrap_or_default();
        match appended {
            Ok(_) => assert!(now.len() >= 32, "append left {} bytes", now.len()),
            Err(_) => assert!(now == before, "a failed append changed the file"),
        }
    }
    let _ = std::fs::remove_file(&path);
});
