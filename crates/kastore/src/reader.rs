//! Reading a store by ranges: a file, an object store, anything that serves byte ranges.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::fmt;
use core::iter::FusedIterator;
use core::ops::{ControlFlow, Range};

use binfmt_core::bytes::{self, len_u64, to_u64};
use binfmt_core::source::{ByteSource, PastEnd, read_exact};
use binfmt_core::{Compatibility, IoError, Kind, Version};

use crate::array_buf::ArrayBuf;
use crate::check::{self, HEADER_LEN, HeaderInfo};
use crate::dtype::{DType, Element};
use crate::error::{Error, ErrorKind, Result};
use crate::key::{KeyExcerpt, KeyText};
use crate::options::ReadOptions;
use crate::raw::{Descriptor, Header};
use crate::store::check_type;

/// The first request's size: the header, and for most stores the descriptors and keys
/// too (a tskit `.trees` file of 62 items has 4.3 KB of them; 64 KiB holds about 900
/// items with 8-byte keys).
const HEAD: u64 = 64 * 1024;

/// Key bytes guessed per item when the descriptors need a second request, so that the
/// keys usually come with them (tskit keys average about 20 bytes).
const KEY_GUESS: u64 = 32;

/// A store read by ranges from a [`ByteSource`]: the metadata when opened, then each
/// array when asked for, so that reading one column of a 50 GB `.trees` file in an object
/// store costs two or three requests and the bytes of that column.
///
/// The request plan (what a remote source sends, measured with
/// [`Counting`](binfmt_core::source::Counting) in this crate's tests):
///
/// | step | requests | bytes |
/// |---|---|---|
/// | [`open`](Reader::open) | 1: the first 64 KiB (header, descriptors, keys of any store of up to ~900 items); 2: the rest of the descriptors and 32 bytes of keys per item, when they do not fit; 3: the rest of the keys, when they are longer | the metadata, at least 64 KiB (or the file) |
/// | [`get`](Reader::get), [`read`](Reader::read) | 1 per array (0 for an empty one) | the array |
/// | [`read_many`](Reader::read_many) | 1 call of [`ByteSource::read_ranges`] | the arrays |
///
/// Opening checks every rule that [`Store::parse`](crate::Store::parse) checks, with the
/// same code, and reports the same first problem at the same offset: the descriptors
/// and keys are checked in full, the arrays' positions against `file_size`, and
/// `file_size` against the source's length. Array bytes are then read exactly where the
/// checked descriptors say. The store starts at byte 0 of the source; bytes after it are
/// allowed ([`trailing_len`](Reader::trailing_len)) and not read.
///
/// ```
/// use binfmt_core::source::Counting;
/// use kastore::{Builder, Reader};
///
/// let time = vec![0.5f64; 1 << 20]; // 8 MiB
/// let bytes = Builder::new()
///     .insert("nodes/time", &time)?
///     .insert("nodes/flags", &[1u32, 0, 0])?
///     .to_vec()?;
/// let source = Counting::new(bytes);
/// let reader = Reader::open(&source)?;
/// assert_eq!(source.stats().requests, 1); // header, descriptors and keys at once
/// assert_eq!(*reader.get::<u32>("nodes/flags")?, [1, 0, 0]);
/// assert_eq!(reader.get::<f64>("nodes/time")?.len(), 1 << 20);
/// assert_eq!(source.stats().requests, 3); // one per array
/// # Ok::<(), kastore::Error>(())
/// ```
pub struct Reader<S> {
    source: S,
    /// The source's first bytes: at least the header, the descriptors and the keys.
    meta: Vec<u8>,
    info: HeaderInfo,
    /// The source's length.
    len: u64,
}

impl<S: ByteSource> Reader<S> {
    /// Reads and checks the store's metadata from `source`, with the default
    /// [`ReadOptions`].
    ///
    /// # Errors
    /// The first problem of the store, as [`Store::parse`](crate::Store::parse) reports it;
    /// [`ErrorKind::Io`] when the source fails.
    pub fn open(source: S) -> Result<Reader<S>> {
        Reader::open_with(source, &ReadOptions::new())
    }

