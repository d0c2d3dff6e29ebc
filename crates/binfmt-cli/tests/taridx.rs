//! `binfmt taridx build|get`, `binfmt inspect` and `binfmt verify` on .taridx files.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod common;

use std::path::{Path, PathBuf};

use binfmt_test_support::{Scratch, tar};
use common::{run, s, scratch, stderr, stdout};
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../taridx/tests/fixtures")
}

/// A scratch copy of a fixture fold.
fn fold_copy(name: &str, sub: &str, fold: &str) -> Scratch {
    let dir = scratch(&format!("fold-{name}"));
    for entry in std::fs::read_dir(fixtures().join(sub)).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_str().unwrap().to_owned();
        if file.starts_with(&format!("{fold}_")) && file.ends_with(".tar") {
            std::fs::copy(&path, dir.join(file)).unwrap();
        }
    }
    dir
}

/// A copy of the fold indexed by `binfmt taridx build DIR FOLD`, which must succeed: the
/// directory and the index's path.
fn fold_built(name: &str, sub: &str, fold: &str) -> (Scratch, PathBuf) {
    let dir = fold_copy(name, sub, fold);
    let out = run(&["taridx", "build", s(&dir), fold]);
    assert!(out.status.success(), "{}", stderr(&out));
    let index = dir.join(format!("{fold}.taridx"));
    (dir, index)
}

/// `binfmt taridx get INDEX ARGS…`.
fn get(index: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["taridx", "get", s(index)];
    all.extend_from_slice(args);
    run(&all)
}

