//! Several stores in a row, read from slices and from `Read` streams.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use std::io::{self, Read};

use kastore::{ErrorCode, ErrorKind, OwnedStore, ReadOptions, StreamReader, Writer};

fn stream() -> Vec<u8> {
    let mut out = Vec::new();
    Writer::new()
        .add("first", &[1i16, 2, 3])
        .unwrap()
        .write_to(&mut out)
        .unwrap();
    assert_eq!(out.len(), 142);
    let quarters = [0.0f32, 0.25, 0.5, 0.75, 1.0];
    Writer::new()
        .add("second", &quarters)
        .unwrap()
        .add("x", &[9u8])
        .unwrap()
        .write_to(&mut out)
        .unwrap();
    Writer::new().write_to(&mut out).unwrap();
    out
}

/// Hands out at most `step` bytes per read and is interrupted before every read.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
    interrupt: bool,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.interrupt = !self.interrupt;
        if self.interrupt {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(self.step).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

#[test]
fn slices_and_streams_give_the_same_stores() {
    let data = stream();
    let from_slice: Vec<_> = kastore::stores(&data)
        .map(|s| s.unwrap().file_size())
        .collect();
    assert_eq!(from_slice, [142, 225, 64]);
    for step in [1, 7, 64, 1 << 20] {
        let reader = StreamReader::new(Trickle {
            data: &data,
            step,
            interrupt: false,
        });
        let sizes: Vec<_> = reader.map(|s| s.unwrap().as_bytes().len() as u64).collect();
        assert_eq!(sizes, from_slice, "step {step}");
    }
    let mut reader = StreamReader::new(data.as_slice());
    reader.next_store().unwrap().unwrap();
    let second = reader.next_store().unwrap().unwrap();
    assert_eq!(
        *second.store().get::<f32>("second").unwrap(),
        [0.0, 0.25, 0.5, 0.75, 1.0]
    );
    assert_eq!(reader.offset(), 367);
    // The stream is left right after the store read.
    let rest = reader.into_inner();
    assert_eq!(rest.len(), 64);
}

#[test]
fn a_clean_end_is_not_a_truncation() {
    let data = stream();
    let mut reader = StreamReader::new(data.as_slice());
    while reader.next_store().unwrap().is_some() {}
    assert!(reader.next_store().unwrap().is_none());
    let e = OwnedStore::read_from(io::empty()).unwrap_err();
    assert!(e.kind().is_eof());
    assert_eq!(e.kind().code(), ErrorCode::Eof);
    assert!(kastore::Store::parse(&[]).unwrap_err().kind().is_eof());
    assert_eq!(kastore::stores(&[]).count(), 0);
}

#[test]
fn truncation_anywhere_is_reported_with_absolute_offsets() {
    let data = stream();
    for cut in 1..data.len() {
        let part = &data[..cut];
        let boundary = [142usize, 367].contains(&cut);
        let results: Vec<_> = StreamReader::new(part).collect();
        let slices: Vec<_> = kastore::stores(part).collect();
        // Offsets point into the store that was cut.
        let start: u64 = if cut < 142 {
            0
        } else if cut < 367 {
            142
        } else {
            367
        };
        match results.last().unwrap() {
            Ok(_) => assert!(boundary, "cut {cut}: no error"),
            Err(a) => {
                assert!(!boundary, "cut {cut}");
                assert_eq!(a.kind().code(), ErrorCode::BadFileFormat, "cut {cut}: {a}");
                assert!(a.offset().unwrap() >= start, "cut {cut}: {a}");
            }
        }
        if boundary || cut < 142 {
            // Whole stores, or a first store cut short: the slice says what the stream says.
            assert_eq!(results.len(), slices.len(), "cut {cut}");
            if let (Err(a), Err(b)) = (results.last().unwrap(), slices.last().unwrap()) {
                assert_eq!((a.kind().code(), a.offset()), (b.kind().code(), b.offset()));
            }
            continue;
        }
        // A later store cut short: the slice reads the stores before it, and the bytes
        // that begin like a store are trailing bytes, with the stream's error as the
        // second warning.
        assert_eq!(slices.len(), results.len() - 1, "cut {cut}");
        let last = slices.last().unwrap().as_ref().unwrap();
        let warnings: Vec<_> = last.warnings().collect();
        assert!(
            matches!(warnings[0].kind(), ErrorKind::TrailingBytes { store_like: true, len, .. } if *len == cut as u64 - start),
            "cut {cut}: {}",
            warnings[0]
        );
        assert_eq!(warnings[0].offset(), Some(start));
        let a = results.last().unwrap().as_ref().unwrap_err();
        assert_eq!(
            (warnings[1].kind().code(), warnings[1].offset()),
            (a.kind().code(), a.offset()),
            "cut {cut}"
        );
    }
}

#[test]
fn a_partial_header_is_a_format_error() {
    for n in 1..64 {
        let zeros = vec![0u8; n];
        let e = OwnedStore::read_from(zeros.as_slice()).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Layout(kastore::Layout::Truncated { what: "header", .. })
            ),
            "{n}: {e}"
        );
        assert_eq!(e.kind().code(), ErrorCode::BadFileFormat);
    }
}

#[test]
fn limits_and_lying_sizes() {
    let data = stream();
    let mut reader =
        StreamReader::with_options(data.as_slice(), &ReadOptions::new().max_store_size(100));
    let e = reader.next().unwrap().unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::TooLarge {
            file_size: 142,
            limit: 100,
            ..
        }
    ));
    assert_eq!(e.offset(), Some(0));
    assert_eq!(e.kind().code(), ErrorCode::NoMemory);
    assert!(reader.next().is_none(), "fused after an error");

    // A header claiming an exabyte over a 200-byte stream costs a small buffer, then an error.
    let mut liar = data[..142].to_vec();
    liar[16..24].copy_from_slice(&(1u64 << 60).to_le_bytes());
    liar[12..16].copy_from_slice(&1u32.to_le_bytes());
    let e = OwnedStore::read_from(liar.as_slice()).unwrap_err();
    // Diagnosed from the bytes that did arrive, as a slice parse would.
    assert!(
        matches!(e.kind(), ErrorKind::FileSizeMismatch { file_size, expected: 142, .. } if *file_size == 1 << 60),
        "{e}"
    );
    assert_eq!(e.offset(), Some(16));
    assert_eq!(
        kastore::Store::parse(&liar).unwrap_err().to_string(),
        e.to_string()
    );
}

#[test]
fn owned_stores_keep_one_store() {
    let data = stream();
    let owned = OwnedStore::from_bytes(&data).unwrap();
    assert_eq!(owned.as_bytes().len(), 142);
    assert_eq!(*owned.store().get::<i16>("first").unwrap(), [1, 2, 3]);
    let owned = OwnedStore::from_aligned(kastore::AlignedBytes::copy_from(&data[142..])).unwrap();
    assert_eq!(owned.store().len(), 2);
    assert_eq!(owned.as_bytes().len(), 225);
    // The buffer keeps what followed the store (here a further store), so that the view
    // can tell what it is.
    assert_eq!(owned.store().trailing_len(), 64);
    assert_eq!(owned.store().warnings().count(), 0);
    assert_eq!(owned.into_bytes().len(), 289);
}
