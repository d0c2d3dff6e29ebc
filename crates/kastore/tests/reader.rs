//! Reading by ranges: the request plan, measured with `Counting`, and agreement with
//! `Store::parse`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation,
    missing_docs
)]

mod common;

use std::path::Path;

use binfmt_core::source::{Counting, FileSource};
use kastore::{Builder, ErrorCode, ErrorKind, ReadOptions, Reader, Store};

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures"))
}

/// A store of about 100 MB: four 25 MB arrays and a few small ones.
fn hundred_megabytes() -> Vec<u8> {
    let n: usize = 25 * 1024 * 1024 / 8;
    let time: Vec<f64> = (0..n).map(|i| i as f64 / 4.0).collect();
    let ids: Vec<u64> = (0..n as u64).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let left: Vec<i64> = (0..n as i64).map(|i| -i).collect();
    let bytes: Vec<u8> = (0..n * 8).map(|i| (i % 251) as u8).collect();
    let mut b = Builder::new();
    b.insert("edges/left", &left).unwrap();
    b.insert("mutations/derived_state", &bytes).unwrap();
    b.insert("nodes/id", &ids).unwrap();
    b.insert("nodes/time", &time).unwrap();
    b.insert("format/name", &[116i8, 115, 107]).unwrap();
    b.insert("empty", &[] as &[f32]).unwrap();
    b.to_vec().unwrap()
}

#[test]
fn a_hundred_megabytes_open_in_one_request_and_each_array_in_one_more() {
    let data = hundred_megabytes();
    assert!(data.len() > 100 << 20);
    let source = Counting::new(data);
    let reader = Reader::open(&source).unwrap();
    let opened = source.stats();
    assert_eq!(opened.requests, 1);
    assert!(opened.bytes <= 64 * 1024, "{} bytes to open", opened.bytes);
    assert_eq!(reader.len(), 6);

    let time = reader.get::<f64>("nodes/time").unwrap();
    assert_eq!((time.len(), time[3]), (25 * 1024 * 1024 / 8, 0.75));
    assert_eq!(source.stats().requests, 2);
    let name = reader.get::<i8>("format/name").unwrap();
    assert_eq!(*name, [116, 115, 107]);
    assert_eq!(source.stats().requests, 3);
    // Only the array's bytes are fetched.
    assert_eq!(source.stats().bytes, opened.bytes + 25 * 1024 * 1024 + 3);
    // An empty array, a wrong type and a missing key cost nothing.
    assert!(reader.get::<f32>("empty").unwrap().is_empty());
    let e = reader.get::<u64>("nodes/time").unwrap_err();
    assert_eq!(e.kind().code(), ErrorCode::TypeMismatch);
    let e = reader.get::<u8>("nodes/missing").unwrap_err();
    assert_eq!(e.kind().code(), ErrorCode::KeyNotFound);
    assert_eq!(source.stats().requests, 3);

    // Several arrays at once: one call, one range per array.
    let entries: Vec<_> = ["edges/left", "nodes/id"]
        .iter()
        .map(|k| reader.find(k).unwrap())
        .collect();
    let arrays = reader.read_many(&entries).unwrap();
    assert_eq!(source.stats().requests, 5);
    let store = Store::parse(source.inner()).unwrap();
    assert_eq!(&*arrays[0], store.item("edges/left").unwrap().bytes());
    assert_eq!(&*arrays[1], store.item("nodes/id").unwrap().bytes());
}

/// `n` items whose keys are `key_len` bytes long.
fn many_keys(n: usize, key_len: usize) -> Vec<u8> {
    let mut b = Builder::new();
    for i in 0..n {
        let mut key = format!("{i:08}").into_bytes();
        key.resize(key_len, b'k');
        b.insert_vec(key, vec![i as u32]).unwrap();
    }
    b.to_vec().unwrap()
}

