//! `Reader`: the request plan (the index in one request, one request per member, the
//! members of a shard in one `read_ranges` call), measured with `Counting`; names
//! verified from the same bytes as the payload.
// Integration tests use the `std` API (builder, files, sources).
#![cfg(feature = "std")]

mod support;

use core::ops::Range;
use core::sync::atomic::{AtomicU64, Ordering};
use std::borrow::Cow;
use std::io;

use binfmt_core::Layout;
use binfmt_core::source::{ByteSource, Counting, FileSource};
use support::{end, golden_path as golden, long_name, member, pax};
use taridx::{BuildOptions, ErrorKind, ReadOptions, Reader, Writer};

/// A source that counts `read_ranges` calls (`Counting` counts the ranges).
struct Calls<S> {
    inner: Counting<S>,
    calls: AtomicU64,
}

impl<S: ByteSource> Calls<S> {
    fn new(inner: S) -> Self {
        Calls {
            inner: Counting::new(inner),
            calls: AtomicU64::new(0),
        }
    }
    /// (`read_ranges` calls, requests).
    fn counts(&self) -> (u64, u64) {
        (
            self.calls.load(Ordering::Relaxed),
            self.inner.stats().requests,
        )
    }
}

impl<S: ByteSource> ByteSource for Calls<S> {
    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        self.inner.read_range(range)
    }
    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Cow<'_, [u8]>>> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.inner.read_ranges(ranges)
    }
}

#[test]
fn one_request_for_the_index_and_one_per_member() {
    let index = std::fs::read(golden("strict/train.taridx")).unwrap();
    let shards: Vec<Vec<u8>> = (0..3)
        .map(|i| std::fs::read(golden(&format!("train_000{i}.tar"))).unwrap())
        .collect();
    let index_source = Counting::new(&index[..]);
    let reader = Reader::open(
        &index_source,
        shards.iter().map(|s| Calls::new(&s[..])).collect(),
    )
    .unwrap();
    assert_eq!(index_source.stats().requests, 1);
    assert_eq!(index_source.stats().bytes, index.len() as u64);

    // Long names (GNU `L`, pax `path`, ustar prefix) are verified from the bytes that
    // also hold the payload.
    for stem in support::LONG_NAME_STEMS {
        let before: Vec<(u64, u64)> = reader.shards().iter().map(Calls::counts).collect();
        let members = reader.sample(stem).unwrap();
        assert_eq!(members.len(), 2, "{stem}");
        let fid = usize::from(members[0].entry().fid);
        let after = reader.shards()[fid].counts();
        assert_eq!(
            (after.0 - before[fid].0, after.1 - before[fid].1),
            (1, 2),
            "{stem}: one read_ranges call, one request per member"
        );
        for m in &members {
            let e = m.entry();
            let start = usize::try_from(e.payload_offset().unwrap()).unwrap();
            let want = &shards[usize::from(e.fid)][start..start + usize::try_from(e.size).unwrap()];
            assert!(m.payload() == want, "{stem}");
            assert!(m.clone().into_payload() == want);
        }
    }
    // sample000001 is in shards 0 (3 members) and 2 (2): one call to each.
    let before: Vec<(u64, u64)> = reader.shards().iter().map(Calls::counts).collect();
    assert_eq!(reader.sample("sample000001").unwrap().len(), 5);
    let after: Vec<(u64, u64)> = reader.shards().iter().map(Calls::counts).collect();
    let delta: Vec<(u64, u64)> = before
        .iter()
        .zip(&after)
        .map(|(b, a)| (a.0 - b.0, a.1 - b.1))
        .collect();
    assert_eq!(delta, [(1, 3), (0, 0), (1, 2)]);
}

#[test]
fn a_colliding_absent_stem_is_found_absent_in_the_same_requests() {
    // Shard 0 of `clean` alone: 1aefceb10cb92620 is absent but has the XXH64 of the
    // indexed 95285a4520319586.
    let shard = std::fs::read(golden("clean_0000.tar")).unwrap();
    let mut b = Writer::new(BuildOptions::strict());
    b.add("clean_0000.tar", &shard).unwrap();
    let index = b.finish().unwrap().index.to_vec().unwrap();
    let reader = Reader::open(&index[..], vec![Calls::new(&shard[..])]).unwrap();
    assert_eq!(reader.lookup("1aefceb10cb92620").len(), 3);
    assert!(reader.sample("1aefceb10cb92620").unwrap().is_empty());
    assert_eq!(reader.shards()[0].counts(), (1, 3));
    assert_eq!(reader.sample("95285a4520319586").unwrap().len(), 3);
    // Without verification the keyhash is trusted.
    let reader = reader.verify_names(false);
    assert_eq!(reader.sample("1aefceb10cb92620").unwrap().len(), 3);
}

#[test]
fn damage_elsewhere_does_not_matter_and_a_short_shard_is_truncation() {
    let long = format!("{}/deep.jpg", "x".repeat(140));
    let mut shard = member("a.jpg", b"A");
    shard.extend(pax(b'x', &[("path", long.as_bytes())]));
    shard.extend(member("ignored.jpg", b"DEEP"));
    shard.extend(long_name(&format!("{}/gnu.jpg", "y".repeat(140))));
    shard.extend(member("ignored2.jpg", b"GNU"));
    shard.extend(end());
    let mut b = Writer::new(BuildOptions::strict());
    b.add("s_0000.tar", &shard).unwrap();
    let index = b.finish().unwrap().index.to_vec().unwrap();
    let mut damaged = shard.clone();
    damaged[148] ^= 1; // a.jpg's header checksum
    let reader = Reader::open(&index[..], vec![Counting::new(&damaged[..])]).unwrap();
    let deep = reader.sample("deep").unwrap();
    assert_eq!(deep[0].payload(), b"DEEP");
    assert_eq!(reader.sample("gnu").unwrap()[0].payload(), b"GNU");
    assert_eq!(reader.shards()[0].stats().requests, 2);
    let e = reader.sample("a").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::TarChecksum { shard: 0, .. }));
    assert_eq!(e.offset(), Some(0));

    // A shard cut inside a payload: the input's fault, at the member's range.
    let cut = &shard[..1024 + 512 + 1024 + 2];
    let reader = Reader::open(&index[..], vec![cut]).unwrap();
    let e = reader.sample("deep").unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Layout(Layout::Truncated { .. })),
        "{e}"
    );
    // A row of a shard that was not given.
    let reader = Reader::<&[u8]>::open(&index[..], vec![]).unwrap();
    assert!(matches!(
        reader.sample("a").unwrap_err().kind(),
        ErrorKind::NoShard { fid: 0, .. }
    ));
}

#[test]
fn files_are_read_with_positioned_reads() {
    let index = golden("strict/clean.taridx");
    let shards = taridx::fs::fold_shards(golden(""), "clean").unwrap();
    let reader = taridx::fs::open_with_shards(&index, &shards, &ReadOptions::new()).unwrap();
    let jpg = reader
        .sample("sample000002")
        .unwrap()
        .into_iter()
        .find(|m| reader.extension(m.entry().extid) == Some("jpg"))
        .unwrap();
    assert_eq!(jpg.payload().len(), 511);
    let shard0 = std::fs::read(&shards[0]).unwrap();
    assert!(jpg.payload() == &shard0[4608..4608 + 511]);
    let _: &Reader<FileSource> = &reader;
}
