//! Reading stores from `std::io::Read` streams: pipes, sockets, files, several stores in a
//! row.

use std::io::{self, Read};

use crate::check;
use crate::error::{Error, Result};
use crate::owned::{AlignedBytes, OwnedStore};

/// Limits for reading stores from a stream.
///
/// Memory grows with the bytes that actually arrive, never with what a header claims,
/// so a lying `file_size` cannot make the reader allocate more than about twice the data
/// it received. The limit is for callers that also want to bound honest-but-huge stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The largest `file_size` accepted; larger stores are rejected with
    /// [`Error::TooLarge`] before their body is read. Default: no limit.
    pub max_store_size: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_store_size: u64::MAX,
        }
    }
}

impl Limits {
    /// Limits with `max_store_size` set to `bytes`.
    #[must_use]
    pub const fn max_store_size(mut self, bytes: u64) -> Limits {
        self.max_store_size = bytes;
        self
    }
}

/// Reads the stores of a stream one after the other, reading exactly `file_size` bytes
/// for each, so the stream is left right after the last store read.
///
/// The stream ends cleanly when zero bytes are left where the next store would start
/// ([`StoreReader::next_store`] returns `Ok(None)`; the reference calls this `KAS_ERR_EOF`).
/// A partial header or body is an error: [`Error::Layout`] with
/// [`binfmt_core::Error::Truncated`].
///
/// ```
/// # fn main() -> Result<(), kastore::Error> {
/// let mut stream = Vec::new();
/// for n in 0..3u32 {
///     kastore::Builder::new().insert("n", &[n])?.write_to(&mut stream)?;
/// }
/// let reader = kastore::StoreReader::new(stream.as_slice());
/// let ns: Vec<u32> = reader
///     .map(|s| Ok(s?.store().get::<u32>("n")?[0]))
///     .collect::<Result<_, kastore::Error>>()?;
/// assert_eq!(ns, [0, 1, 2]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct StoreReader<R> {
    inner: R,
    limits: Limits,
    offset: u64,
    failed: bool,
}

impl<R: Read> StoreReader<R> {
    /// Reads stores from `inner` with default [`Limits`]. Wrap unbuffered readers in a
    /// `BufReader` if stores are small; large arrays are read straight into place.
    pub fn new(inner: R) -> StoreReader<R> {
        StoreReader::with_limits(inner, Limits::default())
    }

    /// Reads stores from `inner` with `limits`.
    pub fn with_limits(inner: R, limits: Limits) -> StoreReader<R> {
        StoreReader {
            inner,
            limits,
            offset: 0,
            failed: false,
        }
    }

    /// The next store, or `None` at a clean end of the stream.
    ///
    /// # Errors
    /// [`Error::Io`] from the stream; any problem [`Store::parse`](crate::Store::parse)
    /// reports, with offsets counted from where this reader started; truncation;
    /// [`Error::TooLarge`] above the limit.
    pub fn next_store(&mut self) -> Result<Option<OwnedStore>> {
        match read_store(&mut self.inner, self.offset, &self.limits) {
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

impl<R: Read> Iterator for StoreReader<R> {
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
    /// [`Error::Eof`] when the stream is already at its end (zero bytes), plus every error
    /// of [`StoreReader::next_store`].
    pub fn read_from<R: Read>(mut reader: R) -> Result<OwnedStore> {
        read_store(&mut reader, 0, &Limits::default())?.ok_or(Error::Eof { offset: 0 })
    }
}

/// Bytes requested at a time at least; the buffer then doubles, so that a store's memory
/// follows the data that really arrives.
const CHUNK: usize = 1 << 16;

fn read_store<R: Read>(r: &mut R, offset: u64, limits: &Limits) -> Result<Option<OwnedStore>> {
    let rebase = |e: Error| e.rebased(offset);
    let mut head = [0u8; 64];
    let got = read_full(r, &mut head)?;
    if got == 0 {
        return Ok(None);
    }
    let info = check::header(head.get(..got).unwrap_or(&[])).map_err(rebase)?;
    if info.file_size > limits.max_store_size {
        return Err(Error::TooLarge {
            offset,
            file_size: info.file_size,
            limit: limits.max_store_size,
        });
    }
    let total = binfmt_core::bytes::to_usize(info.file_size, "store", offset)?;
    let mut buf = AlignedBytes::zeroed(head.len());
    buf.as_mut_bytes().copy_from_slice(&head);
    let mut filled = head.len();
    while filled < total {
        let target = total.min(filled.saturating_add(filled.max(CHUNK)));
        buf.resize(target);
        let dst = buf.as_mut_bytes().get_mut(filled..).unwrap_or(&mut []);
        let want = dst.len();
        let got = read_full(r, dst)?;
        filled = filled.saturating_add(got);
        if got < want {
            // The same diagnosis as parsing these bytes from a slice: a corrupt descriptor
            // rather than "truncated" when the descriptors say so.
            buf.truncate(filled);
            let truncated = Error::Layout(binfmt_core::Error::Truncated {
                what: "store",
                offset: 0,
                needed: info.file_size,
                available: u64::try_from(filled).unwrap_or(u64::MAX),
            });
            let e = check::first_problem(&buf).err().unwrap_or(truncated);
            return Err(rebase(e));
        }
    }
    OwnedStore::from_aligned(buf).map(Some).map_err(rebase)
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
