//! `binfmt inspect|verify` on Bloscpack files and `binfmt bloscpack pack|unpack|append`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]

mod common;

use std::path::{Path, PathBuf};

use common::{run, s, scratch, text};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bloscpack-header/tests/fixtures")
        .join(name)
}

#[test]
fn inspect_json_has_the_documented_keys_in_order() {
    let path = fixture("ramp_100000.blp");
    let out = run(&["inspect", "--json", s(&path)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let line = text(&out.stdout);
    let v: Value = serde_json::from_str(line.trim()).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "file",
            "format",
            "version",
            "options",
            "checksum",
            "typesize",
            "chunk_size",
            "last_chunk",
            "nchunks",
            "max_app_chunks",
            "offsets",
            "metadata",
            "chunks"
        ]
    );
    assert_eq!(v["format"], "bloscpack");
    assert_eq!(v["version"], 3);
    assert_eq!(v["options"], 1);
    assert_eq!(v["checksum"], "adler32");
    assert_eq!(v["typesize"], 8);
    assert_eq!(v["chunk_size"], 32768);
    assert_eq!(v["last_chunk"], 1696);
    assert_eq!(v["nchunks"], 4);
    assert_eq!(v["max_app_chunks"], 40);
    assert_eq!(v["offsets"], serde_json::json!([384, 1516, 2127, 2961]));
    assert_eq!(v["metadata"], Value::Null);
    assert_eq!(
        v["chunks"][0],
        serde_json::json!({"offset": 384, "nbytes": 32768, "cbytes": 1128, "blocksize": 32768, "typesize": 8, "flags": 1})
    );
    // The numbers are bloscpack's own (expected.json was written by it).
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("expected.json")).unwrap()).unwrap();
    let r = &expected["fixtures"]["ramp_100000"]["reference"];
    for (i, c) in r["chunks"].as_array().unwrap().iter().enumerate() {
        for key in [
            "offset",
            "nbytes",
            "cbytes",
            "blocksize",
            "typesize",
            "flags",
        ] {
            let theirs = if key == "cbytes" {
                &c["cbytes"]
            } else {
                &c[key]
            };
            assert_eq!(&v["chunks"][i][key], theirs, "chunk {i} {key}");
        }
    }
}

#[test]
fn inspect_decodes_metadata_and_shows_text() {
    let out = run(&["inspect", "--json", s(&fixture("ndarray_c.blp"))]);
    let v: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(v["metadata"]["dtype"], "'<f8'");
    assert_eq!(v["metadata"]["shape"], serde_json::json!([20, 30]));
    let out = run(&["inspect", s(&fixture("meta_zlib.blp"))]);
    assert!(out.status.success());
    let t = text(&out.stdout);
    assert!(t.contains("metadata (233 bytes, JSON zlib"), "{t}");
    assert!(t.contains("chunk 2 at byte"), "{t}");
}

