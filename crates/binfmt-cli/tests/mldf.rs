//! `binfmt inspect|verify` on MLDF files and `binfmt mldf diff|get|pack`, through the binary.
#![allow(clippy::unwrap_used)]

mod common;

use binfmt_test_support::Scratch;
use common::{binfmt, s, scratch, text};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../mldf/tests/fixtures")
        .join(name)
}

fn ok(args: &[&str]) -> Vec<u8> {
    let out = binfmt(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn inspect_json_has_the_documented_keys() {
    let a = fixture("golden_a.mldf");
    let v = common::inspect_json(
        &a,
        &["flags", "num_samples", "page_size", "fields"],
        "mldf",
        "1.0",
    );
    assert_eq!(v["flags"], 1);
    assert_eq!(v["num_samples"], 2);
    assert_eq!(v["page_size"], 4096);
    assert_eq!(
        v["fields"],
        serde_json::json!([
            {"name": "label", "type_id": 1, "metadata_size": 8},
            {"name": "text", "type_id": 40, "metadata_size": 16}
        ])
    );
    let human = text(ok(&["inspect", s(&fixture("all_types.mldf"))]));
    assert!(human.contains("IMAGE_JPEG quality 90"), "{human}");
    let help = text(ok(&["inspect", "--help"]));
    assert!(help.contains("mldf:\n  version: "), "{help}");
}

#[test]
fn verify_reports_every_problem_with_its_offset() {
    let good = fixture("all_types.mldf");
    let out = binfmt(&["verify", s(&good)]);
    assert!(out.status.success());
    assert!(text(out.stdout).ends_with("OK (mldf)\n"));
    for (file, needle) in [
        (
            "invalid/item_crc.mldf",
            "byte 4096: sample 0, field 1: the item is corrupt",
        ),
        (
            "invalid/unreferenced_item.mldf",
            "byte 4120: allocation entry 1",
        ),
        (
            "invalid/header_crc.mldf",
            "byte 69: header checksum mismatch",
        ),
        ("invalid/incomplete.mldf", "incomplete file"),
        ("invalid/truncated_header.mldf", "truncated input"),
    ] {
        let out = binfmt(&["verify", s(&fixture(file))]);
        assert_eq!(out.status.code(), Some(1), "{file}");
        let err = text(out.stderr);
        assert!(err.contains(needle), "{file}: {err}");
    }
}

#[test]
fn get_prints_values() {
    let all = fixture("all_types.mldf");
    let all = s(&all);
    assert_eq!(text(ok(&["mldf", "get", all, "0", "caption"])), "a cat\n");
    assert_eq!(
        text(ok(&["mldf", "get", all, "2", "label"])),
        "9223372036854775807\n"
    );
    assert_eq!(text(ok(&["mldf", "get", all, "0", "1"])), "0.5\n"); // by index
    assert_eq!(
        text(ok(&["mldf", "get", all, "0", "tokens"])),
        "50256 1 70000 0\n"
    );
    assert_eq!(ok(&["mldf", "get", all, "0", "blob"]), [0, 1, 2]);
    assert!(ok(&["mldf", "get", all, "0", "icon"]).starts_with(b"\x89PNG"));
    assert!(ok(&["mldf", "get", all, "1", "blob"]).is_empty()); // null
    let v: serde_json::Value =
        serde_json::from_slice(&ok(&["mldf", "get", "--json", all, "1", "blob"])).unwrap();
    assert_eq!(v["value"], serde_json::Value::Null);
    let v: serde_json::Value =
        serde_json::from_slice(&ok(&["mldf", "get", "--json", all, "0", "photo"])).unwrap();
    assert_eq!(
        (
            v["value"]["height"].as_u64(),
            v["value"]["channels"].as_u64()
        ),
        (Some(8), Some(3))
    );
    let v: serde_json::Value =
        serde_json::from_slice(&ok(&["mldf", "get", "--json", all, "1", "score"])).unwrap();
    assert_eq!(v["value"], "-inf");
    for bad in [["9", "label"], ["0", "nope"]] {
        let out = binfmt(&["mldf", "get", all, bad[0], bad[1]]);
        assert_eq!(out.status.code(), Some(2)); // argument errors, found after parsing
        assert!(!text(out.stderr).is_empty());
    }
}

#[test]
fn diff_exits_zero_only_for_equal_content() {
    let (a, b) = (fixture("golden_a.mldf"), fixture("golden_b.mldf"));
    let out = binfmt(&["mldf", "diff", s(&a), s(&a)]);
    assert_eq!((out.status.code(), out.stdout.len()), (Some(0), 0));
    let out = binfmt(&["mldf", "diff", s(&a), s(&b)]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(out.stdout), "header.flags: 0x1 != 0x5\n");
    let out = binfmt(&["mldf", "diff", "--layout", s(&a), s(&b)]);
    assert!(text(out.stdout).contains("header.header_crc: 0x00000000 != 0x9281bbab"));
    let (c, st) = (
        fixture("all_types.mldf"),
        fixture("all_types_streaming.mldf"),
    );
    let out = text(binfmt(&["mldf", "diff", s(&c), s(&st)]).stdout);
    assert_eq!(
        out,
        "header.flags: 0x5 != 0x1\nheader.page_size: 4096 != 8192\n"
    );
    let dir = scratch("diff");
    let mut bytes = std::fs::read(&a).unwrap();
    bytes[4097] = b'o'; // "hi" -> "ho"
    bytes[512] = 8;
    let changed = dir.join("changed.mldf");
    std::fs::write(&changed, &bytes).unwrap();
    let out = binfmt(&["mldf", "diff", s(&a), s(&changed)]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(out.stdout),
        "sample 0, field \"label\": 7 != 8\nsample 0, field \"text\": \"hi\" != \"ho\"\n"
    );
    let out = binfmt(&["mldf", "diff", "--limit", "1", s(&a), s(&changed)]);
    assert!(text(out.stdout).ends_with("… 1 more differing values not listed\n"));
}

#[test]
fn pack_builds_a_dataset_from_json() {
    let dir = scratch("pack");
    // Payload files: a PNG taken from a fixture, a blob, raw pixels, PCM.
    let png = ok(&["mldf", "get", s(&fixture("all_types.mldf")), "0", "icon"]);
    std::fs::create_dir_all(dir.join("media")).unwrap();
    std::fs::write(dir.join("media/a.png"), &png).unwrap();
    std::fs::write(dir.join("media/blob.bin"), b"\x00\x01").unwrap();
    std::fs::write(dir.join("media/px.raw"), [1u8, 2, 3, 4, 5, 6]).unwrap();
    std::fs::write(dir.join("media/a.pcm"), [0u8; 8]).unwrap();
    std::fs::write(dir.join("media/v.bin"), 1.5f32.to_le_bytes().repeat(2)).unwrap();
    let schema = dir.join("schema.json");
    std::fs::write(
        &schema,
        r#"{"page_size": 4096, "checksums": true, "fields": [
            {"name": "label", "type": "int"},
            {"name": "score", "type": "float"},
            {"name": "meta", "type": "json"},
            {"name": "image", "type": "image_png", "nullable": true},
            {"name": "raw", "type": "image_raw", "nullable": true},
            {"name": "blob", "type": "bytes", "nullable": true},
            {"name": "vec", "type": "ndarray", "dtype": "f32", "shape": [2]},
            {"name": "wave", "type": "audio_waveform", "nullable": true},
            {"name": "caption", "type": "text_raw"},
            {"name": "ids", "type": "text_tokenized", "vocab_size": 100, "token_width": 2}
        ]}"#,
    )
    .unwrap();
    let samples = dir.join("samples.jsonl");
    std::fs::write(
        &samples,
        concat!(
            r#"{"label": 1, "score": 0.25, "meta": {"a": [1, null]}, "image": "media/a.png", "blob": "media/blob.bin", "vec": "media/v.bin", "wave": {"path": "media/a.pcm", "codec": "pcm", "sample_rate": 16000, "channels": 2, "bit_depth": 16}, "caption": "first", "ids": [1, 2, 3]}"#,
            "\n\n",
            r#"{"label": -5, "score": 1e300, "meta": "text", "raw": {"path": "media/px.raw", "height": 1, "width": 2, "channels": 3}, "vec": "media/v.bin", "caption": "zweite", "ids": []}"#,
            "\n"
        ),
    )
    .unwrap();
    let out = dir.join("out.mldf");
    ok(&["mldf", "pack", s(&schema), s(&samples), s(&out)]);
    assert!(text(ok(&["verify", s(&out)])).contains("OK (mldf)"));
    let o = s(&out);
    assert_eq!(text(ok(&["mldf", "get", o, "1", "label"])), "-5\n");
    assert_eq!(
        text(ok(&["mldf", "get", o, "0", "meta"])),
        "{\"a\":[1,null]}\n"
    );
    assert_eq!(text(ok(&["mldf", "get", o, "1", "meta"])), "\"text\"\n");
    assert_eq!(ok(&["mldf", "get", o, "0", "image"]), png);
    assert_eq!(ok(&["mldf", "get", o, "1", "raw"]), [1, 2, 3, 4, 5, 6]);
    assert!(ok(&["mldf", "get", o, "1", "image"]).is_empty());
    assert_eq!(text(ok(&["mldf", "get", o, "0", "ids"])), "1 2 3\n");
    let v: serde_json::Value =
        serde_json::from_slice(&ok(&["mldf", "get", "--json", o, "0", "wave"])).unwrap();
    assert_eq!(v["value"]["num_samples"], 2);
    let v: serde_json::Value =
        serde_json::from_slice(&ok(&["mldf", "get", "--json", o, "0", "image"])).unwrap();
    assert_eq!(
        (v["value"]["width"].as_u64(), v["value"]["height"].as_u64()),
        (Some(5), Some(4))
    );

    // A bad sample: nothing replaces the output, no temporary file is left.
    let before = std::fs::read(&out).unwrap();
    for (bad, needle) in [
        (
            r#"{"label": 1.5}"#,
            "line 1: field \"label\": expected an integer",
        ),
        (r#"{"labl": 1}"#, "\"labl\" is not a field"),
        (
            r#"{"label": 1, "score": 0, "meta": 1, "vec": "media/v.bin", "caption": "x", "ids": [70000]}"#,
            "token ids must be integers from 0 to 65535",
        ),
        (
            r#"{"label": 1, "score": 0, "meta": 1, "vec": "media/blob.bin", "caption": "x", "ids": []}"#,
            "neither empty nor the field's 8 bytes",
        ),
        (
            r#"{"label": 1, "score": 0, "meta": 1, "image": "media/blob.bin", "vec": "media/v.bin", "caption": "x", "ids": []}"#,
            "PNG",
        ),
        ("not json", "line 1"),
    ] {
        std::fs::write(&samples, bad).unwrap();
        let r = binfmt(&["mldf", "pack", "--force", s(&schema), s(&samples), s(&out)]);
        assert_eq!(r.status.code(), Some(1), "{bad}");
        let err = text(r.stderr);
        assert!(err.contains(needle), "{bad}: {err}");
        assert_eq!(std::fs::read(&out).unwrap(), before);
    }
    std::fs::write(
        &schema,
        r#"{"fields": [{"name": "x", "type": "int", "nullable": true}]}"#,
    )
    .unwrap();
    let r = binfmt(&["mldf", "pack", "-f", s(&schema), s(&samples), s(&out)]);
    assert!(text(r.stderr).contains("cannot be NULLABLE"));
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 4, "{names:?}"); // media, schema, samples, out
}

