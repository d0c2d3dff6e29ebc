//! `binfmt mldf get FILE INDEX FIELD`: one value, read by range (the header and
//! descriptors, then the value's slot and its payload).

use std::io::{self, IsTerminal as _, Write};
use std::path::Path;
use std::process::ExitCode;

use binfmt_core::source::ByteSource;
use mldf::{Field, FieldType, ReadOptions, Reader, Text, Value};
use serde_json::{Value as Json, json};

use super::show;
use crate::escape;
use crate::input::Input;
use crate::report::Failure;

/// How `get` prints the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum How {
    /// Text and a newline (escaped on a terminal only), payloads raw (never to a
    /// terminal).
    Text,
    /// Every value as its stored bytes.
    Raw,
    /// A JSON description.
    Json,
}

/// Field names listed in the message for a field that does not exist.
const MAX_LISTED_FIELDS: usize = 16;

/// The reader `get` uses: by range, checksums only when asked for.
pub(super) fn open(input: &Input, checksums: bool) -> Result<Reader<&dyn ByteSource>, Failure> {
    let options = ReadOptions::new().checksums(checksums);
    Reader::open_with(input.source(), &options).map_err(|e| Failure::diagnostic(input.name(), &e))
}

/// The field named `field`, or else the field at that index; an argument error when
/// there is none.
pub(super) fn find_field<'r, S: ByteSource>(
    reader: &'r Reader<S>,
    field: &str,
) -> Result<&'r Field, Failure> {
    if let Some(f) = reader.field_by_name(field) {
        return Ok(f);
    }
    if let Some(f) = field
        .parse::<usize>()
        .ok()
        .and_then(|i| reader.fields().get(i))
    {
        return Ok(f);
    }
    let fields = reader.fields();
    let mut names: Vec<String> = fields
        .iter()
        .take(MAX_LISTED_FIELDS)
        .map(|f| show::quoted(f.name()))
        .collect();
    if fields.len() > MAX_LISTED_FIELDS {
        names.push(format!("… ({} in all)", fields.len()));
    }
    let names = if names.is_empty() {
        "the file has no fields".to_owned()
    } else {
        format!("the fields are {}", names.join(", "))
    };
    Err(Failure::usage(format!(
        "no field {}; {names}",
        show::quoted(field)
    )))
}

pub(super) fn run(
    path: &Path,
    index: u64,
    field: &str,
    how: How,
    checksums: bool,
) -> Result<ExitCode, Failure> {
    let input = Input::open(path)?;
    crate::registry::expect(&input, &super::FORMAT)?;
    let reader = open(&input, checksums)?;
    let f = find_field(&reader, field)?;
    if index >= reader.num_samples() {
        return Err(Failure::usage(format!(
            "no sample {index}: {} has {} samples",
            input.name(),
            reader.num_samples()
        )));
    }
    let stdout = crate::write::stdout()?;
    let terminal = stdout.is_terminal();
    let mut out = io::BufWriter::new(stdout);
    let value = reader
        .value(index, f.index())
        .map_err(|e| Failure::diagnostic(input.name(), &e))?;
    if how == How::Text && terminal && is_binary(&value.value()) {
        return Err(Failure::usage(format!(
            "field {} of sample {index} is {} bytes of binary data; not writing it to a terminal (redirect standard output, or use --json or --raw)",
            show::quoted(f.name()),
            value.payload().len()
        )));
    }
    // Text is escaped for a terminal only: to a pipe or a file it goes byte for byte.
    print(&mut out, f, index, &value.value(), how, terminal).map_err(Failure::stdout)?;
    out.flush().map_err(Failure::stdout)?;
    Ok(ExitCode::SUCCESS)
}

/// Reads and prints one value (the `fuzz` path: no terminal there).
pub(super) fn write<S: ByteSource>(
    out: &mut dyn Write,
    reader: &Reader<S>,
    sample: u64,
    field: &Field,
    how: How,
) -> Result<(), Failure> {
    let value = reader
        .value(sample, field.index())
        .map_err(|e| Failure::diagnostic("fuzz", &e))?;
    print(out, field, sample, &value.value(), how, true).map_err(Failure::stdout)
}

/// True for the values that `get` writes as raw bytes.
fn is_binary(value: &Value<'_>) -> bool {
    !matches!(
        value,
        Value::Null | Value::Int(_) | Value::Float(_) | Value::Json(_) | Value::Text(_)
    )
}

