#![doc = include_str!("../README.md")]
#![no_std]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(any(feature = "std", test))]
extern crate std;

mod archive;
mod central;
mod crc;
mod directory;
mod entries;
mod error;
mod header;
mod member;
mod options;
mod patch;
pub mod raw;
mod time;
mod verify;
mod walk;

#[cfg(feature = "alloc")]
mod create;
#[cfg(feature = "std")]
pub mod fs;
#[cfg(feature = "std")]
mod reader;

#[allow(deprecated)] // the earlier names, re-exported for one release
pub use archive::{Archive, HEAD_LEN, HEAD_SIZE, Members};
pub use central::{CentralEntries, CentralEntry, LocalEntry};
#[allow(deprecated)]
pub use directory::{Directory, EndRecords, TAIL_LEN, TAIL_SIZE};
pub use entries::{Entries, Entry};
pub use error::{Error, ErrorKind, Result, TornState};
pub use header::{Header, HeaderOptions};
pub use member::{EscapedName, Member};
pub use options::ReadOptions;
pub use patch::{Patch, update_in_memory};
pub use raw::{HEADER_SIZE, MAGIC, MAX_ENTRIES, PAYLOAD_SIZE, VERSION};
pub use time::DosDateTime;
#[allow(deprecated)]
pub use verify::{PIECE_SIZE, VERIFY_PIECE, verify, verify_data};

#[cfg(feature = "alloc")]
#[allow(deprecated)]
pub use create::{ArchiveBuilder, CreateOptions};
#[cfg(feature = "alloc")]
pub use create::{Writer, WriterOptions};
#[cfg(feature = "std")]
pub use reader::{CentralDirectory, MemberList, Reader, read_header, read_header_with};

// What a caller needs to match, blame or rebase an error, and to drive `verify`.
binfmt_core::reexport_shared!();

/// True when `head` (the first 41 bytes of a file or more) starts like a TACO archive:
/// the [`MAGIC`] of a ZIP local file header, and the member name `TACO_HEADER` at
/// byte 30 (every ZIP file starts with the signature; only TACO archives with that name).
///
/// ```
/// let header = taco_header::Entries::new().to_header_bytes();
/// assert!(taco_header::sniff(&header));
/// assert!(!taco_header::sniff(b"PK\x03\x04 an ordinary ZIP file"));
/// ```
#[must_use]
pub fn sniff(head: &[u8]) -> bool {
    const NAME_AT: usize = core::mem::offset_of!(raw::Header, name);
    head.starts_with(MAGIC)
        && head.get(NAME_AT..NAME_AT + raw::HEADER_NAME.len()) == Some(&raw::HEADER_NAME[..])
}
