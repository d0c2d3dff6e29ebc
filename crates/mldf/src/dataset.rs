//! The one view of an MLDF file: [`Dataset`], over a slice (zero-copy, O(1) access to
//! any value) or over a [`ReadCache`](binfmt_core::cache::ReadCache) of any
//! [`ByteSource`](binfmt_core::source::ByteSource) (a file by positioned reads, an object
//! store by range requests), reading only the ranges each access needs.
//!
//! The request plan is in [`Dataset`]'s documentation.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::ops::Range;

use binfmt_core::bytes::{self, to_u64};
use binfmt_core::data::Data;

use crate::buf::{ValueBuf, into_text};
use crate::catalog::{self, Catalog};
use crate::error::{Error, Result};
use crate::header::Header;
use crate::options::ReadOptions;
use crate::raw::{ALLOC_ENTRY_SIZE, AllocEntry};
use crate::slot::{self, Hot, Located, Place, Shape};
use crate::value::Value;

/// How many bytes opening over a cache asks for first: the magic, the header and the
/// descriptors of up to 314 fields, in one request. A remote request costs its latency
/// whether it returns 73 bytes or 64 KiB.
pub const HEAD_SIZE: u64 = 64 * 1024;

/// The largest range read at once when a whole section is read for the index CRC over a
/// cache (the metadata table), so that memory stays bounded however large the section is.
pub const PIECE_SIZE: u64 = 16 * 1024 * 1024;

/// A parsed MLDF file: the header, the fields, and views of the metadata table, the data
/// region and the allocation table, over the bytes `D`: a slice by default
/// (`Dataset<'a>`, zero-copy), or a [`ReadCache`](binfmt_core::cache::ReadCache) (what a
/// [`Reader`](crate::Reader) hands out from [`Reader::view`](crate::Reader::view)).
///
/// Everything structural is checked once by [`Dataset::parse`] (slices) or
/// [`Dataset::from_data`] (any `D`); each access then checks
/// only the slot it reads and its payload (O(1), the payload's UTF-8 and CRC aside).
/// [`Dataset::value`] (slices) borrows from the input; [`Dataset::fetch`] (any `D`)
/// returns a [`ValueBuf`] that borrows or owns its payload.
///
/// ```
/// use mldf::{Dataset, FieldType, Schema, Text, Value, Writer, WriterOptions};
/// # fn main() -> Result<(), mldf::Error> {
/// let schema = Schema::new().field("label", FieldType::Int).field("text", FieldType::TextRaw);
/// let mut writer = Writer::new(std::io::Cursor::new(Vec::new()), &schema, WriterOptions::new())?;
/// writer.add(&[Value::Int(7), Value::Text(Text::Utf8("hi"))])?;
/// let file = writer.finish()?.into_inner();
///
/// let dataset = Dataset::parse(&file)?;
/// assert_eq!(dataset.value(0, 1)?, Value::Text(Text::Utf8("hi")));
/// assert_eq!(dataset.sample(0)?.get("label")?, Some(Value::Int(7)));
/// assert!(dataset.value(1, 0).is_err()); // there is one sample
///
/// // The same view over a cache of any byte source: only the ranges it needs are read.
/// let source = binfmt_core::source::Counting::new(&file[..]);
/// let cache = binfmt_core::cache::ReadCache::new(&source);
/// let ranged = Dataset::from_data(&cache)?;
/// assert_eq!(ranged.fetch(0, 1)?.value(), Value::Text(Text::Utf8("hi")));
/// assert_eq!(source.stats().requests, 3); // the head, the slot, the payload
/// # Ok(()) }
/// ```
///
/// # Reading by range
///
/// The request plan over a cache (docs/mldf.md, "Reading by range"); a *request* is one
/// range of [`ByteSource::read_ranges`](binfmt_core::source::ByteSource::read_ranges),
/// a *round trip* one batch of them, issued together:
///
/// | operation | requests | dependent round trips |
/// |---|---|---|
/// | open, F ≤ 314 fields | 1: the first [`HEAD_SIZE`] bytes (magic, header, descriptors) | 1 |
/// | open, F > 314 fields | + 1: the descriptors, batched with the allocation table when a CRC needs it | 2 |
/// | open, checksummed, index or item CRCs on | + 1: the allocation table (kept for item CRCs: an item's entry is found by binary search), in the descriptors' batch when those are past the head | + 1 when the descriptors are in the head, else + 0 |
/// | open, checksummed, index CRC on | + the metadata table, in pieces of at most [`PIECE_SIZE`] (not kept) | + 1 per piece |
/// | [`Dataset::fetch`] / [`Reader::value`](crate::Reader::value) | 1 for the slot, 1 for the payload when there is one; none for bytes in the head | ≤ 2 |
/// | [`Reader::sample`](crate::Reader::sample) | 1 for the row, then its payloads in one batch | ≤ 2 |
/// | one field of one sample, from nothing (open + fetch), F ≤ 314, no item CRCs | ≤ 3 | ≤ 3: head, slot, payload (the slot is free when the rows are in the head, as in small canonical files); item CRCs add the allocation table at open |
///
/// Metadata read at open (the head, the descriptors, the allocation table) is kept in the
/// cache's arena, bounded by the cache's limit ([`ReadOptions::memory_limit`] for a
/// [`Reader`](crate::Reader)); slots, rows and payloads are read into buffers the values
/// own, never kept, so iterating a dataset holds no more memory than opening it. A
/// [`Reader`](crate::Reader) opens with this plan and then keeps the head and the
/// allocation table itself. Counted in `tests/view.rs` and `tests/reader.rs`.
#[derive(Debug, Clone)]
pub struct Dataset<'d, D = &'d [u8]> {
    data: D,
    /// All of the input, when it is in memory ([`Data::whole`]).
    whole: Option<&'d [u8]>,
    header: Header,
    catalog: Cow<'d, Catalog>,
    file_size: u64,
    /// How many of the first bytes a cache holds from opening (reads inside them cost
    /// nothing); 0 for input in memory.
    head_len: u64,
    /// The metadata table, when the input is in memory (else slots are read one by one).
    metadata: &'d [u8],
    /// row_size as usize (a row of the metadata slice, so it fits when N > 0).
    row_len: usize,
    /// The allocation table: whole when the input is in memory, else only when item CRCs
    /// are checked (read at open), else empty.
    alloc: &'d [AllocEntry],
    item_crcs: bool,
}

