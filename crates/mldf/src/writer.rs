//! The streaming writer.
//!
//! Payloads go to the output as samples arrive and are never buffered; only the
//! fixed-size metadata rows and the allocation entries (16 bytes per payload) stay in
//! memory until [`Writer::finish`], which writes them, the checksums and, last, the
//! header. Every value of a sample is checked before any of its bytes is written, so a
//! refused sample leaves the writer as it was.

use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::Path;
use std::vec::Vec;

use binfmt_core::align::align_up_checked;
use binfmt_core::atomic::AtomicFile;
use binfmt_core::le::{F64, I64, U16, U32, U64};
use zerocopy::IntoBytes;

use crate::error::{Error, Result, ValueProblem};
use crate::header::{
    DEFAULT_PAGE_SIZE, DESCRIPTORS_OFFSET, FLAG_CHECKSUMMED, FLAG_LITTLE_ENDIAN, HEADER_OFFSET,
    MAGIC, VERSION, is_valid_page_size,
};
use crate::image::{jpeg_info, png_info};
use crate::json::validate_json;
use crate::raw::{self, AllocEntry, AudioMeta, BytesMeta, ImageMeta, TextMeta};
use crate::schema::Schema;
use crate::slot;
use crate::types::{FieldType, ImageMode};
use crate::value::{Image, Text, Value};

/// Where the metadata table goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layout {
    /// The sample count is known up front: the metadata table sits before the data region
    /// (descriptors, metadata, data, allocation table). `finish` fails unless exactly
    /// this many samples were pushed.
    Canonical {
        /// The number of samples that will be pushed.
        num_samples: u64,
    },
    /// The sample count is learnt at the end: the metadata table follows the data
    /// region (descriptors, data, metadata, allocation table).
    Streaming,
}

/// How a [`Writer`] lays out and protects the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WriterOptions {
    page_size: u32,
    checksums: bool,
    layout: Layout,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            page_size: DEFAULT_PAGE_SIZE,
            checksums: false,
            layout: Layout::Streaming,
        }
    }
}

impl WriterOptions {
    /// 2 MiB pages, no checksums, streaming layout.
    #[must_use]
    pub fn new() -> Self {
        WriterOptions::default()
    }

    /// The page size the data region is aligned to: a power of two from 4096 to 2^31.
    #[must_use]
    pub const fn page_size(mut self, page_size: u32) -> Self {
        self.page_size = page_size;
        self
    }

    /// Whether to store CRC-32s of every item, of the index and of the header
    /// (FLAG_CHECKSUMMED).
    #[must_use]
    pub const fn checksums(mut self, on: bool) -> Self {
        self.checksums = on;
        self
    }

    /// Declares the sample count, which selects the canonical layout.
    #[must_use]
    pub const fn num_samples(mut self, num_samples: u64) -> Self {
        self.layout = Layout::Canonical { num_samples };
        self
    }

    /// Sets the layout directly.
    #[must_use]
    pub const fn layout(mut self, layout: Layout) -> Self {
        self.layout = layout;
        self
    }
}

/// One value made ready to write: its slot and its payload.
struct Prepared<'v> {
    slot: [u8; 24],
    len: usize,
    payload: &'v [u8],
}

/// Writes an MLDF file to any seekable output, sample by sample.
///
/// The output must be empty: the writer starts at offset 0 and leaves the gaps between
/// sections to be filled with zeros by the output (a file's holes, a `Cursor`'s
/// zero-extension). The bytes depend only on the schema, the options and the samples.
#[derive(Debug)]
pub struct Writer<W: Write + Seek> {
    out: W,
    fields: Vec<(FieldType, bool)>,
    checksums: bool,
    page_size: u32,
    layout: Layout,
    descriptors: Vec<u8>,
    row_size: usize,
    rows: Vec<u8>,
    alloc: Vec<AllocEntry>,
    data_ptr: u64,
    metadata_ptr: u64,
    pos: u64,
    end: u64,
    samples: u64,
    poisoned: bool,
}

