//! Inputs in every form: an OUT that is one of the inputs is refused whatever names the
//! input (a path, a hard link, a `file://` URL, standard input redirected from the file),
//! and streams are judged on their first bytes before anything else is read.
#![allow(clippy::unwrap_used)]

mod common;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{binfmt, s, scratch, stderr};

const BIN: &str = env!("CARGO_BIN_EXE_binfmt");

/// `binfmt ARGS < stdin_from`.
fn with_stdin(args: &[&str], stdin_from: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(File::open(stdin_from).unwrap())
        .output()
        .unwrap()
}

fn packed(dir: &Path) -> (PathBuf, PathBuf) {
    let raw = dir.join("s.bin");
    std::fs::write(
        &raw,
        (0..100_000u32).map(|i| (i % 7) as u8).collect::<Vec<_>>(),
    )
    .unwrap();
    let blp = dir.join("u.blp");
    let out = binfmt(&["bloscpack", "pack", s(&raw), s(&blp)]);
    assert!(out.status.success(), "{}", stderr(&out));
    (raw, blp)
}

/// Runs `command`, which must exit 1 (saying `why`, when given) and leave `file` as it
/// was.
fn refused_leaving(file: &Path, why: Option<&str>, command: impl FnOnce() -> Output) {
    let before = std::fs::read(file).unwrap();
    let out = command();
    match why {
        Some(why) => common::assert_exit_saying(&out, 1, why),
        None => assert_eq!(out.status.code(), Some(1), "{}", stderr(&out)),
    }
    assert_eq!(std::fs::read(file).unwrap(), before);
}

#[test]
fn out_is_refused_when_a_file_url_names_the_input() {
    let dir = scratch("file-url");
    let (_, blp) = packed(&dir);
    let url = format!("file://{}", s(&blp));
    refused_leaving(&blp, Some("is also an input"), || {
        binfmt(&["bloscpack", "unpack", &url, s(&blp), "-f"])
    });
}

#[test]
fn out_is_refused_when_standard_input_is_redirected_from_it() {
    let dir = scratch("stdin");
    let (raw, _) = packed(&dir);
    refused_leaving(&raw, Some("is also an input"), || {
        with_stdin(&["bloscpack", "pack", "-", s(&raw), "-f"], &raw)
    });
}

#[test]
fn out_is_refused_when_it_is_a_hard_link_of_the_input() {
    let dir = scratch("hard-link");
    let (_, blp) = packed(&dir);
    let link = dir.join("link.blp");
    std::fs::hard_link(&blp, &link).unwrap();
    refused_leaving(&blp, None, || {
        binfmt(&["bloscpack", "unpack", s(&link), s(&blp), "-f"])
    });
}

#[test]
fn taco_update_copy_refuses_its_own_input_by_url() {
    let dir = scratch("taco-url");
    let taco = dir.join("t.taco");
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../taco-header/tests/fixtures/three_entries.taco"
        ),
        &taco,
    )
    .unwrap();
    let url = format!("file://{}", s(&taco));
    refused_leaving(&taco, None, || {
        binfmt(&["taco", "update", &url, "-o", s(&taco), "-f"])
    });
}

/// An endless stream that is not the format is refused on its first bytes, not read to
/// the stream limit: `/dev/zero` as a kastore store, an index, a Bloscpack file.
#[test]
fn endless_streams_are_refused_on_their_first_bytes() {
    for args in [
        &["kastore", "get", "-", "a"][..],
        &["inspect", "-"][..],
        &["verify", "-"][..],
        &["bloscpack", "unpack", "-", "/dev/null"][..],
        &["mldf", "get", "-", "0", "x"][..],
    ] {
        let out = Command::new(BIN)
            .args(args)
            .stdin(File::open("/dev/zero").unwrap())
            .stdout(Stdio::null())
            .output()
            .unwrap();
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        assert!(out.status.code().is_some(), "{args:?}: killed by a signal");
        assert!(!stderr(&out).is_empty(), "{args:?}");
    }
}