#[test]
fn garbage_never_panics() {
    let dir = scratch("garbage");
    let a = std::fs::read(fixture("golden_b.mldf")).unwrap();
    for (i, cut) in [0usize, 9, 40, 73, 300, 600, 4100, 4130]
        .into_iter()
        .enumerate()
    {
        let p = dir.join(format!("cut{i}.mldf"));
        std::fs::write(&p, &a[..cut]).unwrap();
        for args in [
            vec!["inspect", s(&p)],
            vec!["inspect", "--json", s(&p)],
            vec!["verify", s(&p)],
            vec!["mldf", "get", s(&p), "0", "text"],
            vec!["mldf", "diff", s(&p), s(&p)],
        ] {
            let out = binfmt(&args);
            assert!(out.status.code().is_some_and(|c| c <= 1), "{args:?}");
            assert!(!text(out.stderr).contains("panicked"), "{args:?}");
        }
    }
}

/// A directory with `schema.json`, `samples.jsonl` (one sample whose blob is `blob`) and
/// `media/blob.bin`.
fn pack_dir(test: &str, blob: &str) -> Scratch {
    let dir = scratch(test);
    std::fs::create_dir_all(dir.join("media")).unwrap();
    std::fs::write(dir.join("media/blob.bin"), b"payload").unwrap();
    std::fs::write(
        dir.join("schema.json"),
        r#"{"page_size": 4096, "fields": [{"name": "blob", "type": "bytes"}]}"#,
    )
    .unwrap();
    let line = serde_json::json!({ "blob": blob }).to_string();
    std::fs::write(dir.join("samples.jsonl"), line + "\n").unwrap();
    dir
}

