//! `binfmt inspect|verify` on Bloscpack files and `binfmt bloscpack pack|unpack|append`.
#![allow(clippy::unwrap_used, clippy::cast_possible_truncation)]

mod common;

use core::time::Duration;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use bloscpack_header::{Metadata, PackOptions};
use common::{run, s, scratch, text};
use serde_json::Value;

/// `binfmt bloscpack pack ramp.bin BLP OPTIONS…`, which must succeed; returns the
/// input's path.
fn pack_ramp(blp: &Path, options: &[&str]) -> PathBuf {
    let input = fixture("ramp.bin");
    let out = run(&[&["bloscpack", "pack", s(&input), s(blp)], options].concat());
    assert!(out.status.success(), "{}", text(&out.stderr));
    input
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bloscpack-header/tests/fixtures")
        .join(name)
}

#[test]
fn inspect_json_has_the_documented_keys_in_order() {
    let path = fixture("ramp_100000.blp");
    let v = common::inspect_json(
        &path,
        &[
            "options",
            "checksum",
            "typesize",
            "chunk_size",
            "last_chunk",
            "nchunks",
            "max_app_chunks",
            "offsets",
            "metadata",
            "chunks",
        ],
        "bloscpack",
        "3",
    );
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
    assert!(t.contains("\n  metadata: 233 bytes, JSON zlib"), "{t}");
    assert!(
        t.contains(
            "\n    8957    1808    1456    1808       8         0x01 blosclz, shuffle byte\n"
        ),
        "{t}"
    );
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
    let meta = dir.join("meta.json");
    std::fs::write(&meta, br#"{ "name": "ramp", "n": [1, 2, 3] }"#).unwrap();
    let blp = dir.join("out.blp");
    let input = pack_ramp(
        &blp,
        &[
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
        ],
    );
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
    common::assert_contains(&text(&out.stderr), "spare offset slots");
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
}

#[test]
fn help_documents_the_json_keys() {
    let out = run(&["inspect", "--help"]);
    let t = text(&out.stdout);
    assert!(t.contains("\n  max_app_chunks: "), "{t}");
    assert!(t.contains("\"NaN\""), "{t}");
    let out = run(&["bloscpack", "pack", "--help"]);
    assert!(text(&out.stdout).contains("--chunk-size"));
}

fn json_of(path: &Path) -> (Value, std::process::Output) {
    let out = run(&["inspect", "--json", s(path)]);
    let v = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    (v, out)
}

#[test]
fn python_metadata_is_shown_exactly() {
    // Regression: bloscpack 0.16's json.dumps writes NaN and Infinity, and Python ints
    // have no bound: such metadata was refused, and big integers would have been
    // rounded through a float.
    let dir = scratch("python_metadata");
    let path = dir.join("meta.blp");
    let json = r#"{"x": NaN, "y": [Infinity, -Infinity], "s": "NaN", "big": 123456789012345678901234567890, "neg": -98765432109876543210, "f": 1e-05}"#;
    let file = PackOptions {
        metadata: Some(Metadata::new(json)),
        ..PackOptions::default()
    }
    .to_vec(b"0123456789")
    .unwrap();
    std::fs::write(&path, file).unwrap();
    let (v, out) = json_of(&path);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let line = text(&out.stdout);
    assert!(
        line.contains(r#""metadata":{"x":"NaN","y":["Infinity","-Infinity"],"s":"NaN","big":123456789012345678901234567890,"neg":-98765432109876543210,"f":1e-05}"#),
        "{line}"
    );
    assert_eq!(v["metadata"]["x"], "NaN");
    let out = run(&["inspect", s(&path)]);
    assert!(out.status.success());
    let t = text(&out.stdout);
    assert!(t.contains(json), "{t}");
    let out = run(&["verify", s(&path)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn a_last_chunk_one_whole_element_short_is_refused() {
    // No bloscpack release writes this (0.11 and 0.13 round last_chunk down to whole
    // elements: tests/bloscpack_legacy.rs reads their real files): a size mismatch.
    let file = fixture("short_last_0_11.blp");
    let out = run(&["verify", s(&file)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("last_chunk") || text(&out.stderr).contains("last_chunk"),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// The entries of `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn outputs_follow_the_one_output_rule() {
    let dir = scratch("outputs");
    let input = fixture("ramp.bin");
    let data = std::fs::read(&input).unwrap();
    let blp = dir.join("a.blp");
    assert!(
        run(&["bloscpack", "pack", s(&input), s(&blp)])
            .status
            .success()
    );
    let raw = dir.join("a.bin");
    assert!(
        run(&["bloscpack", "unpack", s(&blp), s(&raw)])
            .status
            .success()
    );
    // No clobbering without --force, for both commands.
    for args in [
        vec!["bloscpack", "pack", s(&input), s(&raw)],
        vec!["bloscpack", "unpack", s(&blp), s(&raw)],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        common::assert_contains(&text(&out.stderr), "--force");
    }
    // Never over an input, even with --force.
    let out = run(&["bloscpack", "unpack", "--force", s(&blp), s(&blp)]);
    assert_eq!(out.status.code(), Some(1));
    common::assert_contains(&text(&out.stderr), "is also an input");
    let out = run(&["bloscpack", "pack", "--force", s(&raw), s(&raw)]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read(&raw).unwrap(), data);
    // A symlink's target gets the bytes and keeps its mode; the link stays a link.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let target = dir.join("target.bin");
        std::fs::write(&target, b"old").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.join("link.bin");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let out = run(&["bloscpack", "unpack", "-f", s(&blp), s(&link)]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&target).unwrap(), data);
        let mode = std::fs::metadata(&target).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
    }
    // Standard output and /dev/null are streamed into; status lines go to stderr.
    let out = run(&["bloscpack", "unpack", s(&blp), "-"]);
    assert!(out.status.success());
    assert_eq!(out.stdout, data);
    assert!(text(&out.stderr).contains("unpacked 10000 bytes"));
    let out = run(&["bloscpack", "pack", s(&input), "-"]);
    assert!(out.status.success());
    assert_eq!(&out.stdout[..4], b"blpk");
    let out = run(&["bloscpack", "unpack", s(&blp), "/dev/null"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(Path::new("/dev/null").exists());
    // A FIFO is written into, never replaced.
    #[cfg(unix)]
    {
        let fifo = dir.join("fifo");
        assert!(
            Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let child = Command::new(env!("CARGO_BIN_EXE_binfmt"))
            .args(["bloscpack", "unpack", s(&blp), s(&fifo)])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut got = Vec::new();
        std::fs::File::open(&fifo)
            .unwrap()
            .read_to_end(&mut got)
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(got, data);
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo()
        );
    }
    // Standard input as the input.
    let out = common::binfmt_fed(
        &["bloscpack", "unpack", "-", "-"],
        &std::fs::read(&blp).unwrap(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(out.stdout, data);
}

#[cfg(unix)]
use std::os::unix::fs::FileTypeExt as _;

/// A file of `ramp.bin` in 1 KiB chunks with room for many appends.
fn appendable(dir: &Path) -> (PathBuf, Vec<u8>) {
    let blp = dir.join("grow.blp");
    let input = pack_ramp(&blp, &["--chunk-size", "1K", "--max-app-chunks", "200"]);
    (blp, std::fs::read(&input).unwrap())
}

#[test]
fn concurrent_appends_both_land() {
    let dir = scratch("concurrent");
    let (blp, original) = appendable(&dir);
    let parts: Vec<(PathBuf, Vec<u8>)> = (0..2u8)
        .map(|i| {
            let path = dir.join(format!("part{i}.bin"));
            let bytes: Vec<u8> = (0..30_000u32).map(|j| (j as u8) ^ (0x55 * i)).collect();
            std::fs::write(&path, &bytes).unwrap();
            (path, bytes)
        })
        .collect();
    let children: Vec<_> = parts
        .iter()
        .map(|(path, _)| {
            Command::new(env!("CARGO_BIN_EXE_binfmt"))
                .args(["bloscpack", "append", s(&blp), s(path)])
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let raw = dir.join("out.bin");
    assert!(
        run(&["bloscpack", "unpack", s(&blp), s(&raw)])
            .status
            .success()
    );
    let got = std::fs::read(&raw).unwrap();
    // Whoever exits 0 has its bytes in the file; a writer that could not wait must fail.
    let landed: Vec<bool> = outs.iter().map(|o| o.status.success()).collect();
    assert!(landed.iter().any(|&l| l), "{:?}", outs);
    let mut orders = vec![];
    for order in [[0usize, 1], [1, 0]] {
        let mut want = original.clone();
        for &i in &order {
            if landed[i] {
                want.extend_from_slice(&parts[i].1);
            }
        }
        orders.push(want);
    }
    assert!(orders.contains(&got), "appends lost: {} bytes", got.len());
    let out = run(&["verify", s(&blp)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).is_empty(), "{}", text(&out.stderr));
}

#[test]
fn a_torn_append_is_reported_by_verify_and_repaired_by_append() {
    let dir = scratch("torn");
    let (blp, original) = appendable(&dir);
    let committed = std::fs::read(&blp).unwrap();
    // What a crash between writing the new chunks and committing leaves: new bytes past
    // the end, then the undo record (no patches: nothing committed was overwritten).
    let old_end = committed.len() as u64;
    let mut new_header = committed[..32].to_vec();
    new_header[16] ^= 1;
    let mut body = Vec::new();
    body.extend_from_slice(&old_end.to_le_bytes());
    body.extend_from_slice(&(old_end + 100).to_le_bytes());
    body.extend_from_slice(&new_header);
    body.extend_from_slice(&committed[..32]);
    body.extend_from_slice(&0u64.to_le_bytes());
    let mut torn = committed.clone();
    torn.extend_from_slice(&[0xab; 100]);
    let body_len = body.len() as u64;
    let crc = crc32fast::hash(&body);
    torn.extend_from_slice(&body);
    torn.extend_from_slice(b"blpkUNDO");
    torn.extend_from_slice(&body_len.to_le_bytes());
    torn.extend_from_slice(&crc.to_le_bytes());
    torn.extend_from_slice(&[0; 4]);
    std::fs::write(&blp, &torn).unwrap();

    let out = run(&["verify", s(&blp)]);
    common::assert_contains(&text(&out.stderr), "an interrupted append left");
    let more = dir.join("more.bin");
    std::fs::write(&more, b"appended after the repair").unwrap();
    let out = run(&["bloscpack", "append", s(&blp), s(&more)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    common::assert_contains(&text(&out.stderr), "repaired an interrupted append first");
    let out = run(&["verify", s(&blp)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).is_empty(), "{}", text(&out.stderr));
    let out = run(&["bloscpack", "unpack", s(&blp), "-"]);
    let mut want = original;
    want.extend_from_slice(b"appended after the repair");
    assert_eq!(out.stdout, want);
}

/// Runs `binfmt` with `args`, which must fail (exit 1) within 5 s saying `needle`.
fn fails_fast_saying(args: &[&str], needle: &str) {
    let start = Instant::now();
    let out = run(args);
    let took = start.elapsed();
    common::assert_exit_saying(&out, 1, needle);
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn tiny_files_claiming_gigabytes_fail_fast_and_write_nothing() {
    // Regression: a 52-byte file made `unpack` zero-fill its claimed size, and a 68-byte
    // target with a 1-byte input made `append` allocate gigabytes.
    let dir = scratch("claims");
    let claim = dir.join("claim.blp");
    std::fs::copy(fixture("hostile/claims_700mb.blp"), &claim).unwrap();
    assert_eq!(std::fs::metadata(&claim).unwrap().len(), 52);
    let raw = dir.join("out.bin");
    fails_fast_saying(
        &["bloscpack", "unpack", s(&claim), s(&raw)],
        "chunk 0 has an invalid Blosc header",
    );
    assert_eq!(listing(&dir), ["claim.blp"], "no output, no temporary file");
    let out = run(&["bloscpack", "unpack", s(&claim), "-"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());

    let target = dir.join("target.blp");
    let bytes = std::fs::read(fixture("hostile/claims_700mb_offsets.blp")).unwrap();
    assert_eq!(bytes.len(), 68);
    std::fs::write(&target, &bytes).unwrap();
    let one = dir.join("one.bin");
    std::fs::write(&one, b"x").unwrap();
    fails_fast_saying(
        &["bloscpack", "append", s(&target), s(&one)],
        "invalid Blosc header",
    );
    assert_eq!(std::fs::read(&target).unwrap(), bytes);
    assert_eq!(listing(&dir), ["claim.blp", "one.bin", "target.blp"]);
}

#[test]
fn append_refuses_its_own_input_and_standard_output() {
    let dir = scratch("append_self");
    let (blp, _) = appendable(&dir);
    let before = std::fs::read(&blp).unwrap();
    let out = run(&["bloscpack", "append", s(&blp), s(&blp)]);
    assert_eq!(out.status.code(), Some(1));
    common::assert_contains(&text(&out.stderr), "is also the input");
    assert_eq!(std::fs::read(&blp).unwrap(), before);
    let out = run(&["bloscpack", "append", "-", s(&blp)]);
    assert_eq!(out.status.code(), Some(2));
}
