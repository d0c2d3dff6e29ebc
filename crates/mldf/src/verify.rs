//! Whole-file verification: every rule of the format, every problem reported.

use alloc::borrow::Cow;
use alloc::vec;
use alloc::vec::Vec;
use core::ops::{ControlFlow, Range};

use binfmt_core::Kind;
use binfmt_core::bytes::to_u64;
use binfmt_core::data::Data;
use binfmt_core::verify::{Sink, Tally};

use crate::catalog;
use crate::dataset::{Dataset, HEAD_SIZE, PIECE_SIZE};
use crate::error::{Error, ErrorKind};
use crate::header::Header;
use crate::options::ReadOptions;
use crate::raw::ALLOC_ENTRY_SIZE;
use crate::slot::{self, Located};
use crate::types::FieldType;

type Walk<'t, 's> = Tally<'s, dyn Sink<Error> + 't>;

binfmt_core::verify_fns! {
    /// Checks `data` against every rule of MLDF v1.0 and reports each problem to `sink`.
    ///
    /// It runs the open checklist, the index CRC and every allocation entry, every access
    /// rule on every slot of every field of a known type with its item CRC, and the deep
    /// check (each payload matches one allocation entry of the same size, each entry is used
    /// exactly once). Errors go to the sink at [`Severity::Error`](crate::Severity::Error);
    /// what [`Dataset::warnings`] lists goes at [`Severity::Warning`](crate::Severity::Warning).
    /// Structural problems that leave nothing to read stop it early; so does the sink, by
    /// returning `Break`. `options` can turn the index and item CRC checks off
    /// ([`ReadOptions::checksums`]); by default everything is checked.
    ///
    /// Work and memory are bounded by the file's size, not by the number of problems: N · F
    /// slots fit in the file, one bit is kept per allocation entry, and a payload that many
    /// slots share is read (for its UTF-8 and CRC) through its first slot only.
    ///
    /// ```
    /// use mldf::{FieldType, Schema, Severity, Value, Writer, WriterOptions};
    /// use binfmt_core::verify::Findings;
    /// # fn main() -> Result<(), mldf::Error> {
    /// let schema = Schema::new().field("b", FieldType::Bytes);
    /// let options = WriterOptions::new().page_size(4096).checksums(true);
    /// let mut writer = Writer::new(std::io::Cursor::new(Vec::new()), &schema, options)?;
    /// writer.add(&[Value::Bytes(b"payload")])?;
    /// let mut file = writer.finish()?.into_inner();
    /// assert!(mldf::verify(&file, &mldf::ReadOptions::new(), &mut Findings::new(10)).is_valid());
    ///
    /// file[4096] ^= 1; // the payload: its item CRC no longer matches
    /// let mut findings = Findings::new(10);
    /// let summary = mldf::verify(&file, &mldf::ReadOptions::new(), &mut findings);
    /// assert_eq!(summary.errors(), 1);
    /// assert!(findings.errors()[0].to_string().starts_with("byte 4096: sample 0, field 0: the item is corrupt"));
    /// # Ok(()) }
    /// ```
    pub fn verify;

    /// [`verify`] over any [`Data`]: a slice, or a
    /// [`ReadCache`](binfmt_core::cache::ReadCache) over a file or an object store, with the
    /// same rules and the same findings.
    ///
    /// Over a cache the header, the descriptors and the allocation table are read by ranges
    /// and kept (metadata); the metadata table is read in blocks of rows of at most
    /// [`PIECE_SIZE`], and the items whose contents are checked (item CRCs, UTF-8 of JSON
    /// and text) with [`Data::payload`], announced block by block with [`Data::prefetch`] in
    /// the order they are read: neither is kept, so memory does not grow with the file
    /// (an item is read whole: memory holds the largest item). Items whose contents nothing
    /// checks are not read. An I/O error is reported as an error.
    ///
    /// ```
    /// use binfmt_core::cache::ReadCache;
    /// use binfmt_core::source::Counting;
    /// use binfmt_core::verify::Findings;
    /// use mldf::{FieldType, Schema, Value, Writer, WriterOptions};
    /// # fn main() -> Result<(), mldf::Error> {
    /// let schema = Schema::new().field("b", FieldType::Bytes);
    /// let options = WriterOptions::new().page_size(4096).checksums(true);
    /// let mut writer = Writer::new(std::io::Cursor::new(Vec::new()), &schema, options)?;
    /// let big = vec![7u8; 1 << 20];
    /// for _ in 0..4 {
    ///     writer.add(&[Value::Bytes(&big)])?;
    /// }
    /// let file = writer.finish()?.into_inner();
    /// let cache = ReadCache::new(Counting::new(&file[..]));
    /// let mut findings = Findings::new(10);
    /// assert!(mldf::verify_data(&cache, &mldf::ReadOptions::new(), &mut findings).is_valid());
    /// assert!(cache.held() < 100_000); // metadata, not the 4 MiB of items
    /// # Ok(()) }
    /// ```
    pub fn verify_data => walk, walk_ranged;
}

