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

use std::path::Path;

use binfmt_core::cache::ReadCache;
use binfmt_core::source::Counting;
use binfmt_core::verify::Findings;
use taco_header::{ArchiveBuilder, Entries, ReadOptions};

/// The findings and summary of both verifies, as text.
fn both(data: &[u8], options: &ReadOptions) -> (String, String) {
    let mut slice = Findings::new(1000);
    let a = taco_header::verify(data, options, &mut slice);
    let source = Counting::new(data);
    let cache = ReadCache::new(&source);
    let mut ranged = Findings::new(1000);
    let b = taco_header::verify_data(&cache, options, &mut ranged);
    (
        format!("{a:?} {:?} {:?}", slice.errors(), slice.warnings()),
        format!("{b:?} {:?} {:?}", ranged.errors(), ranged.warnings()),
    )
}

/// Variants of a file: itself, truncated, with bytes appended, and with single bytes
/// changed all along it.
fn variants(data: &[u8]) -> Vec<Vec<u8>> {
    let mut out = vec![data.to_vec(), Vec::new()];
    for cut in [
        1,
        8,
        29,
        30,
        100,
        data.len() / 2,
        data.len().saturating_sub(1),
    ] {
        out.push(data[..cut.min(data.len())].to_vec());
    }
    for tail in [&[0u8; 3][..], b"PK\x05\x06"] {
        let mut v = data.to_vec();
        v.extend_from_slice(tail);
        out.push(v);
    }
    let step = (data.len() / 500).max(1);
    for at in (0..data.len()).step_by(step) {
        for value in [0u8, 0xff, 7] {
            let mut v = data.to_vec();
            v[at] = value;
            out.push(v);
        }
    }
    out
}

fn built() -> Vec<u8> {
    let mut builder = ArchiveBuilder::new(Entries::new());
    builder.add_bytes("a.txt", b"hello".to_vec());
    builder.add_bytes("b.bin", vec![9u8; 3000]);
    builder.add_bytes("c", Vec::new());
    builder.to_vec().unwrap()
}

#[test]
fn every_fixture_gives_the_same_findings_over_a_cache() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files = vec![built()];
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "taco" || e == "zip") {
            files.push(std::fs::read(path).unwrap());
        }
    }
    assert!(files.len() >= 7);
    let mut checked = 0;
    for (i, data) in files.iter().enumerate() {
        for v in variants(data) {
            for options in [ReadOptions::new(), ReadOptions::new().lenient(true)] {
                let (slice, ranged) = both(&v, &options);
                assert_eq!(slice, ranged, "file {i}");
                checked += 1;
            }
        }
    }
    assert!(checked > 1000);
}

#[test]
fn a_cache_holds_metadata_only_and_payloads_are_streamed() {
    let mut builder = ArchiveBuilder::new(Entries::new());
    builder.add_bytes("a", vec![1u8; 20 << 20]);
    builder.add_bytes("b", vec![2u8; 20 << 20]);
    let mut data = builder.to_vec().unwrap();
    let source = Counting::new(&data[..]);
    let cache = ReadCache::new(&source);
    let mut findings = Findings::new(10);
    let summary = taco_header::verify_data(&cache, &ReadOptions::new(), &mut findings);
    assert!(summary.is_valid(), "{:?}", findings.errors());
    assert!(cache.held() <= 256 * 1024, "{}", cache.held()); // the tail and the local headers
    // A damaged member is found the same way.
    let at = data.len() / 4;
    data[at] ^= 1;
    let (slice, ranged) = both(&data, &ReadOptions::new());
    assert_eq!(slice, ranged);
    assert!(slice.contains("MemberCrc"), "{slice}");
}
