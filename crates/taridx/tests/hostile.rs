//! Hostile and real-world shards and indexes: one regression test per class of problem
//! (each failed before its fix), with memory bounded by a counting allocator.
// Integration tests use the `std` API (builder, files, sources).
#![cfg(feature = "std")]
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]

mod support;

use binfmt_core::verify::Findings;
use support::{end, header, long_name, member, memory, pax};
use taridx::{
    BuildOptions, ErrorKind, Index, ReadOptions, Reader, Report, StemMap, Verifier, Writer,
    extension_ids, verify,
};

#[global_allocator]
static ALLOCATOR: memory::Counting = memory::Counting;

const MIB: usize = 1 << 20;

fn strict(shard: &[u8]) -> (Vec<u8>, Report) {
    let mut b = Writer::new(BuildOptions::strict());
    b.add("hostile_0000.tar", shard).unwrap();
    let taridx::Finished {
        index: file,
        report,
        ..
    } = b.finish().unwrap();
    (file.to_vec().unwrap(), report)
}

/// A stem map of `index` and a verifier of its names: what a lookup by name (`taridx
/// get`) needs.
fn map_and_verifier<'a>(index: &Index<'a>) -> (StemMap<'a>, Verifier) {
    (StemMap::build(index).unwrap(), Verifier::new(index))
}

/// A global pax header whose `path` is `name`, then `members` empty members.
fn global_path_shard(name: &[u8], members: usize) -> Vec<u8> {
    let mut shard = pax(b'g', &[("path", name)]);
    for i in 0..members {
        shard.extend(header(format!("m{i}.jpg").as_bytes(), 0, b'0'));
    }
    shard.extend(end());
    shard
}

#[test]
fn a_global_pax_path_is_shared_not_copied() {
    // 2,000 members named by one 200 kB global path: 400 MB if each copied it.
    let name = vec![b'p'; 200_000];
    let shard = global_path_shard(&name, 2000);
    let ((_, report), peak) = memory::peak(|| strict(&shard));
    assert!(peak < 2 * MIB, "indexing used {peak} bytes");
    // Every member is skipped (the name has no extension): 100 kept, all counted, names
    // cut.
    assert_eq!(report.skipped.len(), 100);
    assert_eq!(report.skipped_count(), 2000);
    assert!(
        report
            .skipped
            .iter()
            .all(|s| s.name.is_cut() && s.name.len() == 200_000)
    );
    let messages: Vec<String> = report.skipped_messages().collect();
    assert_eq!(messages.len(), 101);
    assert_eq!(
        messages.last().unwrap(),
        "… and 1900 more members without an extension"
    );
    assert!(messages.iter().map(String::len).sum::<usize>() < 64 * 1024);

    // With an extension, every member is a row of one sample and a duplicate of the
    // first: the warnings are capped the same way.
    let mut name = vec![b'p'; 200_000];
    name.extend_from_slice(b".jpg");
    let shard = global_path_shard(&name, 2000);
    let ((bytes, report), peak) = memory::peak(|| strict(&shard));
    assert!(peak < 2 * MIB, "indexing used {peak} bytes");
    assert_eq!(report.warnings.len(), 100);
    assert_eq!(report.warning_count(), 1999);
    let lines: Vec<String> = report.warning_messages().collect();
    assert_eq!(lines.last().unwrap(), "… and 1899 more duplicate members");
    assert!(lines.iter().map(String::len).sum::<usize>() < 64 * 1024);

    // Looking the sample up and verifying names (what `taridx get` does) reads one
    // member's blocks at a time: no per-shard name cache.
    let index = Index::parse(&bytes).unwrap();
    let stem = core::str::from_utf8(&name[..200_000]).unwrap();
    let (verified, peak) = memory::peak(|| {
        let (map, verifier) = map_and_verifier(&index);
        let candidates: Vec<_> = map.lookup(stem).collect();
        candidates
            .iter()
            .map(|e| verifier.verify(e, stem, &shard).unwrap())
            .collect::<Vec<bool>>()
    });
    assert!(peak < MIB, "verification used {peak} bytes");
    assert_eq!(verified.len(), 2000);
    // The first member's blocks include the global header; the others' do not (a global
    // `path` before the previous member is not seen: docs/taridx.md, §7).
    assert!(verified[0]);
}