impl<W: Write + Seek> Writer<W> {
    /// Checks the schema and options, then writes the magic, a zero header (so an
    /// unfinished file reads as "incomplete") and the field descriptors.
    ///
    /// # Errors
    /// Schema errors ([`Schema::validate`]), [`Error::BadPageSize`],
    /// [`Error::SamplesWithoutFields`] (canonical layout with samples but no fields),
    /// an overflowing layout, [`Error::Io`].
    pub fn new(mut out: W, schema: &Schema, options: WriterOptions) -> Result<Self> {
        schema.validate()?;
        if !is_valid_page_size(options.page_size) {
            return Err(Error::BadPageSize {
                offset: None,
                page_size: options.page_size,
            });
        }
        let row_size = usize::try_from(schema.row_size()).map_err(|_| Error::TooManyFields {
            count: schema.len(),
        })?;
        let descriptors = schema.descriptors();
        let page = u64::from(options.page_size);
        let desc_end = DESCRIPTORS_OFFSET + binfmt_core::bytes::len_u64(&descriptors);
        let overflow = |what| Error::Layout(binfmt_core::Error::Overflow { what, offset: 0 });
        let (metadata_ptr, data_ptr) = match options.layout {
            Layout::Canonical { num_samples } => {
                if num_samples > 0 && schema.is_empty() {
                    return Err(Error::SamplesWithoutFields);
                }
                let metadata_ptr = align_up_checked(desc_end, 64, "metadata table", 0)?;
                let meta_len = num_samples
                    .checked_mul(row_size as u64)
                    .ok_or(overflow("metadata table"))?;
                let meta_end = metadata_ptr
                    .checked_add(meta_len)
                    .ok_or(overflow("metadata table"))?;
                (
                    metadata_ptr,
                    align_up_checked(meta_end, page, "data region", 0)?,
                )
            }
            Layout::Streaming => (0, align_up_checked(desc_end, page, "data region", 0)?),
        };
        out.seek(SeekFrom::Start(0))?;
        out.write_all(MAGIC)?;
        out.write_all(&[0u8; 64])?;
        out.write_all(&descriptors)?;
        out.seek(SeekFrom::Start(data_ptr))?;
        Ok(Writer {
            out,
            fields: schema
                .fields()
                .iter()
                .map(|f| (f.field_type, f.nullable))
                .collect(),
            checksums: options.checksums,
            page_size: options.page_size,
            layout: options.layout,
            descriptors,
            row_size,
            rows: Vec::new(),
            alloc: Vec::new(),
            data_ptr,
            metadata_ptr,
            pos: data_ptr,
            end: desc_end,
            samples: 0,
            poisoned: false,
        })
    }

    /// The number of samples pushed so far.
    #[must_use]
    pub const fn samples(&self) -> u64 {
        self.samples
    }

