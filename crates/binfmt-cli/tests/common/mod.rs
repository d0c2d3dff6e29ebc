//! Helpers shared by the command-line tests of every format.
#![allow(dead_code, unused_imports, clippy::unwrap_used)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// Runs `binfmt` with `args`.
pub(crate) fn binfmt<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_binfmt"))
        .args(args)
        .output()
        .unwrap()
}

pub(crate) use self::binfmt as run;

/// Bytes as text, invalid UTF-8 replaced.
pub(crate) fn text(bytes: impl AsRef<[u8]>) -> String {
    String::from_utf8_lossy(bytes.as_ref()).into_owned()
}

/// The command's standard output as text.
pub(crate) fn stdout(out: &Output) -> String {
    text(&out.stdout)
}

/// The command's standard error as text.
pub(crate) fn stderr(out: &Output) -> String {
    text(&out.stderr)
}

/// Each line of standard output, parsed as JSON.
pub(crate) fn json_lines(out: &Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A fresh, empty directory for one test of this test binary.
pub(crate) fn scratch(test: &str) -> PathBuf {
    let binary = module_path!().split("::").next().unwrap_or("cli");
    let dir =
        std::env::temp_dir().join(format!("binfmt-cli-{binary}-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A path as `&str` (test paths are UTF-8).
pub(crate) fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
