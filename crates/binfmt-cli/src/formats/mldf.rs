//! `binfmt` support for MLDF datasets: inspect, verify, and `binfmt mldf diff|get|pack`.

use core::fmt::Write as _;
use std::fs;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use binfmt_core::le::{U16, U32};
use clap::Subcommand;
use mldf::{
    Audio, AudioCodec, Dataset, Dtype, Field, FieldDef, FieldType, FileWriter, Image, ImageMode,
    NdarraySpec, ReadOptions, Schema, Text, Value, WriterOptions,
};
use serde_json::{Map, Value as Json, json};

use crate::formats::{InspectOptions, Inspection};
use crate::input::Input;
use crate::report::{EXIT_PROBLEMS, Failure, Problem};

/// The keys this format adds to `binfmt inspect --json`.
pub(crate) const JSON_HELP: &str = "\
mldf:
  \"version\": \"MAJOR.MINOR\"
  \"flags\": N                   the header flags: 1 LITTLE_ENDIAN, 4 CHECKSUMMED
  \"num_samples\", \"page_size\": N
  \"fields\": [{\"name\": S, \"type_id\": N, \"metadata_size\": N}, ...]   in descriptor order
  (inspect checks the structure, not the checksums; `binfmt verify` checks everything)";

/// At most this many problems are listed by `binfmt verify` for one file.
const MAX_PROBLEMS: usize = 1000;

/// `binfmt mldf …`: MLDF datasets.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Compare two datasets: header, fields, then every value of every sample.
    ///
    /// Prints one line per difference on stdout: `header.FIELD: A != B`,
    /// `field I: …`, `sample S, field "NAME": A != B`. Values are compared for the
    /// fields whose name and type agree, over the samples both files have; floats are
    /// compared by their bits. Section pointers and stored CRCs are layout, not content:
    /// they are compared only with `--layout`. Exits 0 when nothing differs, 1 when
    /// something does or a file cannot be read.
    Diff {
        /// The first dataset.
        a: PathBuf,
        /// The second dataset.
        b: PathBuf,
        /// Also compare section pointers and stored CRCs.
        #[arg(long)]
        layout: bool,
        /// List at most this many differing values (all are counted).
        #[arg(long, value_name = "N", default_value_t = 100)]
        limit: u64,
    },
    /// Print the value of FIELD (a name, or else an index) of sample INDEX.
    ///
    /// INT and FLOAT print as a decimal line; JSON and UTF-8 text print their text and a
    /// newline; token ids print as one line of space-separated numbers; BYTES, NDARRAY,
    /// IMAGE and AUDIO payloads (and the raw slot of an unknown type) are written to
    /// stdout as raw bytes, nothing added. A null value prints nothing. With `--json`,
    /// one object: {"sample", "field", "type_id", "kind", "value"} where value is a
    /// number, a string (JSON text, UTF-8 text; "NaN"/"inf"/"-inf" for such floats), an
    /// array of token ids, null, or for payloads an object with "size" and the slot's
    /// metadata ("dtype"/"shape"; "mode"/"height"/"width"/"channels";
    /// "codec"/"num_samples"/"sample_rate"/"num_channels"/"bit_depth"; "slot" as hex).
    Get {
        /// The dataset.
        file: PathBuf,
        /// The sample index, from 0.
        index: u64,
        /// The field's name (or its index, when no field has that name).
        field: String,
        /// Describe the value as JSON instead of printing it.
        #[arg(long)]
        json: bool,
    },
    /// Build a dataset from a JSON schema and JSON Lines samples.
    ///
    /// SCHEMA.json: {"fields": [{"name": N, "type": T, …}], "page_size": 2097152,
    /// "checksums": false}. T is int, float, bytes, json, ndarray ("dtype": u8|i8|u16|
    /// i16|u32|i32|u64|i64|f16|f32|f64|bf16|bool, "shape": [..]), image_raw, image_jpeg
    /// ("quality"), image_png, audio_waveform, audio_compressed, text_raw or
    /// text_tokenized ("vocab_size", "token_width": 4 or 2). Any field may say
    /// "nullable": true (not int or float).
    ///
    /// SAMPLES.jsonl: one JSON object per line, keys = field names; a missing key or null
    /// is a null value. int: an integer; float: a number; json: any JSON value (stored as
    /// its compact text); text_raw: a string; text_tokenized: an array of ids; bytes and
    /// ndarray: a path to a file holding the payload; images: a path (the field's mode)
    /// or {"path", "mode": raw|jpeg|png, "height", "width", "channels"} (raw needs all
    /// three; JPEG/PNG dimensions come from the image header); audio: a path
    /// (audio_compressed: codec from the extension .flac/.aac/.m4a/.mp3) or {"path",
    /// "codec": pcm|pcm_f32|flac|aac|mp3, "sample_rate", "channels", "bit_depth",
    /// "num_samples"} (PCM frame counts follow from the size). Relative paths are
    /// relative to the directory of SAMPLES.jsonl.
    ///
    /// The file is written in the canonical layout (samples are counted first), to a
    /// temporary file renamed to OUT at the end: on any error OUT is left untouched.
    Pack {
        /// The schema (JSON).
        schema: PathBuf,
        /// The samples (JSON Lines).
        samples: PathBuf,
        /// The dataset to write.
        out: PathBuf,
    },
}

