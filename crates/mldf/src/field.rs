//! Field descriptors as a reader sees them: decoded, checked, and placed in the row.

use binfmt_core::{Kind, field_offset};

use crate::error::{ErrorKind, Result};
use crate::header::FIELD_FLAG_NULLABLE;
use crate::raw;
use crate::types::{FieldType, TypeId};

/// One field of a dataset, decoded from its 208-byte descriptor.
///
/// It owns its name (at most 63 bytes), so the same type serves a [`crate::Dataset`]
/// over a slice and a [`crate::Reader`] over ranges of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Field {
    index: usize,
    name: [u8; 64],
    name_len: u8,
    field_type: FieldType,
    flags: u16,
    metadata_size: u32,
    row_offset: u64,
    descriptor_offset: u64,
}

impl Field {
    /// Decodes and checks descriptor `index`, stored at absolute `offset`. `newer_minor`
    /// says whether the file's minor version is newer than ours (known types may then
    /// have longer slots). The row offset is filled in by the dataset, which sees every
    /// descriptor.
    ///
    /// Checks the name (except uniqueness, which needs every descriptor), the metadata
    /// size and the NDARRAY arguments.
    ///
    /// # Errors
    /// [`ErrorKind::UnterminatedName`], [`ErrorKind::EmptyName`],
    /// [`ErrorKind::NameNotUtf8`], [`ErrorKind::BadMetadataSize`],
    /// [`ErrorKind::WrongMetadataSize`], and the NDARRAY argument errors.
    pub fn parse(
        desc: &raw::FieldDescriptor,
        index: usize,
        offset: u64,
        newer_minor: bool,
    ) -> Result<Field> {
        let name_len = parse_name(&desc.name, index, offset)?;
        let type_id = TypeId(desc.type_id.get());
        let metadata_size = desc.metadata_size.get();
        let size_at = offset.saturating_add(field_offset!(raw::FieldDescriptor, metadata_size));
        if metadata_size == 0 || !metadata_size.is_multiple_of(8) {
            return Err(ErrorKind::BadMetadataSize {
                field: index,
                size: metadata_size,
            }
            .at(size_at));
        }
        if let Some(expected) = type_id.metadata_size() {
            let ok = if newer_minor {
                metadata_size >= expected
            } else {
                metadata_size == expected
            };
            if !ok {
                return Err(ErrorKind::WrongMetadataSize {
                    field: index,
                    type_id,
                    size: metadata_size,
                    expected,
                    newer: newer_minor,
                }
                .at(size_at));
            }
        }
        let args_at = offset.saturating_add(field_offset!(raw::FieldDescriptor, arguments));
        let field_type = FieldType::from_descriptor(type_id, &desc.arguments, args_at, index)?;
        Ok(Field {
            index,
            name: desc.name,
            name_len,
            field_type,
            flags: desc.flags.get(),
            metadata_size,
            row_offset: 0,
            descriptor_offset: offset,
        })
    }

    #[cfg(feature = "alloc")]
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
    pub fn name(&self) -> &str {
        // Checked to be UTF-8 by `parse`; the fallback cannot be taken.
        core::str::from_utf8(self.name_bytes()).unwrap_or_default()
    }

    /// The name's bytes (what uniqueness and lookups compare).
    #[must_use]
    pub fn name_bytes(&self) -> &[u8] {
        self.name
            .get(..usize::from(self.name_len))
            .unwrap_or_default()
    }

    /// The field's type with its arguments.
    #[must_use]
    pub const fn field_type(&self) -> FieldType {
        self.field_type
    }

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

/// The length of the bytes before the first NUL, which must be non-empty UTF-8.
fn parse_name(name: &[u8; 64], field: usize, offset: u64) -> Result<u8> {
    let len = name
        .iter()
        .position(|&b| b == 0)
        .ok_or_else(|| ErrorKind::UnterminatedName { field }.at(offset))?;
    if len == 0 {
        return Err(ErrorKind::EmptyName { field }.at(offset));
    }
    let bytes = name.get(..len).unwrap_or_default();
    core::str::from_utf8(bytes).map_err(|_| ErrorKind::NameNotUtf8 { field }.at(offset))?;
    // A NUL was found within 64 bytes, so the length is at most 63.
    Ok(u8::try_from(len).unwrap_or(u8::MAX))
}
