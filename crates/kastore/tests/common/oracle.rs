//! What must hold for any input, whatever its bytes: the fuzz targets
//! (`fuzz/fuzz_targets/kastore*.rs`, which include this file), the property tests and the
//! regression replays all run these checks. Each function panics on a disagreement.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::panic)]

use core::ops::ControlFlow;

use binfmt_core::cache::ReadCache;
use binfmt_core::data::Data;
use binfmt_core::source::Counting;
use kastore::{
    AnyArray, DType, Error, ErrorKind, ReadOptions, Reader, Severity, Store, Stores, StreamReader,
    Writer,
};

/// A small store-size limit, so that the limit's paths are exercised too.
pub const LIMIT: u64 = 1 << 16;

fn touch(values: AnyArray<'_>) -> u64 {
    macro_rules! sum {
        ($a:expr, $to:expr) => {
            $a.iter().fold(0u64, |acc, v| acc.wrapping_add($to(v)))
        };
    }
    match values {
        AnyArray::Int8(a) => sum!(a, |v: i8| v as u64),
        AnyArray::UInt8(a) => sum!(a, u64::from),
        AnyArray::Int16(a) => sum!(a, |v: i16| v as u64),
        AnyArray::UInt16(a) => sum!(a, u64::from),
        AnyArray::Int32(a) => sum!(a, |v: i32| v as u64),
        AnyArray::UInt32(a) => sum!(a, u64::from),
        AnyArray::Int64(a) => sum!(a, |v: i64| v as u64),
        AnyArray::UInt64(a) => sum!(a, |v: u64| v),
        AnyArray::Float32(a) => sum!(a, |v: f32| u64::from(v.to_bits())),
        AnyArray::Float64(a) => sum!(a, |v: f64| v.to_bits()),
    }
}

/// (code, offset) of an error: what two readers must agree on.
fn id(e: &Error) -> (kastore::ErrorCode, Option<u64>) {
    (e.kind().code(), e.offset())
}

/// Every item reachable, every key found, and what parses re-serializes (to the same
/// bytes when it was canonical).
pub fn check_store(store: &Store<'_>) {
    for item in store.items() {
        core::hint::black_box(touch(item.values()));
        let found = store.item(item.key()).expect("every key is found");
        assert_eq!(found.index(), item.index());
        assert_eq!(item.bytes().len(), item.len() * item.dtype().size());
        // Typed access: the stored type works, any other is an error.
        assert_eq!(
            store.get::<u8>(item.key()).is_ok(),
            item.dtype() == DType::UInt8
        );
        assert_eq!(
            store.get::<f64>(item.key()).is_ok(),
            item.dtype() == DType::Float64
        );
        // Showing a key never needs more than what is asked for.
        assert!(item.key_text().max_chars(20).to_string().chars().count() <= 20);
    }
    let rewritten = Writer::from_store(store)
        .to_vec()
        .expect("a parsed store can be written");
    if store.is_canonical() {
        assert_eq!(
            rewritten,
            store.as_bytes(),
            "canonical input must re-serialize identically"
        );
    }
    let again = Store::parse(&rewritten).expect("what we write parses");
    assert!(again.is_canonical());
    assert!(
        again
            .items()
            .map(|i| (i.key(), i.dtype(), i.bytes()))
            .eq(store.items().map(|i| (i.key(), i.dtype(), i.bytes())))
    );
}

