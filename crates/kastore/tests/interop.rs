//! Interop with the reference implementations (kastore 0.3.6, tskit 1.0.3).
//!
//! The fixtures and `expected.json` were made by `tools/kastore/make_fixtures.py`; see
//! `tests/fixtures/README.md`. Nothing here compares our writer with our reader only: the
//! values come from what the reference read, the bytes from what the reference wrote, and
//! what we write is read back by the reference (`tools/kastore/check_written.py`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]

mod common;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use binfmt_test_support::{Scratch, reference, reference_test};
use kastore::{AnyArray, DType, Error, ErrorCode, ErrorKind, Item, Store, StreamReader, Writer};
use serde_json::{Value, json};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn expected() -> Value {
    let text = std::fs::read_to_string(fixtures().join("expected.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The item's values as the JSON form uses them: integers, or float bit patterns.
fn numbers(values: AnyArray<'_>) -> Vec<i128> {
    match values {
        AnyArray::Int8(a) => a.iter().map(i128::from).collect(),
        AnyArray::UInt8(a) => a.iter().map(i128::from).collect(),
        AnyArray::Int16(a) => a.iter().map(i128::from).collect(),
        AnyArray::UInt16(a) => a.iter().map(i128::from).collect(),
        AnyArray::Int32(a) => a.iter().map(i128::from).collect(),
        AnyArray::UInt32(a) => a.iter().map(i128::from).collect(),
        AnyArray::Int64(a) => a.iter().map(i128::from).collect(),
        AnyArray::UInt64(a) => a.iter().map(i128::from).collect(),
        AnyArray::Float32(a) => a.iter().map(|v| i128::from(v.to_bits())).collect(),
        AnyArray::Float64(a) => a.iter().map(|v| i128::from(v.to_bits())).collect(),
    }
}

fn json_numbers(item: &Value) -> Vec<i128> {
    let list = item.get("values").or_else(|| item.get("bits")).unwrap();
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| {
            v.as_i64()
                .map(i128::from)
                .or_else(|| v.as_u64().map(i128::from))
                .unwrap()
        })
        .collect()
}

fn check_item(file: &str, item: &Item<'_>, want: &Value) {
    let key = want["key_hex"].as_str().unwrap();
    assert_eq!(hex(item.key()), key, "{file}: key");
    assert_eq!(
        item.key_str(),
        want["key"].as_str(),
        "{file}: key {key} as text"
    );
    assert_eq!(
        item.dtype().name(),
        want["dtype"].as_str().unwrap(),
        "{file}: {key}: dtype"
    );
    assert_eq!(
        item.len() as u64,
        want["len"].as_u64().unwrap(),
        "{file}: {key}: len"
    );
    assert_eq!(
        numbers(item.values()),
        json_numbers(want),
        "{file}: {key}: values"
    );
}

/// The fixtures of one group of expected.json (`valid`, `malformed`): name, bytes and
/// what the reference said of them.
fn group(group: &str) -> Vec<(String, Vec<u8>, Value)> {
    expected()[group]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, entry)| {
            let data = std::fs::read(fixtures().join(group).join(name)).unwrap();
            (name.clone(), data, entry.clone())
        })
        .collect()
}

fn valid() -> Vec<(String, Vec<u8>, Value)> {
    let valid = group("valid");
    for (name, data, entry) in &valid {
        assert_eq!(data.len() as u64, entry["size"].as_u64().unwrap(), "{name}");
    }
    valid
}

#[test]
fn reads_every_valid_fixture_as_the_reference_does() {
    let fixtures = valid();
    assert_eq!(fixtures.len(), 33);
    for (name, data, entry) in &fixtures {
        let want_stores = entry["stores"].as_array().unwrap();
        let stores: Vec<Store<'_>> = kastore::stores(data)
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(stores.len(), want_stores.len(), "{name}: stores");
        let mut offset = 0;
        for (store, want) in stores.iter().zip(want_stores) {
            assert_eq!(offset, want["offset"].as_u64().unwrap(), "{name}");
            assert_eq!(store.file_size(), want["file_size"].as_u64().unwrap());
            assert_eq!(store.version(), kastore::VERSION);
            assert!(store.is_canonical(), "{name}");
            let items = want["items"].as_array().unwrap();
            assert_eq!(store.len(), items.len(), "{name}: items");
            for (item, want) in store.items().zip(items) {
                check_item(name, &item, want);
                // Lookup by key finds the same item.
                assert_eq!(store.item(item.key()).unwrap().index(), item.index());
            }
            offset += store.file_size();
        }
        let (errors, warnings) = common::verify_all(data, &kastore::ReadOptions::new());
        assert!(
            errors.is_empty() && warnings.is_empty(),
            "{name}: {errors:?} {warnings:?}"
        );

        // A stream gives the same stores, and a clean end.
        let mut reader = StreamReader::new(data.as_slice());
        for want in want_stores {
            let owned = reader.next_store().unwrap().unwrap();
            let items = want["items"].as_array().unwrap();
            for (item, want) in owned.store().items().zip(items) {
                check_item(name, &item, want);
            }
        }
        assert!(reader.next_store().unwrap().is_none(), "{name}: clean end");
    }
}

