#![no_main]
//! The TACO header parser over arbitrary bytes: no panic at any check level, and
//! whatever parses serializes and parses back to the same value.

use libfuzzer_sys::fuzz_target;
use taco_header::{Check, Header, HeaderOptions};

fuzz_target!(|data: &[u8]| {
    let full = Header::parse(data);
    let structure = Header::parse_with(data, Check::Structure);
    let reference = Header::parse_with(data, Check::Reference);
    // A rejection names a real problem: the fast path never rejects what the
    // field-by-field checks accept (which would surface as the placeholder Overflow).
    for result in [&full, &structure, &reference] {
        if let Err(e) = result {
            assert!(!matches!(e, taco_header::Error::Layout(binfmt_core::Error::Overflow { .. })), "{e:?}");
        }
    }
    // Each level accepts at least what the stricter one accepts.
    if full.is_ok() {
        assert!(structure.is_ok());
    }
    if structure.is_ok() {
        assert!(reference.is_ok());
    }
    let Ok(header) = reference else { return };
    let entries = header.entries();
    assert_eq!(entries.len(), header.count());
    let options = HeaderOptions {
        version_needed: header.version_needed(),
        modified: header.modified(),
    };
    let bytes = entries.to_header_bytes_with(&options);
    let again = Header::parse(&bytes).expect("serialized headers parse");
    assert_eq!(again.entries(), entries);
    assert_eq!(again.version_needed(), header.version_needed());
    assert_eq!(again.modified(), header.modified());
    // A fully valid header with no flags and zeroed spare slots is canonical: it
    // serializes to exactly its own bytes.
    if let Ok(full) = full {
        let spare_zero = full.slots().iter().skip(full.count()).all(|s| s.offset == 0 && s.length == 0);
        if full.flags() == 0 && spare_zero {
            assert_eq!(&bytes[..], full.as_bytes());
        }
    }
});
