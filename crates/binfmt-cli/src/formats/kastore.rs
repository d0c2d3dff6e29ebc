//! `binfmt` support for kastore files (and tskit `.trees` files, which are kastore files).

use core::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use kastore::{AnyArray, Item, Store};
use serde_json::{Map, Value, json};

use crate::formats::{InspectOptions, Inspection};
use crate::input::Input;
use crate::report::{Failure, Problem};

/// The keys this format adds to `binfmt inspect --json`.
pub(crate) const JSON_HELP: &str = "\
kastore (also tskit .trees files):
  \"version\": [MAJOR, MINOR] of the first store (always major 1)
  \"file_size\": the first store's size in bytes
  \"items\": the first store's items in file order (sorted by key bytes), each
      {\"key\": KEY, \"dtype\": \"int8\"|\"uint8\"|\"int16\"|\"uint16\"|\"int32\"|\"uint32\"|
       \"int64\"|\"uint64\"|\"float32\"|\"float64\", \"len\": ELEMENTS}
      plus \"key_hex\": HEX when the key is not UTF-8 (\"key\" then has U+FFFD for the bad bytes)
  \"stores\": how many stores the file holds back to back (1 for an ordinary file)
  \"more_stores\": [{\"offset\": BYTE, \"file_size\", \"version\", \"items\"}, ...] for the
      stores after the first ([] for an ordinary file)";

/// `binfmt kastore …`.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Print the array stored under KEY, one element per line.
    ///
    /// Integers print in decimal; floats in the shortest form that reads back to the same
    /// value, with an exponent when far from 1: `0.0`, `-0.0`, `1.5`, `1e-300`, `NaN`,
    /// `inf`, `-inf`. With --raw, the array's bytes are written as stored (little-endian)
    /// and nothing else.
    Get(GetArgs),
}

#[derive(Debug, Args)]
pub(crate) struct GetArgs {
    /// The kastore or .trees file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// The key, as text (UTF-8), e.g. `nodes/time`.
    #[arg(value_name = "KEY")]
    key: String,
    /// KEY is hexadecimal bytes, for keys that are not UTF-8 (`ff00` is the key 0xFF 0x00).
    #[arg(long)]
    hex: bool,
    /// Write the array's little-endian bytes to standard output instead of text.
    #[arg(long)]
    raw: bool,
    /// Which store of a file that holds several back to back, counting from 0.
    #[arg(long, value_name = "N", default_value_t = 0)]
    store: usize,
}

pub(crate) fn inspect(input: &Input, _options: &InspectOptions) -> Result<Inspection, Failure> {
    let mut stores = Vec::new();
    for store in kastore::stores(input.bytes()) {
        stores.push(store.map_err(|e| Failure::diagnostic(input.path(), &e))?);
    }
    let mut offsets = Vec::with_capacity(stores.len());
    let mut offset = 0u64;
    for store in &stores {
        offsets.push(offset);
        offset = offset.saturating_add(store.file_size());
    }
    let mut inspection = Inspection::default();
    let Some(first) = stores.first() else {
        // Format detection saw the magic, so the file is not empty.
        return Err(Failure::file(input.path(), "no kastore store found"));
    };
    let json = &mut inspection.json;
    json.insert("version".into(), version(first));
    json.insert("file_size".into(), json!(first.file_size()));
    json.insert("items".into(), items(first));
    json.insert("stores".into(), json!(stores.len()));
    let more: Vec<Value> = stores
        .iter()
        .zip(&offsets)
        .skip(1)
        .map(|(store, offset)| {
            json!({
                "offset": offset,
                "file_size": store.file_size(),
                "version": version(store),
                "items": items(store),
            })
        })
        .collect();
    json.insert("more_stores".into(), Value::Array(more));

    let text = &mut inspection.text;
    for (store, offset) in stores.iter().zip(&offsets) {
        if stores.len() > 1 {
            let _ = writeln!(text, "  store at byte {offset}:");
        }
        let indent = if stores.len() > 1 { "    " } else { "  " };
        let _ = writeln!(
            text,
            "{indent}version {}, {} items, {} bytes{}",
            store.version(),
            store.len(),
            store.file_size(),
            if store.is_canonical() {
                ""
            } else {
                " (non-zero reserved or padding bytes, or a newer minor version)"
            }
        );
        let width = store
            .items()
            .map(|item| display_key(item.key()).chars().count())
            .max()
            .unwrap_or(0);
        for item in store.items() {
            let _ = writeln!(
                text,
                "{indent}  {:<width$}  {:<7}  {}",
                display_key(item.key()),
                item.dtype().name(),
                item.len()
            );
        }
    }
    Ok(inspection)
}

