//! The borrowed, validated view of one store.

use core::fmt;
use core::iter::FusedIterator;

use binfmt_core::{Compatibility, Kind, Version, bytes};

use crate::array::{AnyArray, Array};
use crate::check::{self, Checked, DESCRIPTOR_LEN, HEADER_LEN};
use crate::dtype::{DType, Element};
use crate::error::{ErrorKind, Result};
use crate::key::{KeyExcerpt, KeyText};
use crate::options::ReadOptions;
use crate::raw::{Descriptor, Header};
use crate::trailing::Warnings;

/// One kastore store, borrowed from the bytes it was parsed from.
///
/// [`Store::parse`] checks every rule of the format once; afterwards every accessor is
/// cheap and infallible, apart from asking for a key that is not there or for the wrong
/// element type. Nothing is copied: keys and arrays are slices of the input.
///
/// Items are kept in file order, which is sorted bytewise by key, so [`Store::item`]
/// is a binary search.
#[derive(Clone, Copy)]
pub struct Store<'a> {
    bytes: &'a [u8],
    descriptors: &'a [Descriptor],
    version: Version,
    compatibility: Compatibility,
    /// The input's bytes after the store.
    rest: &'a [u8],
    /// Where the store starts in the input it was read from.
    offset: u64,
    options: ReadOptions,
}

impl<'a> Store<'a> {
    /// Parses the store at the start of `data`, with the default [`ReadOptions`].
    ///
    /// Bytes after the store's `file_size` are accepted, as the reference readers (and
    /// tskit) accept them: they may be further stores (see [`stores`](crate::stores)),
    /// and anything else is named by [`Store::warnings`].
    ///
    /// # Errors
    /// [`ErrorKind::Eof`] for empty input; otherwise the first problem found, at its byte
    /// offset: see [`ErrorKind`] for every rule.
    pub fn parse(data: &'a [u8]) -> Result<Store<'a>> {
        Store::parse_with(data, &ReadOptions::new())
    }

    /// Parses the store at the start of `data` with `options`.
    ///
    /// # Errors
    /// As [`Store::parse`], and [`ErrorKind::TooLarge`] above the size limit.
    pub fn parse_with(data: &'a [u8], options: &ReadOptions) -> Result<Store<'a>> {
        let (checked, bytes) = check::first_problem(data, options)?;
        let rest = data.get(bytes.len()..).unwrap_or(&[]);
        Ok(Store::new(checked, bytes, rest, 0, options))
    }

    /// Parses the store at the start of `data` and returns it with the bytes after it.
    ///
    /// # Errors
    /// As [`Store::parse`].
    pub fn parse_prefix(data: &'a [u8]) -> Result<(Store<'a>, &'a [u8])> {
        let store = Store::parse(data)?;
        Ok((store, store.rest))
    }

    /// A view of a checked store: `bytes` are exactly its `file_size` bytes, `rest` the
    /// input after them, `offset` where it starts in the input.
    pub(crate) fn new(
        checked: Checked<'a>,
        bytes: &'a [u8],
        rest: &'a [u8],
        offset: u64,
        options: &ReadOptions,
    ) -> Store<'a> {
        Store {
            bytes,
            descriptors: checked.descriptors,
            version: checked.info.version,
            compatibility: checked.info.compatibility,
            rest,
            offset,
            options: *options,
        }
    }

    /// Where the store starts in the input it was read from: 0 for [`Store::parse`], its
    /// position for the stores of [`stores`](crate::stores).
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The number of bytes after the store in the input it was parsed from (further
    /// stores, or trailing bytes).
    #[must_use]
    pub fn trailing_len(&self) -> u64 {
        bytes::len_u64(self.rest)
    }

    /// What a reader should know about the input that does not make the store invalid:
    /// bytes after the store that are not a further store ([`ErrorKind::TrailingBytes`],
    /// at the first of them, followed by that would-be store's first problem when they
    /// begin with the kastore magic). Empty when the store ends the input or a valid
    /// store follows it. Offsets count from the start of the input, like errors.
    ///
    /// [`verify`](crate::verify) reports the same warnings.
    ///
    /// ```
    /// use kastore::{ErrorKind, Store};
    /// let mut file = kastore::Builder::new().insert("a", &[1u8])?.to_vec()?;
    /// file.extend_from_slice(&[0; 8]); // zero padding a tool left behind
    /// let store = Store::parse(&file)?; // read, as tskit reads it
    /// let warnings: Vec<_> = store.warnings().collect();
    /// assert_eq!(warnings.len(), 1);
    /// assert_eq!(warnings[0].offset(), Some(137));
    /// assert!(matches!(warnings[0].kind(), ErrorKind::TrailingBytes { len: 8, store_like: false }));
    /// assert_eq!(
    ///     warnings[0].to_string(),
    ///     "byte 137: 8 bytes after the end of the store are not a kastore store; kastore and tskit ignore them"
    /// );
    /// # Ok::<(), kastore::Error>(())
    /// ```
    pub fn warnings(&self) -> Warnings {
        let end = self.offset.saturating_add(self.file_size());
        Warnings::after(self.rest, end, &self.options)
    }

    /// The file format version (1.x; the minor version is not checked).
    #[must_use]
    pub fn version(&self) -> Version {
        self.version
    }

    /// How the version relates to 1.0, the version this crate writes.
    #[must_use]
    pub fn compatibility(&self) -> Compatibility {
        self.compatibility
    }

    /// The store's size in bytes, header included (the header's `file_size`).
    #[must_use]
    pub fn file_size(&self) -> u64 {
        bytes::len_u64(self.bytes)
    }

    /// The store's bytes: exactly `file_size` of them.
    #[must_use]
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'a Header {
        // The store is at least 64 bytes: validated by `parse`.
        bytes::read::<Header>(self.bytes, 0, "header").unwrap_or(&EMPTY_HEADER)
    }

    /// The raw descriptors, in file order.
    #[must_use]
    pub fn descriptors(&self) -> &'a [Descriptor] {
        self.descriptors
    }

