//! The pattern every format crate follows, in miniature: an `ErrorKind` with `Layout` and
//! `Io` variants, `pub type Error = binfmt_core::Error<ErrorKind>`, a `parse` that stops
//! at the first problem and a `verify` over the same rules that reports them all, and a
//! reader over a byte source. If this compiles and passes, the shared traits fit.
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use core::ops::ControlFlow;

use binfmt_core::source::{ByteSource, Counting, read_exact};
use binfmt_core::verify::{Findings, Sink, Summary, Tally};
use binfmt_core::{Fault, IoError, Kind, Layout, Severity, bytes, field_offset, le::U32, zerocopy};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

mod raw {
    use super::*;

    #[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
    #[repr(C)]
    pub(crate) struct Header {
        pub(crate) magic: [u8; 4],
        pub(crate) count: U32,
    }

    pub(crate) const HEADER_SIZE: usize = core::mem::size_of::<Header>();
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    #[error(transparent)]
    Layout(#[from] Layout),
    #[error("the count is {count}; at most 3 fit")]
    CountTooLarge { count: u32 },
    #[error("record {index} is {value}, which is odd")]
    OddRecord { index: u64, value: u8 },
    #[error("{} trailing bytes after the records", .0)]
    Trailing(u64),
    #[error(transparent)]
    Io(#[from] IoError),
}

// `Kind`, `FormatKind` and `IoKind`, as every format crate implements them.
binfmt_core::format_kind! {
    ErrorKind;
    fault {
        ErrorKind::CountTooLarge { .. } | ErrorKind::OddRecord { .. } | ErrorKind::Trailing(_) => {
            Fault::Input
        }
    }
    name {
        ErrorKind::CountTooLarge { .. } => "CountTooLarge",
        ErrorKind::OddRecord { .. } => "OddRecord",
        ErrorKind::Trailing(_) => "Trailing",
    }
}

pub type Error = binfmt_core::Error<ErrorKind>;

const COUNT_AT: u64 = field_offset!(raw::Header, count);

/// The header's rule, shared by `parse` and `verify`.
fn header(data: &[u8]) -> Result<u32, Error> {
    binfmt_core::magic::check(data, 0, b"TOY1", "toy file")?;
    let h: &raw::Header = bytes::read(data, 0, "header")?;
    let count = h.count.get();
    if count > 3 {
        return Err(ErrorKind::CountTooLarge { count }.at(COUNT_AT));
    }
    Ok(count)
}

/// A record's rule.
fn record(data: &[u8], index: u64) -> Result<u8, Error> {
    let at = bytes::to_u64(raw::HEADER_SIZE) + index;
    let value = *bytes::slice(data, at, 1, "record")?.first().unwrap();
    if value % 2 == 1 {
        return Err(ErrorKind::OddRecord { index, value }.at(at));
    }
    Ok(value)
}

pub fn parse(data: &[u8]) -> Result<Vec<u8>, Error> {
    let count = header(data)?;
    (0..u64::from(count)).map(|i| record(data, i)).collect()
}

pub fn verify(data: &[u8], sink: &mut dyn Sink<Error>) -> Summary {
    let mut tally = Tally::new(sink);
    let Some(count) = tally.check(header(data)) else {
        return tally.finish();
    };
    for i in 0..u64::from(count) {
        if let Err(e) = record(data, i)
            && tally.error(e).is_break()
        {
            return tally.finish();
        }
    }
    let end = bytes::to_u64(raw::HEADER_SIZE) + u64::from(count);
    let trailing = bytes::len_u64(data).saturating_sub(end);
    if trailing > 0 {
        let _ = tally.warning(ErrorKind::Trailing(trailing).at(end));
    }
    tally.finish()
}

/// A ranged reader: the header in one request, then all records in one more.
pub fn read(source: &impl ByteSource) -> Result<Vec<u8>, Error> {
    let head = read_exact(source, 0, bytes::to_u64(raw::HEADER_SIZE), "header")?;
    let count = header(&head)?;
    let body = read_exact(
        source,
        bytes::to_u64(raw::HEADER_SIZE),
        u64::from(count),
        "records",
    )?;
    let mut whole = head.into_owned();
    whole.extend_from_slice(&body);
    parse(&whole)
}

#[test]
fn parse_stops_verify_reports_all() {
    let file = b"TOY1\x03\x00\x00\x00\x01\x02\x03xy";
    let err = parse(file).unwrap_err();
    assert_eq!(err.to_string(), "byte 8: record 0 is 1, which is odd");
    assert_eq!(err.fault(), Fault::Input);

    let mut findings = Findings::new(10);
    let summary = verify(file, &mut findings);
    assert_eq!((summary.errors(), summary.warnings()), (2, 1));
    let offsets: Vec<_> = findings.errors().iter().map(|e| e.offset()).collect();
    assert_eq!(offsets, [Some(8), Some(10)]);
    assert_eq!(
        findings.warnings()[0].to_string(),
        "byte 11: 2 trailing bytes after the records"
    );

    // A sink can stop the walk.
    let mut first = None;
    let summary = verify(file, &mut |_: Severity, e: Error| {
        first = Some(e);
        ControlFlow::Break(())
    });
    assert!(summary.stopped());
    assert_eq!(first.unwrap().offset(), Some(8));
}

#[test]
fn layout_errors_convert_and_keep_their_offset() {
    let err = parse(b"TOY1\x09").unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::Layout(Layout::Truncated { needed: 8, .. })
    ));
    assert_eq!(err.offset(), Some(0));
    let err = parse(b"TOY1\x09\x00\x00\x00").unwrap_err();
    assert_eq!(err.to_string(), "byte 4: the count is 9; at most 3 fit");
}