    /// Appends one sample: one value per field, in schema order.
    ///
    /// Every value is checked first (type, JSON text, image header, audio and text
    /// rules, NDARRAY size, null only in NULLABLE fields); a refused sample writes
    /// nothing. Payloads are then written straight to the output.
    ///
    /// # Errors
    /// [`Error::SamplesWithoutFields`], [`Error::ValueCount`], [`Error::SampleCount`]
    /// (more samples than declared), [`Error::InvalidValue`], [`Error::Poisoned`] after
    /// an earlier I/O error, [`Error::Io`].
    pub fn push(&mut self, values: &[Value<'_>]) -> Result<()> {
        if self.poisoned {
            return Err(Error::Poisoned);
        }
        if self.fields.is_empty() {
            return Err(Error::SamplesWithoutFields);
        }
        if let Layout::Canonical { num_samples } = self.layout {
            if self.samples >= num_samples {
                return Err(Error::SampleCount {
                    expected: num_samples,
                    got: self.samples.saturating_add(1),
                });
            }
        }
        if values.len() != self.fields.len() {
            return Err(Error::ValueCount {
                sample: self.samples,
                expected: self.fields.len(),
                got: values.len(),
            });
        }
        let mut prepared = Vec::with_capacity(values.len());
        for (index, (value, &(ty, nullable))) in values.iter().zip(&self.fields).enumerate() {
            let p = prepare(&ty, nullable, value).map_err(|problem| Error::InvalidValue {
                sample: self.samples,
                field: index,
                problem,
            })?;
            prepared.push(p);
        }
        // Nothing has been written for this sample yet; from here on a failure is I/O.
        let row_start = self.rows.len();
        for p in &prepared {
            let mut slot = p.slot;
            if !p.payload.is_empty() {
                let ptr = self.pos;
                if let Err(e) = self.out.write_all(p.payload) {
                    self.poisoned = true;
                    return Err(e.into());
                }
                let size = u32::try_from(p.payload.len()).unwrap_or(u32::MAX);
                self.pos = ptr.saturating_add(u64::from(size));
                self.end = self.end.max(self.pos);
                if let Some(dst) = slot.get_mut(..8) {
                    dst.copy_from_slice(&ptr.to_le_bytes());
                }
                let crc = if self.checksums {
                    crc32fast::hash(p.payload)
                } else {
                    0
                };
                self.alloc.push(AllocEntry {
                    ptr: U64::new(ptr),
                    size: U32::new(size),
                    crc: U32::new(crc),
                });
            }
            self.rows
                .extend_from_slice(slot.get(..p.len).unwrap_or_default());
        }
        debug_assert_eq!(self.rows.len() - row_start, self.row_size);
        self.samples += 1;
        Ok(())
    }

    /// Writes the metadata table, the allocation table, the checksums and the header,
    /// and hands back the output.
    ///
    /// # Errors
    /// [`Error::SampleCount`] when a canonical layout got fewer samples than declared,
    /// [`Error::Poisoned`], [`Error::Io`].
    pub fn finish(mut self) -> Result<W> {
        if self.poisoned {
            return Err(Error::Poisoned);
        }
        if let Layout::Canonical { num_samples } = self.layout {
            if self.samples != num_samples {
                return Err(Error::SampleCount {
                    expected: num_samples,
                    got: self.samples,
                });
            }
        }
        let rows_len = binfmt_core::bytes::len_u64(&self.rows);
        let alloc_bytes = self.alloc.as_bytes();
        let alloc_table_ptr = match self.layout {
            Layout::Canonical { .. } => {
                let alloc_table_ptr = self.pos;
                write_at(&mut self.out, alloc_table_ptr, alloc_bytes)?;
                write_at(&mut self.out, self.metadata_ptr, &self.rows)?;
                alloc_table_ptr
            }
            Layout::Streaming => {
                self.metadata_ptr = align_up_checked(self.pos, 64, "metadata table", 0)?;
                write_at(&mut self.out, self.metadata_ptr, &self.rows)?;
                let alloc_table_ptr = self.metadata_ptr + rows_len;
                write_at(&mut self.out, alloc_table_ptr, alloc_bytes)?;
                alloc_table_ptr
            }
        };
        let file_end = alloc_table_ptr + binfmt_core::bytes::len_u64(alloc_bytes);
        let written = self
            .end
            .max(self.metadata_ptr + rows_len)
            .max(if alloc_bytes.is_empty() { 0 } else { file_end });
        // The file always runs to alloc_table_ptr + 16E, even without items: extend it
        // (sparsely, for a file) by writing its last byte.
        if written < file_end {
            write_at(&mut self.out, file_end - 1, &[0])?;
        }

        let mut flags = FLAG_LITTLE_ENDIAN;
        let mut index_crc = 0;
        if self.checksums {
            flags |= FLAG_CHECKSUMMED;
            let mut h = crc32fast::Hasher::new();
            h.update(&self.descriptors);
            h.update(&self.rows);
            h.update(alloc_bytes);
            index_crc = h.finalize();
        }
        let mut header = raw::Header {
            version_major: U16::new(VERSION.major),
            version_minor: U16::new(VERSION.minor),
            flags: U32::new(flags),
            num_samples: U64::new(self.samples),
            num_fields: U16::new(u16::try_from(self.fields.len()).unwrap_or(u16::MAX)),
            pad1: U16::ZERO,
            page_size: U32::new(self.page_size),
            field_desc_ptr: U64::new(DESCRIPTORS_OFFSET),
            metadata_ptr: U64::new(self.metadata_ptr),
            data_ptr: U64::new(self.data_ptr),
            alloc_table_ptr: U64::new(alloc_table_ptr),
            index_crc: U32::new(index_crc),
            header_crc: U32::ZERO,
        };
        if self.checksums {
            let mut h = crc32fast::Hasher::new();
            h.update(MAGIC);
            h.update(header.as_bytes().get(..60).unwrap_or_default());
            header.header_crc = U32::new(h.finalize());
        }
        write_at(&mut self.out, HEADER_OFFSET, header.as_bytes())?;
        self.out.flush()?;
        Ok(self.out)
    }
}

fn write_at<W: Write + Seek>(out: &mut W, offset: u64, bytes: &[u8]) -> io::Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    out.seek(SeekFrom::Start(offset))?;
    out.write_all(bytes)
}