    /// The number of items.
    #[must_use]
    pub fn len(&self) -> usize {
        self.descriptors.len()
    }

    /// True when the store has no items (it is then exactly 64 bytes).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.descriptors.is_empty()
    }

    /// The items in file order (sorted by key).
    #[must_use]
    pub fn items(&self) -> Items<'a> {
        Items {
            bytes: self.bytes,
            descriptors: self.descriptors.iter().enumerate(),
        }
    }

    /// The keys in file order (sorted bytewise).
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &'a [u8]> + ExactSizeIterator + 'a {
        self.items().map(|item| item.key())
    }

    /// The item at position `index` in file order.
    #[must_use]
    pub fn item_at(&self, index: usize) -> Option<Item<'a>> {
        self.descriptors.get(index).map(|descriptor| Item {
            bytes: self.bytes,
            descriptor,
            index,
        })
    }

    /// The item with key `key` (compared as bytes), found by binary search.
    #[must_use]
    pub fn item(&self, key: impl AsRef<[u8]>) -> Option<Item<'a>> {
        let key = key.as_ref();
        self.descriptors
            .binary_search_by(|d| key_of(self.bytes, d).cmp(key))
            .ok()
            .and_then(|i| self.item_at(i))
    }

    /// True when an item has key `key`.
    #[must_use]
    pub fn contains(&self, key: impl AsRef<[u8]>) -> bool {
        self.item(key).is_some()
    }

    /// The item with key `key`, or [`ErrorKind::KeyNotFound`].
    ///
    /// # Errors
    /// [`ErrorKind::KeyNotFound`] when no item has that key.
    pub fn find(&self, key: impl AsRef<[u8]>) -> Result<Item<'a>> {
        let key = key.as_ref();
        self.item(key).ok_or_else(|| {
            ErrorKind::KeyNotFound {
                key: KeyExcerpt::new(key),
            }
            .unlocated()
        })
    }

    /// The array under `key` as elements of type `T`, without copying.
    ///
    /// # Errors
    /// [`ErrorKind::KeyNotFound`], or [`ErrorKind::TypeMismatch`] when the array holds
    /// another type (it is never reinterpreted).
    pub fn array<T: Element>(&self, key: impl AsRef<[u8]>) -> Result<Array<'a, T>> {
        self.find(key)?.array()
    }

    /// The array under `key` as a slice of `T`: borrowed from the input when it is aligned
    /// for `T` in memory and the host is little-endian, otherwise an owned copy.
    ///
    /// Arrays start at multiples of 8 from the start of the store, so a store parsed from an
    /// 8-aligned buffer (a memory map, [`AlignedBytes`](crate::AlignedBytes)) is never
    /// copied on little-endian hosts. [`Store::array`] gives element access without `alloc`.
    ///
    /// # Errors
    /// [`ErrorKind::KeyNotFound`], or [`ErrorKind::TypeMismatch`] when the array holds
    /// another type.
    #[cfg(feature = "alloc")]
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn get<T: Element>(&self, key: impl AsRef<[u8]>) -> Result<alloc::borrow::Cow<'a, [T]>> {
        Ok(self.array::<T>(key)?.to_cow())
    }

    /// True when the store's bytes are exactly what the reference writers (and
    /// [`Builder`](crate::Builder)) write for its contents: minor version 0, every
    /// reserved byte and every padding byte zero. Readers accept non-canonical stores.
    #[must_use]
    pub fn is_canonical(&self) -> bool {
        let h = self.header();
        if h.version_minor.get() != 0 || h.reserved.iter().any(|&b| b != 0) {
            return false;
        }
        let n = bytes::to_u64(self.descriptors.len());
        let mut end = HEADER_LEN.saturating_add(DESCRIPTOR_LEN.saturating_mul(n));
        for d in self.descriptors {
            if d.reserved_type.iter().any(|&b| b != 0) || d.reserved.iter().any(|&b| b != 0) {
                return false;
            }
            end = end.saturating_add(d.key_len.get());
        }
        for item in self.items() {
            let start = item.array_offset();
            // Validated: arrays are packed, so the gap is the padding before this array.
            let gap = bytes::slice(self.bytes, end, start.saturating_sub(end), "padding");
            if !gap.is_ok_and(|g| g.iter().all(|&b| b == 0)) {
                return false;
            }
            end = start.saturating_add(bytes::len_u64(item.bytes()));
        }
        true
    }
}

