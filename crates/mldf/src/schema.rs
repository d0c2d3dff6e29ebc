//! The fields a writer is given: names, types and nullability, checked before any byte
//! is written.

use alloc::string::String;
use alloc::vec::Vec;

use binfmt_core::Kind;
use binfmt_core::le::{U16, U32};
use zerocopy::IntoBytes;

use crate::error::{ErrorKind, Result};
use crate::header::FIELD_FLAG_NULLABLE;
use crate::raw::{DESCRIPTOR_SIZE, FieldDescriptor};
use crate::types::FieldType;

/// One field of a [`Schema`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FieldDef {
    /// The name: 1 to 63 bytes of UTF-8 without NUL, unique in the schema by bytes.
    pub name: String,
    /// The type and its arguments.
    pub field_type: FieldType,
    /// Whether a sample may leave the value out ([`crate::Value::Null`]); only payload
    /// types can be NULLABLE.
    pub nullable: bool,
}

/// The fields of a dataset, in order.
///
/// Building a schema checks nothing; [`Schema::validate`] (which every writer calls
/// before writing a byte) checks it all, so a schema made from untrusted input (the
/// command line's SCHEMA.json) costs memory in proportion to that input only.
///
/// ```
/// use mldf::{Dtype, FieldType, NdarraySpec, Schema};
/// # fn main() -> Result<(), mldf::Error> {
/// let schema = Schema::new()
///     .field("label", FieldType::Int)
///     .nullable_field("image", FieldType::ImageJpeg { quality: 90 })
///     .field("embedding", FieldType::Ndarray(NdarraySpec::new(Dtype::F32, &[512])?));
/// schema.validate()?;
/// assert_eq!(schema.row_size(), 8 + 24 + 16);
/// assert!(Schema::new().field("x".repeat(64), FieldType::Int).validate().is_err());
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Schema {
    fields: Vec<FieldDef>,
}

impl Schema {
    /// A schema without fields.
    #[must_use]
    pub fn new() -> Self {
        Schema::default()
    }

    /// Adds a field whose values are always present.
    #[must_use]
    pub fn field(mut self, name: impl Into<String>, field_type: FieldType) -> Self {
        self.push(FieldDef {
            name: name.into(),
            field_type,
            nullable: false,
        });
        self
    }

    /// Adds a NULLABLE field (a payload type whose values may be missing).
    #[must_use]
    pub fn nullable_field(mut self, name: impl Into<String>, field_type: FieldType) -> Self {
        self.push(FieldDef {
            name: name.into(),
            field_type,
            nullable: true,
        });
        self
    }

    /// Appends a field.
    pub fn push(&mut self, field: FieldDef) {
        self.fields.push(field);
    }

    /// The fields, in order.
    #[must_use]
    pub fn fields(&self) -> &[FieldDef] {
        &self.fields
    }

    /// The number of fields.
    #[must_use]
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// True when there are no fields.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// The schema of an existing dataset (for copying or rewriting one).
    #[must_use]
    pub fn of(dataset: &crate::Dataset<'_>) -> Schema {
        Schema::from_fields(dataset.fields())
    }

    /// The schema of these fields (of a [`crate::Dataset`] or a [`crate::Reader`]).
    #[must_use]
    pub fn from_fields(fields: &[crate::Field]) -> Schema {
        Schema {
            fields: fields
                .iter()
                .map(|f| FieldDef {
                    name: f.name().into(),
                    field_type: f.field_type(),
                    nullable: f.is_nullable(),
                })
                .collect(),
        }
    }

    /// Checks every rule a writer enforces on a schema.
    ///
    /// # Errors
    /// [`ErrorKind::TooManyFields`], [`ErrorKind::NameLength`],
    /// [`ErrorKind::NameHasNul`], [`ErrorKind::NameTaken`],
    /// [`ErrorKind::UnwritableType`], [`ErrorKind::NullableScalar`].
    pub fn validate(&self) -> Result<()> {
        if self.fields.len() > usize::from(u16::MAX) {
            return Err(ErrorKind::TooManyFields {
                count: self.fields.len(),
            }
            .unlocated());
        }
        let mut order: Vec<usize> = (0..self.fields.len()).collect();
        for (index, f) in self.fields.iter().enumerate() {
            let len = f.name.len();
            if len == 0 || len > 63 {
                return Err(ErrorKind::NameLength { field: index, len }.unlocated());
            }
            if f.name.as_bytes().contains(&0) {
                return Err(ErrorKind::NameHasNul { field: index }.unlocated());
            }
            let type_id = f.field_type.type_id();
            if !type_id.is_defined() {
                return Err(ErrorKind::UnwritableType {
                    field: index,
                    type_id,
                }
                .unlocated());
            }
            if f.nullable && !type_id.has_payload() {
                return Err(ErrorKind::NullableScalar { field: index }.unlocated());
            }
        }
        let name = |i: usize| self.fields.get(i).map_or(&[][..], |f| f.name.as_bytes());
        order.sort_by(|&a, &b| name(a).cmp(name(b)).then(a.cmp(&b)));
        for pair in order.windows(2) {
            if let [a, b] = *pair
                && name(a) == name(b)
            {
                return Err(ErrorKind::NameTaken { field: b, first: a }.unlocated());
            }
        }
        Ok(())
    }

    /// Bytes per metadata row.
    #[must_use]
    pub fn row_size(&self) -> u64 {
        self.fields
            .iter()
            .filter_map(|f| f.field_type.type_id().metadata_size())
            .map(u64::from)
            .sum()
    }

    /// The descriptor table, 208 bytes per field (call [`Schema::validate`] first).
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    pub(crate) fn descriptors(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.fields.len().saturating_mul(DESCRIPTOR_SIZE));
        for f in &self.fields {
            let mut name = [0u8; 64];
            for (dst, src) in name.iter_mut().zip(f.name.as_bytes()) {
                *dst = *src;
            }
            let type_id = f.field_type.type_id();
            let desc = FieldDescriptor {
                name,
                type_id: U16::new(type_id.0),
                flags: U16::new(if f.nullable { FIELD_FLAG_NULLABLE } else { 0 }),
                metadata_size: U32::new(type_id.metadata_size().unwrap_or(0)),
                pad: U32::ZERO,
                arguments: f.field_type.arguments(),
                reserved: [0; 4],
            };
            out.extend_from_slice(desc.as_bytes());
        }
        out
    }
}