fn print(
    out: &mut dyn Write,
    field: &Field,
    sample: u64,
    value: &Value<'_>,
    how: How,
    terminal: bool,
) -> io::Result<()> {
    match how {
        How::Json => {
            let object = json!({
                "sample": sample,
                "field": field.name(),
                "type_id": field.type_id().0,
                "kind": value.kind(),
                "value": describe(field, value),
            });
            writeln!(out, "{}", escape::json_line(&object))
        }
        How::Raw => match *value {
            Value::Null => Ok(()),
            Value::Int(i) => write!(out, "{i}"),
            Value::Float(x) => write!(out, "{x:?}"),
            Value::Unknown(slot) => out.write_all(slot),
            ref other => out.write_all(other.payload().unwrap_or_default()),
        },
        How::Text => match *value {
            Value::Null => Ok(()),
            Value::Int(i) => writeln!(out, "{i}"),
            Value::Float(x) => writeln!(out, "{x:?}"),
            Value::Json(s) | Value::Text(Text::Utf8(s)) if terminal => {
                writeln!(out, "{}", escape::text(s))
            }
            Value::Json(s) | Value::Text(Text::Utf8(s)) => {
                out.write_all(s.as_bytes())?;
                writeln!(out)
            }
            Value::Text(t) => {
                let mut first = true;
                for id in t.token_ids() {
                    if !first {
                        out.write_all(b" ")?;
                    }
                    first = false;
                    write!(out, "{id}")?;
                }
                writeln!(out)
            }
            Value::Unknown(slot) => out.write_all(slot),
            ref other => out.write_all(other.payload().unwrap_or_default()),
        },
    }
}

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

/// The `"value"` of `get --json`.
fn describe(field: &Field, v: &Value<'_>) -> Json {
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
        Value::Unknown(slot) => json!({ "slot": crate::escape::hex(slot) }),
        _ => Json::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use binfmt_core::source::Counting;
    use mldf::{Schema, Writer, WriterOptions};

    /// A file whose payloads lie far beyond the first request.
    fn big_file() -> Vec<u8> {
        let schema = Schema::new()
            .field("label", FieldType::Int)
            .field("text", FieldType::TextRaw);
        let options = WriterOptions::new().num_samples(3000).checksums(true);
        let mut w = Writer::new(io::Cursor::new(Vec::new()), &schema, options).unwrap();
        for i in 0..3000 {
            let text = format!("sample {i} {}", "x".repeat(100));
            w.add(&[Value::Int(i), Value::Text(Text::Utf8(&text))])
                .unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    #[test]
    fn get_reads_two_ranges_after_the_head() {
        let file = big_file();
        // A source that is not in memory, as a file is.
        let source = std::sync::Arc::new(Counting::new(binfmt_core::source::SeekSource::new(
            io::Cursor::new(file),
        )));
        let input = Input::from_source("t".into(), None, Box::new(source.clone())).unwrap();
        let reader = open(&input, false).unwrap();
        let f = find_field(&reader, "text").unwrap();
        let before = source.stats().requests;
        let mut out = Vec::new();
        write(&mut out, &reader, 2999, f, How::Text).unwrap();
        assert_eq!(out, format!("sample 2999 {}\n", "x".repeat(100)).as_bytes());
        assert!(
            source.stats().requests - before <= 2,
            "{:?}",
            source.stats()
        );
        // Open: the input's head and the reader's first request, nothing else.
        assert!(before <= 2, "{before}");
    }

    #[test]
    fn missing_fields_are_argument_errors_with_bounded_messages() {
        let names: Vec<String> = (0..100).map(|i| format!("f{i}\u{1b}")).collect();
        let mut schema = Schema::new();
        for n in &names {
            schema = schema.field(n.clone(), FieldType::Int);
        }
        let mut w =
            Writer::new(io::Cursor::new(Vec::new()), &schema, WriterOptions::new()).unwrap();
        w.add(&vec![Value::Int(1); 100]).unwrap();
        let file = w.finish().unwrap().into_inner();
        let reader = Reader::open(&file[..]).unwrap();
        let err = find_field(&reader, "nope").unwrap_err();
        assert_eq!(err.exit_code(), ExitCode::from(2));
        let msg = err.to_string();
        assert!(
            !msg.contains('\u{1b}') && msg.contains("(100 in all)"),
            "{msg}"
        );
        assert!(msg.len() < 400, "{msg}");
        assert_eq!(find_field(&reader, "99").unwrap().index(), 99);
    }
}
