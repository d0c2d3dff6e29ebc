//! Reading by ranges: the request plan of `Reader`, measured with `Counting`, for
//! archives with few and with 70,000 members, with and without ZIP64 records, and the
//! agreement of the ranged and in-memory listings.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]

mod common;

use binfmt_core::le::{U16, U32, U64};
use binfmt_core::source::{ByteSource, Counting, FileSource, SeekSource, Stats};
use binfmt_core::zerocopy::{FromBytes, IntoBytes};
use taco_header::{Archive, Entries, Entry, HEAD_SIZE, Member, Reader, Writer, raw};

fn entries() -> Entries {
    Entries::from_slice(&[Entry::new(157, 13), Entry::new(1000, 1000)]).unwrap()
}

/// An archive of `n` small members, as tacozip's writers make (ZIP64 by count from
/// 65,535 entries on).
fn archive(n: u32) -> Vec<u8> {
    let mut b = Writer::new(entries());
    for i in 0..n {
        b.add_bytes(format!("m/{i:06}"), (i % 10_000).to_le_bytes().to_vec());
    }
    b.to_vec().unwrap()
}

/// The same archive with ZIP64 end records (record and locator before the end record,
/// whose fields then defer to the record), as writers produce for large archives.
fn with_zip64_records(mut bytes: Vec<u8>) -> Vec<u8> {
    let end_at = bytes.len() - raw::END_SIZE;
    let end = raw::End::read_from_bytes(&bytes[end_at..]).unwrap();
    assert_eq!(end.comment_len.get(), 0);
    let n = u64::from(end.entries.get());
    bytes.truncate(end_at);
    let record = raw::Zip64End {
        signature: raw::ZIP64_END_SIGNATURE,
        record_size: U64::new(44),
        version_made_by: U16::new(45),
        version_needed: U16::new(45),
        disk: U32::ZERO,
        cd_disk: U32::ZERO,
        disk_entries: U64::new(n),
        entries: U64::new(n),
        cd_size: U64::new(u64::from(end.cd_size.get())),
        cd_offset: U64::new(u64::from(end.cd_offset.get())),
    };
    bytes.extend_from_slice(record.as_bytes());
    let locator = raw::Zip64Locator {
        signature: raw::ZIP64_LOCATOR_SIGNATURE,
        record_disk: U32::ZERO,
        record_offset: U64::new(end_at as u64),
        disks: U32::new(1),
    };
    bytes.extend_from_slice(locator.as_bytes());
    let end = raw::End {
        disk_entries: U16::new(u16::MAX),
        entries: U16::new(u16::MAX),
        cd_size: U32::new(u32::MAX),
        cd_offset: U32::new(u32::MAX),
        ..end
    };
    bytes.extend_from_slice(end.as_bytes());
    bytes
}

/// What the in-memory parser lists.
fn slice_members(bytes: &[u8]) -> Vec<Member<'_>> {
    Archive::parse(bytes)
        .unwrap()
        .members()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The requests each step of the plan made: open, central directory, members.
struct Plan {
    open: Stats,
    central_directory: Stats,
    members: Stats,
}

fn measure(bytes: &[u8]) -> Plan {
    let source = Counting::new(bytes);
    let reader = Reader::open(&source).unwrap();
    let open = source.stats();
    reader.central_directory().unwrap();
    let after_cd = source.stats();
    let members = reader.members().unwrap();
    let after_members = source.stats();
    // The ranged listing is the in-memory one.
    let listed: Vec<Member<'_>> = members.iter().collect();
    assert_eq!(listed, slice_members(bytes));
    let diff = |a: Stats, b: Stats| Stats {
        requests: b.requests - a.requests,
        bytes: b.bytes - a.bytes,
    };
    Plan {
        open,
        central_directory: diff(open, after_cd),
        // The central directory is kept: `members` reads the local headers only (the
        // reader is the owned form of the view over a `ReadCache`).
        members: diff(after_cd, after_members),
    }
}

#[test]
fn the_header_is_one_request_of_at_most_256_bytes() {
    for bytes in [archive(3), archive(70_000)] {
        let plan = measure(&bytes);
        assert_eq!(plan.open.requests, 1);
        assert!(plan.open.bytes <= HEAD_SIZE && HEAD_SIZE == 256);
    }
    // A source shorter than 256 bytes: the 157-byte header alone, as a range response.
    let header = entries().to_header_bytes();
    let source = Counting::new(&header[..]);
    assert_eq!(Reader::open(&source).unwrap().entries(), entries());
    assert_eq!(source.stats().requests, 1);
}

