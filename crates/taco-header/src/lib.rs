#![doc = include_str!("../README.md")]
#![no_std]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(any(feature = "std", test))]
extern crate std;

mod archive;
mod central;
mod crc;
mod directory;
mod entries;
mod error;
mod header;
pub mod raw;
mod time;

#[cfg(feature = "std")]
mod create;
#[cfg(feature = "std")]
mod fs;
#[cfg(feature = "std")]
mod update;

pub use archive::{Archive, Level, Member, Members, Patch, update_in_memory};
pub use central::{CentralEntries, CentralEntry, LocalEntry};
pub use directory::{Directory, EndRecords, TAIL_LEN, ZIP64_RECORD_LEN};
pub use entries::{Entries, Entry};
pub use error::{Error, Result};
pub use header::{Check, Header, HeaderOptions};
pub use raw::{HEADER_SIZE, MAX_ENTRIES, PAYLOAD_SIZE};
pub use time::DosDateTime;

#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use create::{ArchiveBuilder, CreateOptions};
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use fs::{MemberList, read_entries, read_entries_from_path, read_header_bytes};
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use update::{UpdateOptions, update, update_with};

pub use binfmt_core::{Diagnostic, Fault};

/// True when `head` (the first 41 bytes of a file or more) starts like a TACO archive:
/// a ZIP local file header whose name, at byte 30, is `TACO_HEADER`.
#[must_use]
pub fn sniff(head: &[u8]) -> bool {
    head.starts_with(&raw::LOCAL_HEADER_SIGNATURE)
        && head.get(30..41) == Some(&raw::HEADER_NAME[..])
}
