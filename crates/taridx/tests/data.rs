//! One view over any `Data`: every fixture parsed over `&[u8]` and over
//! `&ReadCache<Counting<&[u8]>>` gives the same answers (and the same first error for
//! damaged bytes), and the cache's request plan is measured with `Counting`.
// Integration tests use the `std` API (builder, files, sources).
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used)]

mod support;

use core::ops::Range;
use core::sync::atomic::{AtomicU64, Ordering};
use std::borrow::Cow;
use std::io;
use support::golden;

use binfmt_core::cache::ReadCache;
use binfmt_core::data::Data;
use binfmt_core::source::{ByteSource, Counting, StreamSource};
use taridx::{
    Error, ErrorKind, Index, IndexFile, ReadOptions, Reader, RowData, StemMap, Verifier, keyhash,
};

fn fixtures() -> Vec<(&'static str, Vec<u8>)> {
    [
        "clean.taridx",
        "train.taridx",
        "strict/clean.taridx",
        "strict/train.taridx",
    ]
    .into_iter()
    .map(|name| (name, golden(name)))
    .chain([("big", big_index(3000))])
    .collect()
}

/// An index of `n` one-member samples (32 bytes a row: 3000 rows are past the 64 KiB
/// first read), with one crash stem.
fn big_index(n: u64) -> Vec<u8> {
    let rows = (0..n)
        .map(|i| RowData {
            fid: u16::try_from(i % 3).unwrap(),
            offset: i * 1024,
            size: 100 + i,
            extid: u16::try_from(i % 2).unwrap(),
            crashid: u32::from(i == 7),
            keyhash: keyhash(&format!("s{i:06}")),
        })
        .collect();
    IndexFile::new(vec!["cls".into(), "jpg".into()], vec!["crash".into()], rows)
        .unwrap()
        .to_vec()
        .unwrap()
}

/// Everything a view answers, as text.
fn answers<'d, D: Data<'d>>(index: &Index<'d, D>) -> Vec<String> {
    let mut out = vec![
        format!("{:?}", index.header()),
        format!("{}", index.version()),
        format!("{:?}", index.compatibility()),
        format!("{:?}", index.options()),
        format!(
            "{:?}",
            index.warnings().map(|w| w.to_string()).collect::<Vec<_>>()
        ),
        format!(
            "{} {} {} {} {} {} {} {}",
            index.n_stems(),
            index.n_rows(),
            index.n_ext(),
            index.n_crash(),
            index.flags(),
            index.is_contiguous(),
            index.crash_block_offset(),
            index.rows_offset()
        ),
        format!("{:?}", index.extensions().collect::<Vec<_>>()),
        format!("{:?}", index.crash_stems().collect::<Vec<_>>()),
        format!("{:?}", index.extension(0)),
        format!("{:?}", index.crash_stem(1)),
        format!("{:?}", index.raw_rows()),
        format!("{:?}", index.entries().collect::<Vec<_>>()),
        format!("{:?}", index.row(0)),
        format!("{:?}", index.row(index.n_rows())),
    ];
    let stems: Vec<String> = index
        .crash_stems()
        .map(String::from)
        .chain(["sample000001".into(), "s000007".into(), "x".into()])
        .collect();
    for stem in &stems {
        out.push(format!(
            "{} {:?}",
            index.crashid_of(stem),
            index.find(stem).collect::<Vec<_>>()
        ));
    }
    match StemMap::build(index) {
        Ok(map) => {
            for stem in &stems {
                out.push(format!(
                    "{:?} {:?}",
                    map.lookup(stem).collect::<Vec<_>>(),
                    map.extension(1)
                ));
            }
            out.push(format!("{} {}", map.is_contiguous(), map.distinct_stems()));
        }
        Err(e) => out.push(e.to_string()),
    }
    out.push(format!("{:?}", Verifier::new(index)));
    out
}

