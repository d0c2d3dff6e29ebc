//! The crate's only `unsafe`: calls into the bundled c-blosc 1.21 (`blosc-src`).
//!
//! # Safety argument
//!
//! Only c-blosc's context functions are used (`blosc_compress_ctx`,
//! `blosc_decompress_ctx`): they keep all state in a stack context, never touch
//! c-blosc's global state, and are documented as safe to call from several threads at
//! once. Both functions take raw pointers plus lengths; the argument is that every
//! pointer/length pair we pass describes memory we own for the whole call:
//!
//! * **Decompression.** c-blosc reads the source buffer's length from its own header
//!   (`cbytes`, bytes 12..16) and trusts it. So before the call, `blosc_cbuffer_validate`
//!   (which reads only the first 16 bytes, and we check there are 16) must confirm that
//!   `cbytes` equals the length of our slice and that `nbytes` is at most
//!   `BLOSC_MAX_BUFFERSIZE`. c-blosc 1.21 then bounds every block-start and stream
//!   length it reads by `cbytes` (see `blosc_d` and `blosc_run_decompression_with_context`:
//!   "Validate src_offset", "Validate cbytes", "enough space to hold the bstarts array"),
//!   so it reads only inside the slice. It writes at most `destsize` bytes, and we pass
//!   `destsize = nbytes`, at most the length of the output slice (checked), so it writes
//!   only inside that slice. `nbytes` fits in an `i32`, so c-blosc's signed comparisons
//!   of sizes cannot wrap. Our `bloscpack` fuzz target feeds corrupt chunks through
//!   this path.
//! * **Compression.** The source is a whole slice (`nbytes` = its length, at most
//!   `BLOSC_MAX_BUFFERSIZE`, checked), the destination a slice of `nbytes + 16` bytes
//!   (`destsize` = its length); c-blosc guarantees it never writes past `destsize`. The
//!   compressor name is a NUL-terminated `'static` C string literal.
//! * Source and destination never overlap (they are a shared and an exclusive borrow),
//!   except in [`decompress_in_place`], where both are the same exclusive borrow, passed
//!   as one raw pointer: the bounds above hold all the same (reads inside its first
//!   `cbytes` bytes, writes inside its first `nbytes`), so whatever order c-blosc reads
//!   and writes in, no byte outside the buffer is touched. The order only decides
//!   whether the *output* is right, and [`in_place`] admits only buffers that c-blosc
//!   1.21 reads whole before it writes a byte (the argument is there; a test checks it
//!   against [`decompress`] over every codec and filter).
//! * Nothing is retained: c-blosc keeps no pointer after returning (the context's
//!   thread pool, used only when `threads > 1`, is joined before `blosc_decompress_ctx`
//!   returns).
//!
//! Everything else about a chunk (its header fields, sizes, digests) is checked in safe
//! Rust before these functions are reached.
#![allow(unsafe_code)]

use core::ffi::{CStr, c_int, c_void};

use blosc_src as ffi;

/// The largest buffer c-blosc 1.x handles.
const MAX_BUFFERSIZE: usize = ffi::BLOSC_MAX_BUFFERSIZE as usize;
/// c-blosc's header, and the most compression can add.
pub(crate) const OVERHEAD: usize = ffi::BLOSC_MAX_OVERHEAD as usize;

/// Why c-blosc refused a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The buffer fails `blosc_cbuffer_validate` (size fields inconsistent with its length).
    Invalid,
    /// The output slice is smaller than the buffer's `nbytes`.
    OutputTooSmall,
    /// c-blosc returned this code (0 or negative: corrupt data).
    Code(i32),
    /// [`decompress_in_place`] only: this buffer is not one c-blosc reads whole before
    /// writing (nothing was written).
    NotInPlace,
}

/// Decompresses one Blosc1 buffer (`src` is exactly one buffer, `cbytes` long) into the
/// start of `dst`, and returns the number of bytes written (its `nbytes`).
pub(crate) fn decompress(src: &[u8], dst: &mut [u8], threads: u16) -> Result<usize, Refusal> {
    let nbytes = validate(src)?;
    let Some(out) = dst.get_mut(..nbytes) else {
        return Err(Refusal::OutputTooSmall);
    };
    if nbytes == 0 {
        return Ok(0);
    }
    let threads = c_int::from(threads.max(1));
    settle_small_chunks();
    // SAFETY: validation proved that the buffer's own `cbytes` equals `src.len()`, so
    // c-blosc (which bounds all its reads by `cbytes`) reads only inside `src`; it writes
    // at most `destsize = out.len()` bytes into `out`, which we borrow exclusively.
    // `nbytes <= BLOSC_MAX_BUFFERSIZE < i32::MAX`. See the module's safety argument.
    let code = unsafe {
        ffi::blosc_decompress_ctx(
            src.as_ptr().cast::<c_void>(),
            out.as_mut_ptr().cast::<c_void>(),
            out.len(),
            threads,
        )
    };
    match usize::try_from(code) {
        Ok(n) if n == nbytes => Ok(n),
        _ => Err(Refusal::Code(code)),
    }
}

