//! The TACO header of tacozip archives. Work in progress.
#![no_std]
#![forbid(unsafe_code)]

/// A ZIP local file header signature followed, at byte 30, by the name `TACO_HEADER`.
pub const LFH_SIGNATURE: &[u8] = b"PK\x03\x04";

/// True when `head` (the first 41 bytes of a file or more) starts with a TACO header.
#[must_use]
pub fn sniff(head: &[u8]) -> bool {
    head.starts_with(LFH_SIGNATURE) && head.get(30..41) == Some(b"TACO_HEADER")
}