#[test]
fn names_in_diagnostics_are_escaped() {
    let evil = "\x1b]0;owned\x07\x1b[2J\u{202e}gpj";
    let mut shard = member(&format!("{evil}.x"), b"1");
    shard.extend(member(&format!("{evil}.x"), b"2")); // a duplicate
    shard.extend(member(evil, b"3")); // no extension: skipped
    shard.extend(end());
    let (_, report) = strict(&shard);
    let lines: Vec<String> = report
        .warning_messages()
        .chain(report.skipped_messages())
        .chain(report.warnings.iter().map(ToString::to_string))
        .chain(report.skipped.iter().map(ToString::to_string))
        .collect();
    assert_eq!(lines.len(), 4);
    for line in &lines {
        assert!(!line.chars().any(char::is_control), "{line:?}");
        assert!(!line.contains('\u{202e}'), "{line:?}");
        assert!(line.contains(r"\e]0;owned\u{7}\e[2J\u{202e}gpj"), "{line}");
    }
    // The raw name is still there for output that is not a terminal.
    assert_eq!(report.skipped[0].name.as_str(), evil);
    // And the walker's names display escaped too.
    let m = taridx::tar::Walker::new(&shard, 0).next().unwrap().unwrap();
    let taridx::tar::Event::Member(m) = m else {
        panic!()
    };
    assert!(!m.name.to_string().chars().any(char::is_control));
}

/// The `clean` fold's shard 0 with a gzip/bzip2/xz/zstd header on top is refused, by name.
#[test]
fn compressed_bytes_are_never_an_empty_shard() {
    for (head, name) in [
        (&b"\x1f\x8b\x08\x00\x00\x00\x00\x00"[..], "gzip"),
        (b"BZh91AY&SY", "bzip2"),
        (b"\xfd7zXZ\x00\x00\x04", "xz"),
        (b"\x28\xb5\x2f\xfd\x60", "zstd"),
    ] {
        for len in [100, 4000] {
            let mut data = head.to_vec();
            data.resize(len, 0x5a);
            for options in [BuildOptions::strict(), BuildOptions::glzn()] {
                let mut b = Writer::new(options);
                let e = b.add("x_0000.tar", &data).unwrap_err();
                assert!(
                    matches!(e.kind(), ErrorKind::Compressed { shard: 0, .. }),
                    "{name} {len}: {e}"
                );
                assert_eq!(e.offset(), Some(0));
                assert!(
                    e.to_string()
                        .contains(&format!("is compressed ({name}): decompress it first")),
                    "{e}"
                );
            }
        }
    }
    // A tar whose first member happens to be named like a bzip2 stream is a tar.
    let mut shard = member("BZh91AY&SY.jpg", b"1");
    shard.extend(end());
    assert_eq!(taridx::tar::compression(&shard), None);
    let (bytes, _) = strict(&shard);
    assert_eq!(Index::parse(&bytes).unwrap().n_rows(), 1);
}

