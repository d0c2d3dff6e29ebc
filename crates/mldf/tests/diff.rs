//! `mldf::diff`: what it reports, and that its work stays linear in the files' sizes
//! when many slots share one large payload (the `binfmt mldf diff` that took 12 s on a
//! 3 MB file).
// Every test writes or reads files with the `std` API.
#![cfg(feature = "std")]
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]

mod common;

use core::ops::ControlFlow;

use common::write;
use mldf::diff::{self, DiffOptions, Difference, FieldAspect, HeaderValue, Side};
use mldf::{Dataset, ErrorKind, FieldType, Image, ReadOptions, Schema, Text, Value, WriterOptions};

/// The error of comparing `a` with `b`, which must be `b`'s.
fn b_fails(a: &Dataset<'_>, b: &Dataset<'_>) -> diff::DiffError {
    let err = diff::diff(
        a,
        b,
        &DiffOptions::new(),
        &mut |_| ControlFlow::Continue(()),
    )
    .unwrap_err();
    assert_eq!(err.side, Side::B, "{err}");
    err
}

/// Recomputes the index CRC and the header CRC of a checksummed file after an edit.
fn reseal(file: &mut [u8]) {
    let ds = Dataset::parse_with(file, &ReadOptions::new().checksums(false)).unwrap();
    let h = *ds.header();
    let desc = (h.field_desc_ptr() as usize)
        ..(h.field_desc_ptr() as usize + 208 * usize::from(h.num_fields()));
    let meta = (h.metadata_ptr() as usize)..(h.metadata_ptr() as usize + ds.metadata_table().len());
    let alloc = (h.alloc_table_ptr() as usize)..file.len();
    let mut crc = crc32fast::Hasher::new();
    crc.update(&file[desc]);
    crc.update(&file[meta]);
    crc.update(&file[alloc]);
    let index = crc.finalize();
    file[65..69].copy_from_slice(&index.to_le_bytes());
    let header = crc32fast::hash(&file[..69]);
    file[69..73].copy_from_slice(&header.to_le_bytes());
}

/// `n` samples of one TEXT_RAW field whose slots all point at one `size`-byte payload:
/// the writer makes the first sample's payload and empty ones for the rest, then every
/// row is patched to the first one's slot.
fn shared_payload(n: u64, size: usize, checksums: bool) -> Vec<u8> {
    let schema = Schema::new().field("t", FieldType::TextRaw);
    let big = "é".repeat(size / 2);
    let mut samples = vec![vec![Value::Text(Text::Utf8(&big))]];
    samples.extend((1..n).map(|_| vec![Value::Text(Text::Utf8(""))]));
    let mut file = write(
        &schema,
        WriterOptions::new()
            .page_size(4096)
            .num_samples(n)
            .checksums(checksums),
        &samples,
    );
    let meta = Dataset::parse(&file).unwrap().header().metadata_ptr() as usize;
    let first: [u8; 16] = file[meta..meta + 16].try_into().unwrap();
    for i in 1..n as usize {
        file[meta + 16 * i..meta + 16 * (i + 1)].copy_from_slice(&first);
    }
    if checksums {
        reseal(&mut file);
    }
    file
}

fn collect<'a, 'b>(
    a: &Dataset<'a>,
    b: &Dataset<'b>,
    options: &DiffOptions,
) -> (Vec<String>, diff::DiffSummary) {
    let mut lines = Vec::new();
    let summary = diff::diff(a, b, options, &mut |d| {
        lines.push(match d {
            Difference::Header { name, a, b } => format!("header.{name}: {a} != {b}"),
            Difference::Field {
                index,
                aspect,
                a,
                b,
                ..
            } => format!("field {index}: {aspect} {:?} != {:?}", a.name(), b.name()),
            Difference::OnlyIn { index, side, field } => {
                format!("field {index}: {:?} only in {side:?}", field.name())
            }
            Difference::Value(v) => format!(
                "sample {}, field {:?}: {:?}/{:?} != {:?}/{:?}",
                v.sample,
                v.field.name(),
                v.a.kind(),
                v.crc_a,
                v.b.kind(),
                v.crc_b
            ),
            _ => unreachable!(),
        });
        ControlFlow::Continue(())
    })
    .unwrap();
    (lines, summary)
}