fn pack_args<'a>(dir: &'a Path, out: &'a str) -> Vec<String> {
    vec![
        "mldf".into(),
        "pack".into(),
        s(&dir.join("schema.json")).into(),
        s(&dir.join("samples.jsonl")).into(),
        out.into(),
    ]
}

#[test]
fn pack_refuses_payload_paths_outside_the_samples_directory() {
    let outside = scratch("outside-secret");
    let secret = outside.join("secret.txt");
    std::fs::write(&secret, b"ssh key").unwrap();
    let cases: Vec<(&str, String)> = vec![
        (
            "dotdot",
            format!(
                "../{}/secret.txt",
                outside.file_name().unwrap().to_str().unwrap()
            ),
        ),
        ("absolute", s(&secret).to_owned()),
        ("symlink", "media/link".to_owned()),
    ];
    for (name, path) in cases {
        let dir = pack_dir(&format!("outside-{name}"), &path);
        #[cfg(unix)]
        std::os::unix::fs::symlink(&secret, dir.join("media/link")).unwrap();
        let out = dir.join("out.mldf");
        let r = binfmt(&pack_args(&dir, s(&out)));
        assert_eq!(r.status.code(), Some(1), "{name}");
        let err = text(&r.stderr);
        assert!(
            err.contains("leads outside") && err.contains("--allow-outside-paths"),
            "{name}: {err}"
        );
        assert!(!out.exists(), "{name}");
        // The flag allows it.
        let mut args = pack_args(&dir, s(&out));
        args.push("--allow-outside-paths".into());
        let r = binfmt(&args);
        assert!(r.status.success(), "{name}: {}", text(&r.stderr));
        assert_eq!(ok(&["mldf", "get", s(&out), "0", "blob"]), b"ssh key");
    }
    // Inside the directory: `..` that comes back in, an absolute path, a link inside.
    let dir = pack_dir("inside", "media/../media/blob.bin");
    let out = dir.join("out.mldf");
    ok(&pack_args(&dir, s(&out))
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>());
    assert_eq!(ok(&["mldf", "get", s(&out), "0", "blob"]), b"payload");
    // An absolute path into the directory, and a link that stays inside.
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.join("media/blob.bin"), dir.join("media/link")).unwrap();
    for path in [s(&dir.join("media/blob.bin")), "media/link"] {
        let line = serde_json::json!({ "blob": path }).to_string();
        std::fs::write(dir.join("samples.jsonl"), line).unwrap();
        let r = binfmt(&pack_args(&dir, "-"));
        assert!(r.status.success(), "{path}: {}", text(&r.stderr));
    }
}

