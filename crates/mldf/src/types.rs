//! The type registry: type ids, field types with their arguments, and the small
//! enumerations stored in metadata slots.

use core::fmt;

use binfmt_core::{Kind, field_offset};

use crate::error::{ErrorKind, Result};
use crate::raw::{
    self, AUDIO_META_SIZE, BYTES_META_SIZE, FLOAT_META_SIZE, IMAGE_META_SIZE, INT_META_SIZE,
    MAX_NDIM, TEXT_META_SIZE,
};

/// A field's type id, as stored in its descriptor.
///
/// Ids that v1.0 defines have constants here; reserved and unknown ids are valid in a
/// file (readers skip such fields) but cannot be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub u16);

impl TypeId {
    /// 64-bit signed integer, stored in the slot.
    pub const INT: TypeId = TypeId(1);
    /// 64-bit float, stored in the slot.
    pub const FLOAT: TypeId = TypeId(2);
    /// Opaque bytes.
    pub const BYTES: TypeId = TypeId(3);
    /// Fixed-shape array of one element type.
    pub const NDARRAY: TypeId = TypeId(4);
    /// JSON text.
    pub const JSON: TypeId = TypeId(5);
    /// Raw HWC u8 pixels.
    pub const IMAGE_RAW: TypeId = TypeId(10);
    /// JPEG images.
    pub const IMAGE_JPEG: TypeId = TypeId(11);
    /// PNG images.
    pub const IMAGE_PNG: TypeId = TypeId(12);
    /// PCM audio.
    pub const AUDIO_WAVEFORM: TypeId = TypeId(20);
    /// FLAC, AAC or MP3 audio.
    pub const AUDIO_COMPRESSED: TypeId = TypeId(21);
    /// UTF-8 text.
    pub const TEXT_RAW: TypeId = TypeId(40);
    /// Token ids.
    pub const TEXT_TOKENIZED: TypeId = TypeId(41);

    /// The registry name (`"TEXT_RAW"`), for defined and reserved ids; `None` otherwise.
    #[must_use]
    pub const fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            1 => "INT",
            2 => "FLOAT",
            3 => "BYTES",
            4 => "NDARRAY",
            5 => "JSON",
            10 => "IMAGE_RAW",
            11 => "IMAGE_JPEG",
            12 => "IMAGE_PNG",
            20 => "AUDIO_WAVEFORM",
            21 => "AUDIO_COMPRESSED",
            22 => "AUDIO_SPECTROGRAM",
            23 => "AUDIO_CODEC_TOKENS",
            30 => "VIDEO_FRAMES",
            31 => "VIDEO_COMPRESSED",
            32 => "VIDEO_OPTICAL_FLOW",
            40 => "TEXT_RAW",
            41 => "TEXT_TOKENIZED",
            42 => "TEXT_PACKED",
            43 => "TEXT_HIERARCHICAL",
            50 => "MULTIMODAL_SAMPLE",
            _ => return None,
        })
    }

    /// The v1.0 metadata size of a defined type (the size of its slot struct in
    /// [`raw`]); `None` for reserved and unknown ids.
    #[must_use]
    pub const fn metadata_size(self) -> Option<u32> {
        let size = match self.0 {
            1 => INT_META_SIZE,
            2 => FLOAT_META_SIZE,
            3..=5 => BYTES_META_SIZE,
            10..=12 => IMAGE_META_SIZE,
            20 | 21 => AUDIO_META_SIZE,
            40 | 41 => TEXT_META_SIZE,
            _ => return None,
        };
        // Slot structs are 8 to 24 bytes.
        #[allow(clippy::cast_possible_truncation)]
        Some(size as u32)
    }

    /// True when v1.0 defines this id (readers can decode its values).
    #[must_use]
    pub const fn is_defined(self) -> bool {
        self.metadata_size().is_some()
    }

    /// True for the types whose slot points at a payload (everything but INT and FLOAT).
    #[must_use]
    pub const fn has_payload(self) -> bool {
        self.is_defined() && !matches!(self.0, 1 | 2)
    }
}

impl fmt::Display for TypeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{name} ({})", self.0),
            None => write!(f, "unknown type {}", self.0),
        }
    }
}