/// The regression: 3 MB, 100,000 slots on one 1.4 MB payload. Each distinct payload is
/// read once per file, so the payload bytes read stay below the files' sizes (the CLI
/// used to CRC and compare the payload once per slot: 140 GB).
#[test]
fn a_payload_shared_by_every_sample_is_read_once() {
    for checksums in [false, true] {
        let file = shared_payload(100_000, 1_400_000, checksums);
        assert!(file.len() > 3_000_000 && file.len() < 3_200_000);
        let a = Dataset::parse(&file).unwrap();
        assert_eq!(a.checks_item_crcs(), checksums);
        let started = std::time::Instant::now();
        let (lines, summary) = collect(&a, &a, &DiffOptions::new().layout(true));
        assert!(lines.is_empty(), "{lines:?}");
        assert!(summary.is_same());
        assert_eq!(summary.values_compared(), 100_000);
        assert_eq!(summary.payload_bytes(), 2 * 1_400_000);

        // One slot made empty in B: one difference, shown with the shared payload's CRC.
        let mut changed = file.clone();
        let meta = a.header().metadata_ptr() as usize + 16 * 99_999;
        changed[meta..meta + 16].fill(0);
        if checksums {
            reseal(&mut changed);
        }
        let b = Dataset::parse(&changed).unwrap();
        let (lines, summary) = collect(&a, &b, &DiffOptions::new());
        let data = a.data_region().0 as usize;
        let crc = crc32fast::hash(&file[data..data + 1_400_000]);
        assert_eq!(
            lines,
            [format!(
                "sample 99999, field \"t\": \"text\"/Some({crc}) != \"text\"/Some(0)"
            )]
        );
        assert_eq!(summary.value_differences(), 1);
        assert!(summary.payload_bytes() <= (file.len() + changed.len()) as u64);
        // Generous: the quadratic version took seconds even in release builds.
        assert!(started.elapsed().as_secs() < 20);
    }
}

#[test]
fn header_fields_and_values_are_compared() {
    let schema_a = Schema::new()
        .field("id", FieldType::Int)
        .field("x", FieldType::Float)
        .nullable_field("blob", FieldType::Bytes)
        .field("img", FieldType::ImageRaw)
        .field("only_a", FieldType::Int);
    let schema_b = Schema::new()
        .field("id", FieldType::Int)
        .field("x", FieldType::Float)
        .field("blob", FieldType::Bytes)
        .field("img", FieldType::ImageRaw)
        .field("only_b", FieldType::TextRaw)
        .field("extra", FieldType::Int);
    let px = [1u8, 2, 3];
    let a = write(
        &schema_a,
        WriterOptions::new().page_size(4096),
        &[
            vec![
                Value::Int(1),
                Value::Float(0.0),
                Value::Bytes(b"abc"),
                Value::Image(Image::raw(1, 1, 3, &px)),
                Value::Int(5),
            ],
            vec![
                Value::Int(2),
                Value::Float(f64::NAN),
                Value::Null,
                Value::Image(Image::raw(1, 1, 3, &px)),
                Value::Int(5),
            ],
        ],
    );
    // B's samples: id, x, blob and img, then the same only_b and extra in each.
    let sample_b = |id, x, blob, (h, w, c)| {
        vec![
            Value::Int(id),
            Value::Float(x),
            Value::Bytes(blob),
            Value::Image(Image::raw(h, w, c, &px)),
            Value::Text(Text::Utf8("")),
            Value::Int(0),
        ]
    };
    let b = write(
        &schema_b,
        WriterOptions::new().page_size(8192).checksums(true),
        &[
            // The same bytes in another place: equal.
            sample_b(1, -0.0, b"abc", (3, 1, 1)),
            sample_b(2, f64::NAN, b"", (1, 1, 3)),
            sample_b(3, 1.0, b"q", (1, 1, 3)),
        ],
    );
    let (da, db) = (Dataset::parse(&a).unwrap(), Dataset::parse(&b).unwrap());
    let (lines, summary) = collect(&da, &db, &DiffOptions::new());
    let crc_px = crc32fast::hash(&px);
    assert_eq!(
        lines,
        [
            "header.flags: 0x1 != 0x5".to_string(),
            "header.num_samples: 2 != 3".into(),
            "header.num_fields: 5 != 6".into(),
            "header.page_size: 4096 != 8192".into(),
            // NULLABLE is part of the type (and of the flags).
            "field 2: type \"blob\" != \"blob\"".into(),
            "field 2: flags \"blob\" != \"blob\"".into(),
            "field 4: name \"only_a\" != \"only_b\"".into(),
            "field 4: type \"only_a\" != \"only_b\"".into(),
            "field 4: metadata_size \"only_a\" != \"only_b\"".into(),
            "field 5: \"extra\" only in B".into(),
            // +0.0 and −0.0 differ by their bits; NaN equals itself.
            "sample 0, field \"x\": \"float\"/None != \"float\"/None".into(),
            format!(
                "sample 0, field \"img\": \"image\"/Some({crc_px}) != \"image\"/Some({crc_px})"
            ),
            // Null and empty are two values.
            "sample 1, field \"blob\": \"null\"/None != \"bytes\"/Some(0)".into(),
        ]
    );
    assert_eq!(summary.differences(), 13);
    assert_eq!(summary.value_differences(), 3);
    let (layout, _) = collect(&da, &db, &DiffOptions::new().layout(true));
    assert!(
        layout
            .iter()
            .any(|l| l.starts_with("header.data_ptr: 4096 != 8192"))
    );
    assert!(layout.iter().any(|l| l.starts_with("header.file_size: ")));
    assert!(
        layout
            .iter()
            .any(|l| l.starts_with("header.index_crc: 0x00000000 != 0x"))
    );
    assert_eq!(format!("{}", HeaderValue::Crc(0x9281_bbab)), "0x9281bbab");
    assert_eq!(FieldAspect::MetadataSize.to_string(), "metadata_size");
}