#[test]
fn verifying_a_name_reads_only_the_members_own_blocks() {
    // [dir][x path=long][A][README 2 MiB, no extension][L long][B][C][dir2][x][D][E]
    let long_a = format!("{}/sample_a.jpg", "d".repeat(150));
    let long_b = format!("{}/sample_b.jpg", "e".repeat(150));
    let long_d = format!("{}/sample_d.jpg", "f".repeat(150));
    let mut shard = header(b"dir/", 0, b'5').to_vec();
    shard.extend(pax(b'x', &[("path", long_a.as_bytes()), ("mtime", b"1.5")]));
    shard.extend(member("truncated-in-ustar-a.jpg", b"AAAA"));
    shard.extend(member("README", &vec![b'r'; 2 * MIB]));
    shard.extend(long_name(&long_b));
    shard.extend(member("truncated-in-ustar-b.jpg", b"BBBB"));
    shard.extend(member("sample_c.jpg", b"CC"));
    let dir2_at = shard.len();
    shard.extend(header(b"dir2/", 0, b'5'));
    shard.extend(pax(b'x', &[("path", long_d.as_bytes())]));
    shard.extend(member("truncated-in-ustar-d.jpg", b"DD"));
    let e_at = shard.len();
    shard.extend(member("sample_e.jpg", b"EE"));
    shard.extend(end());
    let (bytes, _) = strict(&shard);
    let index = Index::parse(&bytes).unwrap();
    let (map, verifier) = map_and_verifier(&index);
    let entry = |stem: &str| map.lookup(stem).next().unwrap();

    for stem in ["sample_a", "sample_b", "sample_c", "sample_d", "sample_e"] {
        let e = entry(stem);
        assert!(verifier.verify(&e, stem, &shard).unwrap(), "{stem}");
        assert!(!verifier.verify(&e, "other", &shard).unwrap(), "{stem}");
        // Only the member's range is needed: its extended headers, header and payload
        // (at most 1 MiB before the header, however large the member before it).
        let range = verifier.member_range(&e).unwrap();
        assert!(e.offset - range.start <= 1 << 20);
        let window = &shard[range.start as usize..range.end as usize];
        assert!(
            verifier
                .verify_window(&e, stem, window, range.start)
                .unwrap(),
            "{stem}"
        );
    }

    // Damage every header but B's and D's own blocks (dir2 lies between C and D's
    // extended header): B and D still verify; a damaged member reports its damage.
    let mut damaged = shard.clone();
    for at in [0, 512, 1024 + 512, dir2_at, e_at] {
        damaged[at + 148] ^= 1;
    }
    assert!(
        verifier
            .verify(&entry("sample_b"), "sample_b", &damaged)
            .unwrap()
    );
    assert!(
        verifier
            .verify(&entry("sample_d"), "sample_d", &damaged)
            .unwrap()
    );
    let e = verifier
        .verify(&entry("sample_e"), "sample_e", &damaged)
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::TarChecksum { .. }));
    assert_eq!(e.offset(), Some(e_at as u64));
}

#[test]
fn a_global_path_after_a_skipped_member_names_the_next_member() {
    // [A][dir/][g path=x.jpg][dir2/][B]: per the walking rules B is named x.jpg (the
    // global path applies to every later member; the directories are skipped). B's own
    // blocks (from the end of A) hold the global header, behind a skipped member.
    let mut shard = member("a.jpg", b"AA");
    shard.extend(header(b"dir/", 0, b'5'));
    shard.extend(pax(b'g', &[("path", b"x.jpg")]));
    shard.extend(header(b"dir2/", 0, b'5'));
    let b_at = shard.len() as u64;
    shard.extend(member("b.jpg", b"BB"));
    shard.extend(end());
    let (bytes, _) = strict(&shard);
    let index = Index::parse(&bytes).unwrap();
    let (map, verifier) = map_and_verifier(&index);
    assert_eq!(map.lookup("b").count(), 0);
    let x = map.lookup("x").next().unwrap();
    assert_eq!(x.offset, b_at);
    assert!(verifier.verify(&x, "x", &shard).unwrap());
    assert!(!verifier.verify(&x, "b", &shard).unwrap());
    let a = map.lookup("a").next().unwrap();
    assert!(verifier.verify(&a, "a", &shard).unwrap());

    // The same through the ranged reader: one request, verified.
    let shards = vec![binfmt_core::source::Counting::new(&shard[..])];
    let reader = Reader::open_with(&&bytes[..], shards, &ReadOptions::new()).unwrap();
    let members = reader.sample("x").unwrap();
    assert_eq!(members.len(), 1);
    assert_eq!(members[0].payload(), b"BB");
    assert_eq!(reader.shards()[0].stats().requests, 1);
}

#[test]
fn listing_a_samples_extensions_is_linear_in_its_rows() {
    // One sample with 65,536 extensions, each twice (131,072 rows): a quadratic
    // de-duplication would take billions of comparisons.
    let exts: Vec<String> = (0..65_536).map(|i| format!("e{i}")).collect();
    let rows = (0..131_072u32)
        .map(|i| taridx::RowData {
            fid: 0,
            offset: u64::from(i) * 1024,
            size: 1,
            extid: (i % 65_536) as u16,
            crashid: 0,
            keyhash: taridx::keyhash("s"),
        })
        .collect();
    let bytes = taridx::IndexFile::new(exts, vec![], rows)
        .unwrap()
        .to_vec()
        .unwrap();
    let index = Index::parse(&bytes).unwrap();
    let map = StemMap::build(&index).unwrap();
    let started = std::time::Instant::now();
    let ids = extension_ids(map.lookup("s"));
    assert!(started.elapsed().as_secs() < 5);
    assert_eq!(ids.len(), 65_536);
    assert!(ids.iter().copied().eq(0..=u16::MAX));
    assert_eq!(map.extension(ids[65_535]), Some("e65535"));
}