binfmt_core::code_enum! {
    /// NDARRAY element types (argument byte 0).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum Dtype {
        /// `u8`
        U8 = 1,
        /// `i8`
        I8 = 2,
        /// `u16`
        U16 = 3,
        /// `i16`
        I16 = 4,
        /// `u32`
        U32 = 5,
        /// `i32`
        I32 = 6,
        /// `u64`
        U64 = 7,
        /// `i64`
        I64 = 8,
        /// IEEE half precision.
        F16 = 9,
        /// IEEE single precision.
        F32 = 10,
        /// IEEE double precision.
        F64 = 11,
        /// bfloat16.
        Bf16 = 12,
        /// One byte per element, 0 or 1 when written.
        Bool = 13,
    }
    fn from_code;
}

impl Dtype {
    /// Bytes per element.
    #[must_use]
    pub const fn itemsize(self) -> u64 {
        match self {
            Dtype::U8 | Dtype::I8 | Dtype::Bool => 1,
            Dtype::U16 | Dtype::I16 | Dtype::F16 | Dtype::Bf16 => 2,
            Dtype::U32 | Dtype::I32 | Dtype::F32 => 4,
            Dtype::U64 | Dtype::I64 | Dtype::F64 => 8,
        }
    }

    /// The numpy-style name (`"f32"`, `"bf16"`, `"bool"`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Dtype::U8 => "u8",
            Dtype::I8 => "i8",
            Dtype::U16 => "u16",
            Dtype::I16 => "i16",
            Dtype::U32 => "u32",
            Dtype::I32 => "i32",
            Dtype::U64 => "u64",
            Dtype::I64 => "i64",
            Dtype::F16 => "f16",
            Dtype::F32 => "f32",
            Dtype::F64 => "f64",
            Dtype::Bf16 => "bf16",
            Dtype::Bool => "bool",
        }
    }

    /// The dtype named `name` (as [`Dtype::name`] spells it).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Dtype> {
        Dtype::ALL.into_iter().find(|d| d.name() == name)
    }
}

/// An NDARRAY field's element type and fixed shape, with its byte size already known to
/// fit a payload (at most 2^32 − 1 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NdarraySpec {
    dtype: Dtype,
    ndim: u8,
    shape: [u64; MAX_NDIM],
    byte_size: u32,
}

impl NdarraySpec {
    /// An array type of `dtype` elements with `shape` (C order; empty for a scalar).
    ///
    /// # Errors
    /// [`ErrorKind::BadShape`] for more than 15 dimensions or when
    /// `prod(shape) · itemsize` exceeds 2^32 − 1 bytes (no value could be stored).
    ///
    /// ```
    /// use mldf::{Dtype, NdarraySpec};
    /// let spec = NdarraySpec::new(Dtype::F32, &[2, 3])?;
    /// assert_eq!((spec.len(), spec.byte_size()), (6, 24));
    /// // A zero dimension makes any shape empty, however large the others are.
    /// assert_eq!(NdarraySpec::new(Dtype::U8, &[1 << 63, 4, 0])?.byte_size(), 0);
    /// assert!(NdarraySpec::new(Dtype::F64, &[1 << 29]).is_err()); // 4 GiB per value
    /// # Ok::<(), mldf::Error>(())
    /// ```
    pub fn new(dtype: Dtype, shape: &[u64]) -> Result<NdarraySpec> {
        let bad = || {
            ErrorKind::BadShape {
                ndim: shape.len(),
                dtype: dtype.name(),
            }
            .unlocated()
        };
        let ndim = u8::try_from(shape.len())
            .ok()
            .filter(|&n| usize::from(n) <= MAX_NDIM)
            .ok_or_else(bad)?;
        let mut stored = [0u64; MAX_NDIM];
        for (slot, &dim) in stored.iter_mut().zip(shape) {
            *slot = dim;
        }
        let byte_size = byte_size(dtype, shape).ok_or_else(bad)?;
        Ok(NdarraySpec {
            dtype,
            ndim,
            shape: stored,
            byte_size,
        })
    }

    /// The element type.
    #[must_use]
    pub const fn dtype(&self) -> Dtype {
        self.dtype
    }

    /// The dimensions, outermost first.
    #[must_use]
    pub fn shape(&self) -> &[u64] {
        self.shape.get(..usize::from(self.ndim)).unwrap_or(&[])
    }

    /// The number of elements (1 for a scalar).
    #[must_use]
    pub fn len(&self) -> u64 {
        self.byte_size_u64() / self.dtype.itemsize()
    }

    /// True when the array has no elements (some dimension is 0).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.byte_size == 0
    }

    /// The payload size of every non-empty value: `prod(shape) · itemsize`.
    #[must_use]
    pub const fn byte_size(&self) -> u32 {
        self.byte_size
    }

    fn byte_size_u64(&self) -> u64 {
        u64::from(self.byte_size)
    }
}

