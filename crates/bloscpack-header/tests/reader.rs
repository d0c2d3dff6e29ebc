//! The ranged reader's request plan, measured with `binfmt_core::source::Counting`.
#![cfg(feature = "blosc")]
#![allow(clippy::cast_possible_truncation)]

mod common;

use binfmt_core::source::{Counting, FileSource};
use bloscpack_header::{ErrorKind, Metadata, PackOptions, Reader};
use common::chunks_of;

fn data(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i / 5 % 253) as u8).collect()
}

#[test]
fn open_takes_one_request_and_a_range_only_its_chunks() {
    let input = data(100_000);
    let options = PackOptions {
        metadata: Some(Metadata::new(&br#"{"a":1}"#[..])),
        ..chunks_of(4096)
    };
    let packed = options.to_vec(&input).unwrap();
    let source = Counting::new(packed.clone());
    let reader = Reader::open(&source).unwrap();
    // The 256-byte head; metadata and offsets (one range); the 25 chunk headers, hinted
    // together: one batch of 25 ranges (about 4 KiB apart, too far to merge), one round
    // trip (tests/plan.rs counts round trips).
    assert_eq!(source.stats().requests, 2 + 25);
    assert_eq!(reader.nchunks(), 25);
    assert_eq!(reader.metadata().unwrap().text().unwrap(), r#"{"a":1}"#);
    // Inside chunk 3 only.
    assert_eq!(
        reader.read_range(12_300..12_400).unwrap(),
        &input[12_300..12_400]
    );
    assert_eq!(source.stats().requests, 2 + 25 + 1);
    // Chunks 4..=9: one read_ranges call of six ranges.
    let before = source.stats();
    assert_eq!(
        reader.read_range(16_384..40_000).unwrap(),
        &input[16_384..40_000]
    );
    assert_eq!(source.stats().requests - before.requests, 6);
    // The last, short chunk and a range past the end.
    assert_eq!(
        reader.read_range(99_000..200_000).unwrap(),
        &input[99_000..]
    );
    assert_eq!(reader.read_range(0..100_000).unwrap(), input);
}

#[test]
fn sections_past_the_first_request_take_one_more() {
    let input = data(50_000);
    // 20,000 spare slots: 160 KB of offsets, past the 256-byte first request.
    let options = PackOptions {
        max_app_chunks: Some(20_000),
        ..chunks_of(1000)
    };
    let packed = options.to_vec(&input).unwrap();
    let source = Counting::new(packed);
    let reader = Reader::open(&source).unwrap();
    // The head, the sections (one range), the chunk headers (one merged range).
    assert_eq!(source.stats().requests, 3);
    assert_eq!(reader.read_range(49_500..50_000).unwrap(), &input[49_500..]);
    assert_eq!(source.stats().requests, 4);
}

#[test]
fn without_offsets_chunk_headers_are_walked_once() {
    let input = data(300_000);
    let options = PackOptions {
        offsets: false,
        ..chunks_of(10_000)
    };
    let packed = options.to_vec(&input).unwrap();
    let source = Counting::new(packed.clone());
    let reader = Reader::open(&source).unwrap();
    // One head request; then one 16-byte request per chunk header beyond it.
    let beyond = reader
        .chunk_offsets()
        .iter()
        .filter(|&&at| at + 16 > bloscpack_header::HEAD_SIZE)
        .count() as u64;
    assert_eq!(reader.nchunks(), 30);
    assert_eq!(source.stats().requests, 1 + beyond);
    assert_eq!(
        reader.read_range(123_456..123_999).unwrap(),
        &input[123_456..123_999]
    );
}

#[test]
fn a_file_source_and_corruption() {
    let input = data(20_000);
    let mut packed = chunks_of(4096).to_vec(&input).unwrap();
    let dir = binfmt_test_support::Scratch::new("bloscpack-reader-file-source");
    let path = dir.join("r.blp");
    std::fs::write(&path, &packed).unwrap();
    let reader = Reader::open(FileSource::open(&path).unwrap()).unwrap();
    assert_eq!(reader.read_range(5000..9000).unwrap(), &input[5000..9000]);
    // A flipped byte in chunk 2 is found by its digest when chunk 2 is read.
    let at = reader.chunk_offsets()[2] as usize + 40;
    packed[at] ^= 0x55;
    let reader = Reader::open(packed).unwrap();
    assert_eq!(reader.read_range(0..100).unwrap(), &input[..100]);
    let e = reader.read_range(8192..8200).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::ChunkDigestMismatch { index: 2, .. }),
        "{e}"
    );
}
