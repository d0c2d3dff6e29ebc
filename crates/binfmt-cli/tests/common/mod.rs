//! Helpers shared by the command-line tests of every format.
#![allow(dead_code, unused_imports, clippy::unwrap_used)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use binfmt_test_support::Scratch;
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

/// A fresh, empty directory for one test of this test binary, removed when the returned
/// [`Scratch`] is dropped (kept if the test fails): bind it for as long as the test uses
/// the files.
pub(crate) fn scratch(test: &str) -> Scratch {
    let binary = module_path!().split("::").next().unwrap_or("cli");
    Scratch::new(&format!("cli-{binary}-{test}"))
}

/// A path as `&str` (test paths are UTF-8).
pub(crate) fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `binfmt` with `args` with its standard output (and error) on a terminal, through
/// util-linux `script` and a pseudo-terminal: what a user sees (line ends as `\n`).
/// `None` where `script` cannot run (not installed, no pseudo-terminals).
pub(crate) fn binfmt_on_terminal<S: AsRef<OsStr>>(args: &[S]) -> Option<Vec<u8>> {
    let quote = |a: &OsStr| format!("'{}'", a.to_string_lossy().replace('\'', r"'\''"));
    let mut line = quote(OsStr::new(env!("CARGO_BIN_EXE_binfmt")));
    for a in args {
        line.push(' ');
        line.push_str(&quote(a.as_ref()));
    }
    let out = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() && out.stdout.is_empty() {
        return None;
    }
    let mut text = Vec::with_capacity(out.stdout.len());
    let mut bytes = out.stdout.iter().peekable();
    while let Some(&b) = bytes.next() {
        if b == b'\r' && bytes.peek() == Some(&&b'\n') {
            continue;
        }
        text.push(b);
    }
    Some(text)
}

/// Runs `sh -c SCRIPT` with `$BINFMT` set to the command: for redirections that
/// `std::process::Command` cannot express (`>&-`, a pipe into `head`).
pub(crate) fn sh(script: &str) -> Output {
    Command::new("sh")
        .args(["-c", script])
        .env("BINFMT", env!("CARGO_BIN_EXE_binfmt"))
        .output()
        .unwrap()
}

/// A file of another crate of the workspace: `rel` under `crates/`
/// (`"kastore/tests/fixtures/valid/control.kas"`).
pub(crate) fn crate_file(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// A kastore file of three 1 MiB arrays (`a` u64, `b` f64, `c` u8 `i % 251`), so that
/// reading one shows what is not read.
pub(crate) fn big_kastore() -> Vec<u8> {
    let a: Vec<u64> = (0..131_072u64).collect();
    let b: Vec<f64> = (0..131_072u32).map(f64::from).collect();
    let c: Vec<u8> = (0..1_048_576u32).map(|i| (i % 251) as u8).collect();
    let mut builder = kastore::Writer::new();
    builder.add("a", &a).unwrap();
    builder.add("b", &b).unwrap();
    builder.add("c", &c).unwrap();
    builder.to_vec().unwrap()
}
