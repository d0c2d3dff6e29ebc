//! Reading by ranges: the request plan, measured with `Counting`, and agreement with
//! `Store::parse`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]

mod common;

use std::path::Path;

use binfmt_core::cache::ReadCache;
use binfmt_core::source::{ByteSource, Counting, FileSource};
use kastore::{ErrorCode, ErrorKind, ReadOptions, Reader, Store, Writer};

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
    let mut b = Writer::new();
    b.add("edges/left", &left).unwrap();
    b.add("mutations/derived_state", &bytes).unwrap();
    b.add("nodes/id", &ids).unwrap();
    b.add("nodes/time", &time).unwrap();
    b.add("format/name", &[116i8, 115, 107]).unwrap();
    b.add("empty", &[] as &[f32]).unwrap();
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
    let mut b = Writer::new();
    for i in 0..n {
        let mut key = format!("{i:08}").into_bytes();
        key.resize(key_len, b'k');
        b.add_vec(key, vec![i as u32]).unwrap();
    }
    b.to_vec().unwrap()
}

/// A reader over `source`, which opening it must have asked `requests` ranges of.
fn open_counted(source: &Counting<Vec<u8>>, requests: u64) -> Reader<&Counting<Vec<u8>>> {
    let reader = Reader::open(source).unwrap();
    assert_eq!(source.stats().requests, requests);
    reader
}

#[test]
fn descriptors_beyond_the_first_request_take_one_more() {
    // 5000 descriptors are 320 KB; 20-byte keys come with them (32 bytes per item guessed).
    let source = Counting::new(many_keys(5000, 20));
    let reader = open_counted(&source, 2);
    assert_eq!(reader.len(), 5000);
    assert_eq!(
        *reader
            .get::<u32>(format!("{:08}{}", 4321, "k".repeat(12)))
            .unwrap(),
        [4321]
    );
    // The guess at the keys (32 bytes each, 20 used) brought the small arrays with them.
    assert_eq!(source.stats().requests, 2);
}

#[test]
fn long_keys_beyond_the_guess_take_their_own_request() {
    // 2000 descriptors (128 KB), then 200 KB of 100-byte keys: more than guessed.
    let source = Counting::new(many_keys(2000, 100));
    let reader = open_counted(&source, 3);
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
    // From a file: this small file's arrays came with the metadata read, and are
    // borrowed from the cache (a larger array: the buffer the positioned read filled,
    // used in place when aligned).
    let reader = kastore::fs::open(&path).unwrap();
    let values = reader.get::<f64>("float64").unwrap();
    assert_eq!(values[..3], [0.0, -0.0, 1.0]);
    assert_eq!(values[13].to_bits(), 0x7FF8_0000_0000_0001);
}

#[test]
fn a_lying_header_costs_one_request_and_no_memory() {
    // 2^32 - 1 items and an exabyte claimed by a 64-byte file.
    let mut data = Writer::new().to_vec().unwrap();
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
    let dir = binfmt_test_support::Scratch::new("kastore-reader-truncated");
    let path = dir.join("shrinks.kas");
    // An array past the first read: the arrays that came with the metadata are served
    // as they were when the file was opened.
    let mut b = Writer::new();
    let zeros = vec![0u64; 20_000];
    b.add("a", &zeros).unwrap();
    b.add("b", &[9u32]).unwrap();
    std::fs::write(&path, b.to_vec().unwrap()).unwrap();
    let reader = Reader::open(FileSource::open(&path).unwrap()).unwrap();
    std::fs::write(&path, b"short").unwrap();
    let e = reader.get::<u32>("b").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Io(_)), "{e}");
    let e = kastore::fs::open(dir.join("missing.kas")).unwrap_err();
    assert!(e.to_string().contains("missing.kas"), "{e}");
}

/// A cache that already holds the 256 bytes format detection read.
fn detected<S: ByteSource>(source: S) -> ReadCache<S> {
    let head = source.read_head(256).unwrap().into_owned();
    assert!(kastore::sniff(&head));
    ReadCache::with_head(source, &head, 256)
}

#[test]
fn after_detection_opening_takes_one_request_and_each_array_one_more() {
    let data = hundred_megabytes();
    let source = Counting::new(&data[..]);
    let cache = detected(&source);
    assert_eq!(source.stats().requests, 1); // detection's
    let reader = Reader::from_cache(cache, &ReadOptions::new()).unwrap();
    assert_eq!(source.stats().requests, 2);
    assert_eq!(reader.len(), 6);
    assert_eq!(reader.get::<f64>("nodes/time").unwrap()[3], 0.75);
    assert_eq!(source.stats().requests, 3);
    // The view over the cache is the same store, rebuilt without I/O.
    let view = reader.view();
    assert!(view.keys().eq(Store::parse(&data).unwrap().keys()));
    assert_eq!(view.warnings().count(), 0);
    assert_eq!(source.stats().requests, 3);

    // Descriptors that do not fit in 64 KiB: sized from the header, keys guessed.
    let data = many_keys(5000, 20);
    let source = Counting::new(&data[..]);
    let reader = Reader::from_cache(detected(&source), &ReadOptions::new()).unwrap();
    assert_eq!(source.stats().requests, 2);
    assert_eq!(reader.len(), 5000);
    // Keys longer than the guess: one more, unavoidably (their lengths are in the
    // descriptors).
    let data = many_keys(2000, 100);
    let source = Counting::new(&data[..]);
    let reader = Reader::from_cache(detected(&source), &ReadOptions::new()).unwrap();
    assert_eq!(source.stats().requests, 3);
    assert_eq!(reader.len(), 2000);
}

#[test]
fn the_view_over_a_cache_reads_stores_back_to_back() {
    let mut data = many_keys(3, 8);
    let first = data.len() as u64;
    data.extend_from_slice(&many_keys(2000, 100)); // metadata past the first read
    data.extend_from_slice(b"\x89KAS"); // a store cut short
    let source = Counting::new(&data[..]);
    let cache = ReadCache::new(&source);
    let stores: Vec<_> = kastore::Stores::new(&cache, &ReadOptions::new())
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(stores.len(), 2);
    assert_eq!(stores[1].offset(), first);
    // The first read held the first store and the header of the second; its descriptors
    // and keys took two more, and the bytes after it one.
    assert_eq!(source.stats().requests, 4);
    let warnings: Vec<_> = stores[1].warnings().collect();
    let sliced: Vec<_> = kastore::stores(&data)
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let expected: Vec<_> = sliced[1].warnings().collect();
    assert_eq!(warnings.len(), 2);
    assert_eq!(
        warnings
            .iter()
            .map(|w| (w.offset(), w.to_string()))
            .collect::<Vec<_>>(),
        expected
            .iter()
            .map(|w| (w.offset(), w.to_string()))
            .collect::<Vec<_>>()
    );
    let item = stores[1]
        .find(format!("{:08}{}", 1999, "k".repeat(92)))
        .unwrap();
    assert_eq!(*item.read_array::<u32>().unwrap(), [1999]);
}

#[test]
fn the_cache_is_bounded_by_the_options() {
    let data = many_keys(10, 8);
    let reader = Reader::open_with(&data[..], &ReadOptions::new().max_store_size(1000)).unwrap();
    assert_eq!(reader.cache().limit(), 2000 + 128 * 1024);
    let reader = Reader::open(&data[..]).unwrap();
    assert_eq!(reader.cache().limit(), 256 << 20);
    // A source in memory is borrowed, never copied into the cache.
    assert_eq!(reader.cache().held(), 0);
}
