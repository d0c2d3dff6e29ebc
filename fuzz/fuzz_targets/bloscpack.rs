#![no_main]
//! Bloscpack: header, metadata and offsets sections, chunk walk, `verify` (digests,
//! metadata JSON, block tables), warnings, and (for small files) decompression through
//! c-blosc (from the slice, and from a file by positioned reads, where chunks of one
//! shuffled block are decompressed over themselves) and an in-place append, over
//! arbitrary bytes.
//!
//! Over a range cache that reads ahead (`ReadCache<Counting<&[u8]>>`, windows, and a
//! source that streams, as a URL does, sometimes failing mid-stream: where `verify_data`
//! and `Bloscpack::parse_and_unpack` check each chunk from the one read that brings it),
//! the findings and the unpacked bytes or first error are those of the slice.
//!
//! Nothing may panic, and nothing may be allocated beyond a fixed multiple of the input's
//! size whatever the header claims (nchunks, max_app_chunks, meta_size, a chunk's
//! nbytes …): parsing allocates nothing at all, and the only allocations (inflated
//! metadata, unpacked data) are bounded below.

use core::ops::ControlFlow;

use bloscpack_header::fs::{AppendOptions, append};
use std::borrow::Cow;
use std::io;
use std::ops::Range;

use binfmt_core::cache::ReadCache;
use binfmt_core::parts::{PartStream, part_stream};
use binfmt_core::source::{ByteSource, Counting, FileSource};
use bloscpack_header::{
    Bloscpack, Header, ReadOptions, Reader, Severity, UnpackOptions, verify, verify_data,
};
use libfuzzer_sys::fuzz_target;

/// Unpack only files that decompress to at most this much.
const MAX_UNPACK: u64 = 1 << 20;

fuzz_target!(|data: &[u8]| {
    if let Ok(header) = Header::parse(data) {
        // Decoding and encoding are inverse on every valid header.
        assert_eq!(Header::parse(&header.to_bytes()).ok(), Some(header));
    }
    let small_meta = ReadOptions::new().max_metadata_size(1 << 20);
    for options in [
        small_meta,
        ReadOptions::BLOSCPACK.max_metadata_size(1 << 20),
    ] {
        // verify and parse apply the same rules: an error-free verify means parse succeeds.
        let mut errors = 0u64;
        let summary = verify(data, &options, &mut |s: Severity, _| {
            if s == Severity::Error {
                errors += 1;
            }
            ControlFlow::Continue(())
        });
        assert_eq!(summary.errors(), errors);
        same_over_a_cache(data, &options);
        let parsed = Bloscpack::parse_with(data, &options);
        if summary.is_valid() {
            assert!(parsed.is_ok());
        }
        let Ok(file) = parsed else {
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
            let _ = chunk.check_blocks();
        }
        assert_eq!(count, file.nchunks());
        assert_eq!(total, file.uncompressed_len());
        assert!(file.end() <= data.len() as u64);
        assert_eq!(
            file.offsets().len() as u64,
            if file.header().has_offsets() {
                count
            } else {
                0
            }
        );
        if count > 0 {
            assert!(file.chunk(count - 1).is_some());
        }
        let _ = file.warnings().count();
        let _ = file.verify_digests();
        if let Some(meta) = file.metadata() {
            if let Ok(text) = meta.text_with(&options) {
                assert_eq!(text.len() as u64, u64::from(meta.meta_size()));
            }
            let mut buf = [0u8; 4096];
            let _ = meta.decode_into(&mut buf);
        }
        if file.uncompressed_len() <= MAX_UNPACK {
            // Without digest checks, so that corrupt chunks reach c-blosc. One thread: the
            // parallel pipeline's scoped threads finish their thread-local destructors
            // after `scope` returns, which LeakSanitizer reports as a leak; the pipeline's
            // error paths are tested in tests/hostile.rs instead.
            let before = file.unpack_to_vec(&UnpackOptions::DEFAULT.verify(false).threads(1));
            if let Ok(out) = &before {
                assert_eq!(out.len() as u64, file.uncompressed_len());
            }
            check_file_unpack(data, &options, before.as_ref().ok());
            check_append(data, before.ok());
        }
    }
});

