//! Owned bytes aligned for zero-copy typed access, and an owned store.

use alloc::vec::Vec;
use core::fmt;
use core::ops::Deref;

use zerocopy::IntoBytes;

use crate::HEADER_SIZE;
use crate::check::{self, HeaderInfo, Parts};
use crate::error::Result;
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
    pub(crate) fn resize(&mut self, len: usize) {
        self.words.resize(len.div_ceil(8), 0);
        self.len = len;
    }

    /// Drops bytes past `len`.
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
/// Made by [`OwnedStore::from_bytes`], by reading a stream
/// ([`OwnedStore::read_from`](OwnedStore::read_from), [`StoreReader`](crate::StoreReader))
/// or a file ([`fs::open`](crate::fs::open)). [`OwnedStore::store`] gives the borrowed view.
#[derive(Clone)]
pub struct OwnedStore {
    bytes: AlignedBytes,
    info: HeaderInfo,
}

impl OwnedStore {
    /// Copies and validates the store at the start of `data`; bytes after it are dropped.
    ///
    /// # Errors
    /// As [`Store::parse`].
    pub fn from_bytes(data: &[u8]) -> Result<OwnedStore> {
        let parts = check::first_problem(data)?;
        Ok(OwnedStore {
            bytes: AlignedBytes::copy_from(parts.bytes),
            info: parts.info,
        })
    }

    /// Validates the store at the start of `bytes`, keeping the buffer and dropping
    /// anything after the store.
    ///
    /// # Errors
    /// As [`Store::parse`].
    pub fn from_aligned(mut bytes: AlignedBytes) -> Result<OwnedStore> {
        let (size, info) = {
            let parts = check::first_problem(&bytes)?;
            (parts.bytes.len(), parts.info)
        };
        bytes.truncate(size);
        Ok(OwnedStore { bytes, info })
    }

    /// The borrowed view (no re-validation).
    #[must_use]
    pub fn store(&self) -> Store<'_> {
        let n = u64::from(self.info.num_items);
        // Validated when `self` was made, and immutable since: the table is there.
        let descriptors =
            binfmt_core::bytes::read_table(&self.bytes, HEADER_SIZE, n, "descriptors")
                .unwrap_or(&[]);
        Store::from_parts(Parts {
            bytes: &self.bytes,
            descriptors,
            info: self.info,
        })
    }

    /// The store's bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The buffer, for reuse.
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
