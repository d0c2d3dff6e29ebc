//! Inputs the `bloscpack` fuzz target found (`fuzz/regressions/bloscpack/`), replayed
//! through the same entry points as the target, plus what each one showed.
//!
//! `leak-e0cdf995…`: a file that parses, with one 1-byte chunk, after 1,164,547 runs.
//! LeakSanitizer reported 32 bytes from `__cxa_thread_atexit_impl`: a thread-local
//! destructor registered on the fuzzer's main thread, never freed before exit. Appending
//! compressed its one new chunk through the ordered pipeline, which ran `thread::scope`
//! (registering the caller's thread handle) although the caller did all the work. The
//! pipeline now runs on the caller alone, without a scope or channels, when it has no
//! worker (`pipeline::run`).
//!
//! `leak-eb11327c…`: an append of several pieces, through the pipeline with one worker:
//! LeakSanitizer reported the worker's channel context (`mpmc::context`), a thread-local
//! freed when the thread ends, after `thread::scope` had returned (the scope waits for
//! the closures, not for the threads' ends). The pipeline and the threaded `unpack_into`
//! now join their workers themselves, which waits for the threads' ends.
#![cfg(feature = "blosc")]
#![allow(clippy::unwrap_used)]

use std::path::Path;

use binfmt_test_support::Scratch;
use bloscpack_header::fs::{AppendOptions, append};
use bloscpack_header::{Bloscpack, ReadOptions, UnpackOptions};

#[test]
fn every_bloscpack_regression_input_runs_through_the_target_s_paths() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions/bloscpack");
    let dir = Scratch::new("bloscpack-fuzz-regressions");
    let mut ran = 0;
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        let data = std::fs::read(entry.path()).unwrap();
        let options = ReadOptions::new().max_metadata_size(1 << 20);
        let mut findings = binfmt_core::verify::Findings::new(16);
        let _ = bloscpack_header::verify(&data[..], &options, &mut findings);
        if let Ok(file) = Bloscpack::parse_with(&data[..], &options) {
            let _ = file.verify_digests();
            let _ = file.unpack_to_vec(&UnpackOptions::DEFAULT.verify(false).threads(1));
            let _ = file.unpack_to_vec(&UnpackOptions::DEFAULT.verify(false));
            let path = dir.join("f.blp");
            std::fs::write(&path, &data).unwrap();
            if append(&path, b"appended", &AppendOptions::new()).is_ok() {
                let after = std::fs::read(&path).unwrap();
                assert!(Bloscpack::parse(&after[..]).is_ok());
            }
        }
        ran += 1;
    }
    assert!(ran > 0, "no regression inputs under {}", root.display());
}
