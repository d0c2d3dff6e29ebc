//! Properties over generated stores and generated garbage.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use std::collections::BTreeMap;

use kastore::{DType, Store, Writer};
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
    let mut b = Writer::new();
    for (key, (code, bytes)) in contents {
        let dtype = DType::from_code(*code).unwrap();
        b.add_array(key, kastore::AnyArray::new(dtype, bytes))
            .unwrap();
    }
    b.to_vec().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn written_stores_read_back_exactly(contents in contents()) {
        let bytes = build(&contents);
        let store = Store::parse(&bytes).unwrap();
        prop_assert_eq!(store.file_size(), bytes.len() as u64);
        prop_assert!(store.is_canonical());
        let (errors, warnings) = common::verify_all(&bytes, &kastore::ReadOptions::new());
        prop_assert!(errors.is_empty() && warnings.is_empty());
        // BTreeMap<Vec<u8>> iterates in kastore's order.
        prop_assert_eq!(store.len(), contents.len());
        for (item, (key, (code, data))) in store.items().zip(&contents) {
            prop_assert_eq!(item.key(), key.as_slice());
            prop_assert_eq!(item.dtype().code(), *code);
            prop_assert_eq!(item.bytes(), data.as_slice());
            prop_assert_eq!(item.array_offset() % 8, 0);
            prop_assert_eq!(store.item(key).unwrap().index(), item.index());
        }
        prop_assert_eq!(Writer::from_store(&store).to_vec().unwrap(), bytes.clone());
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
    fn concatenations_and_trailing_bytes_agree(
        first in contents(),
        second in contents(),
        cut in any::<prop::sample::Index>(),
        tail in proptest::collection::vec(any::<u8>(), 0..80),
    ) {
        // A store, then a second store cut anywhere, then anything.
        let mut bytes = build(&first);
        let second = build(&second);
        bytes.extend_from_slice(&second[..cut.index(second.len() + 1)]);
        bytes.extend_from_slice(&tail);
        let store = Store::parse(&bytes).unwrap();
        prop_assert_eq!(store.trailing_len(), (bytes.len() - store.as_bytes().len()) as u64);
        check_consistency(&bytes)?;
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
    common::oracle::check_slices(data);
    common::oracle::check_reader(data);
    Ok(())
}
