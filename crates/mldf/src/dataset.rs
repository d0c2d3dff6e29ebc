//! The reader: a zero-copy view of a whole MLDF file with O(1) access to any value.

use alloc::vec;
use alloc::vec::Vec;

use binfmt_core::bytes::{self, len_u64};
use zerocopy::IntoBytes;

use crate::error::{Error, Result, ValueProblem};
use crate::field::Field;
use crate::header::{ALLOC_ENTRY_SIZE, DESCRIPTOR_SIZE, DESCRIPTORS_OFFSET, Header, at};
use crate::raw::{AllocEntry, FieldDescriptor};
use crate::slot;
use crate::types::FieldType;
use crate::value::Value;

/// Which optional checks a [`Dataset`] runs on a checksummed file.
///
/// The header CRC is always checked. Both CRC checks below are on by default, as the
/// format recommends; turning them off makes opening O(F) and access free of CRC work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReadOptions {
    verify_index_crc: bool,
    verify_item_crcs: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            verify_index_crc: true,
            verify_item_crcs: true,
        }
    }
}

impl ReadOptions {
    /// Both CRC checks on.
    #[must_use]
    pub fn new() -> Self {
        ReadOptions::default()
    }

    /// Whether opening checks the index CRC (it reads the descriptors, the metadata
    /// table and the allocation table once).
    #[must_use]
    pub const fn verify_index_crc(mut self, on: bool) -> Self {
        self.verify_index_crc = on;
        self
    }

    /// Whether each access checks the CRC of the item it returns (a binary search of
    /// the allocation table and one pass over the payload). Opening then also checks the
    /// allocation table's order, which the search relies on.
    #[must_use]
    pub const fn verify_item_crcs(mut self, on: bool) -> Self {
        self.verify_item_crcs = on;
        self
    }
}

/// What an access needs of a field, kept small and together for the hot path.
#[derive(Debug, Clone, Copy)]
struct Hot {
    offset: usize,
    len: usize,
    kind: Kind,
    nullable: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    Float,
    Payload,
    Unknown,
}

/// A section of the file, for the overlap check.
#[derive(Clone, Copy)]
struct Section {
    name: &'static str,
    start: u64,
    end: u64,
}

/// A parsed MLDF file: the header, the fields, and zero-copy views of the metadata table,
/// the data region and the allocation table.
///
/// Everything structural is checked once by [`Dataset::parse`]; each access then checks
/// only the slot it reads and its payload (O(1), the payload's UTF-8 and CRC aside).
#[derive(Debug, Clone)]
pub struct Dataset<'a> {
    data: &'a [u8],
    header: Header,
    fields: Vec<Field<'a>>,
    by_name: Vec<(&'a [u8], usize)>,
    hot: Vec<Hot>,
    has_unknown_types: bool,
    row_size: u64,
    row_len: usize,
    metadata: &'a [u8],
    data_start: u64,
    data_end: u64,
    alloc: &'a [AllocEntry],
    alloc_ptr: u64,
    item_crcs: bool,
}

