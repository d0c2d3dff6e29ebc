//! Appending in place: data is added exactly, spare slots are used up, and a refusal
//! leaves the file as it was. (Crashes between the protocol's steps and concurrent
//! appends are tested in `src/append.rs`, which can stop an append between steps.)
#![cfg(feature = "blosc")]
#![allow(clippy::unwrap_used, clippy::cast_possible_truncation)]

use binfmt_test_support::Scratch;
use bloscpack_header::fs::{AppendOptions, append};
use bloscpack_header::{Bloscpack, Checksum, ErrorKind, PackOptions, UnpackOptions};
use proptest::prelude::*;

fn data(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i / 3) as u8 ^ seed.wrapping_mul((i % 7) as u8))
        .collect()
}

fn unpack(bytes: &[u8]) -> Vec<u8> {
    let file = Bloscpack::parse(bytes).unwrap();
    file.verify_digests().unwrap();
    file.unpack_to_vec(&UnpackOptions::DEFAULT).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn appends_add_exactly_the_data(
        first in 1usize..3000, more in prop::collection::vec(0usize..2500, 1..4),
        chunk in 1u32..1024, spare in 0u64..8, checksum in 0u8..9,
    ) {
        let checksum = Checksum::from_id(checksum).unwrap();
        let options = PackOptions {
            chunk_size: chunk,
            checksum,
            max_app_chunks: Some(spare),
            ..PackOptions::default()
        };
        let original = data(first, 1);
        let dir = Scratch::new("bloscpack-append-prop");
        let path = dir.join("prop.blp");
        std::fs::write(&path, options.to_vec(&original).unwrap()).unwrap();
        let mut want = original.clone();
        for (i, n) in more.into_iter().enumerate() {
            let extra = data(n, i as u8 + 2);
            let before = std::fs::read(&path).unwrap();
            let header = *Bloscpack::parse(&before).unwrap().header();
            match append(&path, &extra, &AppendOptions::new()) {
                Ok(report) => {
                    let after = std::fs::read(&path).unwrap();
                    prop_assert_eq!(after.len() as u64, report.file_len);
                    want.extend_from_slice(&extra);
                    prop_assert_eq!(unpack(&after), want.clone());
                    let h = Bloscpack::parse(&after).unwrap();
                    prop_assert_eq!(
                        h.header().nchunks().unwrap() + h.header().max_app_chunks(),
                        header.nchunks().unwrap() + header.max_app_chunks()
                    );
                }
                Err(e) if matches!(e.kind(), ErrorKind::NotEnoughSpace { .. }) => {
                    prop_assert_eq!(std::fs::read(&path).unwrap(), before);
                }
                Err(e) => panic!("{e}"),
            }
        }
    }
}

#[test]
fn refusals_write_nothing() {
    let dir = Scratch::new("bloscpack-append-refusals");
    let packed = |options: PackOptions| options.to_vec(&data(1000, 5)).unwrap();
    for (bytes, what) in [
        (
            packed(PackOptions {
                offsets: false,
                ..PackOptions::default()
            }),
            "no offsets",
        ),
        (PackOptions::default().to_vec(&[]).unwrap(), "empty"),
        (
            packed(PackOptions {
                chunk_size: 100,
                max_app_chunks: Some(0),
                ..PackOptions::default()
            }),
            "no spare slots",
        ),
    ] {
        let path = dir.join("refused.blp");
        std::fs::write(&path, &bytes).unwrap();
        let e = append(&path, &data(500, 1), &AppendOptions::new()).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::CannotAppend { .. } | ErrorKind::NotEnoughSpace { .. }
            ),
            "{what}: {e}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{what}");
    }
    // A corrupt last chunk is not built upon.
    let mut bytes = packed(PackOptions {
        chunk_size: 300,
        ..PackOptions::default()
    });
    let file = Bloscpack::parse(&bytes).unwrap();
    let last = file.chunk(file.nchunks() - 1).unwrap();
    let at = last.offset() as usize + 20;
    bytes[at] ^= 0xff;
    let path = dir.join("corrupt.blp");
    std::fs::write(&path, &bytes).unwrap();
    let e = append(&path, &data(10, 1), &AppendOptions::new()).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::ChunkDigestMismatch { .. }),
        "{e}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}
