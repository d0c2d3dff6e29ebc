//! The ranged reader: its request plan (counted with `Counting`), and agreement with the
//! slice reader on every fixture, valid or not.
// Every test writes or reads files with the `std` API.
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used, clippy::cast_possible_truncation, unreachable_pub)]

mod common;

use std::io::Cursor;

use binfmt_core::source::{ByteSource, Counting, FileSource};
use binfmt_test_support::Scratch;
use common::{labelled, write};
use mldf::{
    Dataset, ErrorKind, FieldType, Layout, ReadOptions, Reader, Schema, Text, Value, WriterOptions,
};

/// A UTF-8 text value.
fn text(s: &str) -> Value<'_> {
    Value::Text(Text::Utf8(s))
}

#[test]
fn open_reads_header_and_descriptors_in_one_request() {
    let file = labelled(3, WriterOptions::new().num_samples(3));
    let source = Counting::new(&file[..]);
    let reader = Reader::open(&source).unwrap();
    assert_eq!(source.stats().requests, 1);
    assert!(source.stats().bytes <= mldf::HEAD_SIZE);
    assert_eq!(reader.num_samples(), 3);
    assert_eq!(reader.fields().len(), 2);
    assert_eq!(reader.field_by_name("caption").unwrap().index(), 1);
    // Canonical layout: the rows are in the head, so an INT costs nothing more, and a
    // caption costs one request, for its payload.
    assert_eq!(reader.value(2, 0).unwrap().value(), Value::Int(2));
    assert_eq!(source.stats().requests, 1);
    assert_eq!(reader.value(2, 1).unwrap().value(), text("caption 2"));
    assert_eq!(source.stats().requests, 2);
}

#[test]
fn descriptors_beyond_the_head_take_a_second_request() {
    // 400 fields: 83,200 bytes of descriptors, past the 64 KiB head.
    let schema = (0..400).fold(Schema::new(), |s, i| {
        s.field(format!("f{i}"), FieldType::Int)
    });
    let values: Vec<Value<'_>> = (0..400).map(Value::Int).collect();
    let file = write(&schema, WriterOptions::new().num_samples(1), &[values]);
    let source = Counting::new(&file[..]);
    let reader = Reader::open(&source).unwrap();
    assert_eq!(source.stats().requests, 2);
    assert_eq!(reader.field(399).unwrap().name(), "f399");
    // The row lies past the head too: one request for the slot.
    assert_eq!(reader.value(0, 399).unwrap().value(), Value::Int(399));
    assert_eq!(source.stats().requests, 3);
}

#[test]
fn each_value_takes_at_most_two_requests() {
    // Streaming layout: the data region first, the rows after it, both past the head.
    let file = labelled(50, WriterOptions::new());
    let source = Counting::new(&file[..]);
    let reader = Reader::open(&source).unwrap();
    let opened = source.stats().requests;
    assert_eq!(opened, 1);
    let mut before = opened;
    for i in 0..50 {
        for (field, requests) in [(0, 1), (1, 2)] {
            let v = reader.value(i, field).unwrap();
            let expected = Dataset::parse(&file).unwrap().value(i, field).unwrap();
            assert_eq!(v.value(), expected);
            assert_eq!(
                source.stats().requests - before,
                requests,
                "sample {i} field {field}"
            );
            before = source.stats().requests;
        }
    }
    // A whole sample: the row, then its payloads in one batch (one range here).
    let values = reader.sample(7).unwrap();
    assert_eq!(values.len(), 2);
    assert_eq!(values[1].value(), text("caption 7"));
    assert_eq!(source.stats().requests - before, 2);
    // An empty payload needs no request at all.
    let schema = Schema::new().field("t", FieldType::TextRaw);
    let file = write(&schema, WriterOptions::new(), &[vec![text("")]]);
    let source = Counting::new(&file[..]);
    let reader = Reader::open(&source).unwrap();
    assert_eq!(reader.value(0, 0).unwrap().value(), text(""));
    assert_eq!(source.stats().requests, 2);
}

#[test]
fn checksums_decide_what_open_reads() {
    let file = labelled(20, WriterOptions::new().checksums(true));
    // Every check: the index CRC reads the metadata table and the allocation table.
    let source = Counting::new(&file[..]);
    let reader = Reader::open(&source).unwrap();
    assert_eq!(source.stats().requests, 3);
    assert!(reader.checks_item_crcs());
    // Item CRCs only: the allocation table, kept for the binary search.
    let source = Counting::new(&file[..]);
    Reader::open_with(&source, &ReadOptions::new().index_checksum(false)).unwrap();
    assert_eq!(source.stats().requests, 2);
    // Neither: the head only.
    let source = Counting::new(&file[..]);
    let reader = Reader::open_with(&source, &ReadOptions::new().checksums(false)).unwrap();
    assert_eq!(source.stats().requests, 1);
    assert!(!reader.checks_item_crcs());
}

