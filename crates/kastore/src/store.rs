//! The validated view of one store, over any [`Data`]: a slice, or a
//! [`ReadCache`](binfmt_core::cache::ReadCache) over a file or an object store.

use core::fmt;
use core::iter::FusedIterator;
use core::ops::{ControlFlow, Range};

use binfmt_core::data::Data;
use binfmt_core::{Compatibility, Kind, Version, bytes};

use crate::array::{AnyArray, Array};
use crate::check::{self, Checked, DESCRIPTOR_LEN, HEADER_LEN, HeaderInfo};
use crate::dtype::{DType, Element};
use crate::error::{Error, ErrorKind, Result};
use crate::key::{KeyExcerpt, KeyText};
use crate::options::ReadOptions;
use crate::raw::{Descriptor, Header, MAGIC};
use crate::trailing::Warnings;

/// What a ranged parse reads at once from where a store starts: the header, and for most
/// stores the descriptors and the keys too (a tskit `.trees` file of 62 items has 4.3 KB
/// of them; 64 KiB holds about 900 items with 8-byte keys). A request costs more than
/// that many bytes, locally and remotely. A caller that reads a file's first bytes
/// anyway (to detect its format) can read this many and hand them to
/// [`ReadCache::with_head`](binfmt_core::cache::ReadCache::with_head), so that opening
/// costs no further request.
pub const HEAD_SIZE: u64 = 64 * 1024;

/// Key bytes guessed per item when the descriptors do not fit in [`HEAD_SIZE`], so that
/// the keys usually come with them (tskit keys average about 20 bytes).
const KEY_GUESS: u64 = 32;

/// One kastore store: a validated view of the bytes `D` it was parsed from.
///
/// `D` is where the bytes are ([`Data`]): a `&[u8]` (the default: `Store<'a>` is the
/// zero-copy slice view), or a `&ReadCache<S>` over any
/// [`ByteSource`](binfmt_core::source::ByteSource) (a file, an object store), which reads
/// the header, descriptors and keys when the store is parsed and each array only when
/// asked for; [`Reader`](crate::Reader) is the owned form of that view.
///
/// [`Store::parse`] (slices) and [`Store::from_data`] (any `D`) check every rule of the
/// format once, with the same code; afterwards every accessor is cheap and infallible,
/// apart from asking for a key that is not there or for the wrong element type, and from
/// reading an array by range. Over a slice nothing is copied: keys and arrays are slices
/// of the input.
///
/// Items are kept in file order, which is sorted bytewise by key, so [`Store::item`]
/// is a binary search.
///
/// ```
/// # #[cfg(feature = "std")] {
/// use binfmt_core::cache::ReadCache;
/// use binfmt_core::source::Counting;
/// use kastore::{Writer, Store};
///
/// let bytes = Writer::new().add("a", &[1u16, 2])?.add("b", &[0.5f32])?.to_vec()?;
/// let slice = Store::parse(&bytes)?; // Store<'_, &[u8]>
/// let source = Counting::new(&bytes[..]);
/// let cache = ReadCache::new(&source);
/// let ranged = Store::from_data(&cache)?; // Store<'_, &ReadCache<_>>: one request
/// assert!(slice.keys().eq(ranged.keys()));
/// assert_eq!(*ranged.read_array::<u16>("a")?, [1, 2]);
/// assert_eq!(source.stats().requests, 1); // the array came with the metadata
/// # }
/// # Ok::<(), kastore::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct Store<'d, D: Data<'d> = &'d [u8]> {
    data: D,
    /// The store's first bytes, from its start: all `file_size` of them when `data` is in
    /// memory; read by ranges, at least the header, the descriptors and the keys.
    meta: &'d [u8],
    descriptors: &'d [Descriptor],
    info: HeaderInfo,
    /// Where the store starts in `data`.
    offset: u64,
    /// The length of `data`.
    input_len: u64,
    options: ReadOptions,
}

