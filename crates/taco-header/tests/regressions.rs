//! Inputs the fuzzers found (`fuzz/regressions/taco_archive/`, `fuzz/regressions/
//! taco_header/`), replayed through the same checks as the fuzz targets, plus what each
//! one showed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::std_instead_of_core)]

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use binfmt_core::source::Counting;
use taco_header::{
    Archive, Entries, Entry, Error, ErrorKind, Header, HeaderOptions, Layout, ReadOptions, Reader,
    Severity,
};

fn regressions(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/regressions")
        .join(target)
}

/// Every file of a target's regression directory (none yet is fine).
fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let Ok(dir) = std::fs::read_dir(regressions(target)) else {
        return Vec::new();
    };
    let mut files: Vec<_> = dir
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// The `taco_archive` fuzz target's checks (fuzz/fuzz_targets/taco_archive.rs).
fn replay_archive(data: &[u8]) {
    let every = ReadOptions::new();
    let no_crc = every.checksums(false);
    let summary = taco_header::verify(data, &every, &mut |_: Severity, _: Error| {
        ControlFlow::Continue(())
    });
    if Archive::parse(data).is_err() {
        assert!(summary.errors() > 0, "parse fails but verify finds nothing");
    }
    let counted = Counting::new(data);
    let reader = Reader::open_with(&counted, &no_crc);
    if let Ok(reader) = &reader {
        assert_eq!(counted.stats().requests, 1);
        assert!(counted.stats().bytes <= 256);
        if reader.central_directory().is_ok() {
            assert!(counted.stats().requests <= 4, "{:?}", counted.stats());
        }
    }
    let ranged = reader.as_ref().ok().map(Reader::members);
    let Ok(archive) = Archive::parse_with(data, &no_crc) else {
        assert!(
            !matches!(ranged, Some(Ok(_))),
            "the reader lists what the slice parser refuses"
        );
        return;
    };
    let members: Vec<_> = archive.members().collect();
    if let Some(Ok(list)) = ranged {
        let from_slice: Vec<_> = members.iter().map(|m| *m.as_ref().unwrap()).collect();
        let from_reader: Vec<_> = list.iter().collect();
        assert_eq!(from_reader, from_slice);
    }
    let entries =
        Entries::from_slice(&[Entry::new(data.len() as u64, 1), Entry::new(u64::MAX, 0)]).unwrap();
    let mut updated = data.to_vec();
    taco_header::update_in_memory(&mut updated, &entries)
        .expect("an archive that parses can be updated");
    let after = Archive::parse(&updated).expect("an updated archive parses");
    assert_eq!(after.header().entries(), entries);
}

/// The `taco_header` fuzz target's checks (fuzz/fuzz_targets/taco_header.rs).
fn replay_header(data: &[u8]) {
    let every = ReadOptions::new();
    let full = Header::parse(data);
    let no_crc = Header::parse_with(data, &every.checksums(false));
    let lenient = Header::parse_with(data, &every.lenient(true));
    let tacozip = Header::parse_with(data, &every.lenient(true).checksums(false));
    for result in [&full, &no_crc, &lenient, &tacozip] {
        if let Err(e) = result {
            assert!(
                !matches!(e.kind(), ErrorKind::Layout(Layout::Overflow { .. })),
                "{e:?}"
            );
        }
    }
    if full.is_ok() {
        assert!(no_crc.is_ok() && lenient.is_ok());
    }
    if no_crc.is_ok() || lenient.is_ok() {
        assert!(tacozip.is_ok());
    }
    let Ok(header) = tacozip else { return };
    assert_eq!(no_crc.is_ok(), header.warnings().next().is_none());
    let options = HeaderOptions::new()
        .version_needed(header.version_needed())
        .modified(header.modified());
    let bytes = header.entries().to_header_bytes_with(&options);
    let again = Header::parse(&bytes).unwrap();
    assert_eq!(again.entries(), header.entries());
}

#[test]
fn every_regression_input_passes_its_fuzz_targets_checks() {
    for (name, data) in inputs("taco_archive") {
        eprintln!("taco_archive/{name}");
        replay_archive(&data);
    }
    for (name, data) in inputs("taco_header") {
        eprintln!("taco_header/{name}");
        replay_header(&data);
    }
}

/// A central directory that starts inside the header's payload (the header's own entry
/// is its last 57 bytes) parsed, and the update then wrote the new payload over the
/// directory, leaving an archive that no longer parsed. Every reader now refuses it, as
/// `verify` reports it: the header's data runs past where the directory starts.
#[test]
fn a_central_directory_inside_the_header_is_refused_before_any_write() {
    let data =
        std::fs::read(regressions("taco_archive").join("directory-inside-the-header")).unwrap();
    let no_crc = ReadOptions::new().checksums(false);
    let bounds = |e: &Error| {
        matches!(
            e.kind(),
            ErrorKind::MemberBounds {
                index: 0,
                end: 157,
                limit: 100,
                ..
            }
        ) && e.offset() == Some(41)
    };
    let err = Archive::parse_with(&data, &no_crc).unwrap_err();
    assert!(bounds(&err), "{err:?}");
    let reader = Reader::open_with(data.as_slice(), &no_crc).unwrap();
    let err = reader.central_directory().unwrap_err();
    assert!(bounds(&err), "{err:?}");
    let mut found = Vec::new();
    taco_header::verify(&data, &no_crc, &mut |s: Severity, e: Error| {
        found.push((s, e));
        ControlFlow::Continue(())
    });
    assert!(
        found
            .iter()
            .any(|(s, e)| *s == Severity::Error && bounds(e)),
        "{found:?}"
    );
    let mut updated = data.clone();
    let err = taco_header::update_in_memory(&mut updated, &Entries::new()).unwrap_err();
    assert!(bounds(&err), "{err:?}");
    assert_eq!(updated, data, "nothing written");
}
