//! The slice reader: a zero-copy view of a whole MLDF file with O(1) access to any value.

use binfmt_core::bytes::{self, to_u64};

use crate::catalog::{self, Catalog};
use crate::error::{Error, Result};
use crate::field::Field;
use crate::header::Header;
use crate::options::ReadOptions;
use crate::raw::AllocEntry;
use crate::slot::{self, Located, Place};
use crate::value::Value;

/// A parsed MLDF file: the header, the fields, and zero-copy views of the metadata table,
/// the data region and the allocation table.
///
/// Everything structural is checked once by [`Dataset::parse`]; each access then checks
/// only the slot it reads and its payload (O(1), the payload's UTF-8 and CRC aside).
///
/// ```
/// use mldf::{Dataset, FieldType, Schema, Text, Value, Writer, WriterOptions};
/// # fn main() -> Result<(), mldf::Error> {
/// let schema = Schema::new().field("label", FieldType::Int).field("text", FieldType::TextRaw);
/// let mut writer = Writer::new(std::io::Cursor::new(Vec::new()), &schema, WriterOptions::new())?;
/// writer.push(&[Value::Int(7), Value::Text(Text::Utf8("hi"))])?;
/// let file = writer.finish()?.into_inner();
///
/// let dataset = Dataset::parse(&file)?;
/// assert_eq!(dataset.value(0, 1)?, Value::Text(Text::Utf8("hi")));
/// assert_eq!(dataset.sample(0)?.get("label")?, Some(Value::Int(7)));
/// assert!(dataset.value(1, 0).is_err()); // there is one sample
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Dataset<'a> {
    data: &'a [u8],
    header: Header,
    catalog: Catalog,
    metadata: &'a [u8],
    /// row_size as usize (a row of the metadata slice, so it fits when N > 0).
    row_len: usize,
    alloc: &'a [AllocEntry],
    item_crcs: bool,
}

