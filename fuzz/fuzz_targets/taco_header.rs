#![no_main]
//! The TACO header parser over arbitrary bytes: no panic under any options; the options
//! nest (every stricter reading accepts less); a lenient parse warns exactly when the
//! strict rules fail; whatever parses serializes and parses back to the same value.

use libfuzzer_sys::fuzz_target;
use taco_header::{ErrorKind, Header, HeaderOptions, Layout, ReadOptions};

fuzz_target!(|data: &[u8]| {
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
});