#[test]
fn typed_access_is_zero_copy_from_an_aligned_buffer() {
    let bytes = kastore::fs::read(fixtures().join("valid/all_dtypes.kas")).unwrap();
    let store = Store::parse(&bytes).unwrap();
    assert!(matches!(store.get::<i8>("int8").unwrap(), Cow::Borrowed(_)));
    assert!(matches!(
        store.get::<u64>("uint64").unwrap(),
        Cow::Borrowed(_)
    ));
    let f64s = store.get::<f64>("float64").unwrap();
    assert!(matches!(f64s, Cow::Borrowed(_)));
    assert_eq!(f64s[..4], [0.0, -0.0, 1.0, -1.5]);
    assert!(f64s[12].is_nan());
    assert_eq!(
        f64s[13].to_bits(),
        0x7FF8_0000_0000_0001,
        "NaN payload kept"
    );
    assert_eq!(store.get::<i64>("int64").unwrap()[0], i64::MIN);
    assert_eq!(
        *store.get::<u64>("uint64").unwrap().last().unwrap(),
        u64::MAX
    );

    // The second store of a stream starts at byte 142: its float32 array is not 4-aligned
    // in memory, so it is copied, with the same values.
    let bytes = kastore::fs::read(fixtures().join("valid/two_stores.kas")).unwrap();
    let second = kastore::stores(&bytes).nth(1).unwrap().unwrap();
    let quarters = second.get::<f32>("second").unwrap();
    assert!(matches!(quarters, Cow::Owned(_)));
    assert_eq!(*quarters, [0.0, 0.25, 0.5, 0.75, 1.0]);
    assert_eq!(second.array::<f32>("second").unwrap().as_slice(), None);
}

#[test]
fn wrong_types_and_missing_keys_are_errors() {
    let bytes = kastore::fs::read(fixtures().join("valid/control.kas")).unwrap();
    let store = Store::parse(&bytes).unwrap();
    let e = store.get::<i32>("a").unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::TypeMismatch {
            stored: DType::UInt32,
            requested: DType::Int32,
            ..
        }
    ));
    assert_eq!(e.kind().code(), ErrorCode::TypeMismatch);
    assert_eq!(e.to_string(), "key \"a\" holds uint32 elements, not int32");
    let e = store.get::<u8>("b").unwrap_err();
    assert_eq!(e.kind().code(), ErrorCode::KeyNotFound);
    assert_eq!(e.to_string(), "key \"b\" not found");
    assert_eq!(*store.get::<u8>("bb").unwrap(), [0, 1, 2, 3, 4]);
}

/// Builds each store from the reference's reading of it (not from our parse).
fn build_from_json(store: &Value) -> Vec<u8> {
    let mut builder = Writer::new();
    for item in store["items"].as_array().unwrap() {
        let key = unhex(item["key_hex"].as_str().unwrap());
        let numbers = json_numbers(item);
        macro_rules! put {
            ($t:ty, $conv:expr) => {{
                let conv: fn(i128) -> $t = $conv;
                builder
                    .add_vec(&key, numbers.iter().map(|&n| conv(n)).collect())
                    .unwrap()
            }};
        }
        match DType::from_name(item["dtype"].as_str().unwrap()).unwrap() {
            DType::Int8 => put!(i8, |n| n as i8),
            DType::UInt8 => put!(u8, |n| n as u8),
            DType::Int16 => put!(i16, |n| n as i16),
            DType::UInt16 => put!(u16, |n| n as u16),
            DType::Int32 => put!(i32, |n| n as i32),
            DType::UInt32 => put!(u32, |n| n as u32),
            DType::Int64 => put!(i64, |n| n as i64),
            DType::UInt64 => put!(u64, |n| n as u64),
            DType::Float32 => put!(f32, |n| f32::from_bits(n as u32)),
            DType::Float64 => put!(f64, |n| f64::from_bits(n as u64)),
        };
    }
    builder.to_vec().unwrap()
}

