//! Archives made by the reference (tacozip 0.13.0) parse to what the reference reports.
#![allow(clippy::unwrap_used, clippy::cast_possible_truncation)]

use std::fs;
use std::path::{Path, PathBuf};

use binfmt_core::Layout;
use binfmt_core::verify::Findings;
use binfmt_test_support::Scratch;
use serde_json::Value;
use taco_header::{Archive, Entries, Entry, ErrorKind, Header, ReadOptions, Reader};

/// Fails the test with every problem `verify` reports.
fn assert_valid(name: &str, bytes: &[u8]) {
    let mut findings = Findings::new(20);
    let summary = taco_header::verify(bytes, &ReadOptions::new(), &mut findings);
    assert!(summary.is_valid(), "{name}: {:#?}", findings.errors());
    assert_eq!(summary.warnings(), 0, "{name}: {:#?}", findings.warnings());
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn expected() -> serde_json::Map<String, Value> {
    let text = fs::read_to_string(fixtures().join("expected.json")).unwrap();
    serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_object()
        .unwrap()
        .clone()
}

fn entries(v: &Value) -> Vec<Entry> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|pair| Entry::new(pair[0].as_u64().unwrap(), pair[1].as_u64().unwrap()))
        .collect()
}

#[test]
fn every_fixture_has_the_entries_the_reference_reads() {
    let expected = expected();
    assert_eq!(expected.len(), 6);
    for (name, want) in &expected {
        let path = fixtures().join(name);
        let got = taco_header::fs::read_entries(&path).unwrap();
        assert_eq!(got.as_slice(), entries(&want["entries"]), "{name}");
        let bytes = fs::read(&path).unwrap();
        let header = Header::parse(&bytes[..157]).unwrap();
        assert_eq!(
            header.entries().as_slice(),
            entries(&want["header_from_bytes"]),
            "{name}"
        );
        // The reference's own lax parse reads the same values.
        let tacozip = ReadOptions::new().lenient(true).checksums(false);
        let lax = Header::parse_with(&bytes, &tacozip).unwrap();
        assert_eq!(lax.entries(), header.entries(), "{name}");
        assert_eq!(
            header.version_needed(),
            10,
            "{name}: tacozip's create writes 10"
        );
    }
}

#[test]
fn every_fixture_lists_the_members_zipfile_sees() {
    for (name, want) in &expected() {
        let path = fixtures().join(name);
        let bytes = fs::read(&path).unwrap();
        let archive = Archive::parse(&bytes).unwrap();
        assert_valid(name, &bytes);
        let members: Vec<_> = archive.members().collect::<Result<_, _>>().unwrap();
        let reader = taco_header::fs::open(&path).unwrap();
        let from_file = reader.members().unwrap();
        let want = want["members"].as_array().unwrap();
        assert_eq!(members.len(), want.len(), "{name}");
        assert_eq!(from_file.len(), want.len(), "{name}");
        for ((m, f), w) in members.iter().zip(from_file.iter()).zip(want) {
            assert_eq!(m, &f, "{name}: slice and reader paths agree");
            assert_eq!(m.name_str().unwrap(), w["name"].as_str().unwrap(), "{name}");
            assert_eq!(m.size(), w["size"].as_u64().unwrap(), "{name}");
            assert_eq!(u64::from(m.crc32()), w["crc32"].as_u64().unwrap(), "{name}");
            assert_eq!(
                m.local_header_offset(),
                w["local_header_offset"].as_u64().unwrap(),
                "{name}"
            );
            assert_eq!(
                m.data_offset(),
                w["data_offset"].as_u64().unwrap(),
                "{name}"
            );
            assert_eq!(
                m.is_utf8_flagged(),
                w["utf8_flag"].as_bool().unwrap(),
                "{name}"
            );
        }
        assert_eq!(members[0].name(), b"TACO_HEADER");
    }
}

#[test]
fn the_updated_fixture_points_at_member_data() {
    let bytes = fs::read(fixtures().join("updated.taco")).unwrap();
    let archive = Archive::parse(&bytes).unwrap();
    let header = archive.header();
    let members: Vec<_> = archive.members().map(Result::unwrap).collect();
    for (entry, member) in header.entries().as_slice().iter().zip(&members[1..]) {
        assert_eq!(*entry, Entry::new(member.data_offset(), member.size()));
        let data = &bytes[member.data_offset() as usize..][..member.size() as usize];
        assert_eq!(crc32fast::hash(data), member.crc32());
    }
}

/// Copies a fixture into `dir`, a test's scratch directory, for a test that modifies it.
fn scratch_copy(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    fs::copy(fixtures().join(name), &path).unwrap();
    path
}

#[test]
fn update_rewrites_only_the_124_bytes() {
    let dir = Scratch::new("taco-fixtures-update");
    for name in [
        "three_entries.taco",
        "false_zip64.taco",
        "updated.taco",
        "seven_entries.taco",
    ] {
        let path = scratch_copy(&dir, name);
        let before = fs::read(&path).unwrap();
        let new = Entries::from_slice(&[Entry::new(5, 6), Entry::new(7, 8)]).unwrap();
        taco_header::fs::update(&path, &new).unwrap_or_else(|e| panic!("{name}: {e}"));
        let after = fs::read(&path).unwrap();
        assert_eq!(taco_header::fs::read_entries(&path).unwrap(), new);
        assert_valid(name, &after);
        let cd = Archive::parse(&after).unwrap().directory().cd_offset as usize;
        let changed: Vec<usize> = (0..before.len())
            .filter(|&i| before[i] != after[i])
            .collect();
        assert!(
            changed.iter().all(|&i| (14..18).contains(&i)
                || (41..157).contains(&i)
                || (cd + 16..cd + 20).contains(&i)),
            "{name}: bytes outside the header payload and the two CRCs changed: {changed:?}"
        );
        // In memory, the same update gives the same bytes.
        let mut in_memory = before.clone();
        taco_header::update_in_memory(&mut in_memory, &new).unwrap();
        assert_eq!(in_memory, after, "{name}");
    }
}

#[test]
fn update_refuses_non_taco_files_without_touching_them() {
    let dir = Scratch::new("taco-fixtures-refuse");
    for name in ["plain.zip", "not_a_zip.txt"] {
        let path = scratch_copy(&dir, name);
        let before = fs::read(&path).unwrap();
        let err = taco_header::fs::update(&path, &Entries::new()).unwrap_err();
        assert_eq!(
            fs::read(&path).unwrap(),
            before,
            "{name} was modified after {err}"
        );
    }
    let err = taco_header::fs::update(fixtures().join("does-not-exist.taco"), &Entries::new())
        .unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Io(_)), "{err:?}");
}

#[test]
fn update_refuses_a_truncated_archive_without_touching_it() {
    let dir = Scratch::new("taco-fixtures-truncated");
    let path = scratch_copy(&dir, "three_entries.taco");
    let mut bytes = fs::read(&path).unwrap();
    bytes.pop();
    fs::write(&path, &bytes).unwrap();
    let err = taco_header::fs::update(&path, &Entries::new()).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::NoEndOfCentralDirectory),
        "{err:?}"
    );
    assert_eq!(fs::read(&path).unwrap(), bytes);
}

#[test]
fn reading_a_short_file_is_a_format_error() {
    let err = Reader::open(&b"PK\x03\x04 too short"[..]).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::Layout(Layout::Truncated {
                needed: 157,
                available: 14,
                ..
            })
        ),
        "{err:?}"
    );
}
