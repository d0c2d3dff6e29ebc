#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
//!
//! # Request policy
//!
//! | call | requests |
//! |---|---|
//! | `read_head(n)` | one GET `bytes=0-(max(n, read_ahead)-1)`; short at the end of the object is fine; no HEAD first |
//! | `read_head(n)`, [`Options::with_whole_object`] ([`WholeObject`] too) | one GET without `Range` (the whole object, which a server that ignores ranges serves as well); its rest feeds the streams asked after it |
//! | `read_tail(n)` | one GET `bytes=-max(n, read_ahead)` (a suffix range); the length comes from `Content-Range` (Azure, which has no suffix ranges: a HEAD, then a bounded GET) |
//! | `len()` | none once any response came; otherwise one HEAD |
//! | `read_range(r)` | one GET of exactly `r` (never widened), or none when a read-ahead block holds it |
//! | `read_ranges(rs)` | ranges held by a read-ahead block: none; the others sorted and merged when the hole between them is smaller than the coalesce gap ([`DEFAULT_COALESCE_GAP`], 64 KiB; never growing a request past 16 MiB by merging), one GET per merged group, up to [`DEFAULT_CONCURRENCY`] (8) in flight, or up to [`SMALL_CONCURRENCY`] (64) when every group is small ([`SMALL_RANGE`], 64 KiB: a listing's headers) |
//!
//! The read-ahead ([`DEFAULT_READ_AHEAD`], off by default; a size when set) applies to `read_head` and
//! `read_tail` only: their blocks (up to [`CACHE_BLOCK_MAX`], 1 MiB) are kept for later
//! reads, which is where a format's next structure usually is (the descriptors after a
//! header, the directory before a trailer). A 1-KB `read_range` of a 100-GB object
//! downloads 1 KB.
//!
//! # Version pinning
//!
//! The first response's ETag (and version ID, length, Last-Modified) pins the object:
//! every later request sends `If-Match` (or `If-Unmodified-Since` when the server sent no
//! ETag, and the version ID on stores with versions), and a response of another version,
//! or of another length, is [`Problem::Changed`]: the read fails instead of mixing two
//! versions.
//!
//! # Failures
//!
//! Every error is an `io::Error` whose message is one line, `URL: cause`, and whose
//! payload is a [`RemoteError`] (get it with [`RemoteError::from_io`]); its kind follows
//! the [`Problem`]: `NotFound` for 404, `PermissionDenied` for 403 and 401,
//! `HostUnreachable` for DNS failures, `ConnectionRefused`, `TimedOut` (silence for the
//! idle timeout, or a request past its deadline: [`DEFAULT_DEADLINE`] plus its length at
//! [`DEFAULT_MIN_RATE`]), `Unsupported` for
//! a server that ignores `Range`, `UnexpectedEof` for a short body, `InvalidData` for an
//! over-long body or a wrong range, `StaleNetworkFileHandle` for an object that changed,
//! `InvalidInput` for a bad URL or setting. A range past the end of the object is
//! `binfmt_core::source::past_end` (`UnexpectedEof` with a `PastEnd` payload), which
//! format readers turn into their `Truncated` error.
//!
//! Nothing is allocated from a length a server claims: a response's buffer grows with the
//! bytes that came, and an allocation the system refuses is an error, not an abort.
//! Messages show URLs without user name, password, query string or fragment, and escape
//! control characters in text from object_store, reqwest and servers.

mod error;
mod location;
mod options;
mod plan;
mod rest;
mod runtime;
mod source;
mod store;
mod whole;

pub use error::{Problem, RemoteError};
pub use location::{SCHEMES, file_url_path, is_url};
pub use options::{
    DEFAULT_COALESCE_GAP, DEFAULT_CONCURRENCY, DEFAULT_CONNECT_TIMEOUT, DEFAULT_DEADLINE,
    DEFAULT_MIN_RATE, DEFAULT_READ_AHEAD, DEFAULT_RETRIES, DEFAULT_RETRY_TIMEOUT, DEFAULT_TIMEOUT,
    ENV_VARS, Options, SMALL_CONCURRENCY, SMALL_RANGE,
};
pub use source::{CACHE_BLOCK_MAX, Pinned, RemoteSource, Stats};
pub use whole::{StreamFallback, WholeObject};

/// The object_store crate this one is built on, for [`RemoteSource::from_store`] and
/// [`Options::with_dns_resolver`].
pub use object_store;

/// `data.len()` as `u64` (lossless on every platform Rust supports).
pub(crate) fn bytes_len(data: &[u8]) -> u64 {
    u64::try_from(data.len()).unwrap_or(u64::MAX)
}

/// A count of bytes as `u64` (saturating: a `usize` always fits on the targets we build).
pub(crate) fn usize_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}
