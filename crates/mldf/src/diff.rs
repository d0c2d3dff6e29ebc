//! Comparing two datasets: their headers, their fields, then every value, in time
//! linear in the two files' sizes.
//!
//! Values are compared for the fields both files have with the same name and type,
//! over the samples both have. Scalars and slots are compared directly. A payload is
//! identified by its allocation entry: each distinct entry of each file is read once
//! (hashed into a table of distinct contents, its CRC checked once when the dataset
//! checks item CRCs), so a payload that a million slots share costs one read, not a
//! million. Two values are equal when their slots say the same (dimensions, codec,
//! encoding, …) and their payloads have the same bytes.
//!
//! This asks one thing more of the files than an ordinary read does: every non-empty
//! payload must match an entry of a valid allocation table (the format's deep check;
//! files from any writer meet it). That is what bounds the work: entries are disjoint,
//! so their sizes add up to at most the file's size.
//!
//! ```
//! use core::ops::ControlFlow;
//! use mldf::diff::{self, DiffOptions, Difference};
//! use mldf::{Dataset, FieldType, Schema, Value, Writer, WriterOptions};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let write = |labels: &[i64]| -> Result<Vec<u8>, mldf::Error> {
//!     let schema = Schema::new().field("label", FieldType::Int).field("blob", FieldType::Bytes);
//!     let mut w = Writer::new(std::io::Cursor::new(Vec::new()), &schema, WriterOptions::new())?;
//!     for &l in labels {
//!         w.push(&[Value::Int(l), Value::Bytes(b"same bytes")])?;
//!     }
//!     Ok(w.finish()?.into_inner())
//! };
//! let (a, b) = (write(&[1, 2, 3])?, write(&[1, 5, 3])?);
//! let (a, b) = (Dataset::parse(&a)?, Dataset::parse(&b)?);
//! let mut lines = Vec::new();
//! let summary = diff::diff(&a, &b, &DiffOptions::new(), &mut |d| {
//!     if let Difference::Value(v) = d {
//!         lines.push(format!("sample {}, field {:?}: {:?} != {:?}", v.sample, v.field.name(), v.a, v.b));
//!     }
//!     ControlFlow::Continue(())
//! })?;
//! assert_eq!(lines, ["sample 1, field \"label\": Int(2) != Int(5)"]);
//! assert_eq!((summary.values_compared(), summary.differences()), (6, 1));
//! # Ok(()) }
//! ```

use core::fmt;
use core::ops::ControlFlow;
use std::collections::HashMap;
use std::vec;
use std::vec::Vec;

use binfmt_core::Version;

use crate::catalog;
use crate::dataset::Dataset;
use crate::error::{Error, Result, ValueProblem};
use crate::field::Field;
use crate::raw::AllocEntry;
use crate::slot::{self, Located, Place, Shape};
use crate::value::Value;

/// One of the two files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The first dataset.
    A,
    /// The second dataset.
    B,
}

/// What [`diff`] compares besides the content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DiffOptions {
    layout: bool,
}

impl DiffOptions {
    /// Content only: header values, fields and values.
    #[must_use]
    pub const fn new() -> Self {
        DiffOptions { layout: false }
    }

    /// Whether to compare the layout too: the four section pointers, both stored CRCs
    /// and the file sizes.
    #[must_use]
    pub const fn layout(mut self, on: bool) -> Self {
        self.layout = on;
        self
    }
}

/// A header value, shown as `binfmt mldf diff` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HeaderValue {
    /// A version: `1.0`.
    Version(Version),
    /// Flags, in hexadecimal: `0x5`.
    Flags(u32),
    /// A count, a size or a pointer, in decimal.
    Number(u64),
    /// A CRC: `0x9281bbab`.
    Crc(u32),
}

impl fmt::Display for HeaderValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderValue::Version(v) => write!(f, "{v}"),
            HeaderValue::Flags(v) => write!(f, "{v:#x}"),
            HeaderValue::Number(v) => write!(f, "{v}"),
            HeaderValue::Crc(v) => write!(f, "{v:#010x}"),
        }
    }
}

