//! Interop with the independent Python implementation (tools/mldf/mldf_ref.py):
//! its files (tests/fixtures, made by tools/mldf/gen_fixtures.py) read by us, and ours
//! read and fully verified by it (tools/mldf/check_read.py, when BINFMT_PYTHON is set).
// Every test writes or reads files with the `std` API.
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used, clippy::cast_possible_truncation, unreachable_pub)]

mod common;

use binfmt_test_support::{Scratch, reference, reference_test};
use std::io::Cursor;
use std::path::{Path, PathBuf};

use binfmt_core::le::{U16, U32};
use mldf::{
    Audio, AudioCodec, Dataset, Dtype, FieldType, Image, NdarraySpec, Schema, Text, Value, Writer,
    WriterOptions,
};
use serde_json::Value as Json;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn expected() -> Json {
    serde_json::from_str(&std::fs::read_to_string(fixtures().join("expected.json")).unwrap())
        .unwrap()
}

#[test]
fn python_files_read_as_python_reads_them() {
    let expected = expected();
    let valid = expected["valid"].as_object().unwrap();
    assert!(valid.len() >= 14);
    for (name, want) in valid {
        let bytes = std::fs::read(fixtures().join(name)).unwrap();
        assert_eq!(&common::dump(&bytes), want, "{name}");
    }
}

