//! `binfmt` support for MLDF datasets: the registry entry, the grammar of `binfmt mldf`
//! and its dispatch. The commands live in their own files: [`inspect`], [`get`],
//! [`diff`], and [`pack`] (the SCHEMA/SAMPLES JSON → MLDF converter).

mod diff;
mod get;
mod inspect;
pub(crate) mod pack;
mod show;

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use binfmt_core::Summary;
use clap::{FromArgMatches, Subcommand};

use crate::input::Input;
use crate::registry::{self, Format, Report};
use crate::report::Failure;

/// The MLDF entry of the registry.
pub(crate) static FORMAT: Format = Format {
    name: "mldf",
    about: "MLDF datasets: print a value, compare two datasets, build one from JSON.",
    noun: "an MLDF dataset",
    sniff: mldf::sniff,
    keys: inspect::KEYS,
    inspect: inspect::inspect,
    verify,
    verify_reads_all: None,
    structure_at_end: None,
    command: Command::augment_subcommands,
    run,
    fuzz,
};

/// `binfmt mldf …`.
#[derive(Debug, Subcommand)]
enum Command {
    /// Compare two datasets: header, fields, then every value of every sample.
    ///
    /// Prints one line per difference on stdout: `header.FIELD: A != B`,
    /// `field I: …`, `sample S, field "NAME": A != B`. Values are compared for the
    /// fields whose name and type agree, over the samples both files have; floats are
    /// compared by their bits; payloads by their bytes (shown as their size and CRC-32).
    /// Section pointers and stored CRCs are layout, not content: they are compared only
    /// with `--layout`. Names and text from the files are escaped and cut to 60
    /// characters. Exits 0 when nothing differs, 1 when something does or a file cannot
    /// be read.
    Diff {
        /// The first dataset (- for standard input).
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
    /// newline: byte for byte to a pipe or a file, and on a terminal with control
    /// characters escaped (`\n`, `\e`, `\u{9b}`, a backslash as `\\`), as `ls` does; token ids print as one line of space-separated numbers; BYTES, NDARRAY,
    /// IMAGE and AUDIO payloads (and the raw slot of an unknown type) are written to
    /// stdout as raw bytes, nothing added, but never to a terminal (redirect stdout, or
    /// say --raw). With --raw, every value is written as its exact bytes, nothing added
    /// and nothing escaped (INT and FLOAT as their decimal text). A null value prints
    /// nothing. With `--json`, one object: {"sample", "field", "type_id", "kind",
    /// "value"} where value is a number, a string (JSON text, UTF-8 text;
    /// "NaN"/"inf"/"-inf" for such floats), an array of token ids, null, or for payloads
    /// an object with "size" and the slot's metadata ("dtype"/"shape";
    /// "mode"/"height"/"width"/"channels";
    /// "codec"/"num_samples"/"sample_rate"/"num_channels"/"bit_depth"; "slot" as hex).
    ///
    /// The file is read by ranges: the header and field descriptors, then the value's
    /// slot and its payload. Checksums are not checked unless --checksums is given
    /// (which reads the whole metadata and allocation tables). A sample or field that
    /// does not exist is an argument error (exit 2).
    Get {
        /// The dataset (- for standard input).
        file: PathBuf,
        /// The sample index, from 0.
        index: u64,
        /// The field's name (or its index, when no field has that name).
        field: String,
        /// Describe the value as JSON instead of printing it.
        #[arg(long, conflicts_with = "raw")]
        json: bool,
        /// Write the value's exact bytes, unescaped, even to a terminal.
        #[arg(long)]
        raw: bool,
        /// Also check the index CRC and the value's item CRC (checksummed files).
        #[arg(long)]
        checksums: bool,
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
    /// "num_samples"} (PCM frame counts follow from the size).
    ///
    /// Payload paths are relative to the directory of SAMPLES.jsonl (the current
    /// directory when it is -), and must stay inside it once `..` and symbolic links are
    /// resolved: a path that leads elsewhere (`../x`, `/etc/passwd`, a link out of the
    /// directory) is refused unless --allow-outside-paths is given. Payloads must be
    /// regular files.
    ///
    /// The file is written in the canonical layout (samples are counted first). OUT is
    /// not replaced without --force, and never when it is SCHEMA, SAMPLES or a payload
    /// file; - writes to standard output. A regular file is written to a temporary file
    /// renamed to OUT at the end: on any error OUT is left untouched.
    Pack {
        /// The schema (JSON; - for standard input).
        schema: PathBuf,
        /// The samples (JSON Lines; - for standard input).
        samples: PathBuf,
        /// The dataset to write (- for standard output).
        out: PathBuf,
        /// Replace OUT if it exists (through a symbolic link, its target; never an input).
        #[arg(short, long)]
        force: bool,
        /// Let payload paths lead outside the directory of SAMPLES.
        #[arg(long)]
        allow_outside_paths: bool,
    },
}

fn verify(input: &Input, report: &mut Report<'_>) -> Result<Summary, Failure> {
    registry::verify_with(input, report, |cache, options, sink| {
        mldf::verify_data(cache, options, sink)
    })
}

fn run(matches: &clap::ArgMatches) -> Result<ExitCode, Failure> {
    match Command::from_arg_matches(matches)? {
        Command::Diff {
            a,
            b,
            layout,
            limit,
        } => diff::run(&a, &b, layout, limit),
        Command::Get {
            file,
            index,
            field,
            json,
            raw,
            checksums,
        } => {
            let how = if json {
                get::How::Json
            } else if raw {
                get::How::Raw
            } else {
                get::How::Text
            };
            get::run(&file, index, &field, how, checksums)
        }
        Command::Pack {
            schema,
            samples,
            out,
            force,
            allow_outside_paths,
        } => pack::run(&pack::Args {
            schema: &schema,
            samples: &samples,
            out: &out,
            force,
            allow_outside_paths,
        }),
    }
}

/// Samples `get` reads in [`fuzz`]: the first few (every field of each).
const FUZZ_SAMPLES: u64 = 4;

/// `get` of the first samples (every field, in every form) and `diff` of the input with
/// itself, output discarded.
fn fuzz(input: &Input) {
    if let Ok(reader) = get::open(input, false) {
        let samples = reader.num_samples().min(FUZZ_SAMPLES);
        for sample in 0..samples {
            for field in reader.fields() {
                for how in [get::How::Text, get::How::Raw, get::How::Json] {
                    let _ = get::write(&mut io::sink(), &reader, sample, field, how);
                }
            }
        }
        // Out of range: the argument errors.
        let _ = get::find_field(&reader, "no such field");
        let _ = get::find_field(&reader, "0");
    }
    let _ = diff::write(&mut io::sink(), input, input, true, 8);
}
