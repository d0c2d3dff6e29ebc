//! The decision record's golden vectors A and B (§17), byte for byte, built by hand from
//! the record's table, not from our writer.
// Every test writes or reads files with the `std` API.
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::io::Cursor;

use mldf::{Dataset, FieldType, Schema, Text, Value, Writer, WriterOptions};

/// Vector A (flags 1) or B (flags 5), exactly as §17 lists the bytes.
fn expected(checksummed: bool) -> Vec<u8> {
    let mut f = vec![0u8; 4136];
    f[0..9].copy_from_slice(b"\x89MLDF\r\n\x1a\n");
    let header: Vec<u8> = [
        &[1, 0, 0, 0, if checksummed { 5 } else { 1 }, 0, 0, 0][..],
        &2u64.to_le_bytes(),
        &[2, 0, 0, 0],
        &4096u32.to_le_bytes(),
        &73u64.to_le_bytes(),
        &512u64.to_le_bytes(),
        &4096u64.to_le_bytes(),
        &4104u64.to_le_bytes(),
        &[0; 8],
    ]
    .concat();
    f[9..73].copy_from_slice(&header);
    f[73..78].copy_from_slice(b"label");
    f[137..139].copy_from_slice(&[1, 0]);
    f[141..145].copy_from_slice(&8u32.to_le_bytes());
    f[281..285].copy_from_slice(b"text");
    f[345..347].copy_from_slice(&[0x28, 0]);
    f[349..353].copy_from_slice(&16u32.to_le_bytes());
    // rows
    f[512..520].copy_from_slice(&7i64.to_le_bytes());
    f[520..528].copy_from_slice(&4096u64.to_le_bytes());
    f[528..532].copy_from_slice(&2u32.to_le_bytes());
    f[536..544].copy_from_slice(&(-1i64).to_le_bytes());
    f[544..552].copy_from_slice(&4098u64.to_le_bytes());
    f[552..556].copy_from_slice(&6u32.to_le_bytes());
    f[4096..4104].copy_from_slice("hih\u{e9}llo".as_bytes());
    f[4104..4112].copy_from_slice(&4096u64.to_le_bytes());
    f[4112..4116].copy_from_slice(&2u32.to_le_bytes());
    f[4120..4128].copy_from_slice(&4098u64.to_le_bytes());
    f[4128..4132].copy_from_slice(&6u32.to_le_bytes());
    if checksummed {
        f[4116..4120].copy_from_slice(&[0xac, 0x2a, 0x93, 0xd8]);
        f[4132..4136].copy_from_slice(&[0x36, 0x82, 0x3b, 0x9e]);
        f[65..69].copy_from_slice(&[0x3f, 0x61, 0x5e, 0xce]);
        f[69..73].copy_from_slice(&[0xab, 0xbb, 0x81, 0x92]);
    }
    f
}

fn write(checksummed: bool) -> Vec<u8> {
    let schema = Schema::new()
        .field("label", FieldType::Int)
        .field("text", FieldType::TextRaw);
    let options = WriterOptions::new()
        .page_size(4096)
        .num_samples(2)
        .checksums(checksummed);
    let mut w = Writer::new(Cursor::new(Vec::new()), &schema, options).unwrap();
    w.add(&[Value::Int(7), Value::Text(Text::Utf8("hi"))])
        .unwrap();
    w.add(&[Value::Int(-1), Value::Text(Text::Utf8("héllo"))])
        .unwrap();
    w.finish().unwrap().into_inner()
}

fn check_read(bytes: &[u8], flags: u32) {
    let ds = Dataset::parse(bytes).unwrap();
    assert_eq!(ds.header().flags(), flags);
    assert_eq!(ds.num_samples(), 2);
    assert_eq!(ds.row_size(), 24);
    assert_eq!(ds.value(0, 0).unwrap(), Value::Int(7));
    assert_eq!(ds.value(0, 1).unwrap(), Value::Text(Text::Utf8("hi")));
    assert_eq!(ds.value(1, 0).unwrap(), Value::Int(-1));
    assert_eq!(ds.value(1, 1).unwrap(), Value::Text(Text::Utf8("héllo")));
    let mut problems = Vec::new();
    let summary = mldf::verify(
        bytes,
        &mldf::ReadOptions::new(),
        &mut |_, e: mldf::Error| {
            problems.push(e.to_string());
            core::ops::ControlFlow::Continue(())
        },
    );
    assert!(
        summary.is_valid() && summary.warnings() == 0,
        "{problems:?}"
    );
}

#[test]
fn vector_a_byte_for_byte() {
    let a = expected(false);
    assert_eq!(write(false), a);
    check_read(&a, 1);
    assert_eq!(std::fs::read("tests/fixtures/golden_a.mldf").unwrap(), a);
}

#[test]
fn vector_b_byte_for_byte() {
    let b = expected(true);
    assert_eq!(crc32fast::hash(b"hi"), 0xD893_2AAC);
    assert_eq!(write(true), b);
    check_read(&b, 5);
    assert_eq!(std::fs::read("tests/fixtures/golden_b.mldf").unwrap(), b);
}
