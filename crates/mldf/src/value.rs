//! Typed values, as a reader hands them out and a writer takes them in.
//!
//! Every payload is borrowed: from the file when reading (zero-copy), from the caller
//! when writing.

use binfmt_core::le::{U16, U32};
use zerocopy::IntoBytes;

use crate::types::{AudioCodec, ImageMode};

/// One value of one field of one sample.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Value<'a> {
    /// No value: an all-zero slot in a NULLABLE payload field. Writers accept it only
    /// for such fields.
    Null,
    /// An INT.
    Int(i64),
    /// A FLOAT.
    Float(f64),
    /// A BYTES payload.
    Bytes(&'a [u8]),
    /// A JSON payload: JSON text (readers check only that it is UTF-8), or empty.
    Json(&'a str),
    /// An NDARRAY payload: C-order little-endian elements of the field's dtype and
    /// shape ([`crate::NdarraySpec`]), or empty.
    Ndarray(&'a [u8]),
    /// An image.
    Image(Image<'a>),
    /// An audio clip.
    Audio(Audio<'a>),
    /// Text or token ids.
    Text(Text<'a>),
    /// The slot of a field whose type this version does not define (reader only).
    Unknown(&'a [u8]),
}

impl<'a> Value<'a> {
    /// What kind of value this is: `"null"`, `"int"`, `"float"`, `"bytes"`, `"json"`,
    /// `"ndarray"`, `"image"`, `"audio"`, `"text"` or `"unknown"`.
    #[must_use]
    pub const fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Bytes(_) => "bytes",
            Value::Json(_) => "json",
            Value::Ndarray(_) => "ndarray",
            Value::Image(_) => "image",
            Value::Audio(_) => "audio",
            Value::Text(_) => "text",
            Value::Unknown(_) => "unknown",
        }
    }

    /// The payload bytes, for the types that have one (`None` for null, INT, FLOAT and
    /// unknown types).
    #[must_use]
    pub fn payload(&self) -> Option<&'a [u8]> {
        match *self {
            Value::Bytes(b) | Value::Ndarray(b) => Some(b),
            Value::Json(s) => Some(s.as_bytes()),
            Value::Image(i) => Some(i.data),
            Value::Audio(a) => Some(a.data),
            Value::Text(t) => Some(t.as_bytes()),
            Value::Null | Value::Int(_) | Value::Float(_) | Value::Unknown(_) => None,
        }
    }

    /// Equality that compares floats by their bits (so NaN equals itself and 0.0 differs
    /// from -0.0): "the file stores the same bytes".
    #[must_use]
    pub fn same(&self, other: &Value<'_>) -> bool {
        match (self, other) {
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::Null, Value::Null) => true,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Bytes(a), Value::Bytes(b))
            | (Value::Ndarray(a), Value::Ndarray(b))
            | (Value::Unknown(a), Value::Unknown(b)) => a == b,
            (Value::Json(a), Value::Json(b)) => a == b,
            (Value::Image(a), Value::Image(b)) => a == b,
            (Value::Audio(a), Value::Audio(b)) => a == b,
            (Value::Text(a), Value::Text(b)) => a == b,
            _ => false,
        }
    }
}

/// An image value: its encoding, dimensions and payload.
///
/// For JPEG and PNG, a writer ignores `height`, `width` and `channels` and takes them
/// from the image's own header; [`Image::jpeg`] and [`Image::png`] leave them 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Image<'a> {
    /// How `data` is encoded.
    pub mode: ImageMode,
    /// Height in pixels.
    pub height: u16,
    /// Width in pixels.
    pub width: u16,
    /// Channels per pixel.
    pub channels: u8,
    /// The payload: HWC u8 pixels, or the JPEG or PNG file.
    pub data: &'a [u8],
}

impl<'a> Image<'a> {
    /// Raw HWC pixels, one byte per channel (1, 3 or 4 channels).
    #[must_use]
    pub const fn raw(height: u16, width: u16, channels: u8, data: &'a [u8]) -> Self {
        Image {
            mode: ImageMode::Raw,
            height,
            width,
            channels,
            data,
        }
    }

