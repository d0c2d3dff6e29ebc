//! Reading a store by ranges: the owned form of the view over a [`ReadCache`].

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::fmt;
use core::ops::Range;

use binfmt_core::cache::ReadCache;
use binfmt_core::data::Data;
use binfmt_core::source::{ByteSource, PastEnd};
use binfmt_core::{Compatibility, Version};

use crate::array_buf::ArrayBuf;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::options::ReadOptions;
use crate::raw::{Descriptor, Header};
use crate::store::{HEAD_SIZE, Item, Items, Shape, Store};
use crate::trailing::Warnings;

/// An item of a [`Reader`]: the [`Item`] of its view, over its cache.
pub type Entry<'r, S> = Item<'r, &'r ReadCache<S>>;

/// The items of a [`Reader`]: the [`Items`] of its view, over its cache.
pub type Entries<'r, S> = Items<'r, &'r ReadCache<S>>;

impl<'r, S: ByteSource> Item<'r, &'r ReadCache<S>> {
    /// The number of elements (`u64`: an array read by ranges may be larger than memory;
    /// the slice view's `len` is a `usize`). Same as [`Item::array_len`].
    #[must_use]
    pub fn len(&self) -> u64 {
        self.array_len()
    }
}

/// A store read by ranges from a [`ByteSource`]: the owned form of
/// [`Store<'_, &ReadCache<S>>`](Store), which keeps a [`ReadCache`] and the checked shape
/// of the store as plain data. [`Reader::view`] rebuilds the view from the cached bytes
/// in O(log n), with no I/O and no re-validation; every accessor here is that view's
/// (`as view().x()`).
///
/// Opening reads the metadata; each array is read when asked for, so that reading one
/// column of a 50 GB `.trees` file in an object store costs one or two requests and the
/// bytes of that column.
///
/// The request plan (what a remote source sends, measured with
/// [`Counting`](binfmt_core::source::Counting) in this crate's tests; every request of a
/// step depends on the one before it):
///
/// | operation | requests | dependent round trips |
/// |---|---|---|
/// | [`Reader::from_cache`] over [`ReadCache::with_head`] (the 256 bytes detection read hold the header) | 1: the first 64 KiB, or the descriptors with 32 bytes of keys per item when more (the header's `num_items` sizes it); 2 when the keys are longer than that | 1 (2) |
/// | [`Reader::open`] | 1: the first 64 KiB (header, descriptors, keys of any store of up to ~900 items); 2: the descriptors and 32 bytes of keys per item, when they do not fit; 3: the rest of the keys, when they are longer | 1 (2, 3) |
/// | [`Store::from_data`] over an empty cache | as `open`: the header comes with the first 64 KiB (a hint) | 1 (2, 3) |
/// | [`Reader::get`], [`Reader::read`], [`Item::read`] | 1 per array; 0 for an empty one, or one the metadata read already holds | 1 |
/// | [`Reader::read_many`] | 1 call of [`ByteSource::read_ranges`], one range per array (concurrent, neighbours merged, for a remote source) | 1 |
/// | [`Reader::warnings`] | 0 when the store ends the input; otherwise opening the bytes after it as a store | as opening |
/// | [`Stores::new`](crate::Stores::new) over a cache | per store, as opening it (0 when the previous read holds it) | 1 per store |
///
/// Opening checks every rule that [`Store::parse`] checks, with the same code, and
/// reports the same first problem at the same offset: the descriptors and keys are
/// checked in full, the arrays' positions against `file_size`, and `file_size` against
/// the source's length. The cache holds the metadata only (arrays are read into buffers
/// the caller owns), bounded by 256 MiB or by twice
/// [`ReadOptions::max_store_size`] plus 128 KiB when that is smaller. The store starts at
/// byte 0 of the source; bytes after it are allowed
/// ([`trailing_len`](Reader::trailing_len), [`warnings`](Reader::warnings)) and not read
/// unless asked about.
///
/// ```
/// use binfmt_core::source::Counting;
/// use kastore::{Writer, Reader};
///
/// let time = vec![0.5f64; 1 << 20]; // 8 MiB
/// let bytes = Writer::new()
///     .add("nodes/time", &time)?
///     .add("nodes/flags", &[1u32, 0, 0])?
///     .to_vec()?;
/// let source = Counting::new(bytes);
/// let reader = Reader::open(&source)?;
/// assert_eq!(source.stats().requests, 1); // header, descriptors and keys at once
/// assert_eq!(*reader.get::<u32>("nodes/flags")?, [1, 0, 0]); // came with them
/// assert_eq!(reader.get::<f64>("nodes/time")?.len(), 1 << 20);
/// assert_eq!(source.stats().requests, 2); // one for the 8 MiB array
/// # Ok::<(), kastore::Error>(())
/// ```
pub struct Reader<S> {
    cache: ReadCache<S>,
    shape: Shape,
}

