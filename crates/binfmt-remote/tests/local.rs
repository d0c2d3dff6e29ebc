//! `file://` and in-memory stores: the `ByteSource` contract, pinning, threads, and
//! configuration errors. No server needed.
#![allow(clippy::unwrap_used)]

use std::io;
use std::sync::Arc;

use binfmt_core::source::{ByteSource, PastEnd};
use binfmt_remote::object_store::memory::InMemory;
use binfmt_remote::object_store::path::Path as StorePath;
use binfmt_remote::object_store::{ObjectStore, ObjectStoreExt};
use binfmt_remote::{Options, Problem, RemoteError, RemoteSource};
use binfmt_test_support::servers::{TempDir, pattern};

fn file_url(path: &std::path::Path) -> String {
    format!("file://{}", path.display())
}

fn past_end_len(e: &io::Error) -> Option<u64> {
    e.get_ref()?.downcast_ref::<PastEnd>().map(|p| p.len)
}

/// A new directory (tagged `tag`) holding the file `name` of `pattern(len, seed)`: the
/// directory (removed when dropped), the file and its bytes.
fn sample(tag: &str, name: &str, len: usize, seed: u64) -> (TempDir, std::path::PathBuf, Vec<u8>) {
    let dir = TempDir::new(tag);
    let data = pattern(len, seed);
    let path = dir.path().join(name);
    std::fs::write(&path, &data).unwrap();
    (dir, path, data)
}

/// A tiny deterministic generator for ranges.
struct Rng<I>(I);
impl<I: Iterator<Item = u64>> Rng<I> {
    fn below(&mut self, n: u64) -> u64 {
        self.0.next().unwrap() % n.max(1)
    }
}

#[test]
fn file_url_behaves_like_the_bytes_themselves() {
    let (_dir, path, data) = sample("local", "sample.bin", 300_000, 11);
    let len = data.len() as u64;
    let mut rng = Rng(binfmt_test_support::noise::xorshift(0x5eed));
    for read_ahead in [0, 4096, 65536] {
        let src = RemoteSource::open_with(
            &file_url(&path),
            &Options::new().with_read_ahead(read_ahead),
        )
        .unwrap();
        let reference: &[u8] = &data;
        assert_eq!(
            src.read_head(1000).unwrap(),
            reference.read_head(1000).unwrap()
        );
        assert_eq!(
            src.read_tail(777).unwrap(),
            reference.read_tail(777).unwrap()
        );
        assert_eq!(src.len().unwrap(), len);
        for _ in 0..200 {
            let start = rng.below(len + 10);
            let end = start + rng.below(5000);
            let ours = src.read_range(start..end);
            let want = reference.read_range(start..end);
            match (ours, want) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{start}..{end}"),
                (Err(a), Err(b)) => {
                    assert_eq!(a.kind(), b.kind(), "{start}..{end}");
                    assert_eq!(past_end_len(&a), Some(len), "{start}..{end}: {a}");
                }
                (a, b) => panic!("{start}..{end}: {a:?} vs {b:?}"),
            }
        }
        let ranges: Vec<_> = (0..50)
            .map(|_| {
                let s = rng.below(len - 100);
                s..s + rng.below(100)
            })
            .collect();
        assert_eq!(
            src.read_ranges(&ranges).unwrap(),
            reference.read_ranges(&ranges).unwrap()
        );
        // Past the end: the first range past the end is reported with the length.
        let e = src.read_ranges(&[0..10, len - 5..len + 5]).unwrap_err();
        assert_eq!(past_end_len(&e), Some(len));
    }
}

