//! The builder: layout rules, sort order, validation before writing, atomic files.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use std::io::{self, Write};

use binfmt_test_support::Scratch;
use kastore::{Error, ErrorCode, ErrorKind, Store, Writer};

fn offsets(bytes: &[u8]) -> Vec<(u64, u64)> {
    Store::parse(bytes)
        .unwrap()
        .items()
        .map(|i| (i.key_offset(), i.array_offset()))
        .collect()
}

#[test]
fn reference_unit_vectors() {
    // One key with one int8: key at 128, array at 136, for keys of 1, 7 and 8 bytes.
    for key in ["a", "abcdefg", "abcdefgh"] {
        let mut b = Writer::new();
        b.add(key, &[1i8]).unwrap();
        let bytes = b.to_vec().unwrap();
        assert_eq!(offsets(&bytes), [(128, 136)], "{key}");
        assert_eq!(bytes.len(), 137);
    }
    // Keys a, b: keys at 192 and 193, arrays at 200 and 208, for int8, int32 and int64.
    fn two<T: kastore::Element>(v: T) -> Vec<(u64, u64)> {
        let values = [v];
        let mut b = Writer::new();
        b.add("b", &values).unwrap().add("a", &values).unwrap();
        offsets(&b.to_vec().unwrap())
    }
    assert_eq!(two(1i8), [(192, 200), (193, 208)]);
    assert_eq!(two(1i32), [(192, 200), (193, 208)]);
    assert_eq!(two(1i64), [(192, 200), (193, 208)]);
    // The empty store is the 64-byte header.
    let empty = Writer::new().to_vec().unwrap();
    assert_eq!(empty.len(), 64);
    assert_eq!(&empty[..8], kastore::MAGIC);
    assert_eq!(
        &empty[8..24],
        b"\x01\x00\x00\x00\x00\x00\x00\x00\x40\0\0\0\0\0\0\0"
    );
    assert!(empty[24..].iter().all(|&b| b == 0));
}

#[test]
fn keys_are_sorted_bytewise_with_prefixes_first() {
    let sorted = [
        "A",
        "Z",
        "_",
        "a",
        "a\0b",
        "a.b",
        "a/b",
        "a0",
        "aa",
        "aaa",
        "ab",
        "abc",
        "abd",
        "b",
        "ba",
        "nodes/metadata",
        "nodes/metadata_offset",
        "nodes/metadata_schema",
        "nodes/time",
        "café",
        "naïve",
        "z",
        "é",
        "Ω/omega",
        "α",
        "ключ",
        "日本語",
        "🧬 dna",
    ];
    // "z" < "é" bytewise (0x7a < 0xc3): the ASCII block must come first.
    let mut expected: Vec<&str> = sorted.to_vec();
    expected.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    let values = [0u8];
    let mut b = Writer::new();
    for key in sorted.iter().rev() {
        b.add(key, &values).unwrap();
    }
    let bytes = b.to_vec().unwrap();
    let store = Store::parse(&bytes).unwrap();
    let keys: Vec<&str> = store.items().map(|i| i.key_str().unwrap()).collect();
    assert_eq!(keys, expected);
    for key in sorted {
        assert!(store.contains(key), "{key}");
    }
    assert!(!store.contains("a\0"));
    assert!(!store.contains(""));
}

#[test]
fn bad_keys_are_rejected_and_leave_the_builder_unchanged() {
    let mut b = Writer::new();
    b.add("x", &[1u16]).unwrap();
    let e = b.add("", &[1u8]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::EmptyKey));
    assert_eq!(e.kind().code(), ErrorCode::EmptyKey);
    let e = b.add("x", &[2.0f32]).unwrap_err();
    assert_eq!(e.kind().code(), ErrorCode::DuplicateKey);
    assert_eq!(
        e.to_string(),
        "key \"x\" was already added; keys must be unique"
    );
    assert_eq!(b.len(), 1);
    assert!(b.remove("x"));
    assert!(!b.remove("x"));
    b.add_vec("x", vec![3i64]).unwrap();
    let bytes = b.to_vec().unwrap();
    assert_eq!(*Store::parse(&bytes).unwrap().get::<i64>("x").unwrap(), [3]);
}

#[test]
fn output_is_deterministic_and_canonical() {
    let floats = [f64::NAN, -0.0, f64::INFINITY];
    let build = |order: &[usize]| {
        let mut b = Writer::new();
        for &i in order {
            match i {
                0 => b.add("f", &floats).unwrap(),
                1 => b.add("i", &[1i16, -1]).unwrap(),
                _ => b.add("empty", &[] as &[u64]).unwrap(),
            };
        }
        b.to_vec().unwrap()
    };
    let a = build(&[0, 1, 2]);
    assert_eq!(a, build(&[2, 1, 0]));
    assert_eq!(a, build(&[1, 0, 2]));
    let store = Store::parse(&a).unwrap();
    assert!(store.is_canonical());
    assert!(common::verify_errors(&a).is_empty());
    assert!(common::verify_warnings(&a).is_empty());
    // The Vec, the Write and the size agree.
    let mut via_write = Vec::new();
    let mut b = Writer::new();
    b.add("f", &floats).unwrap();
    b.add("i", &[1i16, -1]).unwrap();
    b.add("empty", &[] as &[u64]).unwrap();
    assert_eq!(b.write_to(&mut via_write).unwrap(), b.file_size().unwrap());
    assert_eq!(via_write, a);
}