fn open_dataset<'a>(input: &'a Input, options: ReadOptions) -> Result<Dataset<'a>, Failure> {
    Dataset::parse_with(input.bytes(), options).map_err(|e| Failure::diagnostic(input.path(), &e))
}

fn flag_names(flags: u32) -> String {
    let mut names = Vec::new();
    for (bit, name) in [
        (mldf::FLAG_LITTLE_ENDIAN, "LITTLE_ENDIAN"),
        (mldf::FLAG_COMPRESSED, "COMPRESSED"),
        (mldf::FLAG_CHECKSUMMED, "CHECKSUMMED"),
        (mldf::FLAG_ENCRYPTED, "ENCRYPTED"),
    ] {
        if flags & bit != 0 {
            names.push(name.to_string());
        }
    }
    let rest = flags & !0xF;
    if rest != 0 {
        names.push(format!("{rest:#x}"));
    }
    names.join(" | ")
}

fn type_name(field: &Field<'_>) -> String {
    let id = field.type_id();
    let mut name = id.name().unwrap_or("unknown").to_string();
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

pub(crate) fn inspect(input: &Input, _options: &InspectOptions) -> Result<Inspection, Failure> {
    let options = ReadOptions::new()
        .verify_index_crc(false)
        .verify_item_crcs(false);
    let ds = open_dataset(input, options)?;
    let h = ds.header();
    let mut json = Map::new();
    json.insert("version".into(), json!(h.version().to_string()));
    json.insert("flags".into(), json!(h.flags()));
    json.insert("num_samples".into(), json!(h.num_samples()));
    json.insert("page_size".into(), json!(h.page_size()));
    let fields: Vec<Json> = ds
        .fields()
        .iter()
        .map(|f| {
            json!({
                "name": f.name(),
                "type_id": f.type_id().0,
                "metadata_size": f.metadata_size(),
            })
        })
        .collect();
    json.insert("fields".into(), Json::Array(fields));

    let mut text = String::new();
    let (data_start, data_end) = ds.data_region();
    let _ = writeln!(
        text,
        "  version {}, flags {:#x} ({})",
        h.version(),
        h.flags(),
        flag_names(h.flags())
    );
    let _ = writeln!(
        text,
        "  {} samples, {} fields, row {} bytes, page size {}",
        h.num_samples(),
        h.num_fields(),
        ds.row_size(),
        h.page_size()
    );
    let _ = writeln!(
        text,
        "  descriptors @{}, metadata @{}, data {}..{}, allocation table @{} ({} items)",
        h.field_desc_ptr(),
        h.metadata_ptr(),
        data_start,
        data_end,
        h.alloc_table_ptr(),
        ds.alloc_table().len()
    );
    for f in ds.fields() {
        let _ = writeln!(
            text,
            "  field {} {:?}: {} (type {}, {} bytes at row offset {})",
            f.index(),
            f.name(),
            type_name(f),
            f.type_id().0,
            f.metadata_size(),
            f.row_offset()
        );
    }
    Ok(Inspection { json, text })
}

pub(crate) fn verify(input: &Input) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut more = 0u64;
    mldf::verify(input.bytes(), |e| {
        if problems.len() < MAX_PROBLEMS {
            problems.push(Problem::from_diagnostic(&e));
        } else {
            more += 1;
        }
    });
    if more > 0 {
        problems.push(Problem::new(
            None,
            format!("… and {more} more problems not listed"),
        ));
    }
    problems
}