impl<'a> Dataset<'a> {
    /// Opens a dataset with every check of [`ReadOptions::new`].
    ///
    /// # Errors
    /// Any problem of the open checklist: header ([`Header::parse`]), descriptors
    /// (names, metadata sizes, NDARRAY arguments), sections (bounds, order, overlap,
    /// allocation table length), the index CRC and the allocation table of a checksummed
    /// file.
    pub fn parse(data: &'a [u8]) -> Result<Dataset<'a>> {
        Dataset::parse_with(data, &ReadOptions::new())
    }

    /// Opens a dataset, running the optional checks that `options` asks for.
    ///
    /// # Errors
    /// As for [`Dataset::parse`].
    pub fn parse_with(data: &'a [u8], options: &ReadOptions) -> Result<Dataset<'a>> {
        let header = Header::parse(data)?;
        let dataset = Dataset::open(data, header)?;
        let checksummed = header.is_checksummed();
        if checksummed && options.checks_index() {
            dataset.check_index_crc()?;
        }
        let item_crcs = checksummed && options.checks_items();
        if item_crcs {
            catalog::first_entry_problem(
                dataset.alloc,
                dataset.catalog.alloc.start,
                &dataset.catalog.data,
            )?;
        }
        Ok(Dataset {
            item_crcs,
            ..dataset
        })
    }

    /// Descriptors and sections (steps 4 and 5 of the checklist), without CRCs.
    pub(crate) fn open(data: &'a [u8], header: Header) -> Result<Dataset<'a>> {
        let file_size = bytes::len_u64(data);
        let descriptors = match catalog::descriptor_range(&header, file_size)? {
            Some(range) => section(data, &range, "field descriptors")?,
            None => &[],
        };
        let catalog = Catalog::build(&header, descriptors, file_size)?;
        let metadata = section(data, &catalog.metadata, "metadata table")?;
        let alloc = catalog::entries(
            section(data, &catalog.alloc, "allocation table")?,
            catalog.alloc.start,
        )?;
        Ok(Dataset {
            data,
            header,
            row_len: usize::try_from(catalog.row_size).unwrap_or(usize::MAX),
            catalog,
            metadata,
            alloc,
            item_crcs: false,
        })
    }

    /// Step 6 on this file.
    pub(crate) fn check_index_crc(&self) -> Result<()> {
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(section(
            self.data,
            &self.catalog.descriptors,
            "field descriptors",
        )?);
        hasher.update(self.metadata);
        hasher.update(zerocopy::IntoBytes::as_bytes(self.alloc));
        catalog::check_index_crc(&self.header, hasher.finalize())
    }

    /// The header.
    #[must_use]
    pub const fn header(&self) -> &Header {
        &self.header
    }

    /// The whole input.
    #[must_use]
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.data
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
    /// [`ErrorKind::FieldIndex`](crate::ErrorKind::FieldIndex) when there is no such
    /// field.
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

    /// True when accesses check item CRCs (a checksummed file opened with
    /// [`ReadOptions::item_checksums`] on).
    #[must_use]
    pub const fn checks_item_crcs(&self) -> bool {
        self.item_crcs
    }

    /// What a reader should know that does not make the file invalid: a minor version
    /// newer than this library's ([`ErrorKind::NewerMinorVersion`]), and fields of
    /// reserved or unknown types ([`ErrorKind::UnknownType`]).
    ///
    /// [`ErrorKind::NewerMinorVersion`]: crate::ErrorKind::NewerMinorVersion
    /// [`ErrorKind::UnknownType`]: crate::ErrorKind::UnknownType
    pub fn warnings(&self) -> impl Iterator<Item = Error> + '_ {
        self.header
            .warning()
            .into_iter()
            .chain(self.catalog.warnings())
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

    /// Sample `index`.
    ///
    /// # Errors
    /// [`ErrorKind::SampleIndex`](crate::ErrorKind::SampleIndex) when there is no such
    /// sample.
    pub fn sample(&self, index: u64) -> Result<Sample<'_, 'a>> {
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
    pub fn samples(&self) -> impl Iterator<Item = Sample<'_, 'a>> + '_ {
        (0..self.num_samples()).map(move |index| Sample {
            dataset: self,
            index,
        })
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
    fn slot_at(&self, sample: u64, field: usize) -> Result<(&'a [u8], Place, slot::Hot)> {
        let (place, hot) = self.catalog.slot(self.num_samples(), sample, field)?;
        // The table is N · row_size bytes and the slot lies in a row: these fit usize
        // and the slice.
        let row = usize::try_from(sample)
            .ok()
            .and_then(|s| s.checked_mul(self.row_len));
        let slot = row
            .and_then(|row| {
                let start = row.checked_add(hot.offset)?;
                self.metadata.get(start..start.checked_add(hot.len)?)
            })
            .ok_or_else(|| {
                binfmt_core::Error::truncated("metadata slot", place.offset, to_u64(hot.len), 0)
            })?;
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

    pub(crate) const fn catalog(&self) -> &Catalog {
        &self.catalog
    }
}

/// The bytes of `range`, which the catalog checked to lie inside `data` unless it is
/// empty (an empty section's pointer is not checked, and may lie past the end).
fn section<'a>(
    data: &'a [u8],
    range: &core::ops::Range<u64>,
    what: &'static str,
) -> Result<&'a [u8]> {
    if range.is_empty() {
        return Ok(&[]);
    }
    Ok(bytes::slice(
        data,
        range.start,
        range.end - range.start,
        what,
    )?)
}

/// One sample of a [`Dataset`].
#[derive(Debug, Clone, Copy)]
pub struct Sample<'d, 'a> {
    dataset: &'d Dataset<'a>,
    index: u64,
}

impl<'d, 'a> Sample<'d, 'a> {
    /// The sample's index.
    #[must_use]
    pub const fn index(&self) -> u64 {
        self.index
    }

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
    pub fn values(&self) -> impl Iterator<Item = Result<Value<'a>>> + 'd {
        let (dataset, index) = (self.dataset, self.index);
        (0..dataset.fields().len()).map(move |f| dataset.value(index, f))
    }
}
