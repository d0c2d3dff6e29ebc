//! The ranged reader: an MLDF file read through a [`ByteSource`] (a file by `pread`, an
//! object store by range requests), fetching only what each access needs.
//!
//! The request plan (docs/mldf.md, "Reading by range"):
//!
//! | step | requests |
//! |---|---|
//! | open | 1: the first [`HEAD_SIZE`] bytes (magic, header, and the descriptors of any file with at most 314 fields), plus 1 for the descriptors when they lie beyond it |
//! | open, checksummed, index CRC on | + the metadata table and the allocation table, in pieces of at most [`PIECE_SIZE`] |
//! | open, checksummed, item CRCs on | + the allocation table (kept: an item's entry is found by binary search) |
//! | [`Reader::value`] | 1: the slot, then 1 for the payload when the field has one; none for bytes inside the head |
//! | [`Reader::sample`] | 1: the row, then one batch ([`ByteSource::read_ranges`]) for all its payloads |

use core::ops::Range;
use std::borrow::Cow;
use std::string::String;
use std::vec::Vec;

use binfmt_core::IoError;
use binfmt_core::bytes::{self, to_u64};
use binfmt_core::source::{ByteSource, read_exact};

use crate::catalog::{self, Catalog};
use crate::error::{Error, Result, ValueProblem};
use crate::field::Field;
use crate::header::Header;
use crate::options::ReadOptions;
use crate::raw::AllocEntry;
use crate::slot::{self, Hot, Located, Place, Shape};
use crate::value::Value;

/// How many bytes [`Reader::open`] asks for first: the magic, the header and the
/// descriptors of up to 314 fields, in one request. A remote request costs its latency
/// whether it returns 73 bytes or 64 KiB.
pub const HEAD_SIZE: u64 = 64 * 1024;

/// The largest range the reader asks for at once when it reads a whole section (the
/// metadata table and allocation table for the index CRC), so that memory stays bounded
/// however large the section is.
pub const PIECE_SIZE: u64 = 16 * 1024 * 1024;

/// An MLDF file read by ranges through a [`ByteSource`].
///
/// It runs the same checks as [`Dataset`](crate::Dataset) (the same functions), but
/// fetches only the header and descriptors at open and, for each access, the slot and
/// the payload it needs. Values come back as [`ValueBuf`]s, which own (or, for sources in
/// memory, borrow) their bytes.
///
/// ```
/// use binfmt_core::source::Counting;
/// use mldf::{FieldType, Reader, Schema, Text, Value, Writer, WriterOptions};
/// # fn main() -> Result<(), mldf::Error> {
/// let schema = Schema::new().field("label", FieldType::Int).field("text", FieldType::TextRaw);
/// let options = WriterOptions::new().num_samples(1); // canonical: the rows come first
/// let mut writer = Writer::new(std::io::Cursor::new(Vec::new()), &schema, options)?;
/// writer.push(&[Value::Int(7), Value::Text(Text::Utf8("hi"))])?;
/// let file = writer.finish()?.into_inner(); // 2 MiB pages: the payload is far from the head
///
/// let source = Counting::new(file);
/// let reader = Reader::open(&source)?;
/// assert_eq!(source.stats().requests, 1); // magic, header and descriptors
/// assert_eq!(reader.value(0, 1)?.value(), Value::Text(Text::Utf8("hi")));
/// assert_eq!(source.stats().requests, 2); // the payload (the row was in the head)
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Reader<S> {
    source: S,
    file_size: u64,
    header: Header,
    catalog: Catalog,
    /// The first bytes of the file (the first request), for the later reads that fall
    /// inside them. Empty when the source is in memory.
    head: Vec<u8>,
    /// The allocation table, when item CRCs are checked.
    alloc: Vec<AllocEntry>,
    item_crcs: bool,
}

impl<S: ByteSource> Reader<S> {
    /// Opens the file with every check of [`ReadOptions::new`].
    ///
    /// # Errors
    /// As [`Dataset::parse`](crate::Dataset::parse), and [`ErrorKind::Io`](crate::ErrorKind::Io) when the
    /// source fails.
    pub fn open(source: S) -> Result<Self> {
        Reader::open_with(source, &ReadOptions::new())
    }

