//! The threaded pack and unpack paths give the same bytes as the sequential ones, for
//! every entry point and thread count.
#![cfg(feature = "blosc")]

mod common;

use binfmt_core::source::FileSource;
use binfmt_test_support::Scratch;
use bloscpack_header::{Bloscpack, Checksum, PackOptions, Reader, UnpackOptions};
use common::chunks_of;

fn data(len: usize) -> Vec<u8> {
    // A random walk of f64s: compressible, not trivially.
    let mut x = 0.0f64;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    (0..len / 8)
        .flat_map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            x += (seed % 1000) as f64 / 500.0 - 1.0;
            x.to_le_bytes()
        })
        .chain(core::iter::repeat_n(7u8, len % 8))
        .collect()
}

#[test]
fn every_pack_entry_point_writes_the_same_bytes() {
    let dir = Scratch::new("bloscpack-pipeline-pack");
    for len in [0usize, 5, 4096, 300_001, 1 << 20] {
        let input = data(len);
        for checksum in [Checksum::None, Checksum::Adler32, Checksum::Sha256] {
            for offsets in [true, false] {
                let base = PackOptions {
                    chunk_size: 65_536,
                    checksum,
                    offsets,
                    threads: 1,
                    ..PackOptions::default()
                };
                let mut reference = Vec::new();
                base.write_to(&input, &mut reference).unwrap();
                for threads in [1usize, 2, 3, 8] {
                    let options = PackOptions {
                        threads,
                        ..base.clone()
                    };
                    assert_eq!(
                        options.to_vec(&input).unwrap(),
                        reference,
                        "to_vec {len} {threads}"
                    );
                    let mut out = vec![0u8; options.max_packed_len(input.len()).unwrap()];
                    let n = options.pack_into(&input, &mut out).unwrap();
                    assert_eq!(&out[..n], &reference[..], "pack_into {len} {threads}");
                    let mut cursor = std::io::Cursor::new(Vec::new());
                    options.write_to_seekable(&input, &mut cursor).unwrap();
                    assert_eq!(cursor.into_inner(), reference, "seekable {len} {threads}");
                    let path = dir.join("p.blp");
                    options.write_to_path(&input, &path).unwrap();
                    assert_eq!(
                        std::fs::read(&path).unwrap(),
                        reference,
                        "path {len} {threads}"
                    );
                }
                let short = base.max_packed_len(input.len()).unwrap() - 1;
                assert!(base.pack_into(&input, &mut vec![0u8; short]).is_err());
            }
        }
    }
}

#[test]
fn unpack_into_memory_and_from_a_file() {
    let dir = Scratch::new("bloscpack-pipeline-unpack-into");
    let input = data(1_000_003);
    let packed = chunks_of(100_000).to_vec(&input).unwrap();
    let path = dir.join("u.blp");
    std::fs::write(&path, &packed).unwrap();
    let pack = Bloscpack::parse(&packed).unwrap();
    let reader = Reader::open(FileSource::open(&path).unwrap()).unwrap();
    for threads in [1u16, 2, 5] {
        let options = UnpackOptions::DEFAULT.threads(threads);
        let mut out = vec![0u8; input.len()];
        pack.unpack_into(&mut out, &options).unwrap();
        assert_eq!(out, input);
        let mut out = vec![0u8; input.len()];
        reader.unpack_into(&mut out, &options).unwrap();
        assert_eq!(out, input);
        // A wrong length is refused.
        assert!(pack.unpack_into(&mut [0u8; 10], &options).is_err());
    }
    // A corrupt chunk: the first failing chunk's error, in file order, whatever the
    // thread count; a truncated file: an error, not a panic.
    let mut bad = packed.clone();
    let second = usize::try_from(pack.chunk(1).unwrap().offset()).unwrap() + 40;
    let fifth = usize::try_from(pack.chunk(4).unwrap().offset()).unwrap() + 40;
    bad[second] ^= 0x55;
    bad[fifth] ^= 0x55;
    let bad_pack = Bloscpack::parse(&bad).unwrap();
    let expected = bad_pack
        .unpack_to_vec(&UnpackOptions::DEFAULT)
        .unwrap_err()
        .to_string();
    for threads in [1u16, 2, 5] {
        let mut out = vec![0u8; input.len()];
        let e = bad_pack
            .unpack_into(&mut out, &UnpackOptions::DEFAULT.threads(threads))
            .unwrap_err();
        assert_eq!(e.to_string(), expected);
    }
    std::fs::write(&path, &packed[..packed.len() - 1000]).unwrap();
    let truncated = std::fs::File::open(&path).unwrap();
    // The reader takes the file's length when opened; the last chunk no longer fits.
    assert!(Reader::open(FileSource::new(truncated).unwrap()).is_err());
}
