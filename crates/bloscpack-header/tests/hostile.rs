//! Hostile and real-world files: one regression test per class (see the CHANGELOG).
// `binfmt_core::verify::Findings` and zlib compression need an allocator.
#![cfg(feature = "alloc")]
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]

mod common;

use core::time::Duration;
use std::time::Instant;

use binfmt_core::verify::Findings;
use bloscpack_header::{
    Bloscpack, Checksum, Error, ErrorKind, Header, HeaderFields, Options, ReadOptions, verify,
};

fn findings(data: &[u8], options: &ReadOptions) -> (binfmt_core::Summary, Findings<Error>) {
    let mut f = Findings::new(16);
    let summary = verify(data, options, &mut f);
    (summary, f)
}

/// A file with one metadata section whose zlib stream is `stream` and whose header
/// declares `meta_size`, and one empty chunk.
fn with_metadata(stream: &[u8], meta_size: u32) -> Vec<u8> {
    let mut bytes = common::with_metadata_format(0);
    bytes.extend_from_slice(&[0, 0, 1, 9]); // no options, no digest, zlib, level 9
    bytes.extend_from_slice(&meta_size.to_le_bytes());
    bytes.extend_from_slice(&(stream.len() as u32).to_le_bytes()); // max_meta_size
    bytes.extend_from_slice(&(stream.len() as u32).to_le_bytes()); // meta_comp_size
    bytes.extend_from_slice(&[0; 8]);
    bytes.extend_from_slice(stream);
    bytes.extend_from_slice(&[2, 1, 0x13, 1, 0, 0, 0, 0, 1, 0, 0, 0, 16, 0, 0, 0]);
    bytes
}

/// 32 MiB of spaces inside a JSON string, deflated: about 64 KB.
fn bomb() -> Vec<u8> {
    let mut json = b"\"".to_vec();
    json.resize(32 << 20, b' ');
    json.push(b'"');
    miniz_oxide::deflate::compress_to_vec_zlib(&json, 9)
}

#[test]
fn metadata_zip_bomb_is_refused_before_inflating() {
    let stream = bomb();
    assert!(stream.len() < 100_000);
    // meta_size says what the stream gives: beyond the default 16 MiB limit.
    let file = with_metadata(&stream, (32 << 20) + 1);
    let parsed = Bloscpack::parse(&file).unwrap();
    let meta = parsed.metadata().unwrap();
    let start = Instant::now();
    let e = meta.text().unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::MetadataLimit { .. }), "{e}");
    assert_eq!(e.offset(), Some(32 + 12));
    assert!(start.elapsed() < Duration::from_millis(100));
    let (summary, f) = findings(&file, &ReadOptions::new());
    assert_eq!(summary.errors(), 1);
    assert!(matches!(
        f.errors()[0].kind(),
        ErrorKind::MetadataLimit { .. }
    ));
    // A small meta_size over a big stream: inflation stops at meta_size.
    let file = with_metadata(&stream, 1000);
    let e = Bloscpack::parse(&file)
        .unwrap()
        .metadata()
        .unwrap()
        .text()
        .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::BadMetadataStream {
                reason: "the stream holds more",
                ..
            }
        ),
        "{e}"
    );
    // Within a raised limit it inflates (and is JSON).
    let file = with_metadata(&stream, (32 << 20) + 1);
    let (summary, f) = findings(&file, &ReadOptions::new().max_metadata_size(1 << 30));
    assert!(summary.is_valid(), "{f:?}");
}

#[test]
fn python_json_metadata_is_accepted_and_kept_verbatim() {
    let json = br#"{"x":NaN,"y":[Infinity,-Infinity],"big":123456789012345678901234567890}"#;
    let stream = miniz_oxide::deflate::compress_to_vec_zlib(json, 6);
    let file = with_metadata(&stream, json.len() as u32);
    let (summary, f) = findings(&file, &ReadOptions::new());
    assert!(summary.is_valid(), "{f:?}");
    let parsed = Bloscpack::parse(&file).unwrap();
    assert_eq!(
        parsed.metadata().unwrap().text().unwrap().as_bytes(),
        &json[..]
    );
    // Not JSON at all: an error of the library now (the CLI used to check it).
    let stream = miniz_oxide::deflate::compress_to_vec_zlib(b"{'a': 1}", 6);
    let file = with_metadata(&stream, 8);
    let (summary, f) = findings(&file, &ReadOptions::new());
    assert_eq!(summary.errors(), 1);
    assert!(matches!(
        f.errors()[0].kind(),
        ErrorKind::MetadataNotJson { .. }
    ));
}

