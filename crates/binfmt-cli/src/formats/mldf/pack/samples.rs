//! SAMPLES.jsonl: one JSON object per line, turned into the values of one sample.
//!
//! Each line is read twice over: [`parse_line`] checks it against the schema and
//! resolves its payload paths (before the output is opened, so that a bad line or a
//! refused path leaves nothing behind and every payload file is known as an input of the
//! write), and [`Row::load`] reads the payloads and makes the [`Value`]s the writer
//! takes.

use std::path::{Path, PathBuf};

use binfmt_core::le::{U16, U32};
use mldf::{Audio, AudioCodec, FieldType, Image, ImageMode, Text, Value};
use serde_json::{Map, Value as Json};

use super::super::show::quoted;
use super::files::Files;
use super::schema::{PackField, PackSchema};

/// One value of a sample, checked, its payload not read yet.
#[derive(Debug)]
enum Cell {
    Null,
    Int(i64),
    Float(f64),
    Json(String),
    Text(String),
    Ids32(Vec<U32>),
    Ids16(Vec<U16>),
    Bytes(PathBuf),
    Ndarray(PathBuf),
    Image {
        mode: ImageMode,
        height: u16,
        width: u16,
        channels: u8,
        file: PathBuf,
    },
    Audio {
        codec: AudioCodec,
        /// Frames; counted from the payload's size for PCM when the line does not say.
        num_samples: Option<u32>,
        sample_rate: u32,
        channels: u16,
        bit_depth: u8,
        file: PathBuf,
    },
}

/// One sample: its line number (from 1) and one cell per field of the schema.
#[derive(Debug)]
pub(crate) struct Row {
    pub(crate) line: usize,
    cells: Vec<Cell>,
}

impl Row {
    /// The payload files this sample reads.
    pub(crate) fn files(&self) -> impl Iterator<Item = &Path> {
        self.cells.iter().filter_map(|cell| match cell {
            Cell::Bytes(file)
            | Cell::Ndarray(file)
            | Cell::Image { file, .. }
            | Cell::Audio { file, .. } => Some(file.as_path()),
            _ => None,
        })
    }

    /// Reads the payloads: one buffer per cell (empty for cells without a payload).
    pub(crate) fn load(&self, files: &dyn Files) -> Result<Vec<Vec<u8>>, String> {
        self.cells
            .iter()
            .map(|cell| match cell {
                Cell::Bytes(file)
                | Cell::Ndarray(file)
                | Cell::Image { file, .. }
                | Cell::Audio { file, .. } => files.read(file),
                _ => Ok(Vec::new()),
            })
            .collect()
    }

    /// The sample's values, borrowing the payloads [`Row::load`] read.
    pub(crate) fn values<'a>(&'a self, payloads: &'a [Vec<u8>]) -> Result<Vec<Value<'a>>, String> {
        self.cells
            .iter()
            .zip(payloads)
            .map(|(cell, data)| value(cell, data))
            .collect()
    }
}

fn value<'a>(cell: &'a Cell, data: &'a [u8]) -> Result<Value<'a>, String> {
    Ok(match cell {
        Cell::Null => Value::Null,
        Cell::Int(i) => Value::Int(*i),
        Cell::Float(f) => Value::Float(*f),
        Cell::Json(s) => Value::Json(s),
        Cell::Text(s) => Value::Text(Text::Utf8(s)),
        Cell::Ids32(ids) => Value::Text(Text::U32(ids)),
        Cell::Ids16(ids) => Value::Text(Text::U16(ids)),
        Cell::Bytes(_) => Value::Bytes(data),
        Cell::Ndarray(_) => Value::Ndarray(data),
        Cell::Image {
            mode,
            height,
            width,
            channels,
            ..
        } => Value::Image(Image {
            mode: *mode,
            height: *height,
            width: *width,
            channels: *channels,
            data,
        }),
        Cell::Audio {
            codec,
            num_samples,
            sample_rate,
            channels,
            bit_depth,
            ..
        } => {
            let frames = match num_samples {
                Some(n) => *n,
                None if codec.is_pcm() => {
                    let frame = usize::from(*channels) * usize::from(*bit_depth / 8);
                    u32::try_from(data.len().checked_div(frame).unwrap_or(0))
                        .map_err(|_| "too many frames for an MLDF audio value")?
                }
                None => 0,
            };
            Value::Audio(Audio {
                codec: *codec,
                num_samples: frames,
                sample_rate: *sample_rate,
                num_channels: *channels,
                bit_depth: *bit_depth,
                data,
            })
        }
    })
}

/// Checks one line (not blank) against the schema and resolves its payload paths; the
/// error is a message about the line's content (escaped).
pub(crate) fn parse_line(
    schema: &PackSchema,
    line: usize,
    text: &[u8],
    files: &dyn Files,
) -> Result<Row, String> {
    let object: Map<String, Json> = serde_json::from_slice(text).map_err(|e| e.to_string())?;
    if let Some(key) = object
        .keys()
        .find(|k| !schema.schema.fields().iter().any(|f| &f.name == *k))
    {
        return Err(format!("{} is not a field of the schema", quoted(key)));
    }
    let mut cells = Vec::with_capacity(schema.fields.len());
    for (def, field) in schema.schema.fields().iter().zip(&schema.fields) {
        let v = object.get(&def.name).unwrap_or(&Json::Null);
        cells.push(cell(field, v, files).map_err(|e| format!("field {}: {e}", quoted(&def.name)))?);
    }
    Ok(Row { line, cells })
}

