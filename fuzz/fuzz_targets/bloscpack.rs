#![no_main]
//! Bloscpack: header, metadata and offsets sections, chunk walk, digests, and (for
//! small files) decompression through c-blosc, over arbitrary bytes.
//!
//! Nothing may panic, and nothing may be allocated beyond the input's size whatever the
//! header claims (nchunks, max_app_chunks, meta_size …): parsing allocates nothing at all,
//! and the only allocations (inflated metadata, unpacked data) are bounded below.

use std::io::Cursor;

use bloscpack_header::{BloscArgs, Bloscpack, Config, Header, UnpackOptions, append};
use libfuzzer_sys::fuzz_target;

/// Unpack only files that decompress to at most this much.
const MAX_UNPACK: u64 = 1 << 20;

fuzz_target!(|data: &[u8]| {
    if let Ok(header) = Header::parse(data) {
        // Decoding and encoding are inverse on every valid header.
        assert_eq!(Header::parse(&header.to_bytes()).ok(), Some(header));
    }
    for config in [Config::DEFAULT, Config::BLOSCPACK] {
        let Ok(file) = Bloscpack::parse_with(data, config) else {
            continue;
        };
        let mut total = 0u64;
        let mut count = 0u64;
        for chunk in file.chunks() {
            assert!(chunk.offset() + chunk.bytes().len() as u64 <= data.len() as u64);
            assert_eq!(chunk.bytes().len() as u64, u64::from(chunk.header().cbytes));
            total += u64::from(chunk.header().nbytes);
            count += 1;
            let _ = chunk.verify();
        }
        assert_eq!(count, file.nchunks());
        assert_eq!(total, file.uncompressed_len());
        assert!(file.end() <= data.len() as u64);
        assert_eq!(file.offsets().len() as u64, if file.header().has_offsets() { count } else { 0 });
        if count > 0 {
            assert!(file.chunk(count - 1).is_some());
        }
        let _ = file.digest_errors().count();
        if let Some(meta) = file.metadata() {
            if let Ok(text) = meta.text() {
                assert_eq!(text.len() as u64, u64::from(meta.meta_size()));
            }
            let mut buf = [0u8; 4096];
            let _ = meta.decode_into(&mut buf);
        }
        if file.uncompressed_len() <= MAX_UNPACK {
            // Without digest checks, so that corrupt chunks reach c-blosc.
            let options = UnpackOptions::DEFAULT.verify(false);
            let before = file.unpack_to_vec(options);
            if let Ok(out) = &before {
                assert_eq!(out.len() as u64, file.uncompressed_len());
            }
            check_append(data, before.ok());
        }
    }
});

/// Appending to a file that parsed: on error the bytes are unchanged; on success the
/// result parses, and it unpacks to the old data plus the new whenever the old did.
fn check_append(data: &[u8], before: Option<Vec<u8>>) {
    const EXTRA: &[u8] = b"appended by the fuzzer: 0123456789abcdef0123456789abcdef";
    let mut file = Cursor::new(data.to_vec());
    match append(&mut file, EXTRA, &BloscArgs::default()) {
        Err(_) => assert!(file.get_ref().starts_with(data)),
        Ok(report) => {
            let mut bytes = file.into_inner();
            bytes.truncate(report.file_len as usize);
            let after = Bloscpack::parse(&bytes).expect("an append result parses");
            if let Some(mut want) = before {
                want.extend_from_slice(EXTRA);
                let got = after.unpack_to_vec(UnpackOptions::DEFAULT.verify(false));
                if let Ok(got) = got {
                    assert_eq!(got, want);
                }
            }
        }
    }
}