/// Stands in for the header of a store that `parse` validated; never actually returned.
pub(crate) static EMPTY_HEADER: Header = Header {
    magic: [0; 8],
    version_major: binfmt_core::le::U16::ZERO,
    version_minor: binfmt_core::le::U16::ZERO,
    num_items: binfmt_core::le::U32::ZERO,
    file_size: binfmt_core::le::U64::ZERO,
    reserved: [0; 40],
};

/// [`ErrorKind::TypeMismatch`] unless an item of type `stored` can be read as `T`.
pub(crate) fn check_type<T: Element>(key: &[u8], stored: DType) -> Result<()> {
    if stored == T::DTYPE {
        Ok(())
    } else {
        Err(ErrorKind::TypeMismatch {
            key: KeyExcerpt::new(key),
            stored,
            requested: T::DTYPE,
        }
        .unlocated())
    }
}

/// The key bytes of a validated descriptor.
fn key_of<'a>(bytes: &'a [u8], d: &Descriptor) -> &'a [u8] {
    bytes::slice(bytes, d.key_start.get(), d.key_len.get(), "key").unwrap_or(&[])
}

impl fmt::Debug for Store<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("offset", &self.offset)
            .field("version", &self.version)
            .field("file_size", &self.file_size())
            .field("items", &DebugItems(*self))
            .finish()
    }
}

struct DebugItems<'a>(Store<'a>);

impl fmt::Debug for DebugItems<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.items()).finish()
    }
}

/// One item of a [`Store`]: a key and a typed array.
#[derive(Clone, Copy)]
pub struct Item<'a> {
    bytes: &'a [u8],
    descriptor: &'a Descriptor,
    index: usize,
}

