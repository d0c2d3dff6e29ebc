//! `binfmt` support for kastore files (and tskit `.trees` files, which are kastore files).

use std::borrow::Cow;
use std::io::{self, Write};
use std::ops::Range;
use std::path::PathBuf;
use std::process::ExitCode;

use binfmt_core::source::ByteSource;
use binfmt_core::{Kind as _, Severity, Summary};
use clap::{Args, FromArgMatches as _, Subcommand};
use kastore::{AnyArray, ErrorKind, Item, MAGIC, Reader, Store};
use serde_json::Value;

use crate::input::Input;
use crate::model::{Facts, Key};
use crate::registry::{self, Format, InspectOptions, Inspection, Report};
use crate::report::{self, Failure, Problem};

/// The kastore entry of the registry.
pub(crate) static FORMAT: Format = Format {
    name: "kastore",
    about: "kastore files (and tskit .trees files).",
    noun: "a kastore store",
    sniff: kastore::sniff,
    keys: KEYS,
    inspect,
    verify,
    command: Command::augment_subcommands,
    run,
    fuzz,
};

/// The keys of one item, in `"items"` and in each of `"more_stores"`' `"items"`.
const ITEM_KEYS: &[Key] = &[
    Key::new(
        "key",
        "the key as text (U+FFFD for bytes that are not UTF-8; never cut)",
    ),
    Key::new(
        "key_hex",
        "the key's bytes in hexadecimal, only when the key is not UTF-8",
    ),
    Key::new(
        "dtype",
        "\"int8\"|\"uint8\"|\"int16\"|\"uint16\"|\"int32\"|\"uint32\"|\"int64\"|\"uint64\"|\"float32\"|\"float64\"",
    ),
    Key::new("len", "the array's length in elements"),
];

const KEYS: &[Key] = &[
    Key::new(
        "version",
        "\"MAJOR.MINOR\" of the first store (always major 1), e.g. \"1.0\"",
    ),
    Key::new("file_size", "the first store's size in bytes"),
    Key::with(
        "items",
        "the first store's items in file order (sorted by key bytes)",
        ITEM_KEYS,
    ),
    Key::new(
        "stores",
        "how many stores the file holds back to back (1 for an ordinary file); bytes after \
         the last store that are not a valid store are trailing bytes, accepted as kastore \
         and tskit accept them, and named in \"warnings\"",
    ),
    Key::with(
        "more_stores",
        "the stores after the first, in order ([] for an ordinary file)",
        &[
            Key::new("offset", "the byte at which the store starts"),
            Key::new("file_size", "the store's size in bytes"),
            Key::new("version", "\"MAJOR.MINOR\""),
            Key::with("items", "the store's items in file order", ITEM_KEYS),
        ],
    ),
];

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

fn inspect(input: &Input, _options: &InspectOptions) -> Result<Inspection, Failure> {
    let mut stores = Vec::new();
    for store in kastore::stores(input.bytes()?) {
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
                    let mut row = Facts::new();
                    row.value("offset", store.offset())
                        .value("file_size", store.file_size())
                        .shown("version", version_json(store), version_text(store))
                        .shown("items", items_json(store), items_summary(store));
                    row
                })
                .collect(),
        );
    let warnings = last
        .warnings()
        .map(|w| Problem::from_diagnostic(Severity::Warning, &w))
        .collect();
    Ok(Inspection { facts, warnings })
}

/// `"1.0"`: every format's `"version"` is a string.
fn version_json(store: &Store<'_>) -> Value {
    let v = store.version();
    Value::String(format!("{}.{}", v.major, v.minor))
}

/// `1.0`, with a note when the store is not as the reference writes it.
fn version_text(store: &Store<'_>) -> String {
    let v = store.version();
    let mut text = format!("{}.{}", v.major, v.minor);
    if !store.is_canonical() {
        text.push_str(" (non-zero reserved or padding bytes, or a newer minor version)");
    }
    text
}

fn item_facts(item: &Item<'_>) -> Facts {
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
        .value("len", item.len());
    facts
}

fn items_json(store: &Store<'_>) -> Value {
    Value::Array(
        store
            .items()
            .map(|item| Value::Object(item_facts(&item).to_json()))
            .collect(),
    )
}

/// A further store's items in one text cell: their number and first keys.
fn items_summary(store: &Store<'_>) -> String {
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
    registry::verify_with(input, report, kastore::verify)
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
    let store = open_store(&input, args.store)?;
    for warning in store.warnings() {
        report::say(format_args!("binfmt: {name}: {warning}"));
    }
    let entry = store
        .reader
        .find(&key)
        .map_err(|e| Failure::diagnostic(name, &e))?;
    let bytes = store
        .reader
        .read(&entry)
        .map_err(|e| Failure::diagnostic(name, &e.rebased(store.start)))?;
    let mut out = io::BufWriter::new(crate::write::stdout()?);
    if args.raw {
        out.write_all(&bytes).map_err(Failure::stdout)?;
    } else {
        print_values(&mut out, AnyArray::new(entry.dtype(), &bytes)).map_err(Failure::stdout)?;
    }
    out.flush().map_err(Failure::stdout)?;
    Ok(ExitCode::SUCCESS)
}

