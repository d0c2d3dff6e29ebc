//! The structural rules of `Bloscpack::parse`, on files built by hand (no c-blosc):
//! every chunk here is a "memcpyed" Blosc buffer (flags 0x02: the data follows the
//! 16-byte header as is), which needs no compressor.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]

mod common;

use bloscpack_header::{
    Bloscpack, Checksum, Error, ErrorKind, Header, HeaderFields, Layout, Options, ReadOptions,
};
use proptest::prelude::*;

fn stored_chunk(data: &[u8]) -> Vec<u8> {
    let n = data.len() as u32;
    let mut out = vec![2, 1, 0x02, 1];
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&n.max(1).to_le_bytes());
    out.extend_from_slice(&(n + 16).to_le_bytes());
    out.extend_from_slice(data);
    out
}

struct Built {
    bytes: Vec<u8>,
    offsets_at: usize,
}

/// A file of `pieces` as stored chunks, with `spare` free slots when `offsets`.
fn build(
    pieces: &[&[u8]],
    checksum: Checksum,
    offsets: bool,
    spare: u64,
    nchunks: Option<u64>,
) -> Built {
    let chunk_size = pieces.first().map_or(0, |p| p.len() as u32);
    let last = pieces.last().map_or(0, |p| p.len() as u32);
    let header = Header::new(HeaderFields {
        options: if offsets {
            Options::OFFSETS
        } else {
            Options::NONE
        },
        checksum,
        typesize: 1,
        chunk_size: Some(chunk_size),
        last_chunk: Some(last),
        nchunks,
        max_app_chunks: if offsets { spare } else { 0 },
    })
    .unwrap();
    let mut bytes = header.to_bytes().to_vec();
    let offsets_at = bytes.len();
    let entries = if offsets {
        pieces.len() as u64 + spare
    } else {
        0
    };
    bytes.resize(bytes.len() + 8 * entries as usize, 0xff);
    for (i, piece) in pieces.iter().enumerate() {
        let at = bytes.len() as u64;
        if offsets {
            bytes[offsets_at + 8 * i..offsets_at + 8 * i + 8].copy_from_slice(&at.to_le_bytes());
        }
        let chunk = stored_chunk(piece);
        bytes.extend_from_slice(&chunk);
        bytes.extend_from_slice(checksum.compute(&chunk).as_bytes());
    }
    Built { bytes, offsets_at }
}

fn pieces() -> Vec<Vec<u8>> {
    vec![vec![1; 100], vec![2; 100], vec![3; 37]]
}

fn refs(p: &[Vec<u8>]) -> Vec<&[u8]> {
    p.iter().map(Vec::as_slice).collect()
}

#[test]
fn a_hand_built_file_parses_and_verifies() {
    let p = pieces();
    let built = build(&refs(&p), Checksum::Crc32, true, 5, Some(3));
    let file = Bloscpack::parse(&built.bytes).unwrap();
    assert_eq!(file.nchunks(), 3);
    assert_eq!(file.uncompressed_len(), 237);
    assert_eq!(file.header().uncompressed_len(), Some(237));
    assert_eq!(file.offsets().len(), 3);
    file.verify_digests().unwrap();
    let bodies: Vec<&[u8]> = file.chunks().map(|c| &c.bytes()[16..]).collect();
    assert_eq!(bodies, refs(&p));
    assert_eq!(file.chunk(2).unwrap().header().nbytes, 37);
    assert!(file.chunk(3).is_none());
}

#[test]
fn unknown_chunk_count_walks_to_the_end() {
    let p = pieces();
    let built = build(&refs(&p), Checksum::Adler32, false, 0, None);
    let file = Bloscpack::parse(&built.bytes).unwrap();
    assert_eq!(file.nchunks(), 3);
    assert_eq!(file.header().nchunks(), None);
    file.verify_digests().unwrap();
    // Without a count, bytes after the last chunk cannot be told from a broken chunk.
    let mut more = built.bytes.clone();
    more.extend_from_slice(&[0; 5]);
    // (Here the third chunk is no longer last, so its size is wrong for a full chunk.)
    assert!(matches!(
        Bloscpack::parse(&more).map_err(Error::into_kind),
        Err(ErrorKind::ChunkSizeMismatch { index: 2, .. })
    ));
}

#[test]
fn trailing_bytes_are_tolerated_with_a_known_count() {
    let p = pieces();
    let mut built = build(&refs(&p), Checksum::Adler32, true, 0, Some(3));
    built.bytes.extend_from_slice(b"stale");
    let file = Bloscpack::parse(&built.bytes).unwrap();
    assert_eq!(file.trailing(), b"stale");
}