/// [`walk`] over a cache: the header from the first bytes, then as [`walk`].
fn walk_ranged<'d, D: Data<'d>>(
    data: D,
    options: &ReadOptions,
    tally: &mut Walk<'_, '_>,
) -> ControlFlow<()>
where
    Error: From<D::Error>,
{
    let head = match data.head(HEAD_SIZE) {
        Ok(head) => head,
        Err(e) => return tally.error(e.into()),
    };
    let header = match Header::parse_unchecked_crc(head) {
        Ok(header) => header,
        Err(e) => return tally.error(e),
    };
    if let Err(e) = header.check_crc(head) {
        tally.error(e)?;
    }
    let dataset = match Dataset::open_data(data, header, to_u64(head.len())) {
        Ok(dataset) => dataset,
        Err(e) => return tally.error(e),
    };
    for warning in dataset.warnings() {
        tally.warning(warning)?;
    }
    contents_ranged(&dataset, options, tally)
}

/// What the check of one slot found before its payload is read (the first pass over a
/// block of rows of [`contents_ranged`]).
enum Step<'e> {
    /// A problem with the slot itself.
    Problem(Error),
    /// A slot with a payload.
    Payload {
        place: crate::slot::Place,
        /// The slot's bytes in the block.
        slot: Range<usize>,
        ptr: u64,
        size: u32,
        /// The allocation entry's problem, or its entry when this is its first slot.
        entry: Result<Option<&'e crate::raw::AllocEntry>, Error>,
        /// Its contents are checked through this slot.
        content: bool,
        /// Its bytes are read.
        read: bool,
    },
}

/// [`contents`] over a cache: the same checks in the same order, the metadata table read
/// in blocks of rows, each block's items announced with `prefetch` and then read.
fn contents_ranged<'d, D: Data<'d>>(
    dataset: &Dataset<'d, D>,
    options: &ReadOptions,
    tally: &mut Walk<'_, '_>,
) -> ControlFlow<()>
where
    Error: From<D::Error>,
{
    let data = dataset.data();
    let catalog = dataset.catalog();
    let alloc = dataset.alloc_entries();
    let (table_ok, item_crcs) = tables(dataset, alloc, options, tally)?;
    let mut referenced = vec![0u64; alloc.len().div_ceil(64)];
    let fields: Vec<_> = dataset
        .fields()
        .iter()
        .filter(|f| f.type_id().has_payload())
        .collect();
    let num_samples = dataset.num_samples();
    let row_size = catalog.row_size;
    let rows = if fields.is_empty() {
        0
    } else {
        // Rows of no bytes: every sample in one block.
        PIECE_SIZE
            .checked_div(row_size)
            .map_or(num_samples, |n| n.max(1))
    };
    // Stands in for the bytes of items whose contents nothing checks (only their length
    // matters): as long as the longest of them.
    let mut zeros: Vec<u8> = Vec::new();
    let mut first = 0;
    while first < num_samples && rows > 0 {
        let count = rows.min(num_samples - first);
        let start = catalog
            .metadata
            .start
            .saturating_add(first.saturating_mul(row_size));
        let len = count.saturating_mul(row_size);
        let block: Cow<'d, [u8]> = if len == 0 {
            Cow::Borrowed(&[])
        } else {
            match data.payload(start, len, "metadata row") {
                Ok(block) => block,
                Err(e) => return tally.error(e.into()),
            }
        };
        // First pass: every slot of the block, its allocation entry marked, in the order
        // of `contents`; the items to read are announced.
        let mut steps = Vec::new();
        let mut reads = Vec::new();
        for sample in first..first + count {
            for field in &fields {
                let (place, hot) = match catalog.slot(num_samples, sample, field.index()) {
                    Ok(found) => found,
                    Err(e) => {
                        steps.push(Step::Problem(e));
                        continue;
                    }
                };
                let from = usize::try_from(place.offset.saturating_sub(start)).unwrap_or(0);
                let range = from..from.saturating_add(hot.len);
                let slot = block.get(range.clone()).unwrap_or_default();
                let (ptr, size) = match slot::locate(&hot, slot, &catalog.data, &place) {
                    Ok(Located::Payload { ptr, size }) => (ptr, size),
                    Ok(Located::Done(_)) => continue,
                    Err(e) => {
                        if let Some(i) = slot::pointer(slot)
                            .and_then(|(ptr, _)| catalog::entry_index(alloc, ptr))
                        {
                            mark(&mut referenced, i);
                        }
                        steps.push(Step::Problem(e));
                        continue;
                    }
                };
                let entry = claim(alloc, &mut referenced, &place, ptr, size);
                let content = size == 0 || (table_ok && matches!(entry, Ok(Some(_))));
                let text = matches!(
                    field.field_type_ref(),
                    FieldType::Json | FieldType::TextRaw | FieldType::TextTokenized { .. }
                );
                let read = content && size > 0 && (item_crcs || text);
                if read {
                    reads.push(ptr..ptr.saturating_add(u64::from(size)));
                }
                steps.push(Step::Payload {
                    place,
                    slot: range,
                    ptr,
                    size,
                    entry,
                    content,
                    read,
                });
            }
        }
        if let Err(e) = data.prefetch(&reads) {
            tally.error(e.into())?;
        }
        // Second pass: the findings, in order, with the items read.
        for step in steps {
            let (place, range, ptr, size, entry, content, read) = match step {
                Step::Problem(e) => {
                    tally.error(e)?;
                    continue;
                }
                Step::Payload {
                    place,
                    slot,
                    ptr,
                    size,
                    entry,
                    content,
                    read,
                } => (place, slot, ptr, size, entry, content, read),
            };
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    tally.error(e)?;
                    None
                }
            };
            let len = usize::try_from(size).unwrap_or(usize::MAX);
            let payload: Cow<'_, [u8]> = if read {
                match data.payload(ptr, u64::from(size), "item") {
                    Ok(payload) => payload,
                    Err(e) => {
                        tally.error(e.into())?;
                        continue;
                    }
                }
            } else {
                if zeros.len() < len {
                    zeros.resize(len, 0);
                }
                Cow::Borrowed(zeros.get(..len).unwrap_or_default())
            };
            let slot = block.get(range).unwrap_or_default();
            let ty = dataset
                .field(place.field)
                .map(crate::field::Field::field_type_ref);
            let Ok(ty) = ty else { continue };
            let item = Item {
                place: &place,
                ptr,
                entry,
                content,
            };
            check_item(&item, ty, slot, &payload, item_crcs, tally)?;
        }
        first += count;
    }
    unreferenced(catalog, alloc, &referenced, tally)
}

