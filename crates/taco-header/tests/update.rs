//! The in-place update's crash-consistency protocol: every partial state an interrupted
//! update can leave is reported by `verify` as a torn update and repaired by the next
//! update; two updates never interleave; nothing is written before everything is
//! checked.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation,
    clippy::std_instead_of_core
)]

use std::time::Duration;

use binfmt_core::verify::Findings;
use binfmt_test_support::Scratch;
use taco_header::{Archive, Entries, Entry, ErrorKind, Header, ReadOptions, TornState, Writer};

fn scratch(test: &str) -> Scratch {
    Scratch::new(&format!("taco-update-{test}"))
}

fn old() -> Entries {
    Entries::from_slice(&[Entry::new(157, 13), Entry::new(1000, 1000)]).unwrap()
}

fn new() -> Entries {
    Entries::from_slice(&[Entry::new(5, 6)]).unwrap()
}

fn archive() -> Vec<u8> {
    let mut b = Writer::new(old());
    b.add_bytes("a.parquet", vec![1u8; 300])
        .add_bytes("COLLECTION.json", b"{}".to_vec());
    b.to_vec().unwrap()
}

/// The archive as an update killed after its first `done` writes leaves it.
fn interrupted(done: usize) -> Vec<u8> {
    let mut bytes = archive();
    let patch = Archive::parse(&bytes).unwrap().patch(&new());
    for (offset, write) in patch.writes().into_iter().take(done) {
        let at = offset as usize;
        bytes[at..at + write.len()].copy_from_slice(write);
    }
    bytes
}

fn verify_all(bytes: &[u8]) -> (u64, Findings<taco_header::Error>) {
    let mut findings = Findings::new(20);
    let summary = taco_header::verify(bytes, &ReadOptions::new(), &mut findings);
    (summary.errors(), findings)
}

#[test]
fn every_partial_state_is_a_torn_update_that_the_next_update_repairs() {
    let dir = scratch("torn");
    for (done, state) in [(1, TornState::OldEntries), (2, TornState::NewEntries)] {
        let bytes = interrupted(done);
        // verify: one error, the torn update, at the header's CRC.
        let (errors, findings) = verify_all(&bytes);
        assert_eq!(errors, 1, "after {done} writes: {:#?}", findings.errors());
        let err = &findings.errors()[0];
        assert!(
            matches!(err.kind(), ErrorKind::TornUpdate { state: s, .. } if *s == state),
            "after {done} writes: {err:?}"
        );
        assert_eq!(err.offset(), Some(14));
        assert!(
            err.to_string().starts_with("byte 14: torn update: "),
            "{err}"
        );
        // Archive::parse says the same; without checksums the archive still lists.
        let parsed = Archive::parse(&bytes).unwrap_err();
        assert!(matches!(parsed.kind(), ErrorKind::TornUpdate { .. }));
        let lenient = Archive::parse_with(&bytes, &ReadOptions::new().checksums(false)).unwrap();
        assert_eq!(lenient.members().count(), 3);
        // A reader of the header alone sees the old entries, intact, or a CRC error:
        // never entries that do not match their CRC.
        match done {
            1 => assert_eq!(Header::parse(&bytes).unwrap().entries(), old()),
            _ => assert!(matches!(
                Header::parse(&bytes).unwrap_err().kind(),
                ErrorKind::CrcMismatch { .. }
            )),
        }

        // The next update repairs it, on a file and in memory.
        let path = dir.join(format!("torn-{done}.taco"));
        std::fs::write(&path, &bytes).unwrap();
        taco_header::fs::update(&path, &new()).unwrap();
        let repaired = std::fs::read(&path).unwrap();
        assert_eq!(verify_all(&repaired).0, 0);
        assert_eq!(repaired, interrupted(3));
        let mut in_memory = bytes.clone();
        taco_header::update_in_memory(&mut in_memory, &old()).unwrap();
        assert_eq!(in_memory, archive());
    }
    // All three writes: the update is whole.
    assert_eq!(verify_all(&interrupted(3)).0, 0);
}

#[test]
fn the_writes_are_in_protocol_order() {
    let bytes = archive();
    let archive = Archive::parse(&bytes).unwrap();
    let cd = archive.directory().cd_offset;
    let patch = archive.patch(&new());
    let order: Vec<(u64, usize)> = patch
        .writes()
        .iter()
        .map(|(offset, bytes)| (*offset, bytes.len()))
        .collect();
    // Central copy of the CRC, payload, header's CRC (which commits).
    assert_eq!(order, [(cd + 16, 4), (41, 116), (14, 4)]);
}

