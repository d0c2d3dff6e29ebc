//! The ranged reader: the owned form of a [`Dataset`] read by ranges from any
//! [`ByteSource`] (a file by `pread`, an object store by range requests).
//!
//! It opens through a [`ReadCache`] (so opening is the view's plan: the head, then the
//! descriptors and the allocation table in one batch), then keeps what it read as plain
//! data: the source, the checked shape (header, catalog), the head and, for item CRCs,
//! the allocation table. [`Reader::view`] rebuilds the [`Dataset`] from them in O(1),
//! with no I/O and no checks again, over [`Held`]: the held bytes and the source. Every
//! access is that view's. A [`Reader`] is `Send + Sync` when its source is (a
//! [`ReadCache`] is not: it is a cache for one thread), so one can be shared, as the
//! Python binding does.

use std::borrow::Cow;
use std::vec::Vec;

use binfmt_core::IoError;
use binfmt_core::bytes;
use binfmt_core::cache::ReadCache;
use binfmt_core::data::Data;
use binfmt_core::source::{ByteSource, SourceError, read_exact};

use crate::buf::ValueBuf;
use crate::catalog::Catalog;
use crate::dataset::{self, Dataset};
use crate::error::{Error, Result};
use crate::header::Header;
use crate::options::ReadOptions;
use crate::raw::AllocEntry;

/// An MLDF file read by ranges through a [`ByteSource`]: a [`ReadCache`] and the checked
/// shape of the file, from which [`Reader::view`] makes the [`Dataset`] view.
///
/// It runs the same checks as [`Dataset::parse`] (it is [`Dataset::from_data_with`] over a cache), but
/// fetches only the header and descriptors at open and, for each access, the slot and
/// the payload it needs. Values come back as [`ValueBuf`]s, which own (or, for sources in
/// memory and bytes the cache holds, borrow) their bytes.
///
/// ```
/// use binfmt_core::source::Counting;
/// use mldf::{FieldType, Reader, Schema, Text, Value, Writer, WriterOptions};
/// # fn main() -> Result<(), mldf::Error> {
/// let schema = Schema::new().field("label", FieldType::Int).field("text", FieldType::TextRaw);
/// let options = WriterOptions::new().num_samples(1); // canonical: the rows come first
/// let mut writer = Writer::new(std::io::Cursor::new(Vec::new()), &schema, options)?;
/// writer.add(&[Value::Int(7), Value::Text(Text::Utf8("hi"))])?;
/// let file = writer.finish()?.into_inner(); // 2 MiB pages: the payload is far from the head
///
/// let source = Counting::new(file);
/// let reader = Reader::open(&source)?;
/// assert_eq!(source.stats().requests, 1); // magic, header and descriptors
/// assert_eq!(reader.value(0, 1)?.value(), Value::Text(Text::Utf8("hi")));
/// assert_eq!(source.stats().requests, 2); // the payload (the row was in the head)
/// assert_eq!(reader.view().fields().len(), 2);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Reader<S> {
    source: S,
    header: Header,
    catalog: Catalog,
    file_size: u64,
    /// The first bytes of the file, read at open (empty for a source in memory).
    head: Vec<u8>,
    /// The allocation table, when item CRCs are checked (empty for a source in memory).
    alloc: Vec<AllocEntry>,
    item_crcs: bool,
}

impl<S: ByteSource> Reader<S> {
    /// Opens the file with every check of [`ReadOptions::new`].
    ///
    /// # Errors
    /// As [`Dataset::parse`], and [`ErrorKind::Io`](crate::ErrorKind::Io) when the
    /// source fails.
    pub fn open(source: S) -> Result<Self> {
        Reader::open_with(source, &ReadOptions::new())
    }

    /// Opens the file, running the optional checks `options` asks for; what opening
    /// holds is at most [`ReadOptions::max_memory`] bytes.
    ///
    /// # Errors
    /// As [`Reader::open`].
    pub fn open_with(source: S, options: &ReadOptions) -> Result<Self> {
        Reader::from_cache(
            ReadCache::new(source).with_limit(options.get_memory_limit()),
            options,
        )
    }

