//! The metadata section we encode is bloscpack 0.16's byte for byte, zlib stream included:
//! bloscpack deflates with Python's `zlib.compress(json, level)`, and with `blosc` so do we
//! (C zlib through flate2), where miniz_oxide's stream differed.
//!
//! Without Python: the metadata sections of the files bloscpack wrote (`tests/fixtures/`).
//! With `BINFMT_PYTHON`: the reference's own `file_io._write_metadata` at every level 0..=9,
//! on texts of 2 bytes to 2 MB that zlib shrinks, barely shrinks (84 bytes that save one)
//! or grows.
#![cfg(feature = "blosc")]
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use std::path::Path;

use binfmt_test_support::reference_test;
use bloscpack_header::{Bloscpack, MetaCodec, Metadata};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
    )
    .unwrap()
}

/// Our encoding of the metadata of a file bloscpack wrote, with the settings its header
/// records, and the section as bloscpack wrote it.
fn reencode(name: &str) -> (Vec<u8>, Vec<u8>) {
    let data = fixture(name);
    let file = Bloscpack::parse(&data).unwrap();
    let section = file.metadata().unwrap();
    let meta = Metadata {
        checksum: section.checksum(),
        // bloscpack asked zlib for all but meta_raw; a raw `meta_tiny` is zlib's fallback,
        // which asking for zlib must reproduce (`tiny_metadata_falls_back_to_raw`).
        codec: section.codec(),
        level: section.level(),
        max_meta_size: Some(section.max_meta_size()),
        ..Metadata::new(section.text().unwrap().as_bytes())
    };
    let start = usize::try_from(section.offset()).unwrap();
    let end = start + usize::try_from(section.len()).unwrap();
    (meta.encode().unwrap(), data[start..end].to_vec())
}

#[test]
fn the_reference_files_metadata_sections_are_ours_byte_for_byte() {
    for name in [
        "meta_zlib",
        "meta_sha256",
        "meta_no_offsets",
        "meta_raw",
        "meta_tiny",
        "ndarray_c",
        "ndarray_f",
        "ndarray_struct",
    ] {
        let (ours, theirs) = reencode(&format!("{name}.blp"));
        assert_eq!(ours, theirs, "{name}");
    }
}

#[test]
fn tiny_metadata_falls_back_to_raw() {
    // meta_tiny: bloscpack asked zlib at level 6 and stored `{"a":1}` raw, level 6 kept.
    let data = fixture("meta_tiny.blp");
    let file = Bloscpack::parse(&data).unwrap();
    let section = file.metadata().unwrap();
    assert_eq!(section.codec(), MetaCodec::None);
    let meta = Metadata {
        max_meta_size: Some(section.max_meta_size()),
        ..Metadata::new(&br#"{"a":1}"#[..])
    };
    let encoded = meta.encode().unwrap();
    assert_eq!(encoded[..], data[32..32 + encoded.len()]);
}

/// Above this length the metadata reserves no room beyond itself.
const BIG: usize = 100_000;

/// JSON texts that Python's `json.dumps(json.loads(t), separators=(',', ':'))` gives back
/// unchanged (bloscpack serializes the object it is given).
fn texts() -> Vec<(&'static str, Vec<u8>)> {
    // A deterministic generator: the same texts on every machine.
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state >> 33
    };
    let mut ints = |n: usize, modulo: u64| {
        let v: Vec<String> = (0..n).map(|_| (next() % modulo).to_string()).collect();
        v.join(",")
    };
    let small = format!(r#"{{"calibration":[{}],"units":"volts"}}"#, ints(40, 10));
    let medium = format!(r#"{{"samples":[{}],"rate":48000}}"#, ints(1_500, 100_000));
    let large = format!(r#"{{"ids":[{}]}}"#, ints(9_000, 1 << 31));
    // Past CPython's first output blocks (32 KiB, 96 KiB, 352 KiB, 1376 KiB).
    let huge = format!(r#"{{"counts":[{}]}}"#, ints(100_000, 1_000));
    let larger = format!(r#"{{"counts":[{}]}}"#, ints(320_000, 100_000));
    let numpy = br#"{"dtype":"'<f8'","shape":[1024,3],"order":"C","container":"numpy"}"#;
    vec![
        ("empty_object", b"{}".to_vec()),
        ("tiny", br#"{"a":1}"#.to_vec()),
        // bloscpack's test_metadata_opportunisitic_compression: 84 bytes, 83 deflated.
        (
            "suite_84",
            br#""{'dtype': 'float64', 'shape': [1024], 'others': [],'original_container': 'carray'}""#
                .to_vec(),
        ),
        ("suite_abc", br#""abc""#.to_vec()),
        ("numpy", numpy.to_vec()),
        ("small", small.into_bytes()),
        ("medium", medium.into_bytes()),
        ("large", large.into_bytes()),
        ("huge", huge.into_bytes()),
        ("larger", larger.into_bytes()),
    ]
}

reference_test! {
    fn encode_is_bloscpacks_write_metadata_at_every_level(py) {
        use binfmt_test_support::Scratch;
        let dir = Scratch::new("bloscpack-metadata-zlib-levels");
        let texts = texts();
        let mut paths = Vec::new();
        for (name, text) in &texts {
            let path = dir.join(format!("{name}.json"));
            std::fs::write(&path, text).unwrap();
            paths.push(path);
        }
        const SCRIPT: &str = r"
import collections, collections.abc, io, json, sys, zlib
collections.MutableMapping = collections.abc.MutableMapping  # as tools/bloscpack/refcompat.py
from bloscpack.args import MetadataArgs
from bloscpack.file_io import _write_metadata
for path in sys.argv[1:]:
    text = open(path, 'rb').read()
    obj = json.loads(text)
    assert json.dumps(obj, separators=(',', ':')).encode() == text, path
    for level in range(10):
        fp = io.BytesIO()
        # Above BIG bytes, no room beyond the text (10 x of 2 MB at 10 levels is a lot).
        room = len(text) if len(text) > BIG else (lambda n: 10 * n)
        _write_metadata(fp, obj, MetadataArgs(meta_level=level, max_meta_size=room))
        open('%s.%d' % (path, level), 'wb').write(fp.getvalue())
print(zlib.ZLIB_RUNTIME_VERSION)
";
        let script = format!("BIG = {BIG}\n{SCRIPT}");
        let out = std::process::Command::new(&py)
            .arg("-c")
            .arg(script)
            .args(&paths)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let zlib = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        let mut compressed = 0;
        for ((name, text), path) in texts.iter().zip(&paths) {
            for level in 0..=9u8 {
                let theirs = std::fs::read(format!("{}.{level}", path.display())).unwrap();
                let meta = Metadata {
                    level,
                    max_meta_size: (text.len() > BIG).then(|| u32::try_from(text.len()).unwrap()),
                    ..Metadata::new(text.clone())
                };
                let ours = meta.encode().unwrap();
                assert!(
                    ours == theirs,
                    "{name} ({} bytes), level {level}: our section differs from bloscpack's \
                     (Python's zlib {zlib}): codec {} vs {}, {} vs {} bytes",
                    text.len(),
                    ours[10],
                    theirs[10],
                    ours.len(),
                    theirs.len()
                );
                compressed += usize::from(theirs[10] == 1);
            }
        }
        // Level 0 and the texts zlib grows are stored raw; the rest are zlib streams.
        eprintln!(
            "{compressed} of {} sections are zlib streams",
            texts.len() * 10
        );
        assert!(
            compressed >= 60,
            "only {compressed} sections were compressed"
        );
    }
}
