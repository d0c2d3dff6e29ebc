//! Writing stores.

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use binfmt_core::Kind;
use binfmt_core::bytes::{len_u64, to_u64};
use binfmt_core::le::{U16, U32, U64};
use zerocopy::IntoBytes;

use crate::ARRAY_ALIGN;
use crate::array::AnyArray;
use crate::check::{DESCRIPTOR_LEN, HEADER_LEN};
use crate::dtype::{DType, Element};
use crate::error::{Error, ErrorKind, Result};
use crate::key::KeyExcerpt;
use crate::raw::{Descriptor, Header, MAGIC_BYTES, VERSION};
use crate::store::{Item, Store};

/// Builds a store from keys and typed arrays, and writes it.
///
/// Keys are byte strings (`&str` and `&[u8]` both work) and must be non-empty and unique;
/// [`Writer::add`] rejects a bad one at once, so a writer always holds a valid store.
/// Arrays are borrowed, not copied, on little-endian hosts.
///
/// The shape every binfmt writer has: `add` (here with typed variants for owned vectors,
/// arrays of any type and items of another store), [`finish`](Writer::finish),
/// [`to_vec`](Writer::to_vec), [`write_to`](Writer::write_to) (any `Write`) and
/// [`write_to_path`](Writer::write_to_path). A writer is not spent by writing: change it
/// and write it again.
///
/// The output is the reference writers' output for the same content, byte for byte:
/// items sorted by key bytes (a prefix first), keys packed after the descriptors, each
/// array at the next multiple of 8, zeros in every reserved and padding byte, version 1.0.
///
/// ```
/// # fn main() -> Result<(), kastore::Error> {
/// let time = [0.0f64, 1.5, 2.25];
/// let mut writer = kastore::Writer::new();
/// writer.add("nodes/time", &time)?.add("nodes/flags", &[1u32, 0, 0])?;
/// assert!(writer.add("nodes/time", &[1u8]).is_err()); // duplicate
/// let bytes = writer.finish()?;
/// let store = kastore::Store::parse(&bytes)?;
/// assert_eq!(store.keys().collect::<Vec<_>>(), [&b"nodes/flags"[..], b"nodes/time"]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct Writer<'a> {
    items: BTreeMap<Vec<u8>, Entry<'a>>,
}

#[derive(Debug, Clone)]
struct Entry<'a> {
    dtype: DType,
    /// Little-endian bytes, a whole number of elements.
    bytes: Cow<'a, [u8]>,
}

