//! How MLDF things are shown: type names, header flags, and values in `diff` lines, all
//! escaped and bounded; JSON lines safe for a terminal.

use std::fmt::Write as _;

use mldf::{Field, FieldType, Text, Value};

use crate::escape;

/// Characters of a string (a name, a text value) shown in a line before it is cut.
pub(super) const MAX_SHOWN_CHARS: usize = 60;
/// Token ids shown in a `diff` line before the rest is counted.
const MAX_SHOWN_IDS: usize = 8;

/// The header flags by name: `LITTLE_ENDIAN | CHECKSUMMED`, unknown bits in hex.
pub(super) fn flag_names(flags: u32) -> String {
    let mut names = Vec::new();
    for (bit, name) in [
        (mldf::FLAG_LITTLE_ENDIAN, "LITTLE_ENDIAN"),
        (mldf::FLAG_COMPRESSED, "COMPRESSED"),
        (mldf::FLAG_CHECKSUMMED, "CHECKSUMMED"),
        (mldf::FLAG_ENCRYPTED, "ENCRYPTED"),
    ] {
        if flags & bit != 0 {
            names.push(name.to_owned());
        }
    }
    let rest = flags & !0xF;
    if rest != 0 {
        names.push(format!("{rest:#x}"));
    }
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(" | ")
    }
}

/// A field's type with its arguments: `NDARRAY f32 [2]`, `IMAGE_JPEG quality 90`,
/// `TEXT_TOKENIZED vocab 100, nullable`. Bounded: a shape has at most `MAX_NDIM` sizes.
pub(super) fn type_name(field: &Field) -> String {
    let mut name = field.type_id().name().unwrap_or("unknown").to_owned();
    match field.field_type() {
        FieldType::Ndarray(spec) => {
            let _ = write!(name, " {} {:?}", spec.dtype().name(), spec.shape());
        }
        FieldType::ImageJpeg { quality } if quality > 0 => {
            let _ = write!(name, " quality {quality}");
        }
        FieldType::TextTokenized { vocab_size } if vocab_size > 0 => {
            let _ = write!(name, " vocab {vocab_size}");
        }
        _ => {}
    }
    if field.is_nullable() {
        name.push_str(", nullable");
    }
    name
}

/// A string from a file in double quotes: escaped (a `"` as `\"`) and cut to
/// [`MAX_SHOWN_CHARS`] characters.
pub(super) fn quoted(s: &str) -> String {
    let shown = escape::text_cut(s, MAX_SHOWN_CHARS).replace('"', "\\\"");
    format!("\"{shown}\"")
}

/// A value as a `diff` line shows it; payloads as their size and CRC-32 (`crc`, given
/// by the comparison, which computes it once per payload).
pub(super) fn value(v: &Value<'_>, crc: Option<u32>) -> String {
    let blob = |b: &[u8]| {
        let crc = crc.unwrap_or_else(|| crc32fast::hash(b));
        format!("<{} bytes, crc32 {crc:08x}>", b.len())
    };
    match *v {
        Value::Null => "null".to_owned(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => format!("{f:?}"),
        Value::Bytes(b) | Value::Ndarray(b) => blob(b),
        Value::Unknown(slot) => format!("slot {}", crate::escape::hex(slot)),
        Value::Json(s) | Value::Text(Text::Utf8(s)) => quoted(s),
        Value::Image(i) => {
            let (h, w, c) = (i.height, i.width, i.channels);
            format!("{} {h}x{w}x{c} {}", i.mode.name(), blob(i.data))
        }
        Value::Audio(a) => {
            let (rate, channels) = (a.sample_rate, a.num_channels);
            let (bits, frames) = (a.bit_depth, a.num_samples);
            format!(
                "{} {rate} Hz, {channels} ch, {bits} bit, {frames} frames {}",
                a.codec.name(),
                blob(a.data)
            )
        }
        Value::Text(t) => {
            let ids: Vec<String> = t
                .token_ids()
                .take(MAX_SHOWN_IDS)
                .map(|i| i.to_string())
                .collect();
            let more = if t.num_tokens() > MAX_SHOWN_IDS {
                ", …"
            } else {
                ""
            };
            format!(
                "u{} ids [{}{more}] ({} ids)",
                if t.encoding() == 1 { 32 } else { 16 },
                ids.join(", "),
                t.num_tokens()
            )
        }
        // A kind of value this version of binfmt does not know.
        _ => v.kind().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_strings_are_escaped_and_cut() {
        assert_eq!(quoted("a\"b\x1b"), "\"a\\\"b\\e\"");
        let long = quoted(&"x".repeat(10_000));
        assert_eq!(long.chars().count(), MAX_SHOWN_CHARS + 3);
    }
}
