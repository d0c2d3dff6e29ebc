//! Field descriptors as a reader sees them: decoded, checked, and placed in the row.

use crate::error::{Error, Result};
use crate::header::FIELD_FLAG_NULLABLE;
use crate::raw;
use crate::types::{FieldType, TypeId};

/// One field of a dataset, decoded from its 208-byte descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field<'a> {
    index: usize,
    name: &'a str,
    field_type: FieldType,
    flags: u16,
    metadata_size: u32,
    row_offset: u64,
    descriptor_offset: u64,
}

impl<'a> Field<'a> {
    /// Decodes and checks descriptor `index`, stored at absolute `offset`. `newer_minor`
    /// says whether the file's minor version is newer than ours (known types may then
    /// have longer slots). `row_offset` is filled in by the caller.
    ///
    /// Checks the name (except uniqueness, which needs every descriptor), the metadata
    /// size and the NDARRAY arguments.
    ///
    /// # Errors
    /// [`Error::UnterminatedName`], [`Error::EmptyName`], [`Error::NameNotUtf8`],
    /// [`Error::BadMetadataSize`], [`Error::WrongMetadataSize`], and the NDARRAY
    /// argument errors.
    pub fn parse(
        desc: &'a raw::FieldDescriptor,
        index: usize,
        offset: u64,
        newer_minor: bool,
    ) -> Result<Field<'a>> {
        let name = parse_name(&desc.name, index, offset)?;
        let type_id = TypeId(desc.type_id.get());
        let metadata_size = desc.metadata_size.get();
        let size_at = offset.saturating_add(68);
        if metadata_size == 0 || metadata_size % 8 != 0 {
            return Err(Error::BadMetadataSize {
                offset: size_at,
                field: index,
                size: metadata_size,
            });
        }
        if let Some(expected) = type_id.metadata_size() {
            let ok = if newer_minor {
                metadata_size >= expected
            } else {
                metadata_size == expected
            };
            if !ok {
                return Err(Error::WrongMetadataSize {
                    offset: size_at,
                    field: index,
                    type_id,
                    size: metadata_size,
                    expected,
                    newer: newer_minor,
                });
            }
        }
        let field_type =
            FieldType::from_descriptor(type_id, &desc.arguments, offset.saturating_add(76), index)?;
        Ok(Field {
            index,
            name,
            field_type,
            flags: desc.flags.get(),
            metadata_size,
            row_offset: 0,
            descriptor_offset: offset,
        })
    }

    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    pub(crate) fn set_row_offset(&mut self, row_offset: u64) {
        self.row_offset = row_offset;
    }

    /// The field's position among the descriptors.
    #[must_use]
    pub const fn index(&self) -> usize {
        self.index
    }

    /// The field's name.
    #[must_use]
    pub const fn name(&self) -> &'a str {
        self.name
    }

    /// The field's type with its arguments.
    #[must_use]
    pub const fn field_type(&self) -> FieldType {
        self.field_type
    }

    #[cfg(feature = "alloc")]
    pub(crate) const fn field_type_ref(&self) -> &FieldType {
        &self.field_type
    }

    /// The stored type id.
    #[must_use]
    pub const fn type_id(&self) -> TypeId {
        self.field_type.type_id()
    }

    /// The stored field flags.
    #[must_use]
    pub const fn flags(&self) -> u16 {
        self.flags
    }

    /// True when an all-zero slot reads as null: NULLABLE is set on a payload type
    /// (readers ignore NULLABLE on INT and FLOAT).
    #[must_use]
    pub const fn is_nullable(&self) -> bool {
        self.flags & FIELD_FLAG_NULLABLE != 0 && self.type_id().has_payload()
    }

    /// Bytes of this field in every metadata row.
    #[must_use]
    pub const fn metadata_size(&self) -> u32 {
        self.metadata_size
    }

    /// Offset of this field's slot within a metadata row.
    #[must_use]
    pub const fn row_offset(&self) -> u64 {
        self.row_offset
    }

    /// Absolute offset of this field's descriptor.
    #[must_use]
    pub const fn descriptor_offset(&self) -> u64 {
        self.descriptor_offset
    }
}

/// The bytes before the first NUL, which must be non-empty UTF-8.
fn parse_name(name: &[u8; 64], field: usize, offset: u64) -> Result<&str> {
    let len = name
        .iter()
        .position(|&b| b == 0)
        .ok_or(Error::UnterminatedName { offset, field })?;
    if len == 0 {
        return Err(Error::EmptyName { offset, field });
    }
    let bytes = name.get(..len).unwrap_or(&[]);
    core::str::from_utf8(bytes).map_err(|_| Error::NameNotUtf8 { offset, field })
}