#[test]
fn pack_never_overwrites_its_inputs() {
    let dir = pack_dir("inputs", "media/blob.bin");
    let samples = dir.join("samples.jsonl");
    let before = std::fs::read(&samples).unwrap();
    let outs = [
        samples.clone(),
        dir.join("schema.json"),
        dir.join("media/blob.bin"),
    ];
    for out in &outs {
        for force in [false, true] {
            let mut args = pack_args(&dir, s(out));
            if force {
                args.push("--force".into());
            }
            let r = binfmt(&args);
            assert_eq!(r.status.code(), Some(1), "{out:?} {force}");
            assert!(!text(&r.stderr).is_empty());
        }
    }
    assert_eq!(std::fs::read(&samples).unwrap(), before);
    assert_eq!(
        std::fs::read(dir.join("media/blob.bin")).unwrap(),
        b"payload"
    );
    // An existing output is replaced only with --force.
    let out = dir.join("out.mldf");
    std::fs::write(&out, b"keep").unwrap();
    let r = binfmt(&pack_args(&dir, s(&out)));
    assert_eq!(r.status.code(), Some(1));
    assert_eq!(std::fs::read(&out).unwrap(), b"keep");
    let mut args = pack_args(&dir, s(&out));
    args.push("-f".into());
    assert!(binfmt(&args).status.success());
    assert!(text(ok(&["verify", s(&out)])).contains("OK (mldf)"));
    // - streams to standard output: the same bytes.
    let r = binfmt(&pack_args(&dir, "-"));
    assert!(r.status.success(), "{}", text(&r.stderr));
    assert_eq!(r.stdout, std::fs::read(&out).unwrap());
}

