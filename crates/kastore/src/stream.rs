//! Reading stores from `std::io::Read` streams: pipes, sockets, files, several stores in a
//! row.

use std::io::{self, Read};

use binfmt_core::{IoError, Kind};

use crate::check;
use crate::error::{ErrorKind, Result};
use crate::options::ReadOptions;
use crate::owned::{AlignedBytes, OwnedStore};

/// Reads the stores of a stream one after the other, reading exactly `file_size` bytes
/// for each, so the stream is left right after the last store read.
///
/// The stream ends cleanly when zero bytes are left where the next store would start
/// ([`StreamReader::next_store`] returns `Ok(None)`; the reference calls this
/// `KAS_ERR_EOF`). Anything else is read as the next store, as the reference's stream
/// loop does: a partial header or body is an error ([`ErrorKind::Layout`] with
/// [`Layout::Truncated`](crate::Layout::Truncated)), and so are bytes that are not a
/// store. (A file with bytes after its store is read with [`fs::read`](crate::fs::read)
/// and [`stores`](crate::stores), which accept them with a warning: a stream cannot tell
/// a further store that is cut short from trailing bytes until it has read them.)
///
/// ```
/// # fn main() -> Result<(), kastore::Error> {
/// let mut stream = Vec::new();
/// for n in 0..3u32 {
///     kastore::Writer::new().add("n", &[n])?.write_to(&mut stream)?;
/// }
/// let reader = kastore::StreamReader::new(stream.as_slice());
/// let ns: Vec<u32> = reader
///     .map(|s| Ok(s?.store().get::<u32>("n")?[0]))
///     .collect::<Result<_, kastore::Error>>()?;
/// assert_eq!(ns, [0, 1, 2]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct StreamReader<R> {
    inner: R,
    options: ReadOptions,
    offset: u64,
    failed: bool,
}

impl<R: Read> StreamReader<R> {
    /// Reads stores from `inner` with the default [`ReadOptions`]. Wrap unbuffered readers
    /// in a `BufReader` if stores are small; large arrays are read straight into place.
    pub fn new(inner: R) -> StreamReader<R> {
        StreamReader::with_options(inner, &ReadOptions::new())
    }

    /// Reads stores from `inner` with `options`.
    ///
    /// Memory grows with the bytes that actually arrive, never with what a header claims,
    /// so a lying `file_size` cannot make the reader allocate more than about twice the
    /// data it received. [`ReadOptions::max_store_size`] also bounds honest-but-huge
    /// stores: a larger one is rejected before its body is read.
    pub fn with_options(inner: R, options: &ReadOptions) -> StreamReader<R> {
        StreamReader {
            inner,
            options: *options,
            offset: 0,
            failed: false,
        }
    }

    /// The next store, or `None` at a clean end of the stream.
    ///
    /// # Errors
    /// [`ErrorKind::Io`] from the stream; any problem [`Store::parse`](crate::Store::parse)
    /// reports, with offsets counted from where this reader started; truncation;
    /// [`ErrorKind::TooLarge`] above the limit.
    pub fn next_store(&mut self) -> Result<Option<OwnedStore>> {
        match read_store(&mut self.inner, self.offset, &self.options) {
            Ok(Some(store)) => {
                self.offset = self
                    .offset
                    .saturating_add(binfmt_core::bytes::len_u64(store.as_bytes()));
                Ok(Some(store))
            }
            other => other,
        }
    }

    /// The number of bytes consumed by the stores read so far.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The stream, positioned right after the last store read.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: Read> Iterator for StreamReader<R> {
    type Item = Result<OwnedStore>;

    fn next(&mut self) -> Option<Result<OwnedStore>> {
        if self.failed {
            return None;
        }
        match self.next_store() {
            Ok(Some(store)) => Some(Ok(store)),
            Ok(None) => None,
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

impl OwnedStore {
    /// Reads exactly one store from `reader`, leaving it right after the store.
    ///
    /// # Errors
    /// [`ErrorKind::Eof`] when the stream is already at its end (zero bytes), plus every
    /// error of [`StreamReader::next_store`].
    pub fn read_from<R: Read>(mut reader: R) -> Result<OwnedStore> {
        read_store(&mut reader, 0, &ReadOptions::new())?.ok_or_else(|| ErrorKind::Eof.at(0))
    }
}

/// Bytes requested at a time at least; the buffer then doubles, so that a store's memory
/// follows the data that really arrives.
const CHUNK: usize = 1 << 16;

fn read_store<R: Read>(
    r: &mut R,
    offset: u64,
    options: &ReadOptions,
) -> Result<Option<OwnedStore>> {
    let mut head = [0u8; 64];
    let got = read_full(r, &mut head).map_err(IoError::from)?;
    if got == 0 {
        return Ok(None);
    }
    let info =
        check::header(head.get(..got).unwrap_or(&[]), options).map_err(|e| e.rebased(offset))?;
    let total = binfmt_core::bytes::to_usize(info.file_size, "store", offset)?;
    let mut buf = AlignedBytes::zeroed(head.len());
    buf.as_mut_bytes().copy_from_slice(&head);
    let mut filled = head.len();
    while filled < total {
        let target = total.min(filled.saturating_add(filled.max(CHUNK)));
        buf.resize(target);
        let dst = buf.as_mut_bytes().get_mut(filled..).unwrap_or(&mut []);
        let want = dst.len();
        let got = read_full(r, dst).map_err(IoError::from)?;
        filled = filled.saturating_add(got);
        if got < want {
            // The same diagnosis as parsing these bytes from a slice: a corrupt descriptor
            // rather than "truncated" when the descriptors say so.
            buf.truncate(filled);
            let e = match check::first_problem(&buf, options) {
                Err(e) => e,
                Ok(_) => binfmt_core::Error::truncated(
                    "store",
                    0,
                    info.file_size,
                    binfmt_core::bytes::to_u64(filled),
                )
                .into(),
            };
            return Err(e.rebased(offset));
        }
    }
    OwnedStore::from_aligned_with(buf, options)
        .map(Some)
        .map_err(|e| e.rebased(offset))
}

/// Fills `buf` unless the stream ends first; returns how many bytes were read.
fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while let Some(dst) = buf.get_mut(filled..).filter(|d| !d.is_empty()) {
        match r.read(dst) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Reads `r` to its end into an aligned buffer, starting with room for `hint` bytes (a
/// file's size) and doubling from there, so memory follows the data that arrives.
pub(crate) fn read_to_end(r: &mut impl Read, hint: usize) -> io::Result<AlignedBytes> {
    // One byte more than the hint, so that a file of exactly `hint` bytes is read without
    // growing the buffer just to see the end.
    let mut buf = AlignedBytes::zeroed(hint.saturating_add(1).max(CHUNK));
    let mut filled = 0usize;
    loop {
        let dst = buf.as_mut_bytes().get_mut(filled..).unwrap_or(&mut []);
        let want = dst.len();
        let got = read_full(r, dst)?;
        filled = filled.saturating_add(got);
        if got < want {
            buf.truncate(filled);
            return Ok(buf);
        }
        buf.resize(filled.saturating_add(filled.max(CHUNK)));
    }
}
