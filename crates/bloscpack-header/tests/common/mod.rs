//! Hostile files shared by this crate's tests and the CLI's (which include this file by
//! its path: `binfmt bloscpack unpack|append` must refuse them as the library does).

use bloscpack_header::{Checksum, Header, HeaderFields, Options};

/// A 52-byte file (68 with an offsets section): one Blosc chunk that claims 700 MB from
/// a 20-byte buffer.
pub(crate) fn claiming_chunk(offsets: bool) -> Vec<u8> {
    let n = 700_000_000u32;
    let header = Header::new(HeaderFields {
        options: if offsets {
            Options::OFFSETS
        } else {
            Options::NONE
        },
        checksum: Checksum::None,
        typesize: 1,
        chunk_size: Some(n),
        last_chunk: Some(n),
        nchunks: Some(1),
        max_app_chunks: u64::from(offsets),
    })
    .unwrap();
    let mut bytes = header.to_bytes().to_vec();
    if offsets {
        bytes.extend_from_slice(&48u64.to_le_bytes());
        bytes.extend_from_slice(&(-1i64).to_le_bytes());
    }
    bytes.extend_from_slice(&[2, 1, 0x00, 1]); // blosclz, no shuffle, typesize 1
    bytes.extend_from_slice(&n.to_le_bytes()); // nbytes
    bytes.extend_from_slice(&n.to_le_bytes()); // blocksize
    bytes.extend_from_slice(&20u32.to_le_bytes()); // cbytes
    bytes.extend_from_slice(&16u32.to_le_bytes()); // block 0 starts at 16
    bytes
}