/// `binfmt mldf pack DIR/schema.json SAMPLES DIR/NAME`, which must succeed: the file.
fn pack(dir: &Path, samples: &Path, name: &str) -> PathBuf {
    let out = dir.join(name);
    ok(&[
        "mldf",
        "pack",
        s(&dir.join("schema.json")),
        s(samples),
        s(&out),
    ]);
    out
}

#[test]
fn get_and_diff_escape_what_comes_from_the_file() {
    let dir = scratch("hostile");
    std::fs::write(
        dir.join("schema.json"),
        r#"{"page_size": 4096, "fields": [{"name": "t\u001b]0;x\u0007", "type": "text_raw"}, {"name": "j", "type": "json"}]}"#,
    )
    .unwrap();
    let long = "y".repeat(5000);
    let samples = dir.join("samples.jsonl");
    std::fs::write(
        &samples,
        format!(
            "{{\"t\\u001b]0;x\\u0007\": \"a\\u001b[2Jb\\u009bc\\nd\", \"j\": \"\\u009b{long}\"}}\n"
        ),
    )
    .unwrap();
    let a = pack(&dir, &samples, "a.mldf");
    let a = s(&a);
    // To a pipe, the stored text byte for byte (and a newline); on a terminal, escaped.
    let printed = text(ok(&["mldf", "get", a, "0", "0"]));
    assert_eq!(printed, "a\x1b[2Jb\u{9b}c\nd\n");
    if let Some(shown) = common::binfmt_on_terminal(&["mldf", "get", a, "0", "0"]) {
        assert_eq!(text(shown), "a\\e[2Jb\\u{9b}c\\nd\n");
    }
    let json = ok(&["mldf", "get", "--json", a, "0", "1"]);
    let line = text(&json);
    assert!(
        !line.contains('\u{9b}') && !line.contains('\u{1b}'),
        "{line}"
    );
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(v["value"], format!("\"\u{9b}{long}\""));
    // --raw: the stored bytes, nothing escaped or added.
    assert_eq!(
        ok(&["mldf", "get", "--raw", a, "0", "0"]),
        "a\x1b[2Jb\u{9b}c\nd".as_bytes()
    );
    // diff: names and values escaped and cut.
    let mut other = std::fs::read_to_string(&samples).unwrap();
    other = other
        .replace("c\\nd", "c\\ne")
        .replace("\\u009by", "\\u009bz");
    std::fs::write(&samples, other).unwrap();
    let b = pack(&dir, &samples, "b.mldf");
    let out = binfmt(&["mldf", "diff", a, s(&b)]);
    assert_eq!(out.status.code(), Some(1));
    let lines = text(&out.stdout);
    assert!(
        !lines.contains('\u{1b}') && !lines.contains('\u{9b}'),
        "{lines}"
    );
    assert!(
        lines.starts_with("sample 0, field \"t\\e]0;x\\u{7}\": \"a\\e[2Jb\\u{9b}c\\nd\" != "),
        "{lines}"
    );
    assert!(lines.lines().all(|l| l.chars().count() < 200), "{lines}");
}

#[test]
fn get_argument_errors_exit_2() {
    let all = fixture("all_types.mldf");
    for args in [["99", "label"], ["0", "no such field"], ["0", "999"]] {
        let out = binfmt(&["mldf", "get", s(&all), args[0], args[1]]);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).starts_with("binfmt: "), "{args:?}");
    }
    let out = binfmt(&["mldf", "diff", "-", "-"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The `cli_commands` fuzz path over every MLDF fixture, valid or not: nothing panics.
#[test]
fn fuzz_path_runs_over_every_fixture() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../mldf/tests/fixtures");
    let mut files = 0;
    for sub in [dir.clone(), dir.join("invalid")] {
        for entry in std::fs::read_dir(sub).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "mldf") {
                binfmt_cli::fuzzing::commands(&std::fs::read(&path).unwrap());
                files += 1;
            }
        }
    }
    assert!(files > 40, "{files}");
}