#[test]
fn two_updates_never_interleave() {
    let dir = scratch("lock");
    let path = dir.join("locked.taco");
    std::fs::write(&path, archive()).unwrap();
    // Another writer holds the lock.
    let held = binfmt_core::file::open_locked(&path).unwrap();
    let updater = {
        let path = path.clone();
        std::thread::spawn(move || taco_header::fs::update(&path, &new()))
    };
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        std::fs::read(&path).unwrap(),
        archive(),
        "the update wrote while another writer held the lock"
    );
    assert!(!updater.is_finished());
    drop(held);
    updater.join().unwrap().unwrap();
    assert_eq!(taco_header::fs::read_entries(&path).unwrap(), new());
}

#[test]
fn nothing_is_written_before_everything_is_checked() {
    let dir = scratch("checked");
    let good = archive();
    let cd = Archive::parse(&good).unwrap().directory().cd_offset as usize;
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    // The header's central-directory entry renamed: tacozip writes the header first and
    // fails after.
    let mut renamed = good.clone();
    renamed[cd + 46] = b't';
    cases.push(("renamed central entry", renamed));
    // The header's central entry points elsewhere.
    let mut moved = good.clone();
    moved[cd + 42] = 1;
    cases.push(("central entry not at 0", moved));
    // An extra field in the header: the payload would not be at 41.
    let mut extra = good.clone();
    extra[28] = 1;
    cases.push(("header extra field", extra));
    // Truncated: no end record.
    cases.push(("truncated", good[..good.len() - 1].to_vec()));
    // The central directory inside the header's payload: the payload write would
    // overwrite it (found by the taco_archive fuzz target).
    cases.push((
        "central directory inside the header",
        directory_inside_the_header(),
    ));
    for (what, bytes) in cases {
        let path = dir.join("refused.taco");
        std::fs::write(&path, &bytes).unwrap();
        let err = taco_header::fs::update(&path, &new()).unwrap_err();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            bytes,
            "{what}: written after {err}"
        );
        assert_eq!(err.fault(), taco_header::Fault::Input, "{what}: {err}");
        let mut in_memory = bytes.clone();
        assert!(taco_header::update_in_memory(&mut in_memory, &new()).is_err());
        assert_eq!(in_memory, bytes, "{what}");
    }
}

/// A 179-byte archive whose central directory (the header's entry, 57 bytes) is the last
/// 57 bytes of the header's payload, followed by the end record.
fn directory_inside_the_header() -> Vec<u8> {
    let plain = Writer::new(Entries::new()).to_vec().unwrap();
    let cd = Archive::parse(&plain).unwrap().directory().cd_offset as usize;
    let mut bytes = plain[..157].to_vec();
    bytes[100..157].copy_from_slice(&plain[cd..cd + 57]);
    let mut end = plain[plain.len() - 22..].to_vec();
    end[16..20].copy_from_slice(&100u32.to_le_bytes());
    bytes.extend_from_slice(&end);
    let no_crc = ReadOptions::new().checksums(false);
    let err = Archive::parse_with(&bytes, &no_crc).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::MemberBounds {
                index: 0,
                end: 157,
                limit: 100,
                ..
            }
        ),
        "{err:?}"
    );
    bytes
}

#[test]
fn update_works_when_the_directory_is_beyond_the_tail() {
    // A central directory beyond the 64 KiB tail: the update reads its first entry on its
    // own (a unit test of `fs` counts the reads).
    let mut b = Writer::new(old());
    for i in 0..3000u32 {
        b.add_bytes(format!("member/{i:05}"), i.to_le_bytes().to_vec());
    }
    let bytes = b.to_vec().unwrap();
    assert!(Archive::parse(&bytes).unwrap().directory().cd_size > 64 * 1024);
    let dir = scratch("bounded");
    let path = dir.join("many.taco");
    std::fs::write(&path, &bytes).unwrap();
    taco_header::fs::update_with(
        &path,
        &new(),
        &taco_header::fs::UpdateOptions::new().sync(false),
    )
    .unwrap();
    let after = std::fs::read(&path).unwrap();
    assert_eq!(verify_all(&after).0, 0);
    assert_eq!(Header::parse(&after).unwrap().entries(), new());
}