impl<'a> Item<'a> {
    /// The key's bytes. kastore keys are byte strings; the Python library writes UTF-8.
    #[must_use]
    pub fn key(&self) -> &'a [u8] {
        key_of(self.bytes, self.descriptor)
    }

    /// The key as text, when it is valid UTF-8.
    #[must_use]
    pub fn key_str(&self) -> Option<&'a str> {
        core::str::from_utf8(self.key()).ok()
    }

    /// The key for display, escaped or lossy, whole or cut, without copying it: see
    /// [`KeyText`]. Keys can be long (kastore 0.3.6 writes 13 KB keys without
    /// complaint), so a user interface should cut them with [`KeyText::max_chars`].
    #[must_use]
    pub fn key_text(&self) -> KeyText<'a> {
        KeyText::new(self.key())
    }

    /// The first 40 bytes of the key and its length, owned: what errors quote.
    #[must_use]
    pub fn key_excerpt(&self) -> KeyExcerpt {
        KeyExcerpt::new(self.key())
    }

    /// The element type.
    #[must_use]
    pub fn dtype(&self) -> DType {
        // Validated by `parse`; the fallback is never taken.
        DType::from_code(self.descriptor.dtype).unwrap_or(DType::UInt8)
    }

    /// The number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        self.bytes().len() / self.dtype().size()
    }

    /// True for an empty array.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bytes().is_empty()
    }

    /// The array's bytes, little-endian, exactly `len() * dtype().size()` of them.
    #[must_use]
    pub fn bytes(&self) -> &'a [u8] {
        let d = self.descriptor;
        let size = d
            .array_len
            .get()
            .saturating_mul(bytes::to_u64(self.dtype().size()));
        bytes::slice(self.bytes, d.array_start.get(), size, "array").unwrap_or(&[])
    }

    /// The array as elements of type `T`, without copying.
    ///
    /// # Errors
    /// [`ErrorKind::TypeMismatch`] when the array holds another type.
    pub fn array<T: Element>(&self) -> Result<Array<'a, T>> {
        check_type::<T>(self.key(), self.dtype())?;
        Ok(Array::from_le_bytes(self.bytes()))
    }

    /// The array with its type decided at run time.
    #[must_use]
    pub fn values(&self) -> AnyArray<'a> {
        AnyArray::new(self.dtype(), self.bytes())
    }

    /// The item's position in the store (file order).
    #[must_use]
    pub fn index(&self) -> usize {
        self.index
    }

    /// The raw descriptor.
    #[must_use]
    pub fn descriptor(&self) -> &'a Descriptor {
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

impl fmt::Debug for Item<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Item")
            .field("key", &KeyExcerpt::new(self.key()))
            .field("dtype", &self.dtype())
            .field("len", &self.len())
            .finish()
    }
}

/// The items of a [`Store`] in file order; see [`Store::items`].
#[derive(Debug, Clone)]
pub struct Items<'a> {
    bytes: &'a [u8],
    descriptors: core::iter::Enumerate<core::slice::Iter<'a, Descriptor>>,
}

impl<'a> Iterator for Items<'a> {
    type Item = Item<'a>;

    fn next(&mut self) -> Option<Item<'a>> {
        let (index, descriptor) = self.descriptors.next()?;
        Some(Item {
            bytes: self.bytes,
            descriptor,
            index,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.descriptors.size_hint()
    }
}

impl DoubleEndedIterator for Items<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let (index, descriptor) = self.descriptors.next_back()?;
        Some(Item {
            bytes: self.bytes,
            descriptor,
            index,
        })
    }
}

impl ExactSizeIterator for Items<'_> {}
impl FusedIterator for Items<'_> {}

impl<'a> IntoIterator for Store<'a> {
    type Item = Item<'a>;
    type IntoIter = Items<'a>;

    fn into_iter(self) -> Items<'a> {
        self.items()
    }
}

impl<'a> IntoIterator for &Store<'a> {
    type Item = Item<'a>;
    type IntoIter = Items<'a>;

    fn into_iter(self) -> Items<'a> {
        self.items()
    }
}