#[test]
fn writes_the_bytes_the_reference_wrote() {
    for (name, data, entry) in valid() {
        let mut written = Vec::new();
        for store in entry["stores"].as_array().unwrap() {
            written.extend(build_from_json(store));
        }
        assert!(
            written == data,
            "{name}: our bytes differ from the reference's"
        );
    }
}

#[test]
fn reference_worked_examples() {
    // The two complete files of the reference document.
    let data = std::fs::read(fixtures().join("valid/empty_array.kas")).unwrap();
    assert_eq!(data.len(), 136);
    let item = Store::parse(&data).unwrap().item_at(0).unwrap();
    assert_eq!((item.key_offset(), item.array_offset()), (128, 136));
    let data = std::fs::read(fixtures().join("valid/control.kas")).unwrap();
    assert_eq!(data.len(), 221);
    let store = Store::parse(&data).unwrap();
    let offsets: Vec<_> = store
        .items()
        .map(|i| (i.key_offset(), i.array_offset()))
        .collect();
    assert_eq!(offsets, [(192, 200), (193, 216)]);
    // Empty arrays share their start with the next array.
    let data = std::fs::read(fixtures().join("valid/mixed_empty.kas")).unwrap();
    let store = Store::parse(&data).unwrap();
    let starts: Vec<_> = store.items().map(|i| i.array_offset()).collect();
    assert_eq!(starts[0], starts[1], "a: int8[0] and b share a start");
    assert_eq!(
        store.file_size(),
        *starts.last().unwrap(),
        "trailing empty array"
    );
}

#[test]
fn tree_sequence_matches_tskit() {
    let all = expected();
    let tskit = &all["valid"]["tree.trees"]["tskit"];
    let bytes = kastore::fs::read(fixtures().join("valid/tree.trees")).unwrap();
    let store = Store::parse(&bytes).unwrap();
    assert_eq!(store.len(), 62);
    let name = store.get::<i8>("format/name").unwrap();
    assert_eq!(
        name.iter().map(|&c| c as u8).collect::<Vec<_>>(),
        b"tskit.trees"
    );
    assert_eq!(*store.get::<u32>("format/version").unwrap(), [12, 7]);
    let uuid: Vec<u8> = store
        .get::<i8>("uuid")
        .unwrap()
        .iter()
        .map(|&c| c as u8)
        .collect();
    assert_eq!(uuid, tskit["file_uuid"].as_str().unwrap().as_bytes());
    assert_eq!(
        store.get::<f64>("sequence_length").unwrap()[0],
        tskit["sequence_length"].as_f64().unwrap()
    );
    let rows = |table: &str| tskit["tables"][table].as_u64().unwrap() as usize;
    assert_eq!(store.get::<f64>("nodes/time").unwrap().len(), rows("nodes"));
    assert_eq!(
        store.get::<i32>("edges/parent").unwrap().len(),
        rows("edges")
    );
    assert_eq!(
        store.get::<f64>("sites/position").unwrap().len(),
        rows("sites")
    );
    assert_eq!(
        store.get::<u32>("edges/metadata_offset").unwrap().len(),
        rows("edges") + 1
    );
    // Rewriting the store keeps every byte, uuid included.
    assert_eq!(
        Writer::from_store(&store).to_vec().unwrap(),
        store.as_bytes()
    );
}

fn patched(data: &[u8], offset: usize, value: u64) -> Vec<u8> {
    let mut out = data.to_vec();
    out[offset..offset + 8].copy_from_slice(&value.to_le_bytes());
    out
}

fn assert_format_error(what: &str, data: &[u8]) {
    let e = Store::parse(data).expect_err(what);
    assert_eq!(e.kind().code(), ErrorCode::BadFileFormat, "{what}: {e}");
    assert!(!common::verify_errors(data).is_empty(), "{what}");
}