pub(crate) fn run(command: Command) -> Result<ExitCode, Failure> {
    match command {
        Command::Diff {
            a,
            b,
            layout,
            limit,
        } => diff(&a, &b, layout, limit),
        Command::Get {
            file,
            index,
            field,
            json,
        } => get(&file, index, &field, json),
        Command::Pack {
            schema,
            samples,
            out,
        } => pack(&schema, &samples, &out),
    }
}

// ---------------------------------------------------------------------------- diff

/// A short rendering of a value for diff lines.
fn show(v: &Value<'_>) -> String {
    fn blob(b: &[u8]) -> String {
        format!("<{} bytes, crc32 {:08x}>", b.len(), crc32fast::hash(b))
    }
    fn quoted(s: &str) -> String {
        let mut out: String = s.chars().take(60).collect();
        if out.len() < s.len() {
            out.push('…');
        }
        format!("{out:?}")
    }
    match *v {
        Value::Null => "null".into(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => format!("{f:?}"),
        Value::Bytes(b) | Value::Ndarray(b) | Value::Unknown(b) => blob(b),
        Value::Json(s) | Value::Text(Text::Utf8(s)) => quoted(s),
        Value::Image(i) => format!(
            "{} {}x{}x{} {}",
            i.mode.name(),
            i.height,
            i.width,
            i.channels,
            blob(i.data)
        ),
        Value::Audio(a) => format!(
            "{} {} Hz, {} ch, {} bit, {} frames {}",
            a.codec.name(),
            a.sample_rate,
            a.num_channels,
            a.bit_depth,
            a.num_samples,
            blob(a.data)
        ),
        Value::Text(t) => {
            let ids: Vec<String> = t.token_ids().take(8).map(|i| i.to_string()).collect();
            let more = if t.num_tokens() > 8 { ", …" } else { "" };
            format!(
                "u{} ids [{}{more}] ({} ids)",
                if t.encoding() == 1 { 32 } else { 16 },
                ids.join(", "),
                t.num_tokens()
            )
        }
        _ => format!("{v:?}"),
    }
}

fn diff(a: &Path, b: &Path, layout: bool, limit: u64) -> Result<ExitCode, Failure> {
    let (input_a, input_b) = (Input::open(a)?, Input::open(b)?);
    let (da, db) = (
        open_dataset(&input_a, ReadOptions::new())?,
        open_dataset(&input_b, ReadOptions::new())?,
    );
    let mut lines: Vec<String> = Vec::new();
    let (ha, hb) = (da.header(), db.header());
    let hex = |v: u32| format!("{v:#010x}");
    let mut header: Vec<(&str, String, String)> = vec![
        (
            "version",
            ha.version().to_string(),
            hb.version().to_string(),
        ),
        (
            "flags",
            format!("{:#x}", ha.flags()),
            format!("{:#x}", hb.flags()),
        ),
        (
            "num_samples",
            ha.num_samples().to_string(),
            hb.num_samples().to_string(),
        ),
        (
            "num_fields",
            ha.num_fields().to_string(),
            hb.num_fields().to_string(),
        ),
        (
            "page_size",
            ha.page_size().to_string(),
            hb.page_size().to_string(),
        ),
    ];
    if layout {
        header.extend([
            (
                "field_desc_ptr",
                ha.field_desc_ptr().to_string(),
                hb.field_desc_ptr().to_string(),
            ),
            (
                "metadata_ptr",
                ha.metadata_ptr().to_string(),
                hb.metadata_ptr().to_string(),
            ),
            (
                "data_ptr",
                ha.data_ptr().to_string(),
                hb.data_ptr().to_string(),
            ),
            (
                "alloc_table_ptr",
                ha.alloc_table_ptr().to_string(),
                hb.alloc_table_ptr().to_string(),
            ),
            ("index_crc", hex(ha.index_crc()), hex(hb.index_crc())),
            ("header_crc", hex(ha.header_crc()), hex(hb.header_crc())),
            (
                "file_size",
                input_a.bytes().len().to_string(),
                input_b.bytes().len().to_string(),
            ),
        ]);
    }
    for (name, x, y) in header {
        if x != y {
            lines.push(format!("header.{name}: {x} != {y}"));
        }
    }
    for i in 0..da.fields().len().max(db.fields().len()) {
        match (da.fields().get(i), db.fields().get(i)) {
            (Some(fa), Some(fb)) => {
                let pairs = [
                    (
                        "name",
                        format!("{:?}", fa.name()),
                        format!("{:?}", fb.name()),
                    ),
                    ("type", type_name(fa), type_name(fb)),
                    (
                        "flags",
                        format!("{:#x}", fa.flags()),
                        format!("{:#x}", fb.flags()),
                    ),
                    (
                        "metadata_size",
                        fa.metadata_size().to_string(),
                        fb.metadata_size().to_string(),
                    ),
                ];
                for (what, x, y) in pairs {
                    if x != y {
                        lines.push(format!("field {i}: {what} {x} != {y}"));
                    }
                }
            }
            (Some(f), None) => {
                lines.push(format!("field {i}: {:?} only in {}", f.name(), a.display()))
            }
            (None, Some(f)) => {
                lines.push(format!("field {i}: {:?} only in {}", f.name(), b.display()))
            }
            (None, None) => {}
        }
    }
    // Values of the fields both files have, by name, with the same type.
    let common: Vec<(usize, usize, &str)> = da
        .fields()
        .iter()
        .filter_map(|fa| {
            let fb = db.field_by_name(fa.name())?;
            (fa.field_type() == fb.field_type()).then_some((fa.index(), fb.index(), fa.name()))
        })
        .collect();
    let mut value_diffs = 0u64;
    for s in 0..da.num_samples().min(db.num_samples()) {
        for &(ia, ib, name) in &common {
            let va = da.value(s, ia).map_err(|e| Failure::diagnostic(a, &e))?;
            let vb = db.value(s, ib).map_err(|e| Failure::diagnostic(b, &e))?;
            if !va.same(&vb) {
                value_diffs += 1;
                if value_diffs <= limit {
                    lines.push(format!(
                        "sample {s}, field {name:?}: {} != {}",
                        show(&va),
                        show(&vb)
                    ));
                }
            }
        }
    }
    let mut out = io::BufWriter::new(io::stdout().lock());
    for text in &lines {
        writeln!(out, "{text}").map_err(Failure::stdout)?;
    }
    if value_diffs > limit {
        writeln!(
            out,
            "… {} more differing values not listed",
            value_diffs - limit
        )
        .map_err(Failure::stdout)?;
    }
    out.flush().map_err(Failure::stdout)?;
    Ok(if lines.is_empty() && value_diffs == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_PROBLEMS)
    })
}

