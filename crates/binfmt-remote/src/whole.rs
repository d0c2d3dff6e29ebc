//! The whole object as a [`Read`]: one GET without a `Range` header, read in order.
//!
//! For a server that ignores ranges (`python -m http.server`, some application servers),
//! where ranged reads are refused ([`Problem::RangeIgnored`]): a caller that still wants
//! the object wraps this in a stream source (`binfmt_core::source::StreamSource`), which
//! reads only as far as it is asked and spills to a temporary file past its memory, as
//! for standard input. The bytes come through the same whole-object response as
//! [`Options::with_whole_object`]'s (one copy, buffers given back, at most a few MiB held
//! ahead of the reader; past that TCP's flow control holds the rest at the server).
//!
//! [`Problem::RangeIgnored`]: crate::Problem::RangeIgnored

use core::ops::Range;
use std::io::{self, Read};
use std::sync::Arc;
use std::vec::Vec;

use binfmt_core::parts::PartStream;
use binfmt_core::source::ByteSource;

use crate::{Options, RemoteSource};

/// The size of the pieces the response is cut into (1 MiB).
const PIECE: u64 = 1 << 20;

/// Pieces asked per stream: the ranges of a stream are a list, so the object's length (a
/// figure the server claims) never sizes one; each stream asks for the next 16 MiB.
const PIECES: u64 = 16;

/// What a stream holds received and not yet read (4 MiB).
const BUDGET: u64 = 4 << 20;

/// The whole object at a URL, read in order with one GET.
///
/// # Examples
///
/// ```no_run
/// use std::io::Read;
/// use binfmt_remote::{Options, WholeObject};
///
/// let mut object = WholeObject::open("http://127.0.0.1:8000/data.kas", &Options::new())?;
/// let mut first = [0u8; 8];
/// object.read_exact(&mut first)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct WholeObject {
    source: Arc<RemoteSource>,
    /// The object's length, as its response announced it.
    len: u64,
    /// Where the next stream starts.
    asked: u64,
    parts: Option<PartStream>,
    /// The piece being read, and how much of it was.
    piece: Vec<u8>,
    at: usize,
}

impl WholeObject {
    /// Opens `url` and asks for the whole object: its first bytes (or the failure, one
    /// line naming the URL) are in when this returns.
    ///
    /// # Errors
    /// As [`RemoteSource::open_with`] and its first read.
    pub fn open(url: &str, options: &Options) -> io::Result<WholeObject> {
        let options = options.clone().with_whole_object(true).with_tail_ahead(0);
        let source = Arc::new(RemoteSource::open_with(url, &options)?);
        let piece = source.read_head(PIECE)?.into_owned();
        let len = source.len()?;
        Ok(WholeObject {
            source,
            len,
            asked: crate::bytes_len(&piece),
            parts: None,
            piece,
            at: 0,
        })
    }

    /// The source the bytes come through, for its [`RemoteSource::stats`].
    #[must_use]
    pub fn source(&self) -> &Arc<RemoteSource> {
        &self.source
    }

    /// The next piece: `None` at the end of the object.
    fn next_piece(&mut self) -> io::Result<Option<Vec<u8>>> {
        loop {
            if let Some(parts) = &mut self.parts {
                match parts.next() {
                    Some(piece) => return piece.map(Some),
                    None => self.parts = None,
                }
            }
            if self.asked >= self.len {
                return Ok(None);
            }
            let mut ranges: Vec<Range<u64>> = Vec::new();
            let mut at = self.asked;
            while at < self.len && crate::usize_u64(ranges.len()) < PIECES {
                let end = at.saturating_add(PIECE).min(self.len);
                ranges.push(at..end);
                at = end;
            }
            self.asked = at;
            let parts = self.source.stream_ranges(ranges, BUDGET).ok_or_else(|| {
                io::Error::other(std::format!(
                    "{}: the rest of the object could not be streamed",
                    self.source.url()
                ))
            })?;
            self.parts = Some(parts);
        }
    }
}

impl Read for WholeObject {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at >= self.piece.len() {
            match self.next_piece()? {
                Some(piece) => {
                    let done = core::mem::replace(&mut self.piece, piece);
                    if let Some(parts) = &self.parts {
                        parts.recycle(done);
                    }
                    self.at = 0;
                }
                None => return Ok(0),
            }
        }
        let left = self.piece.get(self.at..).unwrap_or_default();
        let n = left.len().min(buf.len());
        if let (Some(dst), Some(src)) = (buf.get_mut(..n), left.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.at += n;
        Ok(n)
    }
}
