//! The byte sources the readers hold: a local file or, with the `remote` feature, an
//! object behind a URL ([`AnySource`]), and the URL helpers.

use core::ops::Range;
use std::borrow::Cow;
use std::io;

use binfmt_core::source::ByteSource;
use pyo3::prelude::*;

/// A local file or, with the `remote` feature, an object behind a URL: what the readers
/// that accept both (`taridx`, `taco`) hold.
pub(crate) enum AnySource {
    File(binfmt_core::source::FileSource),
    /// Read by range, or in order as a stream when the server ignores ranges.
    #[cfg(feature = "remote")]
    Remote(Box<binfmt_remote::StreamFallback>),
}

macro_rules! each {
    ($self:ident, $s:ident => $e:expr) => {
        match $self {
            AnySource::File($s) => $e,
            #[cfg(feature = "remote")]
            AnySource::Remote($s) => $e,
        }
    };
}

impl ByteSource for AnySource {
    fn len(&self) -> io::Result<u64> {
        each!(self, s => s.len())
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        each!(self, s => s.read_range(range))
    }
    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Cow<'_, [u8]>>> {
        each!(self, s => s.read_ranges(ranges))
    }
    fn read_head(&self, max_len: u64) -> io::Result<Cow<'_, [u8]>> {
        each!(self, s => s.read_head(max_len))
    }
    fn read_tail(&self, max_len: u64) -> io::Result<(u64, Cow<'_, [u8]>)> {
        each!(self, s => s.read_tail(max_len))
    }
    fn as_slice(&self) -> Option<&[u8]> {
        each!(self, s => s.as_slice())
    }
    fn is_stream(&self) -> bool {
        each!(self, s => s.is_stream())
    }
    fn start_ranges(&self, ranges: Vec<Range<u64>>) -> Option<binfmt_core::source::Pending> {
        each!(self, s => s.start_ranges(ranges))
    }
    fn read_ahead_pays(&self) -> bool {
        each!(self, s => s.read_ahead_pays())
    }
    fn stream_ranges(
        &self,
        ranges: Vec<Range<u64>>,
        budget: u64,
    ) -> Option<binfmt_core::parts::PartStream> {
        each!(self, s => s.stream_ranges(ranges, budget))
    }
    fn streams(&self) -> bool {
        each!(self, s => s.streams())
    }
}

/// Whether `arg` is a URL this build reads (`s3://`, `gs://`, `az://`, `http(s)://`,
/// `file://`, …): the same test with or without the `remote` feature.
#[pyfunction]
pub(crate) fn is_url(arg: &str) -> bool {
    // The workspace's one test, with or without the `remote` feature: the CLI and
    // binfmt-remote use it too, so a name is a URL or a path alike everywhere.
    binfmt_core::text::is_url(arg)
}

/// Whether this build reads URLs (the `remote` cargo feature).
#[pyfunction]
pub(crate) fn remote_enabled() -> bool {
    cfg!(feature = "remote")
}

/// Opens `url` (options from the `BINFMT_REMOTE_*` and object-store environment
/// variables). Call without the GIL: building the store may resolve credentials.
#[cfg(feature = "remote")]
pub(crate) fn open_url(url: &str) -> io::Result<AnySource> {
    open_url_as(url, false)
}

/// [`open_url`] for a caller that reads the whole object in order (`whole`): the first
/// request asks for all of it, and the rest of that response feeds the first stream
/// (`binfmt_remote::Options::with_whole_object`).
#[cfg(feature = "remote")]
pub(crate) fn open_url_as(url: &str, whole: bool) -> io::Result<AnySource> {
    let options = binfmt_remote::Options::from_env()?.with_whole_object(whole);
    let ranged = binfmt_remote::RemoteSource::open_with(url, &options)?;
    // A server that ignores ranges (`python -m http.server`) is read in order, as the
    // command line reads it: spilled to a temporary file past 64 MiB, 16 GiB at most.
    Ok(AnySource::Remote(Box::new(
        binfmt_remote::StreamFallback::new(
            std::sync::Arc::new(ranged),
            url,
            &options,
            binfmt_core::source::STREAM_LIMIT,
        ),
    )))
}

/// Without the `remote` feature: the error a URL gets.
#[cfg(not(feature = "remote"))]
pub(crate) fn open_url_as(url: &str, _whole: bool) -> io::Result<AnySource> {
    open_url(url)
}

/// Without the `remote` feature: the error a URL gets.
#[cfg(not(feature = "remote"))]
pub(crate) fn open_url(url: &str) -> io::Result<AnySource> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "{url}: this build of binfmt reads no URLs (built without the `remote` cargo \
             feature of binfmt-python)"
        ),
    ))
}