/// The buffer's `nbytes` once `blosc_cbuffer_validate` has confirmed that its `cbytes`
/// is `src.len()` and its `nbytes` at most `BLOSC_MAX_BUFFERSIZE`.
fn validate(src: &[u8]) -> Result<usize, Refusal> {
    if src.len() < OVERHEAD {
        return Err(Refusal::Invalid);
    }
    let mut nbytes: usize = 0;
    // SAFETY: `src` has at least 16 bytes (checked above), all that
    // `blosc_cbuffer_validate` reads; `nbytes` is a valid, exclusive `usize` out-pointer.
    let valid =
        unsafe { ffi::blosc_cbuffer_validate(src.as_ptr().cast(), src.len(), &raw mut nbytes) };
    if valid != 0 || nbytes > MAX_BUFFERSIZE {
        return Err(Refusal::Invalid);
    }
    Ok(nbytes)
}

/// Whether c-blosc 1.21 reads a buffer with these header fields whole before it writes
/// the first byte of its output, so that the buffer may sit where its output goes.
///
/// That holds for a non-empty, compressed buffer of **one block** whose block is
/// **shuffled** (byte shuffle with `typesize` > 1, or bit shuffle with `blocksize` >=
/// `typesize`), read from c-blosc 1.21's `serial_blosc` and `blosc_d`:
/// - with one block, the serial path runs (`do_job`: `sourcesize / blocksize <= 1`);
///   it reads the flags and the one block start, then calls `blosc_d` once, and reads
///   nothing after it returns;
/// - `blosc_d` decompresses (or copies) every stream of a shuffled block into its own
///   scratch block (`tmp`), and only then unshuffles `tmp` into the output.
///
/// Not admitted: several blocks (block 1's source would be read after block 0's output
/// was written), unshuffled blocks (decompressed straight into the output, overwriting
/// the source as it is read), memcpyed buffers (copied 16 bytes back over themselves).
/// `blocksize == nbytes` is "one block": c-blosc refuses a block larger than the output.
pub(crate) fn in_place(flags: u8, typesize: u8, nbytes: u32, blocksize: u32) -> bool {
    /// c-blosc's flag bits.
    const SHUFFLE: u8 = 0x01;
    const MEMCPYED: u8 = 0x02;
    const BITSHUFFLE: u8 = 0x04;
    // As `blosc_d` decides whether the block goes through `tmp`.
    let shuffled = (flags & SHUFFLE != 0 && typesize > 1)
        || (flags & BITSHUFFLE != 0 && blocksize >= u32::from(typesize));
    nbytes > 0 && blocksize == nbytes && flags & MEMCPYED == 0 && shuffled
}

/// Decompresses the Blosc1 buffer held in `buf[..cbytes]` over itself, into
/// `buf[..nbytes]`, and returns `nbytes`: no second buffer for the input. Refused with
/// [`Refusal::NotInPlace`] (before anything is written) unless [`in_place`] admits the
/// buffer's own header; `buf` must hold `max(cbytes, nbytes)` bytes.
pub(crate) fn decompress_in_place(buf: &mut [u8], cbytes: usize) -> Result<usize, Refusal> {
    let Some(src) = buf.get(..cbytes) else {
        return Err(Refusal::Invalid);
    };
    let nbytes = validate(src)?;
    if nbytes > buf.len() {
        return Err(Refusal::OutputTooSmall);
    }
    // The fields c-blosc reads, from the 16 bytes `validate` saw.
    let Ok(h) = crate::chunk::ChunkHeader::read(src, 0) else {
        return Err(Refusal::Invalid);
    };
    if !in_place(h.flags.bits(), h.typesize, h.nbytes, h.blocksize) {
        return Err(Refusal::NotInPlace);
    }
    settle_small_chunks();
    let both = buf.as_mut_ptr();
    // SAFETY: `validate` proved that the buffer's own `cbytes` is `cbytes`, so c-blosc
    // reads only inside `buf[..cbytes]`; it writes at most `destsize = nbytes` bytes,
    // inside `buf[..nbytes]` (checked above). `buf` is borrowed exclusively and both
    // pointers are that one borrow's, with no other reference to it alive during the call;
    // c-blosc's parameters are not `restrict`. `nbytes <= BLOSC_MAX_BUFFERSIZE < i32::MAX`.
    // That the output is right follows from `in_place` (see there).
    let code = unsafe {
        ffi::blosc_decompress_ctx(
            both.cast_const().cast::<c_void>(),
            both.cast::<c_void>(),
            nbytes,
            1,
        )
    };
    match usize::try_from(code) {
        Ok(n) if n == nbytes => Ok(n),
        _ => Err(Refusal::Code(code)),
    }
}

