//! Reader checks (one test per error), the writer's validation, name verification,
//! positional access, and property tests: round trips, and no panic on any bytes.
// Integration tests use the `std` API (builder, files, sources).
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod support;

use support::golden;

use binfmt_core::Layout;
use binfmt_core::verify::Findings;
use proptest::prelude::*;
use taridx::tar::Walker;
use taridx::{
    Block, BuildOptions, Error, ErrorKind, Fault, Index, IndexFile, ReadOptions, RowData, StemMap,
    Verifier, Writer, keyhash, verify,
};

/// The kind of the error of `result`.
fn kind<T: core::fmt::Debug>(result: Result<T, Error>) -> ErrorKind {
    result.unwrap_err().into_kind()
}

fn lenient() -> ReadOptions {
    ReadOptions::new().lenient(true)
}

/// Every finding of `verify`, errors then warnings.
fn findings(bytes: &[u8], options: &ReadOptions) -> (Vec<Error>, Vec<Error>) {
    let mut f = Findings::new(1000);
    verify(bytes, options, &mut f);
    f.into_parts()
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
        matches!(e.kind(), ErrorKind::Layout(Layout::Truncated { .. })),
        "{e}"
    );

    let mut b = good.clone();
    patch(&mut b, 0, b"TARIDY");
    assert!(matches!(
        kind(Index::parse(&b)),
        ErrorKind::Layout(Layout::BadMagic { .. })
    ));

    let mut b = good.clone();
    patch(&mut b, 8, &2u16.to_le_bytes());
    let e = Index::parse(&b).unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::Layout(Layout::VersionTooNew { .. })
    ));
    assert_eq!(e.fault(), Fault::Unsupported);

    let mut b = good.clone();
    patch(&mut b, 10, &7u16.to_le_bytes());
    let index = Index::parse(&b).unwrap();
    assert!(index.compatibility().is_newer());
    let warnings: Vec<Error> = index.warnings().collect();
    assert!(matches!(warnings[..], [ref w] if w.offset() == Some(10)));

    let mut b = good.clone();
    patch(&mut b, 12, &33u16.to_le_bytes());
    assert!(matches!(
        kind(Index::parse(&b)),
        ErrorKind::RecordSize { found: 33, .. }
    ));
    let index = Index::parse_with(&b, &lenient()).unwrap();
    assert_eq!(index.warnings().count(), 1, "what the lenient read ignored");

    let mut b = good.clone();
    patch(&mut b, 14, &65u16.to_le_bytes());
    let e = Index::parse(&b).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::HeaderSize { found: 65, .. }));
    assert_eq!(e.offset(), Some(14));

    let mut b = good.clone();
    patch(&mut b, 40, &63u64.to_le_bytes());
    assert!(matches!(
        kind(Index::parse(&b)),
        ErrorKind::CrashOffset { value: 63, .. }
    ));
    let mut b = good.clone();
    patch(&mut b, 40, &93u64.to_le_bytes());
    assert!(matches!(
        kind(Index::parse(&b)),
        ErrorKind::CrashOffset { value: 93, .. }
    ));

    let mut b = good.clone();
    patch(&mut b, 48, &u64::MAX.to_le_bytes());
    assert!(matches!(
        kind(Index::parse(&b)),
        ErrorKind::RowsOffset { .. }
    ));

    let mut b = good.clone();
    patch(&mut b, 24, &22u64.to_le_bytes());
    assert!(matches!(
        kind(Index::parse(&b)),
        ErrorKind::RowBytes { n_rows: 22, .. }
    ));
    // n_rows whose byte size overflows u64.
    patch(&mut b, 24, &(u64::MAX / 16).to_le_bytes());
    assert!(matches!(kind(Index::parse(&b)), ErrorKind::RowBytes { .. }));
    let mut b = good.clone();
    b.push(0);
    assert!(matches!(
        kind(Index::parse(&b)),
        ErrorKind::RowBytes { available: 673, .. }
    ));

    let mut b = good.clone();
    b[66] = 0xff;
    let e = Index::parse(&b).unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::BlockText {
            block: Block::Extensions,
            ..
        }
    ));
    assert_eq!(e.offset(), Some(66));

    let mut b = good.clone();
    patch(&mut b, 32, &4u32.to_le_bytes());
    let e = Index::parse(&b).unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::BlockCount {
            block: Block::Extensions,
            declared: 4,
            found: 3,
            ..
        }
    ));
    assert_eq!(e.offset(), Some(32));
    let mut b = good.clone();
    patch(&mut b, 36, &0u32.to_le_bytes());
    assert!(matches!(
        kind(Index::parse(&b)),
        ErrorKind::BlockCount {
            block: Block::CrashStems,
            declared: 0,
            found: 1,
            ..
        }
    ));
}