    /// Opens the file, running the optional checks `options` asks for.
    ///
    /// # Errors
    /// As [`Reader::open`].
    pub fn open_with(source: S, options: &ReadOptions) -> Result<Self> {
        let head = match source.as_slice() {
            Some(_) => Vec::new(),
            None => source
                .read_head(HEAD_SIZE)
                .map_err(IoError::from)?
                .into_owned(),
        };
        // The header is checked on the first bytes before the length is asked for: a
        // stream learns its length by reading to its end, and `/dev/zero` has none.
        let header = Header::parse(source.as_slice().unwrap_or(&head))?;
        let file_size = source.len().map_err(IoError::from)?;
        let descriptors = match catalog::descriptor_range(&header, file_size)? {
            Some(range) => fetch(&source, &head, &range, "field descriptors")?.into_owned(),
            None => Vec::new(),
        };
        let catalog = Catalog::build(&header, &descriptors, file_size)?;
        let checksummed = header.is_checksummed();
        let index_crc = checksummed && options.checks_index();
        let item_crcs = checksummed && options.checks_items();
        let mut alloc = Vec::new();
        if index_crc || item_crcs {
            let table = fetch(&source, &head, &catalog.alloc, "allocation table")?;
            if index_crc {
                let mut hasher = crc32fast::Hasher::new();
                hasher.update(&descriptors);
                // The metadata table in pieces, so that memory stays bounded.
                let mut at = catalog.metadata.start;
                while at < catalog.metadata.end {
                    let end = catalog.metadata.end.min(at.saturating_add(PIECE_SIZE));
                    hasher.update(&fetch(&source, &head, &(at..end), "metadata table")?);
                    at = end;
                }
                hasher.update(&table);
                catalog::check_index_crc(&header, hasher.finalize())?;
            }
            if item_crcs {
                let entries = catalog::entries(&table, catalog.alloc.start)?;
                catalog::first_entry_problem(entries, catalog.alloc.start, &catalog.data)?;
                alloc = entries.to_vec();
            }
        }
        Ok(Reader {
            source,
            file_size,
            header,
            catalog,
            head,
            alloc,
            item_crcs,
        })
    }

    /// The bytes of `range`: from memory, from the head, or from the source.
    fn fetch(&self, range: &Range<u64>, what: &'static str) -> Result<Cow<'_, [u8]>> {
        fetch(&self.source, &self.head, range, what)
    }

    /// The header.
    #[must_use]
    pub const fn header(&self) -> &Header {
        &self.header
    }

    /// The file's size, as the source reported it at open.
    #[must_use]
    pub const fn file_size(&self) -> u64 {
        self.file_size
    }

    /// The number of samples.
    #[must_use]
    pub const fn num_samples(&self) -> u64 {
        self.header.num_samples()
    }

    /// The fields, in descriptor order.
    #[must_use]
    pub fn fields(&self) -> &[Field] {
        &self.catalog.fields
    }

    /// Field `index`.
    ///
    /// # Errors
    /// [`ErrorKind::FieldIndex`](crate::ErrorKind::FieldIndex) when there is no such field.
    pub fn field(&self, index: usize) -> Result<&Field> {
        self.catalog.field(index)
    }

    /// The field named `name` (compared by bytes), if any.
    #[must_use]
    pub fn field_by_name(&self, name: &str) -> Option<&Field> {
        self.catalog.field_by_name(name.as_bytes())
    }

    /// Bytes per metadata row.
    #[must_use]
    pub const fn row_size(&self) -> u64 {
        self.catalog.row_size
    }

    /// The data region's bounds `[start, end)` (absolute offsets).
    #[must_use]
    pub const fn data_region(&self) -> (u64, u64) {
        (self.catalog.data.start, self.catalog.data.end)
    }

    /// True when accesses check item CRCs.
    #[must_use]
    pub const fn checks_item_crcs(&self) -> bool {
        self.item_crcs
    }

    /// What a reader should know that does not make the file invalid (see
    /// [`Dataset::warnings`](crate::Dataset::warnings)).
    pub fn warnings(&self) -> impl Iterator<Item = Error> + '_ {
        self.header
            .warning()
            .into_iter()
            .chain(self.catalog.warnings())
    }