impl<'a> Dataset<'a> {
    /// Opens a dataset with the default [`ReadOptions`].
    ///
    /// # Errors
    /// Any problem of the open checklist: header ([`Header::parse`]), descriptors
    /// (names, metadata sizes, NDARRAY arguments), sections (bounds, order, overlap,
    /// allocation table length), the index CRC and the allocation table of a checksummed
    /// file.
    pub fn parse(data: &'a [u8]) -> Result<Dataset<'a>> {
        Dataset::parse_with(data, ReadOptions::default())
    }

    /// Opens a dataset with the given options.
    ///
    /// # Errors
    /// As for [`Dataset::parse`].
    pub fn parse_with(data: &'a [u8], options: ReadOptions) -> Result<Dataset<'a>> {
        let header = Header::parse(data)?;
        let dataset = Dataset::open(data, header)?;
        let checksummed = header.is_checksummed();
        if checksummed && options.verify_index_crc {
            dataset.check_index_crc()?;
        }
        if checksummed && options.verify_item_crcs {
            dataset.check_alloc_entries(&mut |e| Err(e))?;
        }
        Ok(Dataset {
            item_crcs: checksummed && options.verify_item_crcs,
            ..dataset
        })
    }

    /// Descriptors and sections (steps 4 and 5 of the checklist), without CRCs.
    fn open(data: &'a [u8], header: Header) -> Result<Dataset<'a>> {
        let file_size = len_u64(data);
        let num_fields = u64::from(header.num_fields());
        let num_samples = header.num_samples();
        if num_fields == 0 && num_samples > 0 {
            return Err(Error::NoFields {
                offset: at::NUM_SAMPLES,
                num_samples,
            });
        }

        let desc_ptr = header.field_desc_ptr();
        let descriptors: &[FieldDescriptor] = if num_fields > 0 {
            if desc_ptr < DESCRIPTORS_OFFSET {
                return Err(Error::PointerBeforeHeader {
                    offset: at::FIELD_DESC_PTR,
                    section: "field descriptors",
                    ptr: desc_ptr,
                });
            }
            bytes::read_table(data, desc_ptr, num_fields, "field descriptors")?
        } else {
            &[]
        };
        let newer_minor = header.compatibility().is_newer();
        let mut fields = Vec::with_capacity(descriptors.len());
        let mut row_size = 0u64;
        let mut has_unknown_types = false;
        for (index, desc) in descriptors.iter().enumerate() {
            let offset = desc_ptr.saturating_add(DESCRIPTOR_SIZE.saturating_mul(index as u64));
            let mut field = Field::parse(desc, index, offset, newer_minor)?;
            field.set_row_offset(row_size);
            has_unknown_types |= !field.type_id().is_defined();
            // At most 65,535 sizes below 2^32 each: the sum cannot overflow.
            row_size = row_size.saturating_add(u64::from(field.metadata_size()));
            fields.push(field);
        }
        let by_name = name_index(&fields)?;
        // Offsets within a row fit usize whenever there is a row in memory to index.
        let hot = fields
            .iter()
            .map(|f| Hot {
                offset: usize::try_from(f.row_offset()).unwrap_or(usize::MAX),
                len: usize::try_from(f.metadata_size()).unwrap_or(usize::MAX),
                kind: match f.field_type() {
                    FieldType::Int => Kind::Int,
                    FieldType::Float => Kind::Float,
                    FieldType::Other(_) => Kind::Unknown,
                    _ => Kind::Payload,
                },
                nullable: f.is_nullable(),
            })
            .collect();

        // Sections (step 5).
        let data_ptr = header.data_ptr();
        let alloc_ptr = header.alloc_table_ptr();
        for (ptr, section, offset) in [
            (data_ptr, "data region", at::DATA_PTR),
            (alloc_ptr, "allocation table", at::ALLOC_TABLE_PTR),
        ] {
            if ptr < DESCRIPTORS_OFFSET {
                return Err(Error::PointerBeforeHeader {
                    offset,
                    section,
                    ptr,
                });
            }
        }
        if data_ptr > alloc_ptr {
            return Err(Error::DataAfterAllocTable {
                offset: at::DATA_PTR,
                data_ptr,
                alloc_table_ptr: alloc_ptr,
            });
        }
        // The seed writer's files without payloads point both at or past EOF.
        let seed_form = alloc_ptr == data_ptr && data_ptr >= file_size;
        let alloc_len = if seed_form {
            0
        } else {
            let len = file_size
                .checked_sub(alloc_ptr)
                .ok_or(Error::AllocTablePastEnd {
                    offset: at::ALLOC_TABLE_PTR,
                    alloc_table_ptr: alloc_ptr,
                    file_size,
                })?;
            if len % ALLOC_ENTRY_SIZE != 0 {
                return Err(Error::AllocTableLength {
                    offset: alloc_ptr,
                    length: len,
                });
            }
            len
        };
        let limit = alloc_ptr.min(file_size);

        let desc_len = num_fields * DESCRIPTOR_SIZE;
        let desc_end = bytes::end(desc_ptr, desc_len, "field descriptors")?;
        let meta_ptr = header.metadata_ptr();
        let meta_len =
            bytes::size_of_table(num_samples, row_size, "metadata table", at::NUM_SAMPLES)?;
        let meta_end = bytes::end(meta_ptr, meta_len, "metadata table")?;
        let mut sections: Vec<Section> = Vec::with_capacity(4);
        for (section, start, end, offset) in [
            ("field descriptors", desc_ptr, desc_end, at::FIELD_DESC_PTR),
            ("metadata table", meta_ptr, meta_end, at::METADATA_PTR),
        ] {
            if start == end {
                continue;
            }
            if start < DESCRIPTORS_OFFSET {
                return Err(Error::PointerBeforeHeader {
                    offset,
                    section,
                    ptr: start,
                });
            }
            if end > limit {
                return Err(Error::SectionPastEnd {
                    offset,
                    section,
                    start,
                    end,
                    limit,
                });
            }
            sections.push(Section {
                name: section,
                start,
                end,
            });
        }
        let data_end = sections
            .iter()
            .map(|s| s.start)
            .filter(|&s| s >= data_ptr)
            .fold(alloc_ptr, u64::min);
        if data_end > data_ptr {
            sections.push(Section {
                name: "data region",
                start: data_ptr,
                end: data_end,
            });
        }
        if alloc_len > 0 {
            sections.push(Section {
                name: "allocation table",
                start: alloc_ptr,
                end: file_size,
            });
        }
        for (i, a) in sections.iter().enumerate() {
            for b in sections.iter().skip(i + 1) {
                if a.start < b.end && b.start < a.end {
                    return Err(Error::SectionsOverlap {
                        offset: a.start.max(b.start),
                        first: a.name,
                        second: b.name,
                    });
                }
            }
        }

        let metadata = if meta_len > 0 {
            bytes::slice(data, meta_ptr, meta_len, "metadata table")?
        } else {
            &[]
        };
        let alloc = if alloc_len > 0 {
            bytes::read_table(
                data,
                alloc_ptr,
                alloc_len / ALLOC_ENTRY_SIZE,
                "allocation table",
            )?
        } else {
            &[]
        };
        Ok(Dataset {
            data,
            header,
            fields,
            by_name,
            hot,
            has_unknown_types,
            row_size,
            row_len: usize::try_from(row_size).unwrap_or(usize::MAX),
            metadata,
            data_start: data_ptr,
            data_end,
            alloc,
            alloc_ptr,
            item_crcs: false,
        })
    }

    /// Step 6: the CRC of descriptors ‖ metadata table ‖ allocation table.
    fn check_index_crc(&self) -> Result<()> {
        let mut hasher = crc32fast::Hasher::new();
        let desc_len = u64::from(self.header.num_fields()) * DESCRIPTOR_SIZE;
        if desc_len > 0 {
            hasher.update(bytes::slice(
                self.data,
                self.header.field_desc_ptr(),
                desc_len,
                "field descriptors",
            )?);
        }
        hasher.update(self.metadata);
        hasher.update(self.alloc.as_bytes());
        let computed = hasher.finalize();
        let stored = self.header.index_crc();
        if computed == stored {
            Ok(())
        } else {
            Err(Error::IndexChecksum {
                offset: at::INDEX_CRC,
                stored,
                computed,
            })
        }
    }

    /// Step 7: entries non-empty, sorted, disjoint and inside the data region. Each
    /// problem goes to `report`; an `Err` from it stops the walk.
    fn check_alloc_entries(&self, report: &mut dyn FnMut(Error) -> Result<()>) -> Result<()> {
        let mut previous_end: Option<u64> = None;
        for (index, entry) in self.alloc.iter().enumerate() {
            let index = index as u64;
            let offset = self
                .alloc_ptr
                .saturating_add(index.saturating_mul(ALLOC_ENTRY_SIZE));
            let (ptr, size) = (entry.ptr.get(), entry.size.get());
            if size == 0 {
                report(Error::AllocEntryEmpty { offset, index })?;
            }
            if let Some(prev) = previous_end.filter(|&prev| ptr < prev) {
                report(Error::AllocEntryOrder {
                    offset,
                    index,
                    ptr,
                    previous_end: prev,
                })?;
            }
            let end = ptr.saturating_add(u64::from(size));
            if ptr < self.data_start
                || end > self.data_end
                || ptr.checked_add(u64::from(size)).is_none()
            {
                report(Error::AllocEntryOutsideData {
                    offset,
                    index,
                    ptr,
                    size,
                    data_start: self.data_start,
                    data_end: self.data_end,
                })?;
            }
            // Strictly increasing: an empty entry still moves the bar past its pointer.
            previous_end = Some(end.max(ptr.saturating_add(1)));
        }
        Ok(())
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
    pub fn fields(&self) -> &[Field<'a>] {
        &self.fields
    }

    /// Field `index`.
    ///
    /// # Errors
    /// [`Error::FieldIndex`] when there is no such field.
    pub fn field(&self, index: usize) -> Result<&Field<'a>> {
        self.fields.get(index).ok_or(Error::FieldIndex {
            index,
            num_fields: self.fields.len(),
        })
    }

    /// The field named `name` (compared by bytes), if any.
    #[must_use]
    pub fn field_by_name(&self, name: &str) -> Option<&Field<'a>> {
        self.by_name
            .binary_search_by(|(n, _)| (*n).cmp(name.as_bytes()))
            .ok()
            .and_then(|pos| self.by_name.get(pos))
            .and_then(|&(_, i)| self.fields.get(i))
    }

    /// Bytes per metadata row.
    #[must_use]
    pub const fn row_size(&self) -> u64 {
        self.row_size
    }

    /// The data region's bounds `[start, end)` (absolute offsets).
    #[must_use]
    pub const fn data_region(&self) -> (u64, u64) {
        (self.data_start, self.data_end)
    }

    /// The allocation table, sorted by pointer (in a valid file).
    #[must_use]
    pub const fn alloc_table(&self) -> &'a [AllocEntry] {
        self.alloc
    }

    /// The metadata slot of field `field` of sample `sample`, and its absolute offset.
    ///
    /// # Errors
    /// [`Error::SampleIndex`], [`Error::FieldIndex`].
    pub fn slot(&self, sample: u64, field: usize) -> Result<(&'a [u8], u64)> {
        let (slot, _, start) = self.slot_at(sample, field)?;
        Ok((slot, self.slot_offset(start)))
    }

    /// The slot, the field's access summary and the slot's offset in the metadata table.
    #[inline]
    fn slot_at(&self, sample: u64, field: usize) -> Result<(&'a [u8], Hot, usize)> {
        let hot = *self.hot.get(field).ok_or(Error::FieldIndex {
            index: field,
            num_fields: self.fields.len(),
        })?;
        let num_samples = self.header.num_samples();
        if sample >= num_samples {
            return Err(Error::SampleIndex {
                index: sample,
                num_samples,
            });
        }
        // sample < N and N · row_size is the metadata slice's length, so these fit.
        let start = usize::try_from(sample)
            .ok()
            .and_then(|s| s.checked_mul(self.row_len))
            .and_then(|s| s.checked_add(hot.offset));
        let slot = start
            .and_then(|start| self.metadata.get(start..start.checked_add(hot.len)?))
            .ok_or(Error::SampleIndex {
                index: sample,
                num_samples,
            })?;
        Ok((slot, hot, start.unwrap_or(0)))
    }

    /// The absolute offset of the slot at `start` in the metadata table.
    fn slot_offset(&self, start: usize) -> u64 {
        self.header
            .metadata_ptr()
            .saturating_add(u64::try_from(start).unwrap_or(u64::MAX))
    }

    /// The value of field `field` of sample `sample`, checked against every per-type rule
    /// (and against its CRC when the file is checksummed and the options ask for it).
    ///
    /// # Errors
    /// [`Error::SampleIndex`], [`Error::FieldIndex`], [`Error::BadValue`],
    /// [`Error::ItemOutsideData`], and for CRC checks [`Error::MissingAllocEntry`],
    /// [`Error::AllocSizeMismatch`], [`Error::ItemChecksum`].
    pub fn value(&self, sample: u64, field: usize) -> Result<Value<'a>> {
        self.decode(sample, field, self.item_crcs)
    }