/// Checks one value against its field and builds its slot (with data_ptr still 0).
fn prepare<'v>(
    ty: &FieldType,
    nullable: bool,
    value: &Value<'v>,
) -> core::result::Result<Prepared<'v>, ValueProblem> {
    let type_id = ty.type_id();
    let len = type_id.metadata_size().map_or(0, |n| n as usize);
    let mut slot = [0u8; 24];
    let mut fill = |bytes: &[u8]| {
        if let Some(dst) = slot.get_mut(..bytes.len()) {
            dst.copy_from_slice(bytes);
        }
    };
    let size_of = |payload: &[u8]| {
        u32::try_from(payload.len()).map_err(|_| ValueProblem::TooLarge {
            size: binfmt_core::bytes::len_u64(payload),
        })
    };
    let bytes_meta = |size: u32| BytesMeta {
        data_ptr: U64::ZERO,
        data_size: U32::new(size),
        pad: U32::ZERO,
    };
    let payload: &'v [u8] = match (ty, *value) {
        (_, Value::Null) => {
            return if nullable && type_id.has_payload() {
                Ok(Prepared {
                    slot,
                    len,
                    payload: &[],
                })
            } else {
                Err(ValueProblem::Missing)
            };
        }
        (FieldType::Int, Value::Int(v)) => {
            fill(I64::new(v).as_bytes());
            &[]
        }
        (FieldType::Float, Value::Float(v)) => {
            fill(F64::new(v).as_bytes());
            &[]
        }
        (FieldType::Bytes, Value::Bytes(b)) | (FieldType::Ndarray(_), Value::Ndarray(b)) => {
            fill(bytes_meta(size_of(b)?).as_bytes());
            b
        }
        (FieldType::Json, Value::Json(text)) => {
            if !text.is_empty() {
                validate_json(text)?;
            }
            fill(bytes_meta(size_of(text.as_bytes())?).as_bytes());
            text.as_bytes()
        }
        (
            FieldType::ImageRaw | FieldType::ImageJpeg { .. } | FieldType::ImagePng,
            Value::Image(image),
        ) => {
            let (height, width, channels) = image_dims(&image)?;
            let meta = ImageMeta {
                data_ptr: U64::ZERO,
                data_size: U32::new(size_of(image.data)?),
                height: U16::new(height),
                width: U16::new(width),
                channels,
                mode: image.mode.code(),
                pad: U16::ZERO,
                reserved: [0; 4],
            };
            fill(meta.as_bytes());
            image.data
        }
        (FieldType::AudioWaveform | FieldType::AudioCompressed, Value::Audio(audio)) => {
            let meta = AudioMeta {
                data_ptr: U64::ZERO,
                data_size: U32::new(size_of(audio.data)?),
                num_samples: U32::new(audio.num_samples),
                sample_rate: U32::new(audio.sample_rate),
                num_channels: U16::new(audio.num_channels),
                bit_depth: audio.bit_depth,
                codec: audio.codec.code(),
            };
            fill(meta.as_bytes());
            audio.data
        }
        (FieldType::TextRaw, Value::Text(text @ Text::Utf8(_)))
        | (FieldType::TextTokenized { .. }, Value::Text(text @ (Text::U32(_) | Text::U16(_)))) => {
            let bytes = text.as_bytes();
            let meta = TextMeta {
                data_ptr: U64::ZERO,
                data_size: U32::new(size_of(bytes)?),
                num_tokens: U16::new(u16::try_from(text.num_tokens()).unwrap_or(u16::MAX)),
                encoding: text.encoding(),
                pad: 0,
            };
            fill(meta.as_bytes());
            bytes
        }
        _ => {
            return Err(ValueProblem::WrongType {
                type_id,
                got: value.kind(),
            });
        }
    };
    // The reader's rules, applied to what we built (they do not look at data_ptr).
    let built = slot.get(..len).unwrap_or_default();
    if type_id.has_payload() && !built.iter().all(|&b| b == 0) {
        slot::interpret(ty, built, payload, true)?;
    }
    Ok(Prepared { slot, len, payload })
}

