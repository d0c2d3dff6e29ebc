//! One view, two kinds of bytes: every fixture parsed over a slice and over a
//! `ReadCache` of a counted source gives the same accessors, values and first error; and
//! the request plan over a cache, counted.
// Every test writes or reads files with the `std` API.
#![cfg(feature = "std")]
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::cast_possible_truncation,
    unreachable_pub
)]

mod common;

use std::path::Path;

use binfmt_core::cache::ReadCache;
use binfmt_core::source::Counting;
use common::{all_fixtures, labelled, write};
use mldf::{
    Dataset, FieldType, HEAD_SIZE, ReadOptions, Reader, Schema, Text, Value, WriterOptions,
};

fn strings(w: impl Iterator<Item = mldf::Error>) -> Vec<String> {
    w.map(|e| e.to_string()).collect()
}

/// Every accessor of the two views agrees, and every value (borrowed over the slice,
/// fetched over the cache) is the same, or fails with the same error.
fn agree(path: &Path, options: &ReadOptions) {
    agree_on(
        &path.display().to_string(),
        &std::fs::read(path).unwrap(),
        options,
    );
}

fn agree_on(name: &str, bytes: &[u8], options: &ReadOptions) {
    let path = Path::new(name);
    let source = Counting::new(bytes);
    let cache = ReadCache::new(&source);
    let (sliced, ranged) = (
        Dataset::parse_with(bytes, options),
        Dataset::from_data_with(&cache, options),
    );
    let (d, r) = match (sliced, ranged) {
        (Ok(d), Ok(r)) => (d, r),
        (Err(d), Err(r)) => {
            assert_eq!(d.to_string(), r.to_string(), "{}", path.display());
            assert_eq!(d.offset(), r.offset(), "{}", path.display());
            return;
        }
        (d, r) => panic!("{}: {:?} vs {:?}", path.display(), d.err(), r.err()),
    };
    let name = path.display();
    assert_eq!(d.header(), r.header(), "{name}");
    assert_eq!(d.file_size(), r.file_size(), "{name}");
    assert_eq!(d.num_samples(), r.num_samples(), "{name}");
    assert_eq!(d.fields(), r.fields(), "{name}");
    assert_eq!(d.row_size(), r.row_size(), "{name}");
    assert_eq!(d.data_region(), r.data_region(), "{name}");
    assert_eq!(d.checks_item_crcs(), r.checks_item_crcs(), "{name}");
    assert_eq!(strings(d.warnings()), strings(r.warnings()), "{name}");
    for (i, f) in d.fields().iter().enumerate() {
        assert_eq!(d.field(i).unwrap(), r.field(i).unwrap());
        assert_eq!(
            d.field_by_name(f.name()).map(|f| f.index()),
            r.field_by_name(f.name()).map(|f| f.index())
        );
    }
    assert_eq!(
        d.field(d.fields().len()).unwrap_err().to_string(),
        r.field(r.fields().len()).unwrap_err().to_string()
    );
    assert!(d.field_by_name("\u{0}absent").is_none() && r.field_by_name("\u{0}absent").is_none());
    for s in 0..=d.num_samples() {
        match (d.sample(s), r.sample(s)) {
            (Ok(a), Ok(b)) => assert_eq!(a.index(), b.index()),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            (a, b) => panic!("{name}: {a:?} vs {b:?}"),
        }
        let whole = r.fetch_sample(s);
        for f in 0..=d.fields().len() {
            let slice_value = d.value(s, f);
            // The slice view's own fetch borrows what `value` returns.
            match (&slice_value, d.fetch(s, f)) {
                (Ok(a), Ok(b)) => assert!(a.same(&b.value()), "{name}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                (a, b) => panic!("{name}: {a:?} vs {b:?}"),
            }
            match (&slice_value, r.fetch(s, f)) {
                (Ok(a), Ok(b)) => assert!(a.same(&b.value()), "{name} {s} {f}"),
                (Err(a), Err(b)) => {
                    assert_eq!(a.to_string(), b.to_string(), "{name} {s} {f}");
                }
                (a, b) => panic!("{name} {s} {f}: {a:?} vs {b:?}"),
            }
        }
        match whole {
            Ok(values) => {
                assert_eq!(values.len(), d.fields().len());
                for (f, v) in values.iter().enumerate() {
                    assert!(v.value().same(&d.value(s, f).unwrap()), "{name}");
                }
            }
            Err(e) => {
                // The first field that fails, as single accesses say.
                let first = (0..d.fields().len().max(1))
                    .find_map(|f| d.value(s, f).err())
                    .unwrap();
                assert_eq!(e.to_string(), first.to_string(), "{name}");
            }
        }
    }
}

#[test]
fn slice_and_cache_views_agree_on_every_fixture() {
    for path in all_fixtures() {
        agree(&path, &ReadOptions::new());
        agree(&path, &ReadOptions::new().index_checksum(false));
        agree(&path, &ReadOptions::new().checksums(false));
    }
}

/// Hostile headers (huge counts, pointers anywhere) fail over a cache as over a slice,
/// with the same first error, before anything is sized by them.
#[test]
fn slice_and_cache_views_agree_on_hostile_headers() {
    use core::mem::offset_of;
    use mldf::raw::Header as H;
    let at = |field: usize| mldf::HEADER_OFFSET as usize + field;
    for file in [
        labelled(5, WriterOptions::new()),
        labelled(5, WriterOptions::new().num_samples(5)),
    ] {
        let fields = [
            (at(offset_of!(H, num_samples)), 8),
            (at(offset_of!(H, num_fields)), 2),
            (at(offset_of!(H, field_desc_ptr)), 8),
            (at(offset_of!(H, metadata_ptr)), 8),
            (at(offset_of!(H, data_ptr)), 8),
            (at(offset_of!(H, alloc_table_ptr)), 8),
        ];
        let len = file.len() as u64;
        for (offset, width) in fields {
            for value in [
                0,
                1,
                73,
                4096,
                len - 16,
                len,
                len + 1,
                1 << 40,
                u64::MAX - 100,
                u64::MAX,
            ] {
                let mut bad = file.clone();
                bad[offset..offset + width].copy_from_slice(&value.to_le_bytes()[..width]);
                let name = format!("field at {offset} = {value}");
                agree_on(&name, &bad, &ReadOptions::new());
            }
        }
    }
}

#[test]
fn the_reader_is_its_view() {
    for path in all_fixtures() {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(reader) = Reader::open(Counting::new(&bytes[..])) else {
            continue;
        };
        let view = reader.view();
        assert_eq!(reader.header(), view.header());
        assert_eq!(reader.fields(), view.fields());
        assert_eq!(reader.file_size(), view.file_size());
        assert_eq!(strings(reader.warnings()), strings(view.warnings()));
        let before = reader.source().stats().requests;
        // Making the view again reads nothing.
        for _ in 0..3 {
            let v = reader.view();
            assert_eq!(v.num_samples(), reader.num_samples());
        }
        assert_eq!(reader.source().stats().requests, before);
        for s in 0..reader.num_samples() {
            for f in 0..reader.fields().len() {
                match (reader.value(s, f), view.fetch(s, f)) {
                    (Ok(a), Ok(b)) => assert_eq!(a, b),
                    (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                    (a, b) => panic!("{}: {a:?} vs {b:?}", path.display()),
                }
            }
        }
    }
}

/// The request plan of the module docs, counted: one field of one sample from nothing
/// is at most three dependent round trips when the descriptors fit the head.
#[test]
fn one_field_of_one_sample_is_at_most_three_round_trips() {
    // (layout, requests at open, requests for one value)
    for (options, open, value) in [
        // Streaming: the rows are past the head.
        (WriterOptions::new(), 1, 2),
        // Canonical: the rows are in the head.
        (WriterOptions::new().num_samples(50), 1, 1),
        // Item CRCs: the allocation table at open, one more round trip.
        (WriterOptions::new().checksums(true), 2, 2),
        (WriterOptions::new().checksums(true).num_samples(50), 2, 1),
    ] {
        let file = labelled(50, options);
        let source = Counting::new(&file[..]);
        let reader = Reader::open_with(&source, &ReadOptions::new().index_checksum(false)).unwrap();
        assert_eq!(source.stats().requests, open);
        assert_eq!(
            reader.value(49, 1).unwrap().value(),
            Value::Text(Text::Utf8("caption 49"))
        );
        assert_eq!(source.stats().requests, open + value);
    }
    // Plain file, canonical layout: head (rows included), payload.
    let file = labelled(50, WriterOptions::new().num_samples(50));
    let source = Counting::new(&file[..]);
    let reader = Reader::open(&source).unwrap();
    reader.value(10, 1).unwrap();
    assert_eq!(source.stats().requests, 2);
    // Streaming layout: head, slot, payload.
    let file = labelled(50, WriterOptions::new());
    let source = Counting::new(&file[..]);
    let reader = Reader::open(&source).unwrap();
    reader.value(10, 1).unwrap();
    assert_eq!(source.stats().requests, 3);
}

/// Past the head, the descriptors and the allocation table (for item CRCs) come in one
/// batch: one round trip, whatever it counts as requests.
#[test]
fn descriptors_and_allocation_table_share_a_batch() {
    let schema = (0..400).fold(Schema::new(), |s, i| {
        s.field(format!("f{i}"), FieldType::Bytes)
    });
    // 400 KB of payloads: the allocation table lies far from the descriptors.
    let payload = [7u8; 1000];
    let values: Vec<Value<'_>> = (0..400).map(|_| Value::Bytes(&payload)).collect();
    let file = write(
        &schema,
        WriterOptions::new()
            .num_samples(1)
            .page_size(4096)
            .checksums(true),
        &[values],
    );
    assert!(file.len() as u64 > HEAD_SIZE);
    let source = RoundTrips::new(&file[..]);
    let reader = Reader::open_with(&source, &ReadOptions::new().index_checksum(false)).unwrap();
    assert!(reader.checks_item_crcs());
    // The head, then one batch for the descriptors and the table.
    assert_eq!(source.trips(), 2);
    assert_eq!(
        reader.value(0, 399).unwrap().value(),
        Value::Bytes(&payload)
    );
    // The slot (the row is past the head), then the payload.
    assert_eq!(source.trips(), 4);
    // A whole sample: the row, then every payload in one batch.
    let values = reader.sample(0).unwrap();
    assert_eq!(values.len(), 400);
    assert_eq!(source.trips(), 6);
}

#[test]
fn the_memory_limit_bounds_what_opening_holds() {
    let file = labelled(50, WriterOptions::new().checksums(true));
    let source = Counting::new(&file[..]);
    let err = Reader::open_with(&source, &ReadOptions::new().memory_limit(1000)).unwrap_err();
    assert!(matches!(err.kind(), mldf::ErrorKind::Io(_)), "{err}");
    // The same bound holds for the view over a cache.
    let cache = ReadCache::new(&source).with_limit(1000);
    assert!(Dataset::from_data(&cache).is_err());
    let reader = Reader::open_with(&source, &ReadOptions::new()).unwrap();
    assert_eq!(
        reader.value(3, 1).unwrap().value(),
        Value::Text(Text::Utf8("caption 3"))
    );
}

/// A reader can be shared between threads (the Python binding shares one).
#[test]
fn readers_are_send_and_sync() {
    fn shared<T: Send + Sync>() {}
    shared::<Reader<binfmt_core::source::FileSource>>();
    shared::<Reader<Vec<u8>>>();
}

/// A source that counts round trips: each call of a read method is one.
struct RoundTrips<'a> {
    inner: &'a [u8],
    trips: core::sync::atomic::AtomicU64,
}

impl<'a> RoundTrips<'a> {
    fn new(inner: &'a [u8]) -> Self {
        RoundTrips {
            inner,
            trips: core::sync::atomic::AtomicU64::new(0),
        }
    }
    fn trips(&self) -> u64 {
        self.trips.load(core::sync::atomic::Ordering::Relaxed)
    }
    fn trip(&self) {
        self.trips
            .fetch_add(1, core::sync::atomic::Ordering::Relaxed);
    }
}

impl binfmt_core::source::ByteSource for RoundTrips<'_> {
    fn len(&self) -> std::io::Result<u64> {
        Ok(self.inner.len() as u64)
    }
    fn read_range(
        &self,
        range: core::ops::Range<u64>,
    ) -> std::io::Result<std::borrow::Cow<'_, [u8]>> {
        self.trip();
        self.inner.read_range(range)
    }
    fn read_ranges(
        &self,
        ranges: &[core::ops::Range<u64>],
    ) -> std::io::Result<Vec<std::borrow::Cow<'_, [u8]>>> {
        self.trip();
        ranges
            .iter()
            .map(|r| self.inner.read_range(r.clone()))
            .collect()
    }
    fn read_head(&self, max_len: u64) -> std::io::Result<std::borrow::Cow<'_, [u8]>> {
        self.trip();
        self.inner.read_head(max_len)
    }
}