/// The Python suite's parameter sweeps (tests/test_errors.py), applied to stores the
/// reference wrote: every case is a format error for every reference reader, and for us.
#[test]
fn python_suite_sweeps() {
    let read = |name: &str| std::fs::read(fixtures().join("valid").join(name)).unwrap();
    // file_size off by -2, -1, +1, +1024 for 0..9 items (keys a, aa, … with arange(j)).
    for n in 0..10 {
        let base = read(&format!("suite_{n}_items.kas"));
        Store::parse(&base).unwrap();
        for delta in [-2i64, -1, 1, 1024] {
            let size = (base.len() as i64 + delta) as u64;
            assert_format_error(
                &format!("{n} items, file_size {delta:+}"),
                &patched(&base, 16, size),
            );
        }
        if (2..5).contains(&n) {
            assert_format_error(&format!("{n} items, descriptors cut"), &base[..n * 64 - 1]);
            assert_format_error(
                &format!("{n} items, last byte cut"),
                &base[..base.len() - 1],
            );
        }
    }
    // {"a": arange(100)}: the first key_start and array_start moved.
    let one = read("suite_one_item.kas");
    for delta in [-1i64, 1, 2, 100] {
        assert_format_error(
            &format!("key_start {delta:+}"),
            &patched(&one, 64 + 8, (128 + delta) as u64),
        );
    }
    for delta in [-100i64, -1, 1, 2, 8, 16, 100] {
        assert_format_error(
            &format!("array_start {delta:+}"),
            &patched(&one, 64 + 24, (136 + delta) as u64),
        );
    }
    // {"a": arange(100), "b": []}: the second key_start and array_start moved.
    let two = read("suite_two_items.kas");
    let store = Store::parse(&two).unwrap();
    let (key_b, array_b) = {
        let b = store.item("b").unwrap();
        (b.key_offset() as i64, b.array_offset() as i64)
    };
    for delta in [-1i64, 1, 2, 100] {
        assert_format_error(
            &format!("second key_start {delta:+}"),
            &patched(&two, 128 + 8, (key_b + delta) as u64),
        );
    }
    for delta in [-1i64, 1, 2, -8, 8, 100] {
        assert_format_error(
            &format!("second array_start {delta:+}"),
            &patched(&two, 128 + 24, (array_b + delta) as u64),
        );
    }
    // Major versions: 0 is too old, 2..5 too new.
    let empty = read("empty.kas");
    for major in 0u16..6 {
        let mut data = empty.clone();
        data[8..10].copy_from_slice(&major.to_le_bytes());
        let result = Store::parse(&data);
        match major {
            0 => assert_eq!(result.unwrap_err().kind().code(), ErrorCode::VersionTooOld),
            1 => assert!(result.is_ok()),
            _ => assert_eq!(result.unwrap_err().kind().code(), ErrorCode::VersionTooNew),
        }
    }
}

/// What our parser must say about each malformed fixture.
struct Case {
    code: ErrorCode,
    offset: Option<u64>,
    matches: fn(&Error) -> bool,
}

