//! Reader checks (one test per error), the writer's validation, name verification,
//! positional access, and property tests: round trips, and no panic on any bytes.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::Path;

use proptest::prelude::*;
use taridx::tar::Walker;
use taridx::{
    Block, BuildOptions, Diagnostic, Error, Fault, Index, IndexBuilder, IndexFile, ReadMode,
    RowData, StemMap, Verifier, keyhash,
};

fn golden(rel: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/golden")
            .join(rel),
    )
    .unwrap()
}

fn clean() -> Vec<u8> {
    golden("clean.taridx")
}

fn patch(bytes: &mut [u8], at: usize, value: &[u8]) {
    bytes[at..at + value.len()].copy_from_slice(value);
}

#[test]
fn every_header_check_has_its_own_error() {
    let good = clean();
    Index::parse(&good).unwrap();

    let e = Index::parse(&good[..63]).unwrap_err();
    assert!(
        matches!(e, Error::Layout(binfmt_core::Error::Truncated { .. })),
        "{e}"
    );

    let mut b = good.clone();
    patch(&mut b, 0, b"TARIDY");
    assert!(matches!(
        Index::parse(&b),
        Err(Error::Layout(binfmt_core::Error::BadMagic { .. }))
    ));

    let mut b = good.clone();
    patch(&mut b, 8, &2u16.to_le_bytes());
    let e = Index::parse(&b).unwrap_err();
    assert!(matches!(
        e,
        Error::Layout(binfmt_core::Error::VersionTooNew { .. })
    ));
    assert_eq!(e.fault(), Fault::Unsupported);

    let mut b = good.clone();
    patch(&mut b, 10, &7u16.to_le_bytes());
    let index = Index::parse(&b).unwrap();
    assert!(index.compatibility().is_newer());

    let mut b = good.clone();
    patch(&mut b, 12, &33u16.to_le_bytes());
    assert!(matches!(
        Index::parse(&b),
        Err(Error::RecordSize { found: 33 })
    ));
    Index::parse_with(&b, ReadMode::Lenient).unwrap();

    let mut b = good.clone();
    patch(&mut b, 14, &65u16.to_le_bytes());
    let e = Index::parse(&b).unwrap_err();
    assert!(matches!(e, Error::HeaderSize { found: 65 }));
    assert_eq!(e.offset(), Some(14));

    let mut b = good.clone();
    patch(&mut b, 40, &63u64.to_le_bytes());
    assert!(matches!(
        Index::parse(&b),
        Err(Error::CrashOffset { value: 63, .. })
    ));
    let mut b = good.clone();
    patch(&mut b, 40, &93u64.to_le_bytes());
    assert!(matches!(
        Index::parse(&b),
        Err(Error::CrashOffset { value: 93, .. })
    ));

    let mut b = good.clone();
    patch(&mut b, 48, &u64::MAX.to_le_bytes());
    assert!(matches!(Index::parse(&b), Err(Error::RowsOffset { .. })));

    let mut b = good.clone();
    patch(&mut b, 24, &22u64.to_le_bytes());
    assert!(matches!(
        Index::parse(&b),
        Err(Error::RowBytes { n_rows: 22, .. })
    ));
    // n_rows whose byte size overflows u64.
    patch(&mut b, 24, &(u64::MAX / 16).to_le_bytes());
    assert!(matches!(Index::parse(&b), Err(Error::RowBytes { .. })));
    let mut b = good.clone();
    b.push(0);
    assert!(matches!(
        Index::parse(&b),
        Err(Error::RowBytes { available: 673, .. })
    ));

    let mut b = good.clone();
    b[66] = 0xff;
    assert!(matches!(
        Index::parse(&b),
        Err(Error::BlockText {
            block: Block::Extensions,
            offset: 66
        })
    ));

    let mut b = good.clone();
    patch(&mut b, 32, &4u32.to_le_bytes());
    let e = Index::parse(&b).unwrap_err();
    assert!(matches!(
        e,
        Error::BlockCount {
            block: Block::Extensions,
            declared: 4,
            found: 3
        }
    ));
    assert_eq!(e.offset(), Some(32));
    let mut b = good.clone();
    patch(&mut b, 36, &0u32.to_le_bytes());
    assert!(matches!(
        Index::parse(&b),
        Err(Error::BlockCount {
            block: Block::CrashStems,
            declared: 0,
            found: 1
        })
    ));
}