#[test]
fn offsets_must_point_at_their_chunks_and_spare_slots_be_free() {
    let p = pieces();
    let good = build(&refs(&p), Checksum::Adler32, true, 2, Some(3));
    let mut bad = good.bytes.clone();
    let entry = good.offsets_at + 8;
    bad[entry] ^= 1;
    let e = Bloscpack::parse(&bad).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::OffsetMismatch { index: 1, .. })
            && e.offset() == Some(entry as u64),
        "{e}"
    );
    // An aborted write leaves -1 in the used entries: an error for us.
    let mut aborted = good.bytes.clone();
    aborted[good.offsets_at..good.offsets_at + 24].fill(0xff);
    assert!(matches!(
        Bloscpack::parse(&aborted).map_err(Error::into_kind),
        Err(ErrorKind::OffsetMismatch {
            index: 0,
            stored: -1,
            ..
        })
    ));
    let mut used = good.bytes.clone();
    used[good.offsets_at + 8 * 4..good.offsets_at + 8 * 5].copy_from_slice(&7i64.to_le_bytes());
    assert!(matches!(
        Bloscpack::parse(&used).map_err(Error::into_kind),
        Err(ErrorKind::SpareSlotInUse {
            index: 4,
            stored: 7,
            ..
        })
    ));
}

#[test]
fn chunk_rules() {
    let p = pieces();
    let good = build(&refs(&p), Checksum::None, false, 0, Some(3));
    let first = 32;
    let with = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.bytes.clone();
        f(&mut b);
        Bloscpack::parse(&b).err().map(Error::into_kind)
    };
    assert!(matches!(
        with(&|b| b[first] = 3),
        Some(ErrorKind::BloscVersion {
            version: 3,
            index: 0,
            ..
        })
    ));
    assert!(matches!(
        with(&|b| b[first + 12..first + 16].copy_from_slice(&8u32.to_le_bytes())),
        Some(ErrorKind::BadBloscHeader { .. })
    ));
    assert!(matches!(
        with(&|b| b[first + 3] = 0),
        Some(ErrorKind::BadBloscHeader { .. })
    ));
    assert!(matches!(
        with(&|b| b[first + 8..first + 12].copy_from_slice(&0u32.to_le_bytes())),
        Some(ErrorKind::BadBloscHeader { .. })
    ));
    // nbytes and cbytes both shrunk by one: a consistent chunk of the wrong size.
    assert!(matches!(
        with(&|b| {
            b[first + 4] = 99;
            b[first + 8] = 99;
            b[first + 12] = 115;
        }),
        Some(ErrorKind::ChunkSizeMismatch {
            index: 0,
            nbytes: 99,
            expected: 100,
            ..
        })
    ));
    // Cut inside the last chunk, inside a digest, inside the header.
    let crc = build(&refs(&p), Checksum::Sha256, true, 0, Some(3));
    for cut in [crc.bytes.len() - 1, crc.bytes.len() - 40, 31, 40] {
        assert!(
            matches!(
                Bloscpack::parse(&crc.bytes[..cut]).map_err(Error::into_kind),
                Err(ErrorKind::Layout(Layout::Truncated { .. }))
            ),
            "cut at {cut}"
        );
    }
}

#[test]
fn huge_claims_cost_nothing() {
    // nchunks = 2^62 with offsets: the table would be 2^65 bytes; nothing is allocated
    // and the answer is immediate.
    let header = Header::new(HeaderFields {
        options: Options::OFFSETS,
        checksum: Checksum::None,
        typesize: 1,
        chunk_size: Some(1),
        last_chunk: Some(1),
        nchunks: Some(1 << 62),
        max_app_chunks: (1 << 62) - 1,
    })
    .unwrap();
    let e = Bloscpack::parse(&header.to_bytes()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Layout(Layout::Overflow { .. } | Layout::Truncated { .. })
        ),
        "{e}"
    );
    // Without offsets: the walk stops at the first missing chunk.
    let header = Header::new(HeaderFields {
        checksum: Checksum::None,
        typesize: 1,
        chunk_size: Some(1),
        last_chunk: Some(1),
        nchunks: Some(i64::MAX as u64),
        ..HeaderFields::default()
    })
    .unwrap();
    assert!(Bloscpack::parse(&header.to_bytes()).is_err());
}

#[test]
fn metadata_claims_are_checked_against_the_input() {
    // A metadata header claiming 4 GiB of reserved space in a 100-byte file.
    let mut bytes = common::with_metadata_format(1);
    bytes.extend_from_slice(&[0, 1, 1, 6]);
    bytes.extend_from_slice(&u32::MAX.to_le_bytes()); // meta_size
    bytes.extend_from_slice(&u32::MAX.to_le_bytes()); // max_meta_size
    bytes.extend_from_slice(&10u32.to_le_bytes()); // meta_comp_size
    bytes.extend_from_slice(&[0; 8]);
    bytes.extend_from_slice(&[0x78, 0x9c, 3, 0, 0, 0, 0, 1, 0, 0]);
    assert!(matches!(
        Bloscpack::parse(&bytes).map_err(Error::into_kind),
        Err(ErrorKind::Layout(Layout::Truncated {
            what: "metadata digest",
            ..
        }))
    ));
    let section = bloscpack_header::MetadataSection::parse(&bytes, 32);
    assert!(section.is_err());
}

