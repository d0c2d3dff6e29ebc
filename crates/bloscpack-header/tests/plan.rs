//! The request plan of the view over a `ReadCache` (src/file.rs, "Request plan over a
//! cache"), measured with `binfmt_core::source::Counting` (ranges and bytes) under a
//! source that also counts dependent round trips (calls that reach it).
#![cfg(feature = "blosc")]
#![allow(clippy::unwrap_used, clippy::cast_possible_truncation)]

mod common;

use std::io;

use binfmt_core::cache::ReadCache;
use binfmt_core::source::Counting;
use binfmt_test_support::rounds::Rounds;
use bloscpack_header::{
    BloscArgs, Bloscpack, HEAD_SIZE, Metadata, PackOptions, ReadOptions, Reader, UnpackOptions,
};
use common::chunks_of;

/// Incompressible bytes.
fn noise(len: usize) -> Vec<u8> {
    binfmt_test_support::noise::noise_low(len, 0x9e37_79b9_7f4a_7c15)
}

/// `len` bytes of noise packed in chunks of 1000 bytes, with the default options as
/// `change` leaves them.
fn small(len: usize, change: impl FnOnce(&mut PackOptions)) -> Vec<u8> {
    let mut options = chunks_of(1000);
    change(&mut options);
    options.to_vec(&noise(len)).unwrap()
}