#[test]
fn a_chunk_claiming_more_than_it_can_hold_is_refused_before_allocating() {
    let file = claiming_chunk(false);
    assert_eq!(file.len(), 52);
    // The header rules alone pass (c-blosc's cbuffer_validate too)…
    let parsed = Bloscpack::parse(&file).unwrap();
    // …but verify now says what c-blosc would: the block table does not hold it.
    let (summary, f) = findings(&file, &ReadOptions::new());
    assert_eq!(summary.errors(), 1, "{f:?}");
    assert!(matches!(
        f.errors()[0].kind(),
        ErrorKind::BadBloscHeader { .. }
    ));
    #[cfg(feature = "blosc")]
    {
        use bloscpack_header::UnpackOptions;
        let start = Instant::now();
        let e = parsed.unpack_to_vec(&UnpackOptions::DEFAULT).unwrap_err();
        // Refused by our check, not by c-blosc after zero-filling 700 MB.
        assert!(matches!(e.kind(), ErrorKind::BadBloscHeader { .. }), "{e}");
        assert!(start.elapsed() < Duration::from_millis(200));
    }
    let _ = parsed;
}

#[cfg(feature = "blosc")]
#[test]
fn appending_to_a_claiming_chunk_allocates_nothing() {
    use bloscpack_header::fs::{AppendOptions, append};
    let file = claiming_chunk(true);
    assert_eq!(file.len(), 68);
    let dir = binfmt_test_support::Scratch::new("bloscpack-hostile-claiming-append");
    let path = dir.join("claim.blp");
    std::fs::write(&path, &file).unwrap();
    let start = Instant::now();
    let e = append(&path, b"x", &AppendOptions::new()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::BadBloscHeader { .. }), "{e}");
    assert!(start.elapsed() < Duration::from_millis(200));
    assert_eq!(std::fs::read(&path).unwrap(), file);
}

#[test]
fn c_blosc_header_rules() {
    // Each of these passes the old rules but c-blosc 1.21 refuses it.
    let mut base = claiming_chunk(false);
    // A sound small compressed-looking chunk: nbytes 8, blocksize 8.
    base[32 + 4..32 + 8].copy_from_slice(&8u32.to_le_bytes());
    base[32 + 8..32 + 12].copy_from_slice(&8u32.to_le_bytes());
    base[8..12].copy_from_slice(&8i32.to_le_bytes());
    base[12..16].copy_from_slice(&8i32.to_le_bytes());
    for (what, patch) in [
        (
            "reserved flag 0x08",
            &(|b: &mut Vec<u8>| b[34] |= 0x08) as &dyn Fn(&mut Vec<u8>),
        ),
        ("unknown codec", &|b: &mut Vec<u8>| b[34] |= 0xe0),
        ("stream version", &|b: &mut Vec<u8>| b[33] = 2),
    ] {
        let mut b = base.clone();
        patch(&mut b);
        let e = Bloscpack::parse(&b).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::BadBloscHeader { .. }),
            "{what}: {e}"
        );
        assert_eq!(e.offset(), Some(32));
    }
    // blocksize above c-blosc's BLOSC_MAX_BLOCKSIZE.
    let mut b = base.clone();
    let big = 800_000_000u32;
    b[32 + 4..32 + 8].copy_from_slice(&big.to_le_bytes());
    b[32 + 8..32 + 12].copy_from_slice(&big.to_le_bytes());
    b[8..12].copy_from_slice(&(big as i32).to_le_bytes());
    b[12..16].copy_from_slice(&(big as i32).to_le_bytes());
    let e = Bloscpack::parse(&b).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::BadBloscHeader { .. }), "{e}");
}