#[test]
fn every_accessor_agrees_over_a_slice_and_a_cache() {
    for (name, bytes) in fixtures() {
        for options in [ReadOptions::new(), ReadOptions::new().lenient(true)] {
            let slice = Index::parse_with(&bytes, &options).unwrap();
            let source = Counting::new(&bytes[..]);
            let cache = ReadCache::new(&source);
            let ranged = Index::from_data_with(&cache, &options).unwrap();
            assert_eq!(answers(&slice), answers(&ranged), "{name}");
            assert_eq!(ranged.data().held(), cache.held());
        }
    }
}

/// The first error of a parse, as text (kind and offset).
fn first_error<T>(result: Result<T, Error>) -> Option<String> {
    result
        .err()
        .map(|e| format!("{e} / {:?} / {:?}", e.offset(), e.kind()))
}

fn same_first_error(bytes: &[u8], what: &str) {
    for options in [ReadOptions::new(), ReadOptions::new().lenient(true)] {
        let slice = first_error(Index::parse_with(bytes, &options));
        let cache = ReadCache::new(Counting::new(bytes));
        let ranged = first_error(Index::from_data_with(&cache, &options));
        assert_eq!(slice, ranged, "{what}");
    }
}

#[test]
fn damaged_bytes_give_the_same_first_error() {
    for (name, bytes) in fixtures() {
        // Every truncation of the header and the blocks, and a few of the rows.
        let blocks_end = usize::try_from(Index::parse(&bytes).unwrap().rows_offset()).unwrap();
        for len in (0..=blocks_end + 40).chain([bytes.len() - 1, bytes.len() - 32]) {
            same_first_error(
                &bytes[..len.min(bytes.len())],
                &format!("{name} cut to {len}"),
            );
        }
        // Every header byte, and every byte of the blocks, set to 0x00, 0xff and 0x80.
        for at in 0..blocks_end {
            for value in [0x00, 0xff, 0x80, b'\n'] {
                let mut damaged = bytes.clone();
                damaged[at] = value;
                same_first_error(&damaged, &format!("{name}: byte {at} = {value:#x}"));
            }
        }
        // A trailing byte.
        let mut longer = bytes.clone();
        longer.push(0);
        same_first_error(&longer, &format!("{name} + 1 byte"));
    }
}

// The request plan.

#[test]
fn a_small_index_is_one_request() {
    let bytes = golden("strict/train.taridx");
    assert!(bytes.len() < 64 << 10);
    let source = Counting::new(&bytes[..]);
    let cache = ReadCache::new(&source);
    let index = Index::from_data_with(&cache, &ReadOptions::new()).unwrap();
    let map = StemMap::build(&index).unwrap();
    let _ = map.lookup("sample000001").count();
    assert_eq!(source.stats().requests, 1);
    assert_eq!(source.stats().bytes, bytes.len() as u64);
}

#[test]
fn a_large_index_is_two_dependent_requests() {
    let bytes = big_index(3000);
    assert!(bytes.len() > 64 << 10);
    let source = Counting::new(&bytes[..]);
    let cache = ReadCache::new(&source);
    let index = Index::from_data_with(&cache, &ReadOptions::new()).unwrap();
    // The first 64 KiB, then the blocks and rows as one range.
    assert_eq!(source.stats().requests, 2);
    let map = StemMap::build(&index).unwrap();
    assert_eq!(map.lookup("s000123").count(), 1);
    let _ = index.entries().count();
    let _ = Verifier::new(&index);
    assert_eq!(source.stats().requests, 2);
}

#[test]
fn bytes_at_hand_are_not_read_again() {
    let bytes = big_index(3000);
    // The whole index at hand: nothing is read.
    let source = Counting::new(&bytes[..]);
    let cache = ReadCache::with_head(&source, &bytes, u64::MAX);
    Index::from_data_with(&cache, &ReadOptions::new()).unwrap();
    assert_eq!(source.stats().requests, 0);
    // Its first bytes at hand (format detection read them): one request for the rest.
    let cache = ReadCache::with_head(&source, &bytes[..64 << 10], 64 << 10);
    Index::from_data_with(&cache, &ReadOptions::new()).unwrap();
    assert_eq!(source.stats().requests, 1);
}