    /// Opens the file through `cache`: one made with
    /// [`ReadCache::with_head`] when the first bytes were already read (for format
    /// detection) reads them not again.
    ///
    /// ```
    /// use binfmt_core::cache::ReadCache;
    /// use binfmt_core::source::Counting;
    /// use mldf::{FieldType, HEAD_SIZE, ReadOptions, Reader, Schema, Value, Writer, WriterOptions};
    /// # fn main() -> Result<(), mldf::Error> {
    /// let schema = Schema::new().field("n", FieldType::Int);
    /// let mut writer = Writer::new(std::io::Cursor::new(Vec::new()), &schema, WriterOptions::new().num_samples(1))?;
    /// writer.add(&[Value::Int(5)])?;
    /// let file = writer.finish()?.into_inner();
    /// let head = &file[..HEAD_SIZE as usize]; // what detection read
    /// let source = Counting::new(&file[..]);
    /// let reader = Reader::from_cache(ReadCache::with_head(&source, head, HEAD_SIZE), &ReadOptions::new())?;
    /// assert_eq!(reader.value(0, 0)?.value(), Value::Int(5));
    /// assert_eq!(source.stats().requests, 0);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Reader::open`].
    pub fn from_cache(cache: ReadCache<S>, options: &ReadOptions) -> Result<Self> {
        let (header, catalog, file_size, head_len, alloc, item_crcs) =
            Dataset::from_data_with(&cache, options)?.into_parts();
        let alloc = alloc.to_vec();
        // Held by the cache since opening: no I/O.
        let head = match (&cache).whole() {
            Some(_) => Vec::new(),
            None => (&cache).head(head_len)?.to_vec(),
        };
        Ok(Reader {
            source: cache.into_source(),
            header,
            catalog,
            file_size,
            head,
            alloc,
            item_crcs,
        })
    }

    /// The view: a [`Dataset`] over the bytes this reader holds and its source, made in
    /// O(1) with no I/O and no checks.
    #[must_use]
    pub fn view(&self) -> Dataset<'_, Held<'_, S>> {
        Dataset::from_parts(
            Held {
                source: &self.source,
                head: &self.head,
                file_size: self.file_size,
            },
            self.header,
            &self.catalog,
            self.file_size,
            bytes::len_u64(&self.head),
            &self.alloc,
            self.item_crcs,
        )
    }

    /// The header, as [`Dataset::header`].
    #[must_use]
    pub const fn header(&self) -> &Header {
        &self.header
    }

    /// The file's size, as `view().file_size()`.
    #[must_use]
    pub fn file_size(&self) -> u64 {
        self.view().file_size()
    }

    /// The number of samples, as `view().num_samples()`.
    #[must_use]
    pub fn num_samples(&self) -> u64 {
        self.view().num_samples()
    }

    crate::catalog::field_getters!();

    /// Bytes per metadata row, as `view().row_size()`.
    #[must_use]
    pub fn row_size(&self) -> u64 {
        self.view().row_size()
    }

    /// The data region's bounds `[start, end)` (absolute offsets), as
    /// `view().data_region()`.
    #[must_use]
    pub fn data_region(&self) -> (u64, u64) {
        self.view().data_region()
    }

    /// True when accesses check item CRCs, as `view().checks_item_crcs()`.
    #[must_use]
    pub fn checks_item_crcs(&self) -> bool {
        self.view().checks_item_crcs()
    }

    /// What a reader should know that does not make the file invalid, as
    /// [`Dataset::warnings`].
    pub fn warnings(&self) -> impl Iterator<Item = Error> + '_ {
        dataset::warnings(&self.header, &self.catalog)
    }

    /// The source.
    pub const fn source(&self) -> &S {
        &self.source
    }

    /// The source back.
    pub fn into_source(self) -> S {
        self.source
    }

    /// The value of `field` in `sample`, as `view().fetch(sample, field)`: at most two
    /// requests, the slot and then the payload (none for bytes inside the first
    /// [`HEAD_SIZE`](crate::HEAD_SIZE) bytes).
    ///
    /// # Errors
    /// As [`Dataset::fetch`].
    pub fn value(&self, sample: u64, field: usize) -> Result<ValueBuf<'_>> {
        self.view().fetch(sample, field)
    }

    /// The value of the field named `name` of sample `sample`, as
    /// `view().fetch_by_name(sample, name)`; `Ok(None)` when there is no such field.
    ///
    /// # Errors
    /// As [`Reader::value`].
    pub fn value_by_name(&self, sample: u64, name: &str) -> Result<Option<ValueBuf<'_>>> {
        self.view().fetch_by_name(sample, name)
    }

    /// Every value of `sample`, in field order, as `view().fetch_sample(sample)` but
    /// with the payloads read in one batch ([`ByteSource::read_ranges`]): one request
    /// for the row, then one round trip.
    ///
    /// # Errors
    /// As [`Reader::value`], for the first field that fails.
    pub fn sample(&self, sample: u64) -> Result<Vec<ValueBuf<'_>>> {
        self.view().fetch_sample_with(sample, |ranges| {
            Ok(self.source.read_ranges(ranges).map_err(IoError::from)?)
        })
    }
}