    /// A JPEG file; the writer reads its dimensions from the frame header.
    #[must_use]
    pub const fn jpeg(data: &'a [u8]) -> Self {
        Image {
            mode: ImageMode::Jpeg,
            height: 0,
            width: 0,
            channels: 0,
            data,
        }
    }

    /// A PNG file; the writer reads its dimensions from IHDR (and tRNS).
    #[must_use]
    pub const fn png(data: &'a [u8]) -> Self {
        Image {
            mode: ImageMode::Png,
            height: 0,
            width: 0,
            channels: 0,
            data,
        }
    }
}

/// An audio value: codec, description and payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Audio<'a> {
    /// The codec; PCM codecs go in AUDIO_WAVEFORM fields, the others in AUDIO_COMPRESSED.
    pub codec: AudioCodec,
    /// Frames per channel.
    pub num_samples: u32,
    /// Sample rate in Hz.
    pub sample_rate: u32,
    /// Channel count.
    pub num_channels: u16,
    /// Bits per sample (8, 16, 24 or 32 for integer PCM; 32 for float PCM; informational
    /// or 0 for compressed codecs).
    pub bit_depth: u8,
    /// The payload: interleaved little-endian PCM, or the compressed stream.
    pub data: &'a [u8],
}

impl<'a> Audio<'a> {
    /// Interleaved integer PCM; the frame count follows from the payload size.
    #[must_use]
    pub fn pcm(sample_rate: u32, num_channels: u16, bit_depth: u8, data: &'a [u8]) -> Self {
        let frame = usize::from(num_channels).saturating_mul(usize::from(bit_depth / 8));
        let frames = data.len().checked_div(frame).unwrap_or(0);
        Audio {
            codec: AudioCodec::Pcm,
            num_samples: u32::try_from(frames).unwrap_or(u32::MAX),
            sample_rate,
            num_channels,
            bit_depth,
            data,
        }
    }

    /// Interleaved 32-bit float PCM; the frame count follows from the payload size.
    #[must_use]
    pub fn pcm_f32(sample_rate: u32, num_channels: u16, data: &'a [u8]) -> Self {
        Audio {
            codec: AudioCodec::PcmF32,
            ..Audio::pcm(sample_rate, num_channels, 32, data)
        }
    }

    /// A FLAC, AAC or MP3 stream; the description fields are informational and start at 0.
    #[must_use]
    pub const fn compressed(codec: AudioCodec, data: &'a [u8]) -> Self {
        Audio {
            codec,
            num_samples: 0,
            sample_rate: 0,
            num_channels: 0,
            bit_depth: 0,
            data,
        }
    }
}

/// A text value: UTF-8, or token ids of 4 or 2 bytes (little-endian, read in place).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Text<'a> {
    /// UTF-8 text (encoding 0).
    Utf8(&'a str),
    /// u32 token ids (encoding 1).
    U32(&'a [U32]),
    /// u16 token ids (encoding 2).
    U16(&'a [U16]),
}

impl<'a> Text<'a> {
    /// The stored encoding: 0, 1 or 2.
    #[must_use]
    pub const fn encoding(&self) -> u8 {
        match self {
            Text::Utf8(_) => 0,
            Text::U32(_) => 1,
            Text::U16(_) => 2,
        }
    }

    /// The number of token ids (0 for UTF-8 text).
    #[must_use]
    pub const fn num_tokens(&self) -> usize {
        match self {
            Text::Utf8(_) => 0,
            Text::U32(ids) => ids.len(),
            Text::U16(ids) => ids.len(),
        }
    }

    /// The payload bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &'a [u8] {
        match *self {
            Text::Utf8(s) => s.as_bytes(),
            Text::U32(ids) => ids.as_bytes(),
            Text::U16(ids) => ids.as_bytes(),
        }
    }

    /// The token ids widened to `u32` (nothing for UTF-8 text).
    pub fn token_ids(&self) -> impl Iterator<Item = u32> + 'a {
        let (wide, narrow): (&'a [U32], &'a [U16]) = match *self {
            Text::Utf8(_) => (&[], &[]),
            Text::U32(ids) => (ids, &[]),
            Text::U16(ids) => (&[], ids),
        };
        wide.iter()
            .map(|id| id.get())
            .chain(narrow.iter().map(|id| u32::from(id.get())))
    }
}
