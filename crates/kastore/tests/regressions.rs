//! Inputs the fuzzer found (`fuzz/regressions/kastore/`), replayed through the same checks
//! as the fuzz target, plus what each one showed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]

use std::path::{Path, PathBuf};

use binfmt_core::Diagnostic;
use kastore::{Builder, Error, Limits, Store, StoreReader};

fn regressions() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions/kastore")
}

/// The fuzz target's checks (fuzz/fuzz_targets/kastore.rs), without libFuzzer.
fn replay(data: &[u8]) {
    let parsed = Store::parse(data);
    if let Ok(store) = &parsed {
        for item in store.items() {
            assert_eq!(store.item(item.key()).unwrap().index(), item.index());
        }
        let rewritten = Builder::from_store(store).to_vec().unwrap();
        if store.is_canonical() {
            assert_eq!(rewritten, store.as_bytes());
        }
    }
    let mut first = None;
    kastore::verify(data, |e| {
        first.get_or_insert((e.code(), Diagnostic::offset(&e)));
    });
    if let Err(e) = &parsed {
        assert_eq!(first, Some((e.code(), Diagnostic::offset(e))));
    }
    let limit = 1 << 16;
    let sliced: Vec<_> = kastore::stores(data).collect();
    let streamed: Vec<_> =
        StoreReader::with_limits(data, Limits::default().max_store_size(limit)).collect();
    for (a, b) in sliced.iter().zip(&streamed) {
        match (a, b) {
            (Ok(a), Ok(b)) => assert_eq!(a.as_bytes(), b.as_bytes()),
            (Err(_), Err(Error::TooLarge { file_size, .. })) => assert!(*file_size > limit),
            (Err(a), Err(b)) => assert_eq!(a.code(), b.code()),
            (Ok(a), Err(e)) => {
                assert!(matches!(e, Error::TooLarge { .. }) && a.file_size() > limit)
            }
            (Err(a), Ok(_)) => panic!("slice error {a} but the stream read a store"),
        }
    }
}

#[test]
fn every_fuzz_regression_replays_cleanly() {
    let mut count = 0;
    for entry in std::fs::read_dir(regressions()).unwrap() {
        let path = entry.unwrap().path();
        replay(&std::fs::read(&path).unwrap());
        count += 1;
    }
    assert!(count > 0);
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
            e,
            Error::FileSizeMismatch {
                file_size: 0x0800_0000,
                expected: 64,
                offset: 16
            }
        ),
        "{e}"
    );
    let e = StoreReader::with_limits(data.as_slice(), Limits::default().max_store_size(1 << 16))
        .next()
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::TooLarge {
                file_size: 0x0800_0000,
                ..
            }
        ),
        "{e}"
    );
    // Without a limit the stream reads what arrives and agrees with the slice.
    let e = StoreReader::new(data.as_slice())
        .next()
        .unwrap()
        .unwrap_err();
    assert!(matches!(e, Error::FileSizeMismatch { .. }), "{e}");
}