/// The checked shape of a store read by ranges, as plain data: what
/// [`Reader`](crate::Reader) keeps to rebuild its view without I/O or re-validation.
#[cfg(feature = "std")]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    pub(crate) info: HeaderInfo,
    pub(crate) offset: u64,
    pub(crate) meta_len: u64,
    pub(crate) input_len: u64,
    pub(crate) options: ReadOptions,
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
        Store::from_data_at(data, 0, options)
    }

    /// Parses the store at the start of `data` and returns it with the bytes after it.
    ///
    /// # Errors
    /// As [`Store::parse`].
    pub fn parse_prefix(data: &'a [u8]) -> Result<(Store<'a>, &'a [u8])> {
        let store = Store::parse(data)?;
        Ok((
            store,
            bytes::rest(data, store.file_size(), "store").unwrap_or(&[]),
        ))
    }

    /// The store's bytes: exactly `file_size` of them.
    #[must_use]
    pub fn as_bytes(&self) -> &'a [u8] {
        // In memory, `meta` is the whole store.
        self.meta
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
    pub fn get<T: Element>(&self, key: impl AsRef<[u8]>) -> Result<alloc::borrow::Cow<'a, [T]>> {
        Ok(self.array::<T>(key)?.to_cow())
    }

    /// True when the store's bytes are exactly what the reference writers (and
    /// [`Writer`](crate::Writer)) write for its contents: minor version 0, every
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
            let gap = bytes::slice(self.meta, end, start.saturating_sub(end), "padding");
            if !gap.is_ok_and(|g| g.iter().all(|&b| b == 0)) {
                return false;
            }
            end = start.saturating_add(bytes::len_u64(item.bytes()));
        }
        true
    }
}

impl<'d, D: Data<'d>> Store<'d, D>
where
    Error: From<D::Error>,
{
    /// Parses the store at the start of `data` (any [`Data`]), with the default
    /// [`ReadOptions`]: the same checks as [`Store::parse`], reporting the same first
    /// problem at the same offset.
    ///
    /// Over a [`ReadCache`](binfmt_core::cache::ReadCache) it reads the header and the
    /// first 64 KiB in one request (none when the cache already holds them, e.g. from
    /// [`ReadCache::with_head`](binfmt_core::cache::ReadCache::with_head) and a previous
    /// read), then, only when they do not fit, the descriptors with a guess at the keys,
    /// then the rest of the keys when they are longer: see the request plan in
    /// [`Reader`](crate::Reader).
    ///
    /// # Errors
    /// As [`Store::parse`], and the errors of `data` (I/O).
    pub fn from_data(data: D) -> Result<Self> {
        Store::from_data_at(data, 0, &ReadOptions::new())
    }

    /// [`Store::from_data`] with `options`.
    ///
    /// # Errors
    /// As [`Store::from_data`], and [`ErrorKind::TooLarge`].
    pub fn from_data_with(data: D, options: &ReadOptions) -> Result<Self> {
        Store::from_data_at(data, 0, options)
    }

    /// The store that starts at byte `offset` of `data` (a store of a stream of stores):
    /// errors and [`Store::offset`] count from the start of `data`, as in
    /// [`stores`](crate::stores).
    ///
    /// # Errors
    /// As [`Store::from_data`].
    pub fn from_data_at(data: D, offset: u64, options: &ReadOptions) -> Result<Self> {
        let at = |e: Error| if offset == 0 { e } else { e.rebased(offset) };
        if let Some(all) = data.whole() {
            // In memory (always, for slices): the whole store at once.
            let rest = bytes::rest(all, offset, "store").unwrap_or(&[]);
            let (checked, meta) = check::first_problem(rest, options).map_err(at)?;
            return Ok(Store::from_parts(
                data,
                meta,
                checked,
                offset,
                bytes::len_u64(all),
                options,
            ));
        }
        let (checked, meta, input_len) = ranged(data, offset, options)?;
        Ok(Store::from_parts(
            data, meta, checked, offset, input_len, options,
        ))
    }

    /// What a reader should know about the input that does not make the store invalid:
    /// bytes after the store that are not a further store ([`ErrorKind::TrailingBytes`],
    /// at the first of them, followed by that would-be store's first problem when they
    /// begin with the kastore magic). Empty when the store ends the input or a valid
    /// store follows it. Offsets count from the start of the input, like errors.
    ///
    /// [`verify`](crate::verify) reports the same warnings. Over a cache this reads the
    /// would-be store's metadata (at most the requests of opening it).
    ///
    /// ```
    /// use kastore::{ErrorKind, Store};
    /// let mut file = kastore::Writer::new().add("a", &[1u8])?.to_vec()?;
    /// file.extend_from_slice(&[0; 8]); // zero padding a tool left behind
    /// let store = Store::parse(&file)?; // read, as tskit reads it
    /// let warnings: Vec<_> = store.warnings().collect();
    /// assert_eq!(warnings.len(), 1);
    /// assert_eq!(warnings[0].offset(), Some(137));
    /// assert!(matches!(warnings[0].kind(), ErrorKind::TrailingBytes { len: 8, store_like: false, .. }));
    /// assert_eq!(
    ///     warnings[0].to_string(),
    ///     "byte 137: 8 bytes after the end of the store are not a kastore store; kastore and tskit ignore them"
    /// );
    /// # Ok::<(), kastore::Error>(())
    /// ```
    pub fn warnings(&self) -> Warnings {
        let end = self.offset.saturating_add(self.file_size());
        if let Some(all) = self.data.whole() {
            let rest = bytes::rest(all, end, "store").unwrap_or(&[]);
            return Warnings::after(rest, end, &self.options);
        }
        let len = self.input_len.saturating_sub(end);
        if len == 0 {
            return Warnings::none();
        }
        match Store::from_data_at(self.data, end, &self.options) {
            Ok(_) => Warnings::none(),
            Err(e) => {
                let magic_len = bytes::to_u64(MAGIC.len());
                let head = self
                    .data
                    .bytes(end, len.min(magic_len), "store")
                    .unwrap_or(&[]);
                let store_like = head.starts_with(MAGIC) || MAGIC.starts_with(head);
                Warnings::trailing(end, len, store_like.then_some(e))
            }
        }
    }

    /// The array under `key` as elements of type `T`, read when asked for: borrowed when
    /// the bytes are in memory (a slice, or held by the cache) and aligned, otherwise one
    /// request over a cache into a buffer used in place when aligned; see
    /// [`ArrayBuf`](crate::ArrayBuf).
    ///
    /// # Errors
    /// [`ErrorKind::KeyNotFound`], [`ErrorKind::TypeMismatch`] (both before any request),
    /// and the errors of [`Item::read`].
    #[cfg(feature = "std")]
    pub fn read_array<T: Element>(
        &self,
        key: impl AsRef<[u8]>,
    ) -> Result<crate::array_buf::ArrayBuf<'d, T>> {
        self.find(key)?.read_array()
    }
}

