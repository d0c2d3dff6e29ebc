#![no_main]
//! MLDF: open any bytes with the slice reader and the ranged reader (which must agree,
//! error for error and value for value), read every value of every sample, compare the
//! dataset with itself, and verify the whole file (what verifies opens and reads).
//!
//! Work is bounded by the input: every sample has a row of at least 8 bytes in the file,
//! so the loops below run at most len/8 times per field.

use core::ops::ControlFlow;

use binfmt_core::source::Counting;
use binfmt_core::verify::Findings;
use libfuzzer_sys::fuzz_target;
use mldf::diff::{DiffOptions, diff};
use mldf::{Dataset, ReadOptions, Reader};

fuzz_target!(|data: &[u8]| {
    let _ = mldf::Header::parse(data);
    for options in [ReadOptions::new(), ReadOptions::new().checksums(false)] {
        let sliced = Dataset::parse_with(data, &options);
        let source = Counting::new(data);
        let ranged = Reader::open_with(&source, &options);
        let (ds, reader) = match (sliced, ranged) {
            (Ok(ds), Ok(reader)) => (ds, reader),
            (Err(a), Err(b)) => {
                assert_eq!(a.to_string(), b.to_string());
                continue;
            }
            (a, b) => panic!("slice {:?} vs ranged {:?}", a.err(), b.err()),
        };
        assert_eq!(ds.header(), reader.header());
        assert_eq!(ds.fields(), reader.fields());
        for field in ds.fields() {
            assert_eq!(
                ds.field_by_name(field.name()).map(|f| f.name()),
                Some(field.name())
            );
        }
        let _ = ds.warnings().count();
        for sample in ds.samples() {
            let whole = reader.sample(sample.index());
            for (f, value) in sample.values().enumerate() {
                let before = source.stats().requests;
                let ranged = reader.value(sample.index(), f);
                // The row, then the payload.
                assert!(source.stats().requests - before <= 2);
                match (&value, &ranged) {
                    (Ok(v), Ok(r)) => {
                        assert!(v.same(&r.value()));
                        let _ = (v.kind(), v.payload());
                    }
                    (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                    (a, b) => panic!("slice {a:?} vs ranged {b:?}"),
                }
                if let (Ok(all), Ok(v)) = (&whole, &value) {
                    assert!(all[f].value().same(v));
                }
            }
        }
        let _ = ds.value(ds.num_samples(), 0);
        // A dataset is the same as itself, and each payload is read once per side.
        if let Ok(summary) = diff(&ds, &ds, &DiffOptions::new().layout(true), &mut |d| {
            panic!("{d:?}")
        }) {
            assert!(summary.is_same());
            assert!(summary.payload_bytes() <= 2 * data.len() as u64);
        }
    }
    let mut findings = Findings::new(8);
    let summary = mldf::verify(data, &ReadOptions::new(), &mut findings);
    let errors = findings.errors().len() as u64 + findings.more_errors();
    assert_eq!(summary.errors(), errors);
    for e in findings.errors().iter().chain(findings.warnings()) {
        let _ = (e.to_string(), e.offset(), e.fault());
    }
    // What verifies opens, and every value reads.
    if summary.is_valid() {
        let ds = Dataset::parse(data).expect("a verified file opens");
        for sample in ds.samples() {
            for value in sample.values() {
                value.expect("a verified file reads");
            }
        }
    }
    // The sink can stop the walk at once.
    let stopped = mldf::verify(
        data,
        &ReadOptions::new(),
        &mut |_, _| ControlFlow::Break(()),
    );
    assert!(stopped.errors() + stopped.warnings() <= 1);
});
