#![no_main]
//! kastore: parse anything, reach every item, and check that what parses re-serializes to
//! the same bytes (exactly, when the input was canonical), that `verify` agrees with
//! `parse`, and that a `Read` stream agrees with the slice iterator.

use binfmt_core::Diagnostic;
use kastore::{AnyArray, Builder, Limits, Store, StoreReader};
use libfuzzer_sys::fuzz_target;

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

fn check_store(store: &Store<'_>) {
    for item in store.items() {
        std::hint::black_box(touch(item.values()));
        let found = store.item(item.key()).expect("every key is found");
        assert_eq!(found.index(), item.index());
        assert_eq!(item.bytes().len(), item.len() * item.dtype().size());
        // Typed access: the stored type works, any other is an error.
        assert_eq!(store.get::<u8>(item.key()).is_ok(), item.dtype() == kastore::DType::UInt8);
        assert_eq!(store.get::<f64>(item.key()).is_ok(), item.dtype() == kastore::DType::Float64);
    }
    let rewritten = Builder::from_store(store).to_vec().expect("a parsed store can be written");
    if store.is_canonical() {
        assert_eq!(rewritten, store.as_bytes(), "canonical input must re-serialize identically");
    }
    let again = Store::parse(&rewritten).expect("what we write parses");
    assert!(again.is_canonical());
    assert!(again
        .items()
        .map(|i| (i.key(), i.dtype(), i.bytes()))
        .eq(store.items().map(|i| (i.key(), i.dtype(), i.bytes()))));
}

fuzz_target!(|data: &[u8]| {
    let parsed = Store::parse(data);
    if let Ok(store) = &parsed {
        check_store(store);
    }

    // verify reports, first, the problem parse stops at.
    let mut first = None;
    let problems = kastore::verify(data, |e| {
        first.get_or_insert((e.code(), Diagnostic::offset(&e)));
    });
    match &parsed {
        Err(e) => assert_eq!(first, Some((e.code(), Diagnostic::offset(e)))),
        Ok(store) if store.file_size() == data.len() as u64 => assert_eq!(problems, 0),
        Ok(_) => {}
    }

    // Stores back to back: the slice iterator and a stream with a small limit agree.
    let limit = 1 << 16;
    let sliced: Vec<_> = kastore::stores(data).collect();
    let streamed: Vec<_> =
        StoreReader::with_limits(data, Limits::default().max_store_size(limit)).collect();
    for (a, b) in sliced.iter().zip(&streamed) {
        match (a, b) {
            (Ok(a), Ok(b)) => assert_eq!(a.as_bytes(), b.as_bytes()),
            // The stream applies its size limit before it reads the body; the slice has
            // every byte and diagnoses the store itself.
            (Err(_), Err(kastore::Error::TooLarge { file_size, .. })) => assert!(*file_size > limit),
            (Err(a), Err(b)) => assert_eq!(a.code(), b.code()),
            (Ok(a), Err(e)) => assert!(
                matches!(e, kastore::Error::TooLarge { .. }) && a.file_size() > limit,
                "{e}"
            ),
            (Err(a), Ok(_)) => panic!("slice error {a} but the stream read a store"),
        }
    }
});