/// Height, width and channels to store for an image: the caller's for raw pixels, the
/// image header's for JPEG and PNG (0, 0, 0 when the payload is empty).
fn image_dims(image: &Image<'_>) -> core::result::Result<(u16, u16, u8), ValueProblem> {
    let info = match image.mode {
        ImageMode::Raw => return Ok((image.height, image.width, image.channels)),
        _ if image.data.is_empty() => return Ok((0, 0, 0)),
        ImageMode::Jpeg => jpeg_info(image.data)?,
        ImageMode::Png => png_info(image.data)?,
    };
    match (u16::try_from(info.height), u16::try_from(info.width)) {
        (Ok(h), Ok(w)) => Ok((h, w, info.channels)),
        _ => Err(ValueProblem::ImageTooLarge {
            height: info.height,
            width: info.width,
        }),
    }
}

/// A [`Writer`] to a path: it writes a temporary file beside the target and renames it
/// into place in [`FileWriter::finish`]. Dropped without `finish`, or after an error, it
/// removes the temporary file and leaves the target untouched.
#[derive(Debug)]
pub struct FileWriter {
    inner: Writer<BufWriter<AtomicFile>>,
}

impl FileWriter {
    /// Starts writing the dataset that will appear at `path`.
    ///
    /// # Errors
    /// As for [`Writer::new`]; [`Error::Io`] when the temporary file cannot be created.
    pub fn create(path: impl AsRef<Path>, schema: &Schema, options: WriterOptions) -> Result<Self> {
        // Validate before creating anything on disk.
        schema.validate()?;
        let file = AtomicFile::create(path)?;
        // Payloads of 64 KiB or more bypass the buffer; smaller ones are gathered.
        let out = BufWriter::with_capacity(64 * 1024, file);
        Ok(FileWriter {
            inner: Writer::new(out, schema, options)?,
        })
    }

    /// Appends one sample (see [`Writer::push`]).
    ///
    /// # Errors
    /// As for [`Writer::push`].
    pub fn push(&mut self, values: &[Value<'_>]) -> Result<()> {
        self.inner.push(values)
    }

    /// The number of samples pushed so far.
    #[must_use]
    pub const fn samples(&self) -> u64 {
        self.inner.samples()
    }

    /// Finishes the file, syncs it and renames it over the target.
    ///
    /// # Errors
    /// As for [`Writer::finish`]; [`Error::Io`] when syncing or renaming fails.
    pub fn finish(self) -> Result<()> {
        let out = self.inner.finish()?;
        let file = out.into_inner().map_err(|e| Error::Io(e.into_error()))?;
        file.commit()?;
        Ok(())
    }
}
