//! `binfmt` support for kastore files (and tskit `.trees` files, which are kastore files).

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use binfmt_core::{Severity, Summary};
use clap::{Args, FromArgMatches as _, Subcommand};
use kastore::{AnyArray, Item, ReadOptions, Store, Stores};
use serde_json::Value;

use crate::input::{Cache, Input};
use crate::model::{Facts, Key, keys};
use crate::registry::{self, Format, InspectOptions, Inspection, Report};
use crate::report::{self, Failure, Problem};

/// The kastore entry of the registry.
pub(crate) static FORMAT: Format = registry::format_entry! {
    name: "kastore",
    about: "kastore files (and tskit .trees files): print one array.",
    noun: "a kastore store",
    sniff: kastore::sniff,
};

/// The keys of one item, in `"items"` and in each of `"more_stores"`' `"items"`.
const ITEM_KEYS: &[Key] = keys! {
    "key": "the key as text (U+FFFD for bytes that are not UTF-8; never cut)",
    "key_hex": "the key's bytes in hexadecimal, only when the key is not UTF-8",
    "dtype": "\"int8\"|\"uint8\"|\"int16\"|\"uint16\"|\"int32\"|\"uint32\"|\"int64\"|\"uint64\"|\
              \"float32\"|\"float64\"",
    "len": "the array's length in elements",
};

const KEYS: &[Key] = keys! {
    "version": "\"MAJOR.MINOR\" of the first store (always major 1), e.g. \"1.0\"",
    "file_size": "the first store's size in bytes",
    "items": "the first store's items in file order (sorted by key bytes)" => ITEM_KEYS,
    "stores": "how many stores the file holds back to back (1 for an ordinary file); bytes \
               after the last store that are not a valid store are trailing bytes, accepted \
               as kastore and tskit accept them, and named in \"warnings\"",
    "more_stores": "the stores after the first, in order ([] for an ordinary file)" => keys! {
        "offset": "the byte at which the store starts",
        "file_size": "the store's size in bytes",
        "version": "\"MAJOR.MINOR\"",
        "items": "the store's items in file order" => ITEM_KEYS,
    },
};

/// Characters of a key shown in text tables (the model cuts cells shorter still).
const KEY_CHARS: usize = 64;
/// Key bytes shown in hexadecimal in text, for keys that are not UTF-8.
const KEY_HEX_BYTES: usize = 32;
/// Keys of a further store named in its text cell.
const STORE_KEYS_SHOWN: usize = 8;
/// Keys `fuzz` reads, per form.
const FUZZ_KEYS: usize = 16;

/// `binfmt kastore …`.
#[derive(Debug, Subcommand)]
enum Command {
    /// Print the array stored under KEY, one element per line.
    ///
    /// Integers print in decimal; floats in the shortest form that reads back to the same
    /// value, with an exponent when far from 1: `0.0`, `-0.0`, `1.5`, `1e-300`, `NaN`,
    /// `inf`, `-inf`. With --raw, the array's bytes are written as stored (little-endian)
    /// and nothing else. Only the store's metadata and the one array are read from FILE.
    /// Bytes after the last store that are not a store are accepted (kastore and tskit
    /// accept them) with a warning on standard error.
    Get(GetArgs),
}

