#![no_main]
//! The indexer on arbitrary bytes as a tar shard, in strict mode (with and without lossy
//! names) and in glzn-compat mode; every index it produces must parse and validate, and
//! every row must point inside the shard in strict mode.

use libfuzzer_sys::fuzz_target;
use taridx::tar::{Event, Walker};
use taridx::{BuildOptions, Index, IndexBuilder, StemMap, Verifier};

fuzz_target!(|data: &[u8]| {
    let mut members = 0usize;
    for event in Walker::new(data, 0) {
        match event {
            Ok(Event::Member(m)) => {
                members += 1;
                let _ = m.name.basename();
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    for options in [
        BuildOptions::strict(),
        BuildOptions::strict().lossy_names(true),
        BuildOptions::glzn(),
    ] {
        let mut builder = IndexBuilder::new(options);
        if builder.add_shard("fuzz_0000.tar", data).is_err() {
            continue;
        }
        let (file, _report) = builder.finish();
        let bytes = file.to_bytes();
        let index = Index::parse(&bytes).expect("our own index parses");
        index.check_rows().expect("our own rows are valid");
        index.check_deep().expect("our own counts and flag are right");
        let map = StemMap::build(&index).expect("stem map");
        if options.mode() == taridx::Mode::Strict {
            assert!(file.rows().len() <= members);
            let mut verifier = Verifier::new();
            verifier.add_shard(0, data).expect("the walk that indexed the shard succeeds again");
            for e in index.entries() {
                let e = e.expect("valid row");
                assert!(e.payload(data).is_ok(), "strict rows point inside the shard");
                assert!(map.lookup_key(e.keyhash, e.crashid).any(|f| f.row == e.row));
                let name = verifier.name_at(0, e.offset).expect("a row is a member");
                assert_eq!(taridx::keyhash(taridx::stem(name)), e.keyhash);
            }
        }
    }
});
