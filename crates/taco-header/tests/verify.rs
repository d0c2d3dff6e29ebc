//! `verify` on hostile and damaged archives: every problem reported, each payload hashed
//! once, memory bounded by the sink, and no input that panics.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation,
    clippy::std_instead_of_core
)]

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use binfmt_core::source::Counting;
use binfmt_core::verify::Findings;
use binfmt_core::zerocopy::IntoBytes;
use taco_header::{
    Archive, Entries, Entry, Error, ErrorKind, ReadOptions, Reader, Severity, Writer,
    WriterOptions, raw,
};

/// An archive whose central directory names its one `size`-byte member `copies` times
/// (65,534 entries in all is the most a classic end record counts).
fn many_entries_for_one_member(size: usize, copies: usize) -> Vec<u8> {
    let mut builder = Writer::new(Entries::new());
    builder.add_bytes("big", vec![7u8; size]);
    let bytes = builder.to_vec().unwrap();
    let archive = Archive::parse(&bytes).unwrap();
    let dir = *archive.directory();
    let cd = dir.cd_offset as usize;
    let second = archive.central_entries().nth(1).unwrap().unwrap().offset as usize;
    let end = cd + dir.cd_size as usize;
    let mut out = bytes[..second].to_vec();
    for _ in 0..copies {
        out.extend_from_slice(&bytes[second..end]);
    }
    let count = (copies + 1) as u16;
    let record = raw::End {
        signature: raw::END_SIGNATURE,
        disk: 0.into(),
        cd_disk: 0.into(),
        disk_entries: count.into(),
        entries: count.into(),
        cd_size: ((out.len() - cd) as u32).into(),
        cd_offset: (cd as u32).into(),
        comment_len: 0.into(),
    };
    out.extend_from_slice(record.as_bytes());
    out
}

#[test]
fn one_payload_named_65533_times_is_hashed_once_and_reported_in_bounded_memory() {
    let bytes = many_entries_for_one_member(8 << 20, 65_533);
    let started = Instant::now();
    let mut findings = Findings::new(100);
    let summary = taco_header::verify(&bytes, &ReadOptions::new(), &mut findings);
    let took = started.elapsed();
    // Hashing 8 MB 65,533 times takes minutes even optimised; once takes milliseconds.
    // The bound is generous for an unoptimised build on a busy two-core machine.
    assert!(took < Duration::from_secs(20), "verify took {took:?}");
    assert_eq!(summary.errors(), 2 * 65_532);
    assert_eq!(findings.errors().len(), 100);
    assert_eq!(findings.more_errors(), 2 * 65_532 - 100);
    let kinds = |pick: fn(&ErrorKind) -> bool| summary_count(&bytes, pick);
    assert_eq!(
        kinds(|k| matches!(k, ErrorKind::OverlappingMember { .. })),
        65_532
    );
    assert_eq!(
        kinds(|k| matches!(k, ErrorKind::DuplicateMember { first: 1, .. })),
        65_532
    );
    // The member itself is sound: its CRC was checked and matched.
    assert_eq!(kinds(|k| matches!(k, ErrorKind::MemberCrc { .. })), 0);

    // Listing is linear too, and the ranged reader fetches the one local header once.
    let source = Counting::new(&bytes[..]);
    let reader = Reader::open(&source).unwrap();
    assert_eq!(reader.members().unwrap().len(), 65_534);
    assert!(source.stats().requests <= 4);
}

/// How many findings of a kind `verify` reports, counted by a sink that keeps nothing.
fn summary_count(bytes: &[u8], pick: fn(&ErrorKind) -> bool) -> u64 {
    let mut n = 0;
    taco_header::verify(bytes, &ReadOptions::new(), &mut |_: Severity, e: Error| {
        n += u64::from(pick(e.kind()));
        ControlFlow::Continue(())
    });
    n
}