fn malformed_cases() -> BTreeMap<&'static str, Case> {
    use ErrorCode as C;
    use ErrorKind as K;
    use kastore::Layout as L;
    // Each fixture's error code and offset, and the pattern its error's kind matches.
    macro_rules! cases {
        ($($name:literal => ($code:expr, $offset:expr, $kind:pat)),* $(,)?) => {
            BTreeMap::from([$((
                $name,
                Case {
                    code: $code,
                    offset: Some($offset),
                    matches: |e| matches!(e.kind(), $kind),
                },
            )),*])
        };
    }
    cases! {
        "empty_file.kas" => (C::Eof, 0, K::Eof),
        "bad_magic_number.kas" => (C::BadFileFormat, 0, K::Layout(L::BadMagic { .. })),
        "bad_magic_12345678.kas" => (C::BadFileFormat, 0, K::Layout(L::BadMagic { .. })),
        "bad_type_10.kas" => (C::BadType, 64, K::BadType { code: 10, .. }),
        "bad_type_11.kas" => (C::BadType, 64, K::BadType { code: 11, .. }),
        "bad_type_20.kas" => (C::BadType, 64, K::BadType { code: 20, .. }),
        "bad_type_255.kas" => (C::BadType, 64, K::BadType { code: 255, .. }),
        "version_0.kas" => (C::VersionTooOld, 8, K::Layout(L::VersionTooOld { .. })),
        "version_2.kas" => (C::VersionTooNew, 8, K::Layout(L::VersionTooNew { .. })),
        "version_100.kas" => (C::VersionTooNew, 8, K::Layout(L::VersionTooNew { .. })),
        "bad_filesize_0_-1.kas" => (C::BadFileFormat, 16, K::FileSizeTooSmall {
            file_size: 63, ..
        }),
        "bad_filesize_0_1.kas" => (C::BadFileFormat, 16, K::FileSizeMismatch { expected: 64, .. }),
        "bad_filesize_0_1024.kas" => (C::BadFileFormat, 16, K::FileSizeMismatch {
            expected: 64, ..
        }),
        // The last array (int64[9] at 1048) no longer fits in 1119 bytes.
        "bad_filesize_10_-1.kas" => (C::BadFileFormat, 64 + 9 * 64 + 24, K::ArrayOutOfBounds {
            index: 9, file_size: 1119, ..
        }),
        "bad_filesize_10_1.kas" => (C::BadFileFormat, 16, K::FileSizeMismatch {
            expected: 1120, ..
        }),
        "bad_filesize_10_1024.kas" => (C::BadFileFormat, 16, K::FileSizeMismatch {
            expected: 1120, ..
        }),
        "truncated_file.kas" => (C::BadFileFormat, 64, K::Layout(L::Truncated {
            what: "descriptors", needed: 640, available: 86, ..
        })),
        "key_offset_outside_file.kas" => (C::BadFileFormat, 72, K::KeyOutOfBounds {
            key_start: 0x1_0000_0000, ..
        }),
        "key_len_outside_file.kas" => (C::BadFileFormat, 72, K::KeyOutOfBounds {
            key_len: 0x1_0000_0000, ..
        }),
        "key_len_overflow.kas" => (C::BadFileFormat, 72, K::KeyOutOfBounds {
            key_len: u64::MAX, ..
        }),
        "array_offset_outside_file.kas" => (C::BadFileFormat, 88, K::ArrayOutOfBounds {
            array_start: 0x1_0000_0000, ..
        }),
        "array_len_outside_file.kas" => (C::BadFileFormat, 88, K::ArrayOutOfBounds {
            array_len: 0x1_0000_0000, ..
        }),
        "array_len_overflow.kas" => (C::BadFileFormat, 88, K::ArrayOutOfBounds {
            array_len: 0x2000_0000_0000_0000, dtype: DType::UInt64, ..
        }),
        "bad_key_start_-1.kas" => (C::BadFileFormat, 72, K::KeyNotPacked {
            key_start: 127, expected: 128, ..
        }),
        "bad_key_start_1.kas" => (C::BadFileFormat, 72, K::KeyNotPacked {
            key_start: 129, expected: 128, ..
        }),
        "bad_array_start_-8.kas" => (C::BadFileFormat, 88, K::ArrayNotPacked {
            array_start: 128, expected: 136, ..
        }),
        "bad_array_start_-1.kas" => (C::BadFileFormat, 88, K::Layout(L::Misaligned {
            value: 135, align: 8, ..
        })),
        // 137 + 1 byte > 137: the bounds check comes first, as in the reference.
        "bad_array_start_1.kas" => (C::BadFileFormat, 88, K::ArrayOutOfBounds {
            array_start: 137, ..
        }),
        "bad_array_start_8.kas" => (C::BadFileFormat, 88, K::ArrayOutOfBounds {
            array_start: 144, ..
        }),
        "truncated_file_correct_size_100.kas" => (C::BadFileFormat, 12, K::DescriptorsOutsideStore {
            num_items: 10, needed: 704, file_size: 100, ..
        }),
        "truncated_file_correct_size_128.kas" => (C::BadFileFormat, 12, K::DescriptorsOutsideStore {
            file_size: 128, ..
        }),
        "truncated_file_correct_size_129.kas" => (C::BadFileFormat, 12, K::DescriptorsOutsideStore {
            file_size: 129, ..
        }),
        "truncated_file_correct_size_200.kas" => (C::BadFileFormat, 12, K::DescriptorsOutsideStore {
            file_size: 200, ..
        }),
        "zero_key_len.kas" => (C::BadFileFormat, 80, K::EmptyKeyInStore { index: 0, .. }),
        "short_header_1.kas" => (C::BadFileFormat, 0, K::Layout(L::Truncated { .. })),
        "short_header_32.kas" => (C::BadFileFormat, 0, K::Layout(L::Truncated { .. })),
        "short_header_63.kas" => (C::BadFileFormat, 0, K::Layout(L::Truncated { .. })),
        "descriptors_truncated.kas" => (C::BadFileFormat, 64, K::Layout(L::Truncated { .. })),
        "data_truncated.kas" => (C::BadFileFormat, 0, K::Layout(L::Truncated {
            what: "store", needed: 288, available: 287, ..
        })),
        "key_not_sequential.kas" => (C::BadFileFormat, 136, K::KeyNotPacked {
            index: 1, key_start: 194, expected: 193, ..
        }),
        // The shifted array is empty and last: 1008 is past the 1000-byte store.
        "array_not_sequential.kas" => (C::BadFileFormat, 128 + 24, K::ArrayOutOfBounds {
            index: 1, array_start: 1008, ..
        }),
        "array_misaligned.kas" => (C::BadFileFormat, 88, K::Layout(L::Misaligned {
            value: 201, align: 8, ..
        })),
        "array_gap.kas" => (C::BadFileFormat, 88, K::ArrayNotPacked {
            index: 0, array_start: 208, expected: 200, ..
        }),
        "num_items_max.kas" => (C::BadFileFormat, 12, K::DescriptorsOutsideStore {
            num_items: u32::MAX, ..
        }),
        "unsorted_keys.kas" => (C::BadFileFormat, 193, K::UnsortedKeys { index: 1, .. }),
        "duplicate_keys.kas" => (C::BadFileFormat, 193, K::DuplicateKeyInStore { index: 1, .. }),
    }
}