// ---------------------------------------------------------------------------- get

fn float_json(f: f64) -> Json {
    if f.is_finite() {
        json!(f)
    } else if f.is_nan() {
        json!("NaN")
    } else if f > 0.0 {
        json!("inf")
    } else {
        json!("-inf")
    }
}

fn describe(field: &Field<'_>, v: &Value<'_>) -> Json {
    match *v {
        Value::Null => Json::Null,
        Value::Int(i) => json!(i),
        Value::Float(f) => float_json(f),
        Value::Json(s) | Value::Text(Text::Utf8(s)) => json!(s),
        Value::Text(t) => json!(t.token_ids().collect::<Vec<u32>>()),
        Value::Bytes(b) => json!({ "size": b.len() }),
        Value::Ndarray(b) => match field.field_type() {
            FieldType::Ndarray(spec) => json!({
                "size": b.len(), "dtype": spec.dtype().name(), "shape": spec.shape(),
            }),
            _ => json!({ "size": b.len() }),
        },
        Value::Image(i) => json!({
            "size": i.data.len(), "mode": i.mode.name(), "height": i.height,
            "width": i.width, "channels": i.channels,
        }),
        Value::Audio(a) => json!({
            "size": a.data.len(), "codec": a.codec.name(), "num_samples": a.num_samples,
            "sample_rate": a.sample_rate, "num_channels": a.num_channels, "bit_depth": a.bit_depth,
        }),
        Value::Unknown(slot) => {
            json!({ "slot": slot.iter().map(|b| format!("{b:02x}")).collect::<String>() })
        }
        _ => Json::Null,
    }
}

