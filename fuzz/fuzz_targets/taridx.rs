#![no_main]
//! The .taridx reader on arbitrary bytes: parse (strict and lenient) and `verify` (the same
//! rules: parse's error is verify's first), decode every row, build the stem map, look up
//! stems, extensions and positions, verify names against the bytes as a shard, and check
//! that whatever verifies cleanly round-trips through the writer byte for byte.

use binfmt_core::verify::Findings;
use libfuzzer_sys::fuzz_target;
use taridx::{Index, IndexFile, ReadOptions, StemMap, Verifier, extension_ids, verify};

fuzz_target!(|data: &[u8]| {
    for options in [ReadOptions::new(), ReadOptions::new().lenient(true)] {
        let mut findings = Findings::new(4);
        let summary = verify(data, &options, &mut findings);
        let index = match Index::parse_with(data, &options) {
            Ok(index) => index,
            Err(e) => {
                let first = findings.errors().first().map(ToString::to_string);
                assert_eq!(first, Some(e.to_string()), "parse and verify disagree");
                continue;
            }
        };
        let _ = index.warnings().count();
        let _ = index.entries().count();
        let _ = index.find("sample000001.jpg").count();
        assert_eq!(index.extensions().count(), index.extensions().len());
        let _ = index.extension(u16::MAX);
        let stems: Vec<&str> = index.crash_stems().take(4).collect();
        if let Ok(map) = StemMap::build(&index) {
            let verifier = Verifier::new(&index);
            for stem in stems.iter().copied().chain(["", "a", "sample000001"]) {
                assert_eq!(map.crashid_of(stem), index.crashid_of(stem));
                let _ = extension_ids(map.lookup(stem));
                for e in map.lookup(stem).take(8) {
                    let _ = map.extension(e.extid);
                    let _ = e.payload(data);
                    // The index's own bytes as a shard: any bytes at all.
                    let _ = verifier.verify(&e, stem, data);
                    let _ = verifier.member_range(&e);
                }
            }
            if let Ok(n) = map.n_samples() {
                for i in [0, n / 2, n.saturating_sub(1), n] {
                    let _ = map.sample(i).map(|s| s.map(Iterator::count));
                }
            }
        }
        if options == ReadOptions::new() && summary.is_valid() {
            let file = IndexFile::from_index(&index).expect("a valid index converts");
            // Reserved bytes and flag bits 1..7 are not kept; everything else is.
            let bytes = file.to_vec().expect("to_vec");
            let again = Index::parse(&bytes).expect("written index parses");
            assert_eq!(again.n_rows(), index.n_rows());
            assert_eq!(bytes.get(64..), data.get(64..));
        }
    }
});