/// The bytes a [`Reader`] holds, as [`Data`] for its [`view`](Reader::view): the first
/// bytes of the file (read at open) borrowed, and everything else read from the source
/// by [`Data::payload`], into buffers the values own.
///
/// Only what the view reads after opening is served: [`Data::bytes`] (a borrow) is
/// answered from the head, or from a source in memory; past them it is an error, since
/// nothing else is held.
///
/// ```
/// use mldf::{FieldType, Reader, Schema, Value, Writer, WriterOptions};
/// # fn main() -> Result<(), mldf::Error> {
/// let schema = Schema::new().field("n", FieldType::Int);
/// let mut writer = Writer::new(std::io::Cursor::new(Vec::new()), &schema, WriterOptions::new())?;
/// writer.add(&[Value::Int(1)])?;
/// let file = writer.finish()?.into_inner();
/// let reader = Reader::open(binfmt_core::source::SeekSource::new(std::io::Cursor::new(file)))?;
/// let view: mldf::Dataset<'_, mldf::Held<'_, _>> = reader.view();
/// assert_eq!(view.fetch(0, 0)?.value(), Value::Int(1));
/// # Ok(()) }
/// ```
pub struct Held<'r, S> {
    source: &'r S,
    head: &'r [u8],
    file_size: u64,
}

impl<S> Clone for Held<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for Held<'_, S> {}

impl<S> core::fmt::Debug for Held<'_, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Held")
            .field("head", &self.head.len())
            .field("file_size", &self.file_size)
            .finish_non_exhaustive()
    }
}

impl<'r, S: ByteSource> Data<'r> for Held<'r, S> {
    type Error = SourceError;

    fn size(self) -> core::result::Result<u64, SourceError> {
        Ok(self.file_size)
    }

    fn bytes(
        self,
        offset: u64,
        len: u64,
        what: &'static str,
    ) -> core::result::Result<&'r [u8], SourceError> {
        let all = self.source.as_slice().unwrap_or(self.head);
        match bytes::slice(all, offset, len, what) {
            Ok(b) => Ok(b),
            Err(_) if self.source.as_slice().is_none() => {
                Err(SourceError::Io(IoError::from(std::io::Error::other(
                    std::format!("{what}: {len} bytes at {offset} are not held by the reader"),
                ))))
            }
            Err(e) => Err(SourceError::Layout(e)),
        }
    }

    fn head(self, max: u64) -> core::result::Result<&'r [u8], SourceError> {
        let all = self.source.as_slice().unwrap_or(self.head);
        Ok(Data::head(all, max)?)
    }

    fn tail(self, max: u64) -> core::result::Result<(u64, &'r [u8]), SourceError> {
        let start = self.file_size.saturating_sub(max);
        Ok((start, self.bytes(start, self.file_size - start, "tail")?))
    }

    fn payload(
        self,
        offset: u64,
        len: u64,
        what: &'static str,
    ) -> core::result::Result<Cow<'r, [u8]>, SourceError> {
        if let Some(all) = self.source.as_slice() {
            return Ok(Cow::Borrowed(bytes::slice(all, offset, len, what)?));
        }
        if let Ok(b) = bytes::slice(self.head, offset, len, what) {
            return Ok(Cow::Borrowed(b));
        }
        read_exact(self.source, offset, len, what)
    }

    fn whole(self) -> Option<&'r [u8]> {
        self.source.as_slice()
    }

    fn is_stream(self) -> bool {
        self.source.is_stream()
    }
}