/// The bytes of a checked section of `data` (an empty section's pointer is not checked,
/// and may lie past the end).
fn section<'d, D: Data<'d>>(data: D, range: &Range<u64>, what: &'static str) -> Result<&'d [u8]>
where
    Error: From<D::Error>,
{
    if range.is_empty() {
        return Ok(&[]);
    }
    Ok(data.bytes(range.start, range.end - range.start, what)?)
}

impl<'d, D: Data<'d>> Dataset<'d, D>
where
    Error: From<D::Error>,
{
    /// Opens a dataset over any bytes `D` (a slice, a
    /// [`ReadCache`](binfmt_core::cache::ReadCache)) with every check of
    /// [`ReadOptions::new`]; over a cache, reads as the [plan](Dataset#reading-by-range) says.
    /// For a slice, [`Dataset::parse`] is the same.
    ///
    /// ```
    /// use binfmt_core::cache::ReadCache;
    /// use binfmt_core::source::Counting;
    /// use mldf::{Dataset, FieldType, Schema, Value, Writer, WriterOptions};
    /// # fn main() -> Result<(), mldf::Error> {
    /// let schema = Schema::new().field("n", FieldType::Int);
    /// let options = WriterOptions::new().num_samples(1);
    /// let mut writer = Writer::new(std::io::Cursor::new(Vec::new()), &schema, options)?;
    /// writer.add(&[Value::Int(3)])?;
    /// let file = writer.finish()?.into_inner();
    /// let source = Counting::new(&file[..]);
    /// let cache = ReadCache::new(&source);
    /// let dataset = Dataset::from_data(&cache)?;
    /// assert_eq!(dataset.fetch(0, 0)?.value(), Value::Int(3));
    /// assert_eq!(source.stats().requests, 1); // the head holds the header, descriptors and row
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Dataset::parse`]; [`ErrorKind::Io`](crate::ErrorKind::Io) when a cache's
    /// source fails.
    pub fn from_data(data: D) -> Result<Self> {
        Dataset::from_data_with(data, &ReadOptions::new())
    }

    /// Opens a dataset over any bytes `D`, running the optional checks that `options`
    /// asks for.
    ///
    /// # Errors
    /// As [`Dataset::from_data`].
    pub fn from_data_with(data: D, options: &ReadOptions) -> Result<Self> {
        let (header, head_len) = match data.whole() {
            Some(all) => (Header::parse(all)?, 0),
            // The header is checked on the first bytes before the length is asked for: a
            // stream learns its length by reading to its end, and `/dev/zero` has none.
            None => {
                let head = data.head(HEAD_SIZE)?;
                (Header::parse(head)?, to_u64(head.len()))
            }
        };
        let checksummed = header.is_checksummed();
        let index_crc = checksummed && options.get_index_checksum();
        let item_crcs = checksummed && options.get_item_checksums();
        let mut dataset = Dataset::open_inner(data, header, head_len, index_crc || item_crcs)?;
        if index_crc {
            dataset.check_index_crc()?;
        }
        if item_crcs {
            catalog::first_entry_problem(
                dataset.alloc,
                dataset.catalog.alloc.start,
                &dataset.catalog.data,
            )?;
            dataset.item_crcs = true;
        }
        Ok(dataset)
    }

    /// Descriptors and sections (steps 4 and 5 of the checklist), without CRCs, on a
    /// header already read; `tables`: also read the allocation table over a cache.
    fn open_inner(data: D, header: Header, head_len: u64, tables: bool) -> Result<Self> {
        let whole = data.whole();
        let file_size = data.size()?;
        let descriptors = catalog::descriptor_range(&header, file_size)?;
        if whole.is_none() {
            // One batch: the descriptors (when past the head) and the allocation table
            // when a CRC will need it, cheaply checked first so that a hostile pointer
            // does not make the batch read what the catalog will refuse.
            let alloc_ptr = header.alloc_table_ptr();
            let alloc = (tables
                && alloc_ptr >= crate::raw::DESCRIPTORS_OFFSET
                && alloc_ptr <= file_size
                && (file_size - alloc_ptr).is_multiple_of(to_u64(ALLOC_ENTRY_SIZE)))
            .then_some(alloc_ptr..file_size);
            data.hint(&[descriptors.clone().unwrap_or(0..0), alloc.unwrap_or(0..0)])?;
        }
        let descriptors = match descriptors {
            Some(range) => section(data, &range, "field descriptors")?,
            None => &[],
        };
        let catalog = Catalog::build(&header, descriptors, file_size)?;
        let (metadata, alloc) = match whole {
            Some(all) => (
                section::<&[u8]>(all, &catalog.metadata, "metadata table")?,
                section::<&[u8]>(all, &catalog.alloc, "allocation table")?,
            ),
            None if tables => (&[][..], section(data, &catalog.alloc, "allocation table")?),
            None => (&[][..], &[][..]),
        };
        let alloc = catalog::entries(alloc, catalog.alloc.start)?;
        Ok(Dataset {
            data,
            whole,
            header,
            row_len: usize::try_from(catalog.row_size).unwrap_or(usize::MAX),
            catalog: Cow::Owned(catalog),
            file_size,
            head_len,
            metadata,
            alloc,
            item_crcs: false,
        })
    }

    /// Descriptors and sections on a header read from the first `head_len` bytes, the
    /// allocation table read too: what verification opens over any `D`.
    pub(crate) fn open_data(data: D, header: Header, head_len: u64) -> Result<Self> {
        Dataset::open_inner(data, header, head_len, true)
    }

    /// The allocation table, as opened with [`Dataset::open_data`].
    pub(crate) fn alloc_entries(&self) -> &'d [AllocEntry] {
        self.alloc
    }

    /// The allocation table, read (and kept by a cache) if the open did not read it.
    #[cfg(feature = "std")]
    pub(crate) fn alloc_read(&self) -> Result<&'d [AllocEntry]> {
        if self.whole.is_some() || !self.alloc.is_empty() || self.catalog.alloc.is_empty() {
            return Ok(self.alloc);
        }
        let table = section(self.data, &self.catalog.alloc, "allocation table")?;
        catalog::entries(table, self.catalog.alloc.start)
    }

    /// Step 6 on this file. Over a cache, reads the metadata table in pieces of at most
    /// [`PIECE_SIZE`], not kept.
    pub(crate) fn check_index_crc(&self) -> Result<()> {
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(section(
            self.data,
            &self.catalog.descriptors,
            "field descriptors",
        )?);
        if self.whole.is_some() {
            hasher.update(self.metadata);
        } else {
            let table = &self.catalog.metadata;
            let mut at = table.start;
            while at < table.end {
                let end = table.end.min(at.saturating_add(PIECE_SIZE));
                hasher.update(&self.data.payload(at, end - at, "metadata table")?);
                at = end;
            }
        }
        hasher.update(zerocopy::IntoBytes::as_bytes(self.alloc));
        catalog::check_index_crc(&self.header, hasher.finalize())
    }

    /// The value of `field` in `sample`, with its payload: borrowed from input in memory
    /// or from the bytes a cache holds, owned when read from the source (at most two
    /// requests: the slot, then the payload). The same rules as [`Dataset::value`].
    ///
    /// ```
    /// use mldf::{Dataset, FieldType, Schema, Value, Writer, WriterOptions};
    /// # fn main() -> Result<(), mldf::Error> {
    /// let schema = Schema::new().field("n", FieldType::Int);
    /// let mut writer = Writer::new(std::io::Cursor::new(Vec::new()), &schema, WriterOptions::new())?;
    /// writer.add(&[Value::Int(3)])?;
    /// let file = writer.finish()?.into_inner();
    /// let cache = binfmt_core::cache::ReadCache::new(&file[..]);
    /// assert_eq!(Dataset::from_data(&cache)?.fetch(0, 0)?.value(), Value::Int(3));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Dataset::value`]; [`ErrorKind::Io`](crate::ErrorKind::Io) when a cache's
    /// source fails; a `Truncated` error when the file is shorter than it was at open.
    pub fn fetch(&self, sample: u64, field: usize) -> Result<ValueBuf<'d>> {
        let (place, hot) = self.catalog.slot(self.num_samples(), sample, field)?;
        let slot = self.slot_bytes(&place, &hot)?;
        match slot::locate(&hot, &slot, &self.catalog.data, &place)? {
            Located::Done(value) => Ok(ValueBuf::done(Shape::of(&value), slot)),
            Located::Payload { ptr, size } => {
                let payload = self.range(ptr, u64::from(size), "item")?;
                self.decode(&place, &slot, ptr, size, payload)
            }
        }
    }

    /// The value of the field named `name` of sample `sample`, as [`Dataset::fetch`];
    /// `Ok(None)` when there is no such field.
    ///
    /// # Errors
    /// As [`Dataset::fetch`].
    pub fn fetch_by_name(&self, sample: u64, name: &str) -> Result<Option<ValueBuf<'d>>> {
        match self.field_by_name(name) {
            Some(f) => self.fetch(sample, f.index()).map(Some),
            None => Ok(None),
        }
    }

    /// Every value of `sample`, in field order, as [`Dataset::fetch`]: one read for the
    /// row, then one per payload ([`Reader::sample`](crate::Reader::sample) reads them in
    /// one batch).
    ///
    /// # Errors
    /// As [`Dataset::fetch`], for the first field that fails.
    pub fn fetch_sample(&self, sample: u64) -> Result<Vec<ValueBuf<'d>>> {
        self.fetch_sample_with(sample, |ranges| {
            ranges
                .iter()
                .map(|r| Ok(self.data.payload(r.start, r.end - r.start, "item")?))
                .collect()
        })
    }

    /// [`Dataset::fetch_sample`], reading the payloads outside the held bytes with
    /// `batch` (one call, for all of them).
    pub(crate) fn fetch_sample_with<F>(&self, sample: u64, batch: F) -> Result<Vec<ValueBuf<'d>>>
    where
        F: FnOnce(&[Range<u64>]) -> Result<Vec<Cow<'d, [u8]>>>,
    {
        let num_fields = self.catalog.fields.len();
        if num_fields == 0 || sample >= self.num_samples() {
            // The same errors as a single access.
            self.catalog.slot(self.num_samples(), sample, 0)?;
        }
        let start = self
            .catalog
            .metadata
            .start
            .saturating_add(sample.saturating_mul(self.catalog.row_size));
        let row = self.range(start, self.catalog.row_size, "metadata row")?;
        let mut located = Vec::with_capacity(num_fields);
        let mut wanted = Vec::new();
        for field in 0..num_fields {
            let (place, hot) = self.catalog.slot(self.num_samples(), sample, field)?;
            let slot = row_slot(&row, &hot);
            let found = slot::locate(&hot, slot, &self.catalog.data, &place)?;
            if let Located::Payload { ptr, size } = found
                && size > 0
                && !self.held(ptr, size)
            {
                wanted.push(ptr..ptr + u64::from(size));
            }
            located.push((place, hot, found));
        }
        let mut fetched = if wanted.is_empty() {
            Vec::new()
        } else {
            batch(&wanted)?
        }
        .into_iter();
        let mut values = Vec::with_capacity(num_fields);
        for (place, hot, found) in located {
            let slot = row_slot(&row, &hot);
            values.push(match found {
                Located::Done(value) => {
                    let shape = Shape::of(&value);
                    // Only an unknown type's value is its slot.
                    let kept = if shape == Shape::Unknown {
                        Cow::Owned(slot.to_vec())
                    } else {
                        Cow::Borrowed(&[][..])
                    };
                    ValueBuf::done(shape, kept)
                }
                Located::Payload { ptr, size } => {
                    let payload = if size == 0 || self.held(ptr, size) {
                        self.range(ptr, u64::from(size), "item")?
                    } else {
                        fetched.next().unwrap_or_default()
                    };
                    self.decode(&place, slot, ptr, size, payload)?
                }
            });
        }
        Ok(values)
    }

    /// The bytes `[offset, offset + len)`: borrowed from input in memory or from what the
    /// cache holds, else read and owned (not kept). Empty ranges read nothing.
    fn range(&self, offset: u64, len: u64, what: &'static str) -> Result<Cow<'d, [u8]>> {
        if len == 0 {
            // An empty section's pointer is not checked: it may lie anywhere.
            return Ok(Cow::Borrowed(&[]));
        }
        if let Some(all) = self.whole {
            return Ok(Cow::Borrowed(bytes::slice(all, offset, len, what)?));
        }
        Ok(self.data.payload(offset, len, what)?)
    }

    /// The slot at `place`.
    fn slot_bytes(&self, place: &Place, hot: &Hot) -> Result<Cow<'d, [u8]>> {
        if self.whole.is_some() {
            return self.slot_in_table(place, hot).map(Cow::Borrowed);
        }
        self.range(place.offset, to_u64(hot.len), "metadata slot")
    }

    /// True when `[ptr, ptr + size)` is read without a request.
    fn held(&self, ptr: u64, size: u32) -> bool {
        self.whole.is_some()
            || ptr
                .checked_add(u64::from(size))
                .is_some_and(|end| end <= self.head_len)
    }

    /// The per-type rules and the item CRC, on a payload read by range.
    fn decode(
        &self,
        place: &Place,
        slot: &[u8],
        ptr: u64,
        size: u32,
        payload: Cow<'d, [u8]>,
    ) -> Result<ValueBuf<'d>> {
        if usize::try_from(size).ok() != Some(payload.len()) {
            // The source returned another length than asked for.
            return Err(binfmt_core::Error::truncated(
                "item",
                ptr,
                u64::from(size),
                to_u64(payload.len()),
            )
            .into());
        }
        let field = self.catalog.field(place.field)?;
        let mut text = false;
        let value = slot::interpret(field.field_type_ref(), slot, &payload, |_| {
            // Checked below, once, while the payload becomes text.
            text = true;
            Ok("")
        })
        .map_err(|problem| place.bad(problem))?;
        let shape = Shape::of(&value);
        let value = if text {
            ValueBuf::text(
                shape,
                into_text(payload).map_err(|problem| place.bad(problem))?,
            )
        } else {
            ValueBuf::raw(shape, payload)
        };
        // After the slot's rules, as the slice access does.
        if self.item_crcs && size > 0 {
            let (_, entry) = catalog::entry_for(self.alloc, place, ptr, size)?;
            catalog::check_item_crc(entry, place, ptr, value.payload())?;
        }
        Ok(value)
    }
}

