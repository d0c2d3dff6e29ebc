//! `binfmt` on kastore files: the command-line contract.
#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{binfmt, stderr, stdout};
use serde_json::{Value, json};

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../kastore/tests/fixtures")
        .join(path)
}

fn binfmt_on(args: &[&str], file: &Path) -> Output {
    let mut all: Vec<&str> = args.to_vec();
    all.push(file.to_str().unwrap());
    binfmt(&all)
}

fn json_line(out: &Output) -> Value {
    serde_json::from_str(stdout(out).trim()).unwrap()
}

#[test]
fn inspect_json_has_the_documented_keys_in_order() {
    let file = fixture("valid/control.kas");
    let value = common::inspect_json(
        &file,
        &["file_size", "items", "stores", "more_stores"],
        "kastore",
        "1.0",
    );
    assert_eq!(value["file_size"], 221);
    assert_eq!(
        value["items"],
        json!([
            {"key": "a", "dtype": "uint32", "len": 3},
            {"key": "bb", "dtype": "uint8", "len": 5},
        ])
    );
    assert_eq!(
        (value["stores"].clone(), value["more_stores"].clone()),
        (json!(1), json!([]))
    );
}

#[test]
fn inspect_json_lists_a_tree_sequence_in_file_order() {
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("expected.json")).unwrap()).unwrap();
    let reference: Vec<Value> = expected["valid"]["tree.trees"]["stores"][0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| json!({"key": i["key"], "dtype": i["dtype"], "len": i["len"]}))
        .collect();
    let out = binfmt_on(&["inspect", "--json"], &fixture("valid/tree.trees"));
    assert!(out.status.success());
    let value = json_line(&out);
    assert_eq!(value["items"], Value::Array(reference));
    assert_eq!(value["items"].as_array().unwrap().len(), 62);
}

#[test]
fn inspect_shows_every_store_and_odd_keys() {
    let out = binfmt_on(&["inspect", "--json"], &fixture("valid/two_stores.kas"));
    let value = json_line(&out);
    assert_eq!(value["stores"], 2);
    assert_eq!(value["more_stores"][0]["offset"], 142);
    assert_eq!(value["more_stores"][0]["file_size"], 225);
    assert_eq!(
        value["more_stores"][0]["items"][1],
        json!({"key": "x", "dtype": "uint8", "len": 1})
    );

    let out = binfmt_on(
        &["inspect", "--json"],
        &fixture("malformed/invalid_utf8_key.kas"),
    );
    let value = json_line(&out);
    assert_eq!(
        value["items"][0],
        json!({"key": "\u{fffd}\u{fffd}", "key_hex": "fffe", "dtype": "uint8", "len": 1})
    );

    // Text: the further stores as a table, each with its offset and first keys.
    let out = binfmt_on(&["inspect"], &fixture("valid/two_stores.kas"));
    let text = stdout(&out);
    assert!(text.contains("  more_stores: 1\n"), "{text}");
    assert!(
        text.contains("    142     225        1.0      2: second, x\n"),
        "{text}"
    );
    // Keys are escaped on a terminal, byte for byte to a pipe.
    let prefix = fixture("valid/prefix_keys.kas");
    if let Some(shown) = common::binfmt_on_terminal(&["inspect", common::s(&prefix)]) {
        assert!(
            common::text(&shown).contains("a\\u{0}b"),
            "NUL shown escaped"
        );
    }
    let out = binfmt_on(&["inspect"], &prefix);
    assert!(stdout(&out).contains("a\0b"), "NUL written as it is");
    let out = binfmt_on(&["inspect"], &fixture("malformed/invalid_utf8_key.kas"));
    common::assert_contains(&stdout(&out), "    0xfffe  fffe     uint8  1\n");
}