#[derive(Debug, Args)]
struct GetArgs {
    /// The kastore or .trees file (- for standard input).
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

/// A store of the input, read through its range cache ([`Input::cache`]): opening a store
/// costs no request when detection's bytes hold its metadata, and one (the descriptors
/// and keys, in one hinted batch) when not.
type View<'c, 'i> = Store<'c, &'c Cache<'i>>;

/// `inspect`: the stores' metadata only (a 50 GB `.trees` on S3 is its header,
/// descriptors and keys), never the arrays.
fn inspect(input: &Input, _options: &InspectOptions) -> Result<Inspection, Failure> {
    let cache = input.cache();
    let mut stores = Vec::new();
    for store in Stores::new(&cache, &ReadOptions::new()) {
        stores.push(store.map_err(|e| Failure::diagnostic(input.name(), &e))?);
    }
    let (Some(first), Some(last)) = (stores.first(), stores.last()) else {
        // Detection saw the magic, so the input is not empty.
        return Err(Failure::file(input.name(), "no kastore store found"));
    };
    let mut facts = Facts::new();
    facts
        .shown("version", version_json(first), version_text(first))
        .value("file_size", first.file_size())
        .table(
            "items",
            first.items().map(|item| item_facts(&item)).collect(),
        )
        .value("stores", stores.len())
        .table(
            "more_stores",
            stores
                .iter()
                .skip(1)
                .map(|store| {
                    Facts::build(|row| {
                        row.value("offset", store.offset())
                            .value("file_size", store.file_size())
                            .shown("version", version_json(store), version_text(store))
                            .shown("items", items_json(store), items_summary(store))
                    })
                })
                .collect(),
        );
    Ok(Inspection::with_warnings(facts, last.warnings()))
}

/// `"1.0"`: every format's `"version"` is a string.
fn version_json(store: &View<'_, '_>) -> Value {
    let v = store.version();
    Value::String(format!("{}.{}", v.major, v.minor))
}

/// `1.0`, with a note when the store's metadata is not as the reference writes it
/// (what the metadata shows: the minor version and the reserved bytes; padding between
/// arrays is not read by `inspect`).
fn version_text(store: &View<'_, '_>) -> String {
    let v = store.version();
    let mut text = format!("{}.{}", v.major, v.minor);
    let h = store.header();
    let reserved = h.reserved.iter().any(|&b| b != 0)
        || store
            .descriptors()
            .iter()
            .any(|d| d.reserved_type.iter().any(|&b| b != 0) || d.reserved.iter().any(|&b| b != 0));
    if v.minor != 0 || reserved {
        text.push_str(" (non-zero reserved bytes, or a newer minor version)");
    }
    text
}

fn item_facts<'c>(item: &Item<'c, &'c Cache<'_>>) -> Facts {
    let key = item.key();
    let mut facts = Facts::new();
    facts.shown(
        "key",
        String::from_utf8_lossy(key).into_owned(),
        key_cell(key),
    );
    if item.key_str().is_none() {
        facts.value("key_hex", crate::escape::hex(key));
    }
    facts
        .value("dtype", item.dtype().name())
        .value("len", item.array_len());
    facts
}

fn items_json(store: &View<'_, '_>) -> Value {
    Value::Array(
        store
            .items()
            .map(|item| Value::Object(item_facts(&item).to_json()))
            .collect(),
    )
}

/// A further store's items in one text cell: their number and first keys.
fn items_summary(store: &View<'_, '_>) -> String {
    let mut text = store.len().to_string();
    for (i, item) in store.items().take(STORE_KEYS_SHOWN).enumerate() {
        text.push_str(if i == 0 { ": " } else { ", " });
        text.push_str(&key_cell(item.key()));
    }
    if store.len() > STORE_KEYS_SHOWN {
        text.push_str(", …");
    }
    text
}

/// A key for text output, bounded whatever its length: UTF-8 keys as text (the model
/// escapes control characters), other keys as `0x` and hexadecimal.
fn key_cell(key: &[u8]) -> String {
    if std::str::from_utf8(key).is_ok() {
        kastore::KeyText::new(key)
            .lossy()
            .max_chars(KEY_CHARS)
            .to_string()
    } else {
        let shown = key.get(..KEY_HEX_BYTES).unwrap_or(key);
        let cut = if shown.len() < key.len() { "…" } else { "" };
        format!("0x{}{cut}", crate::escape::hex(shown))
    }
}

fn verify(input: &Input, report: &mut Report<'_>) -> Result<Summary, Failure> {
    registry::verify_with(input, report, |cache, options, sink| {
        kastore::verify_data(cache, options, sink)
    })
}

fn run(matches: &clap::ArgMatches) -> Result<ExitCode, Failure> {
    match Command::from_arg_matches(matches)? {
        Command::Get(args) => get(&args),
    }
}