#[test]
fn inspect_of_a_bad_file_fails_with_the_offset() {
    let out = run(&["inspect", "--json", s(&fixture("bad_options.blp"))]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert!(v["error"].as_str().unwrap().contains("byte 5"), "{v}");
}

#[test]
fn verify_reports_every_problem_with_its_offset() {
    let good = fixture("checksum_sha256.blp");
    let out = run(&["verify", s(&good)]);
    assert!(out.status.success());
    assert!(text(&out.stdout).contains("OK (bloscpack)"));
    for (name, needle) in [
        ("bad_digest.blp", "crc32 digest"),
        ("bad_meta_digest.blp", "digest of the metadata"),
        ("truncated.blp", "truncated input"),
        ("truncated_digest.blp", "chunk digest"),
        ("bad_magic.blp", "unknown format"),
        ("bad_checksum_id.blp", "checksum id"),
    ] {
        let out = run(&["verify", s(&fixture(name))]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let err = text(&out.stderr);
        assert!(err.contains(needle), "{name}: {err}");
        if name != "bad_magic.blp" {
            // Every line names the file, then the offset (once, in or before the message).
            for line in err.lines() {
                assert!(
                    line.starts_with(s(&fixture(name))) && line.contains("byte "),
                    "{name}: {line}"
                );
            }
        }
    }
}

#[test]
fn pack_unpack_append_round_trip() {
    let dir = scratch("roundtrip");
    let input = fixture("ramp.bin");
    let meta = dir.join("meta.json");
    std::fs::write(&meta, br#"{ "name": "ramp", "n": [1, 2, 3] }"#).unwrap();
    let blp = dir.join("out.blp");
    let out = run(&[
        "bloscpack",
        "pack",
        s(&input),
        s(&blp),
        "--chunk-size",
        "4K",
        "--codec",
        "lz4",
        "--shuffle",
        "bit",
        "--checksum",
        "sha1",
        "--metadata",
        s(&meta),
        "--meta-codec",
        "none",
        "--max-app-chunks",
        "2",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: Value =
        serde_json::from_str(text(&run(&["inspect", "--json", s(&blp)]).stdout).trim()).unwrap();
    assert_eq!(v["checksum"], "sha1");
    assert_eq!(v["chunk_size"], 4096);
    assert_eq!(v["max_app_chunks"], 2);
    assert_eq!(
        v["metadata"],
        serde_json::json!({"name": "ramp", "n": [1, 2, 3]})
    );
    assert_eq!(v["chunks"][0]["flags"].as_u64().unwrap() >> 5, 1, "lz4");

    // Refuses to overwrite without --force.
    let again = run(&["bloscpack", "pack", s(&input), s(&blp)]);
    assert_eq!(again.status.code(), Some(1));
    assert!(text(&again.stderr).contains("--force"));

    let raw = dir.join("out.bin");
    let out = run(&["bloscpack", "unpack", s(&blp), s(&raw)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&raw).unwrap(), std::fs::read(&input).unwrap());

    // 20,000 more bytes need 5 new chunks; there are 2 spare slots: refused, unchanged.
    let big = dir.join("big.bin");
    std::fs::write(&big, std::fs::read(&input).unwrap().repeat(2)).unwrap();
    let before = std::fs::read(&blp).unwrap();
    let out = run(&["bloscpack", "append", s(&blp), s(&big)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("spare offset slots"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(&blp).unwrap(), before);

    // 2,000 bytes fit (top-up plus one chunk).
    let small = dir.join("small.bin");
    std::fs::write(&small, &std::fs::read(&input).unwrap()[..3000]).unwrap();
    let out = run(&["bloscpack", "append", s(&blp), s(&small), "--clevel", "9"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(&["bloscpack", "unpack", s(&blp), s(&raw), "--force"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut want = std::fs::read(&input).unwrap();
    want.extend_from_slice(&std::fs::read(&small).unwrap());
    assert_eq!(std::fs::read(&raw).unwrap(), want);
    assert!(run(&["verify", s(&blp)]).status.success());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn errors_are_clean() {
    let dir = scratch("errors");
    let out_path = dir.join("x.bin");
    // A corrupt file is not unpacked, and no output appears.
    let out = run(&[
        "bloscpack",
        "unpack",
        s(&fixture("bad_digest.blp")),
        s(&out_path),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("does not match"));
    assert!(!out_path.exists());
    // Append needs an offsets section; the file is left as it was.
    let blp = dir.join("no_offsets.blp");
    std::fs::copy(fixture("no_offsets.blp"), &blp).unwrap();
    let out = run(&["bloscpack", "append", s(&blp), s(&fixture("ramp.bin"))]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no offsets section"));
    assert_eq!(
        std::fs::read(&blp).unwrap(),
        std::fs::read(fixture("no_offsets.blp")).unwrap()
    );
    // Bad arguments are clap's exit code 2.
    for args in [
        &["bloscpack", "pack", "a", "b", "--clevel", "10"][..],
        &["bloscpack", "pack", "a", "b", "--chunk-size", "3G"],
        &["bloscpack", "pack", "a", "b", "--checksum", "crc64"],
        &["bloscpack", "pack", "a", "b", "--typesize", "0"],
    ] {
        assert_eq!(run(args).status.code(), Some(2), "{args:?}");
    }
    // A missing input is an error, not a panic.
    let out = run(&[
        "bloscpack",
        "pack",
        s(&dir.join("missing")),
        s(&dir.join("y.blp")),
    ]);
    assert_eq!(out.status.code(), Some(1));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn help_documents_the_json_keys() {
    let out = run(&["inspect", "--help"]);
    let t = text(&out.stdout);
    assert!(t.contains("\"max_app_chunks\""), "{t}");
    let out = run(&["bloscpack", "pack", "--help"]);
    assert!(text(&out.stdout).contains("--chunk-size"));
}