#[test]
fn get_prints_values_or_raw_bytes() {
    let file = fixture("valid/all_dtypes.kas");
    let out = binfmt(&["kastore", "get", file.to_str().unwrap(), "float64"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<String> = stdout(&out).lines().map(String::from).collect();
    assert_eq!(lines[..4], ["0.0", "-0.0", "1.0", "-1.5"]);
    assert_eq!(lines[10..13], ["inf", "-inf", "NaN"]);
    // Every float reads back to its bits (NaN payloads apart, which text cannot show).
    for line in &lines[..12] {
        let v: f64 = line.parse().unwrap();
        assert_eq!(v.to_string().parse::<f64>().unwrap().to_bits(), v.to_bits());
    }
    let out = binfmt(&["kastore", "get", file.to_str().unwrap(), "uint64"]);
    assert!(stdout(&out).ends_with("18446744073709551615\n"));
    let out = binfmt(&["kastore", "get", file.to_str().unwrap(), "int8"]);
    assert_eq!(stdout(&out), "-128\n-127\n-1\n0\n1\n126\n127\n");

    let out = binfmt(&["kastore", "get", "--raw", file.to_str().unwrap(), "float64"]);
    let bytes = std::fs::read(&file).unwrap();
    let store = kastore::Store::parse(&bytes).unwrap();
    assert_eq!(out.stdout, store.item("float64").unwrap().bytes());

    let two = fixture("valid/two_stores.kas");
    let out = binfmt(&[
        "kastore",
        "get",
        "--store",
        "1",
        two.to_str().unwrap(),
        "second",
    ]);
    assert_eq!(stdout(&out), "0.0\n0.25\n0.5\n0.75\n1.0\n");
    let odd = fixture("malformed/invalid_utf8_key.kas");
    let out = binfmt(&["kastore", "get", "--hex", odd.to_str().unwrap(), "FFfe"]);
    assert_eq!(stdout(&out), "1\n");
}

#[test]
fn get_fails_clearly() {
    let file = fixture("valid/control.kas");
    let file = file.to_str().unwrap();
    for (args, message) in [
        (
            vec!["kastore", "get", file, "nope"],
            "key \"nope\" not found",
        ),
        (
            vec!["kastore", "get", "/no/such/file", "a"],
            "/no/such/file",
        ),
    ] {
        let out = binfmt(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
    // A store past the file's: an argument out of range (exit 2).
    let out = binfmt(&["kastore", "get", "--store", "1", file, "a"]);
    common::assert_exit_saying(&out, 2, "--store 1: ");
    assert!(stderr(&out).contains(" holds 1 store(s)"));
    assert!(out.stdout.is_empty());
    let bad = fixture("malformed/bad_type_11.kas");
    let out = binfmt(&["kastore", "get", bad.to_str().unwrap(), "a"]);
    common::assert_exit_saying(&out, 1, "byte 64: item 0: unknown element type code 11");
    // A missing argument is a usage error (exit 2, from clap).
    assert_eq!(binfmt(&["kastore", "get", file]).status.code(), Some(2));
}

#[test]
fn verify_accepts_valid_files_and_lists_problems_with_offsets() {
    let valid: Vec<PathBuf> = std::fs::read_dir(fixture("valid"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let mut args = vec!["verify"];
    args.extend(valid.iter().map(|p| p.to_str().unwrap()));
    let out = binfmt(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).matches(": OK (kastore)").count(), valid.len());

    let out = binfmt_on(&["verify"], &fixture("malformed/bad_filesize_10_1.kas"));
    common::assert_exit_saying(
        &out,
        1,
        "bad_filesize_10_1.kas: byte 16: the header's file_size is 1121, but the keys and arrays end at byte 1120",
    );
    let out = binfmt_on(&["verify"], &fixture("malformed/trailing_garbage.kas"));
    assert!(stderr(&out).contains("byte 137"), "{}", stderr(&out));
}

#[test]
fn no_malformed_file_makes_the_cli_panic() {
    for entry in std::fs::read_dir(fixture("malformed")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        for args in [vec!["inspect"], vec!["inspect", "--json"], vec!["verify"]] {
            let out = binfmt_on(&args, &path);
            let code = out.status.code();
            assert!(matches!(code, Some(0 | 1)), "{name} {args:?}: {code:?}");
            assert!(
                !stderr(&out).contains("panicked"),
                "{name}: {}",
                stderr(&out)
            );
        }
        let out = binfmt(&["kastore", "get", path.to_str().unwrap(), "a"]);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{name}");
        assert!(!stderr(&out).contains("panicked"), "{name}");
    }
}

#[test]
fn inspect_json_reports_errors_per_file() {
    let out = binfmt_on(
        &["inspect", "--json"],
        &fixture("malformed/bad_type_11.kas"),
    );
    assert_eq!(out.status.code(), Some(1));
    let value = json_line(&out);
    assert_eq!(value["format"], "kastore");
    assert!(
        value["error"].as_str().unwrap().contains("byte 64"),
        "{value}"
    );
}

#[test]
fn help_documents_the_json_keys() {
    let out = binfmt(&["inspect", "--help"]);
    let help = stdout(&out);
    for key in [
        "\n  version: ",
        "\n  file_size: ",
        "\n  items: ",
        "\n      key_hex: ",
        "\n  stores: ",
        "\n  more_stores: ",
        "\n          key_hex: ",
    ] {
        assert!(help.contains(key), "{key} missing from inspect --help");
    }
    let out = binfmt(&["kastore", "get", "--help"]);
    assert!(stdout(&out).contains("--raw"));
}

/// A kastore file with `keys`, each holding one `u8`.
fn store_with_keys(keys: &[&[u8]]) -> Vec<u8> {
    let mut builder = kastore::Writer::new();
    for key in keys {
        builder.add(*key, &[7u8]).unwrap();
    }
    builder.to_vec().unwrap()
}

#[test]
fn inspect_shows_long_and_control_keys_bounded_and_escaped() {
    // Regression: a valid file with a 13 KB key made the text table panic (exit 101,
    // "format width out of range").
    for fixture_name in ["valid/long_key.kas", "valid/long_control_key.kas"] {
        let file = fixture(fixture_name);
        let out = binfmt_on(&["inspect"], &file);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let text = stdout(&out);
        assert!(text.lines().all(|l| l.chars().count() < 120), "{text}");
        if let Some(shown) = common::binfmt_on_terminal(&["inspect", common::s(&file)]) {
            let shown = common::text(&shown);
            assert!(shown.lines().all(|l| l.chars().count() < 120), "{shown}");
            assert!(
                !shown.chars().any(|c| c.is_control() && c != '\n'),
                "{shown}"
            );
        }
        // JSON keeps the whole key.
        let value = json_line(&binfmt_on(&["inspect", "--json"], &file));
        let longest = value["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["key"].as_str().unwrap().chars().count())
            .max()
            .unwrap();
        assert!(longest >= 1000, "{fixture_name}: {longest}");
    }
    let dir = common::scratch("control_keys");
    let file = dir.join("keys.kas");
    let long = vec![b'\x1b'; 13_000];
    std::fs::write(
        &file,
        store_with_keys(&[b"\x1b]0;pwned\x07", b"a\tb\nc", b"\x9b\xff", &long]),
    )
    .unwrap();
    let out = binfmt_on(&["inspect"], &file);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // To a pipe the keys go as they are (cut to a bounded width), on a terminal escaped.
    let text = stdout(&out);
    assert!(text.contains("\x1b]0;pwned\x07"), "{text}");
    assert!(text.contains("0x9bff"), "{text}");
    if let Some(shown) = common::binfmt_on_terminal(&["inspect", common::s(&file)]) {
        let text = common::text(&shown);
        assert!(!text.contains('\x1b') && !text.contains('\x07'), "{text}");
        assert!(text.contains("\\e]0;pwned\\u{7}"), "{text}");
        assert!(text.contains("a\\tb\\nc"), "{text}");
        assert!(text.contains("0x9bff"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() < 120), "{text}");
    }
    let out = binfmt(&["kastore", "get", "--hex", common::s(&file), "9bff"]);
    assert_eq!(stdout(&out), "7\n");
}

#[test]
fn trailing_bytes_are_accepted_with_a_warning() {
    // Regression: bytes after the store (which kastore and tskit load) made every command
    // fail.
    let file = fixture("malformed/trailing_garbage.kas");
    let warning = "warning: byte 137: 8 bytes after the end of the store are not a kastore store";
    let out = binfmt_on(&["inspect", "--json"], &file);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value = json_line(&out);
    assert_eq!(value["stores"], 1);
    assert_eq!(value["warnings"][0]["offset"], 137);
    assert!(stderr(&out).contains(warning), "{}", stderr(&out));
    let out = binfmt_on(&["inspect"], &file);
    common::assert_exit_saying(&out, 0, warning);
    let out = binfmt_on(&["verify"], &file);
    common::assert_exit_saying(&out, 0, warning);
    let out = binfmt(&["kastore", "get", common::s(&file), "a"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "1\n");
    assert!(stderr(&out).contains(warning), "{}", stderr(&out));

    // A real second store is still a store, and what follows the last one is named.
    let dir = common::scratch("trailing");
    let two = std::fs::read(fixture("valid/two_stores.kas")).unwrap();
    let out = binfmt(&[
        "kastore",
        "get",
        common::s(&fixture("valid/two_stores.kas")),
        "first",
    ]);
    assert_eq!(
        (stdout(&out).as_str(), stderr(&out).as_str()),
        ("1\n2\n3\n", "")
    );
    let padded = dir.join("padded.kas");
    let mut bytes = two.clone();
    bytes.extend_from_slice(b"\x89KAS");
    std::fs::write(&padded, &bytes).unwrap();
    let out = binfmt_on(&["inspect", "--json"], &padded);
    let value = json_line(&out);
    assert_eq!(
        (
            value["stores"].clone(),
            value["more_stores"][0]["offset"].clone()
        ),
        (json!(2), json!(142))
    );
    assert_eq!(value["warnings"][0]["offset"], 367);
    for args in [
        vec!["kastore", "get", "--store", "1", common::s(&padded), "x"],
        vec!["verify", common::s(&padded)],
    ] {
        let out = binfmt(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("warning: byte 367: 4 bytes after the end of the store"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // The first store of that file is followed by a store: no warning.
    let out = binfmt(&["kastore", "get", common::s(&padded), "first"]);
    assert_eq!(
        (stdout(&out).as_str(), stderr(&out).as_str()),
        ("1\n2\n3\n", "")
    );
}

#[test]
fn get_rejects_bad_hex_as_a_usage_error() {
    let file = fixture("valid/control.kas");
    for bad in ["zz", "6", "é0"] {
        let out = binfmt(&["kastore", "get", "--hex", common::s(&file), bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(stderr(&out).contains("--hex"), "{}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn get_reads_standard_input() {
    let bytes = std::fs::read(fixture("valid/two_stores.kas")).unwrap();
    for (args, expected) in [
        (vec!["kastore", "get", "-", "first"], "1\n2\n3\n"),
        (
            vec!["kastore", "get", "--store", "1", "-", "second"],
            "0.0\n0.25\n0.5\n0.75\n1.0\n",
        ),
    ] {
        let out = common::binfmt_fed(&args, &bytes);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(stdout(&out), expected);
    }
}
