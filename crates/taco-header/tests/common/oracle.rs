//! What must hold for any input, whatever its bytes: the fuzz targets
//! (`fuzz/fuzz_targets/taco_*.rs`, which include this file) and the regression replays
//! (tests/regressions.rs) run these checks. Each function panics on a disagreement.
#![allow(
    dead_code,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation
)]

use core::ops::ControlFlow;

use binfmt_core::source::Counting;
use taco_header::{
    Archive, Entries, Entry, Error, ErrorKind, Header, HeaderOptions, Layout, ReadOptions, Reader,
    Severity,
};

/// Whole TACO archives over arbitrary bytes: `verify`, the member listing in memory and
/// by ranges, and the in-place update never panic; `verify` reports whatever makes
/// `Archive::parse` fail; the ranged `Reader` keeps to its request plan and lists what
/// the slice parser lists; an accepted update leaves an archive that parses, with the new
/// entries, and changes nothing but the 124 bytes.
pub fn check_archive(data: &[u8]) {
    let every = ReadOptions::new();
    let no_crc = every.checksums(false);

    // verify reports at least the problem parse stops at.
    let mut first = None;
    let summary = taco_header::verify(data, &every, &mut |severity: Severity, e: Error| {
        if severity == Severity::Error && first.is_none() {
            first = Some(e.offset());
        }
        ControlFlow::Continue(())
    });
    let parsed = Archive::parse(data);
    if parsed.is_err() {
        assert!(
            summary.errors() > 0,
            "parse fails ({:?}) but verify finds nothing",
            parsed.err()
        );
    }

    // The ranged reader, over a source that is not in memory as far as it knows.
    let counted = Counting::new(data);
    let reader = Reader::open_with(&counted, &no_crc);
    if let Ok(reader) = &reader {
        assert_eq!(counted.stats().requests, 1);
        assert!(counted.stats().bytes <= 256);
        if reader.central_directory().is_ok() {
            // The tail, at most the ZIP64 record, at most the central directory.
            assert!(counted.stats().requests <= 1 + 3, "{:?}", counted.stats());
        }
    }
    let ranged = reader.as_ref().ok().map(|r| r.members());

    let Ok(archive) = Archive::parse_with(data, &no_crc) else {
        assert!(
            !matches!(ranged, Some(Ok(_))),
            "the reader lists what the slice parser refuses"
        );
        return;
    };
    let members: Vec<_> = archive.members().collect();
    if let Some(Ok(list)) = ranged {
        let from_slice: Vec<_> = members
            .iter()
            .map(|m| *m.as_ref().expect("the reader listed it"))
            .collect();
        let from_reader: Vec<_> = list.iter().collect();
        assert_eq!(from_reader, from_slice);
    }

    let entries =
        Entries::from_slice(&[Entry::new(data.len() as u64, 1), Entry::new(u64::MAX, 0)]).unwrap();
    let mut updated = data.to_vec();
    taco_header::update_in_memory(&mut updated, &entries)
        .expect("an archive that parses can be updated");
    let after = Archive::parse(&updated).expect("an updated archive parses with every check");
    assert_eq!(after.header().entries(), entries);
    let cd = archive.directory().cd_offset as usize;
    for (i, (a, b)) in data.iter().zip(&updated).enumerate() {
        if a != b {
            assert!(
                (14..18).contains(&i) || (41..157).contains(&i) || (cd + 16..cd + 20).contains(&i),
                "byte {i}"
            );
        }
    }
}

/// The TACO header parser over arbitrary bytes: no panic under any options; the options
/// nest (every stricter reading accepts less); a lenient parse warns exactly when the
/// strict rules fail; whatever parses serializes and parses back to the same value.
pub fn check_header(data: &[u8]) {
    let every = ReadOptions::new();
    let full = Header::parse(data);
    let no_crc = Header::parse_with(data, &every.checksums(false));
    let lenient = Header::parse_with(data, &every.lenient(true));
    let tacozip = Header::parse_with(data, &every.lenient(true).checksums(false));
    // A rejection names a real problem: the fast path never rejects what the rule-by-rule
    // checks accept (which would surface as the placeholder Overflow).
    for result in [&full, &no_crc, &lenient, &tacozip] {
        if let Err(e) = result {
            assert!(
                !matches!(e.kind(), ErrorKind::Layout(Layout::Overflow { .. })),
                "{e:?}"
            );
        }
    }
    // Each reading accepts at least what a stricter one accepts.
    if full.is_ok() {
        assert!(no_crc.is_ok() && lenient.is_ok());
    }
    if no_crc.is_ok() || lenient.is_ok() {
        assert!(tacozip.is_ok());
    }
    let Ok(header) = tacozip else { return };
    // The strict rules pass exactly when a lenient parse has nothing to warn about.
    assert_eq!(no_crc.is_ok(), header.warnings().next().is_none());
    let entries = header.entries();
    assert_eq!(entries.len(), header.count());
    let options = HeaderOptions::new()
        .version_needed(header.version_needed())
        .modified(header.modified());
    let bytes = entries.to_header_bytes_with(&options);
    let again = Header::parse(&bytes).expect("serialized headers parse");
    assert_eq!(again.entries(), entries);
    assert_eq!(again.version_needed(), header.version_needed());
    assert_eq!(again.modified(), header.modified());
    // A fully valid header with no flags and zeroed spare slots is canonical: it
    // serializes to exactly its own bytes.
    if let Ok(full) = full {
        let spare_zero = full
            .slots()
            .iter()
            .skip(full.count())
            .all(|s| s.offset == 0 && s.length == 0);
        if full.flags() == 0 && spare_zero {
            assert_eq!(&bytes[..], full.as_bytes());
        }
    }
}