#[test]
fn the_cache_limit_bounds_the_index_held() {
    let bytes = big_index(3000);
    let cache = ReadCache::new(&bytes[..]).with_limit(80 << 10);
    let err = Index::from_data_with(&cache, &ReadOptions::new()).unwrap_err();
    match err.kind() {
        ErrorKind::Io(io) => assert_eq!(io.source.kind(), io::ErrorKind::OutOfMemory),
        other => panic!("{other:?}"),
    }
    assert!(cache.held() <= 80 << 10);
}

#[test]
fn a_stream_of_zeros_is_refused_on_its_first_bytes() {
    let zeros = StreamSource::new(io::repeat(0), 1 << 30);
    let cache = ReadCache::new(zeros);
    let err = Index::from_data_with(&cache, &ReadOptions::new()).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Layout(_)), "{err}");
    assert!(cache.held() <= 64 << 10);
}

/// A source that counts `read_ranges` calls and the ranges in them.
struct Calls<'a> {
    inner: &'a [u8],
    calls: AtomicU64,
    ranges: AtomicU64,
}

impl ByteSource for Calls<'_> {
    fn len(&self) -> io::Result<u64> {
        ByteSource::len(self.inner)
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        self.read_ranges(&[range]).map(|mut v| v.remove(0))
    }
    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Cow<'_, [u8]>>> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.ranges
            .fetch_add(ranges.len() as u64, Ordering::Relaxed);
        self.inner.read_ranges(ranges)
    }
}

#[test]
fn get_many_reads_each_shard_once_in_the_keys_order() {
    let index = golden("strict/train.taridx");
    let shards: Vec<Vec<u8>> = (0..3)
        .map(|i| golden(&format!("train_000{i}.tar")))
        .collect();
    let index_source = Counting::new(&index[..]);
    let sources: Vec<Calls<'_>> = shards
        .iter()
        .map(|s| Calls {
            inner: &s[..],
            calls: AtomicU64::new(0),
            ranges: AtomicU64::new(0),
        })
        .collect();
    let reader = Reader::open(&index_source, sources.iter().collect()).unwrap();
    assert_eq!(index_source.stats().requests, 1);
    // Every sample the index has (canonical and crash stems), and an absent one.
    let parsed = reader.index();
    let mut keys: Vec<String> = parsed.crash_stems().map(String::from).collect();
    keys.extend((0..40).map(|i| format!("sample{i:06}")));
    keys.retain(|k| !reader.lookup(k).is_empty());
    keys.push("absent".into());
    assert!(keys.len() > 3);
    let batch = reader.get_many(&keys).unwrap();
    let members: u64 = keys.iter().map(|k| reader.lookup(k).len() as u64).sum();
    let touched = sources
        .iter()
        .filter(|s| s.calls.load(Ordering::Relaxed) > 0)
        .count();
    assert!(touched > 1);
    for s in &sources {
        assert!(s.calls.load(Ordering::Relaxed) <= 1, "one call per shard");
    }
    let ranges: u64 = sources
        .iter()
        .map(|s| s.ranges.load(Ordering::Relaxed))
        .sum();
    assert_eq!(ranges, members, "one range per member");
    assert_eq!(batch.len(), keys.len());
    assert!(batch.last().unwrap().is_empty());
    for (key, got) in keys.iter().zip(&batch) {
        let one = reader.sample(key).unwrap();
        let a: Vec<_> = got
            .iter()
            .map(|p| (*p.entry(), p.payload().to_vec()))
            .collect();
        let b: Vec<_> = one
            .iter()
            .map(|p| (*p.entry(), p.payload().to_vec()))
            .collect();
        assert!(!a.is_empty() || key == "absent", "{key}");
        assert_eq!(a, b, "{key}");
    }
}