    /// The source.
    pub const fn source(&self) -> &S {
        &self.source
    }

    /// The source back.
    pub fn into_source(self) -> S {
        self.source
    }

    /// The value of `field` in `sample`: at most two requests, the slot and then the
    /// payload (none for bytes inside the first [`HEAD_SIZE`] bytes).
    ///
    /// # Errors
    /// As [`Dataset::value`](crate::Dataset::value); [`ErrorKind::Io`](crate::ErrorKind::Io) when the source
    /// fails; a `Truncated` error when the file is shorter than it was at open.
    pub fn value(&self, sample: u64, field: usize) -> Result<ValueBuf<'_>> {
        let (place, hot) = self.catalog.slot(self.num_samples(), sample, field)?;
        let slot = self.fetch(
            &(place.offset..place.offset + to_u64(hot.len)),
            "metadata slot",
        )?;
        match slot::locate(&hot, &slot, &self.catalog.data, &place)? {
            Located::Done(value) => Ok(ValueBuf::done(Shape::of(&value), slot)),
            Located::Payload { ptr, size } => {
                let payload = if size == 0 {
                    Cow::Borrowed(&[][..])
                } else {
                    self.fetch(&(ptr..ptr + u64::from(size)), "item")?
                };
                self.decode(&place, &slot, ptr, size, payload)
            }
        }
    }

    /// The value of the field named `name` of sample `sample`; `Ok(None)` when there is
    /// no such field.
    ///
    /// # Errors
    /// As [`Reader::value`].
    pub fn value_by_name(&self, sample: u64, name: &str) -> Result<Option<ValueBuf<'_>>> {
        match self.field_by_name(name) {
            Some(f) => self.value(sample, f.index()).map(Some),
            None => Ok(None),
        }
    }

    /// Every value of `sample`, in field order: one request for the row, then the
    /// payloads in one batch.
    ///
    /// # Errors
    /// As [`Reader::value`], for the first field that fails.
    pub fn sample(&self, sample: u64) -> Result<Vec<ValueBuf<'_>>> {
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
        let row = self.fetch(&(start..start + self.catalog.row_size), "metadata row")?;
        let mut located = Vec::with_capacity(num_fields);
        let mut wanted = Vec::new();
        for field in 0..num_fields {
            let (place, hot) = self.catalog.slot(self.num_samples(), sample, field)?;
            let slot = row_slot(&row, &hot);
            let found = slot::locate(&hot, slot, &self.catalog.data, &place)?;
            if let Located::Payload { ptr, size } = found
                && size > 0
                && !self.in_memory(ptr, size)
            {
                wanted.push(ptr..ptr + u64::from(size));
            }
            located.push((place, hot, found));
        }
        let mut fetched = self
            .source
            .read_ranges(&wanted)
            .map_err(IoError::from)?
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
                    let payload = if size == 0 {
                        Cow::Borrowed(&[][..])
                    } else if self.in_memory(ptr, size) {
                        self.fetch(&(ptr..ptr + u64::from(size)), "item")?
                    } else {
                        fetched.next().unwrap_or_default()
                    };
                    self.decode(&place, slot, ptr, size, payload)?
                }
            });
        }
        Ok(values)
    }

    /// True when `[ptr, ptr + size)` is read without a request.
    fn in_memory(&self, ptr: u64, size: u32) -> bool {
        self.source.as_slice().is_some()
            || ptr
                .checked_add(u64::from(size))
                .is_some_and(|end| end <= to_u64(self.head.len()))
    }

    /// The per-type rules and the item CRC, on a fetched payload.
    fn decode<'r>(
        &'r self,
        place: &Place,
        slot: &[u8],
        ptr: u64,
        size: u32,
        payload: Cow<'r, [u8]>,
    ) -> Result<ValueBuf<'r>> {
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
        let value = ValueBuf {
            shape: Shape::of(&value),
            bytes: if text {
                Bytes::Text(into_text(payload).map_err(|problem| place.bad(problem))?)
            } else {
                Bytes::Raw(payload)
            },
        };
        // After the slot's rules, as the slice reader does.
        if self.item_crcs && size > 0 {
            let (_, entry) = catalog::entry_for(&self.alloc, place, ptr, size)?;
            catalog::check_item_crc(entry, place, ptr, value.payload())?;
        }
        Ok(value)
    }
}

