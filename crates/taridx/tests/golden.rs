//! The golden files: glzn's own indexes (compat oracle) and the strict-mode oracles,
//! reproduced byte for byte from the committed shards.
// Integration tests use the `std` API (builder, files, sources).
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use binfmt_core::verify::Findings;
use taridx::{
    BuildOptions, Index, ReadOptions, Report, SkipReason, StemMap, Warning, Writer, verify,
};

fn golden() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/golden")
}

fn build(fold: &str, options: BuildOptions, reverse: bool) -> (Vec<u8>, Report) {
    let mut shards = taridx::fs::fold_shards(golden(), fold).unwrap();
    if reverse {
        shards.reverse();
    }
    let mut builder = Writer::new(options);
    for path in &shards {
        let data = std::fs::read(path).unwrap();
        let name = path.file_name().unwrap().to_str().unwrap();
        builder.add(name, &data).unwrap();
    }
    let taridx::Finished {
        index: file,
        report,
        ..
    } = builder.finish().unwrap();
    (file.to_vec().unwrap(), report)
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(golden().join(rel)).unwrap()
}

#[test]
fn shards_are_found_in_suffix_order() {
    let names: Vec<String> = taridx::fs::fold_shards(golden(), "train")
        .unwrap()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["train_0000.tar", "train_0001.tar", "train_0002.tar"]
    );
}

#[test]
fn glzn_mode_reproduces_glzn_byte_for_byte() {
    for fold in ["clean", "train"] {
        let (bytes, _) = build(fold, BuildOptions::glzn(), false);
        assert!(bytes == read(&format!("{fold}.taridx")), "{fold}");
    }
}

#[test]
fn strict_mode_reproduces_the_strict_oracles() {
    for fold in ["clean", "train"] {
        let (bytes, _) = build(fold, BuildOptions::strict(), false);
        assert!(bytes == read(&format!("strict/{fold}.taridx")), "{fold}");
    }
    // For glzn-writer tars both modes agree.
    assert_eq!(read("clean.taridx"), read("strict/clean.taridx"));
}

#[test]
fn strict_report_matches_the_oracle_json() {
    let (_, report) = build("train", BuildOptions::strict(), false);
    let expected: serde_json::Value =
        serde_json::from_slice(&read("strict/train.build.json")).unwrap();
    let skipped = expected["skipped"].as_array().unwrap();
    assert_eq!(report.skipped.len(), skipped.len());
    for (ours, theirs) in report.skipped.iter().zip(skipped) {
        assert_eq!(report.shards[usize::from(ours.shard)], theirs["shard"]);
        assert_eq!(ours.name.as_str(), theirs["name"]);
        assert_eq!(ours.offset, theirs["offset"]);
        let why = theirs["why"].as_str().unwrap();
        match ours.reason {
            SkipReason::NotRegular { typeflag } => {
                assert_eq!(
                    why,
                    format!("typeflag b'{}' is not a regular file", char::from(typeflag))
                );
            }
            SkipReason::NoExtension => assert_eq!(why, "no extension"),
            SkipReason::EmptyStem => assert!(why.starts_with("empty stem")),
            SkipReason::Sparse => panic!("no sparse member in train"),
            _ => panic!("new reason"),
        }
    }
    let warnings = expected["warnings"].as_array().unwrap();
    assert_eq!(report.warnings.len(), warnings.len());
    for (ours, theirs) in report.warnings.iter().zip(warnings) {
        // "train_0002.tar: duplicate member sample000001.cls (also in train_0000.tar) at 19456"
        let Warning::Duplicate {
            shard,
            offset,
            stem,
            ext,
            first_shard,
        } = ours
        else {
            panic!("{ours:?}")
        };
        let text = format!(
            "{}: duplicate member {stem}.{ext} (also in {}) at {offset}",
            report.shards[usize::from(*shard)],
            report.shards[usize::from(*first_shard)]
        );
        assert_eq!(text, theirs.as_str().unwrap());
    }
    let (_, clean) = build("clean", BuildOptions::strict(), false);
    assert!(clean.skipped.is_empty() && clean.warnings.is_empty());
}