    /// The value of the field named `name` of sample `sample`.
    ///
    /// # Errors
    /// As for [`Dataset::value`]; `Ok(None)` when there is no such field.
    pub fn value_by_name(&self, sample: u64, name: &str) -> Result<Option<Value<'a>>> {
        match self.field_by_name(name) {
            Some(f) => self.decode(sample, f.index(), self.item_crcs).map(Some),
            None => Ok(None),
        }
    }

    /// Sample `index`.
    ///
    /// # Errors
    /// [`Error::SampleIndex`] when there is no such sample.
    pub fn sample(&self, index: u64) -> Result<Sample<'_, 'a>> {
        if index < self.num_samples() {
            Ok(Sample {
                dataset: self,
                index,
            })
        } else {
            Err(Error::SampleIndex {
                index,
                num_samples: self.num_samples(),
            })
        }
    }

    /// Every sample, in order.
    pub fn samples(&self) -> impl Iterator<Item = Sample<'_, 'a>> + '_ {
        (0..self.num_samples()).map(move |index| Sample {
            dataset: self,
            index,
        })
    }

    /// Finds a slot and its payload, checking the pointer rules (not the per-type ones).
    #[inline]
    fn locate(&self, sample: u64, field: usize) -> Result<Located<'a>> {
        let (slot, hot, start) = self.slot_at(sample, field)?;
        let first8 = |slot: &[u8]| {
            slot.get(..8)
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .unwrap_or_default()
        };
        match hot.kind {
            Kind::Int => return Ok(Located::Done(Value::Int(i64::from_le_bytes(first8(slot))))),
            Kind::Float => {
                return Ok(Located::Done(Value::Float(f64::from_le_bytes(first8(
                    slot,
                )))));
            }
            Kind::Unknown => return Ok(Located::Done(Value::Unknown(slot))),
            Kind::Payload => {}
        }
        // No early exit: the OR of 16 or 24 bytes vectorises.
        if slot.iter().fold(0u8, |acc, &b| acc | b) == 0 {
            return Ok(Located::Done(if hot.nullable {
                Value::Null
            } else {
                self.fields
                    .get(field)
                    .map_or(Value::Null, |f| slot::empty(f.field_type_ref()))
            }));
        }
        let offset = self.slot_offset(start);
        let bad = |problem| Error::BadValue {
            offset,
            sample,
            field,
            problem,
        };
        let (ptr, size) = slot::pointer(slot).ok_or(bad(ValueProblem::Missing))?;
        if (ptr == 0) != (size == 0) {
            return Err(bad(ValueProblem::PointerSizeMismatch { ptr, size }));
        }
        let payload = if size == 0 {
            &[][..]
        } else {
            let end = ptr.checked_add(u64::from(size));
            let range = match end {
                Some(end) if ptr >= self.data_start && end <= self.data_end => {
                    // Both are ≤ the input's length, so they fit usize.
                    usize::try_from(ptr).ok().zip(usize::try_from(end).ok())
                }
                _ => None,
            };
            match range.and_then(|(start, end)| self.data.get(start..end)) {
                Some(payload) => payload,
                None => {
                    return Err(Error::ItemOutsideData {
                        offset,
                        sample,
                        field,
                        ptr,
                        size,
                        data_start: self.data_start,
                        data_end: self.data_end,
                    });
                }
            }
        };
        Ok(Located::Payload {
            slot,
            offset,
            ptr,
            size,
            payload,
        })
    }

    /// Decodes one slot with every access rule, and the item CRC when `check_crc`.
    #[inline]
    fn decode(&self, sample: u64, field: usize, check_crc: bool) -> Result<Value<'a>> {
        let (slot, offset, ptr, size, payload) = match self.locate(sample, field)? {
            Located::Done(v) => return Ok(v),
            Located::Payload {
                slot,
                offset,
                ptr,
                size,
                payload,
            } => (slot, offset, ptr, size, payload),
        };
        let f = self.field(field)?;
        let value =
            slot::interpret(f.field_type_ref(), slot, payload, true).map_err(|problem| {
                Error::BadValue {
                    offset,
                    sample,
                    field,
                    problem,
                }
            })?;
        if check_crc && size > 0 {
            let entry = self.entry_for(sample, field, offset, ptr, size)?;
            self.check_item_crc(sample, field, entry, ptr, payload)?;
        }
        Ok(value)
    }

    fn check_item_crc(
        &self,
        sample: u64,
        field: usize,
        entry: &AllocEntry,
        ptr: u64,
        payload: &[u8],
    ) -> Result<()> {
        let computed = crc32fast::hash(payload);
        if computed == entry.crc.get() {
            Ok(())
        } else {
            Err(Error::ItemChecksum {
                offset: ptr,
                sample,
                field,
                stored: entry.crc.get(),
                computed,
            })
        }
    }

    /// The allocation entry of the item at `ptr`, whose size must be `size`.
    fn entry_for(
        &self,
        sample: u64,
        field: usize,
        offset: u64,
        ptr: u64,
        size: u32,
    ) -> Result<&'a AllocEntry> {
        let index = self.entry_index(ptr).ok_or(Error::MissingAllocEntry {
            offset,
            sample,
            field,
            ptr,
        })?;
        let entry = self.alloc.get(index).ok_or(Error::MissingAllocEntry {
            offset,
            sample,
            field,
            ptr,
        })?;
        if entry.size.get() == size {
            Ok(entry)
        } else {
            Err(Error::AllocSizeMismatch {
                offset,
                sample,
                field,
                size,
                entry_size: entry.size.get(),
            })
        }
    }

    fn entry_index(&self, ptr: u64) -> Option<usize> {
        self.alloc.binary_search_by_key(&ptr, |e| e.ptr.get()).ok()
    }

    /// Runs every remaining check of whole-file verification on an opened dataset and
    /// hands each problem to `report`.
    ///
    /// A payload's contents (UTF-8, CRC) are checked only through its first reference to
    /// a valid allocation entry, and only when the entries are sorted and disjoint: the
    /// bytes checked then add up to at most the file size, however many slots share an
    /// item. Every other slot still gets every metadata and pointer check.
    fn verify_contents(&self, report: &mut dyn FnMut(Error)) {
        let checksummed = self.header.is_checksummed();
        if checksummed {
            if let Err(e) = self.check_index_crc() {
                report(e);
            }
        }
        let mut table_ok = true;
        let _ = self.check_alloc_entries(&mut |e| {
            table_ok = false;
            report(e);
            Ok(())
        });
        // One bit per allocation entry: E is bounded by the file size / 16.
        let mut referenced = vec![0u64; self.alloc.len().div_ceil(64)];
        for sample in 0..self.num_samples() {
            for field in &self.fields {
                // INT and FLOAT have no rules beyond their size; unknown types none at all.
                if !field.type_id().has_payload() {
                    continue;
                }
                let (slot, offset, ptr, size, payload) = match self.locate(sample, field.index()) {
                    Ok(Located::Payload {
                        slot,
                        offset,
                        ptr,
                        size,
                        payload,
                    }) => (slot, offset, ptr, size, payload),
                    Ok(Located::Done(_)) => continue,
                    Err(e) => {
                        // Match the pointer anyway, so that its entry is not also
                        // reported as unreferenced.
                        if let Ok((slot, _, _)) = self.slot_at(sample, field.index()) {
                            if let Some(i) =
                                slot::pointer(slot).and_then(|(p, _)| self.entry_index(p))
                            {
                                mark(&mut referenced, i);
                            }
                        }
                        report(e);
                        continue;
                    }
                };
                let mut entry = None;
                if size > 0 {
                    match self.entry_for(sample, field.index(), offset, ptr, size) {
                        Err(e) => report(e),
                        Ok(found) => match self.entry_index(ptr) {
                            Some(i) if mark(&mut referenced, i) => entry = Some(found),
                            _ => report(Error::SharedItem {
                                offset,
                                sample,
                                field: field.index(),
                                ptr,
                            }),
                        },
                    }
                }
                let content = size == 0 || (table_ok && entry.is_some());
                if let Err(problem) =
                    slot::interpret(field.field_type_ref(), slot, payload, content)
                {
                    report(Error::BadValue {
                        offset,
                        sample,
                        field: field.index(),
                        problem,
                    });
                }
                if let (true, true, Some(entry)) = (content, checksummed, entry) {
                    if let Err(e) = self.check_item_crc(sample, field.index(), entry, ptr, payload)
                    {
                        report(e);
                    }
                }
            }
        }
        // Fields of unknown types may point at items too; then nobody can tell.
        if !self.has_unknown_types {
            for (index, entry) in self.alloc.iter().enumerate() {
                if !is_marked(&referenced, index) {
                    let index = index as u64;
                    report(Error::UnreferencedItem {
                        offset: self
                            .alloc_ptr
                            .saturating_add(index.saturating_mul(ALLOC_ENTRY_SIZE)),
                        index,
                        ptr: entry.ptr.get(),
                    });
                }
            }
        }
    }
}

