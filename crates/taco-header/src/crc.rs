//! CRC-32 of small buffers (the 116-byte payload) and of member data.
//!
//! `crc32fast::hash` detects the CPU's features on every call, which costs about as much as
//! hashing 116 bytes with PCLMULQDQ. With `std` we detect once and clone the ready
//! hasher; without it crc32fast uses the features enabled at compile time anyway.

/// The zlib CRC-32 of `bytes`.
#[inline]
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    #[cfg(test)]
    HASHED.with(|hashed| hashed.set(hashed.get() + bytes.len() as u64));
    #[cfg(feature = "std")]
    {
        static READY: std::sync::OnceLock<crc32fast::Hasher> = std::sync::OnceLock::new();
        let mut hasher = READY.get_or_init(crc32fast::Hasher::new).clone();
        hasher.update(bytes);
        hasher.finalize()
    }
    #[cfg(not(feature = "std"))]
    {
        crc32fast::hash(bytes)
    }
}

#[cfg(test)]
std::thread_local! {
    /// Bytes hashed by this thread: tests assert that work is done once.
    pub(crate) static HASHED: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
}

#[cfg(test)]
mod tests {
    #[test]
    fn matches_crc32fast() {
        for len in [0usize, 1, 15, 16, 17, 116, 200] {
            let data: std::vec::Vec<u8> = (0..len).map(|i| (i * 31 + 7).to_le_bytes()[0]).collect();
            assert_eq!(super::crc32(&data), crc32fast::hash(&data), "{len}");
        }
    }
}
