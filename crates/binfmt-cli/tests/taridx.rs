//! `binfmt taridx build|get`, `binfmt inspect` and `binfmt verify` on .taridx files.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::path::{Path, PathBuf};

use common::{run, s, stderr, stdout};
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../taridx/tests/fixtures")
}

/// A scratch copy of a fixture fold.
fn fold_copy(name: &str, sub: &str, fold: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("binfmt-cli-taridx-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(fixtures().join(sub)).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_str().unwrap().to_owned();
        if file.starts_with(&format!("{fold}_")) && file.ends_with(".tar") {
            std::fs::copy(&path, dir.join(file)).unwrap();
        }
    }
    dir
}

#[test]
fn build_reproduces_the_golden_indexes_in_both_modes() {
    let dir = fold_copy("build", "golden", "train");
    let out = run(&["taridx", "build", s(&dir), "train"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let written = std::fs::read(dir.join("train.taridx")).unwrap();
    assert!(written == std::fs::read(fixtures().join("golden/strict/train.taridx")).unwrap());
    assert_eq!(
        stdout(&out).trim(),
        format!(
            "{}: 36 rows, 15 stems, 6 extensions, 3 shards (6 members skipped, 2 warnings)",
            dir.join("train.taridx").display()
        )
    );
    let err = stderr(&out);
    assert!(err.contains(
        "binfmt: skipped train_0001.tar: byte 4096: \"dir7/\": typeflag '5' is not a regular file"
    ));
    assert!(err.contains("binfmt: warning: train_0002.tar: byte 19456: duplicate member sample000001.cls (also in train_0000.tar)"));
    // No progress bar when stderr is not a terminal.
    assert!(!err.contains("indexing"));

    let glzn = dir.join("glzn.taridx");
    let out = run(&[
        "taridx",
        "build",
        "--compat",
        "glzn",
        "-o",
        s(&glzn),
        s(&dir),
        "train",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::read(&glzn).unwrap()
            == std::fs::read(fixtures().join("golden/train.taridx")).unwrap()
    );

    let listed = dir.join("listed.taridx");
    let shards: Vec<String> = ["train_0000.tar", "train_0001.tar", "train_0002.tar"]
        .iter()
        .map(|f| dir.join(f).display().to_string())
        .collect();
    let mut args = vec!["taridx", "build", "-o", s(&listed), "--shards"];
    args.extend(shards.iter().map(String::as_str));
    let out = run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read(&listed).unwrap() == std::fs::read(dir.join("train.taridx")).unwrap());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn build_errors_name_the_shard_and_the_byte() {
    let dir = fold_copy("badsum", "edge", "badsum");
    let out = run(&["taridx", "build", s(&dir), "badsum"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("badsum_0000.tar: byte 1024: tar header checksum mismatch"),
        "{err}"
    );
    assert!(
        !dir.join("badsum.taridx").exists(),
        "nothing written on error"
    );

    let out = run(&["taridx", "build", s(&dir), "nothing"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no shards of fold \"nothing\""));
    let out = run(&[
        "taridx",
        "build",
        "--shards",
        s(&dir.join("badsum_0000.tar")),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("-o"));
    let out = run(&["taridx", "build", "--compat", "tarfile", s(&dir), "badsum"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "bad arguments are clap's exit 2"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn get_writes_the_payload_and_verifies_names() {
    let dir = fold_copy("get", "golden", "clean");
    let out = run(&["taridx", "build", s(&dir), "clean"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let index = dir.join("clean.taridx");
    let shard0 = std::fs::read(dir.join("clean_0000.tar")).unwrap();

    let out = run(&["taridx", "get", s(&index), "sample000002", "--ext", "jpg"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout.len(), 511);
    assert!(out.stdout == shard0[4608..4608 + 511]);
    // The extension may come with the stem.
    let out = run(&["taridx", "get", s(&index), "sample000002.JPG"]);
    assert!(out.status.success() && out.stdout.len() == 511);
    // A sample with several members needs --ext.
    let out = run(&["taridx", "get", s(&index), "sample000002"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("3 members (cls, jpg, json); choose one with --ext"));
    // The crash stem is found through the crash table.
    let out = run(&[
        "taridx",
        "get",
        s(&index),
        "1aefceb10cb92620",
        "--ext",
        "cls",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(&["taridx", "get", s(&index), "absent", "--ext", "cls"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no member \"absent\" with extension \"cls\""));

    // Index shard 0 alone: the colliding stem is absent, and only verification says so.
    let one = dir.join("one.taridx");
    let out = run(&[
        "taridx",
        "build",
        "-o",
        s(&one),
        "--shards",
        s(&dir.join("clean_0000.tar")),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let shards = dir.join("clean_0000.tar");
    let out = run(&[
        "taridx",
        "get",
        s(&one),
        "1aefceb10cb92620.cls",
        "--shards",
        s(&shards),
    ]);
    assert_eq!(out.status.code(), Some(1), "verified: absent");
    let out = run(&[
        "taridx",
        "get",
        s(&one),
        "1aefceb10cb92620.cls",
        "--shards",
        s(&shards),
        "--no-verify",
    ]);
    assert!(
        out.status.success(),
        "unverified: the colliding stem's payload"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn inspect_json_has_the_documented_keys() {
    let path = fixtures().join("golden/clean.taridx");
    let out = run(&["inspect", "--json", s(&path)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "file",
            "format",
            "version",
            "n_stems",
            "n_rows",
            "extensions",
            "crash_stems",
            "contiguous"
        ]
    );
    assert_eq!(v["format"], "taridx");
    assert_eq!(v["version"], "1.0");
    assert_eq!(v["n_stems"], 7);
    assert_eq!(v["n_rows"], 21);
    assert_eq!(v["extensions"], serde_json::json!(["cls", "jpg", "json"]));
    assert_eq!(v["crash_stems"], serde_json::json!(["1aefceb10cb92620"]));
    assert_eq!(v["contiguous"], true);

    let out = run(&["inspect", "--json", "--rows", s(&path)]);
    let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 21);
    assert_eq!(
        rows[0],
        serde_json::json!({"fid": 0, "offset": 0, "size": 1, "ext": "cls", "crashid": 0, "keyhash": "38bcdc9be4a5a604"})
    );
    assert_eq!(rows[15]["crashid"], 1);
    let text = run(&["inspect", "--rows", s(&path)]);
    assert!(stdout(&text).contains("crash stems: \"1aefceb10cb92620\""));
    assert!(stdout(&text).contains("38bcdc9be4a5a604"));
}

#[test]
fn verify_reports_every_problem_with_its_offset() {
    for f in [
        "golden/clean.taridx",
        "golden/train.taridx",
        "golden/strict/train.taridx",
    ] {
        let out = run(&["verify", s(&fixtures().join(f))]);
        assert!(out.status.success(), "{f}: {}", stderr(&out));
        assert!(stdout(&out).contains("OK (taridx)"));
    }
    let dir = std::env::temp_dir().join(format!("binfmt-cli-taridx-verify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut bytes = std::fs::read(fixtures().join("golden/clean.taridx")).unwrap();
    bytes[16] = 9; // n_stems
    bytes[92 + 18] = 7; // row 0 extid
    bytes[92 + 32 + 20] = 5; // row 1 crashid
    let bad = dir.join("bad.taridx");
    std::fs::write(&bad, &bytes).unwrap();
    let out = run(&["verify", s(&bad)]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("byte 110: row 0 has extension id 7"), "{err}");
    assert!(err.contains("byte 144: row 1 has crash id 5"), "{err}");
    // The deep checks need valid ids: fix them and the stem count is reported.
    bytes[92 + 18] = 0;
    bytes[92 + 32 + 20] = 0;
    std::fs::write(&bad, &bytes).unwrap();
    let err = stderr(&run(&["verify", s(&bad)]));
    assert!(
        err.contains("byte 16: the header declares 9 stems"),
        "{err}"
    );
    std::fs::write(&bad, &bytes[..100]).unwrap();
    let out = run(&["verify", s(&bad)]);
    assert!(stderr(&out).contains("byte 24"), "{}", stderr(&out));
    let out = run(&["inspect", "--json", s(&bad)]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["format"], "taridx");
    assert!(v["error"].as_str().unwrap().contains("rows"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn help_documents_the_json_keys_and_subcommands() {
    let out = run(&["inspect", "--help"]);
    assert!(stdout(&out).contains("\"crash_stems\""));
    let out = run(&["taridx", "--help"]);
    let text = stdout(&out);
    assert!(text.contains("build") && text.contains("get"));
    let out = run(&["taridx", "build", "--help"]);
    assert!(stdout(&out).contains("--compat"));
}
