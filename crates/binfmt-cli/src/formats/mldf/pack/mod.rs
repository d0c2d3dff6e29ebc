//! `binfmt mldf pack SCHEMA SAMPLES OUT`: a dataset from a JSON schema ([`schema`]) and
//! JSON Lines samples ([`samples`]) whose payloads are files ([`files`]).
//!
//! Everything is read and checked before OUT is opened: the schema, every line, every
//! payload path (resolved, and kept inside the samples file's directory unless
//! `--allow-outside-paths`). OUT is then opened through `write::open` with SCHEMA,
//! SAMPLES and every payload file as inputs (so that none of them is overwritten), the
//! samples are written in the canonical layout (their count is known), and OUT is
//! committed.

pub(crate) mod files;
pub(crate) mod samples;
pub(crate) mod schema;

use std::collections::BTreeSet;
use std::io::{Cursor, Seek, Write};
use std::path::Path;
use std::process::ExitCode;

use mldf::Writer;

use self::files::{Dir, Files, Memory};
use self::samples::Row;
use self::schema::PackSchema;
use crate::escape;
use crate::input::Input;
use crate::report::{self, Failure};
use crate::write;

/// Characters of a message about an input's content kept before it is cut.
const MAX_MESSAGE_CHARS: usize = 1000;

/// The arguments of `pack`.
#[derive(Debug)]
pub(crate) struct Args<'a> {
    pub(crate) schema: &'a Path,
    pub(crate) samples: &'a Path,
    pub(crate) out: &'a Path,
    pub(crate) force: bool,
    pub(crate) allow_outside_paths: bool,
}

/// A failure about `file`'s content: the message escaped and bounded.
fn fail(file: &str, message: &str) -> Failure {
    Failure::file(file, escape::text_cut(message, MAX_MESSAGE_CHARS))
}

/// `line N: message` about the samples file.
fn at_line(file: &str, line: usize, message: &str) -> Failure {
    fail(file, &format!("line {line}: {message}"))
}

pub(crate) fn run(args: &Args<'_>) -> Result<ExitCode, Failure> {
    if args.schema.as_os_str() == "-" && args.samples.as_os_str() == "-" {
        return Err(Failure::usage(
            "standard input (-) can be only one of SCHEMA and SAMPLES",
        ));
    }
    let schema_input = Input::open(args.schema)?;
    let schema = schema::parse(schema_input.bytes()?).map_err(|e| fail(schema_input.name(), &e))?;
    let samples_input = Input::open(args.samples)?;
    let dir = Dir::of(args.samples, args.allow_outside_paths)
        .map_err(|e| fail(samples_input.name(), &e))?;
    let rows = parse(&schema, &samples_input, &dir)?;

    // SCHEMA, SAMPLES and every payload are inputs: OUT may be none of them.
    let mut inputs: BTreeSet<&Path> = rows.iter().flat_map(Row::files).collect();
    inputs.insert(schema_input.arg());
    inputs.insert(samples_input.arg());
    let inputs: Vec<&Path> = inputs.into_iter().collect();
    let output = write::open(args.out, args.force, &inputs, true)?;
    let out_name = escape::path(args.out);
    let output = write_rows(
        output,
        &schema,
        &rows,
        &dir,
        samples_input.name(),
        &out_name,
    )?;
    write::commit(output, args.out)?;
    report::say(format_args!(
        "{out_name}: {} samples, {} fields",
        rows.len(),
        schema.schema.len()
    ));
    Ok(ExitCode::SUCCESS)
}

/// Every non-blank line of the samples, checked, its paths resolved.
fn parse(schema: &PackSchema, samples: &Input, files: &dyn Files) -> Result<Vec<Row>, Failure> {
    let mut rows = Vec::new();
    for (n, line) in samples.bytes()?.split(|&b| b == b'\n').enumerate() {
        if line.trim_ascii().is_empty() {
            continue;
        }
        let number = n.saturating_add(1);
        let row = samples::parse_line(schema, number, line, files)
            .map_err(|e| at_line(samples.name(), number, &e))?;
        rows.push(row);
    }
    Ok(rows)
}

/// Writes `rows` to `out` in the canonical layout.
fn write_rows<W: Write + Seek>(
    out: W,
    schema: &PackSchema,
    rows: &[Row],
    files: &dyn Files,
    samples: &str,
    out_name: &str,
) -> Result<W, Failure> {
    let count = u64::try_from(rows.len()).unwrap_or(u64::MAX);
    let options = schema.options.num_samples(count);
    let mut writer =
        Writer::new(out, &schema.schema, options).map_err(|e| fail(out_name, &e.to_string()))?;
    for row in rows {
        let payloads = row
            .load(files)
            .map_err(|e| at_line(samples, row.line, &e))?;
        let values = row
            .values(&payloads)
            .map_err(|e| at_line(samples, row.line, &e))?;
        writer
            .add(&values)
            .map_err(|e| at_line(samples, row.line, &e.to_string()))?;
    }
    writer.finish().map_err(|e| fail(out_name, &e.to_string()))
}

/// Samples the fuzz entry point converts at most.
const FUZZ_MAX_ROWS: usize = 64;
/// Payload bytes a fuzzed path may name.
const FUZZ_MAX_PAYLOAD: usize = 4096;

/// The fuzz entry point: `schema` and `samples` parsed as `pack` parses them, payload
/// names resolved in memory (the name's bytes are the payload; the file system is never
/// touched), and the first samples written to a buffer with 4 KiB pages.
pub(crate) fn fuzz(schema: &[u8], samples: &[u8]) {
    let Ok(mut schema) = schema::parse(schema) else {
        return;
    };
    // A page size of 2^31 would make a 2 GiB buffer: the parsing is fuzzed, not that.
    schema.options = schema.options.page_size(mldf::MIN_PAGE_SIZE);
    let files = Memory {
        max_len: FUZZ_MAX_PAYLOAD,
    };
    let input = Input::from_source("samples".to_owned(), None, Box::new(samples.to_vec()));
    let Ok(input) = input else { return };
    let rows = match parse(&schema, &input, &files) {
        Ok(mut rows) => {
            rows.truncate(FUZZ_MAX_ROWS);
            rows
        }
        Err(failure) => {
            let _ = failure.to_string();
            return;
        }
    };
    let _ = rows.iter().flat_map(Row::files).count();
    if let Err(failure) = write_rows(
        Cursor::new(Vec::new()),
        &schema,
        &rows,
        &files,
        "samples",
        "out",
    ) {
        let _ = failure.to_string();
    }
}
