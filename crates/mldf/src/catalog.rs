//! Steps 4 to 7 of the open checklist: the descriptors, the row layout, where every
//! section lies, the index CRC and the allocation table's order.
//!
//! They need the header, the descriptor bytes and the file's size, then (for the CRC
//! and the table) the bytes of those sections, never the whole file: so the slice
//! reader ([`crate::Dataset`]), the ranged reader ([`crate::Reader`]) and verification
//! run these same functions on what each has.

use alloc::vec::Vec;
use core::ops::{ControlFlow, Range};

use binfmt_core::bytes::{self, to_u64};
use binfmt_core::{Kind, field_offset};
use zerocopy::FromBytes;

use crate::error::{Error, ErrorKind, Result};
use crate::field::Field;
use crate::header::{Header, at};
use crate::raw::{self, ALLOC_ENTRY_SIZE, AllocEntry, DESCRIPTOR_SIZE, DESCRIPTORS_OFFSET};
use crate::slot::{Hot, Place};

const DESCRIPTOR: u64 = to_u64(DESCRIPTOR_SIZE);
const ENTRY: u64 = to_u64(ALLOC_ENTRY_SIZE);

/// What the descriptors and the header's pointers say, checked: the fields, the row
/// layout, and the file range of every section.
#[derive(Debug, Clone)]
pub(crate) struct Catalog {
    pub(crate) fields: Vec<Field>,
    /// Field indexes sorted by name, for lookups by name.
    pub(crate) by_name: Vec<usize>,
    pub(crate) hot: Vec<Hot>,
    pub(crate) has_unknown_types: bool,
    pub(crate) row_size: u64,
    /// The descriptor table (empty when F = 0).
    pub(crate) descriptors: Range<u64>,
    /// The metadata table, N · row_size bytes (empty when N = 0).
    pub(crate) metadata: Range<u64>,
    /// The data region.
    pub(crate) data: Range<u64>,
    /// The allocation table, to the end of the file (empty in the seed's form).
    pub(crate) alloc: Range<u64>,
}

/// The field getters of [`Dataset`](crate::Dataset) and [`Reader`](crate::Reader), in
/// their `impl` blocks: both hold a [`Catalog`] in a field `catalog`, and answer alike.
macro_rules! field_getters {
    () => {
        /// The fields, in descriptor order.
        #[must_use]
        pub fn fields(&self) -> &[crate::Field] {
            &self.catalog.fields
        }

        /// Field `index`.
        ///
        /// # Errors
        /// [`ErrorKind::FieldIndex`](crate::ErrorKind::FieldIndex) when there is no such
        /// field.
        pub fn field(&self, index: usize) -> crate::Result<&crate::Field> {
            self.catalog.field(index)
        }

        /// The field named `name` (compared by bytes), if any.
        #[must_use]
        pub fn field_by_name(&self, name: &str) -> Option<&crate::Field> {
            self.catalog.field_by_name(name.as_bytes())
        }
    };
}
pub(crate) use field_getters;

/// Where the descriptor table lies, checked against a file of `file_size` bytes before
/// anything is read or sized by F (step 4, first half). `None` when there are no fields.
pub(crate) fn descriptor_range(header: &Header, file_size: u64) -> Result<Option<Range<u64>>> {
    let num_fields = u64::from(header.num_fields());
    let num_samples = header.num_samples();
    if num_fields == 0 {
        if num_samples > 0 {
            return Err(ErrorKind::NoFields { num_samples }.at(at::NUM_SAMPLES));
        }
        return Ok(None);
    }
    let start = header.field_desc_ptr();
    if start < DESCRIPTORS_OFFSET {
        return Err(ErrorKind::PointerBeforeHeader {
            section: "field descriptors",
            ptr: start,
        }
        .at(at::FIELD_DESC_PTR));
    }
    let len = bytes::size_of_table(num_fields, DESCRIPTOR, "field descriptors", start)?;
    let range = bytes::checked_range(start, len, file_size, "field descriptors")?;
    Ok(Some(to_u64(range.start)..to_u64(range.end)))
}

