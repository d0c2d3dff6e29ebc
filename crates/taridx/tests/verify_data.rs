//! `verify_data` over a range cache finds exactly what `verify` finds over the bytes,
//! and holds only the header and the text blocks.
// Caches need the `std` API.
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used)]

use binfmt_test_support::agree::{self, Damage, Positions};
use binfmt_test_support::fixtures::{files_with, fixtures_dir, read_all};
use binfmt_test_support::verify_pair;
use taridx::{IndexFile, ReadOptions, RowData, keyhash};

/// Truncated at and around the 64-byte header, with bytes appended, and with single
/// bytes changed all along the file.
const DAMAGE: Damage<'static> = Damage {
    cuts: &[1, 8, 63, 64, 100],
    tails: &[&[0; 32]],
    doubled: false,
    at: Positions::Spread(400),
    values: &[0, 0xff, 2],
};

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
    let paths = files_with(&fixtures_dir("taridx"), &["taridx"]);
    let mut all = read_all(&paths);
    all.push(("built(20)".into(), built(20)));
    assert!(all.len() >= 5);
    let options = [ReadOptions::new(), ReadOptions::new().lenient(true)];
    agree::assert_all_agree(&all, &DAMAGE, &options, verify_pair!(taridx));
}

#[test]
fn a_cache_holds_the_blocks_only() {
    let mut data = built(600_000); // 19 MB of rows: three pieces
    let cached = agree::verify_cached(&data, |c, f| taridx::verify_data(c, &ReadOptions::new(), f));
    assert!(cached.held <= 64 * 1024, "{cached:?}");
    // A bad id in the last piece is found at the same place.
    let last = data.len() - 32 + 18;
    data[last] = 9;
    for options in [ReadOptions::new(), ReadOptions::new().lenient(true)] {
        let (slice, ranged) = verify_pair!(taridx)(&data, &options);
        assert_eq!(slice, ranged);
        assert!(slice.contains("ExtId"), "{slice}");
    }
}
