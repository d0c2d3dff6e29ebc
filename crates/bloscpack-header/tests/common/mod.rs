//! Helpers shared by the integration tests.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used)]

use bloscpack_header::{Checksum, Header, HeaderFields, JSON_FORMAT, Options};

/// The default options with chunks of `chunk_size` bytes.
#[cfg(feature = "blosc")]
pub fn chunks_of(chunk_size: u32) -> bloscpack_header::PackOptions {
    bloscpack_header::PackOptions {
        chunk_size,
        ..Default::default()
    }
}

/// The start of a file with a metadata section and one chunk of `chunk_size` bytes: its
/// header, then the metadata header's format field, for a test to write the rest.
pub fn with_metadata_format(chunk_size: u32) -> Vec<u8> {
    let header = Header::new(HeaderFields {
        options: Options::METADATA,
        checksum: Checksum::None,
        typesize: 1,
        chunk_size: Some(chunk_size),
        last_chunk: Some(chunk_size),
        nchunks: Some(1),
        ..HeaderFields::default()
    })
    .unwrap();
    let mut bytes = header.to_bytes().to_vec();
    bytes.extend_from_slice(&JSON_FORMAT);
    bytes
}