fn get(path: &Path, index: u64, field: &str, as_json: bool) -> Result<ExitCode, Failure> {
    let input = Input::open(path)?;
    let ds = open_dataset(&input, ReadOptions::new())?;
    let f = match ds.field_by_name(field) {
        Some(f) => f,
        None => field
            .parse::<usize>()
            .ok()
            .and_then(|i| ds.fields().get(i))
            .ok_or_else(|| {
                let names: Vec<&str> = ds.fields().iter().map(Field::name).collect();
                Failure::file(
                    path,
                    format!("no field {field:?}; the fields are {names:?}"),
                )
            })?,
    };
    let value = ds
        .value(index, f.index())
        .map_err(|e| Failure::diagnostic(path, &e))?;
    let mut out = io::BufWriter::new(io::stdout().lock());
    if as_json {
        let object = json!({
            "sample": index, "field": f.name(), "type_id": f.type_id().0,
            "kind": value.kind(), "value": describe(f, &value),
        });
        writeln!(out, "{object}").map_err(Failure::stdout)?;
    } else {
        match value {
            Value::Null => {}
            Value::Int(i) => writeln!(out, "{i}").map_err(Failure::stdout)?,
            Value::Float(x) => writeln!(out, "{x:?}").map_err(Failure::stdout)?,
            Value::Json(s) | Value::Text(Text::Utf8(s)) => {
                writeln!(out, "{s}").map_err(Failure::stdout)?;
            }
            Value::Text(t) => {
                let ids: Vec<String> = t.token_ids().map(|i| i.to_string()).collect();
                writeln!(out, "{}", ids.join(" ")).map_err(Failure::stdout)?;
            }
            other => {
                let bytes = match other {
                    Value::Unknown(slot) => slot,
                    _ => other.payload().unwrap_or_default(),
                };
                out.write_all(bytes).map_err(Failure::stdout)?;
            }
        }
    }
    out.flush().map_err(Failure::stdout)?;
    Ok(ExitCode::SUCCESS)
}

// ---------------------------------------------------------------------------- pack

/// How `pack` reads one field's values.
#[derive(Debug, Clone, Copy)]
struct PackField {
    field_type: FieldType,
    token_width: u8,
}