#[test]
fn invalid_python_fixtures_fail_where_python_says() {
    for case in expected()["invalid"].as_array().unwrap() {
        let file = case["file"].as_str().unwrap();
        let bytes = std::fs::read(fixtures().join(file)).unwrap();
        let stage = case["stage"].as_str().unwrap();
        let err = match stage {
            "open" => Dataset::parse(&bytes).err(),
            "access" => {
                let ds = Dataset::parse(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
                ds.samples()
                    .flat_map(|s| s.values().collect::<Vec<_>>())
                    .find_map(Result::err)
            }
            _ => common::errors(&bytes).into_iter().next(),
        };
        let err = err.unwrap_or_else(|| panic!("{file}: no error at stage {stage}"));
        assert_eq!(
            (
                common::error_name(&err),
                binfmt_core::Diagnostic::offset(&err)
            ),
            (
                case["error"].as_str().unwrap().to_string(),
                case["offset"].as_u64()
            ),
            "{file}: {err}"
        );
        // Whole-file verification finds every one of them too.
        assert!(
            !common::errors(&bytes).is_empty(),
            "{file}: verify found nothing"
        );
    }
}

fn png_rgb_1x1() -> Vec<u8> {
    // A minimal PNG header is all the writer reads.
    let mut v = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    v.extend_from_slice(&[
        0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0, 0x90, 0x77, 0x53, 0xde,
    ]);
    v.extend_from_slice(b"\0\0\0\0IEND\xaeB`\x82");
    v
}

/// Files written by us, in both layouts, with and without checksums.
fn our_files() -> Vec<(String, Vec<u8>)> {
    let spec = NdarraySpec::new(Dtype::I16, &[3]).unwrap();
    let schema = Schema::new()
        .field("id", FieldType::Int)
        .field("x", FieldType::Float)
        .nullable_field("payload", FieldType::Bytes)
        .field("doc", FieldType::Json)
        .field("vec", FieldType::Ndarray(spec))
        .nullable_field("img", FieldType::ImagePng)
        .field("raw", FieldType::ImageRaw)
        .field("pcm", FieldType::AudioWaveform)
        .field("mp3", FieldType::AudioCompressed)
        .field("txt", FieldType::TextRaw)
        .field("tok", FieldType::TextTokenized { vocab_size: 32000 });
    let png = png_rgb_1x1();
    let ids32 = [U32::new(1), U32::new(31999)];
    let ids16 = [U16::new(7)];
    let pcm = [1u8, 2, 3, 4, 5, 6];
    let samples: Vec<Vec<Value<'_>>> = (0..5)
        .map(|i| {
            vec![
                Value::Int(i * 1000 - 2),
                Value::Float(f64::from(i as i32) / 3.0),
                if i % 2 == 0 {
                    Value::Null
                } else {
                    Value::Bytes(b"\x00payload")
                },
                Value::Json(if i == 3 {
                    ""
                } else {
                    "{\"i\": [1, {\"x\": null}]}"
                }),
                Value::Ndarray(if i == 1 { &[] } else { &[1, 0, 2, 0, 255, 255] }),
                if i == 2 {
                    Value::Null
                } else {
                    Value::Image(Image::png(&png))
                },
                Value::Image(Image::raw(1, 2, 3, &[9, 8, 7, 6, 5, 4])),
                Value::Audio(Audio::pcm(16000, 1, 24, &pcm)),
                Value::Audio(Audio::compressed(AudioCodec::Mp3, b"\xff\xfb\x90")),
                Value::Text(Text::Utf8(if i == 4 { "" } else { "naïve café" })),
                Value::Text(if i % 2 == 0 {
                    Text::U32(&ids32)
                } else {
                    Text::U16(&ids16)
                }),
            ]
        })
        .collect();
    let mut out = Vec::new();
    for (name, options) in [
        (
            "canonical",
            WriterOptions::new().page_size(4096).num_samples(5),
        ),
        (
            "canonical_crc",
            WriterOptions::new()
                .page_size(4096)
                .num_samples(5)
                .checksums(true),
        ),
        ("streaming", WriterOptions::new().page_size(8192)),
        ("streaming_crc", WriterOptions::new().checksums(true)),
    ] {
        let mut w = Writer::new(Cursor::new(Vec::new()), &schema, options).unwrap();
        for s in &samples {
            w.add(s).unwrap();
        }
        out.push((name.to_string(), w.finish().unwrap().into_inner()));
    }
    // Edge cases: no samples, no items, no fields.
    let ints = Schema::new().field("n", FieldType::Int);
    for (name, schema, n, layout) in [
        ("empty_canonical", ints.clone(), 0, true),
        ("empty_streaming", ints.clone(), 0, false),
        ("ints_streaming", ints.clone(), 3, false),
        ("ints_canonical", ints, 3, true),
        ("no_fields", Schema::new(), 0, true),
    ] {
        let mut options = WriterOptions::new().page_size(4096);
        if layout {
            options = options.num_samples(n);
        }
        let mut w = Writer::new(Cursor::new(Vec::new()), &schema, options).unwrap();
        for i in 0..n {
            w.add(&[Value::Int(i as i64)]).unwrap();
        }
        out.push((name.to_string(), w.finish().unwrap().into_inner()));
    }
    out
}

reference_test! {
    fn our_files_read_by_python(py) {
        let files = our_files();
        // Our own reader first: everything verifies.
        let dumps: Vec<Json> = files.iter().map(|(_, b)| common::dump(b)).collect();
        let dir = Scratch::new("mldf-interop-read-by-python");
        let mut paths = Vec::new();
        for (name, bytes) in &files {
            let path = dir.join(format!("{name}.mldf"));
            std::fs::write(&path, bytes).unwrap();
            paths.push(path);
        }
        let args: Vec<&std::ffi::OsStr> = paths.iter().map(|p| p.as_os_str()).collect();
        let lines = reference::run_json_lines(&py, "mldf/check_read.py", &args);
        assert_eq!(lines.len(), files.len());
        for ((name, _), (ours, theirs)) in files.iter().zip(dumps.iter().zip(&lines)) {
            assert_eq!(ours, theirs, "{name}: Python reads something else");
        }
    }
}

reference_test! {
    fn python_regenerates_identical_fixtures(py) {
        let dir = Scratch::new("mldf-interop-regenerate");
        reference::run(&py, "mldf/gen_fixtures.py", &[dir.as_os_str()]);
        for name in expected()["valid"].as_object().unwrap().keys() {
            assert_eq!(
                std::fs::read(dir.join(name)).unwrap(),
                std::fs::read(fixtures().join(name)).unwrap(),
                "{name} differs from the committed fixture"
            );
        }
    }
}