impl<'d, D: Data<'d>> Dataset<'d, D> {
    #[cfg(feature = "std")]
    /// The view again from what an owned reader kept: no I/O (the bytes it needs are in
    /// memory, or `alloc`, kept since opening) and no checks again.
    pub(crate) fn from_parts(
        data: D,
        header: Header,
        catalog: &'d Catalog,
        file_size: u64,
        head_len: u64,
        alloc: &'d [AllocEntry],
        item_crcs: bool,
    ) -> Self {
        let whole = data.whole();
        let (metadata, alloc) = match whole {
            Some(all) => {
                let held = |range: &Range<u64>| -> &'d [u8] {
                    if range.is_empty() {
                        return &[];
                    }
                    bytes::slice(all, range.start, range.end - range.start, "").unwrap_or_default()
                };
                (
                    held(&catalog.metadata),
                    catalog::entries(held(&catalog.alloc), catalog.alloc.start).unwrap_or_default(),
                )
            }
            None => (&[][..], alloc),
        };
        Dataset {
            data,
            whole,
            header,
            row_len: usize::try_from(catalog.row_size).unwrap_or(usize::MAX),
            catalog: Cow::Borrowed(catalog),
            file_size,
            head_len,
            metadata,
            alloc,
            item_crcs,
        }
    }

    #[cfg(feature = "std")]
    /// What an owned reader keeps: the header, the catalog, the file size, the head's
    /// length, the allocation table (held when item CRCs are checked) and whether item
    /// CRCs are checked.
    pub(crate) fn into_parts(self) -> (Header, Catalog, u64, u64, &'d [AllocEntry], bool) {
        (
            self.header,
            self.catalog.into_owned(),
            self.file_size,
            self.head_len,
            if self.whole.is_none() && self.item_crcs {
                self.alloc
            } else {
                &[]
            },
            self.item_crcs,
        )
    }

    /// The header.
    #[must_use]
    pub const fn header(&self) -> &Header {
        &self.header
    }

    /// The file's size, as the input reported it at open.
    #[must_use]
    pub const fn file_size(&self) -> u64 {
        self.file_size
    }

    /// The number of samples.
    #[must_use]
    pub const fn num_samples(&self) -> u64 {
        self.header.num_samples()
    }

    catalog::field_getters!();

    /// Bytes per metadata row.
    #[must_use]
    pub fn row_size(&self) -> u64 {
        self.catalog.row_size
    }

    /// The data region's bounds `[start, end)` (absolute offsets).
    #[must_use]
    pub fn data_region(&self) -> (u64, u64) {
        (self.catalog.data.start, self.catalog.data.end)
    }

    /// True when accesses check item CRCs (a checksummed file opened with
    /// [`ReadOptions::item_checksums`] on).
    #[must_use]
    pub const fn checks_item_crcs(&self) -> bool {
        self.item_crcs
    }

    /// The bytes the view reads from.
    #[must_use]
    pub fn data(&self) -> D {
        self.data
    }

    /// What a reader should know that does not make the file invalid: a minor version
    /// newer than this library's ([`ErrorKind::NewerMinorVersion`]), and fields of
    /// reserved or unknown types ([`ErrorKind::UnknownType`]).
    ///
    /// [`ErrorKind::NewerMinorVersion`]: crate::ErrorKind::NewerMinorVersion
    /// [`ErrorKind::UnknownType`]: crate::ErrorKind::UnknownType
    pub fn warnings(&self) -> impl Iterator<Item = Error> + '_ {
        warnings(&self.header, &self.catalog)
    }

    /// Sample `index`.
    ///
    /// # Errors
    /// [`ErrorKind::SampleIndex`](crate::ErrorKind::SampleIndex) when there is no such
    /// sample.
    pub fn sample(&self, index: u64) -> Result<Sample<'_, 'd, D>> {
        if index < self.num_samples() {
            Ok(Sample {
                dataset: self,
                index,
            })
        } else {
            Err(binfmt_core::Kind::unlocated(
                crate::ErrorKind::SampleIndex {
                    index,
                    num_samples: self.num_samples(),
                },
            ))
        }
    }

    /// Every sample, in order.
    pub fn samples(&self) -> impl Iterator<Item = Sample<'_, 'd, D>> + '_ {
        (0..self.num_samples()).map(move |index| Sample {
            dataset: self,
            index,
        })
    }

    /// The slot of `field` in `sample` in the metadata table in memory.
    #[inline]
    fn slot_in_table(&self, place: &Place, hot: &Hot) -> Result<&'d [u8]> {
        // The table is N · row_size bytes and the slot lies in a row: these fit usize
        // and the slice.
        let row = usize::try_from(place.sample)
            .ok()
            .and_then(|s| s.checked_mul(self.row_len));
        Ok(row
            .and_then(|row| {
                let start = row.checked_add(hot.offset)?;
                self.metadata.get(start..start.checked_add(hot.len)?)
            })
            .ok_or_else(|| {
                binfmt_core::Error::truncated("metadata slot", place.offset, to_u64(hot.len), 0)
            })?)
    }

    pub(crate) fn catalog(&self) -> &Catalog {
        &self.catalog
    }
}

