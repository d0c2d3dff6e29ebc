//! Whole-file verification: every rule of the format, every problem reported.

use alloc::vec;
use core::ops::ControlFlow;

use binfmt_core::Kind;
use binfmt_core::bytes::to_u64;
use binfmt_core::verify::{Sink, Summary, Tally};

use crate::catalog;
use crate::dataset::Dataset;
use crate::error::{Error, ErrorKind};
use crate::header::Header;
use crate::options::ReadOptions;
use crate::raw::ALLOC_ENTRY_SIZE;
use crate::slot::{self, Located};

type Walk<'t, 's> = Tally<'s, dyn Sink<Error> + 't>;

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
/// writer.push(&[Value::Bytes(b"payload")])?;
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
pub fn verify(data: &[u8], options: &ReadOptions, sink: &mut dyn Sink<Error>) -> Summary {
    let mut tally = Tally::new(sink);
    let _ = walk(data, options, &mut tally);
    tally.finish()
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
    let header = dataset.header();
    let checksummed = header.is_checksummed();
    if checksummed
        && options.checks_index()
        && let Err(e) = dataset.check_index_crc()
    {
        tally.error(e)?;
    }
    let catalog = dataset.catalog();
    let alloc = dataset.alloc_table();
    let mut table_ok = true;
    catalog::check_entries(alloc, catalog.alloc.start, &catalog.data, &mut |e| {
        table_ok = false;
        tally.error(e)
    })?;
    let item_crcs = checksummed && options.checks_items();
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
            let mut entry = None;
            if size > 0 {
                match catalog::entry_for(alloc, &place, ptr, size) {
                    Err(e) => tally.error(e)?,
                    Ok((i, found)) => {
                        if mark(&mut referenced, i) {
                            entry = Some(found);
                        } else {
                            tally.error(
                                ErrorKind::SharedItem {
                                    sample,
                                    field: field.index(),
                                    ptr,
                                }
                                .at(place.offset),
                            )?;
                        }
                    }
                }
            }
            // A payload's contents are read through its first reference to a valid entry
            // only, and only when the entries are disjoint: the bytes read then add up to
            // at most the file size, however many slots share an item.
            let content = size == 0 || (table_ok && entry.is_some());
            let ty = field.field_type_ref();
            let checked = if content {
                slot::interpret(ty, slot, payload, slot::utf8)
            } else {
                slot::interpret(ty, slot, payload, slot::skip_utf8)
            };
            if let Err(problem) = checked {
                tally.error(place.bad(problem))?;
            }
            if content
                && item_crcs
                && let Some(entry) = entry
                && let Err(e) = catalog::check_item_crc(entry, &place, ptr, payload)
            {
                tally.error(e)?;
            }
        }
    }
    // Fields of unknown types may point at items too; then nobody can tell.
    if !catalog.has_unknown_types {
        for (index, entry) in alloc.iter().enumerate() {
            if !is_marked(&referenced, index) {
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
