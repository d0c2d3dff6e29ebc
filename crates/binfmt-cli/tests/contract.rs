//! The command-line contract across formats: what reaches a terminal is escaped and
//! URLs are redacted (one escaper, `binfmt_core::text`, at the message sink); data goes to
//! a pipe byte for byte; one rule for a standard output that is closed early or from the
//! start; exit codes; messages that name each file once and say what a file is.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::{binfmt, json_lines, s, scratch, sh, stderr, stdout};

fn fixture(krate: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("tests/fixtures")
        .join(name)
}

/// No raw ESC, BEL, CSI (C1) or bidi control in `bytes`.
fn assert_terminal_safe(bytes: &[u8], what: &str) {
    assert!(
        !bytes.contains(&0x1b) && !bytes.contains(&0x07),
        "{what}: raw ESC or BEL in {:?}",
        common::text(bytes)
    );
    let text = common::text(bytes);
    assert!(
        !text.contains('\u{9b}') && !text.contains('\u{202e}'),
        "{what}: {text:?}"
    );
}

/// A Bloscpack file of `len` random-looking bytes, and those bytes.
fn bloscpack_file(dir: &Path, len: usize) -> (PathBuf, Vec<u8>) {
    let data: Vec<u8> = (0..len)
        .map(|i| u8::try_from((i * 7919 + i / 13) % 251).unwrap())
        .collect();
    let raw = dir.join("data.bin");
    std::fs::write(&raw, &data).unwrap();
    let packed = dir.join("data.blp");
    let out = binfmt(&["bloscpack", "pack", s(&raw), s(&packed)]);
    assert!(out.status.success(), "{}", stderr(&out));
    (packed, data)
}

/// An MLDF dataset with one text field holding `text` in sample 0.
fn mldf_with_text(dir: &Path, text: &str) -> PathBuf {
    let schema = dir.join("schema.json");
    std::fs::write(
        &schema,
        r#"{"page_size": 4096, "fields": [{"name": "t", "type": "text_raw"}]}"#,
    )
    .unwrap();
    let samples = dir.join("samples.jsonl");
    let line = serde_json::json!({ "t": text }).to_string();
    std::fs::write(&samples, format!("{line}\n")).unwrap();
    let out = dir.join("text.mldf");
    let r = binfmt(&["mldf", "pack", s(&schema), s(&samples), s(&out)]);
    assert!(r.status.success(), "{}", stderr(&r));
    out
}

// 1. One escaper, one redaction: URLs never print their credentials or signature.

