//! The streaming writer.
//!
//! Payloads go to the output as samples arrive and are never buffered; only the
//! fixed-size metadata rows and the allocation entries (16 bytes per payload) stay in
//! memory until [`Writer::finish`], which writes them, the checksums and, last, the
//! header. Every value of a sample is checked before any of its bytes is written, so a
//! refused sample leaves the writer as it was.

use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::vec::Vec;

use binfmt_core::align::align_up_checked;
use binfmt_core::bytes::{len_u64, to_u64};
use binfmt_core::json::{self, Dialect};
use binfmt_core::le::{F64, I64, U16, U32, U64};
use binfmt_core::output::{Output, OutputOptions};
use binfmt_core::{IoError, Kind};
use zerocopy::{FromBytes, IntoBytes};

use crate::error::{self, Error, ErrorKind, Result, ValueProblem};
use crate::header::{DEFAULT_PAGE_SIZE, FLAG_CHECKSUMMED, FLAG_LITTLE_ENDIAN, is_valid_page_size};
use crate::image::{jpeg_info, png_info};
use crate::raw::{
    self, AllocEntry, AudioMeta, BytesMeta, DESCRIPTORS_OFFSET, HEADER_OFFSET, HEADER_SIZE,
    ImageMeta, MAGIC, TextMeta, VERSION,
};
use crate::schema::Schema;
use crate::slot;
use crate::types::{FieldType, ImageMode};
use crate::value::{Image, Text, Value};

/// Where the metadata table goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileLayout {
    /// The sample count is known up front: the metadata table sits before the data region
    /// (descriptors, metadata, data, allocation table). `finish` fails unless exactly
    /// this many samples were added.
    Canonical {
        /// The number of samples that will be added.
        num_samples: u64,
    },
    /// The sample count is learnt at the end: the metadata table follows the data
    /// region (descriptors, data, metadata, allocation table).
    Streaming,
}

/// How a [`Writer`] lays out and protects the file.
///
/// ```
/// use mldf::{FileLayout, WriterOptions};
/// const OPTIONS: WriterOptions = WriterOptions::new().page_size(4096).checksums(true).num_samples(10);
/// assert_eq!(OPTIONS.layout(), FileLayout::Canonical { num_samples: 10 });
/// assert_eq!(WriterOptions::new().layout(), FileLayout::Streaming);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WriterOptions {
    page_size: u32,
    checksums: bool,
    layout: FileLayout,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions::new()
    }
}

impl WriterOptions {
    /// 2 MiB pages, no checksums, streaming layout.
    #[must_use]
    pub const fn new() -> Self {
        WriterOptions {
            page_size: DEFAULT_PAGE_SIZE,
            checksums: false,
            layout: FileLayout::Streaming,
        }
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
        self.layout = FileLayout::Canonical { num_samples };
        self
    }

    /// Sets the layout directly.
    #[must_use]
    pub const fn file_layout(mut self, layout: FileLayout) -> Self {
        self.layout = layout;
        self
    }

    /// The layout these options select.
    #[must_use]
    pub const fn layout(&self) -> FileLayout {
        self.layout
    }
}

/// One value made ready to write: its slot and its payload.
struct Prepared<'v> {
    slot: [u8; 24],
    len: usize,
    payload: &'v [u8],
}