/// 24 MiB in 24 chunks of 1 MiB, stored, with metadata and 240 spare slots.
fn large() -> (Vec<u8>, Vec<u8>) {
    let input = noise(24 << 20);
    let packed = PackOptions {
        chunk_size: 1 << 20,
        blosc: BloscArgs {
            clevel: 0,
            ..BloscArgs::default()
        },
        metadata: Some(Metadata::new(&br#"{"dtype":"u1","shape":[25165824]}"#[..])),
        ..PackOptions::default()
    }
    .to_vec(&input)
    .unwrap();
    (input, packed)
}

#[test]
fn open_is_the_head_then_one_batch_for_the_sections_and_one_for_the_chunk_headers() {
    let (input, packed) = large();
    let source = Rounds::new(Counting::new(&packed[..]));
    let reader = Reader::open(&source).unwrap();
    // Round 1: the head. Round 2: metadata and offsets (one range). Round 3: the 24
    // chunk headers, hinted at once (24 ranges: 1 MiB apart, too far to merge).
    assert_eq!(source.rounds(), 3);
    assert_eq!(source.inner().stats().requests, 1 + 1 + 24);
    let view = reader.view();
    assert_eq!(view.nchunks(), 24);
    // Everything `inspect` shows is held: no more requests.
    let before = source.inner().stats();
    let _ = (view.header(), view.metadata().unwrap().text().unwrap());
    assert_eq!(view.offsets().count(), 24);
    assert_eq!(
        view.chunks().map(|c| c.header().nbytes).sum::<u32>(),
        24 << 20
    );
    assert_eq!(view.warnings().count(), 0);
    assert_eq!(reader.chunk_offsets().len(), 24);
    assert_eq!(source.inner().stats(), before);
    // Under 1% of the file was read, and the cache holds no more than that.
    let read = source.inner().stats().bytes;
    assert!(read * 100 < packed.len() as u64, "{read} bytes read");
    assert!(reader.cache().held() <= read);
    // A range of the data: one more round trip, for the two chunks that hold it.
    let range = (3 << 20) - 10..(3 << 20) + 10;
    let got = reader
        .read_range(range.start as u64..range.end as u64)
        .unwrap();
    assert_eq!(got, &input[range]);
    assert_eq!(source.rounds(), 4);
    assert_eq!(source.inner().stats().requests, before.requests + 2);
    // Payloads are not kept.
    assert_eq!(reader.cache().held(), read);
}

#[test]
fn a_head_in_hand_is_not_read_again() {
    let (_, packed) = large();
    let source = Rounds::new(Counting::new(&packed[..]));
    let head = &packed[..HEAD_SIZE as usize];
    let cache = ReadCache::with_head(&source, head, HEAD_SIZE);
    let reader = Reader::from_cache(cache, &ReadOptions::new()).unwrap();
    assert_eq!(source.rounds(), 2);
    assert_eq!(reader.nchunks(), 24);
}

#[test]
fn a_small_file_is_read_in_two_round_trips() {
    // Sections within the head: the head, then the chunk headers.
    let packed = small(3000, |o| o.max_app_chunks = Some(0));
    let source = Rounds::new(Counting::new(&packed[..]));
    let cache = ReadCache::new(&source);
    let view = Bloscpack::from_data_with(&cache, &ReadOptions::new()).unwrap();
    assert_eq!(view.nchunks(), 3);
    assert_eq!(source.rounds(), 2);
}

#[test]
fn without_offsets_each_chunk_header_is_one_round_trip() {
    let packed = small(10_000, |o| o.offsets = false);
    let source = Rounds::new(Counting::new(&packed[..]));
    let reader = Reader::open(&source).unwrap();
    let beyond = reader
        .chunk_offsets()
        .iter()
        .filter(|&&at| at + 16 > HEAD_SIZE)
        .count() as u64;
    assert_eq!(reader.nchunks(), 10);
    assert_eq!(source.rounds(), 1 + beyond);
}

#[test]
fn unpacking_through_a_cache_streams_chunk_by_chunk() {
    let (input, packed) = large();
    let source = Rounds::new(Counting::new(&packed[..]));
    let reader = Reader::open(&source).unwrap();
    let held = reader.cache().held();
    let rounds = source.rounds();
    let mut out = Vec::new();
    let report = reader
        .view()
        .unpack_to_writer(&mut out, &UnpackOptions::DEFAULT)
        .unwrap();
    assert_eq!(report.written, input.len() as u64);
    assert!(out == input);
    // Every chunk announced and read ahead (24 MiB: two windows of at most
    // PREFETCH_WINDOW, a round of one batch each, not one round per chunk, 24 before),
    // none kept: the cache holds what it held before.
    assert_eq!(source.rounds() - rounds, 2);
    assert_eq!(reader.cache().held(), held);
    // Digests, one payload per chunk too.
    reader.view().verify_digests().unwrap();
    assert_eq!(reader.cache().held(), held);
}

#[test]
fn unpacking_into_memory_through_a_cache_on_threads_reads_ahead() {
    let (input, packed) = large();
    let source = Rounds::new(Counting::new(&packed[..]));
    let reader = Reader::open(&source).unwrap();
    let rounds = source.rounds();
    let mut out = vec![0u8; input.len()];
    reader
        .view()
        .unpack_into(&mut out, &UnpackOptions::DEFAULT.threads(2))
        .unwrap();
    assert!(out == input);
    // 24 chunks, read ahead in windows: a round per window (two here), not 24. The
    // workers take chunks from the cache in file order, as one reader would; taken in
    // whatever order the threads ran (as before), an optimised build read every chunk
    // alone.
    let used = source.rounds() - rounds;
    assert_eq!(used, 2, "{used} rounds");
}

#[test]
fn the_cache_limit_bounds_what_open_holds() {
    let (_, packed) = large();
    let cache = ReadCache::new(&packed[..]).with_limit(300);
    let e = Reader::from_cache(cache, &ReadOptions::new()).unwrap_err();
    assert!(e.to_string().contains("limit"), "{e}");
}

#[test]
fn a_stream_is_judged_on_its_first_bytes_and_read_once() {
    use binfmt_core::source::StreamSource;
    // An endless stream of zeros is refused on its head, before its length is asked for.
    let zeros = StreamSource::new(io::repeat(0), 1 << 30);
    let e = Reader::open(zeros).unwrap_err();
    assert!(e.to_string().contains("byte 0"), "{e}");
    // A stream of a real file reads as the file does.
    let input = noise(50_000);
    let packed = chunks_of(4096).to_vec(&input).unwrap();
    let stream = StreamSource::new(&packed[..], 1 << 30);
    let reader = Reader::open(stream).unwrap();
    assert_eq!(reader.nchunks(), 13);
    assert_eq!(
        reader.read_range(10_000..10_100).unwrap(),
        &input[10_000..10_100]
    );
    let mut out = Vec::new();
    reader
        .view()
        .unpack_to_writer(&mut out, &UnpackOptions::DEFAULT)
        .unwrap();
    assert!(out == input);
}

#[test]
fn verify_through_a_cache_reads_each_chunk_once_and_no_header_alone() {
    use core::ops::ControlFlow;
    let (_, packed) = large();
    let source = Rounds::new(Counting::new(&packed[..]));
    let cache = ReadCache::new(&source);
    let summary = bloscpack_header::verify_data(&cache, &ReadOptions::new(), &mut |_, _| {
        ControlFlow::Continue(())
    });
    assert!(summary.is_valid());
    let stats = source.inner().stats();
    // The head, the sections, then the 24 chunks (ranges) in two windows (24 MiB,
    // PREFETCH_WINDOW each): each chunk's header is checked from the window that brings
    // the chunk, where the walk once read the 24 headers in ranges of their own first (50
    // ranges, 5 rounds).
    assert_eq!(stats.requests, 1 + 1 + 24);
    assert_eq!(
        stats.bytes,
        packed.len() as u64 + HEAD_SIZE.min(packed.len() as u64) - 32
    );
    assert_eq!(source.rounds(), 4);
}

#[test]
fn parse_and_unpack_through_a_cache_reads_each_chunk_once() {
    let (input, packed) = large();
    let source = Rounds::new(Counting::new(&packed[..]));
    let cache = ReadCache::new(&source);
    let mut out = Vec::new();
    let (view, report) = Bloscpack::parse_and_unpack(
        &cache,
        &ReadOptions::new(),
        &UnpackOptions::DEFAULT,
        &mut out,
    )
    .unwrap();
    assert_eq!((view.nchunks(), report.written), (24, input.len() as u64));
    assert!(out == input);
    // As `verify`: the head, the sections, the 24 chunks in two windows; no chunk header
    // alone (the two steps: 24 more ranges and a round more).
    assert_eq!(source.inner().stats().requests, 1 + 1 + 24);
    assert_eq!(source.rounds(), 4);
}