#[test]
fn verify_reports_every_problem_where_parse_stops_at_the_first() {
    let good = clean();
    let (errors, warnings) = findings(&good, &ReadOptions::new());
    assert!(
        errors.is_empty() && warnings.is_empty(),
        "{errors:?} {warnings:?}"
    );
    // Two header problems, a bad block, reserved bits: all reported, in file order.
    let mut b = good.clone();
    patch(&mut b, 12, &33u16.to_le_bytes());
    patch(&mut b, 14, &65u16.to_le_bytes());
    b[57] = 1;
    patch(&mut b, 32, &4u32.to_le_bytes());
    let (errors, warnings) = findings(&b, &ReadOptions::new());
    let at: Vec<Option<u64>> = errors.iter().map(Error::offset).collect();
    assert_eq!(at, [Some(12), Some(14), Some(32)]);
    assert_eq!(warnings.len(), 1);
    assert!(matches!(
        warnings[0].kind(),
        ErrorKind::Reserved { nonzero: 1, .. }
    ));
    // parse stops at the first of them.
    assert_eq!(Index::parse(&b).unwrap_err().offset(), Some(12));
    // Lenient: the sizes become warnings.
    let (errors, warnings) = findings(&b, &lenient());
    assert_eq!(errors.len(), 1);
    assert_eq!(warnings.len(), 3);
    // A sink that stops the walk.
    let mut seen = 0;
    let summary = verify(
        &b,
        &ReadOptions::new(),
        &mut |_: taridx::Severity, _: Error| {
            seen += 1;
            core::ops::ControlFlow::Break(())
        },
    );
    assert!(summary.stopped() && seen == 1);
}

#[test]
fn blocks_split_on_newline_only() {
    // A space inside an extension is one extension (glzn's whitespace split would see two).
    let file = IndexFile::new(vec!["a b".into(), String::new()], vec![], vec![]).unwrap();
    let bytes = file.to_vec().unwrap();
    let index = Index::parse(&bytes).unwrap();
    assert_eq!(index.extensions().collect::<Vec<_>>(), ["a b", ""]);
    // One empty extension: an empty block with n_ext = 1.
    let file = IndexFile::new(vec![String::new()], vec![], vec![]).unwrap();
    let bytes = file.to_vec().unwrap();
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
        e.kind(),
        ErrorKind::ExtId {
            row: 5,
            extid: 3,
            n_ext: 3,
            ..
        }
    ));
    assert_eq!(e.offset(), Some(u64::try_from(row5 + 18).unwrap()));
    assert!(index.row(4).unwrap().is_ok());
    assert!(index.row(21).is_none());
    assert_eq!(findings(&b, &ReadOptions::new()).0.len(), 1);
    assert!(StemMap::build(&index).is_err());
    let lenient_index = Index::parse_with(&b, &lenient()).unwrap();
    assert!(findings(&b, &lenient()).0.is_empty(), "ids are not checked");
    assert_eq!(findings(&b, &lenient()).1.len(), 1, "but reported");
    assert_eq!(lenient_index.extension(3), None);

    let mut b = clean();
    patch(&mut b, row5 + 20, &2u32.to_le_bytes());
    let (errors, _) = findings(&b, &ReadOptions::new());
    assert!(matches!(
        errors[..],
        [ref e] if matches!(e.kind(), ErrorKind::CrashId { row: 5, crashid: 2, .. })
    ));
}

#[test]
fn deep_checks_recompute_stem_count_and_flag() {
    let mut b = clean();
    patch(&mut b, 16, &8u64.to_le_bytes());
    let (errors, _) = findings(&b, &ReadOptions::new());
    assert!(matches!(
        errors[..],
        [ref e] if matches!(e.kind(), ErrorKind::StemCount { declared: 8, found: 7, .. }) && e.offset() == Some(16)
    ));
    let index = Index::parse(&b).unwrap();
    let map = StemMap::build(&index).unwrap();
    assert_eq!(map.distinct_stems(), 7);

    let mut b = clean();
    b[56] = 0;
    let (errors, _) = findings(&b, &ReadOptions::new());
    assert!(matches!(
        errors[..],
        [ref e] if matches!(e.kind(), ErrorKind::Flags { declared: false, .. })
    ));
    let index = Index::parse(&b).unwrap();
    assert!(StemMap::build(&index).unwrap().is_contiguous());
    // Reserved flag bits are ignored (and reported as a warning).
    let mut b = clean();
    b[56] = 0xff;
    let (errors, warnings) = findings(&b, &ReadOptions::new());
    assert!(errors.is_empty());
    assert!(
        matches!(warnings[..], [ref w] if matches!(w.kind(), ErrorKind::Reserved { flags: 0xff, .. }))
    );
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
        kind(IndexFile::new(vec!["a\nb".into()], vec![], vec![row])),
        ErrorKind::InvalidText {
            block: Block::Extensions,
            entry: 0,
            ..
        }
    ));
    assert!(matches!(
        kind(IndexFile::new(
            vec!["jpg".into()],
            vec!["x\n".into()],
            vec![row]
        )),
        ErrorKind::InvalidText {
            block: Block::CrashStems,
            ..
        }
    ));
    assert!(matches!(
        kind(IndexFile::new(vec![], vec![], vec![row])),
        ErrorKind::InvalidRow { row: 0, .. }
    ));
    let bad = RowData { crashid: 1, ..row };
    assert!(matches!(
        kind(IndexFile::new(vec!["jpg".into()], vec![], vec![bad])),
        ErrorKind::InvalidRow { row: 0, .. }
    ));
    let too_many: Vec<String> = (0..=65_536).map(|i| i.to_string()).collect();
    assert!(matches!(
        kind(IndexFile::new(too_many, vec![], vec![])),
        ErrorKind::InvalidText {
            block: Block::Extensions,
            ..
        }
    ));
}