/// Where our code differs from the reference C library's on purpose (docs/kastore.md).
const CODE_DIFFERENCES: [(&str, i32); 3] = [
    // The C library allocates num_items descriptors before checking them against the size.
    ("num_items_max.kas", -4),
    // The C library opens a store with unsorted keys; every lookup then fails.
    ("unsorted_keys.kas", -11),
    // The lazy C engine crashes on duplicate keys; READ_ALL accepts them (code 0).
    ("duplicate_keys.kas", 0),
];

#[test]
fn every_malformed_case_of_the_reference_suites_gets_our_error() {
    let cases = malformed_cases();
    let mut seen = 0;
    for (name, data, entry) in group("malformed") {
        if entry["group"] == "quirk" || name == "trailing_garbage.kas" {
            continue;
        }
        seen += 1;
        let case = cases
            .get(name.as_str())
            .unwrap_or_else(|| panic!("{name}: no expectation"));
        let e = Store::parse(&data).unwrap_err();
        assert!((case.matches)(&e), "{name}: unexpected error {e:?}");
        assert_eq!(e.kind().code(), case.code, "{name}: {e}");
        assert_eq!(e.offset(), case.offset, "{name}: {e}");

        // The reference rejects it too, with the same code unless we say otherwise.
        let c = entry["reference"]["c_read_all"]["code"].as_i64().unwrap() as i32;
        match CODE_DIFFERENCES.iter().find(|(n, _)| *n == name) {
            Some((_, theirs)) => assert_eq!(c, *theirs, "{name}: reference code"),
            None => assert_eq!(c, case.code.value(), "{name}: reference code vs {e}"),
        }

        // Every other entry point reports a problem too, and nothing panics.
        assert!(!common::verify_errors(&data).is_empty(), "{name}");
        assert!(kastore::OwnedStore::from_bytes(&data).is_err(), "{name}");
        let streamed = StreamReader::new(data.as_slice()).next_store();
        match streamed {
            Ok(None) => assert!(data.is_empty(), "{name}: clean end only when empty"),
            Ok(Some(_)) => panic!("{name}: the stream reader accepted it"),
            Err(stream_error) => {
                assert_eq!(
                    stream_error.kind().code(),
                    e.kind().code(),
                    "{name}: {stream_error}"
                )
            }
        }
    }
    assert_eq!(seen, cases.len(), "every expectation has its fixture");
}

