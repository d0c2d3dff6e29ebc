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
//!         w.add(&[Value::Int(l), Value::Bytes(b"same bytes")])?;
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
use core::hash::BuildHasher;
use core::ops::ControlFlow;
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::RandomState;
use std::vec;
use std::vec::Vec;

use binfmt_core::Version;
use binfmt_core::data::Data;

use crate::catalog;
use crate::dataset::{Dataset, PIECE_SIZE};
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
/// `a` and `b` are datasets over any [`Data`]: slices, or
/// [`ReadCache`](binfmt_core::cache::ReadCache)s over files or object stores. Over a
/// cache the metadata rows are read in blocks and each distinct payload once, announced
/// with [`Data::prefetch`]; neither is kept, so memory does not grow with the files (a
/// payload's identity is then a 128-bit keyed digest of its bytes instead of the bytes).
/// The values a difference shows are read again, with [`Dataset::fetch`], only for that
/// difference: they live for the call of `sink`.
///
/// Work: O(F) for the fields, O(N · F) slot reads (N the smaller sample count), plus one
/// read of each distinct payload of each file: linear in the two files' sizes. Memory:
/// one small record per allocation entry touched.
///
/// # Errors
/// The first value that cannot be read, and from which file: the access rules of
/// [`Dataset::value`] (with item CRCs when the dataset checks them), an allocation table
/// that is out of order, a payload without its allocation entry, and I/O errors.
pub fn diff<'a, 'b, A: Data<'a>, B: Data<'b>>(
    a: &Dataset<'a, A>,
    b: &Dataset<'b, B>,
    options: &DiffOptions,
    sink: &mut dyn FnMut(Difference<'_, '_, '_>) -> ControlFlow<()>,
) -> core::result::Result<DiffSummary, DiffError>
where
    Error: From<A::Error> + From<B::Error>,
{
    let mut summary = DiffSummary::default();
    let mut emit = |summary: &mut DiffSummary, d: Difference<'_, '_, '_>| {
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
    let on = |side: Side| move |error: Error| DiffError { side, error };
    let fields_a: Vec<usize> = common.iter().map(|(fa, _)| fa.index()).collect();
    let fields_b: Vec<usize> = common.iter().map(|&(_, ib)| ib).collect();
    let mut side_a = Payloads::new(a, fields_a).map_err(on(Side::A))?;
    let mut side_b = Payloads::new(b, fields_b).map_err(on(Side::B))?;
    // Distinct payload contents of both files, numbered: two payloads are equal exactly
    // when they get the same number. The map's hasher is keyed at random (std's
    // `RandomState`), so crafted payloads cannot make it degrade; so are the digests
    // that stand for payloads read by range.
    // One entry per distinct allocation entry at most: sized by the files.
    let exact = side_a.whole.is_some() && side_b.whole.is_some();
    let mut classes = Classes {
        map: HashMap::with_capacity(side_a.alloc.len().saturating_add(side_b.alloc.len())),
        exact,
        key: RandomState::new(),
    };
    for sample in 0..samples {
        for (i, &(fa, ib)) in common.iter().enumerate() {
            let (sa, ka) = side_a.read(sample, i, &mut classes).map_err(on(Side::A))?;
            let (sb, kb) = side_b.read(sample, i, &mut classes).map_err(on(Side::B))?;
            summary.values_compared += 1;
            let same = match (&sa, &sb) {
                (Seen::Unknown(x), Seen::Unknown(y)) => x == y,
                (Seen::Shape(x), Seen::Shape(y)) => {
                    x == y && ka.map(|k| k.class) == kb.map(|k| k.class)
                }
                _ => false,
            };
            if !same {
                let va = a.fetch(sample, fa.index()).map_err(on(Side::A))?;
                let vb = b.fetch(sample, ib).map_err(on(Side::B))?;
                let crc_a = ka.map(|k| side_a.crc(k, va.payload()));
                let crc_b = kb.map(|k| side_b.crc(k, vb.payload()));
                let d = Difference::Value(ValueDiff {
                    sample,
                    field: fa,
                    field_b: ib,
                    a: va.value(),
                    b: vb.value(),
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

/// Reads one header value to compare.
type HeaderGet = fn(&crate::Header) -> HeaderValue;

/// The header values every diff compares, in order.
const HEADER_VALUES: [(&str, HeaderGet); 5] = [
    ("version", |h| HeaderValue::Version(h.version())),
    ("flags", |h| HeaderValue::Flags(h.flags())),
    ("num_samples", |h| HeaderValue::Number(h.num_samples())),
    ("num_fields", |h| {
        HeaderValue::Number(u64::from(h.num_fields()))
    }),
    ("page_size", |h| {
        HeaderValue::Number(u64::from(h.page_size()))
    }),
];

/// The header values a layout diff compares too, before the file size.
const LAYOUT_VALUES: [(&str, HeaderGet); 6] = [
    ("field_desc_ptr", |h| {
        HeaderValue::Number(h.field_desc_ptr())
    }),
    ("metadata_ptr", |h| HeaderValue::Number(h.metadata_ptr())),
    ("data_ptr", |h| HeaderValue::Number(h.data_ptr())),
    ("alloc_table_ptr", |h| {
        HeaderValue::Number(h.alloc_table_ptr())
    }),
    ("index_crc", |h| HeaderValue::Crc(h.index_crc())),
    ("header_crc", |h| HeaderValue::Crc(h.header_crc())),
];

fn header_values<'a, 'b, A: Data<'a>, B: Data<'b>>(
    a: &Dataset<'a, A>,
    b: &Dataset<'b, B>,
    options: &DiffOptions,
) -> Vec<(&'static str, HeaderValue, HeaderValue)> {
    let (ha, hb) = (a.header(), b.header());
    let compare = |&(name, get): &(&'static str, HeaderGet)| (name, get(ha), get(hb));
    let mut values: Vec<_> = HEADER_VALUES.iter().map(compare).collect();
    if options.layout {
        values.extend(LAYOUT_VALUES.iter().map(compare));
        values.push((
            "file_size",
            HeaderValue::Number(a.file_size()),
            HeaderValue::Number(b.file_size()),
        ));
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
struct Known {
    class: u32,
    crc: Option<u32>,
    /// Whether its bytes are UTF-8, once a text value needed to know.
    text: Option<core::result::Result<(), ValueProblem>>,
}

/// A payload's content, as [`Classes`] keys it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Content<'x> {
    /// The bytes, when both files are in memory.
    Bytes(&'x [u8]),
    /// A 64-bit digest of the bytes keyed at random (SipHash: unforgeable without the
    /// key) and their CRC-32, for payloads read by range.
    Digest(u64, u32),
}

/// The distinct payload contents of both files, numbered.
struct Classes<'x> {
    map: HashMap<Content<'x>, u32>,
    exact: bool,
    key: RandomState,
}

impl<'x> Classes<'x> {
    /// The number of `payload`'s content, whose CRC-32 is `crc`: `whole` is the same
    /// bytes borrowed from a file in memory, when it is.
    fn class(&mut self, payload: &[u8], whole: Option<&'x [u8]>, crc: u32) -> u32 {
        let content = match whole {
            Some(bytes) if self.exact => Content::Bytes(bytes),
            _ => Content::Digest(self.key.hash_one(payload), crc),
        };
        let next = u32::try_from(self.map.len()).unwrap_or(EMPTY - 1);
        *self.map.entry(content).or_insert(next)
    }
}

/// What a slot says, for comparing: its shape, or an unknown type's bytes.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    Shape(Shape),
    Unknown(Vec<u8>),
}

/// Metadata rows read by range, a block at a time.
struct Rows<'d> {
    /// The first sample of the block.
    first: u64,
    /// How many samples it holds.
    count: u64,
    bytes: Cow<'d, [u8]>,
}

/// One file's payloads, each read once.
struct Payloads<'p, 'd, D: Data<'d>> {
    dataset: &'p Dataset<'d, D>,
    /// The file, when it is in memory.
    whole: Option<&'d [u8]>,
    /// The fields compared, in order.
    fields: Vec<usize>,
    alloc: &'d [AllocEntry],
    known: Vec<Option<Known>>,
    /// Entries announced for reading ahead, one bit each.
    announced: Vec<u64>,
    /// The entry found last: payloads are usually met in file order.
    hint: usize,
    bytes: u64,
    rows: Rows<'d>,
    /// Stands in for the bytes of a payload read before: only its length matters then.
    zeros: Vec<u8>,
}

impl<'p, 'd, D: Data<'d>> Payloads<'p, 'd, D>
where
    Error: From<D::Error>,
{
    fn new(dataset: &'p Dataset<'d, D>, fields: Vec<usize>) -> Result<Self> {
        let catalog = dataset.catalog();
        let alloc = dataset.alloc_read()?;
        // Disjoint entries bound the bytes read by the file's size.
        catalog::first_entry_problem(alloc, catalog.alloc.start, &catalog.data)?;
        Ok(Payloads {
            dataset,
            whole: dataset.data().whole(),
            fields,
            alloc,
            // One small record per entry: E is bounded by the file size / 16.
            known: vec![None; alloc.len()],
            announced: vec![0; alloc.len().div_ceil(64)],
            hint: 0,
            bytes: 0,
            rows: Rows {
                first: 0,
                count: 0,
                bytes: Cow::Borrowed(&[]),
            },
            zeros: Vec::new(),
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

    /// Over a cache, makes the block of rows hold `sample`: reads the next block and
    /// announces the payloads it will read for the first time, in order.
    fn load_rows(&mut self, sample: u64) -> Result<()> {
        if self.whole.is_some()
            || (sample >= self.rows.first && sample - self.rows.first < self.rows.count)
        {
            return Ok(());
        }
        let catalog = self.dataset.catalog();
        let row_size = catalog.row_size;
        let remaining = self.dataset.num_samples().saturating_sub(sample);
        // Rows of no bytes: every sample in one block.
        let count = PIECE_SIZE
            .checked_div(row_size)
            .map_or(remaining, |n| n.max(1).min(remaining));
        let start = catalog
            .metadata
            .start
            .saturating_add(sample.saturating_mul(row_size));
        let len = count.saturating_mul(row_size);
        let data = self.dataset.data();
        let bytes = if len == 0 {
            Cow::Borrowed(&[][..])
        } else {
            data.payload(start, len, "metadata row")?
        };
        self.rows = Rows {
            first: sample,
            count,
            bytes,
        };
        let mut ranges = Vec::new();
        for s in sample..sample.saturating_add(count) {
            for i in 0..self.fields.len() {
                let Ok((place, hot)) = self.place(s, i) else {
                    continue;
                };
                let slot = self.rows_slot(&place, &hot);
                if let Ok(Located::Payload { ptr, size }) =
                    slot::locate(&hot, slot, &catalog.data, &place)
                    && size > 0
                    && let Some(index) = catalog::entry_index(self.alloc, ptr)
                    && self.known.get(index).is_some_and(Option::is_none)
                    && crate::verify::mark(&mut self.announced, index)
                {
                    ranges.push(ptr..ptr.saturating_add(u64::from(size)));
                }
            }
        }
        data.prefetch(&ranges)?;
        Ok(())
    }

    /// Where the slot of the `i`-th compared field of `sample` is.
    fn place(&self, sample: u64, i: usize) -> Result<(Place, slot::Hot)> {
        let field = self.fields.get(i).copied().unwrap_or(usize::MAX);
        self.dataset
            .catalog()
            .slot(self.dataset.num_samples(), sample, field)
    }

    /// The slot at `place` in the block of rows.
    fn rows_slot(&self, place: &Place, hot: &slot::Hot) -> &[u8] {
        let catalog = self.dataset.catalog();
        let block_start = catalog
            .metadata
            .start
            .saturating_add(self.rows.first.saturating_mul(catalog.row_size));
        let from = usize::try_from(place.offset.saturating_sub(block_start)).unwrap_or(usize::MAX);
        from.checked_add(hot.len)
            .and_then(|to| self.rows.bytes.get(from..to))
            .unwrap_or_default()
    }

    /// What the `i`-th compared field of `sample` says, and its payload's identity.
    fn read<'x>(
        &mut self,
        sample: u64,
        i: usize,
        classes: &mut Classes<'x>,
    ) -> Result<(Seen, Option<Key>)>
    where
        'd: 'x,
    {
        self.load_rows(sample)?;
        let (place, hot) = self.place(sample, i)?;
        let slot: Cow<'_, [u8]> = match self.whole {
            Some(all) => Cow::Borrowed(binfmt_core::bytes::slice(
                all,
                place.offset,
                binfmt_core::bytes::to_u64(hot.len),
                "metadata slot",
            )?),
            None => Cow::Owned(self.rows_slot(&place, &hot).to_vec()),
        };
        let catalog = self.dataset.catalog();
        let located = slot::locate(&hot, &slot, &catalog.data, &place)?;
        let empty = Key {
            class: EMPTY,
            entry: None,
        };
        let (ptr, size) = match located {
            // An all-zero slot: a scalar, null, or an empty payload.
            Located::Done(value) => {
                let key = value.payload().map(|_| empty);
                return Ok((seen(&value), key));
            }
            Located::Payload { ptr, size } => (ptr, size),
        };
        let ty = self.dataset.field(place.field)?.field_type_ref();
        if size == 0 {
            let value = slot::interpret(ty, &slot, &[], slot::utf8).map_err(|p| place.bad(p))?;
            return Ok((seen(&value), Some(empty)));
        }
        let index = self.entry_index(ptr);
        let (index, entry) = catalog::entry_checked(self.alloc, index, &place, ptr, size)?;
        let known = self.known.get(index).copied().flatten();
        let len = usize::try_from(size).unwrap_or(usize::MAX);
        let payload = |this: &Self| -> Result<Cow<'d, [u8]>> {
            Ok(match this.whole {
                Some(all) => Cow::Borrowed(binfmt_core::bytes::slice(
                    all,
                    ptr,
                    u64::from(size),
                    "item",
                )?),
                None => this.dataset.data().payload(ptr, u64::from(size), "item")?,
            })
        };
        // The bytes are read the first time, and again only for a text value whose UTF-8
        // nobody checked yet (at most once more per entry).
        let mut read: Option<Cow<'d, [u8]>> = match known {
            None => Some(payload(self)?),
            Some(_) => None,
        };
        let known = match (known, &read) {
            (Some(known), _) => known,
            (None, Some(payload)) => {
                let mut crc = None;
                if self.dataset.checks_item_crcs() {
                    catalog::check_item_crc(entry, &place, ptr, payload)?;
                    crc = Some(entry.crc.get());
                }
                let borrowed = match payload {
                    Cow::Borrowed(b) => Some(*b),
                    Cow::Owned(_) => None,
                };
                if borrowed.is_none() || !classes.exact {
                    // The digest needs the CRC: checked above, or computed now.
                    crc = Some(crc.unwrap_or_else(|| crc32fast::hash(payload)));
                }
                let class = classes.class(payload, borrowed, crc.unwrap_or(0));
                self.bytes += u64::from(size);
                Known {
                    class,
                    crc,
                    text: None,
                }
            }
            (None, None) => return Err(binfmt_core::Error::truncated("item", ptr, 1, 0).into()),
        };
        let mut text = known.text;
        let mut needed = false;
        if read.is_none() {
            if self.zeros.len() < len {
                self.zeros.resize(len, 0);
            }
            let zeros = self.zeros.get(..len).unwrap_or_default();
            let checked = slot::interpret(ty, &slot, zeros, |_| match text {
                Some(known) => known.map(|()| ""),
                None => {
                    needed = true;
                    Ok("")
                }
            });
            if !needed {
                checked.map_err(|p| place.bad(p))?;
                if let Ok(value) = checked {
                    return Ok((
                        seen(&value),
                        Some(Key {
                            class: known.class,
                            entry: Some(index),
                        }),
                    ));
                }
            }
            read = Some(payload(self)?);
        }
        let bytes = read.as_deref().unwrap_or_default();
        let value = slot::interpret(ty, &slot, bytes, |p| {
            let checked = slot::utf8(p);
            text = Some(checked.map(|_| ()));
            checked
        })
        .map_err(|p| place.bad(p))?;
        if let Some(k) = self.known.get_mut(index) {
            *k = Some(Known { text, ..known });
        }
        Ok((
            seen(&value),
            Some(Key {
                class: known.class,
                entry: Some(index),
            }),
        ))
    }

    /// The CRC-32 of the payload of `key` (whose bytes are `payload`), computed at most
    /// once per entry.
    fn crc(&mut self, key: Key, payload: &[u8]) -> u32 {
        let Some(index) = key.entry else {
            return 0; // the CRC of no bytes
        };
        let Some(Some(known)) = self.known.get(index) else {
            return 0;
        };
        if let Some(crc) = known.crc {
            return crc;
        }
        let crc = crc32fast::hash(payload);
        if let Some(Some(k)) = self.known.get_mut(index) {
            k.crc = Some(crc);
        }
        crc
    }
}

/// What `value` says, for comparing.
fn seen(value: &Value<'_>) -> Seen {
    match value {
        Value::Unknown(bytes) => Seen::Unknown(bytes.to_vec()),
        other => Seen::Shape(Shape::of(other)),
    }
}
