//! Interop with the reference, bloscpack 0.16.0.
//!
//! Reading: every fixture in `tests/fixtures/` was made by bloscpack
//! (`tools/bloscpack/make_fixtures.py`), which also recorded in `expected.json` what
//! bloscpack itself reports for each file. Every field we decode must equal it, unpacking
//! must give the original input, and each bad file must get our specific error.
//!
//! Writing: files we pack are read by bloscpack itself (`tools/bloscpack/check_*.py`,
//! run when `BINFMT_PYTHON` names a Python with the reference installed).
// `binfmt_core::verify::Findings` and zlib compression need an allocator.
#![cfg(feature = "alloc")]
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

use bloscpack_header::{Bloscpack, Error, ErrorKind, Layout, ReadOptions};
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn expected() -> serde_json::Map<String, Value> {
    let text = std::fs::read_to_string(fixtures().join("expected.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["fixtures"].as_object().unwrap().clone()
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(name)).unwrap()
}

#[cfg(feature = "blosc")]
fn sha256_hex(data: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn hex(data: &[u8]) -> String {
    data.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares everything we decode with what the reference reported.
fn compare(name: &str, file: &Bloscpack<'_>, reference: &Value) {
    let h = file.header();
    let rh = &reference["header"];
    assert_eq!(
        i64::from(h.version()),
        rh["format_version"],
        "{name}: version"
    );
    assert_eq!(h.has_offsets(), rh["offsets"], "{name}: offsets bit");
    assert_eq!(h.has_metadata(), rh["metadata"], "{name}: metadata bit");
    assert_eq!(h.checksum().name(), rh["checksum"], "{name}: checksum");
    assert_eq!(i64::from(h.typesize()), rh["typesize"], "{name}: typesize");
    assert_eq!(
        i64::from(h.raw_chunk_size()),
        rh["chunk_size"],
        "{name}: chunk_size"
    );
    assert_eq!(
        i64::from(h.raw_last_chunk()),
        rh["last_chunk"],
        "{name}: last_chunk"
    );
    assert_eq!(h.raw_nchunks(), rh["nchunks"], "{name}: nchunks");
    assert_eq!(
        h.max_app_chunks(),
        rh["max_app_chunks"],
        "{name}: max_app_chunks"
    );

    let offsets: Vec<u64> = file.offsets().collect();
    let want: Vec<u64> = reference["offsets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(offsets, want, "{name}: offsets");

    match (file.metadata(), &reference["metadata_header"]) {
        (None, Value::Null) => assert!(reference["metadata"].is_null()),
        (Some(m), rm) => {
            assert_eq!(m.format(), rm["magic_format"].as_str().unwrap().as_bytes());
            assert_eq!(m.checksum().name(), rm["meta_checksum"], "{name}");
            assert_eq!(m.codec().name(), rm["meta_codec"], "{name}");
            assert_eq!(i64::from(m.level()), rm["meta_level"], "{name}");
            assert_eq!(i64::from(m.meta_size()), rm["meta_size"], "{name}");
            assert_eq!(i64::from(m.max_meta_size()), rm["max_meta_size"], "{name}");
            assert_eq!(
                i64::from(m.meta_comp_size()),
                rm["meta_comp_size"],
                "{name}"
            );
            // The no-allocation path (available without features).
            let mut buf = vec![0u8; m.meta_size() as usize];
            let text = m.decode_into(&mut buf).unwrap();
            let ours: Value = serde_json::from_str(text).unwrap();
            assert_eq!(ours, reference["metadata"], "{name}: metadata");
            #[cfg(feature = "alloc")]
            assert_eq!(m.text().unwrap(), text, "{name}");
        }
        (None, other) => panic!("{name}: reference has metadata {other}"),
    }

    let chunks: Vec<_> = file.chunks().collect();
    let rchunks = reference["chunks"].as_array().unwrap();
    assert_eq!(chunks.len(), rchunks.len(), "{name}: chunk count");
    assert_eq!(file.nchunks(), rchunks.len() as u64);
    for (c, r) in chunks.iter().zip(rchunks) {
        let ch = c.header();
        let ctx = format!("{name}: chunk {}", c.index());
        assert_eq!(c.offset(), r["offset"], "{ctx}");
        assert_eq!(i64::from(ch.version), r["version"], "{ctx}");
        assert_eq!(i64::from(ch.versionlz), r["versionlz"], "{ctx}");
        assert_eq!(i64::from(ch.flags.bits()), r["flags"], "{ctx}");
        assert_eq!(i64::from(ch.typesize), r["typesize"], "{ctx}");
        assert_eq!(i64::from(ch.nbytes), r["nbytes"], "{ctx}");
        assert_eq!(i64::from(ch.blocksize), r["blocksize"], "{ctx}");
        assert_eq!(i64::from(ch.cbytes), r["cbytes"], "{ctx}");
        assert_eq!(hex(c.digest()), r["digest"], "{ctx}");
        assert_eq!(c.verify().is_ok(), r["digest_ok"], "{ctx}");
        assert_eq!(file.chunk(c.index()), Some(*c), "{ctx}: random access");
    }
    assert_eq!(
        file.uncompressed_len(),
        reference["unpacked_len"].as_u64().unwrap(),
        "{name}"
    );
    assert_eq!(
        h.uncompressed_len(),
        Some(file.uncompressed_len()),
        "{name}"
    );
}

#[test]
fn every_field_equals_what_bloscpack_reports() {
    let expected = expected();
    assert!(expected.len() >= 40);
    let mut checked = 0;
    for (name, entry) in &expected {
        let reference = &entry["reference"];
        if reference["ok"] != true {
            continue;
        }
        let data = read(entry["file"].as_str().unwrap());
        let file = Bloscpack::parse(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        compare(name, &file, reference);
        file.verify_digests()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut findings = binfmt_core::verify::Findings::new(4);
        let summary = bloscpack_header::verify(&data, &ReadOptions::new(), &mut findings);
        assert!(
            summary.is_valid() && summary.warnings() == 0,
            "{name}: {:?}",
            findings
        );
        assert!(file.trailing().is_empty(), "{name}");
        checked += 1;
    }
    assert!(checked >= 35, "only {checked} fixtures checked");
}

#[test]
fn version_2_is_read_by_default_and_refused_like_bloscpack_on_request() {
    let expected = expected();
    // The reference refuses it; its content is that of max_app_0 (byte 4 aside).
    assert_eq!(
        expected["version2"]["reference"]["error"],
        "FormatVersionMismatch"
    );
    let data = read("version2.blp");
    let file = Bloscpack::parse(&data).unwrap();
    assert_eq!(file.header().version(), 2);
    let mut reference = expected["max_app_0"]["reference"].clone();
    reference["header"]["format_version"] = 2.into();
    compare("version2", &file, &reference);
    let e = Bloscpack::parse_with(&data, &ReadOptions::BLOSCPACK).unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::Layout(Layout::VersionTooOld { .. })
    ));
    assert_eq!(e.offset(), Some(4));
}

#[test]
fn bad_files_get_our_errors() {
    let expected = expected();
    let parse = |name: &str| {
        assert_eq!(
            expected[name]["reference"]["ok"], false,
            "{name}: the reference accepts it"
        );
        let data = read(&format!("{name}.blp"));
        let e = Bloscpack::parse(&data)
            .and_then(|f| f.verify_digests())
            .err()?;
        Some((e.offset(), e.into_kind()))
    };
    let verify = |name: &str| {
        let data = read(&format!("{name}.blp"));
        let file = Bloscpack::parse(&data).unwrap();
        file.verify_digests().unwrap_err().into_kind()
    };
    assert!(matches!(
        parse("bad_magic"),
        Some((Some(0), ErrorKind::Layout(Layout::BadMagic { .. })))
    ));
    assert!(matches!(
        parse("bad_options"),
        Some((Some(5), ErrorKind::UndefinedOptions { options: 0x05, .. }))
    ));
    assert!(matches!(
        parse("bad_checksum_id"),
        Some((Some(6), ErrorKind::UnknownChecksum { id: 9, .. }))
    ));
    assert!(matches!(
        parse("truncated"),
        Some((_, ErrorKind::Layout(Layout::Truncated { .. })))
    ));
    // bloscpack skips a short digest; for us it is a truncated file.
    assert!(matches!(
        parse("truncated_digest"),
        Some((
            _,
            ErrorKind::Layout(Layout::Truncated {
                what: "chunk digest",
                ..
            })
        ))
    ));
    assert!(matches!(
        verify("bad_digest"),
        ErrorKind::ChunkDigestMismatch { index: 0, .. }
    ));
    let e = verify("bad_meta_digest");
    assert!(matches!(e, ErrorKind::MetadataDigestMismatch { .. }), "{e}");
    // Every digest error is listed by `verify`, with its offset.
    let data = read("bad_digest.blp");
    let file = Bloscpack::parse(&data).unwrap();
    let mut findings = binfmt_core::verify::Findings::new(8);
    let summary = bloscpack_header::verify(&data, &ReadOptions::new(), &mut findings);
    assert_eq!(summary.errors(), 1, "{findings:?}");
    let errors = findings.errors();
    assert_eq!(
        binfmt_core::Diagnostic::offset(&errors[0]),
        Some(file.chunk(0).unwrap().digest_offset())
    );
    let _: &Error = &errors[0];
}

#[test]
fn worked_example_offsets() {
    // docs/bloscpack.md's worked example: 100,000 bytes, 32 KiB chunks, 40 spare slots.
    let data = read("ramp_100000.blp");
    let file = Bloscpack::parse(&data).unwrap();
    assert_eq!(file.offsets().collect::<Vec<_>>(), [384, 1516, 2127, 2961]);
    assert_eq!(file.header().max_app_chunks(), 40);
    let empty = read("empty.blp");
    assert_eq!(empty.len(), 140);
    let file = Bloscpack::parse(&empty).unwrap();
    assert_eq!(file.offsets().collect::<Vec<_>>(), [120]);
    assert_eq!(file.chunk(0).unwrap().digest(), [0x30, 0x00, 0xf9, 0x01]);
}

/// A file whose last chunk holds one whole element less than last_chunk
/// (tools/bloscpack/make_short_last.py): what the first fix for bloscpack 0.11 and 0.13
/// assumed they wrote, but no release writes (their last chunk is last_chunk rounded down
/// to whole elements, 1 to typesize − 1 bytes short: tests/legacy.rs reads real ones). It
/// is refused like any other size mismatch; bloscpack 0.16 unpacks it short.
#[test]
fn a_last_chunk_one_whole_element_short_is_an_error() {
    let data = read("short_last_0_11.blp");
    let text = std::fs::read_to_string(fixtures().join("short_last_0_11.json")).unwrap();
    let reference: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(reference["unpacked_len"], 7992);
    let e = Bloscpack::parse(&data).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::ChunkSizeMismatch {
                index: 2,
                nbytes: 1992,
                expected: 2000,
                ..
            }
        ),
        "{e}"
    );
    let mut findings = binfmt_core::verify::Findings::new(4);
    let summary = bloscpack_header::verify(&data, &ReadOptions::new(), &mut findings);
    assert!(!summary.is_valid(), "{findings:?}");
}

#[cfg(feature = "blosc")]
mod blosc {
    use super::*;
    use binfmt_test_support::{Scratch, reference, reference_test};
    use bloscpack_header::{
        BloscArgs, Checksum, Compressor, MetaCodec, Metadata, PackOptions, Shuffle, UnpackOptions,
        fs::AppendOptions,
    };

    #[test]
    fn unpack_returns_the_original_input() {
        for (name, entry) in &expected() {
            let reference = &entry["reference"];
            let data = read(entry["file"].as_str().unwrap());
            let Ok(file) = Bloscpack::parse(&data) else {
                continue;
            };
            let unpacked = file.unpack_to_vec(&UnpackOptions::default());
            if file.uncompressed_len() > 0 {
                assert!(matches!(
                    file.unpack_to_vec(
                        &UnpackOptions::DEFAULT.max_len(file.uncompressed_len() - 1)
                    )
                    .map_err(Error::into_kind),
                    Err(ErrorKind::TooLarge { .. })
                ));
            }
            if name == "version2" {
                // Refused by the reference, read by us: the data of max_app_0.
                assert_eq!(unpacked.unwrap(), ramp(), "{name}");
                continue;
            }
            if reference["ok"] != true {
                assert!(unpacked.is_err(), "{name}: corrupt file unpacked");
                continue;
            }
            let unpacked = unpacked.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(
                sha256_hex(&unpacked),
                reference["unpacked_sha256"],
                "{name}"
            );
            if let Some(input) = entry["input"].as_str() {
                assert_eq!(unpacked, read(input), "{name}");
            }
            let mut streamed = Vec::new();
            file.unpack_to_writer(&mut streamed, &UnpackOptions::default())
                .unwrap();
            assert_eq!(streamed, unpacked, "{name}");
        }
    }

    fn scratch(test: &str) -> Scratch {
        Scratch::new(&format!("bloscpack-interop-{test}"))
    }

    fn ramp() -> Vec<u8> {
        read("ramp.bin")
    }

    /// The files we write for the reference to read: (name, options, input).
    fn cases() -> Vec<(String, PackOptions, Vec<u8>)> {
        let mut cases = Vec::new();
        let base = PackOptions {
            chunk_size: 4096,
            ..PackOptions::default()
        };
        for checksum in Checksum::ALL {
            cases.push((
                format!("checksum_{checksum}"),
                PackOptions {
                    checksum,
                    ..base.clone()
                },
                ramp(),
            ));
        }
        for compressor in Compressor::ALL {
            for shuffle in [Shuffle::None, Shuffle::Byte, Shuffle::Bit] {
                cases.push((
                    format!("{compressor}_{shuffle}"),
                    PackOptions {
                        blosc: BloscArgs {
                            compressor,
                            shuffle,
                            ..BloscArgs::default()
                        },
                        ..base.clone()
                    },
                    ramp(),
                ));
            }
        }
        let json = br#"{"sensor":"ramp","units":"volts","calibration":[1,2,3,4,5,6,7,8,9,10,1,2,3,4,5,6,7,8,9,10]}"#;
        let mut raw_meta = Metadata::new(&json[..]);
        raw_meta.codec = MetaCodec::None;
        raw_meta.checksum = Checksum::Sha256;
        let tiny = Metadata::new(&br#"{"a":1}"#[..]);
        for (name, metadata, offsets) in [
            ("meta_zlib", Metadata::new(&json[..]), true),
            ("meta_raw_sha256", raw_meta, true),
            ("meta_tiny", tiny, true),
            ("meta_no_offsets", Metadata::new(&json[..]), false),
        ] {
            cases.push((
                name.into(),
                PackOptions {
                    metadata: Some(metadata),
                    offsets,
                    ..base.clone()
                },
                ramp(),
            ));
        }
        let sizes: [(&str, Vec<u8>); 4] = [
            ("empty", Vec::new()),
            ("one_byte", vec![42]),
            ("exact_multiple", ramp()[..8192].to_vec()),
            ("short_last", ramp()[..4106].to_vec()),
        ];
        for (name, input) in sizes {
            cases.push((name.into(), base.clone(), input));
        }
        cases.push((
            "no_offsets_no_checksum".into(),
            PackOptions {
                offsets: false,
                checksum: Checksum::None,
                ..base.clone()
            },
            ramp(),
        ));
        cases.push((
            "clevel0_typesize4_max_app_3".into(),
            PackOptions {
                blosc: BloscArgs {
                    clevel: 0,
                    typesize: 4,
                    ..BloscArgs::default()
                },
                max_app_chunks: Some(3),
                ..base.clone()
            },
            ramp(),
        ));
        cases.push(("default_1mib".into(), PackOptions::default(), ramp()));
        cases
    }

    #[test]
    fn our_files_round_trip_and_match_reference_headers() {
        let expected = expected();
        for (name, options, input) in cases() {
            let packed = options.to_vec(&input).unwrap();
            let file = Bloscpack::parse(&packed).unwrap_or_else(|e| panic!("{name}: {e}"));
            file.verify_digests().unwrap();
            assert_eq!(
                file.unpack_to_vec(&UnpackOptions::default()).unwrap(),
                input
            );
            // Deterministic output.
            assert_eq!(options.to_vec(&input).unwrap(), packed, "{name}");
        }
        // Same input and options as the reference's fixtures: the same 32 header bytes
        // (compressed sizes depend on the c-blosc build, the header does not).
        for (ours, theirs) in [
            ("checksum_adler32", "checksum_adler32"),
            ("checksum_None", "checksum_none"),
            ("checksum_sha512", "checksum_sha512"),
            ("empty", "empty"),
            ("one_byte", "one_byte"),
            ("exact_multiple", "exact_multiple"),
            ("short_last", "short_last"),
        ] {
            let (_, options, input) = cases().into_iter().find(|c| c.0 == ours).unwrap();
            let packed = options.to_vec(&input).unwrap();
            let reference = read(expected[theirs]["file"].as_str().unwrap());
            assert_eq!(packed[..32], reference[..32], "{ours}");
        }
        // The empty file is byte-identical (no compression is involved).
        let (_, options, input) = cases().into_iter().find(|c| c.0 == "empty").unwrap();
        let mut options = options;
        options.chunk_size = 1 << 20;
        assert_eq!(options.to_vec(&input).unwrap(), read("empty.blp"));
    }

    reference_test! {
        fn bloscpack_reads_what_we_pack(py) {
            let dir = scratch("read");
            let mut args: Vec<std::ffi::OsString> = Vec::new();
            let cases = cases();
            for (name, options, input) in &cases {
                let blp = dir.join(format!("{name}.blp"));
                let raw = dir.join(format!("{name}.bin"));
                options.write_to_path(input, &blp).unwrap();
                std::fs::write(&raw, input).unwrap();
                args.push(blp.into());
                args.push(raw.into());
            }
            let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
            let reports = reference::run_json_lines(&py, "bloscpack/check_read.py", &refs);
            assert_eq!(reports.len(), cases.len());
            for ((name, options, _), report) in cases.iter().zip(&reports) {
                assert_eq!(report["matches_input"], true, "{name}: {report}");
                // The reference decodes our metadata to the JSON we stored.
                if let Some(m) = &options.metadata {
                    let ours: Value = serde_json::from_slice(&m.json).unwrap();
                    assert_eq!(report["metadata"], ours, "{name}");
                }
            }
        }
    }

    /// The fixtures that `fs::append` extends, each with the bytes appended to it.
    const APPENDS: [(&str, core::ops::Range<usize>); 5] = [
        ("checksum_adler32", 0..1000),
        ("checksum_sha256", 0..usize::MAX),
        ("meta_zlib", 0..usize::MAX),
        ("append_chunks", 0..5000),
        // A full last chunk is left as it is; new chunks follow it.
        ("exact_multiple", 0..5000),
    ];

    /// Appends to a copy of each of the reference's files in `APPENDS`, checks the result,
    /// and returns its path and the whole content it must unpack to.
    fn append_to_reference_files(dir: &std::path::Path, extra: &[u8]) -> Vec<(PathBuf, Vec<u8>)> {
        APPENDS
            .iter()
            .map(|(fixture, range)| {
                let extra = &extra[range.start..range.end.min(extra.len())];
                let path = dir.join(format!("{fixture}.blp"));
                std::fs::copy(fixtures().join(format!("{fixture}.blp")), &path).unwrap();
                let before = Bloscpack::parse(&read(&format!("{fixture}.blp")))
                    .unwrap()
                    .unpack_to_vec(&UnpackOptions::default())
                    .unwrap();
                let report =
                    bloscpack_header::fs::append(&path, extra, &AppendOptions::new()).unwrap();
                let after = std::fs::read(&path).unwrap();
                assert_eq!(after.len() as u64, report.file_len);
                let file = Bloscpack::parse(&after).unwrap_or_else(|e| panic!("{fixture}: {e}"));
                file.verify_digests().unwrap();
                let mut want = before.clone();
                want.extend_from_slice(extra);
                assert_eq!(file.unpack_to_vec(&UnpackOptions::default()).unwrap(), want);
                (path, want)
            })
            .collect()
    }

    fn reversed_ramp() -> Vec<u8> {
        ramp().iter().rev().copied().collect()
    }

    #[test]
    fn appends_to_the_reference_files_read_back() {
        let dir = scratch("append");
        append_to_reference_files(&dir, &reversed_ramp());
    }

    reference_test! {
        fn appends_interoperate_both_ways(py) {
            let dir = scratch("append-reference");
            let extra = reversed_ramp();
            // Ours into the reference's file, and the reference's reading of the result.
            for (path, want) in append_to_reference_files(&dir, &extra) {
                let raw = path.with_extension("want");
                std::fs::write(&raw, &want).unwrap();
                let out = reference::run(
                    &py,
                    "bloscpack/check_read.py",
                    &[path.as_os_str(), raw.as_os_str()],
                );
                assert!(
                    out.contains("\"matches_input\": true"),
                    "{}: {out}",
                    path.display()
                );
            }
            // The reference appends to a file of ours.
            let input = ramp();
            let blp = dir.join("ours.blp");
            let raw = dir.join("ours.bin");
            let more = dir.join("more.bin");
            PackOptions {
                chunk_size: 4096,
                ..PackOptions::default()
            }
            .write_to_path(&input, &blp)
            .unwrap();
            std::fs::write(&raw, &input).unwrap();
            std::fs::write(&more, &extra).unwrap();
            reference::run(
                &py,
                "bloscpack/check_append.py",
                &[blp.as_os_str(), raw.as_os_str(), more.as_os_str()],
            );
            let after = std::fs::read(&blp).unwrap();
            let file = Bloscpack::parse(&after).unwrap();
            let mut want = input.clone();
            want.extend_from_slice(&extra);
            assert_eq!(file.unpack_to_vec(&UnpackOptions::default()).unwrap(), want);
        }
    }
}