#[test]
fn build_reproduces_the_golden_indexes_in_both_modes() {
    let dir = fold_copy("build", "golden", "train");
    let out = run(&["taridx", "build", s(&dir), "train"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let written = std::fs::read(dir.join("train.taridx")).unwrap();
    assert!(written == std::fs::read(fixtures().join("golden/strict/train.taridx")).unwrap());
    // The summary is a status line: standard error (standard output carries data only).
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert!(err.contains(&format!(
        "{}: 36 rows, 15 stems, 6 extensions, 3 shards (6 members skipped, 2 warnings)",
        dir.join("train.taridx").display()
    )));
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
    common::assert_exit_saying(&out, 1, "no shards of fold \"nothing\"");
    let out = run(&[
        "taridx",
        "build",
        "--shards",
        s(&dir.join("badsum_0000.tar")),
    ]);
    assert_eq!(out.status.code(), Some(2), "an argument error");
    assert!(stderr(&out).contains("-o"));
    let out = run(&["taridx", "build", "--compat", "tarfile", s(&dir), "badsum"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "bad arguments are clap's exit 2"
    );
}

#[test]
fn get_writes_the_payload_and_verifies_names() {
    let (dir, index) = fold_built("get", "golden", "clean");
    let shard0 = std::fs::read(dir.join("clean_0000.tar")).unwrap();

    let out = get(&index, &["sample000002", "--ext", "jpg"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout.len(), 511);
    assert!(out.stdout == shard0[4608..4608 + 511]);
    // The extension may come with the stem.
    let out = get(&index, &["sample000002.JPG"]);
    assert!(out.status.success() && out.stdout.len() == 511);
    // A sample with several members needs --ext.
    let out = get(&index, &["sample000002"]);
    common::assert_exit_saying(&out, 1, "3 members (cls, jpg, json); choose one with --ext");
    // The crash stem is found through the crash table.
    let out = get(&index, &["1aefceb10cb92620", "--ext", "cls"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = get(&index, &["absent", "--ext", "cls"]);
    common::assert_exit_saying(&out, 1, "no member \"absent\" with extension \"cls\"");

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
    let colliding = ["1aefceb10cb92620.cls", "--shards", s(&shards)];
    let out = get(&one, &colliding);
    assert_eq!(out.status.code(), Some(1), "verified: absent");
    let out = get(&one, &[&colliding[..], &["--no-verify"]].concat());
    assert!(
        out.status.success(),
        "unverified: the colliding stem's payload"
    );
}

#[test]
fn inspect_json_has_the_documented_keys() {
    let path = fixtures().join("golden/clean.taridx");
    let v = common::inspect_json(
        &path,
        &[
            "n_stems",
            "n_rows",
            "extensions",
            "crash_stems",
            "contiguous",
        ],
        "taridx",
        "1.0",
    );
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
    assert!(stdout(&text).contains("crash_stems: 1aefceb10cb92620"));
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
    let dir = scratch("verify");
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
}

#[test]
fn help_documents_the_json_keys_and_subcommands() {
    let out = run(&["inspect", "--help"]);
    assert!(stdout(&out).contains("\n  crash_stems: "));
    let out = run(&["taridx", "--help"]);
    let text = stdout(&out);
    assert!(text.contains("build") && text.contains("get"));
    let out = run(&["taridx", "build", "--help"]);
    assert!(stdout(&out).contains("--compat"));
}

#[test]
fn build_never_writes_over_a_shard_and_replaces_an_index_only_with_force() {
    let dir = fold_copy("clobber", "golden", "clean");
    let shard = dir.join("clean_0000.tar");
    let before = std::fs::read(&shard).unwrap();
    for force in [false, true] {
        let mut args = vec!["taridx", "build", s(&dir), "clean", "-o", s(&shard)];
        if force {
            args.push("--force");
        }
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "force {force}");
        common::assert_contains(&stderr(&out), "is also an input");
        assert!(
            std::fs::read(&shard).unwrap() == before,
            "the shard is intact"
        );
    }
    // The same through --shards.
    let out = run(&[
        "taridx",
        "build",
        "-f",
        "-o",
        s(&shard),
        "--shards",
        s(&shard),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(std::fs::read(&shard).unwrap() == before);

    // An existing index is replaced only with --force.
    let out = run(&["taridx", "build", s(&dir), "clean"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let index = dir.join("clean.taridx");
    std::fs::write(&index, b"old").unwrap();
    let out = run(&["taridx", "build", s(&dir), "clean"]);
    common::assert_exit_saying(&out, 1, "already exists; use --force");
    assert_eq!(std::fs::read(&index).unwrap(), b"old");
    let out = run(&["taridx", "build", "--force", s(&dir), "clean"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::read(&index).unwrap()
            == std::fs::read(fixtures().join("golden/clean.taridx")).unwrap()
    );

    // `-` is standard output.
    let out = run(&["taridx", "build", "-o", "-", s(&dir), "clean"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout == std::fs::read(fixtures().join("golden/clean.taridx")).unwrap());
    assert!(stderr(&out).contains("-: 21 rows"), "{}", stderr(&out));
}

#[test]
fn build_warnings_are_escaped_and_capped() {
    // A global pax path naming every member, with a terminal escape in it: 2,000
    // members, every one a duplicate of the first (1 MB of shard).
    let dir = scratch("warnings");
    let mut name = b"\x1b]0;pwned\x07".to_vec();
    name.extend(core::iter::repeat_n(b'p', 400));
    name.extend_from_slice(b".jpg");
    let mut shard = tar::pax(b'g', &[("path", &name)]);
    for i in 0..2000 {
        shard.extend(tar::header(format!("m{i}.jpg").as_bytes(), 0, b'0'));
    }
    shard.extend(vec![0u8; 1024]);
    std::fs::write(dir.join("g_0000.tar"), &shard).unwrap();
    let out = run(&["taridx", "build", s(&dir), "g"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        !err.contains('\x1b') && !err.contains('\x07'),
        "raw control bytes"
    );
    assert!(
        err.contains("\\u{1b}]0;pwned\\u{7}") || err.contains("\\e]0;pwned"),
        "{err}"
    );
    assert!(
        err.contains("binfmt: warning: … and 1899 more duplicate members"),
        "{err}"
    );
    assert!(err.len() < 200_000, "{} bytes of warnings", err.len());
    assert!(err.contains("(0 members skipped, 1999 warnings)"), "{err}");

    // `get` of that sample reads one member's blocks: the name is the global path's.
    let index = dir.join("g.taridx");
    let stem = String::from_utf8(name[..name.len() - 4].to_vec()).unwrap();
    let out = get(&index, &[&stem, "--ext", "jpg"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert!(err.contains("2000 members with extension \"jpg\"; writing the first (row 0)"));
    assert!(!err.contains('\x1b') && err.len() < 2000, "{err}");
}

#[test]
fn compressed_shards_fail_and_a_partial_block_is_a_warning() {
    for kind in ["gzip", "bzip2", "xz", "zstd"] {
        let dir = fold_copy(kind, "edge", kind);
        let out = run(&["taridx", "build", s(&dir), kind]);
        assert_eq!(out.status.code(), Some(1), "{kind}");
        let err = stderr(&out);
        assert!(
            err.contains(&format!("{kind}_0000.tar: "))
                && err.contains(&format!("is compressed ({kind}): decompress it first")),
            "{err}"
        );
        assert!(!dir.join(format!("{kind}.taridx")).exists());
    }
    let dir = fold_copy("partial", "edge", "partial");
    let out = run(&["taridx", "build", s(&dir), "partial"]);
    assert!(out.status.success(), "{}", stderr(&out));
    common::assert_contains(
        &stderr(&out),
        "less than a 512-byte block and no end-of-archive marker",
    );
}

#[test]
fn get_verifies_only_the_members_own_blocks() {
    // [a.jpg][b.jpg][c.jpg]: damage a's header after indexing; b and c still verify.
    let dir = scratch("damage");
    let mut shard = tar::member("a.jpg", b"AAAA");
    let b_at = shard.len();
    shard.extend(tar::member("b.jpg", b"BBBB"));
    shard.extend(tar::member("c.jpg", b"CCCC"));
    shard.extend(vec![0u8; 1024]);
    let path = dir.join("d_0000.tar");
    std::fs::write(&path, &shard).unwrap();
    let out = run(&["taridx", "build", s(&dir), "d"]);
    assert!(out.status.success(), "{}", stderr(&out));
    shard[148] ^= 1; // a's checksum
    std::fs::write(&path, &shard).unwrap();
    let index = dir.join("d.taridx");
    for (stem, payload) in [("b", b"BBBB"), ("c", b"CCCC")] {
        let out = get(&index, &[stem]);
        assert!(out.status.success(), "{stem}: {}", stderr(&out));
        assert_eq!(out.stdout, payload);
    }
    let out = get(&index, &["a.jpg"]);
    common::assert_exit_saying(&out, 1, "d_0000.tar: byte 0: ");
    // Damage in the member's own header is reported; --no-verify reads the payload.
    shard[148] ^= 1;
    shard[b_at + 148] ^= 1;
    std::fs::write(&path, &shard).unwrap();
    let out = get(&index, &["b.jpg"]);
    common::assert_exit_saying(&out, 1, &format!("byte {b_at}: "));
    let out = run(&["taridx", "get", "--no-verify", s(&index), "b.jpg"]);
    assert!(out.status.success());
    assert_eq!(out.stdout, b"BBBB");

    // -o: a file (never an input), replaced only with --force.
    let to = dir.join("b.bin");
    let out = get(&index, &["a.jpg", "-o", s(&to)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(&to).unwrap(), b"AAAA");
    let out = get(&index, &["c.jpg", "-o", s(&to)]);
    assert_eq!(out.status.code(), Some(1));
    let out = get(&index, &["c.jpg", "-o", s(&to), "-f"]);
    assert!(out.status.success());
    assert_eq!(std::fs::read(&to).unwrap(), b"CCCC");
    for input in [&index, &path] {
        let out = get(&index, &["c.jpg", "-f", "-o", s(input)]);
        common::assert_exit_saying(&out, 1, "is also an input");
    }
    // A missing shard is named; a shard id beyond the shards given is the index's.
    let out = get(&index, &["c.jpg", "--shards", s(&dir.join("missing.tar"))]);
    common::assert_exit_saying(&out, 1, "missing.tar: ");
}

#[test]
fn argument_errors_found_after_parsing_exit_2() {
    let dir = fold_copy("usage", "golden", "clean");
    for args in [
        vec!["taridx", "build", "--shards", "x.tar"],
        vec!["taridx", "build", "a_b"],
    ] {
        let mut args = args;
        if args.len() == 3 {
            args.insert(2, s(&dir));
        }
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
    let out = run(&["taridx", "get", "-", "x.jpg"]);
    common::assert_exit_saying(&out, 2, "--shards");
}

#[test]
fn get_reads_the_index_once_and_the_member_once() {
    // Three shards: only the member's shard is opened, with one read covering its own
    // header blocks and payload; the index is one read.
    let (_dir, index) = fold_built("stats", "golden", "train");
    let out = run(&[
        "--stats",
        "taridx",
        "get",
        s(&index),
        "sample000001",
        "--ext",
        "cls",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let stats: Vec<&str> = err.lines().filter(|l| l.contains("stats:")).collect();
    assert_eq!(stats.len(), 2, "{err}");
    assert!(stats[0].contains("train.taridx: 1 reads"), "{err}");
    assert!(stats[1].contains("train_0000.tar: 1 reads"), "{err}");
}
