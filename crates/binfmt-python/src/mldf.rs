//! `binfmt.mldf`: MLDF datasets through `mldf` (read by positioned reads).

use std::path::PathBuf;

use binfmt_core::source::FileSource;
use std::sync::Mutex;

use binfmt_core::le::{U16, U32};
use mldf::{
    Audio, AudioCodec, Dtype, FieldType, FileOutput, Image, NdarraySpec, ReadOptions, Reader,
    Schema, Text, Value, Writer, WriterOptions,
};
use pyo3::IntoPyObjectExt;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::errors::IntoPy;
use crate::source::{AnySource, open_url};

const FORMAT: &str = "mldf";

/// A field: name, type name, nullable, NDARRAY dtype name, NDARRAY shape, JPEG quality
/// or vocabulary size (else 0).
type FieldRow = (String, String, bool, Option<String>, Option<Vec<u64>>, u32);

/// An MLDF file, its header and descriptors checked at open.
#[pyclass(module = "binfmt._binfmt", frozen)]
pub(crate) struct MldfReader {
    reader: Reader<AnySource>,
}

fn value_to_py<'py>(py: Python<'py>, value: &Value<'_>) -> PyResult<Bound<'py, PyAny>> {
    let bytes = |b: &[u8]| PyBytes::new(py, b).into_any();
    let pair = |kind: &str, v: Bound<'py, PyAny>| -> PyResult<Bound<'py, PyAny>> {
        Ok(PyTuple::new(py, [kind.into_bound_py_any(py)?, v])?.into_any())
    };
    match value {
        Value::Null => pair("null", py.None().into_bound(py)),
        Value::Int(i) => pair("int", i.into_bound_py_any(py)?),
        Value::Float(f) => pair("float", f.into_bound_py_any(py)?),
        Value::Bytes(b) => pair("bytes", bytes(b)),
        Value::Json(s) => pair("json", s.into_bound_py_any(py)?),
        Value::Ndarray(b) => pair("ndarray", bytes(b)),
        Value::Image(i) => pair(
            "image",
            (i.mode.name(), i.height, i.width, i.channels, bytes(i.data)).into_bound_py_any(py)?,
        ),
        Value::Audio(a) => pair(
            "audio",
            (
                a.codec.name(),
                a.num_samples,
                a.sample_rate,
                a.num_channels,
                a.bit_depth,
                bytes(a.data),
            )
                .into_bound_py_any(py)?,
        ),
        Value::Text(Text::Utf8(s)) => pair("text", s.into_bound_py_any(py)?),
        Value::Text(t) => pair(
            "tokens",
            (
                if t.encoding() == 2 { 2u8 } else { 4u8 },
                bytes(t.as_bytes()),
            )
                .into_bound_py_any(py)?,
        ),
        Value::Unknown(b) => pair("unknown", bytes(b)),
        other => pair("unknown", bytes(other.payload().unwrap_or(&[]))),
    }
}

#[pymethods]
impl MldfReader {
    /// Opens `path` (the header and descriptors in one read; every check).
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let reader = py
            .detach(|| {
                let source = FileSource::open(&path).map_err(mldf::IoError::at_path(&path))?;
                Reader::open_with(AnySource::File(source), &ReadOptions::new())
                    .map_err(|e| e.with_path(&path))
            })
            .py_err(FORMAT)?;
        Ok(MldfReader { reader })
    }

    /// Opens the object at `url` (the header and descriptors by range; without the GIL).
    #[staticmethod]
    fn open_url(py: Python<'_>, url: &str) -> PyResult<Self> {
        py.detach(|| {
            let reader = Reader::open_with(open_url(url)?, &ReadOptions::new()).py_err(FORMAT)?;
            Ok(MldfReader { reader })
        })
    }

    /// The number of samples.
    fn num_samples(&self) -> u64 {
        self.reader.num_samples()
    }

    /// The fields, in order.
    fn fields(&self) -> Vec<FieldRow> {
        self.reader
            .fields()
            .iter()
            .map(|f| {
                let t = f.field_type();
                let name = t
                    .type_id()
                    .name()
                    .map_or_else(|| format!("TYPE_{}", t.type_id()), str::to_owned);
                let (dtype, shape) = match t {
                    FieldType::Ndarray(spec) => (
                        Some(spec.dtype().name().to_owned()),
                        Some(spec.shape().to_vec()),
                    ),
                    _ => (None, None),
                };
                let arg = match t {
                    FieldType::ImageJpeg { quality } => u32::from(quality),
                    FieldType::TextTokenized { vocab_size } => vocab_size,
                    _ => 0,
                };
                (
                    f.name().to_owned(),
                    name,
                    f.is_nullable(),
                    dtype,
                    shape,
                    arg,
                )
            })
            .collect()
    }

    /// `(metadata_ptr, row_size, row_offset, slot size)` of field `field`: where its slot of
    /// sample `i` is (`metadata_ptr + i * row_size + row_offset`). The rows were checked
    /// to lie within the file, and against the index CRC when the file has one, at open.
    fn slot_layout(&self, field: usize) -> PyResult<(u64, u64, u64, u32)> {
        let f = self.reader.field(field).py_err(FORMAT)?;
        Ok((
            self.reader.header().metadata_ptr(),
            self.reader.row_size(),
            f.row_offset(),
            f.metadata_size(),
        ))
    }

    /// Every value of sample `i`, as `(kind, value)` pairs in field order.
    fn sample<'py>(&self, py: Python<'py>, i: u64) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let values = self.reader.sample(i).py_err(FORMAT)?;
        values.iter().map(|v| value_to_py(py, &v.value())).collect()
    }

    /// The value of field `field` of sample `i`, as a `(kind, value)` pair.
    fn value<'py>(&self, py: Python<'py>, i: u64, field: usize) -> PyResult<Bound<'py, PyAny>> {
        let v = self.reader.value(i, field).py_err(FORMAT)?;
        value_to_py(py, &v.value())
    }
}

