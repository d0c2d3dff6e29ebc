//! Writing small tar shards in tests: ustar headers, pax and GNU long-name headers, and an
//! allocation counter for the tests that bound memory.
#![allow(dead_code, clippy::indexing_slicing, clippy::unwrap_used)]

/// A ustar header block for a member of `size` bytes (checksum filled in).
pub(crate) fn header(name: &[u8], size: u64, typeflag: u8) -> [u8; 512] {
    let mut h = [0u8; 512];
    let n = name.len().min(100);
    h[..n].copy_from_slice(&name[..n]);
    h[100..107].copy_from_slice(b"0000644");
    h[108..115].copy_from_slice(b"0000000");
    h[116..123].copy_from_slice(b"0000000");
    h[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
    h[136..147].copy_from_slice(b"14524770400");
    h[156] = typeflag;
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    h
}

/// `data` padded with zeros to a multiple of 512 bytes.
pub(crate) fn padded(data: &[u8]) -> Vec<u8> {
    let mut v = data.to_vec();
    v.resize(data.len().div_ceil(512) * 512, 0);
    v
}

/// A regular member: header and padded payload.
pub(crate) fn member(name: &str, data: &[u8]) -> Vec<u8> {
    let mut v = header(name.as_bytes(), data.len() as u64, b'0').to_vec();
    v.extend(padded(data));
    v
}

/// One pax record, `"<len> <key>=<value>\n"`.
pub(crate) fn pax_record(key: &str, value: &[u8]) -> Vec<u8> {
    let body_len = key.len() + value.len() + 3; // ' ', '=', '\n'
    let mut n = body_len + 1;
    while n.to_string().len() + body_len != n {
        n += 1;
    }
    let mut r = format!("{n} {key}=").into_bytes();
    r.extend_from_slice(value);
    r.push(b'\n');
    r
}

/// A pax extended header (`x`, or `g` for a global one) holding `records`.
pub(crate) fn pax(typeflag: u8, records: &[(&str, &[u8])]) -> Vec<u8> {
    let data: Vec<u8> = records.iter().flat_map(|(k, v)| pax_record(k, v)).collect();
    let mut v = header(b"./PaxHeaders/x", data.len() as u64, typeflag).to_vec();
    v.extend(padded(&data));
    v
}

/// A GNU long-name header (`L`) for the member that follows.
pub(crate) fn long_name(name: &str) -> Vec<u8> {
    let mut data = name.as_bytes().to_vec();
    data.push(0);
    let mut v = header(b"././@LongLink", data.len() as u64, b'L').to_vec();
    v.extend(padded(&data));
    v
}

/// The end-of-archive marker.
pub(crate) fn end() -> Vec<u8> {
    vec![0; 1024]
}

/// Counts the bytes allocated on the current thread, so that a test can bound the memory
/// one call uses (tests of one binary run on several threads at once).
pub(crate) mod memory {
    use core::alloc::{GlobalAlloc, Layout};
    use core::cell::Cell;
    use std::alloc::System;

    thread_local! {
        static CURRENT: Cell<usize> = const { Cell::new(0) };
        static PEAK: Cell<usize> = const { Cell::new(0) };
    }

    /// The system allocator, counting.
    pub(crate) struct Counting;

    // SAFETY: every call is forwarded unchanged to `System`, which upholds the
    // `GlobalAlloc` contract; the counters are thread-local `Cell`s of `usize` with
    // constant initialisers, which neither allocate nor unwind.
    #[allow(unsafe_code)]
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            add(layout.size());
            // SAFETY: forwarded with the caller's layout.
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            sub(layout.size());
            // SAFETY: `ptr` was allocated by `System` with `layout`.
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            add(layout.size());
            // SAFETY: forwarded with the caller's layout.
            unsafe { System.alloc_zeroed(layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            sub(layout.size());
            add(new_size);
            // SAFETY: forwarded unchanged.
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }

    fn add(n: usize) {
        let _ = CURRENT.try_with(|c| {
            let now = c.get().saturating_add(n);
            c.set(now);
            let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
        });
    }

    fn sub(n: usize) {
        let _ = CURRENT.try_with(|c| c.set(c.get().saturating_sub(n)));
    }

    /// Runs `f` and returns its value and the most bytes it had allocated at once on this
    /// thread (beyond what was allocated before).
    pub(crate) fn peak<T>(f: impl FnOnce() -> T) -> (T, usize) {
        let base = CURRENT.with(Cell::get);
        PEAK.with(|p| p.set(base));
        let value = f();
        let peak = PEAK.with(Cell::get).saturating_sub(base);
        (value, peak)
    }
}