#[test]
fn copying_items_between_stores() {
    let mut b = Writer::new();
    b.add("keep", &[1u32, 2]).unwrap();
    b.add("drop", &[9u8]).unwrap();
    let first = b.to_vec().unwrap();
    let store = Store::parse(&first).unwrap();
    let mut next = Writer::new();
    next.add_item(store.item("keep").unwrap()).unwrap();
    next.add_array("renamed", store.item("drop").unwrap().values())
        .unwrap();
    let bytes = next.to_vec().unwrap();
    let copy = Store::parse(&bytes).unwrap();
    assert_eq!(*copy.get::<u32>("keep").unwrap(), [1, 2]);
    assert_eq!(*copy.get::<u8>("renamed").unwrap(), [9]);
    assert!(next.add_item(store.item("keep").unwrap()).is_err());
}

/// Fails after `budget` bytes.
struct Failing {
    budget: usize,
    written: Vec<u8>,
}

impl Write for Failing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.written.len() + buf.len() > self.budget {
            return Err(io::Error::other("disk full"));
        }
        self.written.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn write_errors_are_reported() {
    let mut b = Writer::new();
    b.add("a", &[0u8; 100]).unwrap();
    let e = b
        .write_to(Failing {
            budget: 150,
            written: Vec::new(),
        })
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Io(_)));
    assert_eq!(e.kind().code(), ErrorCode::Io);
}

fn scratch(name: &str) -> Scratch {
    Scratch::new(&format!("kastore-writer-{name}"))
}

#[test]
fn write_path_replaces_atomically_and_updates_in_place() {
    let dir = scratch("atomic");
    let path = dir.join("store.kas");
    let mut b = Writer::new();
    b.add("a", &[1i32, 2, 3]).unwrap();
    b.write_to_path(&path).unwrap();

    // Update: read the file, change one item, write it back over itself.
    let bytes = kastore::fs::read(&path).unwrap();
    let store = Store::parse(&bytes).unwrap();
    let mut update = Writer::from_store(&store);
    update.add("b", &[4.5f64]).unwrap();
    update.write_to_path(&path).unwrap();
    let again = kastore::fs::load(&path).unwrap();
    assert_eq!(*again.store().get::<i32>("a").unwrap(), [1, 2, 3]);
    assert_eq!(*again.store().get::<f64>("b").unwrap(), [4.5]);
    // Nothing but the file is left in the directory.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);

    // A failed write leaves the old bytes and no temporary file.
    let before = std::fs::read(&path).unwrap();
    let missing = dir.join("no-such-dir").join("store.kas");
    let e = Writer::new().write_to_path(&missing).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Io(_)));
    // The message names the path.
    assert!(e.to_string().contains("no-such-dir"), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

#[cfg(feature = "mmap")]
#[test]
fn a_mapped_store_survives_being_replaced() {
    let dir = scratch("mmap");
    let path = dir.join("store.kas");
    let mut b = Writer::new();
    b.add("a", &[7u64; 1000]).unwrap();
    b.write_to_path(&path).unwrap();
    let map = kastore::fs::map(&path).unwrap();
    let store = Store::parse(&map).unwrap();
    assert!(matches!(
        store.get::<u64>("a").unwrap(),
        std::borrow::Cow::Borrowed(_)
    ));
    // Replace the file through the builder borrowing from the map itself.
    let mut update = Writer::from_store(&store);
    update.add("b", &[1u8]).unwrap();
    update.write_to_path(&path).unwrap();
    // The map still shows the old file, intact.
    assert_eq!(store.len(), 1);
    assert!(store.get::<u64>("a").unwrap().iter().all(|&v| v == 7));
    assert_eq!(kastore::fs::load(&path).unwrap().store().len(), 2);
    drop(map);
}

#[test]
fn public_types_are_thread_safe() {
    fn check<T: Send + Sync>() {}
    check::<Store<'static>>();
    check::<kastore::Item<'static>>();
    check::<kastore::Array<'static, f64>>();
    check::<Writer<'static>>();
    check::<kastore::OwnedStore>();
    check::<kastore::AlignedBytes>();
    // The ranged reader keeps a `binfmt_core::cache::ReadCache`, which is `Send` but not
    // `Sync` (its arena grows through `&self`): move it to a thread, do not share it.
    fn send<T: Send>() {}
    send::<kastore::Reader<Vec<u8>>>();
    check::<kastore::KeyText<'static>>();
    check::<kastore::ReadOptions>();
    fn error<T: core::error::Error + Send + Sync + 'static>() {}
    error::<Error>();
}
