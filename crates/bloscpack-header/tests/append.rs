//! Appending in place: data is added exactly, spare slots are used up, and a failure
//! leaves the file as it was.
#![cfg(feature = "blosc")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]

use std::io::{self, Cursor, Read, Seek, SeekFrom, Write};

use bloscpack_header::{BloscArgs, Bloscpack, Checksum, Error, PackOptions, UnpackOptions, append};
use proptest::prelude::*;

fn data(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i / 3) as u8 ^ seed.wrapping_mul((i % 7) as u8))
        .collect()
}

fn unpack(bytes: &[u8]) -> Vec<u8> {
    let file = Bloscpack::parse(bytes).unwrap();
    file.verify().unwrap();
    file.unpack_to_vec(UnpackOptions::DEFAULT).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn appends_add_exactly_the_data(
        first in 1usize..3000, more in prop::collection::vec(0usize..2500, 1..4),
        chunk in 1u32..1024, spare in 0u64..8, checksum in 0u8..9,
    ) {
        let checksum = Checksum::from_id(checksum).unwrap();
        let options = PackOptions {
            chunk_size: chunk,
            checksum,
            max_app_chunks: Some(spare),
            ..PackOptions::default()
        };
        let original = data(first, 1);
        let mut file = Cursor::new(options.pack_to_vec(&original).unwrap());
        let mut want = original.clone();
        for (i, n) in more.into_iter().enumerate() {
            let extra = data(n, i as u8 + 2);
            let before = file.get_ref().clone();
            let header = *Bloscpack::parse(&before).unwrap().header();
            match append(&mut file, &extra, &BloscArgs::default()) {
                Ok(report) => {
                    file.get_mut().truncate(report.file_len as usize);
                    want.extend_from_slice(&extra);
                    prop_assert_eq!(unpack(file.get_ref()), want.clone());
                    let h = Bloscpack::parse(file.get_ref()).unwrap();
                    prop_assert_eq!(
                        h.header().nchunks().unwrap() + h.header().max_app_chunks(),
                        header.nchunks().unwrap() + header.max_app_chunks()
                    );
                }
                Err(Error::NotEnoughSpace { .. }) => {
                    prop_assert_eq!(file.get_ref(), &before);
                }
                Err(e) => panic!("{e}"),
            }
        }
    }
}

/// A file whose `fail_at`-th write call fails (once).
struct Flaky {
    inner: Cursor<Vec<u8>>,
    writes: usize,
    fail_at: usize,
}

impl Read for Flaky {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf)
    }
}

impl Seek for Flaky {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

impl Write for Flaky {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writes += 1;
        if self.writes == self.fail_at {
            // Half of it lands, as a full disk would do.
            let half = buf.len() / 2;
            self.inner.write_all(&buf[..half])?;
            return Err(io::Error::other("disk full"));
        }
        self.inner.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failed_write_leaves_the_file_unchanged() {
    let options = PackOptions {
        chunk_size: 512,
        ..PackOptions::default()
    };
    let original = options.pack_to_vec(&data(1300, 9)).unwrap();
    let extra = data(700, 3);
    for fail_at in 1..=3 {
        let mut file = Flaky {
            inner: Cursor::new(original.clone()),
            writes: 0,
            fail_at,
        };
        let e = append(&mut file, &extra, &BloscArgs::default()).unwrap_err();
        assert!(matches!(e, Error::Io(_)), "{e}");
        // The tail grew, so the buffer may be longer; the original bytes are back.
        assert_eq!(
            &file.inner.get_ref()[..original.len()],
            &original[..],
            "write {fail_at}"
        );
    }
    // The same through a path: the file is cut back to its length too (checked with a
    // real file and a real append that succeeds).
    let dir = std::env::temp_dir().join(format!("bloscpack-append-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.blp");
    std::fs::write(&path, &original).unwrap();
    let report = bloscpack_header::append_path(&path, &extra, &BloscArgs::default()).unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), report.file_len);
    let mut want = data(1300, 9);
    want.extend_from_slice(&extra);
    assert_eq!(unpack(&std::fs::read(&path).unwrap()), want);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn refusals_write_nothing() {
    let packed = |options: PackOptions| options.pack_to_vec(&data(1000, 5)).unwrap();
    for (bytes, what) in [
        (
            packed(PackOptions {
                offsets: false,
                ..PackOptions::default()
            }),
            "no offsets",
        ),
        (PackOptions::default().pack_to_vec(&[]).unwrap(), "empty"),
        (
            packed(PackOptions {
                chunk_size: 100,
                max_app_chunks: Some(0),
                ..PackOptions::default()
            }),
            "no spare slots",
        ),
    ] {
        let mut file = Cursor::new(bytes.clone());
        let e = append(&mut file, &data(500, 1), &BloscArgs::default()).unwrap_err();
        assert!(
            matches!(e, Error::CannotAppend { .. } | Error::NotEnoughSpace { .. }),
            "{what}: {e}"
        );
        assert_eq!(file.get_ref(), &bytes, "{what}");
    }
    // A corrupt last chunk is not built upon.
    let mut bytes = packed(PackOptions {
        chunk_size: 300,
        ..PackOptions::default()
    });
    let file = Bloscpack::parse(&bytes).unwrap();
    let last = file.chunk(file.nchunks() - 1).unwrap();
    let at = last.offset() as usize + 20;
    bytes[at] ^= 0xff;
    let mut cursor = Cursor::new(bytes.clone());
    let e = append(&mut cursor, &data(10, 1), &BloscArgs::default()).unwrap_err();
    assert!(matches!(e, Error::ChunkDigestMismatch { .. }), "{e}");
    assert_eq!(cursor.get_ref(), &bytes);
}
