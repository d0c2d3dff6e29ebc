#![no_main]
//! Whole TACO archives over arbitrary bytes: `verify`, the member listing in memory and
//! by ranges, and the in-place update never panic; `verify` reports whatever makes
//! `Archive::parse` fail; the ranged `Reader` keeps to its request plan and lists what
//! the slice parser lists; an accepted update leaves an archive that parses, with the new
//! entries, and changes nothing but the 124 bytes.

use std::ops::ControlFlow;

use binfmt_core::source::Counting;
use libfuzzer_sys::fuzz_target;
use taco_header::{Archive, Entries, Entry, Error, ReadOptions, Reader, Severity};

fuzz_target!(|data: &[u8]| {
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
});