/// Writes an MLDF file sample by sample, to any seekable output
/// ([`Writer::new`]) or atomically to a path ([`Writer::create`]).
///
/// The shape every binfmt writer has, for a streaming writer: samples are added with
/// [`add`](Writer::add) and [`finish`](Writer::finish) ends the file. Payloads go to the
/// output as they arrive, and the header, which points at tables known only at the end,
/// is written last, at the start of the file: so the output must seek, and there is no
/// `to_vec` or `write_to(impl Write)` (write to a `Cursor<Vec<u8>>` for bytes in memory;
/// [`Writer::create`] spools a FIFO or device).
///
/// A writer over an output must start at an empty output: it writes from offset 0 and
/// leaves the gaps between sections to be filled with zeros by the output (a file's
/// holes, a `Cursor`'s zero-extension). The bytes depend only on the schema, the options
/// and the samples.
///
/// ```
/// use mldf::{FieldType, Schema, Value, Writer, WriterOptions};
/// # fn main() -> Result<(), mldf::Error> {
/// let schema = Schema::new().field("id", FieldType::Int).nullable_field("blob", FieldType::Bytes);
/// let mut writer = Writer::new(std::io::Cursor::new(Vec::new()), &schema, WriterOptions::new())?;
/// writer.add(&[Value::Int(1), Value::Bytes(b"abc")])?;
/// writer.add(&[Value::Int(2), Value::Null])?;
/// // A refused sample writes nothing; the writer goes on.
/// assert!(writer.add(&[Value::Null, Value::Null]).is_err());
/// let file = writer.finish()?.into_inner();
/// assert_eq!(mldf::Dataset::parse(&file)?.num_samples(), 2);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Writer<W> {
    out: W,
    state: State,
}

/// What a writer keeps, whatever it writes to.
#[derive(Debug)]
struct State {
    fields: Vec<(FieldType, bool)>,
    checksums: bool,
    page_size: u32,
    layout: FileLayout,
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

/// A [`Writer`]'s destination when it writes to a path ([`Writer::create`]): a temporary
/// file beside the target (or a stream, spooled), through
/// [`binfmt_core::output::Output`]. Nothing appears at the path until
/// [`Writer::finish`] commits it; dropped unfinished, it leaves nothing behind.
#[derive(Debug)]
pub struct FileOutput {
    out: BufWriter<Output>,
    path: PathBuf,
}

impl<W: Write + Seek> Writer<W> {
    /// Checks the schema and options, then writes the magic, a zero header (so an
    /// unfinished file reads as "incomplete") and the field descriptors.
    ///
    /// # Errors
    /// Schema errors ([`Schema::validate`]), [`ErrorKind::InvalidPageSize`],
    /// [`ErrorKind::SamplesWithoutFields`] (canonical layout with samples but no fields),
    /// an overflowing layout, [`ErrorKind::Io`].
    pub fn new(mut out: W, schema: &Schema, options: WriterOptions) -> Result<Self> {
        let state = State::new(schema, options)?;
        state.start(&mut out).map_err(error::io)?;
        Ok(Writer { out, state })
    }

    /// The number of samples added so far.
    #[must_use]
    pub const fn samples(&self) -> u64 {
        self.state.samples
    }