/// The path of a payload: a string, or an object's `"path"`.
fn path_of(v: &Json) -> Option<&str> {
    v.as_str().or_else(|| v.get("path").and_then(Json::as_str))
}

fn payload(v: &Json, files: &dyn Files) -> Result<PathBuf, String> {
    let name = path_of(v).ok_or("expected a path (a string, or an object with \"path\")")?;
    files.resolve(name)
}

/// `v[key]` as a small number; 0 when absent.
fn small<T: TryFrom<u64>>(v: &Json, key: &str) -> Result<T, String> {
    match v.get(key) {
        None => T::try_from(0).map_err(|_| format!("\"{key}\" is out of range")),
        Some(n) => n
            .as_u64()
            .and_then(|n| T::try_from(n).ok())
            .ok_or_else(|| format!("\"{key}\" must be a non-negative integer in range")),
    }
}

fn cell(field: &PackField, v: &Json, files: &dyn Files) -> Result<Cell, String> {
    if v.is_null() {
        return Ok(Cell::Null);
    }
    Ok(match field.field_type {
        FieldType::Int => Cell::Int(v.as_i64().ok_or("expected an integer (i64)")?),
        FieldType::Float => Cell::Float(v.as_f64().ok_or("expected a number")?),
        FieldType::Bytes => Cell::Bytes(payload(v, files)?),
        FieldType::Ndarray(_) => Cell::Ndarray(payload(v, files)?),
        FieldType::Json => Cell::Json(v.to_string()),
        FieldType::TextRaw => Cell::Text(v.as_str().ok_or("expected a string")?.to_owned()),
        FieldType::TextTokenized { .. } => {
            let ids = v.as_array().ok_or("expected an array of token ids")?;
            if field.token_width == 4 {
                let ids: Option<Vec<U32>> = ids
                    .iter()
                    .map(|i| i.as_u64().and_then(|i| u32::try_from(i).ok()).map(U32::new))
                    .collect();
                Cell::Ids32(ids.ok_or("token ids must be integers from 0 to 2^32 − 1")?)
            } else {
                let ids: Option<Vec<U16>> = ids
                    .iter()
                    .map(|i| i.as_u64().and_then(|i| u16::try_from(i).ok()).map(U16::new))
                    .collect();
                Cell::Ids16(ids.ok_or("token ids must be integers from 0 to 65535")?)
            }
        }
        FieldType::ImageRaw | FieldType::ImageJpeg { .. } | FieldType::ImagePng => {
            let default = match field.field_type {
                FieldType::ImageRaw => ImageMode::Raw,
                FieldType::ImageJpeg { .. } => ImageMode::Jpeg,
                _ => ImageMode::Png,
            };
            let mode = match v.get("mode").map(|m| m.as_str().ok_or(m)) {
                None => default,
                Some(Ok("raw")) => ImageMode::Raw,
                Some(Ok("jpeg")) => ImageMode::Jpeg,
                Some(Ok("png")) => ImageMode::Png,
                Some(Ok(other)) => return Err(format!("unknown image mode {}", quoted(other))),
                Some(Err(_)) => return Err("\"mode\" is raw, jpeg or png".to_owned()),
            };
            if mode == ImageMode::Raw && v.get("channels").is_none() {
                return Err("a raw image needs \"height\", \"width\" and \"channels\"".into());
            }
            Cell::Image {
                mode,
                height: small(v, "height")?,
                width: small(v, "width")?,
                channels: small(v, "channels")?,
                file: payload(v, files)?,
            }
        }
        FieldType::AudioWaveform | FieldType::AudioCompressed => {
            let guessed = path_of(v)
                .and_then(|p| Path::new(p).extension())
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase)
                .and_then(|e| match e.as_str() {
                    "flac" => Some(AudioCodec::Flac),
                    "aac" | "m4a" => Some(AudioCodec::Aac),
                    "mp3" => Some(AudioCodec::Mp3),
                    _ => None,
                });
            let codec = match v.get("codec").and_then(Json::as_str) {
                Some(name) => AudioCodec::from_name(name)
                    .ok_or_else(|| format!("unknown codec {}", quoted(name)))?,
                None => guessed.ok_or("say \"codec\": pcm, pcm_f32, flac, aac or mp3")?,
            };
            let mut bit_depth: u8 = small(v, "bit_depth")?;
            if codec == AudioCodec::PcmF32 && bit_depth == 0 {
                bit_depth = 32;
            }
            let num_samples = match v.get("num_samples") {
                None => None,
                Some(_) => Some(small(v, "num_samples")?),
            };
            Cell::Audio {
                codec,
                num_samples,
                sample_rate: small(v, "sample_rate")?,
                channels: small(v, "channels")?,
                bit_depth,
                file: payload(v, files)?,
            }
        }
        _ => return Err("this type cannot be packed".into()),
    })
}