/// One value from Python, owned, before it is lent to the writer as a `Value`.
enum Owned {
    Null,
    Int(i64),
    Float(f64),
    Bytes(Vec<u8>),
    Json(String),
    Ndarray(Vec<u8>),
    ImageRaw(u16, u16, u8, Vec<u8>),
    Jpeg(Vec<u8>),
    Png(Vec<u8>),
    Pcm(u32, u16, u8, Vec<u8>),
    PcmF32(u32, u16, Vec<u8>),
    /// codec, payload, frames, sample rate, channels, bit depth (informational).
    Compressed(AudioCodec, Vec<u8>, u32, u32, u16, u8),
    Text(String),
    Tokens16(Vec<U16>),
    Tokens32(Vec<U32>),
}

impl Owned {
    fn from_py(kind: &str, v: &Bound<'_, PyAny>) -> PyResult<Owned> {
        Ok(match kind {
            "null" => Owned::Null,
            "int" => Owned::Int(v.extract()?),
            "float" => Owned::Float(v.extract()?),
            "bytes" => Owned::Bytes(v.extract()?),
            "json" => Owned::Json(v.extract()?),
            "ndarray" => Owned::Ndarray(v.extract()?),
            "image_raw" => {
                let (h, w, c, d) = v.extract()?;
                Owned::ImageRaw(h, w, c, d)
            }
            "jpeg" => Owned::Jpeg(v.extract()?),
            "png" => Owned::Png(v.extract()?),
            "pcm" => {
                let (r, c, b, d) = v.extract()?;
                Owned::Pcm(r, c, b, d)
            }
            "pcm_f32" => {
                let (r, c, d) = v.extract()?;
                Owned::PcmF32(r, c, d)
            }
            "compressed" => {
                let (codec, d, frames, rate, channels, bits): (String, Vec<u8>, u32, u32, u16, u8) =
                    v.extract()?;
                let codec = AudioCodec::from_name(&codec).ok_or_else(|| {
                    PyValueError::new_err(format!("unknown audio codec {codec:?}"))
                })?;
                Owned::Compressed(codec, d, frames, rate, channels, bits)
            }
            "text" => Owned::Text(v.extract()?),
            "tokens16" => {
                let ids: Vec<u16> = v.extract()?;
                Owned::Tokens16(ids.into_iter().map(U16::new).collect())
            }
            "tokens32" => {
                let ids: Vec<u32> = v.extract()?;
                Owned::Tokens32(ids.into_iter().map(U32::new).collect())
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown value kind {other:?}"
                )));
            }
        })
    }

    fn value(&self) -> Value<'_> {
        match self {
            Owned::Null => Value::Null,
            Owned::Int(i) => Value::Int(*i),
            Owned::Float(f) => Value::Float(*f),
            Owned::Bytes(b) => Value::Bytes(b),
            Owned::Json(s) => Value::Json(s),
            Owned::Ndarray(b) => Value::Ndarray(b),
            Owned::ImageRaw(h, w, c, d) => Value::Image(Image::raw(*h, *w, *c, d)),
            Owned::Jpeg(d) => Value::Image(Image::jpeg(d)),
            Owned::Png(d) => Value::Image(Image::png(d)),
            Owned::Pcm(r, c, b, d) => Value::Audio(Audio::pcm(*r, *c, *b, d)),
            Owned::PcmF32(r, c, d) => Value::Audio(Audio::pcm_f32(*r, *c, d)),
            Owned::Compressed(codec, d, frames, rate, channels, bits) => Value::Audio(Audio {
                num_samples: *frames,
                sample_rate: *rate,
                num_channels: *channels,
                bit_depth: *bits,
                ..Audio::compressed(*codec, d)
            }),
            Owned::Text(s) => Value::Text(Text::Utf8(s)),
            Owned::Tokens16(ids) => Value::Text(Text::U16(ids)),
            Owned::Tokens32(ids) => Value::Text(Text::U32(ids)),
        }
    }
}