impl<'d, D: Data<'d>> Store<'d, D> {
    /// A view of a checked store: `meta` its first bytes (all of them in memory),
    /// `offset` where it starts in `data`, `input_len` the length of `data`.
    pub(crate) fn from_parts(
        data: D,
        meta: &'d [u8],
        checked: Checked<'d>,
        offset: u64,
        input_len: u64,
        options: &ReadOptions,
    ) -> Self {
        Store {
            data,
            meta,
            descriptors: checked.descriptors,
            info: checked.info,
            offset,
            input_len,
            options: *options,
        }
    }

    /// The view of a store checked before, from its [`Shape`]: no re-validation, and no
    /// I/O when `data` holds the metadata it held then.
    #[cfg(feature = "std")]
    pub(crate) fn from_shape(data: D, shape: &Shape) -> Self {
        let meta = match data.whole() {
            Some(all) => bytes::slice(all, shape.offset, shape.meta_len, "store").ok(),
            None => data.bytes(shape.offset, shape.meta_len, "store").ok(),
        }
        .unwrap_or(&[]);
        let n = u64::from(shape.info.num_items);
        // Checked when the shape was made.
        let descriptors = bytes::read_table(meta, HEADER_LEN, n, "descriptors").unwrap_or(&[]);
        Store {
            data,
            meta,
            descriptors,
            info: shape.info,
            offset: shape.offset,
            input_len: shape.input_len,
            options: shape.options,
        }
    }

    /// The checked shape, as plain data.
    #[cfg(feature = "std")]
    pub(crate) fn shape(&self) -> Shape {
        Shape {
            info: self.info,
            offset: self.offset,
            meta_len: bytes::len_u64(self.meta),
            input_len: self.input_len,
            options: self.options,
        }
    }

    /// The bytes the store was parsed from.
    #[must_use]
    pub fn data(&self) -> D {
        self.data
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
        self.input_len
            .saturating_sub(self.offset)
            .saturating_sub(self.info.file_size)
    }

    /// The file format version (1.x; the minor version is not checked).
    #[must_use]
    pub fn version(&self) -> Version {
        self.info.version
    }

    /// How the version relates to 1.0, the version this crate writes.
    #[must_use]
    pub fn compatibility(&self) -> Compatibility {
        self.info.compatibility
    }

    /// The store's size in bytes, header included (the header's `file_size`).
    #[must_use]
    pub fn file_size(&self) -> u64 {
        self.info.file_size
    }

    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'d Header {
        // The store is at least 64 bytes: validated by `parse`.
        bytes::read::<Header>(self.meta, 0, "header").unwrap_or(&EMPTY_HEADER)
    }

    /// The raw descriptors, in file order.
    #[must_use]
    pub fn descriptors(&self) -> &'d [Descriptor] {
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
    pub fn items(&self) -> Items<'d, D> {
        Items {
            data: self.data,
            meta: self.meta,
            offset: self.offset,
            descriptors: self.descriptors.iter().enumerate(),
        }
    }

    /// The keys in file order (sorted bytewise).
    pub fn keys(
        &self,
    ) -> impl DoubleEndedIterator<Item = &'d [u8]> + ExactSizeIterator + use<'d, D> {
        let meta = self.meta;
        self.descriptors.iter().map(move |d| key_of(meta, d))
    }

    /// The item at position `index` in file order.
    #[must_use]
    pub fn item_at(&self, index: usize) -> Option<Item<'d, D>> {
        self.descriptors.get(index).map(|descriptor| Item {
            data: self.data,
            meta: self.meta,
            offset: self.offset,
            descriptor,
            index,
        })
    }

    /// The item with key `key` (compared as bytes), found by binary search.
    #[must_use]
    pub fn item(&self, key: impl AsRef<[u8]>) -> Option<Item<'d, D>> {
        let key = key.as_ref();
        self.descriptors
            .binary_search_by(|d| key_of(self.meta, d).cmp(key))
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
    pub fn find(&self, key: impl AsRef<[u8]>) -> Result<Item<'d, D>> {
        let key = key.as_ref();
        self.item(key).ok_or_else(|| {
            ErrorKind::KeyNotFound {
                key: KeyExcerpt::new(key),
            }
            .unlocated()
        })
    }
}