/// `prod(shape) · itemsize` if it fits a `u32`, computed so that a zero dimension wins
/// over an overflow elsewhere (`(2^63, 4, 0)` has byte size 0).
fn byte_size(dtype: Dtype, shape: &[u64]) -> Option<u32> {
    if shape.contains(&0) {
        return Some(0);
    }
    let mut size = dtype.itemsize();
    for &dim in shape {
        size = size.checked_mul(dim)?;
        // Every later factor is ≥ 1, so once past the limit it stays past it.
        if size > u64::from(u32::MAX) {
            return None;
        }
    }
    u32::try_from(size).ok()
}

/// A field's type together with its per-type arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FieldType {
    /// INT: an `i64` in the slot.
    Int,
    /// FLOAT: an `f64` in the slot.
    Float,
    /// BYTES: an opaque payload.
    Bytes,
    /// JSON: a payload of JSON text.
    Json,
    /// NDARRAY: a payload of `shape` elements of `dtype`, C order, little-endian.
    Ndarray(NdarraySpec),
    /// IMAGE_RAW: HWC u8 pixels (one field may also hold JPEG or PNG samples).
    ImageRaw,
    /// IMAGE_JPEG, with an informational quality (0 = unspecified).
    ImageJpeg {
        /// The encoder quality the images were made with, or 0.
        quality: u8,
    },
    /// IMAGE_PNG.
    ImagePng,
    /// AUDIO_WAVEFORM: integer or float32 PCM.
    AudioWaveform,
    /// AUDIO_COMPRESSED: FLAC, AAC or MP3.
    AudioCompressed,
    /// TEXT_RAW: UTF-8 text.
    TextRaw,
    /// TEXT_TOKENIZED, with an informational vocabulary size (0 = unspecified).
    TextTokenized {
        /// The tokenizer's vocabulary size, or 0.
        vocab_size: u32,
    },
    /// A reserved or unknown type id: readers skip such fields; writers reject them.
    Other(TypeId),
}

impl FieldType {
    /// The stored type id.
    #[must_use]
    pub const fn type_id(&self) -> TypeId {
        match self {
            FieldType::Int => TypeId::INT,
            FieldType::Float => TypeId::FLOAT,
            FieldType::Bytes => TypeId::BYTES,
            FieldType::Json => TypeId::JSON,
            FieldType::Ndarray(_) => TypeId::NDARRAY,
            FieldType::ImageRaw => TypeId::IMAGE_RAW,
            FieldType::ImageJpeg { .. } => TypeId::IMAGE_JPEG,
            FieldType::ImagePng => TypeId::IMAGE_PNG,
            FieldType::AudioWaveform => TypeId::AUDIO_WAVEFORM,
            FieldType::AudioCompressed => TypeId::AUDIO_COMPRESSED,
            FieldType::TextRaw => TypeId::TEXT_RAW,
            FieldType::TextTokenized { .. } => TypeId::TEXT_TOKENIZED,
            FieldType::Other(id) => *id,
        }
    }

    /// True for the image types.
    #[must_use]
    pub const fn is_image(&self) -> bool {
        matches!(
            self,
            FieldType::ImageRaw | FieldType::ImageJpeg { .. } | FieldType::ImagePng
        )
    }

    /// The 128 argument bytes a writer stores for this type.
    #[must_use]
    pub fn arguments(&self) -> [u8; 128] {
        let mut args = [0u8; 128];
        match self {
            FieldType::Ndarray(spec) => {
                let mut raw = raw::NdarrayArgs {
                    dtype: spec.dtype.code(),
                    ndim: spec.ndim,
                    pad: [0; 6],
                    shape: [binfmt_core::le::U64::ZERO; MAX_NDIM],
                };
                for (slot, &dim) in raw.shape.iter_mut().zip(spec.shape()) {
                    *slot = dim.into();
                }
                args = zerocopy::transmute!(raw);
            }
            FieldType::ImageJpeg { quality } => {
                if let Some(b) = args.first_mut() {
                    *b = *quality;
                }
            }
            FieldType::TextTokenized { vocab_size } => {
                if let Some(b) = args.get_mut(..4) {
                    b.copy_from_slice(&vocab_size.to_le_bytes());
                }
            }
            _ => {}
        }
        args
    }