#[test]
fn a_small_archive_lists_in_one_more_request() {
    for (bytes, zip64) in [(archive(3), false), (with_zip64_records(archive(3)), true)] {
        let plan = measure(&bytes);
        // The tail holds the end records, the ZIP64 record and the central directory.
        assert_eq!(plan.central_directory.requests, 1, "zip64: {zip64}");
        // The tail held the whole archive, local headers included: nothing more to
        // read (before the cache, the tail again and one merged range).
        assert_eq!(plan.members.requests, 0, "zip64: {zip64}");
        let reader = Reader::open(&bytes[..]).unwrap();
        assert_eq!(reader.members().unwrap().directory().is_zip64(), zip64);
    }
}

#[test]
fn seventy_thousand_members_list_in_two_more_requests() {
    let bytes = archive(70_000);
    let by_count = Archive::parse(&bytes).unwrap().directory().is_zip64();
    assert!(by_count, "70,001 entries need ZIP64 records");
    for (bytes, what) in [
        (bytes.clone(), "ZIP64 by count"),
        (
            with_zip64_records(archive(60_000)),
            "ZIP64 records, 60,001 entries",
        ),
        (archive(60_000), "no ZIP64, 60,001 entries"),
    ] {
        let plan = measure(&bytes);
        // The tail, then the central directory (several MB, not in the tail).
        assert_eq!(plan.central_directory.requests, 2, "{what}");
        // Then the local headers, in one batch coalesced into one range (the central
        // directory is kept from the step before).
        assert_eq!(plan.members.requests, 1, "{what}");
        // That range is the members' records, not more: the local headers' merged range
        // ends with the last one.
        let cd_offset = Archive::parse(&bytes).unwrap().directory().cd_offset;
        let local_headers = plan.members.bytes;
        assert!(local_headers <= cd_offset, "{what}: {local_headers} bytes");
    }
}

#[test]
fn large_members_cost_one_range_each_in_one_call() {
    let bytes = common::four_large_members();
    let plan = measure(&bytes);
    // The header's local header and the first member's are in the first 256 bytes,
    // kept from `open`; the others are each 100 KB apart, beyond the 64 KiB merge gap.
    // The tail (64 KiB) misses the start of the central directory's neighbourhood but
    // holds the directory itself.
    assert_eq!(plan.central_directory.requests, 1);
    assert_eq!(plan.members.requests, 3);
}

#[test]
fn every_kind_of_source_gives_the_same_listing() {
    let bytes = with_zip64_records(archive(50));
    let dir = binfmt_test_support::Scratch::new("taco-reader-every-source");
    let path = dir.join("a.taco");
    std::fs::write(&path, &bytes).unwrap();
    let want = slice_members(&bytes);

    let file = Reader::open(FileSource::open(&path).unwrap()).unwrap();
    assert_eq!(file.members().unwrap().iter().collect::<Vec<_>>(), want);
    let seek = Reader::open(SeekSource::new(std::fs::File::open(&path).unwrap())).unwrap();
    assert_eq!(seek.members().unwrap().iter().collect::<Vec<_>>(), want);
    // Memory: `as_slice` takes the zero-copy path of the slice parser.
    let memory = Reader::open(bytes.clone()).unwrap();
    assert!(ByteSource::as_slice(memory.source()).is_some());
    assert_eq!(memory.members().unwrap().iter().collect::<Vec<_>>(), want);
    let via_fs = taco_header::fs::open(&path).unwrap();
    assert_eq!(via_fs.entries(), entries());

    // Data by range.
    let members = file.members().unwrap();
    let m = members.get(7).unwrap();
    assert_eq!(&*file.read_data(&m).unwrap(), &6u32.to_le_bytes());
    let entry = Entry::new(m.data_offset(), m.compressed_size());
    assert_eq!(&*file.read_entry(entry).unwrap(), &6u32.to_le_bytes());
    let past = Entry::new(bytes.len() as u64 - 2, 10);
    let err = file.read_entry(past).unwrap_err();
    assert_eq!(err.offset(), Some(past.offset));
}

#[test]
fn a_damaged_local_header_fails_the_listing_as_it_fails_the_slice_walk() {
    let mut bytes = archive(5);
    let third = slice_members(&bytes)[3].local_header_offset() as usize;
    bytes[third] = b'X';
    let slice_err = Archive::parse(&bytes)
        .unwrap()
        .members()
        .find_map(Result::err)
        .unwrap();
    let reader = Reader::open(&bytes[..]).unwrap();
    let ranged_err = Reader::open(Counting::new(&bytes[..]))
        .unwrap()
        .members()
        .unwrap_err();
    assert_eq!(ranged_err.to_string(), slice_err.to_string());
    assert_eq!(
        reader.members().unwrap_err().to_string(),
        slice_err.to_string()
    );
}