fn walk(data: &[u8], options: &ReadOptions, tally: &mut Walk<'_, '_>) -> ControlFlow<()> {
    let header = match Header::parse_unchecked_crc(data) {
        Ok(header) => header,
        Err(e) => return tally.error(e),
    };
    if let Err(e) = header.check_crc(data) {
        tally.error(e)?;
    }
    let dataset = match Dataset::open(data, header) {
        Ok(dataset) => dataset,
        Err(e) => return tally.error(e),
    };
    for warning in dataset.warnings() {
        tally.warning(warning)?;
    }
    contents(&dataset, options, tally)
}

/// Steps 6 and 7, every slot, and the deep check, on an opened dataset.
fn contents(
    dataset: &Dataset<'_>,
    options: &ReadOptions,
    tally: &mut Walk<'_, '_>,
) -> ControlFlow<()> {
    let catalog = dataset.catalog();
    let alloc = dataset.alloc_table();
    let (table_ok, item_crcs) = tables(dataset, alloc, options, tally)?;
    // One bit per allocation entry: E is bounded by the file size / 16.
    let mut referenced = vec![0u64; alloc.len().div_ceil(64)];
    for sample in 0..dataset.num_samples() {
        for field in dataset.fields() {
            // INT and FLOAT have no rules beyond their size; unknown types none at all.
            if !field.type_id().has_payload() {
                continue;
            }
            let (slot, place, ptr, size) = match dataset.locate(sample, field.index()) {
                Ok((slot, place, Located::Payload { ptr, size })) => (slot, place, ptr, size),
                Ok((_, _, Located::Done(_))) => continue,
                Err(e) => {
                    // Match the pointer anyway, so that its entry is not also reported as
                    // unreferenced.
                    if let Ok((slot, _)) = dataset.slot(sample, field.index())
                        && let Some(i) = slot::pointer(slot)
                            .and_then(|(ptr, _)| catalog::entry_index(alloc, ptr))
                    {
                        mark(&mut referenced, i);
                    }
                    tally.error(e)?;
                    continue;
                }
            };
            let payload = dataset.payload(ptr, size);
            let entry = match claim(alloc, &mut referenced, &place, ptr, size) {
                Ok(entry) => entry,
                Err(e) => {
                    tally.error(e)?;
                    None
                }
            };
            // A payload's contents are read through its first reference to a valid entry
            // only, and only when the entries are disjoint: the bytes read then add up to
            // at most the file size, however many slots share an item.
            let content = size == 0 || (table_ok && entry.is_some());
            let item = Item {
                place: &place,
                ptr,
                entry,
                content,
            };
            check_item(
                &item,
                field.field_type_ref(),
                slot,
                payload,
                item_crcs,
                tally,
            )?;
        }
    }
    unreferenced(catalog, alloc, &referenced, tally)
}

