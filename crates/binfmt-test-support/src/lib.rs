//! Test support shared by the binfmt crates' tests (not published).
//!
//! * [`fixtures`]: the repository root, another crate's fixtures, every fixture of a kind
//!   under a directory.
//! * [`agree`]: the harness that checks `verify` over a byte slice and `verify_data` over a
//!   range cache find the same things, on fixtures and on damaged copies of them.
//! * [`reference`](mod@reference): the Python interpreter with the reference implementations
//!   (`BINFMT_PYTHON`), and running `tools/` scripts with it.
//! * [`scratch`]: a temporary directory for one test, removed when the test passes.
//! * [`tar`]: small tar shards written byte by byte (ustar, pax and GNU long-name headers).
//! * [`noise`]: deterministic bytes that do not compress (xorshift64).
//! * [`rounds`]: a byte source that counts the calls (round trips) its readers make.
//! * `servers` (feature `servers`): nginx, moto's S3 server, a misbehaving HTTP server and a
//!   delay proxy on 127.0.0.1, with their request logs.
//! * [`reference_test!`] and [`server_test!`]: a test that needs the reference
//!   implementations or a server, ignored with the reason where it is missing.
//!
//! The format crates take this crate as a dev-dependency, so it depends on no format
//! crate (a dependency back would give their tests a second copy of their own types):
//! what is format-specific is passed in as closures.
//!
//! Whether a test that needs a reference or a server runs, is ignored or fails is decided
//! by each crate's build script (`tools/test_skips.rs`, which sets `binfmt_no_python`,
//! `binfmt_no_nginx`, `binfmt_no_moto`), not here: cfgs set by a build script reach only
//! that crate's own targets.
// Test code: a failed unwrap or a panic is a failed test, which is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::missing_panics_doc
)]
#![forbid(unsafe_code)]

pub mod agree;
pub mod fixtures;
mod needs;
pub mod noise;
pub mod reference;
pub mod rounds;
pub mod scratch;
#[cfg(feature = "servers")]
pub mod servers;
pub mod tar;

pub use scratch::Scratch;