/// A slot found by [`Dataset::locate`].
enum Located<'a> {
    /// A scalar, a null or an empty value: nothing more to check.
    Done(Value<'a>),
    /// A slot with a payload (possibly empty) whose pointer rules hold.
    Payload {
        slot: &'a [u8],
        offset: u64,
        ptr: u64,
        size: u32,
        payload: &'a [u8],
    },
}

/// Sets bit `i`; false when it was already set.
fn mark(bits: &mut [u64], i: usize) -> bool {
    match bits.get_mut(i / 64) {
        Some(word) => {
            let bit = 1u64 << (i % 64);
            let fresh = *word & bit == 0;
            *word |= bit;
            fresh
        }
        None => true,
    }
}

fn is_marked(bits: &[u64], i: usize) -> bool {
    bits.get(i / 64)
        .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
}

/// (name bytes, field index), sorted by name; fails on a duplicate name.
fn name_index<'a>(fields: &[Field<'a>]) -> Result<Vec<(&'a [u8], usize)>> {
    let mut order: Vec<(&'a [u8], usize)> = fields
        .iter()
        .map(|f| (f.name().as_bytes(), f.index()))
        .collect();
    order.sort_unstable_by(|a, b| a.0.cmp(b.0));
    for pair in order.windows(2) {
        if let [(a_name, a), (b_name, b)] = *pair {
            if a_name == b_name {
                let (first, later) = (a.min(b), a.max(b));
                return Err(Error::DuplicateName {
                    offset: fields.get(later).map_or(0, Field::descriptor_offset),
                    field: later,
                    first,
                });
            }
        }
    }
    Ok(order)
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
        (0..dataset.fields.len()).map(move |f| dataset.value(index, f))
    }
}

/// Whole-file verification: every check the format defines, each problem handed to
/// `report`. Returns the number of problems (0 for a valid file).
///
/// Runs the open checklist with every CRC, every allocation entry, every per-type rule
/// and item CRC on every slot of every field of a known type, and the deep check (each
/// payload matches one allocation entry of the same size, each entry is used exactly
/// once). Structural problems that leave nothing to read stop it early.
///
/// Work and memory are bounded by the file's size: N · F slots fit in the file.
pub fn verify(data: &[u8], mut report: impl FnMut(Error)) -> usize {
    let mut count = 0usize;
    let mut sink = |e: Error| {
        count += 1;
        report(e);
    };
    match Header::parse_checked(data, false) {
        Err(e) => sink(e),
        Ok(header) => {
            if let Err(e) = header.check_crc(data) {
                sink(e);
            }
            match Dataset::open(data, header) {
                Err(e) => sink(e),
                Ok(dataset) => dataset.verify_contents(&mut sink),
            }
        }
    }
    count
}
