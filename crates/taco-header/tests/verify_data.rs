//! `verify_data` over a range cache finds exactly what `verify` finds over the bytes,
//! and holds only metadata.
// Caches need the `std` API.
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used)]

use binfmt_test_support::agree::{self, Damage, Positions};
use binfmt_test_support::fixtures::{files_with, fixtures_dir, read_all};
use binfmt_test_support::verify_pair;
use taco_header::{Entries, ReadOptions, Writer};

/// Truncated at and around the 30-byte local header, with bytes and an end-of-directory
/// signature appended, and with single bytes changed all along the file.
const DAMAGE: Damage<'static> = Damage {
    cuts: &[1, 8, 29, 30, 100],
    tails: &[&[0; 3], b"PK\x05\x06"],
    doubled: false,
    at: Positions::Spread(500),
    values: &[0, 0xff, 7],
};

fn built() -> Vec<u8> {
    let mut builder = Writer::new(Entries::new());
    builder.add_bytes("a.txt", b"hello".to_vec());
    builder.add_bytes("b.bin", vec![9u8; 3000]);
    builder.add_bytes("c", Vec::new());
    builder.to_vec().unwrap()
}

#[test]
fn every_fixture_gives_the_same_findings_over_a_cache() {
    let mut files = vec![("built()".to_string(), built())];
    files.extend(read_all(&files_with(
        &fixtures_dir("taco-header"),
        &["taco", "zip"],
    )));
    assert!(files.len() >= 7);
    let options = [ReadOptions::new(), ReadOptions::new().lenient(true)];
    agree::assert_all_agree(&files, &DAMAGE, &options, verify_pair!(taco_header));
}

#[test]
fn a_cache_holds_metadata_only_and_payloads_are_streamed() {
    let mut builder = Writer::new(Entries::new());
    builder.add_bytes("a", vec![1u8; 20 << 20]);
    builder.add_bytes("b", vec![2u8; 20 << 20]);
    let mut data = builder.to_vec().unwrap();
    let cached = agree::verify_cached(&data, |c, f| {
        taco_header::verify_data(c, &ReadOptions::new(), f)
    });
    // The tail and the local headers.
    assert!(cached.held <= 256 * 1024, "{cached:?}");
    // A damaged member is found the same way.
    let at = data.len() / 4;
    data[at] ^= 1;
    let (slice, ranged) = verify_pair!(taco_header)(&data, &ReadOptions::new());
    assert_eq!(slice, ranged);
    assert!(slice.contains("MemberCrc"), "{slice}");
}