/// One store of an input, read by ranges.
struct OpenStore<'a> {
    reader: Reader<Shifted<'a>>,
    /// Where the store starts in the input.
    start: u64,
    /// The input, to look at what follows the store.
    source: &'a dyn ByteSource,
}

impl OpenStore<'_> {
    /// The warnings of [`Store::warnings`] for this store: the bytes after it, when they
    /// are not a further store. Reads at most the metadata of the would-be store.
    fn warnings(&self) -> Vec<Problem> {
        let trailing = self.reader.trailing_len();
        if trailing == 0 {
            return Vec::new();
        }
        let at = self.start.saturating_add(self.reader.file_size());
        let next = Shifted {
            inner: self.source,
            start: at,
        };
        let Err(problem) = Reader::open(next) else {
            return Vec::new(); // a further store
        };
        let magic_len = u64::try_from(MAGIC.len()).unwrap_or(u64::MAX);
        let head = self
            .source
            .read_range(at..at.saturating_add(trailing.min(magic_len)))
            .unwrap_or_default();
        let store_like = head.starts_with(MAGIC) || MAGIC.starts_with(&head);
        let mut warnings = vec![
            ErrorKind::TrailingBytes {
                len: trailing,
                store_like,
            }
            .at(at),
        ];
        if store_like {
            warnings.push(problem.rebased(at));
        }
        warnings
            .iter()
            .map(|w| Problem::from_diagnostic(Severity::Warning, w))
            .collect()
    }
}

/// Opens store `index` of `input` (0 for an ordinary file): the metadata of each store
/// before it is read, to learn where the next one starts, and nothing else.
fn open_store(input: &Input, index: usize) -> Result<OpenStore<'_>, Failure> {
    let source = input.source();
    let mut start = 0u64;
    let mut at = 0usize;
    loop {
        let shifted = Shifted {
            inner: source,
            start,
        };
        let reader = match Reader::open(shifted) {
            Ok(reader) => reader,
            Err(e) if at == 0 => return Err(Failure::diagnostic(input.name(), &e)),
            // Bytes after a store that are not a store are trailing bytes.
            Err(_) => return Err(no_such_store(input, index, at)),
        };
        if at == index {
            return Ok(OpenStore {
                reader,
                start,
                source,
            });
        }
        if reader.trailing_len() == 0 {
            return Err(no_such_store(input, index, at.saturating_add(1)));
        }
        start = start.saturating_add(reader.file_size());
        at = at.saturating_add(1);
    }
}

/// `--store N` past the file's stores: an argument out of range (exit 2).
fn no_such_store(input: &Input, index: usize, count: usize) -> Failure {
    Failure::usage(format!(
        "--store {index}: {} holds {count} store(s), numbered from 0",
        input.name()
    ))
}

/// The bytes of a source from `start` on, as a source of their own (the kastore
/// [`Reader`] reads a store that starts at byte 0).
struct Shifted<'a> {
    inner: &'a dyn ByteSource,
    start: u64,
}

impl Shifted<'_> {
    fn outer(&self, range: &Range<u64>) -> io::Result<Range<u64>> {
        let shift = |at: u64| {
            at.checked_add(self.start)
                .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "offset overflow"))
        };
        Ok(shift(range.start)?..shift(range.end)?)
    }
}

impl ByteSource for Shifted<'_> {
    fn len(&self) -> io::Result<u64> {
        Ok(self.inner.len()?.saturating_sub(self.start))
    }

    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        self.inner.read_range(self.outer(&range)?)
    }

    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Cow<'_, [u8]>>> {
        let outer = ranges
            .iter()
            .map(|r| self.outer(r))
            .collect::<io::Result<Vec<_>>>()?;
        self.inner.read_ranges(&outer)
    }

    fn read_head(&self, max_len: u64) -> io::Result<Cow<'_, [u8]>> {
        // Through the inner source's own head read: the default asks for the length
        // first, which reads a stream to its end before a magic byte is compared.
        let end = self.start.saturating_add(max_len);
        let head = self.inner.read_head(end)?;
        let start = usize::try_from(self.start).unwrap_or(usize::MAX);
        Ok(match head {
            Cow::Borrowed(b) => Cow::Borrowed(b.get(start..).unwrap_or(&[])),
            Cow::Owned(v) => Cow::Owned(v.get(start..).unwrap_or(&[]).to_vec()),
        })
    }

    fn as_slice(&self) -> Option<&[u8]> {
        let start = usize::try_from(self.start).ok()?;
        self.inner.as_slice()?.get(start..)
    }

    fn is_stream(&self) -> bool {
        self.inner.is_stream()
    }
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
    for index in 0..4 {
        let Ok(store) = open_store(input, index) else {
            return;
        };
        let _ = store.warnings();
        let keys: Vec<Vec<u8>> = store
            .reader
            .keys()
            .take(FUZZ_KEYS)
            .map(<[u8]>::to_vec)
            .collect();
        for key in &keys {
            let _ = key_cell(key);
            let Ok(entry) = store.reader.find(key) else {
                continue;
            };
            // Bounded: the array may be as large as the input, never larger.
            if let Ok(bytes) = store.reader.read(&entry) {
                let _ = sink.write_all(&bytes);
                let _ = print_values(&mut sink, AnyArray::new(entry.dtype(), &bytes));
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