/// The slot of `hot`'s field in a fetched row.
fn row_slot<'r>(row: &'r [u8], hot: &Hot) -> &'r [u8] {
    hot.offset
        .checked_add(hot.len)
        .and_then(|end| row.get(hot.offset..end))
        .unwrap_or_default()
}

/// The bytes of `range`: from a source in memory, from the `head` (the first bytes of
/// the file, already fetched), or from the source.
fn fetch<'s, S: ByteSource>(
    source: &'s S,
    head: &'s [u8],
    range: &Range<u64>,
    what: &'static str,
) -> Result<Cow<'s, [u8]>> {
    let len = range.end.saturating_sub(range.start);
    if len == 0 {
        // An empty section's pointer is not checked: it may lie anywhere.
        return Ok(Cow::Borrowed(&[]));
    }
    if let Some(all) = source.as_slice() {
        return Ok(Cow::Borrowed(bytes::slice(all, range.start, len, what)?));
    }
    if let (Ok(start), Ok(end)) = (usize::try_from(range.start), usize::try_from(range.end))
        && let Some(inside) = head.get(start..end)
    {
        return Ok(Cow::Borrowed(inside));
    }
    Ok(read_exact(source, range.start, len, what)?)
}

/// Checked text, without copying the bytes.
fn into_text(payload: Cow<'_, [u8]>) -> core::result::Result<Cow<'_, str>, ValueProblem> {
    match payload {
        Cow::Borrowed(b) => slot::utf8(b).map(Cow::Borrowed),
        Cow::Owned(v) => String::from_utf8(v)
            .map(Cow::Owned)
            .map_err(|e| ValueProblem::NotUtf8 {
                valid_up_to: e.utf8_error().valid_up_to(),
            }),
    }
}

/// A value read by a [`Reader`], with the bytes it was decoded from: fetched from the
/// source (owned), or borrowed from the reader (a source in memory, the head).
///
/// Its rules were checked when it was read; [`ValueBuf::value`] hands out the
/// [`Value`] without checking anything again.
#[derive(Debug, Clone)]
pub struct ValueBuf<'r> {
    shape: Shape,
    bytes: Bytes<'r>,
}

#[derive(Debug, Clone)]
enum Bytes<'r> {
    Raw(Cow<'r, [u8]>),
    /// JSON and UTF-8 text, checked once.
    Text(Cow<'r, str>),
}

impl<'r> ValueBuf<'r> {
    /// A value that needs no payload: its slot is kept only for unknown types.
    fn done(shape: Shape, slot: Cow<'r, [u8]>) -> Self {
        let bytes = if shape == Shape::Unknown {
            Bytes::Raw(slot)
        } else if shape.is_text() {
            Bytes::Text(Cow::Borrowed(""))
        } else {
            Bytes::Raw(Cow::Borrowed(&[]))
        };
        ValueBuf { shape, bytes }
    }

    /// The value.
    #[must_use]
    pub fn value(&self) -> Value<'_> {
        match &self.bytes {
            Bytes::Raw(b) => self.shape.with(b, ""),
            Bytes::Text(t) => self.shape.with(t.as_bytes(), t),
        }
    }

    /// The payload's bytes (an unknown type's slot; empty for null, INT and FLOAT).
    #[must_use]
    pub fn payload(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Raw(b) => b,
            Bytes::Text(t) => t.as_bytes(),
        }
    }

    /// The payload's bytes, without copying them.
    #[must_use]
    pub fn into_payload(self) -> Cow<'r, [u8]> {
        match self.bytes {
            Bytes::Raw(b) => b,
            Bytes::Text(Cow::Borrowed(t)) => Cow::Borrowed(t.as_bytes()),
            Bytes::Text(Cow::Owned(t)) => Cow::Owned(t.into_bytes()),
        }
    }
}

impl PartialEq for ValueBuf<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.value() == other.value()
    }
}
