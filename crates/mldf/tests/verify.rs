//! Whole-file verification through the shared contract: severities, the sink's control,
//! the options, and the bound on repeated work.
// Every test writes or reads files with the `std` API.
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used)]

mod common;

use core::ops::ControlFlow;

use binfmt_core::verify::Findings;
use mldf::{Dataset, ErrorKind, FieldType, ReadOptions, Schema, Severity, Value, WriterOptions};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn readable_oddities_are_warnings() {
    let newer = fixture("newer_minor.mldf");
    let mut findings = Findings::new(10);
    let summary = mldf::verify(&newer, &ReadOptions::new(), &mut findings);
    assert!(summary.is_valid());
    assert_eq!(summary.warnings(), 1);
    let warning = &findings.warnings()[0];
    assert!(matches!(
        warning.kind(),
        ErrorKind::NewerMinorVersion { .. }
    ));
    assert_eq!(
        warning.to_string(),
        "byte 9: the file is MLDF 1.3, newer than the 1.0 this library knows; additions it holds are ignored"
    );
    assert_eq!(warning.fault(), mldf::Fault::Unsupported);

    let unknown = fixture("unknown_type.mldf");
    let mut findings = Findings::new(10);
    let summary = mldf::verify(&unknown, &ReadOptions::new(), &mut findings);
    assert!(summary.is_valid());
    let ds = Dataset::parse(&unknown).unwrap();
    let warnings: Vec<String> = ds.warnings().map(|w| w.to_string()).collect();
    assert_eq!(
        warnings,
        findings
            .warnings()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    );
    assert!(matches!(
        findings.warnings()[0].kind(),
        ErrorKind::UnknownType {
            type_id: mldf::TypeId(22),
            ..
        }
    ));
    assert_eq!(
        Dataset::parse(&fixture("golden_a.mldf"))
            .unwrap()
            .warnings()
            .count(),
        0
    );
}

/// A file with every slot's item corrupt: `verify` reports them all, the sink can stop
/// it after the first, and `checksums(false)` skips the item CRCs.
#[test]
fn every_problem_is_reported_and_the_sink_decides() {
    let schema = Schema::new().field("b", FieldType::Bytes);
    let options = WriterOptions::new().page_size(4096).checksums(true);
    let mut file = common::write(
        &schema,
        options,
        &vec![vec![Value::Bytes(b"0123456789")]; 20],
    );
    for i in 0..20 {
        file[4096 + 10 * i] ^= 0xff;
    }
    let mut findings = Findings::new(5);
    let summary = mldf::verify(&file, &ReadOptions::new(), &mut findings);
    assert_eq!((summary.errors(), summary.warnings()), (20, 0));
    assert_eq!((findings.errors().len(), findings.more_errors()), (5, 15));
    assert!(
        findings
            .errors()
            .iter()
            .all(|e| matches!(e.kind(), ErrorKind::ItemChecksum { .. }))
    );
    assert_eq!(findings.errors()[3].offset(), Some(4096 + 30));

    let mut calls = 0;
    let summary = mldf::verify(&file, &ReadOptions::new(), &mut |severity, _| {
        assert_eq!(severity, Severity::Error);
        calls += 1;
        ControlFlow::Break(())
    });
    assert_eq!(calls, 1);
    assert!(summary.stopped() && !summary.is_valid());

    let summary = mldf::verify(
        &file,
        &ReadOptions::new().checksums(false),
        &mut Findings::new(0),
    );
    assert!(summary.is_valid());
}

#[test]
fn structural_problems_stop_the_walk() {
    let mut file = fixture("golden_b.mldf");
    file[69] ^= 1; // the header CRC: reported, and the walk goes on
    file[57] = 0xff; // alloc_table_ptr far past the end: nothing more can be read
    let mut findings = Findings::new(10);
    let summary = mldf::verify(&file, &ReadOptions::new(), &mut findings);
    let kinds: Vec<&ErrorKind> = findings.errors().iter().map(|e| e.kind()).collect();
    assert_eq!(summary.errors(), 2, "{kinds:?}");
    assert!(
        matches!(
            kinds[..],
            [
                ErrorKind::HeaderChecksum { .. },
                ErrorKind::AllocTablePastEnd { .. }
            ]
        ),
        "{kinds:?}"
    );
    assert_eq!(findings.errors()[1].offset(), Some(57));
}
