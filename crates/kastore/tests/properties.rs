//! Properties over generated stores and generated garbage.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation,
    missing_docs
)]

use std::collections::BTreeMap;

use binfmt_core::Diagnostic;
use kastore::{Builder, DType, Store, StoreReader};
use proptest::prelude::*;

/// Contents: key -> (dtype code, little-endian bytes, a whole number of elements).
fn contents() -> impl Strategy<Value = BTreeMap<Vec<u8>, (u8, Vec<u8>)>> {
    let item = (0u8..10).prop_flat_map(|code| {
        let size = DType::from_code(code).unwrap().size();
        (
            Just(code),
            (0usize..12).prop_flat_map(move |n| proptest::collection::vec(any::<u8>(), n * size)),
        )
    });
    proptest::collection::btree_map(proptest::collection::vec(any::<u8>(), 1..12), item, 0..12)
}

fn build(contents: &BTreeMap<Vec<u8>, (u8, Vec<u8>)>) -> Vec<u8> {
    let mut b = Builder::new();
    for (key, (code, bytes)) in contents {
        let dtype = DType::from_code(*code).unwrap();
        b.insert_array(key, kastore::AnyArray::new(dtype, bytes))
            .unwrap();
    }
    b.to_vec().unwrap()
}

/// The first problem `verify` reports, to compare with `parse`.
fn first_problem(data: &[u8]) -> Option<(kastore::ErrorCode, Option<u64>)> {
    let mut first = None;
    kastore::verify(data, |e| {
        first.get_or_insert((e.code(), Diagnostic::offset(&e)));
    });
    first
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn written_stores_read_back_exactly(contents in contents()) {
        let bytes = build(&contents);
        let store = Store::parse(&bytes).unwrap();
        prop_assert_eq!(store.file_size(), bytes.len() as u64);
        prop_assert!(store.is_canonical());
        prop_assert_eq!(kastore::verify(&bytes, |e| panic!("{e}")), 0);
        // BTreeMap<Vec<u8>> iterates in kastore's order.
        prop_assert_eq!(store.len(), contents.len());
        for (item, (key, (code, data))) in store.items().zip(&contents) {
            prop_assert_eq!(item.key(), key.as_slice());
            prop_assert_eq!(item.dtype().code(), *code);
            prop_assert_eq!(item.bytes(), data.as_slice());
            prop_assert_eq!(item.array_offset() % 8, 0);
            prop_assert_eq!(store.item(key).unwrap().index(), item.index());
        }
        prop_assert_eq!(Builder::from_store(&store).to_vec().unwrap(), bytes.clone());
        // Every proper prefix is an error, never a panic.
        for cut in 0..bytes.len() {
            prop_assert!(Store::parse(&bytes[..cut]).is_err());
        }
    }

    #[test]
    fn garbage_never_panics_and_parse_agrees_with_verify(data in proptest::collection::vec(any::<u8>(), 0..400)) {
        check_consistency(&data)?;
    }

    #[test]
    fn mutated_stores_never_panic(
        contents in contents(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let mut bytes = build(&contents);
        for (at, value) in flips {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        check_consistency(&bytes)?;
    }
}

fn check_consistency(data: &[u8]) -> Result<(), TestCaseError> {
    let parsed = Store::parse(data);
    let verified = first_problem(data);
    match &parsed {
        Ok(store) => {
            // Touch everything.
            for item in store.items() {
                let _ = item.values().as_bytes();
                prop_assert!(store.item(item.key()).is_some());
            }
            // What parses re-serializes to the same bytes when it was canonical, and to an
            // equal store otherwise.
            let rewritten = Builder::from_store(store).to_vec().unwrap();
            if store.is_canonical() {
                prop_assert_eq!(rewritten.as_slice(), store.as_bytes());
            }
            let again = Store::parse(&rewritten).unwrap();
            prop_assert!(
                again
                    .items()
                    .map(|i| (i.key(), i.dtype(), i.bytes()))
                    .eq(store.items().map(|i| (i.key(), i.dtype(), i.bytes())))
            );
            if store.file_size() == data.len() as u64 {
                prop_assert_eq!(verified, None);
            }
        }
        Err(e) => {
            // verify's first problem is the one parse stops at.
            prop_assert_eq!(verified, Some((e.code(), Diagnostic::offset(e))));
        }
    }
    // A stream of the same bytes agrees with the slice iterator.
    let streamed: Vec<_> = StoreReader::new(data)
        .map(|s| s.map(|s| s.as_bytes().len()))
        .collect();
    let sliced: Vec<_> = kastore::stores(data)
        .map(|s| s.map(|s| s.as_bytes().len()))
        .collect();
    prop_assert_eq!(streamed.len(), sliced.len());
    for (a, b) in streamed.iter().zip(&sliced) {
        match (a, b) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(a), Err(b)) => prop_assert_eq!(a.code(), b.code()),
            _ => prop_assert!(false, "stream {:?} vs slice {:?}", a, b),
        }
    }
    Ok(())
}
