//! `binfmt` on TACO archives: the command-line contract.
#![allow(clippy::unwrap_used, clippy::cast_possible_truncation)]

mod common;

use std::fs;
use std::path::Path;

use common::{binfmt, json_lines, s, scratch, stderr, stdout};
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
    let header = &fs::read(fixture("three_entries.taco")).unwrap()[..157];
    let path = dir.file("range-response.bin", header);
    let out = binfmt(&["inspect", "--json", s(&path)]);
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

    let out = binfmt(&["verify", &good, s(&bad)]);
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
    let a = dir.file("a.parquet", b"PAR1 data PAR1");
    let out_path = dir.join("out.taco");
    let out = binfmt(&[
        "taco",
        "create",
        s(&out_path),
        "--entry",
        "157:13",
        "--strip-dirs",
        s(&a),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = &json_lines(&binfmt(&["inspect", "--json", s(&out_path)]))[0];
    assert_eq!(v["members"][1]["name"], "a.parquet");
    let offset = v["members"][1]["data_offset"].as_u64().unwrap();

    let entry = format!("{offset}:14");
    let out = binfmt(&[
        "taco",
        "update",
        s(&out_path),
        "--entry",
        &entry,
        "--entry",
        "0:0",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = &json_lines(&binfmt(&["inspect", "--json", s(&out_path)]))[0];
    assert_eq!(
        v["entries"],
        serde_json::json!([{"offset": offset, "length": 14}, {"offset": 0, "length": 0}])
    );
    assert!(binfmt(&["verify", s(&out_path)]).status.success());

    // A header-only archive.
    let only = dir.join("only.taco");
    assert!(binfmt(&["taco", "create", s(&only)]).status.success());
    assert!(binfmt(&["verify", s(&only)]).status.success());
}

#[test]
fn update_refuses_a_plain_zip_and_leaves_it_unchanged() {
    let dir = scratch("refuse");
    let path = dir.join("plain.zip");
    fs::copy(fixture("plain.zip"), &path).unwrap();
    let before = fs::read(&path).unwrap();
    let out = binfmt(&["taco", "update", s(&path), "--entry", "1:2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("TACO_HEADER"));
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
    // Found after parsing, still an argument error: exit 2, nothing created.
    let eight: Vec<String> = (0..8)
        .flat_map(|i| ["--entry".to_string(), format!("{i}:{i}")])
        .collect();
    let dir = scratch("usage");
    let out_path = dir.join("x.taco");
    for command in ["create", "update"] {
        let mut args = vec!["taco", command, s(&out_path)];
        args.extend(eight.iter().map(String::as_str));
        let out = binfmt(&args);
        assert_eq!(out.status.code(), Some(2), "{command}: {out:?}");
        assert!(stderr(&out).contains("at most 7"), "{}", stderr(&out));
        assert!(!out_path.exists());
    }
    // Names refused by the archive's rules come from the arguments: exit 2 too.
    let a = dir.file("a.txt", b"a");
    for args in [
        vec!["taco", "create", s(&out_path), s(&a), s(&a)],
        vec!["taco", "create", s(&out_path), "--strip-dirs", s(&a), s(&a)],
    ] {
        let out = binfmt(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(!out_path.exists());
    }
    // Flags that do not go together.
    for args in [
        &["taco", "update", "x.taco", "--force"][..],
        &["taco", "update", "x.taco", "-o", "y.taco", "--no-sync"],
        &["taco", "update", "-"],
    ] {
        let out = binfmt(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
    }
}

/// Damaged archives: no command panics, in a process or through the fuzz entry points.
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
        // The fuzz entry points in-process: inspect, verify and the taco module's
        // `fuzz` (listing, rendering, member reads, the update's checks on a copy).
        binfmt_cli::fuzzing::inspect(&bytes);
        binfmt_cli::fuzzing::verify(&bytes);
        binfmt_cli::fuzzing::commands(&bytes);
        let path = dir.file(&format!("g{i}.taco"), &bytes);
        for cmd in ["inspect", "verify"] {
            let out = binfmt(&[cmd, s(&path)]);
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{cmd} {i}: {out:?}"
            );
            assert!(!stderr(&out).contains("panicked"));
        }
    }
}

#[test]
fn inspect_json_keys_are_in_the_documented_order() {
    let out = binfmt(&["inspect", "--json", &fixture("three_entries.taco")]);
    let v = &json_lines(&out)[0];
    assert_eq!(
        common::keys(v),
        [
            "file",
            "format",
            "count",
            "entries",
            "crc32",
            "version_needed",
            "members",
            "zip64"
        ]
    );
    let help = stdout(&binfmt(&["inspect", "--help"]));
    for key in ["members_error", "data_offset", "version_needed"] {
        assert!(help.contains(key), "{help}");
    }
}

/// Member names are bytes from the file: a name holding an escape sequence reached the
/// terminal raw in `inspect`'s text. On a terminal the text escapes it (to a pipe it goes
/// byte for byte, as `ls` writes names); JSON keeps the name (as JSON
/// escapes it).
#[test]
fn member_names_with_terminal_escapes_are_escaped_in_text() {
    let dir = scratch("escapes");
    let path = dir.join("hostile.taco");
    common::taco_with_names(
        &path,
        [
            ("red\u{1b}[31m\u{1b}]0;pwned\u{7}.txt", &b"x"[..]),
            ("bidi\u{202e}txt.exe", b"y"),
        ],
    );

    // To a pipe, names as they are (as `ls` writes them).
    let out = binfmt(&["inspect", s(&path)]);
    assert!(out.status.success(), "{out:?}");
    let piped = stdout(&out);
    assert!(
        piped.contains("red\u{1b}[31m\u{1b}]0;pwned\u{7}.txt"),
        "{piped:?}"
    );
    assert!(piped.contains("bidi\u{202e}txt.exe"), "{piped:?}");
    // On a terminal, escaped.
    if let Some(shown) = common::binfmt_on_terminal(&["inspect", s(&path)]) {
        let shown = common::text(&shown);
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
            "{shown:?}"
        );
        assert!(!shown.contains('\u{202e}'), "{shown:?}");
        assert!(shown.contains(r"red\e[31m\e]0;pwned\u{7}.txt"), "{shown}");
        assert!(shown.contains(r"bidi\u{202e}txt.exe"), "{shown}");
    }

    let v = &json_lines(&binfmt(&["inspect", "--json", s(&path)]))[0];
    assert_eq!(
        v["members"][1]["name"],
        "red\u{1b}[31m\u{1b}]0;pwned\u{7}.txt"
    );
}

/// `binfmt taco create precious.txt` (OUT forgotten) emptied precious.txt with exit 0:
/// an existing OUT is now replaced only with --force, and never when it is a FILE.
#[test]
fn create_never_replaces_an_existing_file_without_force() {
    let dir = scratch("clobber");
    let precious = dir.file("precious.txt", b"my thesis");
    let out = binfmt(&["taco", "create", s(&precious)]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    common::assert_contains(&stderr(&out), "did you forget OUT?");
    assert_eq!(fs::read(&precious).unwrap(), b"my thesis");

    let archive = dir.file("out.taco", b"old");
    let out = binfmt(&["taco", "create", s(&archive), "--strip-dirs", s(&precious)]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(fs::read(&archive).unwrap(), b"old");
    // With --force it is replaced...
    let out = binfmt(&[
        "taco",
        "create",
        "-f",
        s(&archive),
        "--strip-dirs",
        s(&precious),
    ]);
    assert!(out.status.success(), "{out:?}");
    assert!(binfmt(&["verify", s(&archive)]).status.success());
    // ...but never when OUT is one of the members.
    let out = binfmt(&[
        "taco",
        "create",
        "--force",
        s(&precious),
        "--strip-dirs",
        s(&precious),
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(fs::read(&precious).unwrap(), b"my thesis");
}

/// Decision: `taco create OUT` with no FILE is not an argument error. An archive holding
/// only the header is a valid TACO archive (tacozip cannot make one; readers of the
/// header alone, such as a range reader, are served by it), and the no-clobber rule
/// already protects a file named by mistake.
#[test]
fn create_with_no_files_makes_a_header_only_archive() {
    let dir = scratch("header-only");
    let path = dir.join("only.taco");
    let out = binfmt(&["taco", "create", s(&path), "--entry", "0:0"]);
    assert!(out.status.success(), "{out:?}");
    let v = &json_lines(&binfmt(&["inspect", "--json", s(&path)]))[0];
    assert_eq!(v["count"], 1);
    assert_eq!(v["members"].as_array().unwrap().len(), 1);
}

#[test]
fn create_and_update_write_to_standard_output() {
    let dir = scratch("stdout");
    let a = dir.file("a.bin", b"abc");
    let out = binfmt(&["taco", "create", "-", "--strip-dirs", s(&a)]);
    assert!(out.status.success(), "{out:?}");
    let archive = dir.file("a.taco", &out.stdout);
    assert!(binfmt(&["verify", s(&archive)]).status.success());

    // update --output: a copy with the new entries; FILE untouched.
    let before = fs::read(&archive).unwrap();
    let out = binfmt(&["taco", "update", s(&archive), "--entry", "7:8", "-o", "-"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(fs::read(&archive).unwrap(), before);
    let copy = dir.file("copy.taco", &out.stdout);
    let v = &json_lines(&binfmt(&["inspect", "--json", s(&copy)]))[0];
    assert_eq!(
        v["entries"],
        serde_json::json!([{"offset": 7, "length": 8}])
    );
    // An update into its own input is refused, even with --force.
    let out = binfmt(&["taco", "update", s(&archive), "-o", s(&archive), "-f"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(fs::read(&archive).unwrap(), before);
}

/// `taco update` is the library's crash-consistent update: an update killed between its
/// writes leaves an archive that `verify` reports as a torn update, and the next `taco
/// update` repairs it. Each partial state is made by applying the first writes of the
/// library's own patch.
#[test]
fn a_torn_update_is_reported_by_verify_and_repaired_by_update() {
    use taco_header::{Archive, Entries, Entry};
    let help = stdout(&binfmt(&["taco", "update", "--help"]));
    assert!(help.contains("torn update"), "{help}");

    let dir = scratch("torn");
    let path = dir.join("torn.taco");
    let original = fs::read(fixture("three_entries.taco")).unwrap();
    let new = Entries::from_slice(&[Entry::new(5, 6)]).unwrap();
    let patch = Archive::parse(&original).unwrap().patch(&new);
    for done in 1..=2 {
        let mut bytes = original.clone();
        for (offset, write) in patch.writes().iter().take(done) {
            let at = *offset as usize;
            bytes[at..at + write.len()].copy_from_slice(write);
        }
        fs::write(&path, &bytes).unwrap();
        let out = binfmt(&["verify", s(&path)]);
        assert_eq!(out.status.code(), Some(1), "after {done} writes: {out:?}");
        assert!(stderr(&out).contains("torn update"), "{}", stderr(&out));

        let out = binfmt(&["taco", "update", s(&path), "--entry", "5:6"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let out = binfmt(&["verify", s(&path)]);
        assert!(
            out.status.success(),
            "after {done} writes: {}",
            stderr(&out)
        );
        let v = &json_lines(&binfmt(&["inspect", "--json", s(&path)]))[0];
        assert_eq!(
            v["entries"],
            serde_json::json!([{"offset": 5, "length": 6}])
        );
    }
}

/// `inspect` of a 70,000-member archive took 68 ms (more than `verify`): it now lists by
/// ranges and shows a page of members in text; JSON still lists every one.
#[test]
fn inspect_of_70000_members_lists_all_in_json_and_a_page_in_text() {
    let dir = scratch("many");
    let path = dir.join("many.taco");
    let mut builder = taco_header::Writer::new(taco_header::Entries::new());
    for i in 0..70_000u32 {
        builder.add_bytes(format!("m/{i:06}"), i.to_le_bytes().to_vec());
    }
    builder.write_to_path(&path).unwrap();
    let out = binfmt(&["inspect", s(&path)]);
    assert!(out.status.success(), "{out:?}");
    let shown = stdout(&out);
    assert!(shown.lines().count() < 60, "{shown}");
    assert!(shown.contains("members: 70001"), "{shown}");
    assert!(shown.contains("… and 69969 more"), "{shown}");
    let v = &json_lines(&binfmt(&["inspect", "--json", s(&path)]))[0];
    assert_eq!(v["members"].as_array().unwrap().len(), 70_001);
    assert_eq!(v["zip64"], true);
    assert_eq!(v["members"][70_000]["name"], "m/069999");
}
