//! `binfmt taridx get` of many stems: one process, the index read once, the samples in
//! the order given as a tar stream or as files in a directory.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod common;

use std::path::{Path, PathBuf};

use common::{run, s, scratch, stderr};

fn index() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../taridx/tests/fixtures/golden/clean.taridx")
}

/// The members of a tar stream: (name, payload), pax `path` records applied.
fn untar(mut data: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut long: Option<String> = None;
    while data.len() >= 512 && data[..512].iter().any(|&b| b != 0) {
        let h = &data[..512];
        let name_end = h[..100].iter().position(|&b| b == 0).unwrap_or(100);
        let name = String::from_utf8(h[..name_end].to_vec()).unwrap();
        let size_text = core::str::from_utf8(&h[124..135]).unwrap();
        let size = usize::from_str_radix(size_text, 8).unwrap();
        let body = &data[512..512 + size];
        if h[156] == b'x' {
            let text = String::from_utf8(body.to_vec()).unwrap();
            long = text
                .split_once("path=")
                .map(|(_, v)| v.trim_end_matches('\n').to_owned());
        } else {
            out.push((long.take().unwrap_or(name), body.to_vec()));
        }
        data = &data[512 + size.div_ceil(512) * 512..];
    }
    // The end: two zero blocks.
    assert!(data.len() >= 1024 && data.iter().all(|&b| b == 0));
    out
}

/// `binfmt taridx get INDEX ARGS…` on the golden clean index.
fn get(args: &[&str]) -> std::process::Output {
    let index = index();
    let mut all = vec!["taridx", "get", s(&index)];
    all.extend_from_slice(args);
    run(&all)
}

fn single(stem: &str, ext: &str) -> Vec<u8> {
    let out = get(&[stem, "--ext", ext]);
    assert!(out.status.success(), "{}", stderr(&out));
    out.stdout
}

#[test]
fn many_stems_make_one_tar_stream_in_their_order() {
    let out = get(&["sample000003", "sample000001", "--ext", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let members = untar(&out.stdout);
    let names: Vec<&str> = members.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["sample000003.json", "sample000001.json"]);
    assert_eq!(members[0].1, single("sample000003", "json"));
    assert_eq!(members[1].1, single("sample000001", "json"));
}

#[test]
fn keys_from_standard_input_and_every_member_of_each_sample() {
    let out = common::binfmt_fed(
        &["taridx", "get", s(&index()), "--keys", "-"],
        b"sample000002\r\n\nsample000001\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let members = untar(&out.stdout);
    assert!(members.len() >= 2, "{members:?}");
    let stems: Vec<&str> = members
        .iter()
        .map(|(n, _)| n.split('.').next().unwrap())
        .collect();
    let first_other = stems.iter().position(|s| *s != "sample000002").unwrap();
    assert!(stems[first_other..].iter().all(|s| *s == "sample000001"));
    for (name, payload) in &members {
        let (stem, ext) = name.split_once('.').unwrap();
        assert_eq!(payload, &single(stem, ext), "{name}");
    }
}

#[test]
fn an_absent_stem_is_reported_and_the_batch_goes_on() {
    let out = get(&["nope", "sample000001", "--ext", "json"]);
    common::assert_exit_saying(&out, 1, "no member \"nope\"");
    let members = untar(&out.stdout);
    assert_eq!(members.len(), 1);
}

#[test]
fn output_dir_gets_one_file_per_member() {
    let dir = scratch("batch-dir");
    let out = get(&[
        "sample000001",
        "sample000002",
        "--ext",
        "json",
        "--output-dir",
        s(&dir),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    for stem in ["sample000001", "sample000002"] {
        let written = std::fs::read(dir.join(format!("{stem}.json"))).unwrap();
        assert_eq!(written, single(stem, "json"));
    }
    // An existing file is not replaced without --force.
    let again = get(&["sample000001", "--ext", "json", "--output-dir", s(&dir)]);
    assert_eq!(again.status.code(), Some(1), "{}", stderr(&again));
}