fn pack_schema(path: &Path) -> Result<(Schema, Vec<PackField>, WriterOptions), Failure> {
    let text = fs::read_to_string(path).map_err(|e| Failure::io(path, &e))?;
    let doc: Json = serde_json::from_str(&text).map_err(|e| Failure::file(path, e))?;
    let bad = |msg: String| Failure::file(path, msg);
    let mut options = WriterOptions::new();
    if let Some(p) = doc.get("page_size") {
        let p = p
            .as_u64()
            .and_then(|p| u32::try_from(p).ok())
            .ok_or_else(|| bad("\"page_size\" must be a power of two from 4096 to 2^31".into()))?;
        options = options.page_size(p);
    }
    if let Some(c) = doc.get("checksums") {
        options = options.checksums(
            c.as_bool()
                .ok_or_else(|| bad("\"checksums\" must be true or false".into()))?,
        );
    }
    let fields = doc
        .get("fields")
        .and_then(Json::as_array)
        .ok_or_else(|| bad("the schema needs \"fields\": [ … ]".into()))?;
    let mut schema = Schema::new();
    let mut packs = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        let name = f
            .get("name")
            .and_then(Json::as_str)
            .ok_or_else(|| bad(format!("field {i} needs a \"name\"")))?;
        let ty = f
            .get("type")
            .and_then(Json::as_str)
            .ok_or_else(|| bad(format!("field {name:?} needs a \"type\"")))?;
        let num = |key: &str| f.get(key).and_then(Json::as_u64).unwrap_or(0);
        let field_type = match ty {
            "int" => FieldType::Int,
            "float" => FieldType::Float,
            "bytes" => FieldType::Bytes,
            "json" => FieldType::Json,
            "ndarray" => {
                let dtype = f
                    .get("dtype")
                    .and_then(Json::as_str)
                    .and_then(Dtype::from_name)
                    .ok_or_else(|| bad(format!("field {name:?}: \"dtype\" must be one of u8, i8, u16, i16, u32, i32, u64, i64, f16, f32, f64, bf16, bool")))?;
                let shape: Option<Vec<u64>> = f
                    .get("shape")
                    .and_then(Json::as_array)
                    .map(|dims| dims.iter().map(Json::as_u64).collect())
                    .unwrap_or(Some(Vec::new()));
                let shape = shape.ok_or_else(|| {
                    bad(format!(
                        "field {name:?}: \"shape\" must be an array of sizes"
                    ))
                })?;
                FieldType::Ndarray(
                    NdarraySpec::new(dtype, &shape)
                        .map_err(|e| bad(format!("field {name:?}: {e}")))?,
                )
            }
            "image_raw" => FieldType::ImageRaw,
            "image_jpeg" => FieldType::ImageJpeg {
                quality: u8::try_from(num("quality"))
                    .map_err(|_| bad(format!("field {name:?}: \"quality\" is 0 to 255")))?,
            },
            "image_png" => FieldType::ImagePng,
            "audio_waveform" => FieldType::AudioWaveform,
            "audio_compressed" => FieldType::AudioCompressed,
            "text_raw" => FieldType::TextRaw,
            "text_tokenized" => FieldType::TextTokenized {
                vocab_size: u32::try_from(num("vocab_size"))
                    .map_err(|_| bad(format!("field {name:?}: \"vocab_size\" is a u32")))?,
            },
            other => return Err(bad(format!("field {name:?}: unknown type {other:?}"))),
        };
        let token_width = match f.get("token_width").and_then(Json::as_u64) {
            None | Some(4) => 4,
            Some(2) => 2,
            Some(_) => return Err(bad(format!("field {name:?}: \"token_width\" is 4 or 2"))),
        };
        schema.push(FieldDef {
            name: name.to_string(),
            field_type,
            nullable: f.get("nullable").and_then(Json::as_bool).unwrap_or(false),
        });
        packs.push(PackField {
            field_type,
            token_width,
        });
    }
    schema.validate().map_err(|e| bad(e.to_string()))?;
    Ok((schema, packs, options))
}

/// Owned payloads of one sample, from which borrowed values are made.
enum Slot {
    Null,
    Int(i64),
    Float(f64),
    Bytes(Vec<u8>),
    Json(String),
    Array(Vec<u8>),
    Image(ImageMode, u16, u16, u8, Vec<u8>),
    Audio(AudioCodec, u32, u32, u16, u8, Vec<u8>),
    Text(String),
    Ids32(Vec<U32>),
    Ids16(Vec<U16>),
}