impl<S: ByteSource> Reader<S> {
    /// Reads and checks the store's metadata from `source`, with the default
    /// [`ReadOptions`].
    ///
    /// # Errors
    /// The first problem of the store, as [`Store::parse`] reports it;
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) when the source fails.
    pub fn open(source: S) -> Result<Reader<S>> {
        Reader::open_with(source, &ReadOptions::new())
    }

    /// [`Reader::open`] with `options`: [`ReadOptions::max_store_size`] is applied to the
    /// header before anything else is read, and bounds the cache.
    ///
    /// # Errors
    /// As [`Reader::open`], and [`ErrorKind::TooLarge`](crate::ErrorKind::TooLarge).
    pub fn open_with(source: S, options: &ReadOptions) -> Result<Reader<S>> {
        let cache = ReadCache::new(source).with_limit(cache_limit(options));
        // The first bytes, without asking the length first: a stream learns its length
        // by reading to its end, and `/dev/zero` has none. A source in memory is
        // borrowed instead.
        if (&cache).whole().is_none() {
            (&cache).head(HEAD_SIZE)?;
        }
        Reader::from_cache(cache, options)
    }

    /// Reads and checks the store's metadata through `cache`, which may already hold the
    /// first bytes ([`ReadCache::with_head`] with the bytes format detection read): they
    /// are not read again.
    ///
    /// ```
    /// use binfmt_core::cache::ReadCache;
    /// use binfmt_core::source::{ByteSource, Counting};
    /// use kastore::{Writer, ReadOptions, Reader};
    ///
    /// let bytes = Writer::new().add("a", &vec![7u64; 100_000])?.to_vec()?;
    /// let source = Counting::new(&bytes[..]);
    /// let head = source.read_head(256)?.into_owned(); // what detection read
    /// assert!(kastore::sniff(&head));
    /// let cache = ReadCache::with_head(&source, &head, 256);
    /// let reader = Reader::from_cache(cache, &ReadOptions::new())?;
    /// assert_eq!(source.stats().requests, 2); // detection's, then the metadata's
    /// assert_eq!(reader.get::<u64>("a")?[99_999], 7);
    /// assert_eq!(source.stats().requests, 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Reader::open_with`].
    pub fn from_cache(cache: ReadCache<S>, options: &ReadOptions) -> Result<Reader<S>> {
        let shape = Store::from_data_with(&cache, options)?.shape();
        Ok(Reader { cache, shape })
    }

    /// The view: the store over the cache, rebuilt from the cached metadata without I/O
    /// or re-validation.
    #[must_use]
    pub fn view(&self) -> Store<'_, &ReadCache<S>> {
        Store::from_shape(&self.cache, &self.shape)
    }

    /// The source.
    pub fn source(&self) -> &S {
        self.cache.source()
    }

    /// The source back.
    pub fn into_source(self) -> S {
        self.cache.into_source()
    }

    /// As `view().warnings()`: see [`Store::warnings`].
    pub fn warnings(&self) -> Warnings {
        self.view().warnings()
    }

    /// The bytes of `entry`'s array, little-endian, as `entry.read()`: one request, none
    /// for an empty array or one the metadata read holds. Borrowed from sources that are
    /// memory and from the cache, owned otherwise.
    ///
    /// # Errors
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) when the source fails,
    /// [`Layout::Truncated`](crate::Layout::Truncated) when it has become shorter than it
    /// was when opened.
    pub fn read<'r>(&'r self, entry: &Entry<'r, S>) -> Result<Cow<'r, [u8]>> {
        entry.read()
    }

    /// The bytes of every entry's array, in order, asked for in one call of
    /// [`ByteSource::read_ranges`] (which a remote source sends concurrently, merging
    /// neighbours).
    ///
    /// # Errors
    /// As [`Reader::read`].
    pub fn read_many<'r>(&'r self, entries: &[Entry<'r, S>]) -> Result<Vec<Cow<'r, [u8]>>> {
        let base = self.shape.offset;
        let ranges: Vec<Range<u64>> = entries
            .iter()
            .map(|e| {
                let r = e.array_range();
                r.start.saturating_add(base)..r.end.saturating_add(base)
            })
            .collect();
        self.cache.source().read_ranges(&ranges).map_err(|e| {
            // Name the range that failed, when the source says which.
            let range = e
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<PastEnd>())
                .map_or(0..0, |past| past.range.clone());
            let len = range.end.saturating_sub(range.start);
            Error::from(binfmt_core::source::from_io(e, range.start, len, "array"))
        })
    }

    /// The array under `key` as elements of type `T`, as `view().read_array(key)`: see
    /// [`Store::read_array`].
    ///
    /// # Errors
    /// [`ErrorKind::KeyNotFound`](crate::ErrorKind::KeyNotFound),
    /// [`ErrorKind::TypeMismatch`](crate::ErrorKind::TypeMismatch) (both before any
    /// request), and the errors of [`Reader::read`].
    pub fn get<T: Element>(&self, key: impl AsRef<[u8]>) -> Result<ArrayBuf<'_, T>> {
        self.view().read_array(key)
    }

    /// As `view().header()`.
    #[must_use]
    pub fn header(&self) -> &Header {
        self.view().header()
    }

    /// As `view().descriptors()`.
    #[must_use]
    pub fn descriptors(&self) -> &[Descriptor] {
        self.view().descriptors()
    }

    /// As `view().len()`.
    #[must_use]
    pub fn len(&self) -> usize {
        self.view().len()
    }

    /// As `view().items()`: the items in file order (sorted by key), without their
    /// arrays.
    #[must_use]
    pub fn entries(&self) -> Entries<'_, S> {
        self.view().items()
    }

    /// As `view().keys()`.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &[u8]> + ExactSizeIterator {
        self.view().keys()
    }

    /// As `view().item_at(index)`.
    #[must_use]
    pub fn entry_at(&self, index: usize) -> Option<Entry<'_, S>> {
        self.view().item_at(index)
    }

    /// As `view().item(key)`: found by binary search (no request).
    #[must_use]
    pub fn entry(&self, key: impl AsRef<[u8]>) -> Option<Entry<'_, S>> {
        self.view().item(key)
    }

    /// As `view().contains(key)`.
    #[must_use]
    pub fn contains(&self, key: impl AsRef<[u8]>) -> bool {
        self.view().contains(key)
    }

    /// As `view().find(key)`.
    ///
    /// # Errors
    /// [`ErrorKind::KeyNotFound`](crate::ErrorKind::KeyNotFound) when no item has that key.
    pub fn find(&self, key: impl AsRef<[u8]>) -> Result<Entry<'_, S>> {
        self.view().find(key)
    }
}

