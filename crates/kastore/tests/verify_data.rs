//! `verify_data` over a range cache finds exactly what `verify` finds over the bytes,
//! and holds only metadata.
// Caches need the `std` API.
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used)]

use binfmt_test_support::agree::{self, Damage, Positions};
use binfmt_test_support::fixtures::{files_with, fixtures_dir, read_all};
use binfmt_test_support::verify_pair;
use kastore::{ReadOptions, Writer};

/// Truncated at and around the 64-byte header, with bytes, a second magic and a second
/// copy appended, and with single bytes of the header, descriptors and keys changed.
const DAMAGE: Damage<'static> = Damage {
    cuts: &[1, 8, 63, 64, 100],
    tails: &[&[0u8; 3], b"\x89KAS\r\n\x1a\n"],
    doubled: true,
    at: Positions::Prefix { len: 400, step: 3 },
    values: &[0, 0xff, 7],
};

#[test]
fn every_fixture_gives_the_same_findings_over_a_cache() {
    let paths = files_with(&fixtures_dir("kastore"), &["kas", "trees", "bin"]);
    assert!(paths.len() > 30, "{}", paths.len());
    let options = [ReadOptions::new()];
    agree::assert_all_agree(&read_all(&paths), &DAMAGE, &options, verify_pair!(kastore));
}

/// A store of two arrays, `a` and `b`, each of `len` times `value` (u64).
fn two_arrays(value: u64, len: usize) -> Vec<u8> {
    let big = vec![value; len];
    Writer::new()
        .add("a", &big)
        .unwrap()
        .add("b", &big)
        .unwrap()
        .to_vec()
        .unwrap()
}

#[test]
fn a_cache_holds_metadata_only() {
    let data = two_arrays(7, 4 << 20); // 32 MiB of array
    let cached = agree::verify_cached(&data, |c, f| {
        kastore::verify_data(c, &ReadOptions::new(), f)
    });
    assert_eq!(cached.summary.warnings(), 0);
    assert!(cached.held <= 64 * 1024, "{cached:?}");
    assert!(cached.read <= 64 * 1024, "{cached:?}");
}

/// Writes a large store for measuring `binfmt verify` (run with `--ignored` and
/// `BINFMT_BIG=PATH`).
#[test]
#[ignore = "writes a 512 MB file"]
fn write_a_large_store() {
    let Some(path) = std::env::var_os("BINFMT_BIG") else {
        return;
    };
    let data = two_arrays(3, 32 << 20); // 256 MiB
    std::fs::write(path, data).unwrap();
}