/// What differs between two fields at the same position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FieldAspect {
    /// The names.
    Name,
    /// The types with their arguments, or whether they are nullable.
    Type,
    /// The stored field flags.
    Flags,
    /// The metadata sizes.
    MetadataSize,
}

impl fmt::Display for FieldAspect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FieldAspect::Name => "name",
            FieldAspect::Type => "type",
            FieldAspect::Flags => "flags",
            FieldAspect::MetadataSize => "metadata_size",
        })
    }
}

/// One difference, as [`diff`] finds them: header first, then fields, then values in
/// sample order.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Difference<'d, 'a, 'b> {
    /// A header value (`version`, `flags`, `num_samples`, `num_fields`, `page_size`; with
    /// [`DiffOptions::layout`] also `field_desc_ptr`, `metadata_ptr`, `data_ptr`,
    /// `alloc_table_ptr`, `index_crc`, `header_crc`, `file_size`).
    Header {
        /// The header field's name.
        name: &'static str,
        /// A's value.
        a: HeaderValue,
        /// B's value.
        b: HeaderValue,
    },
    /// The fields at position `index` differ in one aspect (one difference per aspect).
    Field {
        /// The position.
        index: usize,
        /// What differs.
        aspect: FieldAspect,
        /// A's field.
        a: &'d Field,
        /// B's field.
        b: &'d Field,
    },
    /// Only one file has a field at position `index`.
    OnlyIn {
        /// The position.
        index: usize,
        /// The file that has it.
        side: Side,
        /// The field.
        field: &'d Field,
    },
    /// A value differs.
    Value(ValueDiff<'d, 'a, 'b>),
}

/// Two different values of one field in one sample.
#[derive(Debug, Clone, Copy)]
pub struct ValueDiff<'d, 'a, 'b> {
    /// The sample.
    pub sample: u64,
    /// The field, in A (B's field has the same name and type).
    pub field: &'d Field,
    /// The field's index in B.
    pub field_b: usize,
    /// A's value.
    pub a: Value<'a>,
    /// B's value.
    pub b: Value<'b>,
    /// The CRC-32 of A's payload, when the value has one (computed once per payload).
    pub crc_a: Option<u32>,
    /// The CRC-32 of B's payload, when the value has one.
    pub crc_b: Option<u32>,
}

/// What a comparison did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DiffSummary {
    differences: u64,
    value_differences: u64,
    values_compared: u64,
    payload_bytes: u64,
    stopped: bool,
}

impl DiffSummary {
    /// Differences found (header, fields and values).
    #[must_use]
    pub const fn differences(&self) -> u64 {
        self.differences
    }

    /// Of those, differing values.
    #[must_use]
    pub const fn value_differences(&self) -> u64 {
        self.value_differences
    }

    /// Pairs of values compared.
    #[must_use]
    pub const fn values_compared(&self) -> u64 {
        self.values_compared
    }

    /// Payload bytes read, both files together: each distinct payload counts once,
    /// however many slots share it, so this is at most the two files' sizes.
    #[must_use]
    pub const fn payload_bytes(&self) -> u64 {
        self.payload_bytes
    }

    /// True when the sink stopped the comparison early.
    #[must_use]
    pub const fn stopped(&self) -> bool {
        self.stopped
    }

    /// True when nothing differs (and the comparison ran to the end).
    #[must_use]
    pub const fn is_same(&self) -> bool {
        self.differences == 0 && !self.stopped
    }
}

/// A value of one of the files could not be read.
#[derive(Debug)]
pub struct DiffError {
    /// The file.
    pub side: Side,
    /// What is wrong with it.
    pub error: Error,
}

impl fmt::Display for DiffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = match self.side {
            Side::A => "the first dataset",
            Side::B => "the second dataset",
        };
        write!(f, "{side}: {}", self.error)
    }
}