/// The ranged parse of the store at `offset` of `data`: the first bytes (hinted, so that
/// a cache reads [`HEAD_SIZE`] of them with the header), then the descriptors with a
/// guess at the keys when they do not fit, then the rest of the keys when they are
/// longer. Every check is [`check::check`] over those bytes, told the input's length, so
/// the first problem is the one the slice parse reports. Returns the checked store, its
/// first bytes, and the input's length.
fn ranged<'d, D: Data<'d>>(
    data: D,
    offset: u64,
    options: &ReadOptions,
) -> Result<(Checked<'d>, &'d [u8], u64)>
where
    Error: From<D::Error>,
{
    let at = |e: Error| if offset == 0 { e } else { e.rebased(offset) };
    let (info, meta, len) = ranged_meta(data, offset, options)?;
    let mut problem = None;
    let checked = check::check(meta, len, options, &mut |e| {
        problem = Some(e);
        ControlFlow::Break(())
    });
    match (problem, checked) {
        (Some(e), _) => Err(at(e)),
        (None, Some(checked)) => Ok((checked, meta, offset.saturating_add(len))),
        (None, None) => Err(at(binfmt_core::Error::truncated(
            "store",
            0,
            info.file_size,
            len,
        )
        .into())),
    }
}

/// The metadata of the store at `offset` of `data` read by ranges, with its header
/// checked: the header, the descriptors and the packed keys (as far as the store and the
/// input hold them), and the input's length after `offset`.
///
/// # Errors
/// The header's first problem (offsets from the start of `data`), and I/O errors.
pub(crate) fn ranged_meta<'d, D: Data<'d>>(
    data: D,
    offset: u64,
    options: &ReadOptions,
) -> Result<(HeaderInfo, &'d [u8], u64)>
where
    Error: From<D::Error>,
{
    let at = |e: Error| if offset == 0 { e } else { e.rebased(offset) };
    let first_read = offset..offset.saturating_add(HEAD_SIZE);
    data.hint(core::slice::from_ref(&first_read))?;
    // The header is checked before the length is asked for: a stream learns its length
    // by reading to its end. Input shorter than a header: its bytes, for the same error.
    let header = match data.bytes(offset, HEADER_LEN, "header") {
        Ok(header) => header,
        Err(_) => {
            let len = data.size()?.saturating_sub(offset);
            data.bytes(offset, len.min(HEADER_LEN), "header")?
        }
    };
    let info = check::header(header, options).map_err(at)?;
    let len = data.size()?.saturating_sub(offset);
    // The descriptors with a guess at the keys; then the rest of the keys. Packed keys
    // end at `keys_end`; wherever the descriptors put them, the checks read no key
    // bytes past it, nor past `file_size` or the input, before they find a problem.
    let guess = u64::from(info.num_items).saturating_mul(KEY_GUESS);
    let first = info
        .descriptors_end()
        .saturating_add(guess)
        .max(HEAD_SIZE)
        .min(info.file_size)
        .min(len);
    let mut meta = data.bytes(offset, first, "store")?;
    let keys_end = keys_end(meta, &info).min(info.file_size).min(len);
    if keys_end > first {
        meta = data.bytes(offset, keys_end, "store")?;
    }
    Ok((info, meta, len))
}

/// Where packed keys end, from the descriptors in `meta` (or `meta`'s end when they are
/// not all there: the checks then report the truncation).
fn keys_end(meta: &[u8], info: &HeaderInfo) -> u64 {
    let n = u64::from(info.num_items);
    match bytes::read_table::<Descriptor>(meta, HEADER_LEN, n, "descriptors") {
        Ok(descriptors) => descriptors.iter().fold(info.descriptors_end(), |end, d| {
            end.saturating_add(d.key_len.get())
        }),
        Err(_) => bytes::len_u64(meta),
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

/// The key bytes of a validated descriptor, from the store's first bytes.
fn key_of<'a>(meta: &'a [u8], d: &Descriptor) -> &'a [u8] {
    bytes::slice(meta, d.key_start.get(), d.key_len.get(), "key").unwrap_or(&[])
}

impl<'d, D: Data<'d>> fmt::Debug for Store<'d, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("offset", &self.offset)
            .field("version", &self.info.version)
            .field("file_size", &self.file_size())
            .field("items", &DebugItems(*self))
            .finish()
    }
}