#[test]
fn a_sink_can_stop_the_walk() {
    let bytes = many_entries_for_one_member(1000, 50);
    let mut seen = 0;
    let summary = taco_header::verify(&bytes, &ReadOptions::new(), &mut |_: Severity, _: Error| {
        seen += 1;
        if seen == 3 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    assert!(summary.stopped());
    assert_eq!(seen, 3);
}

#[test]
fn every_problem_is_reported_not_just_the_first() {
    let mut b = Writer::new(Entries::from_slice(&[Entry::new(1, 2)]).unwrap());
    b.add_bytes("a", b"first".to_vec())
        .add_bytes("b", b"second".to_vec())
        .add_bytes("c", b"third".to_vec());
    let mut bytes = b.to_vec().unwrap();
    let members: Vec<_> = Archive::parse(&bytes)
        .unwrap()
        .members()
        .map(Result::unwrap)
        .map(|m| (m.data_offset(), m.local_header_offset()))
        .collect();
    // Damage member a's data, member c's local name, and the header's padding.
    bytes[members[1].0 as usize] ^= 1;
    bytes[members[3].1 as usize + 30] = b'z';
    bytes[43] = 1;
    let mut findings = Findings::new(20);
    let summary = taco_header::verify(&bytes, &ReadOptions::new(), &mut findings);
    assert_eq!(summary.errors(), 4, "{:#?}", findings.errors());
    let offsets: Vec<_> = findings.errors().iter().map(|e| e.offset()).collect();
    // Padding; the header CRC (the payload changed); c's name; then a's data, in data
    // order.
    assert_eq!(
        offsets,
        [
            Some(42),
            Some(14),
            Some(members[3].1 + 30),
            Some(members[1].0)
        ]
    );
    let kinds: Vec<&ErrorKind> = findings.errors().iter().map(|e| e.kind()).collect();
    assert!(
        matches!(
            kinds[..],
            [
                ErrorKind::NonZeroPadding { .. },
                ErrorKind::CrcMismatch { .. },
                ErrorKind::LocalNameMismatch { index: 3, .. },
                ErrorKind::MemberCrc { index: 1, .. },
            ]
        ),
        "{kinds:?}"
    );
}

#[test]
fn lenient_reading_reports_what_tacozip_ignores_as_warnings() {
    let mut bytes = Writer::new(Entries::new()).to_vec().unwrap();
    bytes[4] = 99; // version needed: never checked
    bytes[6] = 1; // encrypted: tacozip reads it anyway
    let strict = taco_header::verify(&bytes, &ReadOptions::new(), &mut Findings::new(9));
    assert_eq!((strict.errors(), strict.warnings()), (1, 0));
    let mut findings = Findings::new(9);
    let lenient = ReadOptions::new().lenient(true);
    let summary = taco_header::verify(&bytes, &lenient, &mut findings);
    assert!(summary.is_valid());
    assert_eq!(summary.warnings(), 1);
    assert_eq!(
        findings.warnings()[0].to_string(),
        "byte 6: the header is flagged as encrypted (flags 0x0001); a TACO header is plain"
    );
    let archive = Archive::parse_with(&bytes, &lenient).unwrap();
    assert_eq!(archive.warnings().count(), 1);
}

#[test]
fn member_names_are_available_as_bytes_lossy_text_and_escaped() {
    let mut b = Writer::new(Entries::new());
    b.options(WriterOptions::new().verbatim_names(true))
        .add_bytes("\u{1b}]0;pwned\u{7}", b"x".to_vec())
        .add_bytes("ok/ñandú.txt", b"y".to_vec());
    let bytes = b.to_vec().unwrap();
    let archive = Archive::parse(&bytes).unwrap();
    let members: Vec<_> = archive.members().map(Result::unwrap).collect();
    assert_eq!(members[1].name(), b"\x1b]0;pwned\x07");
    assert_eq!(members[1].name_lossy(), "\u{1b}]0;pwned\u{7}");
    assert_eq!(members[1].name_escaped().to_string(), r"\e]0;pwned\u{7}");
    assert_eq!(members[2].name_escaped().to_string(), "ok/ñandú.txt");
    assert!(members[2].is_utf8_flagged());
}

/// Every truncation and many single-byte changes of a small archive: parse, list,
/// verify and read by range never panic, and the two listings agree.
#[test]
fn damaged_archives_never_panic_and_both_listings_agree() {
    let mut b = Writer::new(Entries::from_slice(&[Entry::new(9, 9)]).unwrap());
    b.add_bytes("a", b"alpha".to_vec())
        .add_bytes("dir/b", vec![0u8; 40]);
    let good = b.to_vec().unwrap();
    let mut inputs: Vec<Vec<u8>> = (0..good.len()).map(|n| good[..n].to_vec()).collect();
    for at in 0..good.len() {
        for value in [0u8, 1, 0x7f, 0xff] {
            let mut bytes = good.clone();
            bytes[at] = value;
            inputs.push(bytes);
        }
    }
    for bytes in &inputs {
        let options = ReadOptions::new().checksums(false);
        let _ = taco_header::verify(bytes, &ReadOptions::new(), &mut Findings::new(4));
        let slice = Archive::parse_with(bytes, &options)
            .ok()
            .and_then(|a| a.members().collect::<Result<Vec<_>, _>>().ok());
        let ranged = Reader::open_with(Counting::new(&bytes[..]), &options).and_then(|r| {
            Ok(r.members()?
                .iter()
                .map(|m| (m.name().to_vec(), m.data_offset()))
                .collect::<Vec<_>>())
        });
        if let (Some(slice), Ok(ranged)) = (slice, ranged) {
            let slice: Vec<_> = slice
                .iter()
                .map(|m| (m.name().to_vec(), m.data_offset()))
                .collect();
            assert_eq!(slice, ranged);
        }
    }
}
