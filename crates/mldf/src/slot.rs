//! The per-slot rules of an access, shared by every reader ([`crate::Dataset`],
//! [`crate::Reader`], verification, diff) and by the writer (which checks every slot it
//! builds): first the rules that need no payload ([`locate`]), then the per-type rules
//! on the slot and its payload ([`interpret`]).

use core::ops::Range;

use binfmt_core::Kind;
use binfmt_core::le::{U16, U32};
use zerocopy::FromBytes;

use crate::error::{ErrorKind, Result, ValueProblem};
use crate::field::Field;
use crate::raw::{AudioMeta, BytesMeta, FloatMeta, ImageMeta, IntMeta, TextMeta};
use crate::types::{AudioCodec, FieldType, ImageMode, TypeId};
use crate::value::{Audio, Image, Text, Value};

/// `(data_ptr, data_size)` of a payload slot: every payload type's slot starts as a
/// [`BytesMeta`] does, and is at least as long.
pub(crate) fn pointer(slot: &[u8]) -> Option<(u64, u32)> {
    let (meta, _) = BytesMeta::ref_from_prefix(slot).ok()?;
    Some((meta.data_ptr.get(), meta.data_size.get()))
}

/// How a field's slot is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SlotKind {
    Int,
    Float,
    Payload,
    Unknown,
}

/// What an all-zero payload slot reads as: null, or its type's empty value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Zero {
    Null,
    Bytes,
    Json,
    Ndarray,
    Image,
    Audio,
    Text,
}

impl Zero {
    fn of(field: &Field) -> Zero {
        if field.is_nullable() {
            return Zero::Null;
        }
        match field.field_type_ref() {
            FieldType::Json => Zero::Json,
            FieldType::Ndarray(_) => Zero::Ndarray,
            FieldType::ImageRaw | FieldType::ImageJpeg { .. } | FieldType::ImagePng => Zero::Image,
            FieldType::AudioWaveform | FieldType::AudioCompressed => Zero::Audio,
            FieldType::TextRaw | FieldType::TextTokenized { .. } => Zero::Text,
            // Scalars and unknown types never reach it; BYTES is the neutral choice.
            FieldType::Bytes | FieldType::Int | FieldType::Float | FieldType::Other(_) => {
                Zero::Bytes
            }
        }
    }

    /// The value: null, or the empty value of a type that is not NULLABLE.
    fn value(self) -> Value<'static> {
        match self {
            Zero::Null => Value::Null,
            Zero::Bytes => Value::Bytes(&[]),
            Zero::Json => Value::Json(""),
            Zero::Ndarray => Value::Ndarray(&[]),
            Zero::Image => Value::Image(Image::raw(0, 0, 0, &[])),
            Zero::Audio => Value::Audio(Audio {
                codec: AudioCodec::Pcm,
                num_samples: 0,
                sample_rate: 0,
                num_channels: 0,
                bit_depth: 0,
                data: &[],
            }),
            Zero::Text => Value::Text(Text::Utf8("")),
        }
    }
}

/// What an access needs of a field, kept small and together for the hot path.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hot {
    /// The slot's offset in a row.
    pub(crate) offset: usize,
    /// The slot's length (metadata_size).
    pub(crate) len: usize,
    pub(crate) kind: SlotKind,
    /// What an all-zero slot reads as.
    pub(crate) zero: Zero,
}

impl Hot {
    pub(crate) fn of(field: &Field) -> Hot {
        let ty = field.field_type_ref();
        Hot {
            // Offsets within a row fit usize whenever there is a row in memory to index.
            offset: usize::try_from(field.row_offset()).unwrap_or(usize::MAX),
            len: usize::try_from(field.metadata_size()).unwrap_or(usize::MAX),
            kind: match ty {
                FieldType::Int => SlotKind::Int,
                FieldType::Float => SlotKind::Float,
                FieldType::Other(_) => SlotKind::Unknown,
                _ => SlotKind::Payload,
            },
            zero: Zero::of(field),
        }
    }
}

/// Which slot an access is about, for its errors.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place {
    pub(crate) sample: u64,
    pub(crate) field: usize,
    /// The slot's absolute offset.
    pub(crate) offset: u64,
}

impl Place {
    pub(crate) fn bad(&self, problem: ValueProblem) -> crate::Error {
        ErrorKind::BadValue {
            sample: self.sample,
            field: self.field,
            problem,
        }
        .at(self.offset)
    }
}