struct DebugItems<'d, D: Data<'d>>(Store<'d, D>);

impl<'d, D: Data<'d>> fmt::Debug for DebugItems<'d, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.items()).finish()
    }
}

/// One item of a [`Store`]: a key and a typed array.
///
/// The key, type and position are at hand; the array's bytes are borrowed from a slice
/// ([`Item::bytes`], [`Item::array`], [`Item::values`]) or read when asked for, from any
/// `D` ([`Item::read`], [`Item::read_array`]).
#[derive(Clone, Copy)]
pub struct Item<'d, D: Data<'d> = &'d [u8]> {
    // Read by `Item::read` (feature `alloc`).
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    data: D,
    meta: &'d [u8],
    /// Where the store starts in `data`.
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    offset: u64,
    descriptor: &'d Descriptor,
    index: usize,
}

impl<'a> Item<'a> {
    /// The number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        self.bytes().len() / self.dtype().size()
    }

    /// The array's bytes, little-endian, exactly `len() * dtype().size()` of them.
    #[must_use]
    pub fn bytes(&self) -> &'a [u8] {
        // In memory, `meta` is the whole store.
        bytes::slice(self.meta, self.array_offset(), self.byte_len(), "array").unwrap_or(&[])
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
}

impl<'d, D: Data<'d>> Item<'d, D>
where
    Error: From<D::Error>,
{
    /// The array's bytes, little-endian: borrowed when they are in memory (a slice, a
    /// source in memory, or bytes a cache already holds), otherwise one request into a
    /// buffer the caller owns; none for an empty array.
    ///
    /// # Errors
    /// The errors of `D`: [`ErrorKind::Io`] when the source fails,
    /// [`Layout::Truncated`](crate::Layout::Truncated) when it has become shorter than it
    /// was when the store was parsed.
    #[cfg(feature = "alloc")]
    pub fn read(&self) -> Result<alloc::borrow::Cow<'d, [u8]>> {
        let len = self.byte_len();
        if len == 0 {
            return Ok(alloc::borrow::Cow::Borrowed(&[]));
        }
        let start = self.offset.saturating_add(self.array_offset());
        if let Some(all) = self.data.whole() {
            return Ok(alloc::borrow::Cow::Borrowed(bytes::slice(
                all, start, len, "array",
            )?));
        }
        Ok(self.data.payload(start, len, "array")?)
    }

    /// The array as elements of type `T`, read as [`Item::read`] reads it: a `&[T]`
    /// through [`ArrayBuf`](crate::ArrayBuf), decoded into a `Vec<T>` only when the bytes
    /// are not aligned for `T` (or the host is big-endian).
    ///
    /// # Errors
    /// [`ErrorKind::TypeMismatch`] (before any request), and the errors of
    /// [`Item::read`].
    #[cfg(feature = "std")]
    pub fn read_array<T: Element>(&self) -> Result<crate::array_buf::ArrayBuf<'d, T>> {
        check_type::<T>(self.key(), self.dtype())?;
        Ok(crate::array_buf::ArrayBuf::from_bytes(self.read()?))
    }
}

