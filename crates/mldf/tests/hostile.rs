//! Inputs built to cost work or memory out of proportion to their size.
// Every test writes or reads files with the `std` API.
#![cfg(feature = "std")]
#![allow(clippy::cast_possible_truncation)]

use std::io::Cursor;

use core::ops::ControlFlow;

use mldf::{
    Dataset, ErrorKind, FieldType, Layout, ReadOptions, Schema, Text, Value, Writer, WriterOptions,
};

/// Many slots pointing at one large item: verification reports each shared slot but
/// checks the item's contents once, so its work stays linear in the file size.
#[test]
fn shared_items_are_reported_not_rescanned() {
    let schema = Schema::new().field("t", FieldType::TextRaw);
    let text = "x".repeat(4096);
    let n = 2000u64;
    let mut w = Writer::new(
        Cursor::new(Vec::new()),
        &schema,
        WriterOptions::new().page_size(4096).num_samples(n),
    )
    .unwrap();
    for _ in 0..n {
        w.add(&[Value::Text(Text::Utf8(&text))]).unwrap();
    }
    let mut bytes = w.finish().unwrap().into_inner();
    let ds = Dataset::parse(&bytes).unwrap();
    let (meta, first) = (ds.header().metadata_ptr() as usize, ds.header().data_ptr());
    for i in 0..n as usize {
        bytes[meta + 16 * i..meta + 16 * i + 8].copy_from_slice(&first.to_le_bytes());
    }
    let (mut shared, mut unreferenced, mut other) = (0, 0, 0);
    mldf::verify(&bytes, &ReadOptions::new(), &mut |_, e: mldf::Error| {
        match e.kind() {
            ErrorKind::SharedItem { .. } => shared += 1,
            ErrorKind::UnreferencedItem { .. } => unreferenced += 1,
            _ => other += 1,
        }
        ControlFlow::Continue(())
    });
    assert_eq!((shared, unreferenced, other), (n - 1, n - 1, 0));
    // Plain access still works (each access is the caller's own cost).
    let ds = Dataset::parse(&bytes).unwrap();
    assert_eq!(ds.value(n - 1, 0).unwrap(), Value::Text(Text::Utf8(&text)));
}

/// Counts near u64::MAX and pointers past the end fail before anything is sized.
#[test]
fn huge_counts_fail_before_allocation() {
    let mut a = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/golden_a.mldf"
    ))
    .unwrap();
    a[17..25].copy_from_slice(&u64::MAX.to_le_bytes()); // N
    assert!(matches!(
        Dataset::parse(&a).unwrap_err().kind(),
        ErrorKind::Layout(Layout::Overflow { .. })
    ));
    a[17..25].copy_from_slice(&(1u64 << 40).to_le_bytes());
    assert!(matches!(
        Dataset::parse(&a).unwrap_err().kind(),
        ErrorKind::SectionPastEnd { .. }
    ));
    a[17..25].copy_from_slice(&2u64.to_le_bytes());
    a[25..27].copy_from_slice(&u16::MAX.to_le_bytes()); // F
    assert!(matches!(
        Dataset::parse(&a).unwrap_err().kind(),
        ErrorKind::Layout(Layout::Truncated { .. })
    ));
    let mut b = a.clone();
    b[25..27].copy_from_slice(&2u16.to_le_bytes());
    b[33..41].copy_from_slice(&(u64::MAX - 100).to_le_bytes()); // field_desc_ptr
    assert!(Dataset::parse(&b).is_err());
    let summary = mldf::verify(&b, &ReadOptions::new(), &mut |_, _| {
        ControlFlow::Continue(())
    });
    assert!(summary.errors() > 0);
}