/// A slot after the rules that need no payload.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Located<'s> {
    /// A scalar, a null or empty value, or an unknown type's slot: nothing more to read.
    Done(Value<'s>),
    /// A slot whose payload `[ptr, ptr + size)` lies inside the data region (empty when
    /// `size` is 0, and then `ptr` is 0 too).
    Payload { ptr: u64, size: u32 },
}

/// The access rules that need no payload: scalars and unknown types are read from the
/// slot, an all-zero slot is null or empty, and otherwise data_ptr and data_size must
/// agree (both 0 or neither) and the payload must lie inside the `data` region.
#[inline]
pub(crate) fn locate<'s>(
    hot: &Hot,
    slot: &'s [u8],
    data: &Range<u64>,
    place: &Place,
) -> Result<Located<'s>> {
    // The catalog checked every INT and FLOAT slot to be at least 8 bytes.
    match hot.kind {
        SlotKind::Int => {
            let value = IntMeta::ref_from_prefix(slot).map_or(0, |(m, _)| m.value.get());
            return Ok(Located::Done(Value::Int(value)));
        }
        SlotKind::Float => {
            let value = FloatMeta::ref_from_prefix(slot).map_or(0.0, |(m, _)| m.value.get());
            return Ok(Located::Done(Value::Float(value)));
        }
        SlotKind::Unknown => return Ok(Located::Done(Value::Unknown(slot))),
        SlotKind::Payload => {}
    }
    // No early exit: the OR of 16 or 24 bytes vectorises.
    if slot.iter().fold(0u8, |acc, &b| acc | b) == 0 {
        return Ok(Located::Done(hot.zero.value()));
    }
    let (ptr, size) = pointer(slot).ok_or_else(|| place.bad(ValueProblem::Missing))?;
    if (ptr == 0) != (size == 0) {
        return Err(place.bad(ValueProblem::PointerSizeMismatch { ptr, size }));
    }
    if size > 0 {
        let inside = ptr
            .checked_add(u64::from(size))
            .is_some_and(|end| ptr >= data.start && end <= data.end);
        if !inside {
            return Err(ErrorKind::ItemOutsideData {
                sample: place.sample,
                field: place.field,
                ptr,
                size,
                data_start: data.start,
                data_end: data.end,
            }
            .at(place.offset));
        }
    }
    Ok(Located::Payload { ptr, size })
}

/// UTF-8 as readers check it.
pub(crate) fn utf8(payload: &[u8]) -> Result<&str, ValueProblem> {
    core::str::from_utf8(payload).map_err(|e| ValueProblem::NotUtf8 {
        valid_up_to: e.valid_up_to(),
    })
}

/// No UTF-8 check, and no text: for slots whose payload was checked through another
/// slot (verification looks at each payload's contents once).
pub(crate) fn skip_utf8(_: &[u8]) -> Result<&str, ValueProblem> {
    Ok("")
}

/// Applies the per-type rules to a slot that is not all zero, whose pointer and size are
/// consistent and whose `payload` has already been cut from the data region.
///
/// `utf8` turns a text or JSON payload into its text: [`utf8`] checks it, [`skip_utf8`]
/// does not look at it (the value's text is then empty), and the diff hands back what it
/// checked once for a payload many slots share.
pub(crate) fn interpret<'a>(
    ty: &FieldType,
    slot: &[u8],
    payload: &'a [u8],
    utf8: impl FnOnce(&'a [u8]) -> Result<&'a str, ValueProblem>,
) -> Result<Value<'a>, ValueProblem> {
    let size = u32::try_from(payload.len()).map_err(|_| ValueProblem::TooLarge {
        size: binfmt_core::bytes::len_u64(payload),
    })?;
    match ty {
        FieldType::Bytes => Ok(Value::Bytes(payload)),
        FieldType::Json => utf8(payload).map(Value::Json),
        FieldType::Ndarray(spec) => {
            if size == 0 || size == spec.byte_size() {
                Ok(Value::Ndarray(payload))
            } else {
                Err(ValueProblem::NdarraySize {
                    size: u64::from(size),
                    expected: spec.byte_size(),
                })
            }
        }
        FieldType::ImageRaw | FieldType::ImageJpeg { .. } | FieldType::ImagePng => {
            image(slot, payload, size).map(Value::Image)
        }
        FieldType::AudioWaveform | FieldType::AudioCompressed => {
            audio(ty.type_id(), slot, payload, size).map(Value::Audio)
        }
        FieldType::TextRaw | FieldType::TextTokenized { .. } => {
            text(slot, payload, size, utf8).map(Value::Text)
        }
        // These have no payload; callers never pass them here.
        FieldType::Int | FieldType::Float | FieldType::Other(_) => Err(ValueProblem::WrongType {
            type_id: ty.type_id(),
            got: "payload",
        }),
    }
}

