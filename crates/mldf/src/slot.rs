//! The per-type rules of a metadata slot and its payload, shared by the reader (which
//! checks every slot it hands out) and the writer (which checks every slot it builds).

use binfmt_core::le::{U16, U32};
use zerocopy::FromBytes;

use crate::error::ValueProblem;
use crate::raw::{AudioMeta, ImageMeta, TextMeta};
use crate::types::{AudioCodec, FieldType, ImageMode, TypeId};
use crate::value::{Audio, Image, Text, Value};

/// `(data_ptr, data_size)` of a payload slot (the first 12 bytes of every payload type).
pub(crate) fn pointer(slot: &[u8]) -> Option<(u64, u32)> {
    let ptr = slot.get(..8)?;
    let size = slot.get(8..12)?;
    let ptr = u64::from_le_bytes(ptr.try_into().ok()?);
    let size = u32::from_le_bytes(size.try_into().ok()?);
    Some((ptr, size))
}

/// The empty value of a payload type: what an all-zero slot means in a field that is not
/// NULLABLE (and what a NULLABLE one would hold if it were not null).
pub(crate) fn empty(ty: &FieldType) -> Value<'static> {
    match ty {
        FieldType::Bytes => Value::Bytes(&[]),
        FieldType::Json => Value::Json(""),
        FieldType::Ndarray(_) => Value::Ndarray(&[]),
        FieldType::ImageRaw | FieldType::ImageJpeg { .. } | FieldType::ImagePng => {
            Value::Image(Image::raw(0, 0, 0, &[]))
        }
        FieldType::AudioWaveform | FieldType::AudioCompressed => Value::Audio(Audio {
            codec: AudioCodec::Pcm,
            num_samples: 0,
            sample_rate: 0,
            num_channels: 0,
            bit_depth: 0,
            data: &[],
        }),
        FieldType::TextRaw | FieldType::TextTokenized { .. } => Value::Text(Text::Utf8("")),
        FieldType::Int => Value::Int(0),
        FieldType::Float => Value::Float(0.0),
        FieldType::Other(_) => Value::Unknown(&[]),
    }
}

/// Applies the per-type rules to a slot that is not all zero, whose pointer and size are
/// consistent and whose `payload` has already been cut from the data region.
///
/// With `content` false the payload's bytes are not looked at (no UTF-8 check); text
/// and JSON values then come back empty. Whole-file verification uses that for slots
/// whose payload it has already checked through another slot.
pub(crate) fn interpret<'a>(
    ty: &FieldType,
    slot: &[u8],
    payload: &'a [u8],
    content: bool,
) -> Result<Value<'a>, ValueProblem> {
    let utf8 = |payload: &'a [u8]| if content { utf8(payload) } else { Ok("") };
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

fn utf8(payload: &[u8]) -> Result<&str, ValueProblem> {
    core::str::from_utf8(payload).map_err(|e| ValueProblem::NotUtf8 {
        valid_up_to: e.valid_up_to(),
    })
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
    utf8: impl Fn(&'a [u8]) -> Result<&'a str, ValueProblem>,
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
    if size % u32::from(width) != 0 {
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
