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

/// A file read by ranges (`Reader<FileSource>::unpack_into`) reads chunks of one
/// shuffled block into their place in the output and decompresses them over themselves,
/// every other chunk into a buffer: the bytes are those of the slice path for every
/// compressor, filter, element size and chunk size, with chunks of both kinds in one file
/// and a short last chunk.
#[test]
fn unpack_into_from_a_file_in_place_and_not() {
    use bloscpack_header::{BloscArgs, Compressor, Shuffle};
    let dir = Scratch::new("bloscpack-pipeline-in-place");
    let path = dir.join("i.blp");
    let input = data(2_500_007);
    for compressor in [
        Compressor::BloscLz,
        Compressor::Lz4,
        Compressor::Zlib,
        Compressor::Zstd,
    ] {
        for shuffle in [Shuffle::None, Shuffle::Byte, Shuffle::Bit] {
            for typesize in [1u8, 8] {
                for chunk_size in [1u32 << 20, 65_536, 1000] {
                    let options = bloscpack_header::PackOptions {
                        chunk_size,
                        blosc: BloscArgs {
                            typesize,
                            clevel: 7,
                            shuffle,
                            compressor,
                        },
                        ..Default::default()
                    };
                    let packed = options.to_vec(&input).unwrap();
                    std::fs::write(&path, &packed).unwrap();
                    let reader = Reader::open(FileSource::open(&path).unwrap()).unwrap();
                    for threads in [1u16, 2] {
                        let mut out = vec![0u8; input.len()];
                        reader
                            .unpack_into(&mut out, &UnpackOptions::DEFAULT.threads(threads))
                            .unwrap();
                        assert!(out == input, "{options:?} {threads}");
                    }
                }
            }
        }
    }
}

/// A file that changes between the walk over its chunk headers and the read of a chunk:
/// a chunk whose header said "one shuffled block" but whose bytes, read, say otherwise
/// is read again into a buffer and decompressed from there (to what its bytes now say);
/// a chunk corrupt in place is decompressed to something or refused. No panic, and the
/// other chunks are right.
#[test]
fn unpack_into_from_a_file_that_changed() {
    let dir = Scratch::new("bloscpack-pipeline-changed");
    let path = dir.join("c.blp");
    let input = data(3 << 20);
    let packed = chunks_of(1 << 20).to_vec(&input).unwrap();
    let pack = Bloscpack::parse(&packed).unwrap();
    let first = usize::try_from(pack.chunk(0).unwrap().offset()).unwrap();
    let second = usize::try_from(pack.chunk(1).unwrap().offset()).unwrap();
    assert_eq!(pack.chunk(0).unwrap().header().flags.bits() & 0x01, 0x01);
    let mib = 1 << 20;
    for threads in [1u16, 2] {
        let unchecked = UnpackOptions::DEFAULT.threads(threads).verify(false);
        // The byte shuffle flag of chunk 0 cleared after the walk.
        std::fs::write(&path, &packed).unwrap();
        let reader = Reader::open(FileSource::open(&path).unwrap()).unwrap();
        let mut changed = packed.clone();
        changed[first + 2] &= !0x01;
        std::fs::write(&path, &changed).unwrap();
        let mut out = vec![0u8; input.len()];
        reader.unpack_into(&mut out, &unchecked).unwrap();
        assert!(out[..mib] != input[..mib]);
        assert!(out[mib..] == input[mib..]);
        // With digests checked, chunk 0's mismatch is the error.
        let e = reader
            .unpack_into(&mut out, &UnpackOptions::DEFAULT.threads(threads))
            .unwrap_err();
        assert!(e.to_string().contains("chunk 0"), "{e}");
        // Chunk 1's body corrupt.
        std::fs::write(&path, &packed).unwrap();
        let reader = Reader::open(FileSource::open(&path).unwrap()).unwrap();
        let mut changed = packed.clone();
        for b in &mut changed[second + 64..second + 4096] {
            *b ^= 0x5a;
        }
        std::fs::write(&path, &changed).unwrap();
        let mut out = vec![0u8; input.len()];
        let _ = reader.unpack_into(&mut out, &unchecked);
        assert!(out[..mib] == input[..mib]);
    }
}
