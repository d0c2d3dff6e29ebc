//! The reference implementations, for the interop tests: finding the Python that has
//! them installed, and running the `tools/` scripts that drive them.
//!
//! Tests that need a reference implementation (tacozip, kastore, bloscpack …) carry
//! `#[cfg_attr(binfmt_no_python, ignore = "BINFMT_PYTHON is not set: …")]` and call
//! [`python`]. The crate's build script (tools/test_skips.rs) sets `binfmt_no_python` when
//! `BINFMT_PYTHON` is unset, so `cargo test` reports those tests as *ignored*, with the
//! reason; with `BINFMT_REQUIRE_REFERENCE=1` it never does, and they run.
//!
//! [`python`] returns the interpreter named by `BINFMT_PYTHON` (`.ci/run` creates
//! `tools/.venv` from `tools/requirements.txt` and sets it). Without it (a test binary run
//! by hand with other variables than it was built with, or with `--ignored`) the test
//! prints why it skips and passes, unless `BINFMT_REQUIRE_REFERENCE=1`, in which case it
//! fails: a machine that is meant to check interop must not skip silently.

use std::path::{Path, PathBuf};
use std::process::Command;

pub use crate::fixtures::repo_root;

/// The interpreter with the reference implementations, or `None` (after saying so).
pub fn python(test: &str) -> Option<PathBuf> {
    match std::env::var_os("BINFMT_PYTHON") {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => {
            assert!(
                std::env::var_os("BINFMT_REQUIRE_REFERENCE").is_none_or(|v| v != "1"),
                "{test}: BINFMT_REQUIRE_REFERENCE=1 but BINFMT_PYTHON is not set"
            );
            eprintln!(
                "{test}: skipped, BINFMT_PYTHON is not set (see tools/requirements.txt and .ci/run)"
            );
            None
        }
    }
}

/// Runs `python tools/<script> args…`, returns its stdout, and fails the test with its
/// stderr when it exits non-zero.
pub fn run(python: &Path, script: &str, args: &[&std::ffi::OsStr]) -> String {
    let path = repo_root().join("tools").join(script);
    let out = Command::new(python)
        .arg(&path)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", path.display()));
    assert!(
        out.status.success(),
        "{} failed ({}):\n{}\n{}",
        path.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// [`run`], its stdout read as one JSON value per line (the reference scripts' reports).
pub fn run_json_lines(
    python: &Path,
    script: &str,
    args: &[&std::ffi::OsStr],
) -> Vec<serde_json::Value> {
    run(python, script, args)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{script}: {e}: {l}")))
        .collect()
}
