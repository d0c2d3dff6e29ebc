//! Inputs that hold several stores back to back.

use core::iter::FusedIterator;

use binfmt_core::bytes;

use crate::check;
use crate::error::Result;
use crate::options::ReadOptions;
use crate::store::Store;

/// The stores in `data`, back to back, as the reference reads a stream with repeated
/// `load` calls: each one starts right where the previous one's `file_size` ends.
///
/// The first store must be valid: if it is not, its first problem is yielded (once) and
/// the iteration ends. After it, the bytes that follow each store are a further store when
/// they begin with one that is valid; anything else ends the iteration cleanly, as
/// trailing bytes that the readers ignore, and the last store's
/// [`warnings`](Store::warnings) name them. Error and warning offsets count from the
/// start of `data`. A store that does not start at a multiple of 8 is still read, but
/// [`Store::get`] then copies its multi-byte arrays.
///
/// ```
/// # #[cfg(not(feature = "alloc"))] fn main() {}
/// # #[cfg(feature = "alloc")]
/// # fn main() -> Result<(), kastore::Error> {
/// let mut builder = kastore::Builder::new();
/// builder.insert("first", &[1i16, 2, 3])?;
/// let mut data = builder.to_vec()?;
/// data.extend_from_slice(&kastore::Builder::new().to_vec()?);
/// data.extend_from_slice(b"\n"); // a newline some tool appended
/// let stores = kastore::stores(&data).collect::<Result<Vec<_>, _>>()?;
/// let sizes: Vec<(u64, u64)> = stores.iter().map(|s| (s.offset(), s.file_size())).collect();
/// assert_eq!(sizes, [(0, 142), (142, 64)]);
/// let warning = stores[1].warnings().next().unwrap();
/// assert_eq!(warning.offset(), Some(206));
/// # Ok(())
/// # }
/// ```
#[must_use]
pub fn stores(data: &[u8]) -> Stores<'_> {
    stores_with(data, &ReadOptions::new())
}

/// [`stores`] with `options`.
#[must_use]
pub fn stores_with<'a>(data: &'a [u8], options: &ReadOptions) -> Stores<'a> {
    Stores {
        data,
        offset: 0,
        done: false,
        options: *options,
    }
}

/// The iterator of [`stores`].
#[derive(Debug, Clone)]
pub struct Stores<'a> {
    data: &'a [u8],
    offset: u64,
    done: bool,
    options: ReadOptions,
}

impl Stores<'_> {
    /// Where the next store would start in the input.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

impl<'a> Iterator for Stores<'a> {
    type Item = Result<Store<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let rest = bytes::rest(self.data, self.offset, "store").unwrap_or(&[]);
        if rest.is_empty() {
            self.done = true;
            return None;
        }
        match check::first_problem(rest, &self.options) {
            Ok((checked, bytes)) => {
                let after = rest.get(bytes.len()..).unwrap_or(&[]);
                let store = Store::new(checked, bytes, after, self.offset, &self.options);
                self.offset = self.offset.saturating_add(store.file_size());
                Some(Ok(store))
            }
            Err(e) => {
                self.done = true;
                // After the first store, bytes that are not a valid store are trailing
                // bytes, which the previous store's warnings name.
                (self.offset == 0).then_some(Err(e))
            }
        }
    }
}

impl FusedIterator for Stores<'_> {}
