#![no_main]
//! The .taridx reader on arbitrary bytes: parse (strict and lenient), decode every row,
//! build the stem map, look up stems and positions, run the deep checks, and check that
//! whatever parses strictly round-trips through the writer byte for byte.

use libfuzzer_sys::fuzz_target;
use taridx::{Index, IndexFile, ReadMode, StemMap};

fuzz_target!(|data: &[u8]| {
    for mode in [ReadMode::Strict, ReadMode::Lenient] {
        let Ok(index) = Index::parse_with(data, mode) else {
            continue;
        };
        let _ = index.check_rows();
        let _ = index.entries().count();
        let _ = index.find("sample000001.jpg").count();
        let stems: Vec<&str> = index.crash_stems().take(4).collect();
        if let Ok(map) = StemMap::build(&index) {
            let _ = map.check_header();
            for stem in stems.iter().copied().chain(["", "a", "sample000001"]) {
                for e in map.lookup(stem) {
                    let _ = map.extension(e.extid);
                    let _ = e.payload(data);
                }
            }
            if let Ok(n) = map.n_samples() {
                for i in [0, n / 2, n.saturating_sub(1), n] {
                    let _ = map.sample(i).map(|s| s.map(Iterator::count));
                }
            }
        }
        if mode == ReadMode::Strict && index.check_rows().is_ok() && index.check_deep().is_ok() {
            if let Ok(file) = IndexFile::from_index(&index) {
                // Reserved bytes and flag bits 1..7 are not kept; everything else is.
                let bytes = file.to_bytes();
                let again = Index::parse(&bytes).expect("written index parses");
                assert_eq!(again.n_rows(), index.n_rows());
                assert_eq!(bytes.get(64..), data.get(64..));
            }
        }
    }
});
