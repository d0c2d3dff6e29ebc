//! `verify_data` over a range cache finds exactly what `verify` finds over the bytes,
//! and holds only metadata.
// Caches need the `std` API.
#![cfg(feature = "std")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};

use binfmt_core::cache::ReadCache;
use binfmt_core::source::Counting;
use binfmt_core::verify::Findings;
use kastore::{Builder, ReadOptions};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path
            .extension()
            .is_some_and(|e| e == "kas" || e == "trees" || e == "bin")
        {
            out.push(path);
        }
    }
}

/// The findings and summary of both verifies, as text.
fn both(data: &[u8]) -> (String, String) {
    let mut slice = Findings::new(1000);
    let a = kastore::verify(data, &ReadOptions::new(), &mut slice);
    let source = Counting::new(data);
    let cache = ReadCache::new(&source);
    let mut ranged = Findings::new(1000);
    let b = kastore::verify_data(&cache, &ReadOptions::new(), &mut ranged);
    (
        format!("{a:?} {:?} {:?}", slice.errors(), slice.warnings()),
        format!("{b:?} {:?} {:?}", ranged.errors(), ranged.warnings()),
    )
}

/// Variants of a file: itself, truncated, with bytes appended, and with single bytes of
/// its header, descriptors and keys changed.
fn variants(data: &[u8]) -> Vec<Vec<u8>> {
    let mut out = vec![data.to_vec(), Vec::new()];
    for cut in [
        1,
        8,
        63,
        64,
        100,
        data.len() / 2,
        data.len().saturating_sub(1),
    ] {
        out.push(data[..cut.min(data.len())].to_vec());
    }
    for tail in [&[0u8; 3][..], b"\x89KAS\r\n\x1a\n", data] {
        let mut v = data.to_vec();
        v.extend_from_slice(tail);
        out.push(v);
    }
    for at in (0..data.len().min(400)).step_by(3) {
        for value in [0u8, 0xff, 7] {
            let mut v = data.to_vec();
            v[at] = value;
            out.push(v);
        }
    }
    out
}

#[test]
fn every_fixture_gives_the_same_findings_over_a_cache() {
    let mut paths = Vec::new();
    files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
        &mut paths,
    );
    assert!(paths.len() > 30, "{}", paths.len());
    let mut checked = 0;
    for path in &paths {
        let data = std::fs::read(path).unwrap();
        for v in variants(&data) {
            let (slice, ranged) = both(&v);
            assert_eq!(slice, ranged, "{}", path.display());
            checked += 1;
        }
    }
    assert!(checked > 1000);
}

#[test]
fn a_cache_holds_metadata_only() {
    let big = vec![7u64; 4 << 20]; // 32 MiB of array
    let data = Builder::new()
        .insert("a", &big)
        .unwrap()
        .insert("b", &big)
        .unwrap()
        .to_vec()
        .unwrap();
    let source = Counting::new(&data[..]);
    let cache = ReadCache::new(&source);
    let mut findings = Findings::new(10);
    let summary = kastore::verify_data(&cache, &ReadOptions::new(), &mut findings);
    assert_eq!((summary.errors(), summary.warnings()), (0, 0));
    assert!(cache.held() <= 64 * 1024, "{}", cache.held());
    assert!(source.stats().bytes <= 64 * 1024);
}

/// Writes a large store for measuring `binfmt verify` (run with `--ignored` and
/// `BINFMT_BIG=PATH`).
#[test]
#[ignore = "writes a 512 MB file"]
fn write_a_large_store() {
    let Some(path) = std::env::var_os("BINFMT_BIG") else {
        return;
    };
    let big = vec![3u64; 32 << 20]; // 256 MiB
    let data = Builder::new()
        .insert("a", &big)
        .unwrap()
        .insert("b", &big)
        .unwrap()
        .to_vec()
        .unwrap();
    std::fs::write(path, data).unwrap();
}