fn image<'a>(slot: &[u8], payload: &'a [u8], size: u32) -> Result<Image<'a>, ValueProblem> {
    let (meta, _) = ImageMeta::ref_from_prefix(slot).map_err(|_| ValueProblem::Missing)?;
    let mode =
        ImageMode::from_code(meta.mode).ok_or(ValueProblem::ImageMode { mode: meta.mode })?;
    let (height, width, channels) = (meta.height.get(), meta.width.get(), meta.channels);
    match mode {
        ImageMode::Raw => {
            if !matches!(channels, 1 | 3 | 4) {
                return Err(ValueProblem::RawImageChannels { channels });
            }
            let expected = u64::from(height) * u64::from(width) * u64::from(channels);
            if expected != u64::from(size) {
                return Err(ValueProblem::RawImageSize {
                    height,
                    width,
                    channels,
                    expected,
                    size,
                });
            }
        }
        ImageMode::Jpeg | ImageMode::Png => {
            if size > 0 && !(1..=4).contains(&channels) {
                return Err(ValueProblem::ImageChannels { channels });
            }
        }
    }
    Ok(Image {
        mode,
        height,
        width,
        channels,
        data: payload,
    })
}

fn audio<'a>(
    type_id: TypeId,
    slot: &[u8],
    payload: &'a [u8],
    size: u32,
) -> Result<Audio<'a>, ValueProblem> {
    let (meta, _) = AudioMeta::ref_from_prefix(slot).map_err(|_| ValueProblem::Missing)?;
    let codec =
        AudioCodec::from_code(meta.codec).ok_or(ValueProblem::AudioCodec { codec: meta.codec })?;
    if codec.is_pcm() != (type_id == TypeId::AUDIO_WAVEFORM) {
        return Err(ValueProblem::AudioCodecFamily {
            codec: meta.codec,
            type_id,
        });
    }
    let (frames, channels, bit_depth) = (
        meta.num_samples.get(),
        meta.num_channels.get(),
        meta.bit_depth,
    );
    let depth_ok = match codec {
        AudioCodec::Pcm => matches!(bit_depth, 8 | 16 | 24 | 32),
        AudioCodec::PcmF32 => bit_depth == 32,
        _ => true,
    };
    if !depth_ok {
        return Err(ValueProblem::BitDepth {
            codec: meta.codec,
            bit_depth,
        });
    }
    if codec.is_pcm() {
        // u32 · u16 · 4 stays far below u64::MAX.
        let expected = u64::from(frames) * u64::from(channels) * u64::from(bit_depth / 8);
        if expected != u64::from(size) {
            return Err(ValueProblem::PcmSize { expected, size });
        }
    }
    Ok(Audio {
        codec,
        num_samples: frames,
        sample_rate: meta.sample_rate.get(),
        num_channels: channels,
        bit_depth,
        data: payload,
    })
}

fn text<'a>(
    slot: &[u8],
    payload: &'a [u8],
    size: u32,
    utf8: impl FnOnce(&'a [u8]) -> Result<&'a str, ValueProblem>,
) -> Result<Text<'a>, ValueProblem> {
    let (meta, _) = TextMeta::ref_from_prefix(slot).map_err(|_| ValueProblem::Missing)?;
    let num_tokens = meta.num_tokens.get();
    let width: u8 = match meta.encoding {
        0 => {
            if num_tokens != 0 {
                return Err(ValueProblem::Utf8TokenCount { num_tokens });
            }
            return utf8(payload).map(Text::Utf8);
        }
        1 => 4,
        2 => 2,
        encoding => return Err(ValueProblem::TextEncoding { encoding }),
    };
    if !size.is_multiple_of(u32::from(width)) {
        return Err(ValueProblem::TokenSize { size, width });
    }
    let count = size / u32::from(width);
    let expected = u16::try_from(count).unwrap_or(u16::MAX);
    if num_tokens != expected {
        return Err(ValueProblem::TokenCount {
            num_tokens,
            expected,
        });
    }
    // The size is a whole number of ids and the id types are unaligned: these succeed.
    let bad = ValueProblem::TokenSize { size, width };
    if width == 4 {
        <[U32]>::ref_from_bytes(payload)
            .map(Text::U32)
            .map_err(|_| bad)
    } else {
        <[U16]>::ref_from_bytes(payload)
            .map(Text::U16)
            .map_err(|_| bad)
    }
}

