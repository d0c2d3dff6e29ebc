//! Helpers shared by the integration tests.
#![allow(dead_code, unreachable_pub)]

pub mod oracle;

use core::ops::ControlFlow;

use kastore::{Error, ReadOptions, Severity};

/// Every error `verify` reports, in order, with the default options.
pub fn verify_errors(data: &[u8]) -> Vec<Error> {
    verify_all(data, &ReadOptions::new()).0
}

/// Every warning `verify` reports, in order, with the default options.
pub fn verify_warnings(data: &[u8]) -> Vec<Error> {
    verify_all(data, &ReadOptions::new()).1
}

/// The errors and the warnings `verify` reports, each in order.
pub fn verify_all(data: &[u8], options: &ReadOptions) -> (Vec<Error>, Vec<Error>) {
    let (mut errors, mut warnings) = (Vec::new(), Vec::new());
    let summary = kastore::verify(data, options, &mut |severity, e| {
        match severity {
            Severity::Error => errors.push(e),
            Severity::Warning => warnings.push(e),
        }
        ControlFlow::Continue(())
    });
    assert_eq!(summary.errors(), errors.len() as u64);
    assert_eq!(summary.warnings(), warnings.len() as u64);
    assert_eq!(summary.is_valid(), errors.is_empty());
    (errors, warnings)
}
