//! Reader and writer of the Bloscpack container (format 3): header, metadata, offsets, chunk digests.
//!
//! Work in progress: only format detection exists so far.
#![no_std]
#![forbid(unsafe_code)]

/// The signature at the start of every file of this format.
pub const MAGIC: &[u8] = b"blpk";

/// True when `head` (the first bytes of a file) looks like this format.
#[must_use]
pub fn sniff(head: &[u8]) -> bool {
    binfmt_core::magic::starts_with(head, MAGIC)
}
