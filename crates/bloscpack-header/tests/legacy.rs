//! Files the real bloscpack 0.11.0 and 0.13.0 wrote (`tests/fixtures/legacy/`, made by
//! `tools/bloscpack/make_legacy.py fixtures` with each release installed, which also
//! recorded in `expected.json` what the release's own readers say about each file).
//!
//! Those releases round chunk_size down to whole elements after splitting the array with
//! the requested chunk size, and compress `int(last_chunk / itemsize)` elements for the
//! last chunk: its nbytes is last_chunk rounded down to whole elements. Each file must
//! parse and verify (with one `ShortLastChunk` warning when its last chunk is short), and
//! unpack to exactly the bytes the release's own `unpack_bytes_file` returns.
// `binfmt_core::verify::Findings` needs an allocator.
#![cfg(feature = "alloc")]
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

use binfmt_core::verify::Findings;
use bloscpack_header::{Bloscpack, Error, ErrorKind, ReadOptions, verify};
use serde_json::Value;

fn legacy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/legacy")
}

fn manifest() -> serde_json::Map<String, Value> {
    let text = std::fs::read_to_string(legacy().join("expected.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v.as_object().unwrap().clone()
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(legacy().join(name)).unwrap()
}

fn u64_of(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

fn verified(data: &[u8]) -> (binfmt_core::Summary, Findings<Error>) {
    let mut f = Findings::new(16);
    let summary = verify(data, &ReadOptions::new(), &mut f);
    (summary, f)
}

#[test]
fn the_fixtures_cover_both_releases_and_short_and_whole_last_chunks() {
    let m = manifest();
    assert!(m.len() >= 20, "{}", m.len());
    for release in ["0.11.0", "0.13.0"] {
        let of = |short: bool| {
            m.values()
                .filter(|e| e["release"] == release && (u64_of(&e["shortfall"]) > 0) == short)
                .count()
        };
        assert!(of(true) >= 8 && of(false) >= 4, "{release}");
    }
    // The issue's file: 24-byte records, the default chunk size, two chunks.
    let issue = &m["0_11_0_rec24_issue.blp"];
    assert_eq!(issue["chunks"], serde_json::json!([1_048_560, 54_456]));
    assert_eq!(issue["last_chunk"], 54_464);
}

#[test]
fn every_file_parses_and_verifies_with_a_true_warning() {
    for (name, e) in manifest() {
        let data = read(&name);
        let file = Bloscpack::parse(&data).unwrap_or_else(|err| panic!("{name}: {err}"));
        let h = file.header();
        assert_eq!(u64::from(h.typesize()), u64_of(&e["typesize"]), "{name}");
        assert_eq!(
            h.chunk_size().map(u64::from),
            Some(u64_of(&e["chunk_size"])),
            "{name}"
        );
        assert_eq!(
            h.last_chunk().map(u64::from),
            Some(u64_of(&e["last_chunk"])),
            "{name}"
        );
        assert_eq!(h.nchunks(), Some(u64_of(&e["nchunks"])), "{name}");
        let nbytes: Vec<u64> = file
            .chunks()
            .map(|c| u64::from(c.header().nbytes))
            .collect();
        let want: Vec<u64> = e["chunks"].as_array().unwrap().iter().map(u64_of).collect();
        assert_eq!(nbytes, want, "{name}");
        let held = u64_of(&e["held"]);
        let shortfall = u64_of(&e["shortfall"]);
        let promised = u64_of(&e["promised"]);
        assert_eq!(file.uncompressed_len(), held, "{name}");
        assert_eq!(file.shortfall(), shortfall, "{name}");
        assert_eq!(h.uncompressed_len(), Some(promised), "{name}");
        assert_eq!(
            shortfall,
            u64_of(&e["last_chunk"]) % u64_of(&e["typesize"]).max(1),
            "{name}"
        );
        let warnings: Vec<Error> = file.warnings().collect();
        let (summary, findings) = verified(&data);
        assert!(summary.is_valid(), "{name}: {findings:?}");
        if shortfall == 0 {
            assert!(warnings.is_empty(), "{name}: {warnings:?}");
            assert_eq!(summary.warnings(), 0, "{name}");
            continue;
        }
        assert_eq!(warnings.len(), 1, "{name}: {warnings:?}");
        assert!(
            matches!(warnings[0].kind(), ErrorKind::ShortLastChunk { .. }),
            "{name}"
        );
        let text = warnings[0].to_string();
        let last_chunk = u64_of(&e["last_chunk"]);
        let typesize = u64_of(&e["typesize"]);
        for part in [
            format!("the header's sizes promise {promised} bytes, the chunks hold {held}"),
            format!("last_chunk ({last_chunk}) rounded down to whole {typesize}-byte elements"),
            "bloscpack 0.11 and 0.13".to_owned(),
            // Every fixture has numpy metadata.
            "the array the metadata describes can be longer still".to_owned(),
        ] {
            assert!(text.contains(&part), "{name}: {text}");
        }
        // The array is never shorter than what the chunks hold, and longer by at most
        // typesize − 1 bytes a chunk.
        let array = u64_of(&e["array_nbytes"]);
        let nchunks = u64_of(&e["nchunks"]);
        assert!(
            array >= held && array - held <= nchunks * (typesize - 1),
            "{name}"
        );
        assert_eq!(summary.warnings(), 1, "{name}");
        assert!(
            matches!(
                findings.warnings()[0].kind(),
                ErrorKind::ShortLastChunk { .. }
            ),
            "{name}"
        );
    }
}

#[cfg(feature = "blosc")]
#[test]
fn every_file_unpacks_to_what_the_release_itself_unpacks() {
    use bloscpack_header::UnpackOptions;
    use sha2::Digest;
    for (name, e) in manifest() {
        let data = read(&name);
        let file = Bloscpack::parse(&data).unwrap();
        let mut out = Vec::new();
        let report = file
            .unpack_to_writer(&mut out, &UnpackOptions::DEFAULT)
            .unwrap_or_else(|err| panic!("{name}: {err}"));
        assert_eq!(report.written, u64_of(&e["held"]), "{name}");
        assert_eq!(report.shortfall, u64_of(&e["shortfall"]), "{name}");
        assert_eq!(out.len() as u64, report.written, "{name}");
        let digest: String = sha2::Sha256::digest(&out)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(digest, e["sha256"].as_str().unwrap(), "{name}");
    }
}

/// `data` with the header's last_chunk (bytes 12..16) replaced.
fn with_last_chunk(data: &[u8], last_chunk: i32) -> Vec<u8> {
    let mut b = data.to_vec();
    b[12..16].copy_from_slice(&last_chunk.to_le_bytes());
    b
}

#[test]
fn only_the_shortfall_those_releases_wrote_is_accepted() {
    // chunk_size 3000, last_chunk 1998, typesize 8: the last chunk holds 1992.
    let data = read("0_11_0_f8_short.blp");
    assert!(Bloscpack::parse(&data).is_ok());
    // Whole: no warning.
    let whole = with_last_chunk(&data, 1992);
    let file = Bloscpack::parse(&whole).unwrap();
    assert_eq!((file.shortfall(), file.warnings().count()), (0, 0));
    // 1 to 7 bytes short: last_chunk rounded down to whole elements is 1992.
    for last in 1993..=1999 {
        let b = with_last_chunk(&data, last);
        let file = Bloscpack::parse(&b).unwrap_or_else(|e| panic!("{last}: {e}"));
        assert_eq!(file.shortfall(), u64::from(last.unsigned_abs()) - 1992);
    }
    // A whole element short (what no release wrote), or more: errors.
    for last in [2000, 2001, 2007, 2990] {
        let b = with_last_chunk(&data, last);
        let e = Bloscpack::parse(&b).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::ChunkSizeMismatch { .. }),
            "{last}: {e}"
        );
        let (summary, _) = verified(&b);
        assert!(!summary.is_valid(), "{last}");
    }
    // A last chunk holding more than last_chunk: an error.
    assert!(Bloscpack::parse(&with_last_chunk(&data, 1991)).is_err());
    // Another typesize makes 1992 something else than 1998 rounded down: an error.
    for typesize in [1u8, 3, 5, 16] {
        let mut b = data.clone();
        b[7] = typesize;
        assert!(Bloscpack::parse(&b).is_err(), "typesize {typesize}");
    }
    // A chunk_size that is not a whole number of elements: those releases rounded it.
    let mut b = data.clone();
    b[8..12].copy_from_slice(&3001i32.to_le_bytes());
    assert!(Bloscpack::parse(&b).is_err());
}

#[test]
fn a_single_chunk_is_never_short() {
    // One 15-byte record; last_chunk = chunk_size = 15. Promise 16..29 bytes instead:
    // chunk_size must grow with it (last_chunk <= chunk_size), and a single chunk's size
    // was never rounded, so each is an error.
    let data = read("0_11_0_rec15_one.blp");
    assert!(Bloscpack::parse(&data).is_ok());
    for last in 16..30 {
        let mut b = with_last_chunk(&data, last);
        b[8..12].copy_from_slice(&30i32.to_le_bytes());
        assert!(Bloscpack::parse(&b).is_err(), "{last}");
    }
}

#[test]
fn a_cut_legacy_file_is_an_error() {
    let data = read("0_11_0_rec24_issue.blp");
    for cut in [1, 4, 100, data.len() / 2] {
        let b = &data[..data.len() - cut];
        assert!(Bloscpack::parse(b).is_err(), "{cut}");
        let (summary, _) = verified(b);
        assert!(!summary.is_valid(), "{cut}");
    }
}

/// Appending to a file whose last chunk is short would have to fill the missing bytes:
/// refused, the file left as it was (unpack it and pack it anew).
#[cfg(feature = "blosc")]
#[test]
fn appending_to_a_short_legacy_file_is_refused() {
    use bloscpack_header::fs::{AppendOptions, append};
    let dir = binfmt_test_support::Scratch::new("bloscpack-legacy-append-short");
    let path = dir.join("short.blp");
    let data = read("0_13_0_rec15_short.blp");
    std::fs::write(&path, &data).unwrap();
    assert!(append(&path, &[0u8; 30], &AppendOptions::new()).is_err());
    assert_eq!(std::fs::read(&path).unwrap(), data);
}