#[cfg(feature = "remote")]
#[test]
fn urls_are_redacted_in_messages_stats_and_json() {
    let url = "http://AKIAUSER:s3cr3t@127.0.0.1:9/b/x.taco?X-Amz-Credential=AKIAUSER%2F20260101&X-Amz-Signature=deadbeef#frag";
    for args in [
        vec!["--stats", "inspect", url],
        vec!["inspect", "--json", url],
        vec!["verify", "--json", url],
        vec!["kastore", "get", url, "k"],
    ] {
        let out = binfmt(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let all = format!("{}{}", stdout(&out), stderr(&out));
        for secret in ["s3cr3t", "AKIAUSER", "deadbeef", "X-Amz-", "frag"] {
            assert!(!all.contains(secret), "{args:?}: {secret} in {all}");
        }
        assert!(
            all.contains("http://127.0.0.1:9/b/x.taco?…"),
            "{args:?}: {all}"
        );
    }
    let out = binfmt(&["inspect", "--json", url]);
    assert_eq!(json_lines(&out)[0]["file"], "http://127.0.0.1:9/b/x.taco?…");
}

// 2. Every text that reaches a terminal goes through the escaper, third-party texts too.

#[cfg(feature = "remote")]
#[test]
fn remote_error_texts_are_escaped() {
    let out = binfmt(&["inspect", "http://127.0.0.1:9/%1b]0;PWNED%07%1b[2J/x"]);
    assert_eq!(out.status.code(), Some(1));
    assert_terminal_safe(&out.stderr, "inspect URL");
    let out = binfmt(&[
        "--stats",
        "verify",
        "http://127.0.0.1:9/\u{1b}]0;PWNED\u{7}/x",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_terminal_safe(&out.stderr, "verify URL");
}

#[test]
fn io_and_argument_error_texts_are_escaped() {
    let hostile = "/no/such/dir/\u{1b}]0;PWNED\u{7}\u{9b}2J\u{202e}.taco";
    let out = binfmt(&["inspect", hostile]);
    assert_eq!(out.status.code(), Some(1));
    assert_terminal_safe(&out.stderr, "inspect");
    common::assert_contains(&stderr(&out), "\\e]0;PWNED\\u{7}");
    // clap quotes the arguments it refuses: through the sink too, still exit 2.
    let out = binfmt(&[
        "bloscpack",
        "unpack",
        "--threads",
        "\u{1b}[2J\u{7}",
        "a",
        "b",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_terminal_safe(&out.stderr, "clap");
    let out = binfmt(&["no-such-command\u{1b}[2J"]);
    assert_eq!(out.status.code(), Some(2));
    assert_terminal_safe(&out.stderr, "clap subcommand");
}

// 3. Data to a pipe byte for byte; escapes on a terminal only.

#[test]
fn stored_text_goes_to_a_pipe_byte_for_byte() {
    let dir = scratch("pipe_bytes");
    let stored = "tab\there\nnew line \u{1b}[31mred\u{7} \\ back";
    let file = mldf_with_text(&dir, stored);
    let out = binfmt(&["mldf", "get", s(&file), "0", "t"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, format!("{stored}\n").as_bytes());
    // Through a file as well (`> out`).
    let copy = dir.join("out.txt");
    let r = sh(&format!(
        "\"$BINFMT\" mldf get '{}' 0 t > '{}'",
        s(&file),
        s(&copy)
    ));
    assert!(r.status.success(), "{}", stderr(&r));
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        format!("{stored}\n").as_bytes()
    );
    // On a terminal: escaped.
    if let Some(shown) = common::binfmt_on_terminal(&["mldf", "get", s(&file), "0", "t"]) {
        assert_eq!(
            common::text(&shown),
            "tab\\there\\nnew line \\e[31mred\\u{7} \\\\ back\n"
        );
    }
    // A TACO listing's names in inspect's text: as stored to a pipe.
    let taco = dir.join("names.taco");
    let mut builder = taco_header::Writer::new(taco_header::Entries::new());
    builder.options(taco_header::WriterOptions::new().verbatim_names(true));
    builder.add_bytes("a\tb\u{1b}[1m.txt", b"x".to_vec());
    builder.write_to_path(&taco).unwrap();
    let out = binfmt(&["inspect", s(&taco)]);
    common::assert_contains(&stdout(&out), "a\tb\u{1b}[1m.txt");
}

// 4. Standard output closed early, or from the start.

/// Runs `args`, reads 10 bytes of standard output, closes it, and waits.
fn close_after_ten_bytes(args: &[&str]) -> std::process::Output {
    let mut child = common::spawn_binfmt(args, Stdio::null());
    let mut stdout = child.stdout.take().unwrap();
    let mut ten = [0u8; 10];
    stdout
        .read_exact(&mut ten)
        .unwrap_or_else(|e| panic!("{args:?}: {e}"));
    drop(stdout);
    child.wait_with_output().unwrap()
}

#[test]
fn a_pipe_closed_early_ends_every_writer_quietly_with_0() {
    let dir = scratch("epipe");
    let (packed, data) = bloscpack_file(&dir, 4 << 20);
    let raw = dir.join("data.bin");
    let big_text = "z".repeat(1 << 20);
    let mldf = mldf_with_text(&dir, &big_text);
    let kas = fixture("kastore", "valid/control.kas");
    let many: Vec<String> = core::iter::repeat_n(s(&kas).to_owned(), 20_000).collect();
    let mut inspect_many = vec!["inspect", "--json"];
    inspect_many.extend(many.iter().map(String::as_str));
    let mut verify_many = vec!["verify"];
    verify_many.extend(many.iter().map(String::as_str));
    for args in [
        vec!["bloscpack", "unpack", s(&packed), "-"],
        vec!["bloscpack", "pack", s(&raw), "-"],
        vec!["taco", "create", "--strip-dirs", "-", s(&raw)],
        vec!["mldf", "get", "--raw", s(&mldf), "0", "t"],
        vec!["mldf", "get", s(&mldf), "0", "t"],
        inspect_many,
        verify_many,
    ] {
        let out = close_after_ten_bytes(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{:?}: {}",
            &args[..2],
            stderr(&out)
        );
        assert!(
            !stderr(&out).contains("Broken pipe") && !stderr(&out).contains("unpacked"),
            "{:?}: {}",
            &args[..2],
            stderr(&out)
        );
    }
    assert!(data.len() > 1 << 20);
}

#[cfg(unix)]
#[test]
fn a_closed_standard_output_is_an_error() {
    let dir = scratch("closed_stdout");
    let (packed, _) = bloscpack_file(&dir, 100_000);
    let raw = dir.join("data.bin");
    let kas = fixture("kastore", "valid/control.kas");
    let mldf = mldf_with_text(&dir, "hello");
    for command in [
        format!("bloscpack unpack '{}' -", s(&packed)),
        format!("bloscpack pack '{}' -", s(&raw)),
        format!("taco create --strip-dirs - '{}'", s(&raw)),
        format!("inspect '{}'", s(&kas)),
        format!("inspect --json '{}'", s(&kas)),
        format!("verify '{}'", s(&kas)),
        format!("kastore get '{}' a", s(&kas)),
        format!("mldf get '{}' 0 t", s(&mldf)),
        format!("mldf diff '{}' '{}'", s(&mldf), s(&mldf)),
        "completions bash".to_owned(),
        "man taco update".to_owned(),
    ] {
        let out = sh(&format!("\"$BINFMT\" {command} >&-"));
        assert_eq!(out.status.code(), Some(1), "{command}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("standard output"), "{command}: {err}");
        assert!(
            !err.contains("unpacked") && !err.contains("packed"),
            "{command}: {err}"
        );
    }
    // Writing to /dev/null is writing: that works, opened for writing (`>`) or for
    // reading and writing (`1<>`, as Python's `subprocess.DEVNULL` opens it, and as the
    // Rust runtime fills a closed descriptor: only the binary's start-up tells them apart).
    for redirect in ["> /dev/null", "1<> /dev/null"] {
        let out = sh(&format!("\"$BINFMT\" inspect '{}' {redirect}", s(&kas)));
        assert_eq!(out.status.code(), Some(0), "{redirect}: {}", stderr(&out));
        let out = sh(&format!(
            "\"$BINFMT\" bloscpack unpack '{}' - {redirect}",
            s(&packed)
        ));
        assert_eq!(out.status.code(), Some(0), "{redirect}: {}", stderr(&out));
    }
    // A command that writes nothing to standard output does not care.
    let copy = dir.join("copy.bin");
    let out = sh(&format!(
        "\"$BINFMT\" bloscpack unpack '{}' '{}' >&-",
        s(&packed),
        s(&copy)
    ));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

// 5. Exit codes.

#[test]
fn verify_warnings_leave_the_exit_code_alone_unless_strict() {
    let dir = scratch("strict");
    let mut bytes = std::fs::read(fixture("kastore", "valid/control.kas")).unwrap();
    bytes.extend_from_slice(b"trailing!");
    let file = dir.join("trailing.kas");
    std::fs::write(&file, bytes).unwrap();
    let out = binfmt(&["verify", s(&file)]);
    common::assert_exit_saying(&out, 0, "warning: ");
    assert!(stdout(&out).contains(": OK (kastore)"));
    let out = binfmt(&["verify", "--json", s(&file)]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json_lines(&out)[0]["valid"], true);
    let out = binfmt(&["verify", "--strict", s(&file)]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(!stdout(&out).contains("OK"));
    let out = binfmt(&["verify", "--strict", "--json", s(&file)]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_lines(&out)[0]["valid"], false);
}

#[test]
fn argument_values_out_of_range_exit_2() {
    let dir = scratch("ranges");
    let raw = dir.join("in.bin");
    std::fs::write(&raw, vec![1u8; 5000]).unwrap();
    let meta = dir.join("meta.json");
    std::fs::write(&meta, r#"{"a": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}"#).unwrap();
    let out_file = dir.join("out.blp");
    for extra in [
        vec!["--max-app-chunks", "18446744073709551615"],
        vec!["--max-meta-size", "1", "-m", s(&meta)],
    ] {
        let mut args = vec!["bloscpack", "pack", s(&raw), s(&out_file)];
        args.extend(extra.iter().copied());
        let out = binfmt(&args);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("--help"), "{}", stderr(&out));
        assert!(!out_file.exists());
    }
}

// 6. Messages.

#[cfg(feature = "remote")]
#[test]
fn a_url_is_named_once() {
    let url = "http://127.0.0.1:9/x.trees";
    for args in [vec!["inspect", url], vec!["kastore", "get", url, "k"]] {
        let out = binfmt(&args);
        assert_eq!(out.status.code(), Some(1));
        let err = stderr(&out);
        assert_eq!(err.matches("127.0.0.1:9/x.trees").count(), 1, "{err}");
        assert!(err.starts_with(&format!("binfmt: {url}: ")), "{err}");
    }
}

#[test]
fn empty_files_and_files_of_another_format_are_named() {
    let dir = scratch("what_is_it");
    let empty = dir.join("empty");
    std::fs::write(&empty, b"").unwrap();
    for args in [
        vec!["inspect", s(&empty)],
        vec!["verify", s(&empty)],
        vec!["kastore", "get", s(&empty), "k"],
        vec!["mldf", "get", s(&empty), "0", "t"],
        vec!["bloscpack", "unpack", s(&empty), "-"],
    ] {
        let out = binfmt(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&out).ends_with(&format!("{}: empty file\n", s(&empty))),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let taco = fixture("taco-header", "three_entries.taco");
    let kas = fixture("kastore", "valid/control.kas");
    // In-place edits open the file themselves: a copy, which they leave unchanged.
    let copy = dir.join("copy.kas");
    std::fs::copy(&kas, &copy).unwrap();
    for (args, says) in [
        (
            vec!["kastore", "get", s(&taco), "k"],
            "this is a TACO archive, not a kastore store",
        ),
        (
            vec!["mldf", "get", s(&kas), "0", "t"],
            "this is a kastore store, not an MLDF dataset",
        ),
        (
            vec!["bloscpack", "unpack", s(&kas), "-"],
            "this is a kastore store, not a Bloscpack file",
        ),
        (
            vec!["taco", "update", s(&kas)],
            "this is a kastore store, not a TACO archive",
        ),
        (
            vec!["bloscpack", "append", s(&copy), s(&kas)],
            "this is a kastore store, not a Bloscpack file",
        ),
        (
            vec!["taridx", "get", s(&kas), "stem", "--shards", s(&kas)],
            "this is a kastore store, not a .taridx index",
        ),
    ] {
        let out = binfmt(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(std::fs::read(&copy).unwrap(), std::fs::read(&kas).unwrap());
}

#[test]
fn json_versions_are_strings_and_empty_tables_agree() {
    let files = [
        fixture("taco-header", "three_entries.taco"),
        fixture("kastore", "valid/control.kas"),
        fixture("mldf", "all_types.mldf"),
    ];
    let out = binfmt(&["inspect", "--json", s(&files[1]), s(&files[2])]);
    for v in json_lines(&out) {
        let version = v["version"].as_str().unwrap_or_else(|| panic!("{v}"));
        let (major, minor) = version.split_once('.').unwrap();
        assert!(
            major.parse::<u32>().is_ok() && minor.parse::<u32>().is_ok(),
            "{v}"
        );
    }
    let dir = scratch("versions");
    let (packed, _) = bloscpack_file(&dir, 1000);
    let v = &json_lines(&binfmt(&["inspect", "--json", s(&packed)]))[0];
    assert_eq!(v["version"], "3");
    // kastore's more_stores: [] in JSON, `none` in text (an empty list either way).
    let v = &json_lines(&binfmt(&["inspect", "--json", s(&files[1])]))[0];
    assert_eq!(v["more_stores"], serde_json::json!([]));
    let text = stdout(&binfmt(&["inspect", s(&files[1])]));
    assert!(text.contains("  more_stores: none\n"), "{text}");
}
