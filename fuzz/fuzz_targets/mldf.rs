#![no_main]
//! MLDF: open any bytes, read every value of every sample, verify the whole file.
//!
//! Work is bounded by the input: every sample has a row of at least 8 bytes in the file,
//! so the loops below run at most len/8 times per field.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = mldf::Header::parse(data);
    for options in [
        mldf::ReadOptions::new(),
        mldf::ReadOptions::new()
            .verify_index_crc(false)
            .verify_item_crcs(false),
    ] {
        if let Ok(ds) = mldf::Dataset::parse_with(data, options) {
            for field in ds.fields() {
                let _ = ds.field_by_name(field.name());
            }
            for sample in ds.samples() {
                for value in sample.values() {
                    if let Ok(v) = value {
                        let _ = (v.kind(), v.payload());
                    }
                }
            }
            let _ = ds.value(ds.num_samples(), 0);
        }
    }
    let mut problems = 0usize;
    let count = mldf::verify(data, |e| {
        problems += 1;
        let _ = (e.to_string(), binfmt_core::Diagnostic::offset(&e));
    });
    assert_eq!(count, problems);
    // What verifies opens.
    if count == 0 {
        assert!(mldf::Dataset::parse(data).is_ok());
    }
});
