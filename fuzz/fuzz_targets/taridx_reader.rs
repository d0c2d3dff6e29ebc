#![no_main]
//! `Reader` on an arbitrary index and an arbitrary shard (the input is a 2-byte index
//! length, the index, then the shard): it never panics, reads the index in one request,
//! and makes exactly one request per row of a sample it reads; a member it returns has a
//! payload of the row's size.

use binfmt_core::source::{ByteSource, Counting};
use libfuzzer_sys::fuzz_target;
use taridx::{ReadOptions, Reader};

fuzz_target!(|data: &[u8]| {
    let Some((len, rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let (index, shard) = rest.split_at(usize::from(u16::from_le_bytes(*len)).min(rest.len()));
    for options in [ReadOptions::new(), ReadOptions::new().lenient(true)] {
        let source = Counting::new(index);
        let shards = vec![
            Counting::new(shard),
            Counting::new(&shard[shard.len() / 2..]),
        ];
        let Ok(reader) = Reader::open_with(&source, shards, &options) else {
            continue;
        };
        assert_eq!(source.stats().requests, 1);
        let crash: Vec<String> = reader
            .index()
            .crash_stems()
            .take(2)
            .map(String::from)
            .collect();
        for verify in [true, false] {
            let reader = Reader::open_with(&index, vec![Counting::new(shard)], &options)
                .expect("opens twice")
                .verify_names(verify);
            for stem in crash
                .iter()
                .map(String::as_str)
                .chain(["", "a", "sample000001"])
            {
                let rows = reader.lookup(stem).len();
                let before = reader.shards()[0].stats().requests;
                if let Ok(members) = reader.sample(stem) {
                    let requests = reader.shards()[0].stats().requests - before;
                    assert_eq!(requests, rows as u64, "one request per row");
                    assert!(members.len() <= rows);
                    for m in &members {
                        assert_eq!(m.payload().len() as u64, m.entry().size);
                        let _ = reader.extension(m.entry().extid);
                    }
                    if !verify {
                        assert_eq!(members.len(), rows);
                    }
                }
            }
            let _ = reader.shards()[0].len();
        }
        let _ = reader.sample("x");
    }
});