impl core::error::Error for DiffError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Compares `a` and `b`, handing each difference to `sink` (which may stop the walk by
/// returning `Break`).
///
/// Work: O(F) for the fields, O(N · F) slot reads (N the smaller sample count), plus one
/// read of each distinct payload of each file: linear in the two files' sizes. Memory:
/// one small record per allocation entry touched.
///
/// # Errors
/// The first value that cannot be read, and from which file: the access rules of
/// [`Dataset::value`] (with item CRCs when the dataset checks them), an allocation table
/// that is out of order, and a payload without its allocation entry.
pub fn diff<'a, 'b>(
    a: &Dataset<'a>,
    b: &Dataset<'b>,
    options: &DiffOptions,
    sink: &mut dyn FnMut(Difference<'_, 'a, 'b>) -> ControlFlow<()>,
) -> core::result::Result<DiffSummary, DiffError> {
    let mut summary = DiffSummary::default();
    let mut emit = |summary: &mut DiffSummary, d: Difference<'_, 'a, 'b>| {
        summary.differences += 1;
        if matches!(d, Difference::Value(_)) {
            summary.value_differences += 1;
        }
        let flow = sink(d);
        summary.stopped = flow.is_break();
        flow
    };
    let walk = (|| {
        for (name, x, y) in header_values(a, b, options) {
            if x != y {
                emit(&mut summary, Difference::Header { name, a: x, b: y })?;
            }
        }
        for index in 0..a.fields().len().max(b.fields().len()) {
            match (a.fields().get(index), b.fields().get(index)) {
                (Some(fa), Some(fb)) => {
                    for aspect in field_aspects(fa, fb) {
                        emit(
                            &mut summary,
                            Difference::Field {
                                index,
                                aspect,
                                a: fa,
                                b: fb,
                            },
                        )?;
                    }
                }
                (Some(field), None) => emit(
                    &mut summary,
                    Difference::OnlyIn {
                        index,
                        side: Side::A,
                        field,
                    },
                )?,
                (None, Some(field)) => emit(
                    &mut summary,
                    Difference::OnlyIn {
                        index,
                        side: Side::B,
                        field,
                    },
                )?,
                (None, None) => {}
            }
        }
        ControlFlow::Continue(())
    })();
    if walk.is_break() {
        return Ok(summary);
    }

    // Values of the fields both files have, by name, with the same type.
    let common: Vec<(&Field, usize)> = a
        .fields()
        .iter()
        .filter_map(|fa| {
            let fb = b.field_by_name(fa.name())?;
            (fa.field_type() == fb.field_type()).then_some((fa, fb.index()))
        })
        .collect();
    let samples = a.num_samples().min(b.num_samples());
    if common.is_empty() || samples == 0 {
        return Ok(summary);
    }
    let mut side_a = Payloads::new(a).map_err(|error| DiffError {
        side: Side::A,
        error,
    })?;
    let mut side_b = Payloads::new(b).map_err(|error| DiffError {
        side: Side::B,
        error,
    })?;
    // Distinct payload contents of both files, numbered: two payloads are equal exactly
    // when they get the same number. The map's hasher is keyed at random (std's
    // `RandomState`), so crafted payloads cannot make it degrade.
    // One entry per distinct allocation entry at most: sized by the files.
    let mut classes: HashMap<&[u8], u32> =
        HashMap::with_capacity(a.alloc_table().len().saturating_add(b.alloc_table().len()));
    for sample in 0..samples {
        for &(fa, ib) in &common {
            let (va, ka) = side_a
                .read(sample, fa.index(), &mut classes)
                .map_err(|error| DiffError {
                    side: Side::A,
                    error,
                })?;
            let (vb, kb) = side_b
                .read(sample, ib, &mut classes)
                .map_err(|error| DiffError {
                    side: Side::B,
                    error,
                })?;
            summary.values_compared += 1;
            let same = match (va, vb) {
                (Value::Unknown(x), Value::Unknown(y)) => x == y,
                _ => Shape::of(&va) == Shape::of(&vb) && ka.map(|k| k.class) == kb.map(|k| k.class),
            };
            if !same {
                let crc_a = ka.map(|k| side_a.crc(k));
                let crc_b = kb.map(|k| side_b.crc(k));
                let d = Difference::Value(ValueDiff {
                    sample,
                    field: fa,
                    field_b: ib,
                    a: va,
                    b: vb,
                    crc_a,
                    crc_b,
                });
                if emit(&mut summary, d).is_break() {
                    summary.payload_bytes = side_a.bytes + side_b.bytes;
                    return Ok(summary);
                }
            }
        }
    }
    summary.payload_bytes = side_a.bytes + side_b.bytes;
    Ok(summary)
}

fn header_values(
    a: &Dataset<'_>,
    b: &Dataset<'_>,
    options: &DiffOptions,
) -> Vec<(&'static str, HeaderValue, HeaderValue)> {
    let (ha, hb) = (a.header(), b.header());
    let n = HeaderValue::Number;
    let mut values = Vec::from([
        (
            "version",
            HeaderValue::Version(ha.version()),
            HeaderValue::Version(hb.version()),
        ),
        (
            "flags",
            HeaderValue::Flags(ha.flags()),
            HeaderValue::Flags(hb.flags()),
        ),
        ("num_samples", n(ha.num_samples()), n(hb.num_samples())),
        (
            "num_fields",
            n(u64::from(ha.num_fields())),
            n(u64::from(hb.num_fields())),
        ),
        (
            "page_size",
            n(u64::from(ha.page_size())),
            n(u64::from(hb.page_size())),
        ),
    ]);
    if options.layout {
        values.extend([
            (
                "field_desc_ptr",
                n(ha.field_desc_ptr()),
                n(hb.field_desc_ptr()),
            ),
            ("metadata_ptr", n(ha.metadata_ptr()), n(hb.metadata_ptr())),
            ("data_ptr", n(ha.data_ptr()), n(hb.data_ptr())),
            (
                "alloc_table_ptr",
                n(ha.alloc_table_ptr()),
                n(hb.alloc_table_ptr()),
            ),
            (
                "index_crc",
                HeaderValue::Crc(ha.index_crc()),
                HeaderValue::Crc(hb.index_crc()),
            ),
            (
                "header_crc",
                HeaderValue::Crc(ha.header_crc()),
                HeaderValue::Crc(hb.header_crc()),
            ),
            (
                "file_size",
                n(binfmt_core::bytes::len_u64(a.as_bytes())),
                n(binfmt_core::bytes::len_u64(b.as_bytes())),
            ),
        ]);
    }
    values
}

fn field_aspects(a: &Field, b: &Field) -> impl Iterator<Item = FieldAspect> {
    [
        (FieldAspect::Name, a.name_bytes() != b.name_bytes()),
        (
            FieldAspect::Type,
            a.field_type() != b.field_type() || a.is_nullable() != b.is_nullable(),
        ),
        (FieldAspect::Flags, a.flags() != b.flags()),
        (
            FieldAspect::MetadataSize,
            a.metadata_size() != b.metadata_size(),
        ),
    ]
    .into_iter()
    .filter_map(|(aspect, differs)| differs.then_some(aspect))
}

/// A payload's identity: its content number and, for a non-empty one, its entry.
#[derive(Debug, Clone, Copy)]
struct Key {
    class: u32,
    entry: Option<usize>,
}

/// The number of every empty payload.
const EMPTY: u32 = u32::MAX;

/// What is known of one allocation entry, once it has been read.
#[derive(Debug, Clone, Copy)]
struct Known<'a> {
    class: u32,
    crc: Option<u32>,
    text: Option<core::result::Result<&'a str, ValueProblem>>,
}

