//! Inputs that hold several stores back to back.

use core::iter::FusedIterator;
use core::marker::PhantomData;

use binfmt_core::data::Data;

use crate::error::{Error, Result};
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
/// [`Stores::new`] reads the stores of any [`Data`], e.g. a
/// [`ReadCache`](binfmt_core::cache::ReadCache) over a file: each store's metadata in
/// one request when it fits in 64 KiB, and its arrays only when asked for.
///
/// ```
/// # #[cfg(not(feature = "alloc"))] fn main() {}
/// # #[cfg(feature = "alloc")]
/// # fn main() -> Result<(), kastore::Error> {
/// let mut writer = kastore::Writer::new();
/// writer.add("first", &[1i16, 2, 3])?;
/// let mut data = writer.to_vec()?;
/// data.extend_from_slice(&kastore::Writer::new().to_vec()?);
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
    Stores::new(data, options)
}

/// The iterator of [`stores`], over a slice or any [`Data`].
#[derive(Debug, Clone)]
pub struct Stores<'d, D: Data<'d> = &'d [u8]> {
    data: D,
    offset: u64,
    done: bool,
    options: ReadOptions,
    _data: PhantomData<&'d [u8]>,
}

impl<'d, D: Data<'d>> Stores<'d, D> {
    /// The stores in `data`, back to back, as [`stores`] reads a slice.
    ///
    /// ```
    /// # #[cfg(feature = "std")] {
    /// use binfmt_core::cache::ReadCache;
    /// use binfmt_core::source::Counting;
    /// use kastore::{ReadOptions, Stores};
    ///
    /// let mut file = kastore::Writer::new().add("a", &[1u8])?.to_vec()?;
    /// file.extend_from_slice(&kastore::Writer::new().to_vec()?);
    /// let source = Counting::new(&file[..]);
    /// let cache = ReadCache::new(&source);
    /// let stores = Stores::new(&cache, &ReadOptions::new()).collect::<Result<Vec<_>, _>>()?;
    /// assert_eq!(stores.iter().map(|s| s.offset()).collect::<Vec<_>>(), [0, 137]);
    /// assert_eq!(source.stats().requests, 1); // both stores in the first read
    /// # }
    /// # Ok::<(), kastore::Error>(())
    /// ```
    #[must_use]
    pub fn new(data: D, options: &ReadOptions) -> Self {
        Stores {
            data,
            offset: 0,
            done: false,
            options: *options,
            _data: PhantomData,
        }
    }

    /// Where the next store would start in the input.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

impl<'d, D: Data<'d>> Iterator for Stores<'d, D>
where
    Error: From<D::Error>,
{
    type Item = Result<Store<'d, D>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let len = match self.data.size() {
            Ok(len) => len,
            Err(e) => {
                self.done = true;
                return (self.offset == 0).then(|| Err(e.into()));
            }
        };
        if self.offset >= len {
            self.done = true;
            return None;
        }
        match Store::from_data_at(self.data, self.offset, &self.options) {
            Ok(store) => {
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

impl<'d, D: Data<'d>> FusedIterator for Stores<'d, D> where Error: From<D::Error> {}