/// The warnings of a file: the header's, then the fields'.
pub(crate) fn warnings<'c>(
    header: &Header,
    catalog: &'c Catalog,
) -> impl Iterator<Item = Error> + 'c {
    header.warning().into_iter().chain(catalog.warnings())
}

/// The slot of `hot`'s field in a row read whole.
fn row_slot<'r>(row: &'r [u8], hot: &Hot) -> &'r [u8] {
    hot.offset
        .checked_add(hot.len)
        .and_then(|end| row.get(hot.offset..end))
        .unwrap_or_default()
}

/// The zero-copy accesses of a dataset in memory.
impl<'a> Dataset<'a> {
    /// Opens a dataset with every check of [`ReadOptions::new`].
    ///
    /// # Errors
    /// Any problem of the open checklist: header ([`Header::parse`]), descriptors
    /// (names, metadata sizes, NDARRAY arguments), sections (bounds, order, overlap,
    /// allocation table length), the index CRC and the allocation table of a checksummed
    /// file.
    pub fn parse(data: &'a [u8]) -> Result<Dataset<'a>> {
        Dataset::from_data_with(data, &ReadOptions::new())
    }

    /// Opens a dataset, running the optional checks that `options` asks for.
    ///
    /// # Errors
    /// As for [`Dataset::parse`].
    pub fn parse_with(data: &'a [u8], options: &ReadOptions) -> Result<Dataset<'a>> {
        Dataset::from_data_with(data, options)
    }

    /// Descriptors and sections (steps 4 and 5 of the checklist), without CRCs.
    pub(crate) fn open(data: &'a [u8], header: Header) -> Result<Dataset<'a>> {
        Dataset::open_inner(data, header, 0, true)
    }

    /// The whole input.
    #[must_use]
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.data
    }

    /// The allocation table, in file order (empty in files without payloads).
    #[must_use]
    pub const fn alloc_table(&self) -> &'a [AllocEntry] {
        self.alloc
    }

    /// The metadata table: N rows of [`Dataset::row_size`] bytes.
    #[must_use]
    pub const fn metadata_table(&self) -> &'a [u8] {
        self.metadata
    }