/// One file's payloads, each read once.
struct Payloads<'d, 'a> {
    dataset: &'d Dataset<'a>,
    alloc: &'a [AllocEntry],
    known: Vec<Option<Known<'a>>>,
    /// The entry found last: payloads are usually met in file order.
    hint: usize,
    bytes: u64,
}

impl<'d, 'a> Payloads<'d, 'a> {
    fn new(dataset: &'d Dataset<'a>) -> Result<Self> {
        let catalog = dataset.catalog();
        let alloc = dataset.alloc_table();
        // Disjoint entries bound the bytes read by the file's size.
        catalog::first_entry_problem(alloc, catalog.alloc.start, &catalog.data)?;
        Ok(Payloads {
            dataset,
            alloc,
            // One small record per entry: E is bounded by the file size / 16.
            known: vec![None; alloc.len()],
            hint: 0,
            bytes: 0,
        })
    }

    /// The entry whose ptr is `ptr`.
    fn entry_index(&mut self, ptr: u64) -> Option<usize> {
        let next = self.hint.saturating_add(1);
        for candidate in [self.hint, next] {
            if self
                .alloc
                .get(candidate)
                .is_some_and(|e| e.ptr.get() == ptr)
            {
                self.hint = candidate;
                return Some(candidate);
            }
        }
        let found = catalog::entry_index(self.alloc, ptr)?;
        self.hint = found;
        Some(found)
    }