impl<'d, D: Data<'d>> Item<'d, D> {
    /// The key's bytes. kastore keys are byte strings; the Python library writes UTF-8.
    #[must_use]
    pub fn key(&self) -> &'d [u8] {
        key_of(self.meta, self.descriptor)
    }

    /// The key as text, when it is valid UTF-8.
    #[must_use]
    pub fn key_str(&self) -> Option<&'d str> {
        core::str::from_utf8(self.key()).ok()
    }

    /// The key for display, escaped or lossy, whole or cut, without copying it: see
    /// [`KeyText`]. Keys can be long (kastore 0.3.6 writes 13 KB keys without
    /// complaint), so a user interface should cut them with [`KeyText::max_chars`].
    #[must_use]
    pub fn key_text(&self) -> KeyText<'d> {
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

    /// The number of elements, as the descriptor says (`u64`, whatever `D`).
    #[must_use]
    pub fn array_len(&self) -> u64 {
        self.descriptor.array_len.get()
    }

    /// True for an empty array.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.array_len() == 0
    }

    /// The array's size in bytes.
    #[must_use]
    pub fn byte_len(&self) -> u64 {
        // Validated by `parse`: within the store, so no overflow.
        self.array_len()
            .saturating_mul(bytes::to_u64(self.dtype().size()))
    }

    /// Where the array is, counted from the start of the store:
    /// `array_offset()..array_offset() + byte_len()`.
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
    pub fn descriptor(&self) -> &'d Descriptor {
        self.descriptor
    }

    binfmt_core::le_getters! { descriptor =>
        /// Where the key starts, counted from the start of the store.
        pub fn key_offset -> u64 = key_start;
        /// Where the array starts, counted from the start of the store (a multiple of 8).
        pub fn array_offset -> u64 = array_start;
    }
}

impl<'d, D: Data<'d>> fmt::Debug for Item<'d, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Item")
            .field("key", &KeyExcerpt::new(self.key()))
            .field("dtype", &self.dtype())
            .field("len", &self.array_len())
            .finish()
    }
}

/// The items of a [`Store`] in file order; see [`Store::items`].
#[derive(Clone)]
pub struct Items<'d, D: Data<'d> = &'d [u8]> {
    data: D,
    meta: &'d [u8],
    offset: u64,
    descriptors: core::iter::Enumerate<core::slice::Iter<'d, Descriptor>>,
}

impl<'d, D: Data<'d>> Items<'d, D> {
    fn item(&self, (index, descriptor): (usize, &'d Descriptor)) -> Item<'d, D> {
        Item {
            data: self.data,
            meta: self.meta,
            offset: self.offset,
            descriptor,
            index,
        }
    }
}

impl<'d, D: Data<'d>> fmt::Debug for Items<'d, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Items")
            .field("remaining", &self.descriptors.len())
            .finish_non_exhaustive()
    }
}

impl<'d, D: Data<'d>> Iterator for Items<'d, D> {
    type Item = Item<'d, D>;

    fn next(&mut self) -> Option<Item<'d, D>> {
        let next = self.descriptors.next()?;
        Some(self.item(next))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.descriptors.size_hint()
    }
}

impl<'d, D: Data<'d>> DoubleEndedIterator for Items<'d, D> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let next = self.descriptors.next_back()?;
        Some(self.item(next))
    }
}

impl<'d, D: Data<'d>> ExactSizeIterator for Items<'d, D> {}
impl<'d, D: Data<'d>> FusedIterator for Items<'d, D> {}

impl<'d, D: Data<'d>> IntoIterator for Store<'d, D> {
    type Item = Item<'d, D>;
    type IntoIter = Items<'d, D>;

    fn into_iter(self) -> Items<'d, D> {
        self.items()
    }
}

impl<'d, D: Data<'d>> IntoIterator for &Store<'d, D> {
    type Item = Item<'d, D>;
    type IntoIter = Items<'d, D>;

    fn into_iter(self) -> Items<'d, D> {
        self.items()
    }
}