#[test]
fn blocks_split_on_newline_only() {
    // A space inside an extension is one extension (glzn's whitespace split would see two).
    let file = IndexFile::new(vec!["a b".into(), String::new()], vec![], vec![]).unwrap();
    let bytes = file.to_bytes();
    let index = Index::parse(&bytes).unwrap();
    assert_eq!(index.extensions().collect::<Vec<_>>(), ["a b", ""]);
    // One empty extension: an empty block with n_ext = 1.
    let file = IndexFile::new(vec![String::new()], vec![], vec![]).unwrap();
    let bytes = file.to_bytes();
    assert_eq!(bytes.len(), 64);
    assert_eq!(
        Index::parse(&bytes)
            .unwrap()
            .extensions()
            .collect::<Vec<_>>(),
        [""]
    );
}

#[test]
fn row_ids_are_checked_whenever_rows_are_decoded() {
    let mut b = clean();
    let row5 = 92 + 5 * 32;
    patch(&mut b, row5 + 18, &3u16.to_le_bytes());
    let index = Index::parse(&b).unwrap(); // O(1): rows are not looked at
    let e = index.row(5).unwrap().unwrap_err();
    assert!(matches!(
        e,
        Error::ExtId {
            row: 5,
            extid: 3,
            n_ext: 3,
            ..
        }
    ));
    assert_eq!(e.offset(), Some(u64::try_from(row5 + 18).unwrap()));
    assert!(index.row(4).unwrap().is_ok());
    assert!(index.row(21).is_none());
    assert!(index.check_rows().is_err());
    assert!(StemMap::build(&index).is_err());
    let lenient = Index::parse_with(&b, ReadMode::Lenient).unwrap();
    lenient.check_rows().unwrap();
    assert_eq!(lenient.extension(3), None);

    let mut b = clean();
    patch(&mut b, row5 + 20, &2u32.to_le_bytes());
    let index = Index::parse(&b).unwrap();
    assert!(matches!(
        index.check_rows(),
        Err(Error::CrashId {
            row: 5,
            crashid: 2,
            ..
        })
    ));
}

#[test]
fn deep_checks_recompute_stem_count_and_flag() {
    let mut b = clean();
    patch(&mut b, 16, &8u64.to_le_bytes());
    let index = Index::parse(&b).unwrap();
    assert!(matches!(
        index.check_deep(),
        Err(Error::StemCount {
            declared: 8,
            found: 7
        })
    ));
    let map = StemMap::build(&index).unwrap();
    assert!(matches!(map.check_header(), Err(Error::StemCount { .. })));

    let mut b = clean();
    b[56] = 0;
    let index = Index::parse(&b).unwrap();
    assert!(matches!(
        index.check_deep(),
        Err(Error::Flags { declared: false })
    ));
    assert!(StemMap::build(&index).unwrap().is_contiguous());
    // Reserved flag bits are ignored.
    let mut b = clean();
    b[56] = 0xff;
    Index::parse(&b).unwrap().check_deep().unwrap();
}

#[test]
fn the_writer_validates_before_writing() {
    let row = RowData {
        fid: 0,
        offset: 0,
        size: 1,
        extid: 0,
        crashid: 0,
        keyhash: 1,
    };
    assert!(matches!(
        IndexFile::new(vec!["a\nb".into()], vec![], vec![row]),
        Err(Error::InvalidText {
            block: Block::Extensions,
            entry: 0,
            ..
        })
    ));
    assert!(matches!(
        IndexFile::new(vec!["jpg".into()], vec!["x\n".into()], vec![row]),
        Err(Error::InvalidText {
            block: Block::CrashStems,
            ..
        })
    ));
    assert!(matches!(
        IndexFile::new(vec![], vec![], vec![row]),
        Err(Error::InvalidRow { row: 0, .. })
    ));
    let bad = RowData { crashid: 1, ..row };
    assert!(matches!(
        IndexFile::new(vec!["jpg".into()], vec![], vec![bad]),
        Err(Error::InvalidRow { row: 0, .. })
    ));
    let too_many: Vec<String> = (0..=65_536).map(|i| i.to_string()).collect();
    assert!(matches!(
        IndexFile::new(too_many, vec![], vec![]),
        Err(Error::InvalidText {
            block: Block::Extensions,
            ..
        })
    ));
}