impl Slot {
    fn value(&self) -> Value<'_> {
        match self {
            Slot::Null => Value::Null,
            Slot::Int(i) => Value::Int(*i),
            Slot::Float(f) => Value::Float(*f),
            Slot::Bytes(b) => Value::Bytes(b),
            Slot::Json(s) => Value::Json(s),
            Slot::Array(b) => Value::Ndarray(b),
            Slot::Image(mode, height, width, channels, data) => Value::Image(Image {
                mode: *mode,
                height: *height,
                width: *width,
                channels: *channels,
                data,
            }),
            Slot::Audio(codec, num_samples, sample_rate, num_channels, bit_depth, data) => {
                Value::Audio(Audio {
                    codec: *codec,
                    num_samples: *num_samples,
                    sample_rate: *sample_rate,
                    num_channels: *num_channels,
                    bit_depth: *bit_depth,
                    data,
                })
            }
            Slot::Text(s) => Value::Text(Text::Utf8(s)),
            Slot::Ids32(ids) => Value::Text(Text::U32(ids)),
            Slot::Ids16(ids) => Value::Text(Text::U16(ids)),
        }
    }
}

fn read_payload(base: &Path, v: &Json) -> Result<Vec<u8>, String> {
    let path = v
        .as_str()
        .or_else(|| v.get("path").and_then(Json::as_str))
        .ok_or("expected a path (a string, or an object with \"path\")")?;
    let full = base.join(path);
    fs::read(&full).map_err(|e| format!("{}: {e}", full.display()))
}

fn small<T: TryFrom<u64>>(v: &Json, key: &str) -> Result<T, String> {
    match v.get(key) {
        None => T::try_from(0).map_err(|_| format!("\"{key}\" is out of range")),
        Some(n) => n
            .as_u64()
            .and_then(|n| T::try_from(n).ok())
            .ok_or_else(|| format!("\"{key}\" must be a non-negative integer in range")),
    }
}

fn pack_value(base: &Path, field: &PackField, v: &Json) -> Result<Slot, String> {
    if v.is_null() {
        return Ok(Slot::Null);
    }
    Ok(match field.field_type {
        FieldType::Int => Slot::Int(v.as_i64().ok_or("expected an integer (i64)")?),
        FieldType::Float => Slot::Float(v.as_f64().ok_or("expected a number")?),
        FieldType::Bytes => Slot::Bytes(read_payload(base, v)?),
        FieldType::Ndarray(_) => Slot::Array(read_payload(base, v)?),
        FieldType::Json => Slot::Json(v.to_string()),
        FieldType::TextRaw => Slot::Text(v.as_str().ok_or("expected a string")?.to_string()),
        FieldType::TextTokenized { .. } => {
            let ids = v.as_array().ok_or("expected an array of token ids")?;
            if field.token_width == 4 {
                let ids: Option<Vec<U32>> = ids
                    .iter()
                    .map(|i| i.as_u64().and_then(|i| u32::try_from(i).ok()).map(U32::new))
                    .collect();
                Slot::Ids32(ids.ok_or("token ids must be integers from 0 to 2^32 − 1")?)
            } else {
                let ids: Option<Vec<U16>> = ids
                    .iter()
                    .map(|i| i.as_u64().and_then(|i| u16::try_from(i).ok()).map(U16::new))
                    .collect();
                Slot::Ids16(ids.ok_or("token ids must be integers from 0 to 65535")?)
            }
        }
        FieldType::ImageRaw | FieldType::ImageJpeg { .. } | FieldType::ImagePng => {
            let default = match field.field_type {
                FieldType::ImageRaw => ImageMode::Raw,
                FieldType::ImageJpeg { .. } => ImageMode::Jpeg,
                _ => ImageMode::Png,
            };
            let mode = match v.get("mode").and_then(Json::as_str) {
                None => default,
                Some("raw") => ImageMode::Raw,
                Some("jpeg") => ImageMode::Jpeg,
                Some("png") => ImageMode::Png,
                Some(other) => return Err(format!("unknown image mode {other:?}")),
            };
            let data = read_payload(base, v)?;
            if mode == ImageMode::Raw && v.get("channels").is_none() {
                return Err("a raw image needs \"height\", \"width\" and \"channels\"".into());
            }
            Slot::Image(
                mode,
                small(v, "height")?,
                small(v, "width")?,
                small(v, "channels")?,
                data,
            )
        }
        FieldType::AudioWaveform | FieldType::AudioCompressed => {
            let path = v
                .as_str()
                .or_else(|| v.get("path").and_then(Json::as_str))
                .unwrap_or("");
            let guessed = Path::new(path)
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase)
                .and_then(|e| match e.as_str() {
                    "flac" => Some(AudioCodec::Flac),
                    "aac" | "m4a" => Some(AudioCodec::Aac),
                    "mp3" => Some(AudioCodec::Mp3),
                    _ => None,
                });
            let codec = match v.get("codec").and_then(Json::as_str) {
                Some(name) => {
                    AudioCodec::from_name(name).ok_or_else(|| format!("unknown codec {name:?}"))?
                }
                None => guessed.ok_or("say \"codec\": pcm, pcm_f32, flac, aac or mp3")?,
            };
            let data = read_payload(base, v)?;
            let channels: u16 = small(v, "channels")?;
            let mut bit_depth: u8 = small(v, "bit_depth")?;
            if codec == AudioCodec::PcmF32 && bit_depth == 0 {
                bit_depth = 32;
            }
            let mut frames: u32 = small(v, "num_samples")?;
            if codec.is_pcm() && v.get("num_samples").is_none() {
                let frame = usize::from(channels) * usize::from(bit_depth / 8);
                frames = u32::try_from(data.len().checked_div(frame).unwrap_or(0))
                    .map_err(|_| "too many frames")?;
            }
            Slot::Audio(
                codec,
                frames,
                small(v, "sample_rate")?,
                channels,
                bit_depth,
                data,
            )
        }
        _ => return Err("this type cannot be packed".into()),
    })
}