impl Catalog {
    /// Steps 4 and 5: decodes the `descriptors` (the bytes of [`descriptor_range`]) and
    /// checks every section against the header and a file of `file_size` bytes.
    pub(crate) fn build(header: &Header, descriptors: &[u8], file_size: u64) -> Result<Catalog> {
        let desc_ptr = header.field_desc_ptr();
        let num_fields = u64::from(header.num_fields());
        let table: &[raw::FieldDescriptor] =
            bytes::read_table(descriptors, 0, num_fields, "field descriptors")
                .map_err(|e| e.rebased(desc_ptr))?;
        let newer_minor = header.compatibility().is_newer();
        let mut fields = Vec::with_capacity(table.len());
        let mut row_size = 0u64;
        for (index, desc) in table.iter().enumerate() {
            let offset = desc_ptr.saturating_add(DESCRIPTOR.saturating_mul(to_u64(index)));
            let mut field = Field::parse(desc, index, offset, newer_minor)?;
            field.set_row_offset(row_size);
            // At most 65,535 sizes below 2^32 each: the sum cannot overflow.
            row_size = row_size.saturating_add(u64::from(field.metadata_size()));
            fields.push(field);
        }
        let by_name = name_index(&fields)?;
        let hot = fields.iter().map(Hot::of).collect();
        let has_unknown_types = fields.iter().any(|f| !f.type_id().is_defined());
        let (metadata, data, alloc) = sections(header, row_size, file_size)?;
        let descriptors = if num_fields == 0 {
            0..0
        } else {
            desc_ptr..desc_ptr.saturating_add(num_fields * DESCRIPTOR)
        };
        Ok(Catalog {
            fields,
            by_name,
            hot,
            has_unknown_types,
            row_size,
            descriptors,
            metadata,
            data,
            alloc,
        })
    }

    /// The field named `name` (by bytes).
    pub(crate) fn field_by_name(&self, name: &[u8]) -> Option<&Field> {
        let pos = self
            .by_name
            .binary_search_by(|&i| {
                self.fields
                    .get(i)
                    .map_or(&[][..], Field::name_bytes)
                    .cmp(name)
            })
            .ok()?;
        self.by_name.get(pos).and_then(|&i| self.fields.get(i))
    }

    /// Field `index`.
    pub(crate) fn field(&self, index: usize) -> Result<&Field> {
        self.fields.get(index).ok_or_else(|| {
            ErrorKind::FieldIndex {
                index,
                num_fields: self.fields.len(),
            }
            .unlocated()
        })
    }

    /// Where the slot of `field` in `sample` lies: its absolute offset and what an access
    /// needs of the field.
    #[inline]
    pub(crate) fn slot(&self, num_samples: u64, sample: u64, field: usize) -> Result<(Place, Hot)> {
        let Some(&hot) = self.hot.get(field) else {
            return Err(ErrorKind::FieldIndex {
                index: field,
                num_fields: self.hot.len(),
            }
            .unlocated());
        };
        if sample >= num_samples {
            return Err(ErrorKind::SampleIndex {
                index: sample,
                num_samples,
            }
            .unlocated());
        }
        // The table was checked to lie inside the file: no overflow below N · row_size.
        let offset = self
            .metadata
            .start
            .saturating_add(sample.saturating_mul(self.row_size))
            .saturating_add(to_u64(hot.offset));
        Ok((
            Place {
                sample,
                field,
                offset,
            },
            hot,
        ))
    }

    /// Warnings about the fields: each field of a reserved or unknown type.
    pub(crate) fn warnings(&self) -> impl Iterator<Item = Error> + '_ {
        self.fields
            .iter()
            .filter(|f| !f.type_id().is_defined())
            .map(|f| {
                ErrorKind::UnknownType {
                    field: f.index(),
                    type_id: f.type_id(),
                }
                .at(f
                    .descriptor_offset()
                    .saturating_add(field_offset!(raw::FieldDescriptor, type_id)))
            })
    }
}

