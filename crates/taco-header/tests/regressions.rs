//! Inputs the fuzzers found (`fuzz/regressions/taco_archive/`, `fuzz/regressions/
//! taco_header/`), replayed through the same checks as the fuzz targets, plus what each
//! one showed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::std_instead_of_core)]

mod common;

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use common::oracle;
use taco_header::{Archive, Entries, Error, ErrorKind, ReadOptions, Reader, Severity};

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

#[test]
fn every_regression_input_passes_its_fuzz_targets_checks() {
    for (name, data) in inputs("taco_archive") {
        eprintln!("taco_archive/{name}");
        oracle::check_archive(&data);
    }
    for (name, data) in inputs("taco_header") {
        eprintln!("taco_header/{name}");
        oracle::check_header(&data);
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