#[test]
fn item_crcs_are_checked_when_asked() {
    let mut file = labelled(3, WriterOptions::new().checksums(true).num_samples(3));
    let ds = Dataset::parse(&file).unwrap();
    let (start, _) = ds.data_region();
    file[start as usize] ^= 0x20; // "caption 0" → "Caption 0": still UTF-8
    let reader = Reader::open(&file[..]).unwrap();
    let err = reader.value(0, 1).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::ItemChecksum {
            sample: 0,
            field: 1,
            ..
        }
    ));
    assert_eq!(err.offset(), Some(start));
    assert_eq!(
        err.to_string(),
        Dataset::parse(&file)
            .unwrap()
            .value(0, 1)
            .unwrap_err()
            .to_string()
    );
    let lax = Reader::open_with(&file[..], &ReadOptions::new().item_checksums(false)).unwrap();
    assert_eq!(lax.value(0, 1).unwrap().value(), text("Caption 0"));
}

/// Every fixture: the ranged reader over a counted source (so nothing comes from a
/// slice) opens exactly when the slice reader does, with the same error, and reads the
/// same values.
#[test]
fn agrees_with_the_slice_reader_on_every_fixture() {
    for path in common::all_fixtures() {
        let bytes = std::fs::read(&path).unwrap();
        let source = Counting::new(&bytes[..]);
        let (ranged, sliced) = (Reader::open(&source), Dataset::parse(&bytes));
        let (reader, dataset) = match (ranged, sliced) {
            (Ok(r), Ok(d)) => (r, d),
            (Err(r), Err(d)) => {
                assert_eq!(r.to_string(), d.to_string(), "{}", path.display());
                continue;
            }
            (r, d) => panic!("{}: {:?} vs {:?}", path.display(), r.err(), d.err()),
        };
        assert_eq!(reader.header(), dataset.header());
        assert_eq!(reader.fields(), dataset.fields());
        let warnings = |w: Vec<mldf::Error>| w.iter().map(ToString::to_string).collect::<Vec<_>>();
        assert_eq!(
            warnings(reader.warnings().collect()),
            warnings(dataset.warnings().collect())
        );
        for s in 0..dataset.num_samples() {
            let whole = reader.sample(s);
            for f in 0..dataset.fields().len() {
                match (reader.value(s, f), dataset.value(s, f)) {
                    (Ok(r), Ok(d)) => assert!(r.value().same(&d), "{}", path.display()),
                    (Err(r), Err(d)) => assert_eq!(r.to_string(), d.to_string()),
                    (r, d) => panic!("{}: {r:?} vs {d:?}", path.display()),
                }
            }
            if let Ok(whole) = whole {
                for (f, v) in whole.iter().enumerate() {
                    assert!(v.value().same(&dataset.value(s, f).unwrap()));
                }
            }
        }
    }
}

#[test]
fn a_file_truncated_under_the_reader_is_an_error() {
    let dir = Scratch::new("mldf-reader-truncated");
    let path = dir.join("shrinks.mldf");
    let file = labelled(10, WriterOptions::new());
    std::fs::write(&path, &file).unwrap();
    let reader = mldf::fs::open_with(&path, &ReadOptions::new()).unwrap();
    assert_eq!(reader.value(9, 0).unwrap().value(), Value::Int(9));
    std::fs::write(&path, &file[..100]).unwrap();
    let err = reader.value(9, 1).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Io(_)), "{err}");
    // A missing file names its path.
    let err = mldf::fs::open_with(dir.join("absent.mldf"), &ReadOptions::new()).unwrap_err();
    assert!(err.to_string().contains("absent.mldf"), "{err}");
}

#[test]
fn short_sources_fail_like_short_slices() {
    let file = labelled(2, WriterOptions::new().num_samples(2));
    for len in [0, 8, 72] {
        let source = Counting::new(&file[..len]);
        let err = Reader::open(&source).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::Layout(Layout::Truncated { .. })),
            "{err}"
        );
    }
    // A source that cannot even say its length.
    let source = binfmt_core::source::SeekSource::new(Cursor::new(file.clone()));
    assert_eq!(source.len().unwrap(), file.len() as u64);
    let reader = Reader::open(source).unwrap();
    assert_eq!(reader.value(1, 0).unwrap().value(), Value::Int(1));
    assert!(FileSource::open("/nonexistent/mldf").is_err());
}

#[test]
fn values_own_or_borrow_their_bytes() {
    let file = labelled(1, WriterOptions::new().num_samples(1));
    // In memory: borrowed from the slice.
    let reader = Reader::open(&file[..]).unwrap();
    let v = reader.value(0, 1).unwrap();
    assert_eq!(v.payload(), b"caption 0");
    assert!(matches!(
        v.clone().into_payload(),
        std::borrow::Cow::Borrowed(_)
    ));
    // From a source that reads on demand: owned.
    let seek = binfmt_core::source::SeekSource::new(Cursor::new(file.clone()));
    let reader = Reader::open(seek).unwrap();
    let v = reader.value(0, 1).unwrap();
    assert!(matches!(v.into_payload(), std::borrow::Cow::Owned(_)));
    let _ = common::value_json(&reader.value(0, 0).unwrap().value());
}