/// A field for the writer: name, type name, nullable, NDARRAY dtype name and shape,
/// JPEG quality or vocabulary size.
type FieldSpec = (String, String, bool, Option<String>, Option<Vec<u64>>, u32);

fn field_type(spec: &FieldSpec) -> PyResult<FieldType> {
    let (name, kind, _, dtype, shape, arg) = spec;
    let bad = |m: String| PyValueError::new_err(format!("field {name:?}: {m}"));
    Ok(match kind.as_str() {
        "INT" => FieldType::Int,
        "FLOAT" => FieldType::Float,
        "BYTES" => FieldType::Bytes,
        "JSON" => FieldType::Json,
        "NDARRAY" => {
            let dtype = dtype.as_deref().unwrap_or("");
            let d =
                Dtype::from_name(dtype).ok_or_else(|| bad(format!("unknown dtype {dtype:?}")))?;
            FieldType::Ndarray(NdarraySpec::new(d, shape.as_deref().unwrap_or(&[])).py_err(FORMAT)?)
        }
        "IMAGE_RAW" => FieldType::ImageRaw,
        "IMAGE_JPEG" => FieldType::ImageJpeg {
            quality: u8::try_from(*arg).map_err(|_| bad("quality over 255".into()))?,
        },
        "IMAGE_PNG" => FieldType::ImagePng,
        "AUDIO_WAVEFORM" => FieldType::AudioWaveform,
        "AUDIO_COMPRESSED" => FieldType::AudioCompressed,
        "TEXT_RAW" => FieldType::TextRaw,
        "TEXT_TOKENIZED" => FieldType::TextTokenized { vocab_size: *arg },
        other => return Err(bad(format!("unknown type {other:?}"))),
    })
}

/// A writer to a path: a temporary file beside it, moved into place by `finish`;
/// dropped (or `abort`ed) unfinished, nothing is left.
#[pyclass(module = "binfmt._binfmt", frozen)]
pub(crate) struct MldfWriter {
    writer: Mutex<Option<Writer<FileOutput>>>,
}

impl MldfWriter {
    fn with<T>(
        &self,
        f: impl FnOnce(&mut Option<Writer<FileOutput>>) -> PyResult<T>,
    ) -> PyResult<T> {
        let mut guard = self
            .writer
            .lock()
            .map_err(|_| PyRuntimeError::new_err("writer poisoned"))?;
        f(&mut guard)
    }
}

fn closed() -> PyErr {
    PyValueError::new_err("the writer is finished or aborted")
}

#[pymethods]
impl MldfWriter {
    #[new]
    #[pyo3(signature = (path, fields, page_size=None, checksums=false, num_samples=None))]
    fn new(
        path: PathBuf,
        fields: Vec<FieldSpec>,
        page_size: Option<u32>,
        checksums: bool,
        num_samples: Option<u64>,
    ) -> PyResult<Self> {
        let mut schema = Schema::new();
        for spec in &fields {
            let t = field_type(spec)?;
            schema = if spec.2 {
                schema.nullable_field(spec.0.clone(), t)
            } else {
                schema.field(spec.0.clone(), t)
            };
        }
        let mut options = WriterOptions::new().checksums(checksums);
        if let Some(p) = page_size {
            options = options.page_size(p);
        }
        if let Some(n) = num_samples {
            options = options.num_samples(n);
        }
        let writer = Writer::create(&path, &schema, options).py_err(FORMAT)?;
        Ok(MldfWriter {
            writer: Mutex::new(Some(writer)),
        })
    }

    /// Appends one sample: `(kind, value)` pairs in field order.
    fn push(&self, values: Vec<(String, Bound<'_, PyAny>)>) -> PyResult<()> {
        let owned = values
            .iter()
            .map(|(k, v)| Owned::from_py(k, v))
            .collect::<PyResult<Vec<_>>>()?;
        let values: Vec<Value<'_>> = owned.iter().map(Owned::value).collect();
        self.with(|w| w.as_mut().ok_or_else(closed)?.add(&values).py_err(FORMAT))
    }

    /// Writes the tables and moves the file into place; returns its size.
    fn finish(&self, py: Python<'_>) -> PyResult<u64> {
        let writer = self.with(|w| w.take().ok_or_else(closed))?;
        py.detach(|| writer.finish()).py_err(FORMAT)
    }

    /// Drops the unfinished file (nothing is left). Idempotent.
    fn abort(&self) -> PyResult<()> {
        self.with(|w| {
            drop(w.take());
            Ok(())
        })
    }
}