#[test]
fn ranged_reads_count_requests_and_report_truncation() {
    let file = b"TOY1\x02\x00\x00\x00\x02\x04".to_vec();
    let counted = Counting::new(&file[..]);
    assert_eq!(read(&counted).unwrap(), [2, 4]);
    assert_eq!(counted.stats().requests, 2);

    let short = b"TOY1\x02\x00\x00\x00\x02".to_vec();
    let err = read(&short).unwrap_err();
    assert_eq!(err.offset(), Some(8));
    assert!(matches!(
        err.kind(),
        ErrorKind::Layout(Layout::Truncated {
            needed: 2,
            available: 1,
            ..
        })
    ));
}

#[test]
fn io_errors_keep_their_path_and_round_trip_to_io() {
    let err: Error = std::fs::read("/nonexistent/toy")
        .map_err(IoError::at_path("/nonexistent/toy"))
        .unwrap_err()
        .into();
    assert_eq!(err.fault(), Fault::Io);
    assert!(err.to_string().starts_with("/nonexistent/toy: "));
    let io: std::io::Error = err.into();
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
}

#[test]
fn kinds_name_themselves_and_io_errors_get_one_path() {
    let err = parse(b"TOY1\x09\x00\x00\x00").unwrap_err();
    assert_eq!(err.kind().name(), "CountTooLarge");
    assert!(err.io_error().is_none());
    let err = parse(b"TOY1\x09").unwrap_err();
    assert_eq!(
        err.kind().name(),
        "Truncated",
        "a layout is named by its variant"
    );
    // Not an I/O error: unchanged.
    assert_eq!(
        err.with_path("toy").to_string(),
        "byte 0: truncated input: header of 8 bytes, but the input has only 5 bytes from there"
    );

    let err: Error = IoError::from(std::io::Error::from(std::io::ErrorKind::NotFound)).into();
    assert_eq!(err.kind().name(), "Io");
    let err = err.with_path("a.toy");
    assert_eq!(err.to_string(), "a.toy: entity not found");
    let err = err.with_path("b.toy");
    assert_eq!(
        err.io_error().and_then(|io| io.path.as_deref()),
        Some(std::path::Path::new("a.toy")),
        "a path already named is kept"
    );
}