/// `parse`, `verify`, `stores` and the stream reader agree.
pub fn check_slices(data: &[u8]) {
    let options = ReadOptions::new().max_store_size(LIMIT);
    let parsed = Store::parse_with(data, &options);
    if let Ok(store) = &parsed {
        check_store(store);
    }

    // verify: its first error is the one parse stops at; a store that parses has no
    // errors; its warnings are the last store's.
    let (mut errors, mut warnings) = (Vec::new(), Vec::new());
    let summary = kastore::verify(data, &options, &mut |severity, e: Error| {
        match severity {
            Severity::Error => errors.push(id(&e)),
            Severity::Warning => {
                assert!(e.kind().is_warning() || !warnings.is_empty(), "{e}");
                warnings.push(id(&e));
            }
        }
        ControlFlow::Continue(())
    });
    assert_eq!(summary.errors(), errors.len() as u64);
    match &parsed {
        // (Warnings are possible here too: about what follows a broken store whose
        // header still says where it ends.)
        Err(e) => assert_eq!(errors.first(), Some(&id(e))),
        Ok(_) => assert!(errors.is_empty(), "{errors:?}"),
    }

    // Stores back to back: the slice iterator and a stream with the same options agree,
    // except that the stream reads trailing bytes as a store and fails on them.
    let sliced: Vec<_> = kastore::stores_with(data, &options).collect();
    let streamed: Vec<_> = StreamReader::with_options(data, &options).collect();
    assert!(streamed.len() >= sliced.len());
    for (a, b) in sliced.iter().zip(&streamed) {
        match (a, b) {
            (Ok(a), Ok(b)) => assert_eq!(a.as_bytes(), b.as_bytes()),
            (Err(a), Err(b)) => assert_eq!(id(a), id(b)),
            (a, b) => panic!("slice {a:?} but stream {b:?}"),
        }
    }
    match (sliced.last(), &streamed[sliced.len()..]) {
        (_, []) => {
            if let Some(Ok(last)) = sliced.last() {
                assert_eq!(last.warnings().count(), 0);
                assert_eq!(last.trailing_len(), 0);
                assert!(warnings.is_empty(), "{warnings:?}");
            }
        }
        (Some(Ok(last)), [Err(extra)]) => {
            let found: Vec<_> = last.warnings().collect();
            assert_eq!(found.iter().map(id).collect::<Vec<_>>(), warnings);
            let ErrorKind::TrailingBytes {
                len, store_like, ..
            } = *found[0].kind()
            else {
                panic!("{}", found[0]);
            };
            assert_eq!(len, last.trailing_len());
            assert_eq!(found.len(), if store_like { 2 } else { 1 });
            if store_like {
                assert_eq!(id(&found[1]), id(extra));
            }
        }
        (last, extra) => panic!("slice ended with {last:?}, the stream went on with {extra:?}"),
    }
}

/// The ranged reader agrees with `parse`, and keeps to its request plan.
pub fn check_reader(data: &[u8]) {
    let options = ReadOptions::new().max_store_size(LIMIT);
    let parsed = Store::parse_with(data, &options);
    let source = Counting::new(data);
    let opened = Reader::open_with(&source, &options);
    let open_requests = source.stats().requests;
    assert!(open_requests <= 3, "{open_requests} requests to open");
    match (&parsed, &opened) {
        (Err(a), Err(b)) => assert_eq!(id(a), id(b), "parse: {a}, reader: {b}"),
        (Ok(store), Ok(reader)) => {
            assert_eq!(reader.file_size(), store.file_size());
            assert_eq!(reader.trailing_len(), store.trailing_len());
            assert_eq!(reader.len(), store.len());
            for (entry, item) in reader.entries().zip(store.items()) {
                assert_eq!(entry.key(), item.key());
                assert_eq!(entry.dtype(), item.dtype());
                assert_eq!(reader.entry(entry.key()).unwrap().index(), item.index());
                let before = source.stats().requests;
                assert_eq!(&*reader.read(&entry).unwrap(), item.bytes());
                let used = source.stats().requests - before;
                // None for an empty array, or one the metadata read already holds.
                assert!(used <= u64::from(!item.is_empty()), "one request per array");
            }
            let entries: Vec<_> = reader.entries().collect();
            let arrays = reader.read_many(&entries).unwrap();
            assert!(
                arrays
                    .iter()
                    .map(|a| &**a)
                    .eq(store.items().map(|i| i.bytes()))
            );
        }
        (a, b) => panic!("parse {a:?} but reader {b:?}"),
    }
    check_view(data);
}