    /// The value of `field` in `sample` and its payload's identity.
    fn read<'x>(
        &mut self,
        sample: u64,
        field: usize,
        classes: &mut HashMap<&'x [u8], u32>,
    ) -> Result<(Value<'a>, Option<Key>)>
    where
        'a: 'x,
    {
        let (slot, place, located) = self.dataset.locate(sample, field)?;
        let empty = Key {
            class: EMPTY,
            entry: None,
        };
        let (ptr, size) = match located {
            // An all-zero slot: a scalar, null, or an empty payload.
            Located::Done(value) => return Ok((value, value.payload().map(|_| empty))),
            Located::Payload { ptr, size } => (ptr, size),
        };
        let ty = self.dataset.field(field)?.field_type_ref();
        if size == 0 {
            let value = slot::interpret(ty, slot, &[], slot::utf8).map_err(|p| place.bad(p))?;
            return Ok((value, Some(empty)));
        }
        let index = self.entry_index(ptr);
        let (index, entry) = catalog::entry_checked(self.alloc, index, &place, ptr, size)?;
        let payload = self.dataset.payload(ptr, size);
        let known = self.learn(index, entry, &place, ptr, payload, classes)?;
        let mut text = known.text;
        let value = slot::interpret(ty, slot, payload, |p| {
            *text.get_or_insert_with(|| slot::utf8(p))
        })
        .map_err(|p| place.bad(p))?;
        if let Some(Some(k)) = self.known.get_mut(index) {
            k.text = text;
        }
        Ok((
            value,
            Some(Key {
                class: known.class,
                entry: Some(index),
            }),
        ))
    }

    /// What is known of entry `index`, reading its payload the first time.
    fn learn<'x>(
        &mut self,
        index: usize,
        entry: &AllocEntry,
        place: &Place,
        ptr: u64,
        payload: &'a [u8],
        classes: &mut HashMap<&'x [u8], u32>,
    ) -> Result<Known<'a>>
    where
        'a: 'x,
    {
        if let Some(Some(known)) = self.known.get(index) {
            return Ok(*known);
        }
        let mut crc = None;
        if self.dataset.checks_item_crcs() {
            catalog::check_item_crc(entry, place, ptr, payload)?;
            crc = Some(entry.crc.get());
        }
        let next = u32::try_from(classes.len()).unwrap_or(EMPTY - 1);
        let class = *classes.entry(payload).or_insert(next);
        self.bytes += binfmt_core::bytes::len_u64(payload);
        let known = Known {
            class,
            crc,
            text: None,
        };
        if let Some(slot) = self.known.get_mut(index) {
            *slot = Some(known);
        }
        Ok(known)
    }

    /// The CRC-32 of the payload of `key`, computed at most once per entry.
    fn crc(&mut self, key: Key) -> u32 {
        let Some(index) = key.entry else {
            return 0; // the CRC of no bytes
        };
        let Some(Some(known)) = self.known.get(index) else {
            return 0;
        };
        if let Some(crc) = known.crc {
            return crc;
        }
        let crc = self.alloc.get(index).map_or(0, |e| {
            crc32fast::hash(self.dataset.payload(e.ptr.get(), e.size.get()))
        });
        if let Some(Some(k)) = self.known.get_mut(index) {
            k.crc = Some(crc);
        }
        crc
    }
}