#[test]
fn the_sink_can_stop_and_errors_name_their_file() {
    let schema = Schema::new()
        .field("n", FieldType::Int)
        .field("b", FieldType::Bytes);
    let rows = |k: i64| -> Vec<Vec<Value<'static>>> {
        (0..10)
            .map(|i| vec![Value::Int(i * k), Value::Bytes(b"xyz")])
            .collect()
    };
    let a = write(&schema, WriterOptions::new().checksums(true), &rows(1));
    let b = write(&schema, WriterOptions::new().checksums(true), &rows(2));
    let (da, db) = (Dataset::parse(&a).unwrap(), Dataset::parse(&b).unwrap());
    let mut seen = 0;
    let summary = diff::diff(&da, &db, &DiffOptions::new(), &mut |_| {
        seen += 1;
        if seen == 3 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .unwrap();
    assert!(summary.stopped() && !summary.is_same());
    assert_eq!(seen, 3);

    // A corrupt item in B: the error names B, and the item.
    let mut bad = b.clone();
    let (start, _) = db.data_region();
    bad[start as usize + 1] ^= 1;
    let dbad = Dataset::parse(&bad).unwrap();
    let err = b_fails(&da, &dbad);
    assert!(matches!(
        err.error.kind(),
        ErrorKind::ItemChecksum { sample: 0, .. }
    ));
    assert!(
        err.to_string().starts_with("the second dataset: byte "),
        "{err}"
    );
    // Without item CRCs the same file compares (and differs).
    let dlax = Dataset::parse_with(&bad, &ReadOptions::new().item_checksums(false)).unwrap();
    let (lines, _) = collect(&da, &dlax, &DiffOptions::new());
    assert!(lines.iter().any(|l| l.starts_with("sample 0, field \"b\"")));
}

#[test]
fn payloads_without_their_allocation_entry_are_refused() {
    // Two slots on one payload is fine (shared); a slot inside a payload is not an
    // entry's start, and that is what would let crafted slots overlap.
    let schema = Schema::new().field("b", FieldType::Bytes);
    let a = write(
        &schema,
        WriterOptions::new().page_size(4096).num_samples(2),
        &[vec![Value::Bytes(b"0123456789")], vec![Value::Bytes(b"x")]],
    );
    let mut b = a.clone();
    let meta = Dataset::parse(&a).unwrap().header().metadata_ptr() as usize;
    b[meta + 16..meta + 24].copy_from_slice(&4097u64.to_le_bytes());
    let (da, db) = (Dataset::parse(&a).unwrap(), Dataset::parse(&b).unwrap());
    assert_eq!(db.value(1, 0).unwrap(), Value::Bytes(b"1")); // a plain read allows it
    assert!(matches!(
        b_fails(&da, &db).error.kind(),
        ErrorKind::MissingAllocEntry {
            sample: 1,
            field: 0,
            ptr: 4097,
            ..
        }
    ));
}