/// An index of 64 bytes of header and `n - 1` newlines: `n` empty extensions (or crash
/// stems), declared and held.
fn empty_entries(n: u32, crash: bool) -> Vec<u8> {
    let block = n as usize - 1;
    let mut b = vec![0u8; 64];
    b[..8].copy_from_slice(b"TARIDX\0\0");
    b[8..10].copy_from_slice(&1u16.to_le_bytes());
    b[12..14].copy_from_slice(&32u16.to_le_bytes());
    b[14..16].copy_from_slice(&64u16.to_le_bytes());
    let (ext_len, crash_len) = if crash { (0, block) } else { (block, 0) };
    b[32..36].copy_from_slice(&(if crash { 0 } else { n }).to_le_bytes());
    b[36..40].copy_from_slice(&(if crash { n } else { 0 }).to_le_bytes());
    b[40..48].copy_from_slice(&(64 + ext_len as u64).to_le_bytes());
    b[48..56].copy_from_slice(&(64 + (ext_len + crash_len) as u64).to_le_bytes());
    b[56] = 1;
    b.resize(64 + block, b'\n');
    b
}

#[test]
fn a_million_declared_extensions_cost_what_their_bytes_hold() {
    let bytes = empty_entries(1_000_000, false);
    assert!(bytes.len() < MIB + 64);
    // What `inspect` needs: counts, the extensions one by one, one by id.
    let (_, peak) = memory::peak(|| {
        let index = Index::parse(&bytes).unwrap();
        let exts = index.extensions();
        assert_eq!(exts.len(), 1_000_000);
        assert_eq!(exts.filter(|e| e.is_empty()).count(), 1_000_000);
        assert_eq!(index.extension(65_535), Some(""));
        assert_eq!(index.crash_stems().len(), 0);
    });
    assert_eq!(peak, 0, "the accessors allocate nothing");
    // A stem map tables at most the 65,536 extensions a row can name.
    let index = Index::parse(&bytes).unwrap();
    let (map, peak) = memory::peak(|| StemMap::build(&index).unwrap());
    assert!(peak <= MIB + 4096, "stem map: {peak} bytes");
    assert_eq!(map.extension(65_535), Some(""));
    let (summary, peak) =
        memory::peak(|| verify(&bytes, &ReadOptions::new(), &mut Findings::new(10)));
    assert!(summary.is_valid());
    assert!(peak < 4096, "verify: {peak} bytes");
    let (_, peak) = memory::peak(|| {
        let reader = Reader::<&[u8]>::open(&bytes[..], vec![]).unwrap();
        assert!(reader.sample("x").unwrap().is_empty());
    });
    assert!(
        peak <= 2 * MIB + 8192,
        "reader: {peak} bytes (the index itself, 1 MiB)"
    );

    // A million crash stems, all empty: the crash table keeps one of them.
    let bytes = empty_entries(1_000_000, true);
    let index = Index::parse(&bytes).unwrap();
    let (map, _) = memory::peak(|| StemMap::build(&index).unwrap());
    assert_eq!(map.crashid_of(""), 1);
    assert_eq!(map.crashid_of("x"), 0);
}

#[test]
fn a_trailing_partial_block_is_not_a_truncated_header() {
    let mut shard = member("a.jpg", b"1");
    shard.extend(member("a.cls", b"2"));
    shard.extend_from_slice(&[7u8; 100]);
    let (bytes, report) = strict(&shard);
    assert_eq!(Index::parse(&bytes).unwrap().n_rows(), 2);
    assert_eq!(report.warnings, [support::partial_block(2048, 100)]);
    assert!(
        report
            .warning_messages()
            .next()
            .unwrap()
            .contains("100 bytes after the last member")
    );
}