/// A scratch file for `data`, on a RAM disk where there is one.
fn scratch_path(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new("/dev/shm");
    let dir = if dir.is_dir() {
        dir.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    dir.join(format!("bloscpack-fuzz-{name}-{}.blp", std::process::id()))
}

/// Unpacking from the file by positioned reads (`Reader<FileSource>::unpack_into`, where
/// chunks of one shuffled block are decompressed over themselves in the output) gives the
/// bytes the slice path gave, whenever that succeeded.
fn check_file_unpack(data: &[u8], options: &ReadOptions, before: Option<&Vec<u8>>) {
    let path = scratch_path("read");
    if std::fs::write(&path, data).is_err() {
        return;
    }
    if let Ok(reader) = FileSource::open(&path)
        .map_err(drop)
        .and_then(|s| Reader::open_with(s, options).map_err(drop))
    {
        let len = reader.view().uncompressed_len();
        if let Ok(len) = usize::try_from(len)
            .map_err(drop)
            .and_then(|n| if len <= MAX_UNPACK { Ok(n) } else { Err(()) })
        {
            let mut out = vec![0u8; len];
            let got =
                reader.unpack_into(&mut out, &UnpackOptions::DEFAULT.verify(false).threads(1));
            if let Some(want) = before {
                if got.is_ok() {
                    assert_eq!(&out, want);
                } else {
                    panic!("the slice path unpacked, the file path did not: {got:?}");
                }
            }
        }
    }
    let _ = std::fs::remove_file(&path);
}

/// Appending to a file that parsed: on error the bytes are unchanged; on success the
/// result parses, and it unpacks to the old data plus the new whenever the old did.
fn check_append(data: &[u8], before: Option<Vec<u8>>) {
    const EXTRA: &[u8] = b"appended by the fuzzer: 0123456789abcdef0123456789abcdef";
    // On a RAM disk where there is one: append syncs four times.
    let path = scratch_path("append");
    if std::fs::write(&path, data).is_err() {
        return;
    }
    match append(&path, EXTRA, &AppendOptions::new()) {
        Err(_) => {
            let after = std::fs::read(&path).unwrap_or_default();
            // A refused append changes nothing, unless it first repaired an interrupted
            // one (whose undo record, CRC and all, the input would then end with).
            if !data.windows(8).any(|w| w == b"blpkUNDO") {
                assert_eq!(after, data);
            }
        }
        Ok(report) => {
            let bytes = std::fs::read(&path).unwrap_or_default();
            assert_eq!(bytes.len() as u64, report.file_len);
            let after = Bloscpack::parse(&bytes).expect("an append result parses");
            if let Some(mut want) = before {
                if report.repaired {
                    return;
                }
                want.extend_from_slice(EXTRA);
                let got = after.unpack_to_vec(&UnpackOptions::DEFAULT.verify(false).threads(1));
                if let Ok(got) = got {
                    assert_eq!(got, want);
                }
            }
        }
    }
    let _ = std::fs::remove_file(&path);
}

/// `verify_data` and `parse_and_unpack` over a cache that reads ahead give what the slice
/// paths give: the same findings in the same order, the same bytes or the same first error.
fn same_over_a_cache(data: &[u8], options: &ReadOptions) {
    let mut slice = Vec::new();
    verify(data, options, &mut |s: Severity, e| {
        slice.push((s, text(&e)));
        ControlFlow::Continue(())
    });
    let unpack = UnpackOptions::DEFAULT.threads(1).max_len(MAX_UNPACK);
    let two_steps = Bloscpack::parse_with(data, options)
        .and_then(|v| v.unpack_to_vec(&unpack))
        .map_err(|e| text(&e));
    let source = Counting::new(data);
    let streamed = Streamed(data);
    for (found, one_pass) in [
        over_a_cache(&source, options, &unpack),
        over_a_cache(&streamed, options, &unpack),
    ] {
        assert_eq!(slice, found);
        assert_eq!(two_steps, one_pass);
    }
}

/// An error as the comparisons see it: its offset and its text.
fn text(e: &bloscpack_header::Error) -> String {
    format!("{:?} {e}", e.offset())
}

/// What `verify_data` reports over a cache of `source`, in order, and what
/// `parse_and_unpack` writes through another (or its error).
fn over_a_cache<S: ByteSource + Copy>(
    source: S,
    options: &ReadOptions,
    unpack: &UnpackOptions,
) -> (Vec<(Severity, String)>, Result<Vec<u8>, String>) {
    let mut found = Vec::new();
    verify_data(&ReadCache::new(source), options, &mut |s: Severity, e| {
        found.push((s, text(&e)));
        ControlFlow::Continue(())
    });
    let mut out = Vec::new();
    let one_pass = Bloscpack::parse_and_unpack(&ReadCache::new(source), options, unpack, &mut out)
        .map(|_| out)
        .map_err(|e| text(&e));
    (found, one_pass)
}

/// A source that streams, in the calling thread (every part is sent before the first is
/// taken, with no budget), and that fails the part at an index the bytes choose, as a
/// connection that breaks mid-stream.
struct Streamed<'a>(&'a [u8]);

impl ByteSource for Streamed<'_> {
    fn len(&self) -> io::Result<u64> {
        Ok(self.0.len() as u64)
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        self.0.read_range(range)
    }
    fn stream_ranges(&self, ranges: Vec<Range<u64>>, _budget: u64) -> Option<PartStream> {
        let (sender, parts) = part_stream(u64::MAX);
        let broken = self.0.last().map(|&b| usize::from(b % 16));
        for (i, r) in ranges.into_iter().enumerate() {
            let part = if broken == Some(i) {
                Err(io::Error::other("the connection broke"))
            } else {
                self.0.read_range(r).map(Cow::into_owned)
            };
            let stop = part.is_err();
            if sender.send(part).is_err() || stop {
                break;
            }
        }
        Some(parts)
    }
    fn streams(&self) -> bool {
        true
    }
}
