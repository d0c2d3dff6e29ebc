//! Inputs the fuzzer found (`fuzz/regressions/kastore*/`), replayed through the same
//! checks as the fuzz targets, plus what each one showed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use std::path::{Path, PathBuf};

use kastore::{ErrorKind, ReadOptions, Store, StreamReader};

fn regressions() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions/kastore")
}

/// The regressions of every kastore target.
fn all_regressions() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    let mut files = Vec::new();
    for target in ["kastore", "kastore_reader"] {
        let Ok(dir) = std::fs::read_dir(root.join(target)) else {
            continue;
        };
        files.extend(dir.map(|entry| entry.unwrap().path()));
    }
    files
}

/// The fuzz targets' checks (fuzz/fuzz_targets/kastore*.rs), without libFuzzer.
fn replay(data: &[u8]) {
    common::oracle::check_slices(data);
    common::oracle::check_reader(data);
}

#[test]
fn every_fuzz_regression_replays_cleanly() {
    let files = all_regressions();
    for path in &files {
        replay(&std::fs::read(path).unwrap());
    }
    assert!(!files.is_empty());
}

/// An empty store whose header claims 128 MiB. The slice parser sees the whole input and
/// says the size is wrong; a stream with a 64 KiB limit refuses the claim before reading
/// on. (The fuzz target's oracle first expected both to say the same; the oracle was
/// wrong, the behaviour is the documented one.)
#[test]
fn a_size_limit_applies_before_the_layout_is_read() {
    let data = std::fs::read(regressions().join("limit-before-layout")).unwrap();
    let e = Store::parse(&data).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::FileSizeMismatch {
                file_size: 0x0800_0000,
                expected: 64,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.offset(), Some(16));
    let e =
        StreamReader::with_options(data.as_slice(), &ReadOptions::new().max_store_size(1 << 16))
            .next()
            .unwrap()
            .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::TooLarge {
                file_size: 0x0800_0000,
                ..
            }
        ),
        "{e}"
    );
    // Without a limit the stream reads what arrives and agrees with the slice.
    let e = StreamReader::new(data.as_slice())
        .next()
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::FileSizeMismatch { .. }),
        "{e}"
    );
}
