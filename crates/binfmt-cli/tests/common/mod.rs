//! Helpers shared by the command-line tests of every format.
#![allow(
    dead_code,
    unused_imports,
    clippy::unwrap_used,
    clippy::indexing_slicing
)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

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

/// Starts `binfmt` with `args`, standard input from `stdin`, standard output and error
/// piped to the test.
pub(crate) fn spawn_binfmt<S: AsRef<OsStr>>(args: &[S], stdin: Stdio) -> Child {
    Command::new(env!("CARGO_BIN_EXE_binfmt"))
        .args(args)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Runs `binfmt` with `args`, writing `input` to its standard input.
pub(crate) fn binfmt_fed<S: AsRef<OsStr>>(args: &[S], input: &[u8]) -> Output {
    use std::io::Write as _;
    let mut child = spawn_binfmt(args, Stdio::piped());
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

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

/// Checks that `text` contains `needle`, showing `text` if not.
pub(crate) fn assert_contains(text: &str, needle: &str) {
    assert!(text.contains(needle), "{text}");
}

/// Checks that a command exited with status `code`, saying `needle` on standard error.
pub(crate) fn assert_exit_saying(out: &Output, code: i32, needle: &str) {
    assert_eq!(out.status.code(), Some(code), "{}", stderr(out));
    assert_contains(&stderr(out), needle);
}

/// Each line of standard output, parsed as JSON.
pub(crate) fn json_lines(out: &Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The keys of a JSON object, in its order.
pub(crate) fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

/// `binfmt inspect --json FILE`, which must succeed, parsed: its keys must be `file`,
/// `format`, `version`, then `keys`, in that order, and its `format` and `version` the
/// ones given.
pub(crate) fn inspect_json(file: &Path, keys: &[&str], format: &str, version: &str) -> Value {
    let out = binfmt(&[
        OsStr::new("inspect"),
        OsStr::new("--json"),
        file.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let all: Vec<&str> = ["file", "format", "version"]
        .iter()
        .chain(keys)
        .copied()
        .collect();
    assert_eq!(self::keys(&v), all);
    assert_eq!(v["format"], format);
    assert_eq!(v["version"], version);
    v
}

/// A fresh, empty directory for one test of this test binary, removed when the returned
/// [`Scratch`] is dropped (kept if the test fails): bind it for as long as the test uses
/// the files.
pub(crate) fn scratch(test: &str) -> Scratch {
    let binary = module_path!().split("::").next().unwrap_or("cli");
    Scratch::new(&format!("cli-{binary}-{test}"))
}

/// Writes a TACO archive to `path` of `members` (name, payload), the names kept as they
/// are (control characters and all).
pub(crate) fn taco_with_names<'a>(
    path: &Path,
    members: impl IntoIterator<Item = (&'a str, &'a [u8])>,
) {
    let mut builder = taco_header::Writer::new(taco_header::Entries::new());
    builder.options(taco_header::WriterOptions::new().verbatim_names(true));
    for (name, payload) in members {
        builder.add_bytes(name, payload.to_vec());
    }
    builder.write_to_path(path).unwrap();
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