    /// [`Reader::open`] with `options`: [`ReadOptions::max_store_size`] is applied to the
    /// header before anything else is read.
    ///
    /// # Errors
    /// As [`Reader::open`], and [`ErrorKind::TooLarge`].
    pub fn open_with(source: S, options: &ReadOptions) -> Result<Reader<S>> {
        let mut meta = source.read_head(HEAD).map_err(IoError::from)?.into_owned();
        // The header is checked on the first bytes before the length is asked for: a
        // stream learns its length by reading to its end, and `/dev/zero` has none.
        let info = check::header(&meta, options)?;
        let len = if len_u64(&meta) < HEAD {
            len_u64(&meta)
        } else {
            source.len().map_err(IoError::from)?
        };
        // The descriptors, with a guess at the keys.
        let descriptors_end = info.descriptors_end();
        if len_u64(&meta) < descriptors_end.min(len) {
            let guess = u64::from(info.num_items).saturating_mul(KEY_GUESS);
            let want = descriptors_end.saturating_add(guess);
            extend(&source, &mut meta, want.min(info.file_size).min(len))?;
        }
        // The rest of the keys. Packed keys end at `keys_end`; wherever the descriptors
        // put them, the checks read no key bytes past it, nor past `file_size` or the
        // input, before they find a problem.
        let keys_end = keys_end(&meta, &info).min(info.file_size).min(len);
        extend(&source, &mut meta, keys_end)?;

        let mut first = None;
        let checked = check::check(&meta, len, options, &mut |e| {
            first = Some(e);
            ControlFlow::Break(())
        });
        match (first, checked) {
            (Some(e), _) => Err(e),
            (None, Some(_)) => Ok(Reader {
                source,
                meta,
                info,
                len,
            }),
            (None, None) => {
                Err(binfmt_core::Error::truncated("store", 0, info.file_size, len).into())
            }
        }
    }

    /// The bytes of `entry`'s array, little-endian: one request, none for an empty array.
    /// Borrowed from sources that are memory, owned otherwise.
    ///
    /// # Errors
    /// [`ErrorKind::Io`] when the source fails, [`Layout::Truncated`](crate::Layout::Truncated)
    /// when it has become shorter than it was when opened.
    pub fn read(&self, entry: &Entry<'_>) -> Result<Cow<'_, [u8]>> {
        let range = entry.array_range();
        if range.is_empty() {
            return Ok(Cow::Borrowed(&[]));
        }
        Ok(read_exact(
            &self.source,
            range.start,
            range.end - range.start,
            "array",
        )?)
    }

    /// The bytes of every entry's array, in order, asked for in one call of
    /// [`ByteSource::read_ranges`] (which a remote source sends concurrently, merging
    /// neighbours).
    ///
    /// # Errors
    /// As [`Reader::read`].
    pub fn read_many(&self, entries: &[Entry<'_>]) -> Result<Vec<Cow<'_, [u8]>>> {
        let ranges: Vec<Range<u64>> = entries.iter().map(Entry::array_range).collect();
        self.source.read_ranges(&ranges).map_err(|e| {
            // Name the range that failed, when the source says which.
            let range = e
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<PastEnd>())
                .map_or(0..0, |past| past.range.clone());
            let len = range.end.saturating_sub(range.start);
            Error::from(binfmt_core::source::from_io(e, range.start, len, "array"))
        })
    }

    /// The array under `key` as elements of type `T`, in one request: a `&[T]` through
    /// [`ArrayBuf`], over the bytes the source returned whenever they are aligned for `T`
    /// (borrowed from a source in memory, or the buffer an I/O source filled), decoded
    /// into a `Vec<T>` otherwise.
    ///
    /// # Errors
    /// [`ErrorKind::KeyNotFound`], [`ErrorKind::TypeMismatch`] (both before any request),
    /// and the errors of [`Reader::read`].
    pub fn get<T: Element>(&self, key: impl AsRef<[u8]>) -> Result<ArrayBuf<'_, T>> {
        let entry = self.find(key)?;
        check_type::<T>(entry.key(), entry.dtype())?;
        Ok(ArrayBuf::from_bytes(self.read(&entry)?))
    }
}

impl<S> Reader<S> {
    /// The file format version (1.x).
    #[must_use]
    pub fn version(&self) -> Version {
        self.info.version
    }