fn version(store: &Store<'_>) -> Value {
    let v = store.version();
    json!([v.major, v.minor])
}

fn items(store: &Store<'_>) -> Value {
    Value::Array(store.items().map(|item| item_json(&item)).collect())
}

fn item_json(item: &Item<'_>) -> Value {
    let mut object = Map::new();
    object.insert(
        "key".into(),
        Value::String(String::from_utf8_lossy(item.key()).into_owned()),
    );
    if item.key_str().is_none() {
        object.insert("key_hex".into(), Value::String(hex(item.key())));
    }
    object.insert("dtype".into(), Value::String(item.dtype().name().into()));
    object.insert("len".into(), json!(item.len()));
    Value::Object(object)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// A key for the text output: UTF-8 with control characters escaped, or hex.
fn display_key(key: &[u8]) -> String {
    match core::str::from_utf8(key) {
        Ok(text) => text.chars().flat_map(char::escape_debug).collect(),
        Err(_) => format!("0x{}", hex(key)),
    }
}

pub(crate) fn verify(input: &Input) -> Vec<Problem> {
    let mut problems = Vec::new();
    kastore::verify(input.bytes(), |e| {
        problems.push(Problem::from_diagnostic(&e))
    });
    problems
}

pub(crate) fn run(command: Command) -> Result<ExitCode, Failure> {
    match command {
        Command::Get(args) => get(&args),
    }
}

fn get(args: &GetArgs) -> Result<ExitCode, Failure> {
    let input = Input::open(&args.file)?;
    let path = input.path();
    let key = if args.hex {
        parse_hex(&args.key).ok_or_else(|| {
            Failure::new(format!(
                "--hex: {:?} is not an even number of hexadecimal digits",
                args.key
            ))
        })?
    } else {
        args.key.as_bytes().to_vec()
    };
    let store = match kastore::stores(input.bytes()).nth(args.store) {
        Some(store) => store.map_err(|e| Failure::diagnostic(path, &e))?,
        None => {
            let count = kastore::stores(input.bytes()).count();
            return Err(Failure::file(
                path,
                format!(
                    "--store {}: the file holds {count} store(s), numbered from 0",
                    args.store
                ),
            ));
        }
    };
    let item = store
        .find(&key)
        .map_err(|e| Failure::file(path, format_args!("{e}")))?;
    let mut out = io::BufWriter::new(io::stdout().lock());
    if args.raw {
        out.write_all(item.bytes()).map_err(Failure::stdout)?;
    } else {
        print_values(&mut out, item.values()).map_err(Failure::stdout)?;
    }
    out.flush().map_err(Failure::stdout)?;
    Ok(ExitCode::SUCCESS)
}

fn print_values(out: &mut impl Write, values: AnyArray<'_>) -> io::Result<()> {
    // Integers in decimal; floats in Rust's `Debug` form, the shortest text that reads
    // back to the same bits, with an exponent when far from 1 (`1e-300`).
    macro_rules! each {
        ($a:expr, $fmt:literal) => {{
            for v in $a.iter() {
                writeln!(out, $fmt, v)?;
            }
            Ok(())
        }};
    }
    match values {
        AnyArray::Int8(a) => each!(a, "{}"),
        AnyArray::UInt8(a) => each!(a, "{}"),
        AnyArray::Int16(a) => each!(a, "{}"),
        AnyArray::UInt16(a) => each!(a, "{}"),
        AnyArray::Int32(a) => each!(a, "{}"),
        AnyArray::UInt32(a) => each!(a, "{}"),
        AnyArray::Int64(a) => each!(a, "{}"),
        AnyArray::UInt64(a) => each!(a, "{}"),
        AnyArray::Float32(a) => each!(a, "{:?}"),
        AnyArray::Float64(a) => each!(a, "{:?}"),
    }
}

fn parse_hex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}
