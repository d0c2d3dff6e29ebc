//! Test helpers: the JSON form of a dataset that the Python reference also prints
//! (`tools/mldf/mldf_ref.py dump`), and error names as the fixtures spell them.
#![allow(
    dead_code,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation
)]

use core::ops::ControlFlow;

use mldf::{
    Dataset, Error, ErrorKind, FieldType, ReadOptions, Schema, Severity, Text, Value, Writer,
    WriterOptions,
};
use serde_json::{Value as Json, json};

fn blob(b: &[u8]) -> String {
    if b.len() <= 256 {
        b.iter().map(|x| format!("{x:02x}")).collect()
    } else {
        format!("len={} crc32={:08x}", b.len(), crc32fast::hash(b))
    }
}

pub fn value_json(v: &Value<'_>) -> Json {
    match *v {
        Value::Null => Json::Null,
        Value::Int(i) => json!({ "int": i }),
        Value::Float(f) => json!({ "float_bits": f.to_bits() }),
        Value::Bytes(b) | Value::Ndarray(b) => json!({ "bytes": blob(b) }),
        Value::Json(s) => json!({ "str": s }),
        Value::Image(i) => {
            json!({ "image": [i.mode.code(), i.height, i.width, i.channels, blob(i.data)] })
        }
        Value::Audio(a) => {
            json!({ "audio": [a.codec.code(), a.num_samples, a.sample_rate, a.num_channels, a.bit_depth, blob(a.data)] })
        }
        Value::Text(Text::Utf8(s)) => json!({ "str": s }),
        Value::Text(t) => {
            let width = if t.encoding() == 1 { 4 } else { 2 };
            let ids: Vec<u32> = t.token_ids().collect();
            if ids.len() <= 64 {
                json!({ "tokens": [width, ids] })
            } else {
                json!({ "tokens": [width, blob(t.as_bytes())] })
            }
        }
        Value::Unknown(slot) => json!({ "unknown": blob(slot) }),
        _ => panic!("unexpected value {v:?}"),
    }
}

/// The dump `mldf_ref.py dump` prints for a valid file.
pub fn dump(bytes: &[u8]) -> Json {
    let ds = Dataset::parse(bytes).unwrap();
    let problems: Vec<String> = errors(bytes).iter().map(ToString::to_string).collect();
    assert!(problems.is_empty(), "{problems:?}");
    let h = ds.header();
    let fields: Vec<Json> = ds
        .fields()
        .iter()
        .map(|f| {
            let mut o = json!({
                "name": f.name(), "type_id": f.type_id().0, "flags": f.flags(),
                "metadata_size": f.metadata_size(),
            });
            if let FieldType::Ndarray(spec) = f.field_type() {
                o["dtype"] = json!(spec.dtype().code());
                o["shape"] = json!(spec.shape());
            }
            o
        })
        .collect();
    let samples: Vec<Json> = ds
        .samples()
        .map(|s| Json::Array(s.values().map(|v| value_json(&v.unwrap())).collect()))
        .collect();
    json!({
        "version": [h.version().major, h.version().minor], "flags": h.flags(),
        "num_samples": h.num_samples(), "page_size": h.page_size(),
        "pointers": [h.field_desc_ptr(), h.metadata_ptr(), h.data_ptr(), h.alloc_table_ptr()],
        "file_size": bytes.len(), "fields": fields, "samples": samples,
    })
}

/// `HeaderChecksum`, `Truncated` (for `Layout(Truncated {..})`), `BadValue:NotUtf8`.
pub fn error_name(e: &Error) -> String {
    let head = |s: String| {
        s.split(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap()
            .to_string()
    };
    match e.kind() {
        ErrorKind::Layout(inner) => head(format!("{inner:?}")),
        ErrorKind::BadValue { problem, .. } => {
            format!("BadValue:{}", head(format!("{problem:?}")))
        }
        other => head(format!("{other:?}")),
    }
}

/// The errors (not the warnings) whole-file verification reports, in order.
pub fn errors(bytes: &[u8]) -> Vec<Error> {
    let mut errors = Vec::new();
    mldf::verify(bytes, &ReadOptions::new(), &mut |severity, e| {
        if severity == Severity::Error {
            errors.push(e);
        }
        ControlFlow::Continue(())
    });
    errors
}

/// A dataset of `samples` under `schema`, written in memory.
pub fn write(schema: &Schema, options: WriterOptions, samples: &[Vec<Value<'_>>]) -> Vec<u8> {
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), schema, options).unwrap();
    for s in samples {
        w.add(s).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// `n` samples of (label `i`, caption `"caption i"`); with 2 MiB pages their payloads lie
/// far beyond the first request.
pub fn labelled(n: i64, options: WriterOptions) -> Vec<u8> {
    let schema = Schema::new()
        .field("label", FieldType::Int)
        .field("caption", FieldType::TextRaw);
    let captions: Vec<String> = (0..n).map(|i| format!("caption {i}")).collect();
    let samples: Vec<Vec<Value<'_>>> = captions
        .iter()
        .enumerate()
        .map(|(i, c)| vec![Value::Int(i as i64), Value::Text(Text::Utf8(c))])
        .collect();
    write(&schema, options, &samples)
}

/// tests/fixtures.
pub fn fixtures() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every `.mldf` fixture, valid and invalid, sorted (more than 40).
pub fn all_fixtures() -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(fixtures())
        .unwrap()
        .chain(std::fs::read_dir(fixtures().join("invalid")).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mldf"))
        .collect();
    files.sort();
    assert!(files.len() > 40);
    files
}