impl<'a> Writer<'a> {
    /// An empty writer (it writes the 64-byte empty store).
    #[must_use]
    pub fn new() -> Writer<'a> {
        Writer::default()
    }

    /// A writer holding every item of `store`, borrowed: the way to change a store
    /// (remove, then add) and write it again.
    #[must_use]
    pub fn from_store(store: &Store<'a>) -> Writer<'a> {
        let items = store
            .items()
            .map(|item| {
                let entry = Entry {
                    dtype: item.dtype(),
                    bytes: Cow::Borrowed(item.bytes()),
                };
                (item.key().to_vec(), entry)
            })
            .collect();
        // A parsed store has unique, non-empty keys and at most u32::MAX items.
        Writer { items }
    }

    /// The number of items.
    #[must_use]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when no item was added.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// True when an item has key `key`.
    #[must_use]
    pub fn contains(&self, key: impl AsRef<[u8]>) -> bool {
        self.items.contains_key(key.as_ref())
    }

    /// The keys, in the order they will be written.
    pub fn keys(&self) -> impl Iterator<Item = &[u8]> {
        self.items.keys().map(Vec::as_slice)
    }

    /// Adds `values` under `key`, borrowing them (copying them on big-endian hosts, where
    /// they must be byte-swapped).
    ///
    /// # Errors
    /// [`ErrorKind::EmptyKey`], [`ErrorKind::DuplicateKey`], [`ErrorKind::TooManyItems`];
    /// the writer is unchanged.
    pub fn add<T: Element>(
        &mut self,
        key: impl AsRef<[u8]>,
        values: &'a [T],
    ) -> Result<&mut Writer<'a>> {
        let bytes = if cfg!(target_endian = "little") {
            Cow::Borrowed(values.as_bytes())
        } else {
            Cow::Owned(le_bytes(values))
        };
        self.put(key.as_ref(), T::DTYPE, bytes)
    }

    /// Adds `values` under `key`, taking them.
    ///
    /// # Errors
    /// As [`Writer::add`].
    pub fn add_vec<T: Element>(
        &mut self,
        key: impl AsRef<[u8]>,
        values: Vec<T>,
    ) -> Result<&mut Writer<'a>> {
        self.put(key.as_ref(), T::DTYPE, Cow::Owned(le_bytes(&values)))
    }

    /// Adds an array of any type (from [`Item::values`]), borrowing it.
    ///
    /// # Errors
    /// As [`Writer::add`].
    pub fn add_array(
        &mut self,
        key: impl AsRef<[u8]>,
        array: AnyArray<'a>,
    ) -> Result<&mut Writer<'a>> {
        self.put(key.as_ref(), array.dtype(), Cow::Borrowed(array.as_bytes()))
    }

    /// Adds a copy of `item` from another store under the same key, borrowing its array.
    ///
    /// # Errors
    /// As [`Writer::add`].
    pub fn add_item(&mut self, item: Item<'a>) -> Result<&mut Writer<'a>> {
        self.add_array(item.key(), item.values())
    }

    /// Renamed to [`Writer::add`].
    ///
    /// # Errors
    /// As [`Writer::add`].
    #[deprecated(note = "renamed to Writer::add")]
    pub fn insert<T: Element>(
        &mut self,
        key: impl AsRef<[u8]>,
        values: &'a [T],
    ) -> Result<&mut Writer<'a>> {
        self.add(key, values)
    }

    /// Renamed to [`Writer::add_vec`].
    ///
    /// # Errors
    /// As [`Writer::add`].
    #[deprecated(note = "renamed to Writer::add_vec")]
    pub fn insert_vec<T: Element>(
        &mut self,
        key: impl AsRef<[u8]>,
        values: Vec<T>,
    ) -> Result<&mut Writer<'a>> {
        self.add_vec(key, values)
    }

    /// Renamed to [`Writer::add_array`].
    ///
    /// # Errors
    /// As [`Writer::add`].
    #[deprecated(note = "renamed to Writer::add_array")]
    pub fn insert_array(
        &mut self,
        key: impl AsRef<[u8]>,
        array: AnyArray<'a>,
    ) -> Result<&mut Writer<'a>> {
        self.add_array(key, array)
    }

    /// Renamed to [`Writer::add_item`].
    ///
    /// # Errors
    /// As [`Writer::add`].
    #[deprecated(note = "renamed to Writer::add_item")]
    pub fn insert_item(&mut self, item: Item<'a>) -> Result<&mut Writer<'a>> {
        self.add_item(item)
    }

    /// Removes the item with key `key`; true when there was one.
    pub fn remove(&mut self, key: impl AsRef<[u8]>) -> bool {
        self.items.remove(key.as_ref()).is_some()
    }

    fn put(&mut self, key: &[u8], dtype: DType, bytes: Cow<'a, [u8]>) -> Result<&mut Writer<'a>> {
        if key.is_empty() {
            return Err(ErrorKind::EmptyKey.unlocated());
        }
        if self.items.contains_key(key) {
            return Err(ErrorKind::DuplicateKey {
                key: KeyExcerpt::new(key),
            }
            .unlocated());
        }
        if !u32::try_from(self.items.len()).is_ok_and(|n| n < u32::MAX) {
            return Err(ErrorKind::TooManyItems.unlocated());
        }
        self.items.insert(key.to_vec(), Entry { dtype, bytes });
        Ok(self)
    }

    /// The size of the store in bytes, as its header will say.
    ///
    /// # Errors
    /// [`ErrorKind::SizeOverflow`] when it does not fit in 64 bits.
    pub fn file_size(&self) -> Result<u64> {
        Ok(self.layout()?.file_size)
    }

    /// Every offset, computed with checked arithmetic before anything is written.
    fn layout(&self) -> Result<Plan> {
        let n = u32::try_from(self.items.len()).map_err(|_| ErrorKind::TooManyItems.unlocated())?;
        let overflow = || ErrorKind::SizeOverflow.unlocated();
        let mut end = HEADER_LEN + DESCRIPTOR_LEN * u64::from(n);
        for key in self.items.keys() {
            end = end.checked_add(len_u64(key)).ok_or_else(overflow)?;
        }
        let keys_end = end;
        for entry in self.items.values() {
            end = binfmt_core::align::align_up(end, ARRAY_ALIGN)
                .and_then(|start| start.checked_add(len_u64(&entry.bytes)))
                .ok_or_else(overflow)?;
        }
        Ok(Plan {
            num_items: n,
            keys_end,
            file_size: end,
        })
    }

    /// Calls `sink` with consecutive pieces of the store: header, descriptors and keys in
    /// one piece, then padding and array bytes.
    fn emit<E>(&self, mut sink: impl FnMut(&[u8]) -> Result<(), E>) -> Result<u64, E>
    where
        E: From<Error>,
    {
        let layout = self.layout()?;
        let meta_len =
            binfmt_core::bytes::to_usize(layout.keys_end, "store", 0).map_err(Error::from)?;
        let mut meta = Vec::with_capacity(meta_len);
        let header = Header {
            magic: MAGIC_BYTES,
            version_major: U16::new(VERSION.major),
            version_minor: U16::new(VERSION.minor),
            num_items: U32::new(layout.num_items),
            file_size: U64::new(layout.file_size),
            reserved: [0; 40],
        };
        meta.extend_from_slice(header.as_bytes());
        let mut key_start = HEADER_LEN + DESCRIPTOR_LEN * u64::from(layout.num_items);
        let mut array_start = layout.keys_end;
        for (key, entry) in &self.items {
            array_start = binfmt_core::align::align_up(array_start, ARRAY_ALIGN)
                .ok_or_else(|| ErrorKind::SizeOverflow.unlocated())?;
            let key_len = len_u64(key);
            let array_bytes = len_u64(&entry.bytes);
            let descriptor = Descriptor {
                dtype: entry.dtype.code(),
                reserved_type: [0; 7],
                key_start: U64::new(key_start),
                key_len: U64::new(key_len),
                array_start: U64::new(array_start),
                array_len: U64::new(array_bytes / to_u64(entry.dtype.size())),
                reserved: [0; 24],
            };
            meta.extend_from_slice(descriptor.as_bytes());
            // Sums already checked by `layout`.
            key_start = key_start.saturating_add(key_len);
            array_start = array_start.saturating_add(array_bytes);
        }
        for key in self.items.keys() {
            meta.extend_from_slice(key);
        }
        sink(&meta)?;
        let mut at = layout.keys_end;
        for entry in self.items.values() {
            let pad = binfmt_core::align::padding(at, ARRAY_ALIGN).unwrap_or(0);
            let zeros = [0u8; 8];
            if pad > 0 {
                sink(
                    zeros
                        .get(..usize::try_from(pad).unwrap_or(0))
                        .unwrap_or(&[]),
                )?;
            }
            if !entry.bytes.is_empty() {
                sink(&entry.bytes)?;
            }
            at = at.saturating_add(pad).saturating_add(len_u64(&entry.bytes));
        }
        debug_assert_eq!(at, layout.file_size);
        Ok(layout.file_size)
    }

    /// Ends the writer and returns the store's bytes: [`Writer::to_vec`] for the last
    /// time, the one `finish` every binfmt writer has.
    ///
    /// # Errors
    /// As [`Writer::to_vec`].
    pub fn finish(self) -> Result<Vec<u8>> {
        self.to_vec()
    }

    /// The store's bytes.
    ///
    /// # Errors
    /// [`ErrorKind::SizeOverflow`] when the store does not fit in memory.
    pub fn to_vec(&self) -> Result<Vec<u8>> {
        let size = self.file_size()?;
        let size = usize::try_from(size).map_err(|_| ErrorKind::SizeOverflow.unlocated())?;
        // Bounded by data this writer holds in memory.
        let mut out = Vec::with_capacity(size);
        self.emit(|piece: &[u8]| {
            out.extend_from_slice(piece);
            Ok::<(), Error>(())
        })?;
        Ok(out)
    }

    /// Writes the store to `writer` and returns its size. Every check runs before the
    /// first byte is written; the writer sees one write for the header, descriptors and
    /// keys, then one per padding and array, so wrap small-write-sensitive writers in a
    /// `BufWriter` only if there are many tiny arrays.
    ///
    /// # Errors
    /// [`ErrorKind::SizeOverflow`] (before writing), [`ErrorKind::Io`].
    #[cfg(feature = "std")]
    pub fn write_to<W: std::io::Write>(&self, mut writer: W) -> Result<u64> {
        use binfmt_core::IoError;
        let size = self.emit(|piece| {
            writer
                .write_all(piece)
                .map_err(|e| Error::from(IoError::from(e)))
        })?;
        // A buffering writer reports late failures only here (its drop ignores them).
        writer.flush().map_err(IoError::from)?;
        Ok(size)
    }

    /// Writes the store to the file at `path`, replacing it, and returns its size.
    ///
    /// The bytes go through [`binfmt_core::output::Output`] with `replace(true)`, the
    /// workspace's one rule for output paths: a regular file is written to a temporary
    /// file in the same directory, synced, then renamed over `path` (keeping the old
    /// file's permissions), so on any error `path` is untouched and the temporary file is
    /// removed; a symbolic link is followed; a FIFO or a device is written into; a
    /// directory is refused. (The command line passes its own `Output`, which does not
    /// replace files without `--force`: use [`Writer::write_to`] with it.)
    ///
    /// Writing over the file a [`Store`] borrowed from is safe when it was read into memory
    /// ([`fs::read`](crate::fs::read)) or memory-mapped: the rename leaves the old file's
    /// data in place for the map.
    ///
    /// # Errors
    /// [`ErrorKind::SizeOverflow`] (before anything is created), [`ErrorKind::Io`] naming
    /// the path.
    #[cfg(feature = "std")]
    pub fn write_to_path(&self, path: impl AsRef<std::path::Path>) -> Result<u64> {
        use binfmt_core::IoError;
        use binfmt_core::output::{Output, OutputOptions};
        let path = path.as_ref();
        self.layout()?;
        let mut out = Output::create(path, &OutputOptions::new().replace(true))
            .map_err(IoError::at_path(path))?;
        let size = self
            .write_to(std::io::BufWriter::new(&mut out))
            .map_err(|e| match e.into_kind() {
                ErrorKind::Io(io) => Error::from(IoError::new(Some(path.into()), io.source)),
                other => other.unlocated(),
            })?;
        out.commit().map_err(IoError::at_path(path))?;
        Ok(size)
    }
}

/// `values` as little-endian bytes, in a new vector.
fn le_bytes<T: Element>(values: &[T]) -> Vec<u8> {
    if cfg!(target_endian = "little") {
        values.as_bytes().to_vec()
    } else {
        let mut out = Vec::with_capacity(values.as_bytes().len());
        for v in values {
            out.extend_from_slice(v.to_le().as_bytes());
        }
        out
    }
}

/// The old name of [`Writer`], kept for one release.
#[deprecated(note = "renamed to Writer")]
pub type Builder<'a> = Writer<'a>;

struct Plan {
    num_items: u32,
    keys_end: u64,
    file_size: u64,
}