impl<S> Reader<S> {
    /// As `view().version()`.
    #[must_use]
    pub fn version(&self) -> Version {
        self.shape.info.version
    }

    /// As `view().compatibility()`.
    #[must_use]
    pub fn compatibility(&self) -> Compatibility {
        self.shape.info.compatibility
    }

    /// As `view().file_size()`.
    #[must_use]
    pub fn file_size(&self) -> u64 {
        self.shape.info.file_size
    }

    /// As `view().trailing_len()`: the number of bytes of the source after the store.
    #[must_use]
    pub fn trailing_len(&self) -> u64 {
        self.shape
            .input_len
            .saturating_sub(self.shape.offset)
            .saturating_sub(self.shape.info.file_size)
    }

    /// As `view().is_empty()`.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.shape.info.num_items == 0
    }

    /// The cache (the metadata it holds, its limit).
    pub fn cache(&self) -> &ReadCache<S> {
        &self.cache
    }
}

impl<S> fmt::Debug for Reader<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reader")
            .field("version", &self.shape.info.version)
            .field("file_size", &self.shape.info.file_size)
            .field("items", &self.shape.info.num_items)
            .field("metadata_bytes", &self.shape.meta_len)
            .finish_non_exhaustive()
    }
}

/// The most the cache of a reader opened with `options` holds: 256 MiB, or less when the
/// store size is limited (the metadata is read at most twice, plus the first read).
fn cache_limit(options: &ReadOptions) -> u64 {
    options
        .get_max_store_size()
        .saturating_mul(2)
        .saturating_add(2 * HEAD_SIZE)
        .min(ReadCache::<&[u8]>::DEFAULT_LIMIT)
}