/// Called before (de)compressing on threads of our own: makes sure c-blosc's scratch
/// block (`blocksize` × 2, allocated and freed by every call) stays mapped in a new
/// thread's heap from one chunk to the next.
///
/// glibc gives large blocks their own mapping and hands a thread heap's free top back
/// to the kernel (`MADV_DONTNEED`) once it exceeds the trim threshold; both thresholds
/// start low (128 KiB) and rise, for the rest of the process, to the size of the
/// largest separately mapped block freed so far (at most 32 MiB). Until a block of a
/// few MiB has been freed, each chunk's scratch block in a worker thread is mapped and
/// faulted in afresh: measured on a 64 MiB pack of zeros with two threads, 13.8 ms of
/// CPU against 9.1 ms after this (the reference, python-blosc, keeps its scratch in
/// long-lived threads). So a 16 MiB block, never touched, is allocated and freed once,
/// as freeing any 16 MiB numpy array would: glibc then serves blocks below 16 MiB from
/// its heaps and trims a heap only beyond 32 MiB free. Harmless (a no-op) with other
/// allocators, or when `MALLOC_MMAP_THRESHOLD_`/`MALLOC_TRIM_THRESHOLD_` fix them.
pub(crate) fn keep_scratch_mapped() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let block: std::vec::Vec<u8> = std::vec::Vec::with_capacity(16 << 20);
        drop(core::hint::black_box(block));
    });
}

/// Called right before each c-blosc call: keeps c-blosc's scratch block at one place in
/// the calling thread's heap, call after call, instead of creeping up the heap.
///
/// c-blosc allocates its scratch (`blocksize` × 2) with `posix_memalign(32, …)`, and
/// glibc's memalign carves the block out of a slightly larger one and frees the spare
/// 48 to 80 bytes before or after it as a chunk of its own. While the thread's cache
/// (tcache: 7 chunks per size) has room for that size, the spare chunk goes there and
/// stays marked in use, right after the scratch block: the block, freed, cannot merge
/// with the heap's top, is a few bytes too small for the next call's request, and the
/// next block is carved above it, until the cache is full. Measured over the 64 chunks
/// of a 64 MiB unpack: seven 2 MiB steps, 7–8 MiB more resident in each decompressing
/// thread's heap (the caller's and a worker's arena alike), against about 1 MiB with
/// the cache full. Filling the cache for every fast-bin size (7 chunks each of 24 to
/// 120 bytes, allocated and freed: a microsecond) sends the spare chunk to a fast bin
/// instead, which the next large request merges back, with the freed block, into the
/// top. Safe code; a no-op with other allocators or other tcache settings.
pub(crate) fn settle_small_chunks() {
    /// glibc's default `tcache_count`.
    const COUNT: usize = 7;
    /// A request of each fast-bin chunk size, 32 to 128 bytes (64-bit glibc).
    const SIZES: [usize; 7] = [24, 40, 56, 72, 88, 104, 120];
    let held: [[std::vec::Vec<u8>; COUNT]; SIZES.len()] =
        SIZES.map(|n| core::array::from_fn(|_| std::vec::Vec::with_capacity(n)));
    drop(core::hint::black_box(held));
}

/// Compression settings for one call.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    pub(crate) clevel: u8,
    pub(crate) shuffle: u8,
    pub(crate) typesize: u8,
    pub(crate) cname: &'static CStr,
}

