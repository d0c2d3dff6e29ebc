//! Owned bytes aligned for zero-copy typed access, and an owned store.

use alloc::vec::Vec;
use core::fmt;
use core::ops::Deref;

use zerocopy::IntoBytes;

use crate::check::{self, Checked, HEADER_LEN, HeaderInfo};
use crate::error::Result;
use crate::options::ReadOptions;
use crate::store::Store;

/// A byte buffer whose first byte is 8-aligned in memory.
///
/// kastore arrays start at multiples of 8 from the start of their store, so a store at
/// the start of this buffer hands out every array as a borrowed `&[T]`
/// ([`Store::get`] never copies). A `Vec<u8>` gives no such guarantee.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct AlignedBytes {
    words: Vec<u64>,
    len: usize,
}

impl AlignedBytes {
    /// An empty buffer.
    #[must_use]
    pub const fn new() -> AlignedBytes {
        AlignedBytes {
            words: Vec::new(),
            len: 0,
        }
    }

    /// `len` zero bytes. Callers size it from input they already hold or a length they
    /// checked, never from a count read out of a file.
    pub(crate) fn zeroed(len: usize) -> AlignedBytes {
        AlignedBytes {
            words: alloc::vec![0; len.div_ceil(8)],
            len,
        }
    }

    /// A copy of `bytes`.
    #[must_use]
    pub fn copy_from(bytes: &[u8]) -> AlignedBytes {
        let mut out = AlignedBytes::zeroed(bytes.len());
        out.as_mut_bytes().copy_from_slice(bytes);
        out
    }

    /// The bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        self.words.as_bytes().get(..self.len).unwrap_or(&[])
    }

    pub(crate) fn as_mut_bytes(&mut self) -> &mut [u8] {
        let len = self.len;
        self.words.as_mut_bytes().get_mut(..len).unwrap_or(&mut [])
    }

    /// Grows (with zeros) or shrinks to `len` bytes.
    #[cfg(feature = "std")]
    pub(crate) fn resize(&mut self, len: usize) {
        self.words.resize(len.div_ceil(8), 0);
        self.len = len;
    }

    /// Drops bytes past `len`.
    #[cfg(feature = "std")]
    pub(crate) fn truncate(&mut self, len: usize) {
        if len < self.len {
            self.resize(len);
        }
    }
}

impl Deref for AlignedBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl AsRef<[u8]> for AlignedBytes {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl From<&[u8]> for AlignedBytes {
    fn from(bytes: &[u8]) -> AlignedBytes {
        AlignedBytes::copy_from(bytes)
    }
}

/// An aligned buffer is a byte source whose ranges are borrowed, so a
/// [`Reader`](crate::Reader) over it hands out typed arrays without copying.
#[cfg(feature = "std")]
impl binfmt_core::source::ByteSource for AlignedBytes {
    fn len(&self) -> std::io::Result<u64> {
        Ok(binfmt_core::bytes::len_u64(self.as_bytes()))
    }

    fn read_range(
        &self,
        range: core::ops::Range<u64>,
    ) -> std::io::Result<alloc::borrow::Cow<'_, [u8]>> {
        self.as_bytes().read_range(range)
    }

    fn as_slice(&self) -> Option<&[u8]> {
        Some(self.as_bytes())
    }
}

impl fmt::Debug for AlignedBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlignedBytes")
            .field("len", &self.len)
            .finish()
    }
}

/// One validated store that owns its bytes (8-aligned, so typed access never copies on
/// little-endian hosts).
///
/// Made by [`OwnedStore::from_bytes`] or [`OwnedStore::from_aligned`], by reading a stream
/// ([`OwnedStore::read_from`](OwnedStore::read_from), [`StreamReader`](crate::StreamReader))
/// or a file ([`fs::load`](crate::fs::load)). [`OwnedStore::store`] gives the borrowed view.
/// The buffer keeps any bytes after the store, so that the view's
/// [`warnings`](Store::warnings) can name them.
#[derive(Clone)]
pub struct OwnedStore {
    /// The store, then whatever followed it in the input.
    bytes: AlignedBytes,
    info: HeaderInfo,
    options: ReadOptions,
}

impl OwnedStore {
    /// Copies `data` and validates the store at its start.
    ///
    /// # Errors
    /// As [`Store::parse`].
    pub fn from_bytes(data: &[u8]) -> Result<OwnedStore> {
        OwnedStore::from_aligned(AlignedBytes::copy_from(data))
    }

    /// Validates the store at the start of `bytes`, keeping the buffer.
    ///
    /// # Errors
    /// As [`Store::parse`].
    pub fn from_aligned(bytes: AlignedBytes) -> Result<OwnedStore> {
        OwnedStore::from_aligned_with(bytes, &ReadOptions::new())
    }

    /// [`OwnedStore::from_aligned`] with `options`.
    ///
    /// # Errors
    /// As [`Store::parse_with`].
    pub fn from_aligned_with(bytes: AlignedBytes, options: &ReadOptions) -> Result<OwnedStore> {
        let info = check::first_problem(&bytes, options)?.0.info;
        Ok(OwnedStore {
            bytes,
            info,
            options: *options,
        })
    }

    /// The borrowed view (no re-validation).
    #[must_use]
    pub fn store(&self) -> Store<'_> {
        let n = u64::from(self.info.num_items);
        // Validated when `self` was made, and immutable since: the table and the
        // `file_size` bytes are there.
        let descriptors = binfmt_core::bytes::read_table(&self.bytes, HEADER_LEN, n, "descriptors")
            .unwrap_or(&[]);
        let all = self.bytes.as_bytes();
        let checked = Checked {
            descriptors,
            info: self.info,
        };
        Store::from_parts(
            all,
            self.store_bytes(),
            checked,
            0,
            binfmt_core::bytes::len_u64(all),
            &self.options,
        )
    }

    /// The store's bytes (exactly `file_size` of them; the bytes after it follow).
    fn store_bytes(&self) -> &[u8] {
        let size = usize::try_from(self.info.file_size).unwrap_or(usize::MAX);
        let all = self.bytes.as_bytes();
        all.get(..size).unwrap_or(all)
    }

    /// The store's bytes: exactly `file_size` of them.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        self.store_bytes()
    }

    /// The buffer (the store, then any bytes that followed it), for reuse.
    #[must_use]
    pub fn into_bytes(self) -> AlignedBytes {
        self.bytes
    }
}

impl fmt::Debug for OwnedStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("OwnedStore").field(&self.store()).finish()
    }
}