    /// The raw metadata slot of `field` in `sample` (metadata_size bytes) and its
    /// absolute offset.
    ///
    /// # Errors
    /// [`ErrorKind::FieldIndex`](crate::ErrorKind::FieldIndex),
    /// [`ErrorKind::SampleIndex`](crate::ErrorKind::SampleIndex).
    pub fn slot(&self, sample: u64, field: usize) -> Result<(&'a [u8], u64)> {
        self.slot_at(sample, field)
            .map(|(slot, place, _)| (slot, place.offset))
    }

    /// The value of `field` in `sample`.
    ///
    /// Checks the slot's rules (pointer and size, per-type consistency, UTF-8 of text)
    /// and, when enabled, the item CRC.
    ///
    /// # Errors
    /// [`ErrorKind::SampleIndex`], [`ErrorKind::FieldIndex`], [`ErrorKind::BadValue`],
    /// [`ErrorKind::ItemOutsideData`], and for CRC checks
    /// [`ErrorKind::MissingAllocEntry`], [`ErrorKind::AllocSizeMismatch`],
    /// [`ErrorKind::ItemChecksum`].
    ///
    /// [`ErrorKind::SampleIndex`]: crate::ErrorKind::SampleIndex
    /// [`ErrorKind::FieldIndex`]: crate::ErrorKind::FieldIndex
    /// [`ErrorKind::BadValue`]: crate::ErrorKind::BadValue
    /// [`ErrorKind::ItemOutsideData`]: crate::ErrorKind::ItemOutsideData
    /// [`ErrorKind::MissingAllocEntry`]: crate::ErrorKind::MissingAllocEntry
    /// [`ErrorKind::AllocSizeMismatch`]: crate::ErrorKind::AllocSizeMismatch
    /// [`ErrorKind::ItemChecksum`]: crate::ErrorKind::ItemChecksum
    #[inline]
    pub fn value(&self, sample: u64, field: usize) -> Result<Value<'a>> {
        let (slot, place, located) = self.locate(sample, field)?;
        let (ptr, size) = match located {
            Located::Done(value) => return Ok(value),
            Located::Payload { ptr, size } => (ptr, size),
        };
        let payload = self.payload(ptr, size);
        let field = self.catalog.field(field)?;
        let value = slot::interpret(field.field_type_ref(), slot, payload, slot::utf8)
            .map_err(|problem| place.bad(problem))?;
        if self.item_crcs && size > 0 {
            let (_, entry) = catalog::entry_for(self.alloc, &place, ptr, size)?;
            catalog::check_item_crc(entry, &place, ptr, payload)?;
        }
        Ok(value)
    }

    /// The value of the field named `name` of sample `sample`.
    ///
    /// # Errors
    /// As for [`Dataset::value`]; `Ok(None)` when there is no such field.
    pub fn value_by_name(&self, sample: u64, name: &str) -> Result<Option<Value<'a>>> {
        match self.field_by_name(name) {
            Some(f) => self.value(sample, f.index()).map(Some),
            None => Ok(None),
        }
    }

    /// The slot of `field` in `sample`, where it is, and what it means before its
    /// payload is read.
    #[inline]
    pub(crate) fn locate(
        &self,
        sample: u64,
        field: usize,
    ) -> Result<(&'a [u8], Place, Located<'a>)> {
        let (slot, place, hot) = self.slot_at(sample, field)?;
        let located = slot::locate(&hot, slot, &self.catalog.data, &place)?;
        Ok((slot, place, located))
    }

    #[inline]
    fn slot_at(&self, sample: u64, field: usize) -> Result<(&'a [u8], Place, Hot)> {
        let (place, hot) = self.catalog.slot(self.num_samples(), sample, field)?;
        let slot = self.slot_in_table(&place, &hot)?;
        Ok((slot, place, hot))
    }

    /// The payload `[ptr, ptr + size)`, which [`slot::locate`] checked to lie inside the
    /// data region, itself inside the input.
    #[inline]
    pub(crate) fn payload(&self, ptr: u64, size: u32) -> &'a [u8] {
        if size == 0 {
            return &[];
        }
        let start = usize::try_from(ptr).unwrap_or(usize::MAX);
        let end = usize::try_from(u64::from(size))
            .ok()
            .and_then(|n| start.checked_add(n))
            .unwrap_or(usize::MAX);
        self.data.get(start..end).unwrap_or_default()
    }
}