    /// Appends one sample: one value per field, in schema order.
    ///
    /// Every value is checked first (type, JSON text, image header, audio and text
    /// rules, NDARRAY size, null only in NULLABLE fields); a refused sample writes
    /// nothing. Payloads are then written straight to the output.
    ///
    /// # Errors
    /// [`ErrorKind::SamplesWithoutFields`], [`ErrorKind::ValueCount`],
    /// [`ErrorKind::SampleCount`] (more samples than declared),
    /// [`ErrorKind::InvalidValue`], [`ErrorKind::Poisoned`] after an earlier I/O error,
    /// [`ErrorKind::Io`].
    pub fn add(&mut self, values: &[Value<'_>]) -> Result<()> {
        self.state.add(&mut self.out, values)
    }

    /// Renamed to [`Writer::add`].
    ///
    /// # Errors
    /// As for [`Writer::add`].
    #[deprecated(note = "renamed to Writer::add")]
    pub fn push(&mut self, values: &[Value<'_>]) -> Result<()> {
        self.add(values)
    }

    /// Writes the metadata table, the allocation table, the checksums and the header,
    /// flushes, and hands back the output (whose position is then just past the header;
    /// the file runs to the end of the allocation table). [`Writer::create`]'s writer
    /// returns the file's size instead.
    ///
    /// # Errors
    /// [`ErrorKind::SampleCount`] when a canonical layout got fewer samples than
    /// declared, [`ErrorKind::Poisoned`], [`ErrorKind::Io`].
    pub fn finish(mut self) -> Result<W> {
        self.state.finish(&mut self.out)?;
        Ok(self.out)
    }
}

impl Writer<FileOutput> {
    /// Starts writing the dataset that will appear at `path`, through
    /// [`binfmt_core::output::Output`] with `replace` (an existing file is replaced when
    /// [`finish`](Writer::<FileOutput>::finish) succeeds, as `std::fs::write` would) and
    /// `seekable` (a FIFO or device gets the bytes spooled, then copied). The schema and
    /// options are checked before anything is created.
    ///
    /// ```
    /// use mldf::{FieldType, Schema, Value, Writer, WriterOptions};
    /// # fn main() -> Result<(), mldf::Error> {
    /// # let dir = std::env::temp_dir().join(format!("mldf-doc-create-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).map_err(binfmt_core::IoError::from)?;
    /// let path = dir.join("train.mldf");
    /// let schema = Schema::new().field("label", FieldType::Int);
    /// let mut writer = Writer::create(&path, &schema, WriterOptions::new().page_size(4096))?;
    /// writer.add(&[Value::Int(3)])?;
    /// let size = writer.finish()?;
    /// assert_eq!(size, std::fs::metadata(&path).map_err(binfmt_core::IoError::from)?.len());
    /// # std::fs::remove_dir_all(&dir).map_err(binfmt_core::IoError::from)?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As for [`Writer::new`]; [`ErrorKind::Io`] (with the path) when the output cannot
    /// be created: a directory, a path in a missing directory, no permission.
    pub fn create(path: impl AsRef<Path>, schema: &Schema, options: WriterOptions) -> Result<Self> {
        let path = path.as_ref();
        // Validate before creating anything on disk.
        let state = State::new(schema, options)?;
        let output = Output::create(path, &OutputOptions::new().replace(true).seekable(true))
            .map_err(IoError::at_path(path))?;
        // Payloads of 64 KiB or more bypass the buffer; smaller ones are gathered.
        let mut out = FileOutput {
            out: BufWriter::with_capacity(64 * 1024, output),
            path: path.to_path_buf(),
        };
        state
            .start(&mut out.out)
            .map_err(|e| out.error(error::io(e)))?;
        Ok(Writer { out, state })
    }

    /// The number of samples added so far.
    #[must_use]
    pub const fn samples(&self) -> u64 {
        self.state.samples
    }

    /// Appends one sample (see [`Writer::add`]).
    ///
    /// # Errors
    /// As for [`Writer::add`].
    pub fn add(&mut self, values: &[Value<'_>]) -> Result<()> {
        let Writer { out, state } = self;
        state.add(&mut out.out, values).map_err(|e| out.error(e))
    }

    /// Renamed to [`Writer::add`](Writer::<FileOutput>::add).
    ///
    /// # Errors
    /// As for [`Writer::add`].
    #[deprecated(note = "renamed to Writer::add")]
    pub fn push(&mut self, values: &[Value<'_>]) -> Result<()> {
        self.add(values)
    }

    /// Finishes the file, syncs it, moves it into place and returns its size in bytes.
    ///
    /// # Errors
    /// As for [`Writer::finish`]; [`ErrorKind::Io`] when syncing or renaming fails. The
    /// target is then untouched.
    pub fn finish(self) -> Result<u64> {
        let Writer { mut out, mut state } = self;
        let size = state.finish(&mut out.out).map_err(|e| out.error(e))?;
        let FileOutput { out, path } = out;
        let output = out
            .into_inner()
            .map_err(|e| IoError::at_path(&path)(e.into_error()))?;
        output.commit().map_err(IoError::at_path(&path))?;
        Ok(size)
    }

    /// The path the dataset will appear at.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.out.path
    }
}

impl FileOutput {
    /// `e`, naming the path when it is an I/O error without one.
    fn error(&self, e: Error) -> Error {
        e.with_path(&self.path)
    }
}

impl State {
    /// Checks the schema and options and places the sections that do not depend on the
    /// samples.
    fn new(schema: &Schema, options: WriterOptions) -> Result<State> {
        schema.validate()?;
        if !is_valid_page_size(options.page_size) {
            return Err(ErrorKind::InvalidPageSize {
                page_size: options.page_size,
            }
            .unlocated());
        }
        let too_many = || {
            ErrorKind::TooManyFields {
                count: schema.len(),
            }
            .unlocated()
        };
        let row_size = usize::try_from(schema.row_size()).map_err(|_| too_many())?;
        let descriptors = schema.descriptors();
        let page = u64::from(options.page_size);
        let desc_end = DESCRIPTORS_OFFSET + len_u64(&descriptors);
        let overflow = |what| -> Error { binfmt_core::Error::overflow(what, 0).into() };
        let (metadata_ptr, data_ptr) = match options.layout {
            FileLayout::Canonical { num_samples } => {
                if num_samples > 0 && schema.is_empty() {
                    return Err(ErrorKind::SamplesWithoutFields.unlocated());
                }
                let metadata_ptr = align_up_checked(desc_end, 64, "metadata table", 0)?;
                let meta_len = num_samples
                    .checked_mul(to_u64(row_size))
                    .ok_or_else(|| overflow("metadata table"))?;
                let meta_end = metadata_ptr
                    .checked_add(meta_len)
                    .ok_or_else(|| overflow("metadata table"))?;
                (
                    metadata_ptr,
                    align_up_checked(meta_end, page, "data region", 0)?,
                )
            }
            FileLayout::Streaming => (0, align_up_checked(desc_end, page, "data region", 0)?),
        };
        Ok(State {
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

    /// The magic, a zero header and the descriptors; then the output waits at data_ptr.
    fn start<W: Write + Seek + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        out.seek(SeekFrom::Start(0))?;
        out.write_all(MAGIC)?;
        out.write_all(&[0u8; HEADER_SIZE])?;
        out.write_all(&self.descriptors)?;
        out.seek(SeekFrom::Start(self.data_ptr))?;
        Ok(())
    }

    fn add<W: Write + Seek + ?Sized>(&mut self, out: &mut W, values: &[Value<'_>]) -> Result<()> {
        if self.poisoned {
            return Err(ErrorKind::Poisoned.unlocated());
        }
        if self.fields.is_empty() {
            return Err(ErrorKind::SamplesWithoutFields.unlocated());
        }
        if let FileLayout::Canonical { num_samples } = self.layout
            && self.samples >= num_samples
        {
            return Err(ErrorKind::SampleCount {
                expected: num_samples,
                got: self.samples.saturating_add(1),
            }
            .unlocated());
        }
        if values.len() != self.fields.len() {
            return Err(ErrorKind::ValueCount {
                sample: self.samples,
                expected: self.fields.len(),
                got: values.len(),
            }
            .unlocated());
        }
        let mut prepared = Vec::with_capacity(values.len());
        for (index, (value, &(ty, nullable))) in values.iter().zip(&self.fields).enumerate() {
            let p = prepare(&ty, nullable, value).map_err(|problem| {
                ErrorKind::InvalidValue {
                    sample: self.samples,
                    field: index,
                    problem,
                }
                .unlocated()
            })?;
            prepared.push(p);
        }
        // Nothing has been written for this sample yet; from here on a failure is I/O.
        let row_start = self.rows.len();
        for p in &prepared {
            let mut slot = p.slot;
            if !p.payload.is_empty() {
                let ptr = self.pos;
                if let Err(e) = out.write_all(p.payload) {
                    self.poisoned = true;
                    return Err(error::io(e));
                }
                let size = u32::try_from(p.payload.len()).unwrap_or(u32::MAX);
                self.pos = ptr.saturating_add(u64::from(size));
                self.end = self.end.max(self.pos);
                // Every payload slot starts with data_ptr, as BytesMeta does.
                if let Ok((meta, _)) = BytesMeta::mut_from_prefix(&mut slot) {
                    meta.data_ptr = U64::new(ptr);
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

    /// The metadata table, the allocation table, the checksums and the header; returns
    /// the file's size.
    fn finish<W: Write + Seek + ?Sized>(&mut self, out: &mut W) -> Result<u64> {
        if self.poisoned {
            return Err(ErrorKind::Poisoned.unlocated());
        }
        if let FileLayout::Canonical { num_samples } = self.layout
            && self.samples != num_samples
        {
            return Err(ErrorKind::SampleCount {
                expected: num_samples,
                got: self.samples,
            }
            .unlocated());
        }
        self.poisoned = true; // until the header is written
        let rows_len = len_u64(&self.rows);
        let alloc_bytes = self.alloc.as_bytes();
        let alloc_table_ptr = match self.layout {
            FileLayout::Canonical { .. } => {
                let alloc_table_ptr = self.pos;
                write_at(out, alloc_table_ptr, alloc_bytes)?;
                write_at(out, self.metadata_ptr, &self.rows)?;
                alloc_table_ptr
            }
            FileLayout::Streaming => {
                self.metadata_ptr = align_up_checked(self.pos, 64, "metadata table", 0)?;
                write_at(out, self.metadata_ptr, &self.rows)?;
                let alloc_table_ptr = self.metadata_ptr + rows_len;
                write_at(out, alloc_table_ptr, alloc_bytes)?;
                alloc_table_ptr
            }
        };
        let file_end = alloc_table_ptr + len_u64(alloc_bytes);
        let written = self
            .end
            .max(self.metadata_ptr + rows_len)
            .max(if alloc_bytes.is_empty() { 0 } else { file_end });
        // The file always runs to alloc_table_ptr + 16E, even without items: extend it
        // (sparsely, for a file) by writing its last byte.
        if written < file_end {
            write_at(out, file_end - 1, &[0])?;
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
            // The header CRC covers the file's bytes before it: the magic and the header
            // up to (not including) the CRC field.
            let covered = binfmt_core::field_offset!(raw::Header, header_crc);
            let mut h = crc32fast::Hasher::new();
            h.update(MAGIC);
            h.update(
                header
                    .as_bytes()
                    .get(..usize::try_from(covered).unwrap_or(HEADER_SIZE))
                    .unwrap_or_default(),
            );
            header.header_crc = U32::new(h.finalize());
        }
        write_at(out, HEADER_OFFSET, header.as_bytes())?;
        out.flush().map_err(error::io)?;
        self.poisoned = false;
        Ok(file_end)
    }
}

fn write_at<W: Write + Seek + ?Sized>(out: &mut W, offset: u64, bytes: &[u8]) -> Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    out.seek(SeekFrom::Start(offset)).map_err(error::io)?;
    out.write_all(bytes).map_err(error::io)
}

/// Checks one value against its field and builds its slot (with data_ptr still 0).
fn prepare<'v>(
    ty: &FieldType,
    nullable: bool,
    value: &Value<'v>,
) -> core::result::Result<Prepared<'v>, ValueProblem> {
    let type_id = ty.type_id();
    let len = type_id
        .metadata_size()
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(0);
    let mut slot = [0u8; 24];
    let mut fill = |bytes: &[u8]| {
        if let Some(dst) = slot.get_mut(..bytes.len()) {
            dst.copy_from_slice(bytes);
        }
    };
    let size_of = |payload: &[u8]| {
        u32::try_from(payload.len()).map_err(|_| ValueProblem::TooLarge {
            size: len_u64(payload),
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
                json::validate(text, Dialect::Strict).map_err(|e| ValueProblem::NotJson {
                    reason: e.reason,
                    at: e.at,
                })?;
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
        slot::interpret(ty, built, payload, slot::utf8)?;
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