    /// Decodes a descriptor's type id and arguments; `args_offset` is the absolute offset
    /// of the arguments and `field` the descriptor's index, for error reports.
    pub(crate) fn from_descriptor(
        type_id: TypeId,
        arguments: &[u8; 128],
        args_offset: u64,
        field: usize,
    ) -> Result<FieldType> {
        Ok(match type_id {
            TypeId::INT => FieldType::Int,
            TypeId::FLOAT => FieldType::Float,
            TypeId::BYTES => FieldType::Bytes,
            TypeId::JSON => FieldType::Json,
            TypeId::NDARRAY => {
                let raw: raw::NdarrayArgs = zerocopy::transmute!(*arguments);
                let dtype = Dtype::from_code(raw.dtype).ok_or_else(|| {
                    ErrorKind::NdarrayDtype {
                        field,
                        code: raw.dtype,
                    }
                    .at(args_offset.saturating_add(field_offset!(raw::NdarrayArgs, dtype)))
                })?;
                let ndim = usize::from(raw.ndim);
                if ndim > MAX_NDIM {
                    return Err(ErrorKind::NdarrayRank { field, ndim }
                        .at(args_offset.saturating_add(field_offset!(raw::NdarrayArgs, ndim))));
                }
                let mut shape = [0u64; MAX_NDIM];
                for (dst, src) in shape.iter_mut().zip(raw.shape.iter()).take(ndim) {
                    *dst = src.get();
                }
                let dims = shape.get(..ndim).unwrap_or(&[]);
                NdarraySpec::new(dtype, dims)
                    .map(FieldType::Ndarray)
                    .map_err(|_| {
                        ErrorKind::NdarrayTooLarge { field }
                            .at(args_offset.saturating_add(field_offset!(raw::NdarrayArgs, shape)))
                    })?
            }
            TypeId::IMAGE_RAW => FieldType::ImageRaw,
            TypeId::IMAGE_JPEG => FieldType::ImageJpeg {
                quality: arguments.first().copied().unwrap_or(0),
            },
            TypeId::IMAGE_PNG => FieldType::ImagePng,
            TypeId::AUDIO_WAVEFORM => FieldType::AudioWaveform,
            TypeId::AUDIO_COMPRESSED => FieldType::AudioCompressed,
            TypeId::TEXT_RAW => FieldType::TextRaw,
            TypeId::TEXT_TOKENIZED => {
                let mut le = [0u8; 4];
                if let Some(b) = arguments.get(..4) {
                    le.copy_from_slice(b);
                }
                FieldType::TextTokenized {
                    vocab_size: u32::from_le_bytes(le),
                }
            }
            other => FieldType::Other(other),
        })
    }
}

binfmt_core::code_enum! {
    /// How an image sample's payload is encoded (the slot's `mode` byte).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum ImageMode {
        /// HWC u8 pixels.
        Raw = 0,
        /// A JPEG file.
        Jpeg = 1,
        /// A PNG file.
        Png = 2,
    }
    const fn from_code;
}

impl ImageMode {
    /// `"raw"`, `"jpeg"` or `"png"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            ImageMode::Raw => "raw",
            ImageMode::Jpeg => "jpeg",
            ImageMode::Png => "png",
        }
    }
}

binfmt_core::code_enum! {
    /// An audio sample's codec (the slot's `codec` byte).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum AudioCodec {
        /// Interleaved integer PCM (AUDIO_WAVEFORM).
        Pcm = 0,
        /// FLAC (AUDIO_COMPRESSED).
        Flac = 1,
        /// AAC (AUDIO_COMPRESSED).
        Aac = 2,
        /// MP3 (AUDIO_COMPRESSED).
        Mp3 = 3,
        /// Interleaved 32-bit float PCM (AUDIO_WAVEFORM).
        PcmF32 = 4,
    }
    const fn from_code;
}

impl AudioCodec {
    /// True for the PCM codecs that AUDIO_WAVEFORM carries.
    #[must_use]
    pub const fn is_pcm(self) -> bool {
        matches!(self, AudioCodec::Pcm | AudioCodec::PcmF32)
    }

    /// `"pcm"`, `"flac"`, `"aac"`, `"mp3"` or `"pcm_f32"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            AudioCodec::Pcm => "pcm",
            AudioCodec::Flac => "flac",
            AudioCodec::Aac => "aac",
            AudioCodec::Mp3 => "mp3",
            AudioCodec::PcmF32 => "pcm_f32",
        }
    }

    /// The codec named `name` (as [`AudioCodec::name`] spells it).
    #[must_use]
    pub fn from_name(name: &str) -> Option<AudioCodec> {
        AudioCodec::ALL.into_iter().find(|c| c.name() == name)
    }
}
