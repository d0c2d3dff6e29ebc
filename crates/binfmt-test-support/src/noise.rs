//! Deterministic bytes that do not compress, from a xorshift64 generator: the same bytes
//! on every run, without a random-number crate.

/// The states of xorshift64 (13, 7, 17) after each step from `state` (which must not be
/// 0: it would stay 0).
pub fn xorshift(mut state: u64) -> impl Iterator<Item = u64> {
    core::iter::repeat_with(move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    })
}

/// `len` bytes, bits 24 to 31 of each state of [`xorshift`] from `state`.
pub fn noise(len: usize, state: u64) -> Vec<u8> {
    xorshift(state)
        .take(len)
        .map(|x| x.to_le_bytes()[3])
        .collect()
}

/// `len` bytes, the low byte of each state of [`xorshift`] from `state`.
pub fn noise_low(len: usize, state: u64) -> Vec<u8> {
    xorshift(state)
        .take(len)
        .map(|x| x.to_le_bytes()[0])
        .collect()
}