    /// How the version relates to 1.0, the version this crate writes.
    #[must_use]
    pub fn compatibility(&self) -> Compatibility {
        self.info.compatibility
    }

    /// The store's size in bytes, header included.
    #[must_use]
    pub fn file_size(&self) -> u64 {
        self.info.file_size
    }

    /// The number of bytes of the source after the store (not read).
    #[must_use]
    pub fn trailing_len(&self) -> u64 {
        self.len.saturating_sub(self.info.file_size)
    }

    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &Header {
        // Checked when opened.
        bytes::read::<Header>(&self.meta, 0, "header").unwrap_or(&crate::store::EMPTY_HEADER)
    }

    /// The raw descriptors, in file order.
    #[must_use]
    pub fn descriptors(&self) -> &[Descriptor] {
        let n = u64::from(self.info.num_items);
        // Checked when opened.
        bytes::read_table(&self.meta, HEADER_LEN, n, "descriptors").unwrap_or(&[])
    }

    /// The number of items.
    #[must_use]
    pub fn len(&self) -> usize {
        self.descriptors().len()
    }

    /// True when the store has no items.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.info.num_items == 0
    }

    /// The items in file order (sorted by key), without their arrays.
    #[must_use]
    pub fn entries(&self) -> Entries<'_> {
        Entries {
            meta: &self.meta,
            descriptors: self.descriptors().iter().enumerate(),
        }
    }

    /// The keys in file order (sorted bytewise).
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &[u8]> + ExactSizeIterator {
        self.entries().map(|e| e.key())
    }

    /// The item at position `index` in file order.
    #[must_use]
    pub fn entry_at(&self, index: usize) -> Option<Entry<'_>> {
        self.descriptors().get(index).map(|descriptor| Entry {
            meta: &self.meta,
            descriptor,
            index,
        })
    }

    /// The item with key `key`, found by binary search (no request).
    #[must_use]
    pub fn entry(&self, key: impl AsRef<[u8]>) -> Option<Entry<'_>> {
        let key = key.as_ref();
        let meta = &self.meta;
        self.descriptors()
            .binary_search_by(|d| key_of(meta, d).cmp(key))
            .ok()
            .and_then(|i| self.entry_at(i))
    }

    /// True when an item has key `key`.
    #[must_use]
    pub fn contains(&self, key: impl AsRef<[u8]>) -> bool {
        self.entry(key).is_some()
    }

    /// The item with key `key`, or [`ErrorKind::KeyNotFound`].
    ///
    /// # Errors
    /// [`ErrorKind::KeyNotFound`] when no item has that key.
    pub fn find(&self, key: impl AsRef<[u8]>) -> Result<Entry<'_>> {
        let key = key.as_ref();
        self.entry(key).ok_or_else(|| {
            ErrorKind::KeyNotFound {
                key: KeyExcerpt::new(key),
            }
            .unlocated()
        })
    }

    /// The source.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// The source back.
    pub fn into_source(self) -> S {
        self.source
    }
}

impl<S> fmt::Debug for Reader<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reader")
            .field("version", &self.info.version)
            .field("file_size", &self.info.file_size)
            .field("items", &self.info.num_items)
            .field("metadata_bytes", &self.meta.len())
            .finish_non_exhaustive()
    }
}

/// Appends the source's bytes from `meta.len()` up to `end` to `meta`, in one request.
fn extend<S: ByteSource>(source: &S, meta: &mut Vec<u8>, end: u64) -> Result<()> {
    let have = len_u64(meta);
    if end <= have {
        return Ok(());
    }
    let more = read_exact(source, have, end - have, "store")?;
    meta.extend_from_slice(&more);
    Ok(())
}