/// Compresses `src` (at most `BLOSC_MAX_BUFFERSIZE` bytes) into the start of `dst`
/// (at least `src.len() + 16` bytes) and returns the compressed length.
pub(crate) fn compress(src: &[u8], dst: &mut [u8], settings: Settings) -> Result<usize, Refusal> {
    if src.len() > MAX_BUFFERSIZE {
        return Err(Refusal::Invalid);
    }
    let Some(need) = src.len().checked_add(OVERHEAD) else {
        return Err(Refusal::Invalid);
    };
    let Some(out) = dst.get_mut(..need) else {
        return Err(Refusal::OutputTooSmall);
    };
    settle_small_chunks();
    // SAFETY: `src` is read for exactly `src.len()` bytes; c-blosc writes at most
    // `destsize = out.len()` bytes into `out`, which we borrow exclusively; `cname` is a
    // NUL-terminated static string; no pointer outlives the call. One thread, so the
    // output does not depend on scheduling.
    let code = unsafe {
        ffi::blosc_compress_ctx(
            c_int::from(settings.clevel),
            c_int::from(settings.shuffle),
            usize::from(settings.typesize),
            src.len(),
            src.as_ptr().cast::<c_void>(),
            out.as_mut_ptr().cast::<c_void>(),
            out.len(),
            settings.cname.as_ptr(),
            0,
            1,
        )
    };
    match usize::try_from(code) {
        Ok(n) if n >= OVERHEAD && n <= out.len() => Ok(n),
        _ => Err(Refusal::Code(code)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_refusals() {
        let data: std::vec::Vec<u8> = (0..10_000u32).flat_map(|i| (i / 7).to_le_bytes()).collect();
        let mut packed = std::vec![0u8; data.len() + OVERHEAD];
        let settings = Settings {
            clevel: 5,
            shuffle: 1,
            typesize: 4,
            cname: c"lz4",
        };
        let n = compress(&data, &mut packed, settings).unwrap();
        assert!(n < data.len());
        let mut out = std::vec![0u8; data.len()];
        assert_eq!(decompress(&packed[..n], &mut out, 1), Ok(data.len()));
        assert_eq!(out, data);
        // A slice that is not exactly one buffer, a short output, a short input.
        assert_eq!(
            decompress(&packed[..n - 1], &mut out, 1),
            Err(Refusal::Invalid)
        );
        assert_eq!(
            decompress(&packed[..n], &mut out[..10], 1),
            Err(Refusal::OutputTooSmall)
        );
        assert_eq!(decompress(&packed[..8], &mut out, 1), Err(Refusal::Invalid));
        assert_eq!(
            compress(&data, &mut packed[..10], settings),
            Err(Refusal::OutputTooSmall)
        );
        // Corrupt the body: c-blosc reports it, nothing is read or written out of bounds.
        for b in &mut packed[16..n] {
            *b ^= 0x5a;
        }
        assert!(decompress(&packed[..n], &mut out, 2).is_err());
    }

    /// Every buffer `in_place` admits decompresses over itself to what `decompress`
    /// gives; every other one is refused untouched. Over each codec, filter, element
    /// size and data kind, at sizes of one block and of several.
    #[test]
    fn in_place_matches_decompress() {
        let mut admitted = 0;
        let mut refused = 0;
        for len in [1usize, 7, 4096, 40_000, 131_072, 300_001, 1 << 20] {
            for kind in 0..3u32 {
                let data: std::vec::Vec<u8> = (0..len)
                    .map(|i| match kind {
                        0 => 0,
                        1 => i.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes()[7],
                        _ => (i / 8).wrapping_mul(3).to_le_bytes()[i % 4],
                    })
                    .collect();
                for cname in [c"blosclz", c"lz4", c"lz4hc", c"zlib", c"zstd"] {
                    for shuffle in 0..3u8 {
                        for typesize in [1u8, 2, 4, 8, 16] {
                            let settings = Settings {
                                clevel: if len > 300_000 { 7 } else { 5 },
                                shuffle,
                                typesize,
                                cname,
                            };
                            let mut packed = std::vec![0u8; len + OVERHEAD];
                            let n = compress(&data, &mut packed, settings).unwrap();
                            let mut want = std::vec![0u8; len];
                            assert_eq!(decompress(&packed[..n], &mut want, 1), Ok(len));
                            let mut buf = packed[..n].to_vec();
                            buf.resize(n.max(len), 0);
                            let before = buf.clone();
                            match decompress_in_place(&mut buf, n) {
                                Ok(got) => {
                                    assert_eq!(got, len);
                                    assert!(buf[..len] == want[..], "{settings:?} {len} {kind}");
                                    admitted += 1;
                                }
                                Err(Refusal::NotInPlace) => {
                                    assert_eq!(buf, before);
                                    refused += 1;
                                }
                                Err(e) => panic!("{e:?} {settings:?} {len} {kind}"),
                            }
                        }
                    }
                }
            }
        }
        assert!(admitted > 100 && refused > 100, "{admitted} {refused}");
    }

    /// bloscpack's defaults (1 MiB chunks of float64, blosclz at level 7, byte shuffle)
    /// make one-block chunks, so a file unpacks with no read buffer: a c-blosc that
    /// chose smaller blocks would make `unpack_into` from a file hold one per thread.
    #[test]
    fn bloscpack_defaults_unpack_in_place() {
        let data: std::vec::Vec<u8> = (0..1u64 << 17)
            .flat_map(|i| ((i as f64).sin() * 1e3).to_le_bytes())
            .collect();
        let settings = Settings {
            clevel: 7,
            shuffle: 1,
            typesize: 8,
            cname: c"blosclz",
        };
        let mut packed = std::vec![0u8; data.len() + OVERHEAD];
        let n = compress(&data, &mut packed, settings).unwrap();
        let mut buf = packed[..n].to_vec();
        buf.resize(data.len(), 0);
        assert_eq!(decompress_in_place(&mut buf, n), Ok(data.len()));
        assert!(buf == data);
    }
}