#[test]
fn read_ranges_reports_the_first_failing_range_in_the_callers_order() {
    let (_dir, path, _) = sample("order", "f.bin", 1000, 3);
    let url = file_url(&path);
    // Nothing known yet: the ranges are fetched, then checked in the caller's order.
    let src = RemoteSource::open_with(&url, &Options::new().with_coalesce_gap(0)).unwrap();
    let e = src
        .read_ranges(&[995..1010, 10..20, 2000..2010])
        .unwrap_err();
    let past = e.get_ref().unwrap().downcast_ref::<PastEnd>().unwrap();
    assert_eq!((past.range.clone(), past.len), (995..1010, 1000));
    let src = RemoteSource::open_with(&url, &Options::new().with_coalesce_gap(0)).unwrap();
    let e = src.read_ranges(&[2000..2010, 995..1010]).unwrap_err();
    let past = e.get_ref().unwrap().downcast_ref::<PastEnd>().unwrap();
    assert_eq!(past.range, 2000..2010);
}

#[test]
fn head_and_tail_of_short_and_empty_objects() {
    let dir = TempDir::new("short");
    let short = dir.path().join("short.bin");
    std::fs::write(&short, b"abc").unwrap();
    let src = RemoteSource::open_with(&file_url(&short), &Options::new()).unwrap();
    assert_eq!(&*src.read_head(256).unwrap(), b"abc");
    let (at, tail) = src.read_tail(256).unwrap();
    assert_eq!((at, &*tail), (0, &b"abc"[..]));

    let empty = dir.path().join("empty.bin");
    std::fs::write(&empty, b"").unwrap();
    let src = RemoteSource::open_with(&file_url(&empty), &Options::new()).unwrap();
    assert!(src.read_head(256).unwrap().is_empty());
    assert_eq!(src.len().unwrap(), 0);
    let src = RemoteSource::open_with(&file_url(&empty), &Options::new()).unwrap();
    let (at, tail) = src.read_tail(256).unwrap();
    assert_eq!((at, tail.len()), (0, 0));
    assert!(src.is_empty().unwrap());
    assert_eq!(past_end_len(&src.read_range(0..1).unwrap_err()), Some(0));
}

#[test]
fn read_ahead_serves_the_next_structure_from_memory() {
    let (_dir, path, data) = sample("ahead", "f.bin", 200_000, 5);
    let options = Options::new().with_read_ahead(65536);
    let src = RemoteSource::open_with(&file_url(&path), &options).unwrap();
    src.read_head(64).unwrap();
    // The "descriptors" right after the header, and the length: no request.
    assert_eq!(&*src.read_range(64..64 + 640).unwrap(), &data[64..704]);
    assert_eq!(src.len().unwrap(), 200_000);
    let s = src.stats();
    assert_eq!((s.requests, s.bytes, s.cache_hits), (1, 65536, 1));
    // The trailer, then the directory before it.
    src.read_tail(22).unwrap();
    let parts = src
        .read_ranges(&[199_000..199_100, 100_000..100_010])
        .unwrap();
    assert_eq!(&*parts[0], &data[199_000..199_100]);
    assert_eq!(&*parts[1], &data[100_000..100_010]);
    let s = src.stats();
    assert_eq!((s.requests, s.cache_hits), (3, 2), "{s:?}");
    assert_eq!(binfmt_core::source::Stats::from(s).requests, 3);
    assert_eq!(s.http_requests, 0, "no HTTP for file://");
}

/// The tail asked with the head (`with_tail_ahead`): both go in the first round trip, and
/// the end records and a directory before them are then read from what came.
#[test]
fn a_tail_ahead_comes_with_the_head() {
    let (_dir, path, data) = sample("tail", "t.bin", 200_000, 6);
    let options = Options::new()
        .with_read_ahead(65536)
        .with_tail_ahead(70_000);
    let src = RemoteSource::open_with(&file_url(&path), &options).unwrap();
    assert_eq!(&*src.read_head(64).unwrap(), &data[..64]);
    assert_eq!(src.stats().requests, 2);
    let (at, tail) = src.read_tail(22).unwrap();
    assert_eq!((at, &*tail), (199_978, &data[199_978..]));
    let parts = src
        .read_ranges(&[131_000..131_100, 150_000..150_010])
        .unwrap();
    assert_eq!(&*parts[0], &data[131_000..131_100]);
    assert_eq!(&*parts[1], &data[150_000..150_010]);
    assert_eq!(src.stats().requests, 2, "{:?}", src.stats());
    // Off by default: the head alone.
    let src = RemoteSource::open_with(&file_url(&path), &Options::new()).unwrap();
    src.read_head(64).unwrap();
    assert_eq!(src.stats().requests, 1);
}