#[cfg(feature = "alloc")]
#[test]
fn metadata_rules() {
    let meta = bloscpack_header::Metadata::new(
        &br#"{"a":[1,2,3,1,2,3,1,2,3,1,2,3,1,2,3,1,2,3,1,2,3]}"#[..],
    );
    let section = meta.encode().unwrap();
    let parse = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut s = vec![0u8; 32];
        s.extend_from_slice(&section);
        f(&mut s);
        bloscpack_header::MetadataSection::parse(&s, 32)
            .and_then(|m| m.text().map(|t| t.into_owned()))
            .map_err(Error::into_kind)
    };
    assert_eq!(
        parse(&|_| {}).unwrap(),
        r#"{"a":[1,2,3,1,2,3,1,2,3,1,2,3,1,2,3,1,2,3,1,2,3]}"#
    );
    assert!(matches!(
        parse(&|s| s[32] = b'X'),
        Err(ErrorKind::UnknownMetadataFormat { .. })
    ));
    // Each field of the metadata header, given a value it cannot hold.
    for (at, value, name) in [
        (40, 1, "meta_options"),
        (41, 9, "meta_checksum"),
        (42, 2, "meta_codec"),
        (43, 10, "meta_level"),
    ] {
        assert!(
            matches!(
                parse(&|s| s[at] = value),
                Err(ErrorKind::BadMetadataField { field, .. }) if field == name
            ),
            "{name}"
        );
    }
    assert!(matches!(
        parse(&|s| s[48..52].copy_from_slice(&1u32.to_le_bytes())),
        Err(ErrorKind::MetadataOverflowsSection { .. })
    ));
    assert!(matches!(
        parse(&|s| s[64] ^= 1),
        Err(ErrorKind::MetadataDigestMismatch { .. })
    ));
    // A wrong meta_size: the stream inflates to a different length.
    assert!(matches!(
        parse(&|s| s[44] += 1),
        Err(ErrorKind::BadMetadataStream { .. })
    ));
    // Too small a reservation is refused before anything is written.
    let mut small = meta.clone();
    small.max_meta_size = Some(3);
    assert!(matches!(
        small.encode().map_err(Error::into_kind),
        Err(ErrorKind::MetadataTooLarge { .. })
    ));
}

#[test]
fn bloscpack_config_refuses_version_2() {
    let p = pieces();
    let mut built = build(&refs(&p), Checksum::Adler32, true, 0, Some(3));
    built.bytes[4] = 2;
    assert_eq!(
        Bloscpack::parse(&built.bytes).unwrap().header().version(),
        2
    );
    assert!(Bloscpack::parse_with(&built.bytes, &ReadOptions::BLOSCPACK).is_err());
}

proptest! {
    #[test]
    fn headers_round_trip(
        options in 0u8..4, checksum in 0u8..9, typesize: u8,
        chunk in prop::option::of(1u32..=bloscpack_header::MAX_CHUNK_SIZE),
        last in 1u32..1000, n in prop::option::of(1u64..1 << 40), app in 0u64..1 << 20,
    ) {
        let fields = HeaderFields {
            options: Options::from_bits_retain(options),
            checksum: Checksum::from_id(checksum).unwrap(),
            typesize,
            chunk_size: chunk,
            last_chunk: Some(chunk.map_or(last, |c| last.min(c))),
            nchunks: n,
            max_app_chunks: if n.is_some() { app } else { 0 },
        };
        match Header::new(fields) {
            Ok(h) => {
                let back = Header::parse(&h.to_bytes()).unwrap();
                prop_assert_eq!(back, h);
                prop_assert_eq!(back.to_bytes(), h.to_bytes());
            }
            // Offsets with an unknown count, or a total size beyond u64, are refused.
            Err(e) => prop_assert!(
                (n.is_none() && options & 1 == 1)
                    || matches!(e.kind(), ErrorKind::Layout(Layout::Overflow { .. })),
                "{}",
                e
            ),
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..512), prefix in any::<bool>()) {
        let mut data = data;
        if prefix && data.len() >= 5 {
            data[..5].copy_from_slice(b"blpk\x03");
        }
        if let Ok(file) = Bloscpack::parse(&data) {
            let _ = file.verify_digests();
            prop_assert_eq!(file.chunks().count() as u64, file.nchunks());
        }
    }
}