/// What bloscpack 0.11 and 0.13 wrote for a numpy array packed with a chunk size that is
/// not a whole number of elements (`np.arange(1000.)`, chunk_size 3001): chunk_size
/// rounded down to 3000, last_chunk left at 1998, and the last chunk holding 1998 rounded
/// down to whole 8-byte elements, 1992 (tests/legacy.rs reads the real files).
#[cfg(feature = "blosc")]
fn short_last_file() -> (Vec<u8>, Vec<u8>) {
    use bloscpack_header::{Metadata, PackOptions};
    let data: Vec<u8> = (0..1000u64)
        .flat_map(|i| (i as f64).to_le_bytes())
        .collect();
    let held = &data[..7992];
    let options = PackOptions {
        chunk_size: 3000,
        metadata: Some(Metadata::new(
            &br#"{"dtype":"'<f8'","shape":[1000],"order":"C","container":"numpy"}"#[..],
        )),
        ..PackOptions::default()
    };
    let mut file = options.to_vec(held).unwrap();
    assert_eq!(i32::from_le_bytes(file[12..16].try_into().unwrap()), 1992);
    // The header promises the unrounded last_chunk, as 0.11 wrote it.
    file[12..16].copy_from_slice(&1998i32.to_le_bytes());
    (file, held.to_vec())
}

#[cfg(feature = "blosc")]
#[test]
fn a_short_last_chunk_is_read_with_a_warning() {
    use bloscpack_header::UnpackOptions;
    let (file, held) = short_last_file();
    let parsed = Bloscpack::parse(&file).unwrap();
    assert_eq!(parsed.uncompressed_len(), 7992);
    assert_eq!(parsed.header().uncompressed_len(), Some(7998));
    assert_eq!(parsed.shortfall(), 6);
    let warnings: Vec<Error> = parsed.warnings().collect();
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].to_string().contains(
            "the header's sizes promise 7998 bytes, the chunks hold 7992: the last chunk holds last_chunk (1998) rounded down to whole 8-byte elements"
        ),
        "{}",
        warnings[0]
    );
    let mut seen = Vec::new();
    let summary = verify(
        &file,
        &ReadOptions::new(),
        &mut |s: bloscpack_header::Severity, e| {
            seen.push((s, e));
            core::ops::ControlFlow::Continue(())
        },
    );
    assert!(summary.is_valid());
    assert_eq!(summary.warnings(), 1);
    assert!(matches!(seen[0].1.kind(), ErrorKind::ShortLastChunk { .. }));
    let mut out = Vec::new();
    let report = parsed
        .unpack_to_writer(&mut out, &UnpackOptions::DEFAULT)
        .unwrap();
    assert_eq!((report.written, report.shortfall), (7992, 6));
    assert_eq!(out, held);
    // Other mismatches stay errors: a whole element short (no release wrote that), more.
    for last in [2000, 2001, 2500] {
        let mut worse = file.clone();
        worse[12..16].copy_from_slice(&i32::to_le_bytes(last));
        assert!(Bloscpack::parse(&worse).is_err(), "{last}");
    }
}

#[test]
fn trailing_bytes_are_a_warning() {
    let mut file = with_metadata(&miniz_oxide::deflate::compress_to_vec_zlib(b"{}", 6), 2);
    file.extend_from_slice(b"stale");
    let (summary, f) = findings(&file, &ReadOptions::new());
    assert!(summary.is_valid());
    assert_eq!(f.warnings().len(), 1);
    assert!(matches!(
        f.warnings()[0].kind(),
        ErrorKind::TrailingBytes { len: 5, .. }
    ));
}

/// The block-table check bounds what a stream may give by its codec's largest ratio:
/// the most compressible data, under every codec, shuffle and level, passes it.
#[cfg(feature = "blosc")]
#[test]
fn the_most_compressible_data_passes_the_block_check() {
    use bloscpack_header::{BloscArgs, Compressor, PackOptions, Shuffle, UnpackOptions};
    let zeros = vec![0u8; 4 << 20];
    for compressor in Compressor::ALL {
        for shuffle in [Shuffle::None, Shuffle::Byte, Shuffle::Bit] {
            for (typesize, clevel) in [(1, 9), (8, 9), (16, 5), (255, 1)] {
                let options = PackOptions {
                    chunk_size: 2 << 20,
                    blosc: BloscArgs {
                        typesize,
                        clevel,
                        shuffle,
                        compressor,
                    },
                    ..PackOptions::default()
                };
                let packed = options.to_vec(&zeros).unwrap();
                let ctx = format!("{compressor} {shuffle} {typesize} {clevel}");
                let (summary, f) = findings(&packed, &ReadOptions::new());
                assert!(summary.is_valid(), "{ctx}: {f:?}");
                let file = Bloscpack::parse(&packed).unwrap();
                assert_eq!(
                    file.unpack_to_vec(&UnpackOptions::DEFAULT).unwrap(),
                    zeros,
                    "{ctx}"
                );
            }
        }
    }
}

