//! One view, two kinds of data: every fixture parsed over `&[u8]` and over
//! `&ReadCache<Counting<&[u8]>>` gives the same answers from every accessor, and the same
//! first error for every bad, truncated or corrupted file.
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

use binfmt_core::cache::ReadCache;
use binfmt_core::data::Data;
use binfmt_core::source::Counting;
use core::ops::ControlFlow;

use bloscpack_header::{Bloscpack, Error, ReadOptions, Severity, verify, verify_data};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn files() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "blp"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    assert!(out.len() > 40);
    out
}

fn text(e: &Error) -> String {
    format!("{:?} {e}", e.offset())
}

/// Everything a view answers, as text.
fn answers<'d, D: Data<'d>>(v: &Bloscpack<'d, D>) -> Vec<String>
where
    Error: From<D::Error>,
{
    let mut out = vec![
        format!("{:?}", v.header()),
        format!(
            "{:?}",
            v.metadata().map(|m| (
                m.offset(),
                m.len(),
                m.format(),
                m.meta_size(),
                m.max_meta_size(),
                m.meta_comp_size(),
                m.digest_offset(),
                m.stored(),
                m.digest(),
                m.verify().map_err(|e| text(&e)),
            ))
        ),
        format!("{:?}", v.metadata().map(|m| m.text().map_err(|e| text(&e)))),
        format!(
            "{} {:?} {} {} {} {} {} {} {} {}",
            v.offsets_offset(),
            v.offsets().collect::<Vec<_>>(),
            v.chunks_offset(),
            v.nchunks(),
            v.uncompressed_len(),
            v.shortfall(),
            v.largest_chunk(),
            v.end(),
            v.size(),
            v.trailing_len(),
        ),
        format!("{:?}", v.warnings().map(|e| text(&e)).collect::<Vec<_>>()),
        format!("{:?}", v.verify_digests().map_err(|e| text(&e))),
    ];
    for (i, c) in v.chunks().enumerate() {
        let by_index = v.chunk(i as u64).unwrap();
        assert_eq!(by_index.offset(), c.offset());
        out.push(format!(
            "{} {} {:?} {} {} {:?} {:?}",
            c.index(),
            c.offset(),
            c.header(),
            c.digest_offset(),
            c.nbytes_offset(),
            c.verify().map_err(|e| text(&e)),
            c.check_blocks().map_err(|e| text(&e)),
        ));
        out.push(format!("{:?}", c.read().unwrap()));
        #[cfg(feature = "blosc")]
        {
            let mut buf = vec![0u8; c.header().nbytes as usize];
            out.push(format!(
                "{:?} {:?}",
                c.decompress_into(&mut buf).map_err(|e| text(&e)),
                buf
            ));
        }
    }
    #[cfg(feature = "blosc")]
    out.push(format!(
        "{:?}",
        v.unpack_to_vec(&bloscpack_header::UnpackOptions::DEFAULT)
            .map_err(|e| text(&e))
    ));
    out
}

/// Every finding of `verify` over bytes and of `verify_data` over a cache.
fn findings(name: &str, data: &[u8], options: &ReadOptions) {
    let mut a = Vec::new();
    let sa = verify(data, options, &mut |s: Severity, e: Error| {
        a.push((s, text(&e)));
        ControlFlow::Continue(())
    });
    let source = Counting::new(data);
    let cache = ReadCache::new(&source);
    let mut b = Vec::new();
    let sb = verify_data(&cache, options, &mut |s: Severity, e: Error| {
        b.push((s, text(&e)));
        ControlFlow::Continue(())
    });
    assert_eq!(a, b, "{name}");
    assert_eq!(format!("{sa:?}"), format!("{sb:?}"), "{name}");
}

fn both(name: &str, data: &[u8], options: &ReadOptions) -> Result<Vec<String>, String> {
    findings(name, data, options);
    let slice = Bloscpack::parse_with(data, options);
    let source = Counting::new(data);
    let cache = ReadCache::new(&source);
    let ranged = Bloscpack::from_data_with(&cache, options);
    match (slice, ranged) {
        (Ok(a), Ok(b)) => {
            let (a, b) = (answers(&a), answers(&b));
            assert_eq!(a, b, "{name}");
            Ok(a)
        }
        (Err(a), Err(b)) => {
            assert_eq!(text(&a), text(&b), "{name}");
            assert_eq!(
                format!("{:?}", a.kind()),
                format!("{:?}", b.kind()),
                "{name}"
            );
            Err(text(&a))
        }
        (a, b) => panic!(
            "{name}: slice {:?}, cache {:?}",
            a.map(|_| ()),
            b.map(|_| ())
        ),
    }
}

#[test]
fn every_fixture_agrees() {
    let mut valid = 0;
    for (name, data) in files() {
        for options in [ReadOptions::new(), ReadOptions::BLOSCPACK] {
            if both(&name, &data, &options).is_ok() {
                valid += 1;
            }
        }
    }
    assert!(valid > 60, "{valid}");
}

#[test]
fn every_truncation_and_corruption_gets_the_same_first_error() {
    for (name, data) in files() {
        if data.len() > 200_000 {
            continue;
        }
        let step = (data.len() / 97).max(1);
        for len in (0..data.len()).step_by(step) {
            let _ = both(
                &format!("{name}[..{len}]"),
                &data[..len],
                &ReadOptions::new(),
            );
        }
        for at in (0..data.len()).step_by(step) {
            for flip in [0x01u8, 0xff] {
                let mut bad = data.clone();
                bad[at] ^= flip;
                let _ = both(&format!("{name}@{at}^{flip:#x}"), &bad, &ReadOptions::new());
            }
        }
    }
}

/// A 100-chunk file (400-byte chunks, stored, with digests) and where each chunk's digest
/// and offsets entry are.
#[cfg(feature = "blosc")]
fn hundred_chunks() -> (Vec<u8>, Vec<u64>, Vec<u64>) {
    let input = binfmt_test_support::noise::noise_low(40_000, 7);
    let packed = bloscpack_header::PackOptions {
        chunk_size: 400,
        ..bloscpack_header::PackOptions::default()
    }
    .to_vec(&input)
    .unwrap();
    let view = Bloscpack::parse(&packed[..]).unwrap();
    assert_eq!(view.nchunks(), 100);
    let digests = view.chunks().map(|c| c.digest_offset()).collect();
    // The offsets section: where the first entry (chunk 0's offset) is, after the header.
    let first = view.chunks().next().unwrap().offset().to_le_bytes();
    let section = 32 + packed[32..].windows(8).position(|w| w == first).unwrap() as u64;
    let entries = (0..100).map(|i| section + 8 * i).collect();
    (packed, digests, entries)
}

/// Over a cache that reads ahead, `verify` checks each chunk as its walk reaches it and
/// holds what it finds until the walk's own problems are out: the order is the slice's,
/// also with more problems than it holds (64) and with a problem of the structure after
/// problems in the chunks.
#[cfg(feature = "blosc")]
#[test]
fn chunk_problems_come_after_the_structure_in_the_order_bytes_in_memory_give() {
    let (packed, digests, entries) = hundred_chunks();
    findings("clean", &packed, &ReadOptions::new());
    for bad in [3usize, 64, 65, 100] {
        let mut file = packed.clone();
        for &at in digests.iter().take(bad) {
            file[usize::try_from(at).unwrap()] ^= 0x5a;
        }
        findings(&format!("{bad} digests"), &file, &ReadOptions::new());
        // A wrong offsets entry late in the file: reported first, the walk goes on.
        let at = usize::try_from(entries[90]).unwrap();
        file[at] ^= 0x01;
        findings(
            &format!("{bad} digests, entry 90"),
            &file,
            &ReadOptions::new(),
        );
        findings(
            &format!("{bad} digests, entry 90, no checksums"),
            &file,
            &ReadOptions::new().checksums(false),
        );
    }
}

/// What `parse_with` then `unpack_to_vec` give over bytes in memory, and what
/// `parse_and_unpack` gives over a cache that reads ahead (its one-pass walk): the same
/// bytes, or the same first error.
#[cfg(feature = "blosc")]
fn unpacked_alike(name: &str, data: &[u8]) {
    use bloscpack_header::UnpackOptions;
    let options = UnpackOptions::DEFAULT;
    let slice = Bloscpack::parse_with(data, &ReadOptions::new())
        .and_then(|v| v.unpack_to_vec(&options))
        .map_err(|e| text(&e));
    let source = Counting::new(data);
    let cache = ReadCache::new(&source);
    let mut out = Vec::new();
    let fused = Bloscpack::parse_and_unpack(&cache, &ReadOptions::new(), &options, &mut out)
        .map(|(_, report)| {
            assert_eq!(report.written, out.len() as u64, "{name}");
            out.clone()
        })
        .map_err(|e| text(&e));
    assert_eq!(slice, fused, "{name}");
}

#[cfg(feature = "blosc")]
#[test]
fn parse_and_unpack_gives_what_the_two_steps_give() {
    for (name, data) in files() {
        unpacked_alike(&name, &data);
        if data.len() > 200_000 {
            continue;
        }
        let step = (data.len() / 31).max(1);
        for len in (0..data.len()).step_by(step) {
            unpacked_alike(&format!("{name}[..{len}]"), &data[..len]);
        }
        for at in (0..data.len()).step_by(step) {
            let mut bad = data.clone();
            bad[at] ^= 0x5a;
            unpacked_alike(&format!("{name}@{at}"), &bad);
        }
    }
    let (packed, digests, entries) = hundred_chunks();
    unpacked_alike("hundred", &packed);
    for (bad_digest, bad_entry) in [(Some(3), None), (None, Some(90)), (Some(3), Some(90))] {
        let mut file = packed.clone();
        if let Some(i) = bad_digest {
            file[usize::try_from(digests[i]).unwrap()] ^= 0x5a;
        }
        if let Some(i) = bad_entry {
            file[usize::try_from(entries[i]).unwrap()] ^= 0x01;
        }
        unpacked_alike(&format!("hundred {bad_digest:?} {bad_entry:?}"), &file);
    }
}