/// Step 5: the metadata table, the data region and the allocation table, checked for
/// bounds, order and overlap.
fn sections(
    header: &Header,
    row_size: u64,
    file_size: u64,
) -> Result<(Range<u64>, Range<u64>, Range<u64>)> {
    let data_ptr = header.data_ptr();
    let alloc_ptr = header.alloc_table_ptr();
    for (ptr, section, offset) in [
        (data_ptr, "data region", at::DATA_PTR),
        (alloc_ptr, "allocation table", at::ALLOC_TABLE_PTR),
    ] {
        if ptr < DESCRIPTORS_OFFSET {
            return Err(ErrorKind::PointerBeforeHeader { section, ptr }.at(offset));
        }
    }
    if data_ptr > alloc_ptr {
        return Err(ErrorKind::DataAfterAllocTable {
            data_ptr,
            alloc_table_ptr: alloc_ptr,
        }
        .at(at::DATA_PTR));
    }
    // The seed writer's files without payloads point both at or past EOF.
    let seed_form = alloc_ptr == data_ptr && data_ptr >= file_size;
    let alloc = if seed_form {
        alloc_ptr..alloc_ptr
    } else {
        let length = file_size.checked_sub(alloc_ptr).ok_or_else(|| {
            ErrorKind::AllocTablePastEnd {
                alloc_table_ptr: alloc_ptr,
                file_size,
            }
            .at(at::ALLOC_TABLE_PTR)
        })?;
        if !length.is_multiple_of(ENTRY) {
            return Err(ErrorKind::AllocTableLength { length }.at(alloc_ptr));
        }
        alloc_ptr..file_size
    };
    let limit = alloc_ptr.min(file_size);

    let num_fields = u64::from(header.num_fields());
    let desc_ptr = header.field_desc_ptr();
    let desc_end = bytes::end(desc_ptr, num_fields * DESCRIPTOR, "field descriptors")?;
    let meta_ptr = header.metadata_ptr();
    let meta_len = bytes::size_of_table(
        header.num_samples(),
        row_size,
        "metadata table",
        at::NUM_SAMPLES,
    )?;
    let meta_end = bytes::end(meta_ptr, meta_len, "metadata table")?;
    // At most four sections: a fixed array, no allocation.
    let mut sections: [Option<(&'static str, Range<u64>)>; 4] = [None, None, None, None];
    for (slot, (section, start, end, offset)) in sections.iter_mut().zip([
        ("field descriptors", desc_ptr, desc_end, at::FIELD_DESC_PTR),
        ("metadata table", meta_ptr, meta_end, at::METADATA_PTR),
    ]) {
        if start == end {
            continue;
        }
        if start < DESCRIPTORS_OFFSET {
            return Err(ErrorKind::PointerBeforeHeader {
                section,
                ptr: start,
            }
            .at(offset));
        }
        if end > limit {
            return Err(ErrorKind::SectionPastEnd {
                section,
                start,
                end,
                limit,
            }
            .at(offset));
        }
        *slot = Some((section, start..end));
    }
    let data_end = sections
        .iter()
        .flatten()
        .map(|(_, r)| r.start)
        .filter(|&s| s >= data_ptr)
        .fold(alloc_ptr, u64::min);
    if data_end > data_ptr {
        sections[2] = Some(("data region", data_ptr..data_end));
    }
    if !alloc.is_empty() {
        sections[3] = Some(("allocation table", alloc.clone()));
    }
    let present: [_; 4] = sections.each_ref().map(Option::as_ref);
    for (i, a) in present.iter().flatten().enumerate() {
        for b in present.iter().flatten().skip(i + 1) {
            let ((first, x), (second, y)) = (*a, *b);
            if x.start < y.end && y.start < x.end {
                return Err(ErrorKind::SectionsOverlap { first, second }.at(x.start.max(y.start)));
            }
        }
    }
    let metadata = if meta_len > 0 {
        meta_ptr..meta_end
    } else {
        0..0
    };
    Ok((metadata, data_ptr..data_end, alloc))
}

/// Field indexes sorted by name; fails on a duplicate name.
fn name_index(fields: &[Field]) -> Result<Vec<usize>> {
    let mut order: Vec<usize> = (0..fields.len()).collect();
    let name = |i: usize| fields.get(i).map_or(&[][..], Field::name_bytes);
    order.sort_unstable_by(|&a, &b| name(a).cmp(name(b)).then(a.cmp(&b)));
    for pair in order.windows(2) {
        if let [a, b] = *pair
            && name(a) == name(b)
        {
            let (first, later) = (a.min(b), a.max(b));
            return Err(ErrorKind::DuplicateName {
                field: later,
                first,
            }
            .at(fields.get(later).map_or(0, Field::descriptor_offset)));
        }
    }
    Ok(order)
}

/// Step 6: `computed`, the CRC of descriptors ‖ metadata table ‖ allocation table, is
/// the stored index CRC.
pub(crate) fn check_index_crc(header: &Header, computed: u32) -> Result<()> {
    let stored = header.index_crc();
    if computed == stored {
        Ok(())
    } else {
        Err(ErrorKind::IndexChecksum { stored, computed }.at(at::INDEX_CRC))
    }
}

/// The allocation table's entries, viewed in place (`alloc` is exactly the table).
pub(crate) fn entries(alloc: &[u8], alloc_ptr: u64) -> Result<&[AllocEntry]> {
    <[AllocEntry]>::ref_from_bytes(alloc).map_err(|_| {
        binfmt_core::Error::truncated(
            "allocation table",
            alloc_ptr,
            to_u64(alloc.len()).next_multiple_of(ENTRY),
            to_u64(alloc.len()),
        )
        .into()
    })
}

/// Step 7: entries non-empty, sorted, disjoint and inside the `data` region. Each
/// problem goes to `report`, which may stop the walk.
pub(crate) fn check_entries(
    entries: &[AllocEntry],
    alloc_ptr: u64,
    data: &Range<u64>,
    report: &mut dyn FnMut(Error) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let mut previous_end: Option<u64> = None;
    for (index, entry) in entries.iter().enumerate() {
        let index = to_u64(index);
        let offset = alloc_ptr.saturating_add(index.saturating_mul(ENTRY));
        let (ptr, size) = (entry.ptr.get(), entry.size.get());
        if size == 0 {
            report(ErrorKind::AllocEntryEmpty { index }.at(offset))?;
        }
        if let Some(prev) = previous_end.filter(|&prev| ptr < prev) {
            report(
                ErrorKind::AllocEntryOrder {
                    index,
                    ptr,
                    previous_end: prev,
                }
                .at(offset),
            )?;
        }
        let end = ptr.checked_add(u64::from(size));
        if ptr < data.start || end.is_none_or(|end| end > data.end) {
            report(
                ErrorKind::AllocEntryOutsideData {
                    index,
                    ptr,
                    size,
                    data_start: data.start,
                    data_end: data.end,
                }
                .at(offset),
            )?;
        }
        // Strictly increasing: an empty entry still moves the bar past its pointer.
        let end = end.unwrap_or(u64::MAX);
        previous_end = Some(end.max(ptr.saturating_add(1)));
    }
    ControlFlow::Continue(())
}

/// Step 7 for a reader: the first problem of the table, if any.
pub(crate) fn first_entry_problem(
    entries: &[AllocEntry],
    alloc_ptr: u64,
    data: &Range<u64>,
) -> Result<()> {
    let mut first = None;
    let _ = check_entries(entries, alloc_ptr, data, &mut |e| {
        first = Some(e);
        ControlFlow::Break(())
    });
    first.map_or(Ok(()), Err)
}

/// The index of the entry whose ptr is `ptr` (binary search of a table whose order
/// was checked).
pub(crate) fn entry_index(entries: &[AllocEntry], ptr: u64) -> Option<usize> {
    entries.binary_search_by_key(&ptr, |e| e.ptr.get()).ok()
}

/// The allocation entry of the item at `ptr` that the slot at `place` points at: it
/// must exist and have the slot's `size`.
pub(crate) fn entry_for<'e>(
    entries: &'e [AllocEntry],
    place: &Place,
    ptr: u64,
    size: u32,
) -> Result<(usize, &'e AllocEntry)> {
    entry_checked(entries, entry_index(entries, ptr), place, ptr, size)
}

/// [`entry_for`]'s rule, on the index a search found (`None`: no entry has that ptr).
pub(crate) fn entry_checked<'e>(
    entries: &'e [AllocEntry],
    index: Option<usize>,
    place: &Place,
    ptr: u64,
    size: u32,
) -> Result<(usize, &'e AllocEntry)> {
    let Some((index, entry)) = index.and_then(|i| Some((i, entries.get(i)?))) else {
        return Err(ErrorKind::MissingAllocEntry {
            sample: place.sample,
            field: place.field,
            ptr,
        }
        .at(place.offset));
    };
    if entry.size.get() == size {
        Ok((index, entry))
    } else {
        Err(ErrorKind::AllocSizeMismatch {
            sample: place.sample,
            field: place.field,
            size,
            entry_size: entry.size.get(),
        }
        .at(place.offset))
    }
}

/// The item CRC rule: the payload's CRC-32 is the entry's.
pub(crate) fn check_item_crc(
    entry: &AllocEntry,
    place: &Place,
    ptr: u64,
    payload: &[u8],
) -> Result<()> {
    let computed = crc32fast::hash(payload);
    let stored = entry.crc.get();
    if computed == stored {
        Ok(())
    } else {
        Err(ErrorKind::ItemChecksum {
            sample: place.sample,
            field: place.field,
            stored,
            computed,
        }
        .at(ptr))
    }
}