fn get(args: &GetArgs) -> Result<ExitCode, Failure> {
    let key = if args.hex {
        parse_hex(&args.key).ok_or_else(|| {
            Failure::usage(format!(
                "--hex: \"{}\" is not an even number of hexadecimal digits",
                crate::escape::text_cut(&args.key, 64)
            ))
        })?
    } else {
        args.key.as_bytes().to_vec()
    };
    let input = Input::open(&args.file)?;
    registry::expect(&input, &FORMAT)?;
    let name = input.name();
    let cache = input.cache();
    let store = open_store(&input, &cache, args.store)?;
    for warning in store.warnings() {
        report::say(format_args!(
            "binfmt: {name}: {}",
            Problem::from_diagnostic(Severity::Warning, &warning)
        ));
    }
    let item = store
        .find(&key)
        .map_err(|e| Failure::diagnostic(name, &e))?;
    // The array alone: one request into a buffer of our own (none when the metadata
    // read already holds it).
    let bytes = item.read().map_err(|e| Failure::diagnostic(name, &e))?;
    let mut out = io::BufWriter::new(crate::write::stdout()?);
    if args.raw {
        out.write_all(&bytes).map_err(Failure::stdout)?;
    } else {
        print_values(&mut out, AnyArray::new(item.dtype(), &bytes)).map_err(Failure::stdout)?;
    }
    out.flush().map_err(Failure::stdout)?;
    Ok(ExitCode::SUCCESS)
}

/// Store `index` of the input (0 for an ordinary file): the metadata of each store
/// before it is read, to learn where the next one starts, and nothing else.
fn open_store<'c, 'i>(
    input: &Input,
    cache: &'c Cache<'i>,
    index: usize,
) -> Result<View<'c, 'i>, Failure> {
    let mut count = 0usize;
    for store in Stores::new(cache, &ReadOptions::new()) {
        let store = store.map_err(|e| Failure::diagnostic(input.name(), &e))?;
        if count == index {
            return Ok(store);
        }
        count = count.saturating_add(1);
    }
    Err(no_such_store(input, index, count))
}

/// `--store N` past the file's stores: an argument out of range (exit 2).
fn no_such_store(input: &Input, index: usize, count: usize) -> Failure {
    Failure::usage(format!(
        "--store {index}: {} holds {count} store(s), numbered from 0",
        input.name()
    ))
}

fn print_values(out: &mut dyn Write, values: AnyArray<'_>) -> io::Result<()> {
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
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// `kastore get` of the first keys of every store, in text and raw form, into a sink
/// (with the key lookup and the trailing-bytes warnings of the command).
fn fuzz(input: &Input) {
    let mut sink = io::sink();
    let cache = input.cache();
    for index in 0..4 {
        let Ok(store) = open_store(input, &cache, index) else {
            return;
        };
        let _ = store.warnings().count();
        for item in store.items().take(FUZZ_KEYS) {
            let _ = key_cell(item.key());
            let Ok(found) = store.find(item.key()) else {
                continue;
            };
            // Bounded: the array may be as large as the input, never larger.
            if let Ok(bytes) = found.read() {
                let _ = sink.write_all(&bytes);
                let _ = print_values(&mut sink, AnyArray::new(found.dtype(), &bytes));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_keys_parse_or_fail() {
        assert_eq!(parse_hex("FFfe"), Some(vec![0xff, 0xfe]));
        assert_eq!(parse_hex(""), Some(vec![]));
        assert_eq!(parse_hex("zz"), None);
        assert_eq!(parse_hex("6"), None);
        assert_eq!(parse_hex("é0"), None);
    }

    #[test]
    fn key_cells_are_bounded() {
        assert_eq!(key_cell(b"nodes/time"), "nodes/time");
        assert_eq!(key_cell(b"\xff\xfe"), "0xfffe");
        assert!(key_cell(&[b'k'; 13_000]).chars().count() <= KEY_CHARS);
        assert!(key_cell(&[0xff; 13_000]).len() < 80);
    }
}