#[test]
fn descriptors_beyond_the_first_request_take_one_more() {
    // 5000 descriptors are 320 KB; 20-byte keys come with them (32 bytes per item guessed).
    let data = many_keys(5000, 20);
    let source = Counting::new(data);
    let reader = Reader::open(&source).unwrap();
    assert_eq!(source.stats().requests, 2);
    assert_eq!(reader.len(), 5000);
    assert_eq!(
        *reader
            .get::<u32>(format!("{:08}{}", 4321, "k".repeat(12)))
            .unwrap(),
        [4321]
    );
    assert_eq!(source.stats().requests, 3);
}

#[test]
fn long_keys_beyond_the_guess_take_their_own_request() {
    // 2000 descriptors (128 KB), then 200 KB of 100-byte keys: more than guessed.
    let data = many_keys(2000, 100);
    let source = Counting::new(data);
    let reader = Reader::open(&source).unwrap();
    assert_eq!(source.stats().requests, 3);
    let keys: Vec<_> = reader.keys().collect();
    let store = Store::parse(source.inner()).unwrap();
    assert!(keys.iter().copied().eq(store.keys()));
}

#[test]
fn small_files_open_in_one_request() {
    for name in [
        "tree.trees",
        "all_dtypes.kas",
        "empty.kas",
        "two_stores.kas",
    ] {
        let data = std::fs::read(fixtures().join("valid").join(name)).unwrap();
        let source = Counting::new(data);
        let reader = Reader::open(&source).unwrap();
        assert_eq!(source.stats().requests, 1, "{name}");
        let store = Store::parse(source.inner()).unwrap();
        assert_eq!(reader.trailing_len(), store.trailing_len(), "{name}");
        common::oracle::check_reader(source.inner());
    }
}

#[test]
fn every_fixture_gets_the_same_answer_as_parse() {
    for dir in ["valid", "malformed"] {
        for entry in std::fs::read_dir(fixtures().join(dir)).unwrap() {
            let data = std::fs::read(entry.unwrap().path()).unwrap();
            common::oracle::check_reader(&data);
        }
    }
}

#[test]
fn typed_arrays_are_borrowed_from_aligned_memory_and_read_from_files() {
    let path = fixtures().join("valid/all_dtypes.kas");
    let reader = Reader::open(kastore::fs::read(&path).unwrap()).unwrap();
    assert!(reader.get::<f64>("float64").unwrap().is_borrowed());
    // From a file: the buffer the positioned read filled (used in place when aligned).
    let reader = kastore::fs::reader(&path).unwrap();
    let values = reader.get::<f64>("float64").unwrap();
    assert!(!values.is_borrowed());
    assert_eq!(values[..3], [0.0, -0.0, 1.0]);
    assert_eq!(values[13].to_bits(), 0x7FF8_0000_0000_0001);
}

#[test]
fn a_lying_header_costs_one_request_and_no_memory() {
    // 2^32 - 1 items and an exabyte claimed by a 64-byte file.
    let mut data = Builder::new().to_vec().unwrap();
    data[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    data[16..24].copy_from_slice(&(1u64 << 60).to_le_bytes());
    let source = Counting::new(data);
    let e = Reader::open(&source).unwrap_err();
    assert_eq!(source.stats().requests, 1);
    let parsed = Store::parse(source.inner()).unwrap_err();
    assert_eq!(
        (e.offset(), e.to_string()),
        (parsed.offset(), parsed.to_string())
    );
    // With a limit, the header alone decides.
    let source = Counting::new(many_keys(5000, 20));
    let e = Reader::open_with(&source, &ReadOptions::new().max_store_size(1000)).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::TooLarge { limit: 1000, .. }));
    assert_eq!(source.stats().requests, 1);
}

#[test]
fn a_file_truncated_after_opening_is_an_error_not_a_crash() {
    let dir = std::env::temp_dir().join(format!("kastore-reader-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("shrinks.kas");
    std::fs::write(&path, many_keys(10, 8)).unwrap();
    let reader = Reader::open(FileSource::open(&path).unwrap()).unwrap();
    std::fs::write(&path, b"short").unwrap();
    let e = reader.get::<u32>(b"00000009").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Io(_)), "{e}");
    let e = kastore::fs::reader(dir.join("missing.kas")).unwrap_err();
    assert!(e.to_string().contains("missing.kas"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}