#[test]
fn golden_indexes_have_the_documented_shape() {
    // (file, bytes, rows, n_stems, flags, extensions, crash stems)
    type Case<'a> = (&'a str, usize, u64, u64, u8, &'a [&'a str], &'a [&'a str]);
    let cases: [Case<'_>; 3] = [
        (
            "clean.taridx",
            764,
            21,
            7,
            1,
            &["cls", "jpg", "json"],
            &["1aefceb10cb92620"],
        ),
        (
            "train.taridx",
            1837,
            54,
            21,
            0,
            &[
                "cls", "jpg", "json", "b.c.jpg", "b.c.json", "", "hidden", "txt", "lnk",
            ],
            &[],
        ),
        (
            "strict/train.taridx",
            1249,
            36,
            15,
            0,
            &["cls", "jpg", "json", "b.c.jpg", "b.c.json", "txt"],
            &[],
        ),
    ];
    for (file, len, rows, stems, flags, exts, crash) in cases {
        let bytes = read(file);
        assert_eq!(bytes.len(), len, "{file}");
        let index = Index::parse(&bytes).unwrap();
        assert_eq!(
            (index.n_rows(), index.n_stems(), index.flags()),
            (rows, stems, flags)
        );
        assert_eq!(index.extensions().collect::<Vec<_>>(), exts, "{file}");
        assert_eq!(index.crash_stems().collect::<Vec<_>>(), crash, "{file}");
        let mut findings = Findings::new(10);
        assert!(verify(&bytes, &ReadOptions::new(), &mut findings).is_valid());
        assert_eq!(findings.warnings().len(), 0);
        let map = StemMap::build(&index).unwrap();
        assert_eq!(map.distinct_stems(), index.n_stems());
        assert_eq!(map.is_contiguous(), index.is_contiguous());
    }
}

#[test]
fn the_real_collision_gets_crash_ids_in_first_seen_order() {
    let bytes = read("clean.taridx");
    let index = Index::parse(&bytes).unwrap();
    let map = StemMap::build(&index).unwrap();
    let canonical: Vec<_> = map.lookup("95285a4520319586").collect();
    let crash: Vec<_> = map.lookup("1aefceb10cb92620").collect();
    assert_eq!(
        canonical.iter().map(|e| e.row).collect::<Vec<_>>(),
        [6, 7, 8]
    );
    assert_eq!(
        crash.iter().map(|e| e.row).collect::<Vec<_>>(),
        [15, 16, 17]
    );
    assert!(canonical.iter().all(|e| e.crashid == 0 && e.fid == 0));
    assert!(crash.iter().all(|e| e.crashid == 1 && e.fid == 1));
    assert_eq!(canonical[0].keyhash, crash[0].keyhash);

    // Reversed shard order: the other stem is seen first and becomes canonical.
    for options in [BuildOptions::strict(), BuildOptions::glzn()] {
        let (reversed, _) = build("clean", options, true);
        let index = Index::parse(&reversed).unwrap();
        assert_eq!(
            index.crash_stems().collect::<Vec<_>>(),
            ["95285a4520319586"]
        );
        let map = StemMap::build(&index).unwrap();
        assert!(
            map.lookup("1aefceb10cb92620")
                .all(|e| e.crashid == 0 && e.fid == 0)
        );
        assert!(
            map.lookup("95285a4520319586")
                .all(|e| e.crashid == 1 && e.fid == 1)
        );
    }
}

#[test]
fn linear_find_agrees_with_the_stem_map() {
    for file in ["clean.taridx", "train.taridx", "strict/train.taridx"] {
        let bytes = read(file);
        let index = Index::parse(&bytes).unwrap();
        let map = StemMap::build(&index).unwrap();
        for stem in [
            "sample000001",
            "95285a4520319586",
            "1aefceb10cb92620",
            "a",
            "nope",
            "",
        ] {
            let found: Vec<_> = index.find(stem).map(Result::unwrap).collect();
            let looked: Vec<_> = map.lookup(stem).collect();
            assert_eq!(found, looked, "{file} {stem}");
        }
    }
}