fn pack(schema_path: &Path, samples_path: &Path, out: &Path) -> Result<ExitCode, Failure> {
    let (schema, packs, options) = pack_schema(schema_path)?;
    let open = || {
        fs::File::open(samples_path)
            .map(BufReader::new)
            .map_err(|e| Failure::io(samples_path, &e))
    };
    // First pass: count the samples, so that the file gets the canonical layout.
    let mut count = 0u64;
    for line in open()?.lines() {
        let line = line.map_err(|e| Failure::io(samples_path, &e))?;
        if !line.trim().is_empty() {
            count += 1;
        }
    }
    let base = samples_path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut writer = FileWriter::create(out, &schema, options.num_samples(count))
        .map_err(|e| Failure::file(out, e))?;
    for (n, line) in open()?.lines().enumerate() {
        let line = line.map_err(|e| Failure::io(samples_path, &e))?;
        if line.trim().is_empty() {
            continue;
        }
        let at = |msg: String| Failure::file(samples_path, format!("line {}: {msg}", n + 1));
        let object: Map<String, Json> =
            serde_json::from_str(&line).map_err(|e| at(e.to_string()))?;
        if let Some(key) = object
            .keys()
            .find(|k| !schema.fields().iter().any(|f| &f.name == *k))
        {
            return Err(at(format!("{key:?} is not a field of the schema")));
        }
        let mut slots = Vec::with_capacity(packs.len());
        for (def, field) in schema.fields().iter().zip(&packs) {
            let v = object.get(&def.name).unwrap_or(&Json::Null);
            slots.push(
                pack_value(base, field, v).map_err(|e| at(format!("field {:?}: {e}", def.name)))?,
            );
        }
        let values: Vec<Value<'_>> = slots.iter().map(Slot::value).collect();
        writer.push(&values).map_err(|e| at(e.to_string()))?;
    }
    if writer.samples() != count {
        return Err(Failure::file(
            samples_path,
            "changed while it was being read",
        ));
    }
    writer.finish().map_err(|e| Failure::file(out, e))?;
    crate::report::say(format_args!(
        "{}: {count} samples, {} fields",
        out.display(),
        schema.len()
    ));
    Ok(ExitCode::SUCCESS)
}
