//! `binfmt inspect|verify` and `binfmt bloscpack unpack` on the files the real bloscpack
//! 0.11.0 and 0.13.0 wrote (`bloscpack-header/tests/fixtures/legacy/`, made by
//! `tools/bloscpack/make_legacy.py`, whose `expected.json` records what each release's own
//! readers say). Regression: their numpy files whose last chunk holds last_chunk rounded
//! down to whole elements (a structured dtype packed with the default chunk size, among
//! others) were refused with "chunk 1 holds 54456 uncompressed bytes, but the header says
//! 54464 (last_chunk)".
#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};

use bloscpack_header::Checksum;
use common::{run, s, scratch, text};
use serde_json::Value;

fn legacy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../bloscpack-header/tests/fixtures/legacy")
}

fn manifest() -> Vec<(String, Value)> {
    let text = std::fs::read_to_string(legacy().join("expected.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v.as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

fn hex(data: &[u8]) -> String {
    data.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn the_issues_file_is_inspected_verified_and_unpacked() {
    let file = legacy().join("0_11_0_rec24_issue.blp");
    let out = run(&["inspect", "--json", s(&file)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(v["chunk_size"], 1_048_560);
    assert_eq!(v["last_chunk"], 54_464);
    let warning = "promise 1103024 bytes, the chunks hold 1103016";
    assert!(text(&out.stderr).contains(warning), "{}", text(&out.stderr));
    let out = run(&["verify", s(&file)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains(warning), "{}", text(&out.stderr));
    let dir = scratch("issue");
    let raw = dir.join("out.bin");
    let out = run(&["bloscpack", "unpack", s(&file), s(&raw)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(std::fs::metadata(&raw).unwrap().len(), 1_103_016);
    assert!(
        text(&out.stderr)
            .contains("its header promises 1103024 bytes, its chunks hold 1103016 (8 missing"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn every_legacy_file_is_inspected_verified_and_unpacked() {
    let dir = scratch("every");
    let mut short = 0;
    for (name, e) in manifest() {
        let file = legacy().join(&name);
        let (promised, held, shortfall) = (n(&e["promised"]), n(&e["held"]), n(&e["shortfall"]));
        let warning = format!("promise {promised} bytes, the chunks hold {held}");

        let out = run(&["inspect", s(&file)]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let out = run(&["inspect", "--json", s(&file)]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let v: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
        assert_eq!(v["last_chunk"], e["last_chunk"], "{name}");
        assert_eq!(v["chunk_size"], e["chunk_size"], "{name}");
        assert_eq!(
            text(&out.stderr).contains(&warning),
            shortfall > 0,
            "{name}: {}",
            text(&out.stderr)
        );

        let out = run(&["verify", s(&file)]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        assert_eq!(
            text(&out.stderr).contains(&warning),
            shortfall > 0,
            "{name}: {}",
            text(&out.stderr)
        );

        let raw = dir.join(format!("{name}.bin"));
        let out = run(&["bloscpack", "unpack", s(&file), s(&raw)]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let bytes = std::fs::read(&raw).unwrap();
        assert_eq!(bytes.len() as u64, held, "{name}");
        assert_eq!(
            hex(Checksum::Sha256.compute(&bytes).as_bytes()),
            e["sha256"].as_str().unwrap(),
            "{name}"
        );
        let says = text(&out.stderr);
        assert!(
            says.contains(&format!("unpacked {held} bytes")),
            "{name}: {says}"
        );
        if shortfall > 0 {
            short += 1;
            let missing = format!(
                "its header promises {promised} bytes, its chunks hold {held} ({shortfall} missing"
            );
            assert!(says.contains(&missing), "{name}: {says}");
        } else {
            assert!(!says.contains("missing"), "{name}: {says}");
        }
    }
    assert!(short >= 16, "{short}");
}