#[test]
fn inputs_the_reference_accepts_are_read() {
    let get = |name: &str| std::fs::read(fixtures().join("malformed").join(name)).unwrap();

    let data = get("minor_65535.kas");
    let store = Store::parse(&data).unwrap();
    assert_eq!(store.version(), kastore::Version::new(1, 65535));
    assert!(store.compatibility().is_newer());
    assert!(!store.is_canonical());

    let data = get("nonzero_reserved.kas");
    let store = Store::parse(&data).unwrap();
    assert_eq!(*store.get::<i32>("b").unwrap(), [1, 2]);
    assert!(!store.is_canonical());
    assert!(common::verify_errors(&data).is_empty());
    // Rewriting gives the canonical bytes the reference would write.
    let clean = Writer::from_store(&store).to_vec().unwrap();
    assert!(Store::parse(&clean).unwrap().is_canonical());
    assert_eq!(clean.len(), data.len());

    let data = get("nul_in_key.kas");
    assert_eq!(
        *Store::parse(&data).unwrap().get::<u8>("a\0b").unwrap(),
        [1]
    );

    // The reference's Python wrappers fail to decode this key; keys are bytes here.
    let data = get("invalid_utf8_key.kas");
    let store = Store::parse(&data).unwrap();
    let item = store.item_at(0).unwrap();
    assert_eq!((item.key(), item.key_str()), (&b"\xff\xfe"[..], None));

    // Bytes after a store: every reader ignores them, and so do we; `warnings()` and
    // `verify` name them (a warning, not an error).
    let data = get("trailing_garbage.kas");
    let (store, rest) = Store::parse_prefix(&data).unwrap();
    assert_eq!((store.file_size(), rest), (137, &b"garbage!"[..]));
    let warnings: Vec<_> = store.warnings().collect();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].offset(), Some(137));
    assert!(matches!(
        warnings[0].kind(),
        ErrorKind::TrailingBytes {
            len: 8,
            store_like: false,
            ..
        }
    ));
    let (errors, warnings) = common::verify_all(&data, &kastore::ReadOptions::new());
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(warnings.len(), 1);
    assert_eq!(
        warnings[0].to_string(),
        store.warnings().next().unwrap().to_string()
    );
    let mut stores = kastore::stores(&data);
    assert_eq!(stores.next().unwrap().unwrap().file_size(), 137);
    assert!(stores.next().is_none());
    let expected = &expected()["malformed"]["trailing_garbage.kas"]["reference"];
    assert_eq!(
        expected["c_read_all"]["code"], 0,
        "the reference reads it: {expected}"
    );
}

#[test]
fn the_fixture_set_is_complete() {
    let names: Vec<String> = group("malformed").into_iter().map(|(n, _, _)| n).collect();
    for name in malformed_cases().keys() {
        assert!(
            names.iter().any(|n| n == name),
            "{name} missing from expected.json"
        );
    }
    // The C suite's 25 files, by their upstream names.
    for name in [
        "array_len_outside_file",
        "array_offset_outside_file",
        "bad_array_start_-1",
        "bad_array_start_-8",
        "bad_array_start_1",
        "bad_array_start_8",
        "bad_filesize_0_-1",
        "bad_filesize_0_1",
        "bad_filesize_0_1024",
        "bad_filesize_10_-1",
        "bad_filesize_10_1",
        "bad_filesize_10_1024",
        "bad_key_start_-1",
        "bad_key_start_1",
        "bad_magic_number",
        "bad_type_11",
        "bad_type_20",
        "empty_file",
        "key_len_outside_file",
        "key_offset_outside_file",
        "truncated_file",
        "truncated_file_correct_size_100",
        "truncated_file_correct_size_128",
        "truncated_file_correct_size_129",
        "truncated_file_correct_size_200",
    ] {
        assert!(names.contains(&format!("{name}.kas")), "{name}");
    }
}

// ------------------------------------------------------------ we write, they read

/// JSON for an item, in the form check_written.py reads.
fn item_json(key: &[u8], dtype: DType, numbers: Vec<i128>) -> Value {
    let len = numbers.len();
    let list: Vec<Value> = numbers
        .into_iter()
        .map(|n| {
            if n < 0 {
                json!(i64::try_from(n).unwrap())
            } else {
                json!(u64::try_from(n).unwrap())
            }
        })
        .collect();
    let field = if matches!(dtype, DType::Float32 | DType::Float64) {
        "bits"
    } else {
        "values"
    };
    json!({"key_hex": hex(key), "dtype": dtype.name(), "len": len, field: list})
}

/// A deterministic generator, so the written files are the same on every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 11
    }
}