#[test]
fn a_changed_object_is_refused_not_mixed() {
    let store = Arc::new(InMemory::new());
    let path = StorePath::from("obj");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(store.put(&path, pattern(1000, 1).into()))
        .unwrap();
    let src = RemoteSource::from_store(
        store.clone() as Arc<dyn ObjectStore>,
        path.clone(),
        "memory:///obj",
        &Options::new().with_read_ahead(0),
    );
    assert_eq!(&*src.read_head(10).unwrap(), &pattern(1000, 1)[..10]);
    let pinned = src.pinned().unwrap();
    assert_eq!(pinned.len, 1000);
    assert!(pinned.e_tag.is_some());
    rt.block_on(store.put(&path, pattern(1000, 2).into()))
        .unwrap();
    let e = src.read_range(500..510).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::StaleNetworkFileHandle);
    let r = RemoteError::from_io(&e).unwrap();
    assert!(matches!(r.problem(), Problem::Changed(_)), "{r:?}");
    assert!(
        e.to_string()
            .starts_with("memory:///obj: the object changed while it was being read"),
        "{e}"
    );
    assert!(!e.to_string().contains('\n'));
}

#[test]
fn usable_from_plain_threads_and_inside_a_runtime() {
    let (_dir, path, data) = sample("threads", "f.bin", 500_000, 9);
    let src = Arc::new(RemoteSource::open_with(&file_url(&path), &Options::new()).unwrap());
    let handles: Vec<_> = (0..8u64)
        .map(|t| {
            let src = Arc::clone(&src);
            let data = data.clone();
            std::thread::spawn(move || {
                for i in 0..20u64 {
                    let start = (t * 60_000 + i * 1000) % 490_000;
                    let got = src.read_range(start..start + 1000).unwrap();
                    assert_eq!(&*got, &data[start as usize..start as usize + 1000]);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    // From a thread of another tokio runtime: blocks it, but neither panics nor deadlocks.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let inside = rt.block_on(async { src.read_range(10..20).map(|c| c.into_owned()) });
    assert_eq!(inside.unwrap(), &data[10..20]);
}

#[test]
fn bad_urls_and_settings_are_one_line_invalid_input() {
    for (url, options, want) in [
        (
            "ftp://example.com/x",
            Options::new(),
            "ftp://example.com/x: not a URL binfmt can read",
        ),
        (
            "no scheme at all",
            Options::new(),
            "no scheme at all: not a URL",
        ),
        (
            "s3://bucket/key",
            Options::new().with_store_option("no_such_setting", "1"),
            "s3://bucket/key: \"no_such_setting\" is not a setting of this store",
        ),
        (
            "https://example.com/x.bin?X-Amz-Signature=abc",
            Options::new(),
            "https://example.com/x.bin?…: URLs with a query string (presigned URLs) cannot be read",
        ),
        (
            "file:///tmp/x",
            Options::new().with_store_option("aws_region", "x"),
            "file:///tmp/x: file:// URLs take no store options",
        ),
    ] {
        let e = RemoteSource::open_with(url, &options).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
        assert!(e.to_string().starts_with(want), "{e}");
        assert!(!e.to_string().contains('\n'), "{e}");
    }
    let e = RemoteSource::open_with(
        "https://user:pw@example.com/a?sig=1",
        &Options::new().with_store_option("nope", "1"),
    )
    .unwrap_err();
    assert!(
        e.to_string().starts_with("https://example.com/a?…: "),
        "{e}"
    );
}

#[test]
fn sources_and_errors_cross_threads() {
    fn send_sync<T: Send + Sync + 'static>() {}
    send_sync::<RemoteSource>();
    send_sync::<RemoteError>();
    send_sync::<Options>();
}

#[test]
fn missing_local_file_is_not_found() {
    let dir = TempDir::new("missing");
    let url = file_url(&dir.path().join("nope.bin"));
    let src = RemoteSource::open_with(&url, &Options::new()).unwrap();
    let e = src.read_head(10).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::NotFound);
    assert_eq!(e.to_string(), format!("{url}: not found"));
}

/// `stream_ranges`: adjacent ranges in one GET per run, handed over range by range, within
/// the budget; past the end the stream ends with an error; ranges scattered over more
/// runs than a stream reads (or overlapping) are left to the cache's windows.
#[test]
fn stream_ranges_hands_over_each_range_of_one_request() {
    let (_dir, path, data) = sample("stream", "s.bin", 400_000, 5);
    let url = file_url(&path);
    let src = RemoteSource::open_with(&url, &Options::new()).unwrap();
    assert!(src.streams());
    let ranges: Vec<core::ops::Range<u64>> = (0..40u64)
        .map(|i| 1000 + i * 9000..1000 + (i + 1) * 9000)
        .collect();
    let before = src.stats().requests;
    let mut parts = src.stream_ranges(ranges.clone(), 20_000).unwrap();
    for r in &ranges {
        let part = parts.next().unwrap().unwrap();
        assert_eq!(
            part,
            data[usize::try_from(r.start).unwrap()..usize::try_from(r.end).unwrap()]
        );
    }
    assert!(parts.next().is_none());
    assert_eq!(src.stats().requests - before, 1);
    // Past the end: the ranges before it, then an error.
    let mut parts = src
        .stream_ranges(vec![390_000..399_000, 399_000..401_000], 1 << 20)
        .unwrap();
    assert_eq!(parts.next().unwrap().unwrap(), data[390_000..399_000]);
    assert!(parts.next().unwrap().is_err());
    // Five runs apart (further than the coalescing gap), or overlapping: not streamed.
    let apart: Vec<_> = (0..5u64).map(|i| i * 50_000..i * 50_000 + 10).collect();
    let exact = RemoteSource::open_with(&url, &Options::new().with_coalesce_gap(0)).unwrap();
    assert!(exact.stream_ranges(apart.clone(), 1 << 20).is_none());
    assert!(exact.stream_ranges(apart[..4].to_vec(), 1 << 20).is_some());
    assert!(src.stream_ranges(vec![0..10, 5..20], 1 << 20).is_none());
    // A consumer that stops early: the request is dropped, nothing hangs.
    let mut parts = src.stream_ranges(ranges, 9000).unwrap();
    assert!(parts.next().unwrap().is_ok());
    drop(parts);
}

/// `with_whole_object`: the head read is one GET of the whole object, and the streams of
/// ranges after it are cut from the rest of it (ranges inside the head, holes between
/// ranges, the last byte): one request in all. A stream it cannot serve drops it.
#[test]
fn a_whole_object_source_streams_from_its_first_request() {
    let (_dir, path, data) = sample("whole", "w.bin", 3 << 20, 9);
    let url = file_url(&path);
    let whole = Options::new().with_whole_object(true);
    let cut = |r: &core::ops::Range<u64>| {
        data[usize::try_from(r.start).unwrap()..usize::try_from(r.end).unwrap()].to_vec()
    };
    let src = RemoteSource::open_with(&url, &whole).unwrap();
    assert_eq!(&*src.read_head(256).unwrap(), &data[..256]);
    assert_eq!(src.len().unwrap(), 3 << 20);
    let mut ranges = vec![100..300, 60_000..70_000, 70_000..70_001];
    ranges.extend((0..40u64).map(|i| 100_000 + i * 70_000..100_000 + i * 70_000 + 65_000));
    ranges.push((3 << 20) - 10..3 << 20);
    // Announced in two batches (as the cache streams them): both from the one response,
    // the second asked before the first is read.
    let first = src.stream_ranges(ranges[..20].to_vec(), 1 << 20).unwrap();
    let second = src.stream_ranges(ranges[20..].to_vec(), 1 << 20).unwrap();
    let parts: Vec<Vec<u8>> = first.chain(second).map(Result::unwrap).collect();
    assert_eq!(parts, ranges.iter().map(cut).collect::<Vec<_>>());
    assert_eq!(src.stats().requests, 1);
    // A stream of ranges before the ones served is a GET of its own.
    let again = vec![0..10u64, 20..30];
    let parts: Vec<Vec<u8>> = src
        .stream_ranges(again.clone(), 1 << 20)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(parts, again.iter().map(cut).collect::<Vec<_>>());
    assert_eq!(src.stats().requests, 2);

    // Ranges mostly holes, or out of order: the rest is dropped, the stream is a GET.
    let src = RemoteSource::open_with(&url, &whole).unwrap();
    assert_eq!(&*src.read_head(256).unwrap(), &data[..256]);
    let sparse = (2 << 20)..(2 << 20) + 10;
    let parts: Vec<Vec<u8>> = src
        .stream_ranges(vec![sparse.clone()], 1 << 20)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(parts, [cut(&sparse)]);
    assert_eq!(src.stats().requests, 2);

    // Reads in order after the head (a parse reading on past it) come from the response
    // too; a read before them is a GET of its own and leaves the response to the rest.
    let src = RemoteSource::open_with(&url, &whole).unwrap();
    assert_eq!(&*src.read_head(256).unwrap(), &data[..256]);
    assert_eq!(&*src.read_range(300..5000).unwrap(), &data[300..5000]);
    let two = src.read_ranges(&[6000..7000, 8000..9000]).unwrap();
    assert_eq!((&*two[0], &*two[1]), (&data[6000..7000], &data[8000..9000]));
    assert_eq!(src.stats().requests, 1);
    assert_eq!(&*src.read_range(10..20).unwrap(), &data[10..20]);
    assert_eq!(&*src.read_range(100..5000).unwrap(), &data[100..5000]);
    assert_eq!(src.stats().requests, 2);
    let tail: Vec<Vec<u8>> = src
        .stream_ranges(vec![9000..15_000, 15_000..20_000], 1 << 20)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(tail, [&data[9000..15_000], &data[15_000..20_000]]);
    assert_eq!(src.stats().requests, 2);
    // A read past a stream the reader has not read yet is a GET of its own: queued behind
    // the stream, whose budget holds the response back, it would never come.
    let src = RemoteSource::open_with(&url, &whole).unwrap();
    assert_eq!(&*src.read_head(256).unwrap(), &data[..256]);
    let chunks: Vec<_> = (0..20u64)
        .map(|i| 1000 + i * 100_000..1000 + (i + 1) * 100_000)
        .collect();
    let mut unread = src.stream_ranges(chunks, 150_000).unwrap();
    assert_eq!(
        &*src.read_range(2_500_000..2_500_100).unwrap(),
        &data[2_500_000..2_500_100]
    );
    assert_eq!(src.stats().requests, 2);
    assert_eq!(unread.next().unwrap().unwrap(), &data[1000..101_000]);
    // A short object is read whole by the head read; an empty one is empty.
    let (_d, short, bytes) = sample("whole-short", "s.bin", 1000, 3);
    let src = RemoteSource::open_with(&file_url(&short), &whole).unwrap();
    assert_eq!(&*src.read_head(64 << 10).unwrap(), &bytes[..]);
    let (_e, empty, _) = sample("whole-empty", "e.bin", 0, 3);
    let src = RemoteSource::open_with(&file_url(&empty), &whole).unwrap();
    assert!(src.read_head(64 << 10).unwrap().is_empty());
    // Past the end of the object: the ranges before it, then an error.
    let src = RemoteSource::open_with(&url, &whole).unwrap();
    src.read_head(256).unwrap();
    let mut parts = src
        .stream_ranges(vec![1000..2000, (3 << 20) - 5..(3 << 20) + 5], 1 << 20)
        .unwrap_or_else(|| panic!("not streamed"));
    assert_eq!(parts.next().unwrap().unwrap(), data[1000..2000]);
    assert!(parts.next().unwrap().is_err());
    // Dropped before any stream: nothing hangs.
    let src = RemoteSource::open_with(&url, &whole).unwrap();
    src.read_head(256).unwrap();
    drop(src);
}
