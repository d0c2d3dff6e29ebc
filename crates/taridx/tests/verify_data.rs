//! `verify_data` over a range cache finds exactly what `verify` finds over the bytes,
//! and holds only the header and the text blocks.
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
use taridx::{IndexFile, ReadOptions, RowData, keyhash};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "taridx") {
            out.push(path);
        }
    }
}

/// The findings and summary of both verifies, as text.
fn both(data: &[u8], options: &ReadOptions) -> (String, String) {
    let mut slice = Findings::new(1000);
    let a = taridx::verify(data, options, &mut slice);
    let source = Counting::new(data);
    let cache = ReadCache::new(&source);
    let mut ranged = Findings::new(1000);
    let b = taridx::verify_data(&cache, options, &mut ranged);
    (
        format!("{a:?} {:?} {:?}", slice.errors(), slice.warnings()),
        format!("{b:?} {:?} {:?}", ranged.errors(), ranged.warnings()),
    )
}

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
    let mut longer = data.to_vec();
    longer.extend_from_slice(&[0; 32]);
    out.push(longer);
    let step = (data.len() / 400).max(1);
    for at in (0..data.len()).step_by(step) {
        for value in [0u8, 0xff, 2] {
            let mut v = data.to_vec();
            v[at] = value;
            out.push(v);
        }
    }
    out
}

fn built(n: u64) -> Vec<u8> {
    let rows = (0..n)
        .map(|i| RowData {
            fid: 0,
            offset: i * 1024,
            size: 1,
            extid: u16::try_from(i % 2).unwrap(),
            crashid: u32::try_from(i % 3).unwrap(),
            keyhash: keyhash(&(i / 2).to_string()),
        })
        .collect();
    IndexFile::new(
        vec!["jpg".into(), "json".into()],
        vec!["a".into(), "b".into()],
        rows,
    )
    .unwrap()
    .to_vec()
    .unwrap()
}

#[test]
fn every_fixture_gives_the_same_findings_over_a_cache() {
    let mut paths = Vec::new();
    files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
        &mut paths,
    );
    let mut all: Vec<Vec<u8>> = paths.iter().map(|p| std::fs::read(p).unwrap()).collect();
    all.push(built(20));
    assert!(all.len() >= 5);
    let mut checked = 0;
    for (i, data) in all.iter().enumerate() {
        for v in variants(data) {
            for options in [ReadOptions::new(), ReadOptions::new().lenient(true)] {
                let (slice, ranged) = both(&v, &options);
                assert_eq!(slice, ranged, "{i}");
                checked += 1;
            }
        }
    }
    assert!(checked > 1000);
}

#[test]
fn a_cache_holds_the_blocks_only() {
    let mut data = built(600_000); // 19 MB of rows: three pieces
    let source = Counting::new(&data[..]);
    let cache = ReadCache::new(&source);
    let mut findings = Findings::new(10);
    let summary = taridx::verify_data(&cache, &ReadOptions::new(), &mut findings);
    assert!(summary.is_valid(), "{:?}", findings.errors());
    assert!(cache.held() <= 64 * 1024, "{}", cache.held());
    // A bad id in the last piece is found at the same place.
    let last = data.len() - 32 + 18;
    data[last] = 9;
    for options in [ReadOptions::new(), ReadOptions::new().lenient(true)] {
        let (slice, ranged) = both(&data, &options);
        assert_eq!(slice, ranged);
        assert!(slice.contains("ExtId"), "{slice}");
    }
}
