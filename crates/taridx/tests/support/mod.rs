//! Writing small tar shards in tests (`binfmt_test_support::tar`, shared with the CLI's
//! tests and the benches), and an allocation counter for the tests that bound memory.
#![allow(
    dead_code,
    unused_imports,
    clippy::indexing_slicing,
    clippy::unwrap_used
)]

pub(crate) use binfmt_test_support::tar::{end, header, long_name, member, pax, pax_record};

/// A golden fixture: `rel` under tests/fixtures/golden.
pub(crate) fn golden_path(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/golden")
        .join(rel)
}

/// The bytes of the golden fixture `rel`.
pub(crate) fn golden(rel: &str) -> Vec<u8> {
    std::fs::read(golden_path(rel)).unwrap()
}

/// Stems of the golden train shards whose names are long: behind pax and GNU long-name
/// headers, or a ustar prefix.
pub(crate) const LONG_NAME_STEMS: [&str; 5] = [
    "sample000008",
    "sample000009",
    "sample000011",
    "naïve_ü",
    "sample000004",
];

/// The warning for `len` bytes, less than a block, after the last member at `offset` of
/// shard 0.
pub(crate) fn partial_block(offset: u64, len: u64) -> taridx::Warning {
    taridx::Warning::PartialBlock {
        shard: 0,
        offset,
        len,
    }
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