/// Where packed keys end, from the descriptors in `meta` (or `meta`'s end when they are
/// not all there: the checks then report the truncation).
fn keys_end(meta: &[u8], info: &HeaderInfo) -> u64 {
    let n = u64::from(info.num_items);
    match bytes::read_table::<Descriptor>(meta, HEADER_LEN, n, "descriptors") {
        Ok(descriptors) => descriptors.iter().fold(info.descriptors_end(), |end, d| {
            end.saturating_add(d.key_len.get())
        }),
        Err(_) => len_u64(meta),
    }
}

/// The key bytes of a checked descriptor.
fn key_of<'a>(meta: &'a [u8], d: &Descriptor) -> &'a [u8] {
    bytes::slice(meta, d.key_start.get(), d.key_len.get(), "key").unwrap_or(&[])
}

/// One item of a [`Reader`]: its key, type and where its array is, without the array.
#[derive(Clone, Copy)]
pub struct Entry<'r> {
    meta: &'r [u8],
    descriptor: &'r Descriptor,
    index: usize,
}

impl<'r> Entry<'r> {
    /// The key's bytes.
    #[must_use]
    pub fn key(&self) -> &'r [u8] {
        key_of(self.meta, self.descriptor)
    }

    /// The key as text, when it is valid UTF-8.
    #[must_use]
    pub fn key_str(&self) -> Option<&'r str> {
        core::str::from_utf8(self.key()).ok()
    }

    /// The key for display, without copying it: see [`KeyText`].
    #[must_use]
    pub fn key_text(&self) -> KeyText<'r> {
        KeyText::new(self.key())
    }

    /// The first 40 bytes of the key and its length, owned.
    #[must_use]
    pub fn key_excerpt(&self) -> KeyExcerpt {
        KeyExcerpt::new(self.key())
    }

    /// The element type.
    #[must_use]
    pub fn dtype(&self) -> DType {
        // Checked when the reader was opened; the fallback is never taken.
        DType::from_code(self.descriptor.dtype).unwrap_or(DType::UInt8)
    }

    /// The number of elements.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.descriptor.array_len.get()
    }

    /// True for an empty array.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The array's size in bytes.
    #[must_use]
    pub fn byte_len(&self) -> u64 {
        // Checked when the reader was opened: within the store, so no overflow.
        self.len().saturating_mul(to_u64(self.dtype().size()))
    }

    /// The array's bytes in the source: `array_offset()..array_offset() + byte_len()`.
    #[must_use]
    pub fn array_range(&self) -> Range<u64> {
        let start = self.array_offset();
        start..start.saturating_add(self.byte_len())
    }

    /// The item's position in the store (file order).
    #[must_use]
    pub fn index(&self) -> usize {
        self.index
    }

    /// The raw descriptor.
    #[must_use]
    pub fn descriptor(&self) -> &'r Descriptor {
        self.descriptor
    }

    /// Where the key starts, counted from the start of the store.
    #[must_use]
    pub fn key_offset(&self) -> u64 {
        self.descriptor.key_start.get()
    }

    /// Where the array starts, counted from the start of the store (a multiple of 8).
    #[must_use]
    pub fn array_offset(&self) -> u64 {
        self.descriptor.array_start.get()
    }
}

impl fmt::Debug for Entry<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entry")
            .field("key", &self.key_excerpt())
            .field("dtype", &self.dtype())
            .field("len", &self.len())
            .field("array_range", &self.array_range())
            .finish()
    }
}

/// The entries of a [`Reader`] in file order; see [`Reader::entries`].
#[derive(Debug, Clone)]
pub struct Entries<'r> {
    meta: &'r [u8],
    descriptors: core::iter::Enumerate<core::slice::Iter<'r, Descriptor>>,
}

impl<'r> Iterator for Entries<'r> {
    type Item = Entry<'r>;

    fn next(&mut self) -> Option<Entry<'r>> {
        let (index, descriptor) = self.descriptors.next()?;
        Some(Entry {
            meta: self.meta,
            descriptor,
            index,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.descriptors.size_hint()
    }
}

impl DoubleEndedIterator for Entries<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let (index, descriptor) = self.descriptors.next_back()?;
        Some(Entry {
            meta: self.meta,
            descriptor,
            index,
        })
    }
}

impl ExactSizeIterator for Entries<'_> {}
impl FusedIterator for Entries<'_> {}