/// One sample of a [`Dataset`].
#[derive(Debug, Clone, Copy)]
pub struct Sample<'v, 'd, D = &'d [u8]> {
    dataset: &'v Dataset<'d, D>,
    index: u64,
}

impl<'v, 'd, D: Data<'d>> Sample<'v, 'd, D> {
    /// The sample's index.
    #[must_use]
    pub const fn index(&self) -> u64 {
        self.index
    }
}

impl<'v, 'd, D: Data<'d>> Sample<'v, 'd, D>
where
    Error: From<D::Error>,
{
    /// The value of field `field`, as [`Dataset::fetch`].
    ///
    /// # Errors
    /// As for [`Dataset::fetch`].
    pub fn fetch(&self, field: usize) -> Result<ValueBuf<'d>> {
        self.dataset.fetch(self.index, field)
    }

    /// The value of the field named `name`, as [`Dataset::fetch_by_name`].
    ///
    /// # Errors
    /// As for [`Dataset::fetch`].
    pub fn fetch_by_name(&self, name: &str) -> Result<Option<ValueBuf<'d>>> {
        self.dataset.fetch_by_name(self.index, name)
    }
}

impl<'v, 'a> Sample<'v, 'a> {
    /// The value of field `field`.
    ///
    /// # Errors
    /// As for [`Dataset::value`].
    pub fn value(&self, field: usize) -> Result<Value<'a>> {
        self.dataset.value(self.index, field)
    }

    /// The value of the field named `name`; `Ok(None)` when there is no such field.
    ///
    /// # Errors
    /// As for [`Dataset::value`].
    pub fn get(&self, name: &str) -> Result<Option<Value<'a>>> {
        self.dataset.value_by_name(self.index, name)
    }

    /// Every value, in field order.
    pub fn values(&self) -> impl Iterator<Item = Result<Value<'a>>> + 'v {
        let (dataset, index) = (self.dataset, self.index);
        (0..dataset.fields().len()).map(move |f| dataset.value(index, f))
    }
}