#[test]
fn indexes_round_trip_and_write_atomically() {
    let bytes = golden("strict/train.taridx");
    let index = Index::parse(&bytes).unwrap();
    let file = IndexFile::from_index(&index).unwrap();
    assert!(file.to_bytes() == bytes);
    assert_eq!(file.encoded_len(), u64::try_from(bytes.len()).unwrap());
    let mut written = Vec::new();
    file.write_to(&mut written).unwrap();
    assert!(written == bytes);

    let dir = std::env::temp_dir().join(format!("taridx-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("x.taridx");
    std::fs::write(&path, b"old").unwrap();
    file.write_to_path(&path).unwrap();
    assert!(std::fs::read(&path).unwrap() == bytes);
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "no temporary file left"
    );
    // A directory that does not exist: an error naming the path, nothing written.
    let e = file
        .write_to_path(dir.join("missing/x.taridx"))
        .unwrap_err();
    assert!(matches!(e, Error::Io { .. }) && e.to_string().contains("missing"));
    assert_eq!(e.fault(), Fault::Io);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn verification_rejects_an_absent_stem_that_collides() {
    // Index shard 0 of `clean` alone: 95285a4520319586 is indexed, 1aefceb10cb92620 is
    // not, and both have the same XXH64.
    let shard = golden("clean_0000.tar");
    let mut b = IndexBuilder::new(BuildOptions::strict());
    b.add_shard("clean_0000.tar", &shard).unwrap();
    let bytes = b.finish().0.to_bytes();
    let index = Index::parse(&bytes).unwrap();
    let map = StemMap::build(&index).unwrap();
    let absent: Vec<_> = map.lookup("1aefceb10cb92620").collect();
    assert_eq!(
        absent.len(),
        3,
        "without verification the colliding stem's rows come back"
    );
    let mut verifier = Verifier::new();
    for e in &absent {
        assert!(!verifier.verify(e, "1aefceb10cb92620", &shard).unwrap());
        assert!(verifier.verify(e, "95285a4520319586", &shard).unwrap());
    }
    // Names behind pax and GNU long-name headers are resolved through the chain.
    let train = [
        golden("train_0000.tar"),
        golden("train_0001.tar"),
        golden("train_0002.tar"),
    ];
    let bytes = golden("strict/train.taridx");
    let index = Index::parse(&bytes).unwrap();
    let map = StemMap::build(&index).unwrap();
    let mut verifier = Verifier::new();
    for stem in [
        "sample000008",
        "sample000009",
        "sample000011",
        "naïve_ü",
        "sample000004",
    ] {
        let rows: Vec<_> = map.lookup(stem).collect();
        assert_eq!(rows.len(), 2, "{stem}");
        for e in rows {
            assert!(
                verifier
                    .verify(&e, stem, &train[usize::from(e.fid)])
                    .unwrap(),
                "{stem}"
            );
            let payload = e.payload(&train[usize::from(e.fid)]).unwrap();
            assert_eq!(u64::try_from(payload.len()).unwrap(), e.size);
        }
    }
}

#[test]
fn positional_access_needs_contiguous_rows() {
    let bytes = clean();
    let index = Index::parse(&bytes).unwrap();
    let map = StemMap::build(&index).unwrap();
    assert_eq!(map.n_samples().unwrap(), 7);
    let third: Vec<u64> = map.sample(2).unwrap().unwrap().map(|e| e.row).collect();
    assert_eq!(third, [6, 7, 8]);
    assert!(map.sample(7).unwrap().is_none());
    let bytes = golden("strict/train.taridx");
    let index = Index::parse(&bytes).unwrap();
    let map = StemMap::build(&index).unwrap();
    assert!(matches!(map.sample(0), Err(Error::NotContiguous)));
    assert!(matches!(map.n_samples(), Err(Error::NotContiguous)));
}

#[test]
fn io_errors_convert_to_std() {
    let e: std::io::Error = Error::RecordSize { found: 1 }.into();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
    let e: std::io::Error = Error::NotContiguous.into();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
}

fn arb_rows() -> impl Strategy<Value = (Vec<String>, Vec<String>, Vec<RowData>)> {
    (1usize..5, 0usize..3).prop_flat_map(|(n_ext, n_crash)| {
        let exts = proptest::collection::vec("[a-z. ]{0,6}", n_ext);
        let crash = proptest::collection::vec("[a-z0-9 ]{0,8}", n_crash);
        let row = (
            any::<u16>(),
            any::<u64>(),
            any::<u64>(),
            0..n_ext,
            0..=n_crash,
            0u64..6,
        )
            .prop_map(|(fid, offset, size, extid, crashid, k)| RowData {
                fid,
                offset,
                size,
                extid: u16::try_from(extid).unwrap(),
                crashid: u32::try_from(crashid).unwrap(),
                keyhash: keyhash(&k.to_string()),
            });
        (exts, crash, proptest::collection::vec(row, 0..40))
    })
}

proptest! {
    #[test]
    fn written_indexes_parse_back_identically((exts, crash, rows) in arb_rows()) {
        let file = IndexFile::new(exts.clone(), crash.clone(), rows.clone()).unwrap();
        let bytes = file.to_bytes();
        let index = Index::parse(&bytes).unwrap();
        index.check_rows().unwrap();
        index.check_deep().unwrap();
        prop_assert_eq!(index.extensions().collect::<Vec<_>>(), exts);
        prop_assert_eq!(index.crash_stems().collect::<Vec<_>>(), crash);
        let back: Vec<RowData> = index.entries().map(|e| {
            let e = e.unwrap();
            RowData { fid: e.fid, offset: e.offset, size: e.size, extid: e.extid, crashid: e.crashid, keyhash: e.keyhash }
        }).collect();
        prop_assert_eq!(&back, &rows);
        let map = StemMap::build(&index).unwrap();
        map.check_header().unwrap();
        for k in 0u64..6 {
            for c in 0..=index.n_crash() {
                let h = keyhash(&k.to_string());
                let got: Vec<u64> = map.lookup_key(h, c).map(|e| e.row).collect();
                let want: Vec<u64> = (0u64..).zip(&rows)
                    .filter(|(_, r)| r.keyhash == h && r.crashid == c)
                    .map(|(i, _)| i).collect();
                prop_assert_eq!(got, want);
            }
        }
    }

    #[test]
    fn no_bytes_make_the_reader_panic(mut bytes in proptest::collection::vec(any::<u8>(), 0..400), fix in any::<bool>()) {
        if fix && bytes.len() >= 64 {
            bytes[..8].copy_from_slice(b"TARIDX\0\0");
            bytes[8..10].copy_from_slice(&1u16.to_le_bytes());
        }
        if let Ok(index) = Index::parse_with(&bytes, ReadMode::Lenient) {
            let _ = index.check_rows();
            let _ = index.find("x").count();
            if let Ok(map) = StemMap::build(&index) {
                let _ = map.lookup("x").count();
                let _ = map.sample(0);
            }
        }
    }

    #[test]
    fn no_bytes_make_the_indexer_panic(bytes in proptest::collection::vec(any::<u8>(), 0..3000)) {
        for event in Walker::new(&bytes, 0) {
            if event.is_err() { break; }
        }
        for options in [BuildOptions::strict(), BuildOptions::glzn()] {
            let mut b = IndexBuilder::new(options);
            if b.add_shard("x.tar", &bytes).is_ok() {
                let bytes = b.finish().0.to_bytes();
                Index::parse(&bytes).unwrap();
            }
        }
    }
}