/// A value without its payload: everything its slot says. A reader that owns the
/// payload ([`crate::ValueBuf`]) keeps this and rebuilds the value on demand, and the
/// diff compares shapes, then payloads by identity.
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Shape {
    Null,
    Int(i64),
    /// The bits, so that NaN equals itself and 0.0 differs from −0.0.
    Float(u64),
    Bytes,
    Json,
    Ndarray,
    Image {
        mode: ImageMode,
        height: u16,
        width: u16,
        channels: u8,
    },
    Audio {
        codec: AudioCodec,
        num_samples: u32,
        sample_rate: u32,
        num_channels: u16,
        bit_depth: u8,
    },
    Utf8,
    U32,
    U16,
    /// An unknown type's slot: its bytes are the "payload".
    Unknown,
}

#[cfg(feature = "alloc")]
impl Shape {
    /// The shape of `value`.
    pub(crate) fn of(value: &Value<'_>) -> Shape {
        match *value {
            Value::Null => Shape::Null,
            Value::Int(v) => Shape::Int(v),
            Value::Float(v) => Shape::Float(v.to_bits()),
            Value::Bytes(_) => Shape::Bytes,
            Value::Json(_) => Shape::Json,
            Value::Ndarray(_) => Shape::Ndarray,
            Value::Image(i) => Shape::Image {
                mode: i.mode,
                height: i.height,
                width: i.width,
                channels: i.channels,
            },
            Value::Audio(a) => Shape::Audio {
                codec: a.codec,
                num_samples: a.num_samples,
                sample_rate: a.sample_rate,
                num_channels: a.num_channels,
                bit_depth: a.bit_depth,
            },
            Value::Text(Text::Utf8(_)) => Shape::Utf8,
            Value::Text(Text::U32(_)) => Shape::U32,
            Value::Text(Text::U16(_)) => Shape::U16,
            Value::Unknown(_) => Shape::Unknown,
        }
    }

    /// The value again, with `bytes` as its payload and `text` as its text (JSON and
    /// UTF-8 text, which the caller has checked once). Token ids are cut from `bytes`,
    /// whose length was checked to be a whole number of ids when the shape was made.
    pub(crate) fn with<'p>(self, bytes: &'p [u8], text: &'p str) -> Value<'p> {
        match self {
            Shape::Null => Value::Null,
            Shape::Int(v) => Value::Int(v),
            Shape::Float(bits) => Value::Float(f64::from_bits(bits)),
            Shape::Bytes => Value::Bytes(bytes),
            Shape::Json => Value::Json(text),
            Shape::Ndarray => Value::Ndarray(bytes),
            Shape::Image {
                mode,
                height,
                width,
                channels,
            } => Value::Image(Image {
                mode,
                height,
                width,
                channels,
                data: bytes,
            }),
            Shape::Audio {
                codec,
                num_samples,
                sample_rate,
                num_channels,
                bit_depth,
            } => Value::Audio(Audio {
                codec,
                num_samples,
                sample_rate,
                num_channels,
                bit_depth,
                data: bytes,
            }),
            Shape::Utf8 => Value::Text(Text::Utf8(text)),
            Shape::U32 => Value::Text(Text::U32(
                <[U32]>::ref_from_bytes(bytes).unwrap_or_default(),
            )),
            Shape::U16 => Value::Text(Text::U16(
                <[U16]>::ref_from_bytes(bytes).unwrap_or_default(),
            )),
            Shape::Unknown => Value::Unknown(bytes),
        }
    }

    /// True for the shapes whose value has text rather than bytes.
    pub(crate) const fn is_text(self) -> bool {
        matches!(self, Shape::Json | Shape::Utf8)
    }
}
