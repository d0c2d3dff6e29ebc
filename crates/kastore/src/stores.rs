//! Inputs that hold several stores back to back, and full verification.

use core::iter::FusedIterator;

use binfmt_core::bytes;

use crate::check::{self, Flow};
use crate::error::{Error, Result};
use crate::store::Store;

/// The stores in `data`, back to back, as the reference reads a stream with repeated
/// `load` calls: each one starts right where the previous one's `file_size` ends.
///
/// The iteration ends cleanly when no byte is left. Anything else that is not a store (a
/// partial header, garbage) is an error, yielded once; the iterator ends after it. Error
/// offsets count from the start of `data`. A store that does not start at a multiple of 8
/// is still read, but [`Store::get`] then copies its multi-byte arrays.
///
/// ```
/// # #[cfg(not(feature = "alloc"))] fn main() {}
/// # #[cfg(feature = "alloc")]
/// # fn main() -> Result<(), kastore::Error> {
/// let mut builder = kastore::Builder::new();
/// builder.insert("first", &[1i16, 2, 3])?;
/// let mut data = builder.to_vec()?;
/// data.extend_from_slice(&kastore::Builder::new().to_vec()?);
/// let sizes: Vec<u64> = kastore::stores(&data)
///     .map(|s| s.map(|s| s.file_size()))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(sizes, [142, 64]);
/// # Ok(())
/// # }
/// ```
#[must_use]
pub fn stores(data: &[u8]) -> Stores<'_> {
    Stores {
        data,
        offset: 0,
        failed: false,
    }
}

/// The iterator of [`stores`].
#[derive(Debug, Clone)]
pub struct Stores<'a> {
    data: &'a [u8],
    offset: u64,
    failed: bool,
}

impl Stores<'_> {
    /// Where the next store starts in the input.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

impl<'a> Iterator for Stores<'a> {
    type Item = Result<Store<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let rest = bytes::rest(self.data, self.offset, "store").unwrap_or(&[]);
        if rest.is_empty() {
            return None;
        }
        match Store::parse(rest) {
            Ok(store) => {
                self.offset = self.offset.saturating_add(store.file_size());
                Some(Ok(store))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e.rebased(self.offset)))
            }
        }
    }
}

impl FusedIterator for Stores<'_> {}

/// Checks everything in `data`, calling `report` once for every problem found.
///
/// `data` must be one or more stores back to back and nothing else (the readers ignore
/// bytes after a store; this check does not, since they would be read as a next store).
/// Problems of one store do not stop the check of the next, as long as the store's
/// header tells where it ends. Empty input is reported as [`Error::Eof`]. Offsets count
/// from the start of `data`.
///
/// Returns the number of problems; 0 means every rule holds.
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// let mut data = kastore::Builder::new().to_vec().unwrap();
/// data[16] = 65; // file_size
/// let mut problems = Vec::new();
/// assert_eq!(kastore::verify(&data, |e| problems.push(e.to_string())), 1);
/// assert!(problems[0].contains("file_size"));
/// # }
/// ```
pub fn verify(data: &[u8], mut report: impl FnMut(Error)) -> usize {
    let mut count = 0usize;
    if data.is_empty() {
        report(Error::Eof { offset: 0 });
        return 1;
    }
    let mut offset = 0u64;
    while let Ok(rest) = bytes::rest(data, offset, "store") {
        if rest.is_empty() {
            break;
        }
        let base = offset;
        let parts = check::check(rest, &mut |e| {
            count = count.saturating_add(1);
            report(e.rebased(base));
            Flow::Continue
        });
        match parts {
            Some(parts) => offset = offset.saturating_add(bytes::len_u64(parts.bytes)),
            None => break,
        }
    }
    count
}