/// Steps 6 and 7 (the index CRC, the allocation table), on either path: whether the
/// table's entries are sound, and whether item CRCs are checked.
fn tables<'d, D: Data<'d>>(
    dataset: &Dataset<'d, D>,
    alloc: &[crate::raw::AllocEntry],
    options: &ReadOptions,
    tally: &mut Walk<'_, '_>,
) -> ControlFlow<(), (bool, bool)>
where
    Error: From<D::Error>,
{
    let checksummed = dataset.header().is_checksummed();
    if checksummed
        && options.get_index_checksum()
        && let Err(e) = dataset.check_index_crc()
    {
        tally.error(e)?;
    }
    let catalog = dataset.catalog();
    let mut table_ok = true;
    catalog::check_entries(alloc, catalog.alloc.start, &catalog.data, &mut |e| {
        table_ok = false;
        tally.error(e)
    })?;
    ControlFlow::Continue((table_ok, checksummed && options.get_item_checksums()))
}

/// The allocation entry of the payload at `ptr` (`size` bytes, `size` > 0), marked as
/// referenced: `None` for an empty payload; [`ErrorKind::SharedItem`] when an earlier
/// slot already claimed it.
fn claim<'e>(
    alloc: &'e [crate::raw::AllocEntry],
    referenced: &mut [u64],
    place: &crate::slot::Place,
    ptr: u64,
    size: u32,
) -> Result<Option<&'e crate::raw::AllocEntry>, Error> {
    if size == 0 {
        return Ok(None);
    }
    let (i, found) = catalog::entry_for(alloc, place, ptr, size)?;
    if mark(referenced, i) {
        Ok(Some(found))
    } else {
        Err(ErrorKind::SharedItem {
            sample: place.sample,
            field: place.field,
            ptr,
        }
        .at(place.offset))
    }
}

/// One slot's payload as [`check_item`] checks it.
struct Item<'p, 'e> {
    place: &'p crate::slot::Place,
    ptr: u64,
    /// Its allocation entry, when this slot claimed it.
    entry: Option<&'e crate::raw::AllocEntry>,
    /// Its contents are checked through this slot (the first reference to a valid entry).
    content: bool,
}

/// A slot and its payload under the field's rules (UTF-8 only through the slot that
/// checks the contents), and the item's CRC when asked for.
fn check_item(
    item: &Item<'_, '_>,
    ty: &FieldType,
    slot: &[u8],
    payload: &[u8],
    item_crcs: bool,
    tally: &mut Walk<'_, '_>,
) -> ControlFlow<()> {
    let checked = if item.content {
        slot::interpret(ty, slot, payload, slot::utf8).map(|_| ())
    } else {
        slot::interpret(ty, slot, payload, slot::skip_utf8).map(|_| ())
    };
    if let Err(problem) = checked {
        tally.error(item.place.bad(problem))?;
    }
    if item.content
        && item_crcs
        && let Some(entry) = item.entry
        && let Err(e) = catalog::check_item_crc(entry, item.place, item.ptr, payload)
    {
        tally.error(e)?;
    }
    ControlFlow::Continue(())
}

/// The allocation entries no slot points at.
fn unreferenced(
    catalog: &catalog::Catalog,
    alloc: &[crate::raw::AllocEntry],
    referenced: &[u64],
    tally: &mut Walk<'_, '_>,
) -> ControlFlow<()> {
    // Fields of unknown types may point at items too; then nobody can tell.
    if !catalog.has_unknown_types {
        for (index, entry) in alloc.iter().enumerate() {
            if !is_marked(referenced, index) {
                let index = to_u64(index);
                tally.error(
                    ErrorKind::UnreferencedItem {
                        index,
                        ptr: entry.ptr.get(),
                    }
                    .at(catalog
                        .alloc
                        .start
                        .saturating_add(index.saturating_mul(to_u64(ALLOC_ENTRY_SIZE)))),
                )?;
            }
        }
    }
    ControlFlow::Continue(())
}

/// Sets bit `i`; false when it was already set.
pub(crate) fn mark(bits: &mut [u64], i: usize) -> bool {
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