/// Stores written by our builder, with the manifest of what each holds (in insertion
/// order, which is not the sorted order).
fn written_set() -> Vec<(String, Vec<u8>, Value)> {
    let mut out = Vec::new();

    // Every valid fixture, rebuilt from the reference's reading of it.
    for (name, _, entry) in valid() {
        let mut bytes = Vec::new();
        for store in entry["stores"].as_array().unwrap() {
            bytes.extend(build_from_json(store));
        }
        let stores: Vec<Value> = entry["stores"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| json!({"items": s["items"]}))
            .collect();
        out.push((format!("rebuilt_{name}"), bytes, json!({"stores": stores})));
    }

    // Many items of every type, keys of varied lengths inserted in random order, and
    // awkward lengths so that every padding size occurs.
    let mut rng = Lcg(0x6b61_7374_6f72_6521);
    let mut builder = Writer::new();
    let mut items = Vec::new();
    for i in 0..300u64 {
        let key_len = 1 + (rng.next() % 24) as usize;
        let mut key: Vec<u8> = (0..key_len)
            .map(|_| b'a' + (rng.next() % 26) as u8)
            .collect();
        key.extend(format!("/{i}").bytes());
        let len = (rng.next() % 13) as usize;
        macro_rules! add {
            ($t:ty, $gen:expr, $num:expr) => {{
                let values: Vec<$t> = (0..len).map(|_| $gen(rng.next())).collect();
                let numbers = values.iter().map($num).collect();
                items.push(item_json(&key, <$t as kastore::Element>::DTYPE, numbers));
                builder.add_vec(&key, values).unwrap();
            }};
        }
        match rng.next() % 10 {
            0 => add!(i8, |r: u64| r as i8, |v: &i8| i128::from(*v)),
            1 => add!(u8, |r: u64| r as u8, |v: &u8| i128::from(*v)),
            2 => add!(i16, |r: u64| r as i16, |v: &i16| i128::from(*v)),
            3 => add!(u16, |r: u64| r as u16, |v: &u16| i128::from(*v)),
            4 => add!(i32, |r: u64| r as i32, |v: &i32| i128::from(*v)),
            5 => add!(u32, |r: u64| r as u32, |v: &u32| i128::from(*v)),
            6 => add!(i64, |r: u64| (r << 11) as i64, |v: &i64| i128::from(*v)),
            7 => add!(u64, |r: u64| r << 11, |v: &u64| i128::from(*v)),
            8 => add!(
                f32,
                |r: u64| f32::from_bits(r as u32 & 0x7f7f_ffff),
                |v: &f32| i128::from(v.to_bits())
            ),
            _ => add!(f64, |r: u64| (r as f64) / 3.0 - 1e15, |v: &f64| i128::from(
                v.to_bits()
            )),
        }
    }
    out.push((
        "random_300.kas".into(),
        builder.to_vec().unwrap(),
        json!({"stores": [{"items": items}]}),
    ));

    // The tree sequence, rewritten through from_store: tskit must load it.
    let trees = std::fs::read(fixtures().join("valid/tree.trees")).unwrap();
    let store = Store::parse(&trees).unwrap();
    let mut builder = Writer::from_store(&store);
    assert!(builder.remove("uuid"));
    let uuid = *b"00000000-0000-4000-8000-000000000001";
    let uuid: Vec<i8> = uuid.iter().map(|&b| b as i8).collect();
    builder.add("uuid", &uuid).unwrap();
    let written = builder.to_vec().unwrap();
    let items: Vec<Value> = Store::parse(&written)
        .unwrap()
        .items()
        .map(|item| item_json(item.key(), item.dtype(), numbers(item.values())))
        .collect();
    out.push((
        "rewritten.trees".into(),
        written,
        json!({"stores": [{"items": items}]}),
    ));
    out
}

reference_test! {
    fn the_reference_reads_what_we_write(python) {
        let dir = Scratch::new("kastore-interop-written");
        let mut files = serde_json::Map::new();
        let set = written_set();
        for (name, bytes, manifest) in &set {
            std::fs::write(dir.join(name), bytes).unwrap();
            files.insert(name.clone(), manifest.clone());
        }
        // One more through the atomic path writer itself.
        let mut builder = Writer::new();
        builder
            .add("written/by/write_path", &[1.5f64, -0.0])
            .unwrap();
        builder.write_to_path(dir.join("atomic.kas")).unwrap();
        files.insert(
            "atomic.kas".into(),
            json!({"stores": [{"items": [item_json(b"written/by/write_path", DType::Float64,
                vec![i128::from(1.5f64.to_bits()), i128::from((-0.0f64).to_bits())])]}]}),
        );
        std::fs::write(
            dir.join("manifest.json"),
            serde_json::to_string(&json!({ "files": files })).unwrap(),
        )
        .unwrap();
        let out = reference::run(&python, "kastore/check_written.py", &[dir.as_os_str()]);
        eprintln!("{out}");
        assert_eq!(
            out.lines().filter(|l| l.contains(": OK")).count(),
            set.len() + 1
        );
    }
}