#[test]
fn indexes_round_trip_and_write_atomically() {
    let bytes = golden("strict/train.taridx");
    let index = Index::parse(&bytes).unwrap();
    let file = IndexFile::from_index(&index).unwrap();
    assert!(file.to_vec().unwrap() == bytes);
    assert_eq!(file.encoded_len(), u64::try_from(bytes.len()).unwrap());
    let mut written = Vec::new();
    assert_eq!(file.write_to(&mut written).unwrap(), file.encoded_len());
    assert!(written == bytes);

    let dir = binfmt_test_support::Scratch::new("taridx-api-write-to-path");
    let path = dir.join("x.taridx");
    std::fs::write(&path, b"old").unwrap();
    assert_eq!(file.write_to_path(&path).unwrap(), file.encoded_len());
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
    assert!(matches!(e.kind(), ErrorKind::Io(_)) && e.to_string().contains("missing"));
    assert_eq!(e.fault(), Fault::Io);
}

#[test]
fn verification_rejects_an_absent_stem_that_collides() {
    // Index shard 0 of `clean` alone: 95285a4520319586 is indexed, 1aefceb10cb92620 is
    // not, and both have the same XXH64.
    let shard = golden("clean_0000.tar");
    let mut b = Writer::new(BuildOptions::strict());
    b.add("clean_0000.tar", &shard).unwrap();
    let bytes = b.finish().unwrap().index.to_vec().unwrap();
    let index = Index::parse(&bytes).unwrap();
    let map = StemMap::build(&index).unwrap();
    let absent: Vec<_> = map.lookup("1aefceb10cb92620").collect();
    assert_eq!(
        absent.len(),
        3,
        "without verification the colliding stem's rows come back"
    );
    let verifier = Verifier::new(&index);
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
    let verifier = Verifier::new(&index);
    for stem in support::LONG_NAME_STEMS {
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
    assert!(matches!(kind(map.sample(0)), ErrorKind::NotContiguous));
    assert!(matches!(kind(map.n_samples()), ErrorKind::NotContiguous));
}

#[test]
fn io_errors_convert_to_std() {
    use binfmt_core::Kind;
    let mut b = clean();
    patch(&mut b, 12, &1u16.to_le_bytes());
    let e: std::io::Error = Index::parse(&b).unwrap_err().into();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
    assert!(e.to_string().starts_with("byte 12: the row size"));
    let e: std::io::Error = ErrorKind::NotContiguous.unlocated().into();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    let e: Error = taridx::fs::read("/nonexistent/x.taridx").unwrap_err();
    assert_eq!(e.fault(), Fault::Io);
    let io: std::io::Error = e.into();
    assert_eq!(
        io.kind(),
        std::io::ErrorKind::NotFound,
        "the original error comes back"
    );
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
        let bytes = file.to_vec().unwrap();
        let index = Index::parse(&bytes).unwrap();
        let (errors, warnings) = findings(&bytes, &ReadOptions::new());
        prop_assert!(errors.is_empty() && warnings.is_empty(), "{:?} {:?}", errors, warnings);
        prop_assert_eq!(index.extensions().collect::<Vec<_>>(), exts);
        prop_assert_eq!(index.crash_stems().collect::<Vec<_>>(), crash);
        let back: Vec<RowData> = index.entries().map(|e| {
            let e = e.unwrap();
            RowData { fid: e.fid, offset: e.offset, size: e.size, extid: e.extid, crashid: e.crashid, keyhash: e.keyhash }
        }).collect();
        prop_assert_eq!(&back, &rows);
        let map = StemMap::build(&index).unwrap();
        prop_assert_eq!(map.distinct_stems(), index.n_stems());
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
        for options in [ReadOptions::new(), lenient()] {
            let mut f = Findings::new(4);
            verify(&bytes, &options, &mut f);
            // The same rules in the same order: parse's error is verify's first.
            if let Err(e) = Index::parse_with(&bytes, &options) {
                prop_assert_eq!(f.errors().first().map(ToString::to_string), Some(e.to_string()));
            }
        }
        if let Ok(index) = Index::parse_with(&bytes, &lenient()) {
            let _ = index.warnings().count();
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
            let mut b = Writer::new(options);
            if b.add("x.tar", &bytes).is_ok() {
                let bytes = b.finish().unwrap().index.to_vec().unwrap();
                Index::parse(&bytes).unwrap();
            }
        }
    }
}
