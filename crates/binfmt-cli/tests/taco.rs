//! `binfmt` on TACO archives: the command-line contract.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]

mod common;

use std::fs;
use std::path::Path;

use common::{binfmt, json_lines, scratch};
use serde_json::Value;

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../taco-header/tests/fixtures")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn inspect_json_has_the_documented_keys() {
    let out = binfmt(&[
        "inspect",
        "--json",
        &fixture("three_entries.taco"),
        &fixture("zero_entries.taco"),
    ]);
    assert!(out.status.success(), "{out:?}");
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 2);
    let v = &lines[0];
    assert_eq!(v["format"], "taco");
    assert_eq!(v["file"], fixture("three_entries.taco"));
    assert_eq!(
        v["entries"],
        serde_json::json!([
            {"offset": 157, "length": 13},
            {"offset": 1000, "length": 1000},
            {"offset": 4_294_967_301u64, "length": 72_623_859_790_382_856u64}
        ])
    );
    let members = v["members"].as_array().unwrap();
    assert_eq!(
        members[0],
        serde_json::json!({"name": "TACO_HEADER", "size": 116, "data_offset": 41})
    );
    assert_eq!(members[3]["name"], "DATA/ñandú_日本.txt");
    assert_eq!(lines[1]["entries"], serde_json::json!([]));
}

#[test]
fn inspect_of_a_bare_header_shows_entries_without_members() {
    let dir = scratch("bare");
    let path = dir.join("range-response.bin");
    fs::write(
        &path,
        &fs::read(fixture("three_entries.taco")).unwrap()[..157],
    )
    .unwrap();
    let out = binfmt(&["inspect", "--json", path.to_str().unwrap()]);
    assert!(out.status.success());
    let v = &json_lines(&out)[0];
    assert_eq!(v["format"], "taco");
    assert_eq!(v["entries"].as_array().unwrap().len(), 3);
    assert_eq!(v["members"], Value::Null);
    assert!(
        v["members_error"]
            .as_str()
            .unwrap()
            .contains("end-of-central-directory")
    );
}

#[test]
fn verify_reports_each_problem_with_file_and_offset() {
    let dir = scratch("verify");
    let good = fixture("updated.taco");
    let bad = dir.join("bad.taco");
    let mut bytes = fs::read(&good).unwrap();
    bytes[60] ^= 0xff; // header payload: CRC mismatch
    let member = bytes.len() - 200;
    bytes[member] ^= 0xff; // inside a member's data
    fs::write(&bad, &bytes).unwrap();

    let out = binfmt(&["verify", &good]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{good}: OK (taco)\n")
    );

    let out = binfmt(&["verify", &good, bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(lines.len() >= 2, "{stderr}");
    for line in &lines {
        assert!(
            line.starts_with(&format!("{}: byte ", bad.display())),
            "{line}"
        );
    }
    assert!(
        lines[0].contains("byte 14: the header's CRC-32"),
        "{stderr}"
    );
}

#[test]
fn create_then_update_then_inspect() {
    let dir = scratch("create");
    let a = dir.join("a.parquet");
    fs::write(&a, b"PAR1 data PAR1").unwrap();
    let out_path = dir.join("out.taco");
    let out = binfmt(&[
        "taco",
        "create",
        out_path.to_str().unwrap(),
        "--entry",
        "157:13",
        "--strip-dirs",
        a.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = &json_lines(&binfmt(&["inspect", "--json", out_path.to_str().unwrap()]))[0];
    assert_eq!(v["members"][1]["name"], "a.parquet");
    let offset = v["members"][1]["data_offset"].as_u64().unwrap();

    let entry = format!("{offset}:14");
    let out = binfmt(&[
        "taco",
        "update",
        out_path.to_str().unwrap(),
        "--entry",
        &entry,
        "--entry",
        "0:0",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = &json_lines(&binfmt(&["inspect", "--json", out_path.to_str().unwrap()]))[0];
    assert_eq!(
        v["entries"],
        serde_json::json!([{"offset": offset, "length": 14}, {"offset": 0, "length": 0}])
    );
    assert!(
        binfmt(&["verify", out_path.to_str().unwrap()])
            .status
            .success()
    );

    // A header-only archive.
    let only = dir.join("only.taco");
    assert!(
        binfmt(&["taco", "create", only.to_str().unwrap()])
            .status
            .success()
    );
    assert!(binfmt(&["verify", only.to_str().unwrap()]).status.success());
}

#[test]
fn update_refuses_a_plain_zip_and_leaves_it_unchanged() {
    let dir = scratch("refuse");
    let path = dir.join("plain.zip");
    fs::copy(fixture("plain.zip"), &path).unwrap();
    let before = fs::read(&path).unwrap();
    let out = binfmt(&["taco", "update", path.to_str().unwrap(), "--entry", "1:2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("TACO_HEADER"));
    assert_eq!(fs::read(&path).unwrap(), before);
}

#[test]
fn bad_arguments_are_usage_errors() {
    for args in [
        &["taco", "update", "x.taco", "--entry", "12"][..],
        &["taco", "update", "x.taco", "--entry", "1:-2"],
        &[
            "taco",
            "update",
            "x.taco",
            "--entry",
            "1:99999999999999999999",
        ],
        &["taco", "frobnicate"],
        &["inspect"],
    ] {
        let out = binfmt(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    let eight: Vec<String> = (0..8)
        .flat_map(|i| ["--entry".to_string(), format!("{i}:{i}")])
        .collect();
    let mut args = vec!["taco", "create", "/nonexistent-dir/x.taco"];
    args.extend(eight.iter().map(String::as_str));
    let out = binfmt(&args);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at most 7"));
}

#[test]
fn garbage_never_panics() {
    let dir = scratch("garbage");
    let base = fs::read(fixture("three_entries.taco")).unwrap();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for i in 0..200 {
        let mut bytes = base.clone();
        for _ in 0..(1 + i % 8) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = (state % bytes.len() as u64) as usize;
            bytes[at] = (state >> 32) as u8;
        }
        if i % 5 == 0 {
            bytes.truncate((state % bytes.len() as u64) as usize);
        }
        let path = dir.join(format!("g{i}.taco"));
        fs::write(&path, &bytes).unwrap();
        for cmd in ["inspect", "verify"] {
            let out = binfmt(&[cmd, path.to_str().unwrap()]);
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{cmd} {i}: {out:?}"
            );
            assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
        }
    }
}