/// The parallel unpack stops at the first bad chunk, whichever thread finds it, and says
/// which; no thread is left waiting.
#[cfg(feature = "blosc")]
#[test]
fn a_bad_chunk_stops_the_parallel_unpack() {
    use bloscpack_header::UnpackOptions;
    let data: Vec<u8> = (0..400_000u32).map(|i| (i / 7) as u8).collect();
    let packed = common::chunks_of(10_000).to_vec(&data).unwrap();
    let file = Bloscpack::parse(&packed).unwrap();
    for threads in [1, 2, 4, 8] {
        let options = UnpackOptions::DEFAULT.threads(threads);
        assert_eq!(file.unpack_to_vec(&options).unwrap(), data);
        for bad in [0, 17, 39] {
            let mut broken = packed.clone();
            let at = file.chunk(bad).unwrap().offset() as usize + 30;
            broken[at] ^= 0x40;
            let parsed = Bloscpack::parse(&broken).unwrap();
            let e = parsed.unpack_to_vec(&options).unwrap_err();
            assert!(
                matches!(e.kind(), ErrorKind::ChunkDigestMismatch { index, .. } if *index == bad),
                "{threads} threads, chunk {bad}: {e}"
            );
            // Without digests the corruption reaches c-blosc, or decodes to other bytes.
            let mut out = Vec::new();
            let r = parsed.unpack_to_writer(&mut out, &options.verify(false));
            assert!(r.is_err() || out != data);
        }
    }
    // A writer that fails stops it too.
    struct Full(usize);
    impl std::io::Write for Full {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.0 > 100_000 {
                return Err(std::io::Error::other("disk full"));
            }
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let e = file
        .unpack_to_writer(Full(0), &UnpackOptions::DEFAULT.threads(2))
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Io(_)), "{e}");
}

/// A 52-byte file (68 with an offsets section): one Blosc chunk that claims 700 MB from
/// a 20-byte buffer.
fn claiming_chunk(offsets: bool) -> Vec<u8> {
    let n = 700_000_000u32;
    let header = Header::new(HeaderFields {
        options: if offsets {
            Options::OFFSETS
        } else {
            Options::NONE
        },
        checksum: Checksum::None,
        typesize: 1,
        chunk_size: Some(n),
        last_chunk: Some(n),
        nchunks: Some(1),
        max_app_chunks: u64::from(offsets),
    })
    .unwrap();
    let mut bytes = header.to_bytes().to_vec();
    if offsets {
        bytes.extend_from_slice(&48u64.to_le_bytes());
        bytes.extend_from_slice(&(-1i64).to_le_bytes());
    }
    bytes.extend_from_slice(&[2, 1, 0x00, 1]); // blosclz, no shuffle, typesize 1
    bytes.extend_from_slice(&n.to_le_bytes()); // nbytes
    bytes.extend_from_slice(&n.to_le_bytes()); // blocksize
    bytes.extend_from_slice(&20u32.to_le_bytes()); // cbytes
    bytes.extend_from_slice(&16u32.to_le_bytes()); // block 0 starts at 16
    bytes
}

/// The two files [`claiming_chunk`] makes are committed as `tests/fixtures/hostile/`,
/// where the CLI's tests read them (`binfmt bloscpack unpack|append` must refuse them as
/// the library does).
#[test]
fn the_committed_claiming_chunks_are_what_this_file_makes() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile");
    for (name, offsets) in [
        ("claims_700mb.blp", false),
        ("claims_700mb_offsets.blp", true),
    ] {
        let path = dir.join(name);
        if std::env::var_os("BINFMT_REGENERATE").is_some() {
            std::fs::write(&path, claiming_chunk(offsets)).unwrap();
        }
        assert_eq!(
            std::fs::read(&path).unwrap(),
            claiming_chunk(offsets),
            "{name}"
        );
    }
}