/// The view over a slice and the view over a cache of a counted source (no head, and
/// the 256-byte head format detection reads) agree on every accessor, the first error,
/// the warnings and the stores that follow, within the request plan.
pub fn check_view(data: &[u8]) {
    for options in [ReadOptions::new(), ReadOptions::new().max_store_size(LIMIT)] {
        let sliced = Store::parse_with(data, &options);
        for head in [0, 256] {
            let source = Counting::new(data);
            let cache = if head == 0 {
                ReadCache::new(&source)
            } else {
                ReadCache::with_head(&source, &data[..data.len().min(head)], 256)
            };
            let cached = Store::from_data_with(&cache, &options);
            let requests = source.stats().requests;
            assert!(
                requests <= 3 - u64::from(head > 0),
                "{requests} requests to open"
            );
            match (&sliced, &cached) {
                (Err(a), Err(b)) => assert_eq!(id(a), id(b), "slice: {a}, cache: {b}"),
                (Ok(a), Ok(b)) => same_store(a, b),
                (a, b) => panic!("slice {a:?} but cache {b:?}"),
            }
        }
        // Stores back to back.
        let source = Counting::new(data);
        let cache = ReadCache::new(&source);
        let sliced: Vec<_> = kastore::stores_with(data, &options).collect();
        let cached: Vec<_> = Stores::new(&cache, &options).collect();
        assert_eq!(sliced.len(), cached.len());
        for (a, b) in sliced.iter().zip(&cached) {
            match (a, b) {
                (Ok(a), Ok(b)) => same_store(a, b),
                (Err(a), Err(b)) => assert_eq!(id(a), id(b)),
                (a, b) => panic!("slice {a:?} but cache {b:?}"),
            }
        }
    }
}

/// `assert_eq!(a.m(), b.m())` for each accessor `m` named.
macro_rules! same {
    ($a:expr, $b:expr; $($m:ident),+) => {
        $(assert_eq!($a.$m(), $b.$m(), stringify!($m));)+
    };
}

/// Every accessor of `b` (any data) gives what `a`'s (a slice) gives.
pub fn same_store<'d, D: Data<'d>>(a: &Store<'_>, b: &Store<'d, D>)
where
    Error: From<D::Error>,
{
    same!(a, b; offset, file_size, trailing_len, version, compatibility, header, descriptors);
    same!(a, b; len, is_empty);
    assert!(a.keys().eq(b.keys()));
    assert_eq!(
        a.warnings().map(|e| id(&e)).collect::<Vec<_>>(),
        b.warnings().map(|e| id(&e)).collect::<Vec<_>>()
    );
    assert_eq!(a.items().len(), b.items().len());
    for (x, y) in a.items().zip(b.items()) {
        same!(x, y; key, key_str, key_excerpt, dtype, array_len, is_empty, byte_len);
        same!(x, y; array_range, index, descriptor, key_offset, array_offset);
        assert_eq!(x.key_text().to_string(), y.key_text().to_string());
        assert_eq!(x.len() as u64, y.array_len());
        assert_eq!(x.bytes(), &*y.read().unwrap());
        assert_eq!(&*x.read().unwrap(), x.bytes());
        assert_eq!(b.item(x.key()).map(|i| i.index()), Some(x.index()));
        assert!(b.contains(x.key()));
        assert_eq!(b.find(x.key()).unwrap().index(), x.index());
        assert_eq!(b.item_at(x.index()).unwrap().key(), x.key());
        match x.dtype() {
            DType::Float64 => assert!(
                a.get::<f64>(x.key())
                    .unwrap()
                    .iter()
                    .map(|v| v.to_bits())
                    .eq(b
                        .read_array::<f64>(x.key())
                        .unwrap()
                        .iter()
                        .map(|v| v.to_bits()))
            ),
            DType::UInt8 => assert_eq!(
                *a.get::<u8>(x.key()).unwrap(),
                *b.read_array::<u8>(x.key()).unwrap()
            ),
            _ => assert!(b.read_array::<f64>(x.key()).is_err()),
        }
    }
    assert!(b.item_at(b.len()).is_none());
    let missing = b"\xff\xff no such key";
    assert_eq!(
        a.find(missing).map(|i| i.index()).map_err(|e| id(&e)),
        b.find(missing).map(|i| i.index()).map_err(|e| id(&e))
    );
}
