//! One view, two kinds of data: every fixture parsed over `&[u8]` and over
//! `&ReadCache<Counting<&[u8]>>` gives the same answers from every accessor (and the same
//! first error for damaged and hostile inputs), and the request plan over a cache.
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used, clippy::panic, clippy::std_instead_of_core)]

mod common;

use std::path::Path;

use binfmt_core::cache::ReadCache;
use binfmt_core::data::Data;
use binfmt_core::source::Counting;
use binfmt_test_support::rounds::Rounds;
use taco_header::{Archive, Entries, Entry, Error, HEAD_SIZE, Member, ReadOptions, Reader, Writer};

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x != "json" && x != "md"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    for target in ["taco_archive", "taco_header"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fuzz/regressions")
            .join(target);
        if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries {
                let p = e.unwrap().path();
                let name = format!("{target}/{}", p.file_name().unwrap().to_string_lossy());
                out.push((name, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// An error as compared: its message and offset.
type Failure = (String, Option<u64>);
/// A listing with the first error in it, comparable across data kinds.
type Listing<'a> = (Vec<Member<'a>>, Option<Failure>);
/// A central-directory entry as compared: offset, name, sizes, local header offset.
type Central = Result<(u64, Vec<u8>, u64, u64, u64), Failure>;

fn first_error(e: &Error) -> Failure {
    (e.to_string(), e.offset())
}

/// Everything the view says, as comparable values.
#[derive(Debug, PartialEq)]
struct Answers<'a> {
    entries: Entries,
    count: usize,
    crc32: u32,
    warnings: Vec<Failure>,
    directory: taco_header::Directory,
    size: u64,
    central: Vec<Central>,
    members: Listing<'a>,
    data: Vec<Result<Vec<u8>, Failure>>,
    entry_bytes: Vec<Result<Vec<u8>, Failure>>,
    patch: taco_header::Patch,
}

fn answers<'d, D: Data<'d>>(archive: &Archive<'d, D>) -> Answers<'d>
where
    Error: From<D::Error>,
{
    let mut listed = Vec::new();
    let mut error = None;
    for m in archive.members() {
        match m {
            Ok(m) => listed.push(m),
            Err(e) => {
                error = Some(first_error(&e));
                break;
            }
        }
    }
    let header = archive.header();
    Answers {
        entries: header.entries(),
        count: header.count(),
        crc32: header.crc32(),
        warnings: archive.warnings().map(|e| first_error(&e)).collect(),
        directory: *archive.directory(),
        size: archive.size(),
        central: archive
            .central_entries()
            .map(|e| {
                e.map(|e| {
                    (
                        e.offset,
                        e.name.to_vec(),
                        e.size,
                        e.compressed_size,
                        e.local_header_offset,
                    )
                })
                .map_err(|e| first_error(&e))
            })
            .collect(),
        data: listed
            .iter()
            .map(|m| {
                archive
                    .read_data(m)
                    .map(|b| b.into_owned())
                    .map_err(|e| first_error(&e))
            })
            .collect(),
        entry_bytes: header
            .entries()
            .as_slice()
            .iter()
            .map(|&e| {
                archive
                    .read_entry(e)
                    .map(|b| b.into_owned())
                    .map_err(|e| first_error(&e))
            })
            .collect(),
        members: (listed, error),
        patch: archive.patch(&Entries::from_slice(&[Entry::new(1, 2)]).unwrap()),
    }
}

/// Parses `bytes` both ways under `options` and checks that they agree.
fn agree(name: &str, bytes: &[u8], options: &ReadOptions) -> bool {
    let slice = Archive::parse_with(bytes, options);
    let source = Counting::new(bytes);
    let cache = ReadCache::new(&source);
    let ranged = Archive::from_data_with(&cache, options);
    match (slice, ranged) {
        (Ok(s), Ok(r)) => {
            assert_eq!(answers(&s), answers(&r), "{name}");
            true
        }
        (Err(s), Err(r)) => {
            assert_eq!(first_error(&s), first_error(&r), "{name}");
            false
        }
        (s, r) => panic!("{name}: slice {:?}, cache {:?}", s.err(), r.err()),
    }
}

const OPTIONS: [ReadOptions; 3] = [
    ReadOptions::new(),
    ReadOptions::new().checksums(false),
    ReadOptions::new().lenient(true).checksums(false),
];

#[test]
fn every_fixture_reads_the_same_over_a_slice_and_over_a_cache() {
    let mut valid = 0;
    for (name, bytes) in fixtures() {
        for options in &OPTIONS {
            valid += usize::from(agree(&name, &bytes, options));
        }
    }
    // The six TACO fixtures under each options value, at least.
    assert!(valid >= 18, "{valid}");
}

#[test]
fn damaged_and_hostile_inputs_fail_the_same_way_over_both() {
    for (name, bytes) in fixtures() {
        if !bytes.starts_with(b"PK") {
            continue;
        }
        // Every truncation and every flipped byte.
        for len in 0..bytes.len() {
            agree(
                &format!("{name}[..{len}]"),
                &bytes[..len],
                &ReadOptions::new(),
            );
        }
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0xff;
            for options in &OPTIONS {
                agree(&format!("{name} ^ byte {at}"), &bad, options);
            }
        }
    }
}

#[test]
fn the_reader_and_its_view_agree_with_the_slice() {
    for (name, bytes) in fixtures() {
        let Ok(slice) = Archive::parse(&bytes) else {
            continue;
        };
        let source = Counting::new(&bytes[..]);
        let reader = Reader::open(&source).unwrap();
        let view = reader.view().unwrap();
        assert_eq!(answers(&slice), answers(&view), "{name}");
        let before = source.stats();
        // Rebuilt from the cache: no I/O.
        let again = reader.view().unwrap();
        assert_eq!(answers(&slice).members, answers(&again).members, "{name}");
        let members = reader.members().unwrap();
        assert_eq!(
            members.iter().collect::<Vec<_>>(),
            answers(&slice).members.0,
            "{name}"
        );
        assert_eq!(source.stats().requests, before.requests, "{name}");
    }
}

/// An archive of `n` small members.
fn archive(n: u32) -> Vec<u8> {
    let mut b = Writer::new(Entries::from_slice(&[Entry::new(157, 13)]).unwrap());
    for i in 0..n {
        b.add_bytes(format!("m/{i:06}"), (i % 10_000).to_le_bytes().to_vec());
    }
    b.to_vec().unwrap()
}

#[test]
fn the_header_alone_is_one_request_of_at_most_256_bytes() {
    for bytes in [archive(3), archive(70_000)] {
        let source = Counting::new(&bytes[..]);
        let entries = taco_header::read_header(&source).unwrap();
        assert_eq!(entries.as_slice(), &[Entry::new(157, 13)]);
        assert_eq!(source.stats().requests, 1);
        assert!(source.stats().bytes <= HEAD_SIZE);
    }
}

#[test]
fn a_listing_over_a_cache_is_at_most_two_dependent_round_trips_then_one_batch() {
    // (members, round trips to parse, requests to parse)
    for (n, trips, requests) in [(3, 1, 1), (70_000, 2, 3)] {
        let bytes = archive(n);
        let calls = Rounds::new(&bytes[..]);
        let source = Counting::new(&calls);
        let cache = ReadCache::new(&source);
        let view = Archive::from_data(&cache).unwrap();
        // The head and the tail in one batch (one range when they are close), then the
        // central directory when the tail does not hold it.
        assert_eq!(calls.rounds(), trips, "{n} members");
        assert_eq!(source.stats().requests, requests, "{n} members");
        let members: Vec<_> = view.members().collect::<Result<_, _>>().unwrap();
        assert_eq!(members.len(), n as usize + 1);
        // The local headers: one batch, coalesced into one range.
        let extra = if n == 3 { 0 } else { 1 };
        assert_eq!(calls.rounds(), trips + extra, "{n} members");
        assert_eq!(source.stats().requests, requests + extra, "{n} members");
        assert_eq!(
            members,
            Archive::parse(&bytes)
                .unwrap()
                .members()
                .collect::<Result<Vec<_>, _>>()
                .unwrap()
        );
    }
}

#[test]
fn large_members_cost_one_range_each_in_one_batch() {
    let bytes = common::four_large_members();
    let calls = Rounds::new(&bytes[..]);
    let source = Counting::new(&calls);
    let cache = ReadCache::new(&source);
    let view = Archive::from_data(&cache).unwrap();
    // The head and the tail, apart: two ranges in one batch.
    assert_eq!((calls.rounds(), source.stats().requests), (1, 2));
    assert_eq!(view.members().filter(Result::is_ok).count(), 5);
    // The first member's local header is in the head; the next three are 100 KB apart.
    assert_eq!((calls.rounds(), source.stats().requests), (2, 2 + 3));
}

#[test]
fn the_reader_keeps_its_first_bytes_and_its_directory() {
    let bytes = archive(70_000);
    let calls = Rounds::new(&bytes[..]);
    let reader = Reader::open(&calls).unwrap();
    assert_eq!(calls.rounds(), 1);
    reader.central_directory().unwrap();
    // The tail, then the central directory.
    assert_eq!(calls.rounds(), 3);
    let members = reader.members().unwrap();
    assert_eq!(members.len(), 70_001);
    // One batch of local headers; the directory was kept.
    assert_eq!(calls.rounds(), 4);
    reader.view().unwrap();
    reader.members().unwrap();
    assert_eq!(calls.rounds(), 4);
}
