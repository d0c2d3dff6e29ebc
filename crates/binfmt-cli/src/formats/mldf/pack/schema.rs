//! SCHEMA.json: the fields of the dataset to build, and how it is written.
//!
//! `{"fields": [{"name": N, "type": T, …}], "page_size": 2097152, "checksums": false}`;
//! the types and their arguments are listed in `binfmt mldf pack --help`.

use mldf::{Dtype, FieldDef, FieldType, NdarraySpec, Schema, WriterOptions};
use serde_json::Value as Json;

use super::super::show::quoted;

/// How the samples' values of one field are read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PackField {
    pub(crate) field_type: FieldType,
    /// Bytes per token id of a `text_tokenized` field: 4 or 2.
    pub(crate) token_width: u8,
}

/// A parsed SCHEMA.json.
#[derive(Debug)]
pub(crate) struct PackSchema {
    /// The dataset's schema, validated.
    pub(crate) schema: Schema,
    /// One entry per field of `schema`, in order.
    pub(crate) fields: Vec<PackField>,
    /// Page size and checksums (the sample count is added once it is known).
    pub(crate) options: WriterOptions,
}

/// Parses SCHEMA.json; the error is a message about its content (escaped).
pub(crate) fn parse(bytes: &[u8]) -> Result<PackSchema, String> {
    let doc: Json = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    let mut options = WriterOptions::new();
    if let Some(p) = doc.get("page_size") {
        let p = p
            .as_u64()
            .and_then(|p| u32::try_from(p).ok())
            .filter(|&p| mldf::is_valid_page_size(p))
            .ok_or("\"page_size\" must be a power of two from 4096 to 2^31")?;
        options = options.page_size(p);
    }
    if let Some(c) = doc.get("checksums") {
        options = options.checksums(c.as_bool().ok_or("\"checksums\" must be true or false")?);
    }
    let list = doc
        .get("fields")
        .and_then(Json::as_array)
        .ok_or("the schema needs \"fields\": [ … ]")?;
    let mut schema = Schema::new();
    let mut fields = Vec::with_capacity(list.len().min(1024));
    for (i, f) in list.iter().enumerate() {
        let name = text(f, "name").ok_or_else(|| format!("field {i} needs a \"name\""))?;
        let field = parse_field(f).map_err(|e| format!("field {}: {e}", quoted(name)))?;
        schema.push(FieldDef {
            name: name.to_owned(),
            field_type: field.field_type,
            nullable: f.get("nullable").and_then(Json::as_bool).unwrap_or(false),
        });
        fields.push(field);
    }
    schema.validate().map_err(|e| e.to_string())?;
    Ok(PackSchema {
        schema,
        fields,
        options,
    })
}

/// The string under `key` of the object `f`.
fn text<'j>(f: &'j Json, key: &str) -> Option<&'j str> {
    f.get(key).and_then(Json::as_str)
}

fn parse_field(f: &Json) -> Result<PackField, String> {
    let ty = text(f, "type").ok_or("needs a \"type\"")?;
    let num = |key: &str| f.get(key).and_then(Json::as_u64).unwrap_or(0);
    let field_type = match ty {
        "int" => FieldType::Int,
        "float" => FieldType::Float,
        "bytes" => FieldType::Bytes,
        "json" => FieldType::Json,
        "ndarray" => FieldType::Ndarray(ndarray(f)?),
        "image_raw" => FieldType::ImageRaw,
        "image_jpeg" => FieldType::ImageJpeg {
            quality: u8::try_from(num("quality")).map_err(|_| "\"quality\" is 0 to 255")?,
        },
        "image_png" => FieldType::ImagePng,
        "audio_waveform" => FieldType::AudioWaveform,
        "audio_compressed" => FieldType::AudioCompressed,
        "text_raw" => FieldType::TextRaw,
        "text_tokenized" => FieldType::TextTokenized {
            vocab_size: u32::try_from(num("vocab_size")).map_err(|_| "\"vocab_size\" is a u32")?,
        },
        other => return Err(format!("unknown type {}", quoted(other))),
    };
    let token_width = match f.get("token_width").map(Json::as_u64) {
        None | Some(Some(4)) => 4,
        Some(Some(2)) => 2,
        Some(_) => return Err("\"token_width\" is 4 or 2".to_owned()),
    };
    Ok(PackField {
        field_type,
        token_width,
    })
}

fn ndarray(f: &Json) -> Result<NdarraySpec, String> {
    let dtype = text(f, "dtype").and_then(Dtype::from_name).ok_or(
        "\"dtype\" must be one of u8, i8, u16, i16, u32, i32, u64, i64, f16, f32, f64, bf16, bool",
    )?;
    let shape: Option<Vec<u64>> = match f.get("shape") {
        None => Some(Vec::new()),
        Some(dims) => dims
            .as_array()
            .and_then(|dims| dims.iter().map(Json::as_u64).collect()),
    };
    let shape = shape.ok_or("\"shape\" must be an array of sizes")?;
    NdarraySpec::new(dtype, &shape).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_errors_name_the_field() {
        let err = parse(br#"{"fields": [{"name": "v", "type": "ndarray", "dtype": "f33"}]}"#)
            .unwrap_err();
        assert!(err.starts_with("field \"v\": \"dtype\""), "{err}");
        let err = parse(br#"{"fields": [], "page_size": 1000}"#).unwrap_err();
        assert!(err.contains("power of two"), "{err}");
        let err =
            parse(br#"{"fields": [{"name": "t", "type": "text_tokenized", "token_width": "2"}]}"#)
                .unwrap_err();
        assert!(err.contains("token_width"), "{err}");
        let ok =
            parse(br#"{"fields": [{"name": "a", "type": "int"}], "checksums": true}"#).unwrap();
        assert_eq!(ok.schema.len(), 1);
    }
}
