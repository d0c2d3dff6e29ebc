#![no_main]
//! The indexer on arbitrary bytes as a tar shard, in strict mode (with and without lossy
//! names) and in glzn-compat mode: every index it produces verifies cleanly, its report is
//! bounded and prints no control characters, every strict row points inside the shard,
//! and name verification from a member's own blocks finds the member each row points at
//! (with the indexed name, unless a global pax header could have named it).

use binfmt_core::verify::Findings;
use libfuzzer_sys::fuzz_target;
use taridx::tar::{Event, Walker, compression};
use taridx::{
    BuildOptions, ErrorKind, Index, Mode, ReadOptions, StemMap, Verifier, Writer, verify,
};

fuzz_target!(|data: &[u8]| {
    let mut members = 0usize;
    let mut global = false;
    for event in Walker::new(data, 0) {
        match event {
            Ok(Event::Member(m)) => {
                members += 1;
                let _ = m.name.basename();
                assert!(!m.name.to_string().chars().any(char::is_control));
            }
            Ok(Event::GlobalHeader { .. }) => global = true,
            Ok(_) => {}
            Err(_) => break,
        }
    }
    for options in [
        BuildOptions::strict(),
        BuildOptions::strict().lossy_names(true),
        BuildOptions::glzn(),
    ] {
        let mut builder = Writer::new(options.max_diagnostics(3));
        if let Err(e) = builder.add("fuzz_0000.tar", data) {
            assert_eq!(
                matches!(e.kind(), ErrorKind::Compressed { .. }),
                compression(data).is_some()
            );
            continue;
        }
        let taridx::Finished {
            index: file,
            report,
            ..
        } = builder.finish().unwrap();
        assert!(report.skipped.len() <= 4 * 3 && report.warnings.len() <= 9 * 3);
        for line in report.skipped_messages().chain(report.warning_messages()) {
            assert!(!line.chars().any(char::is_control), "{line:?}");
        }
        let bytes = file.to_vec().expect("to_vec");
        let index = Index::parse(&bytes).expect("our own index parses");
        let mut findings = Findings::new(1);
        let summary = verify(&bytes, &ReadOptions::new(), &mut findings);
        assert!(summary.is_valid(), "{:?}", findings.errors());
        let map = StemMap::build(&index).expect("stem map");
        if options.mode() == Mode::Strict {
            assert!(file.rows().len() <= members);
            let verifier = Verifier::new(&index);
            for e in index.entries() {
                let e = e.expect("valid row");
                assert!(
                    e.payload(data).is_ok(),
                    "strict rows point inside the shard"
                );
                assert!(map.lookup_key(e.keyhash, e.crashid).any(|f| f.row == e.row));
                let member = verifier
                    .member(&e, data, 0)
                    .expect("an undamaged member's blocks")
                    .expect("a row is a member");
                assert_eq!(member.offset, e.offset);
                if !global {
                    let name = member.name.to_string_lossy();
                    assert_eq!(taridx::keyhash(taridx::stem(&name)), e.keyhash, "{name}");
                }
            }
        }
    }
});
