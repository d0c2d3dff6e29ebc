//! `binfmt` support for .taridx indexes of tar shards: `inspect`, `verify` (the
//! library's), and `binfmt taridx build|get`.

mod batch;
mod build;
mod get;
mod shards;

use std::process::ExitCode;

use binfmt_core::Summary;
use clap::{FromArgMatches, Subcommand};
use taridx::{Index, ReadOptions};

use crate::input::Input;
use crate::model::{Facts, Key, keys};
use crate::registry::{self, Format, InspectOptions, Inspection, Report};
use crate::report::Failure;

/// The .taridx entry of the registry.
pub(crate) static FORMAT: Format = Format {
    name: "taridx",
    about: "Indexes (.taridx) of tar shards: build one, get a member's payload or a batch of samples.",
    noun: "a .taridx index",
    sniff: taridx::sniff,
    keys: KEYS,
    inspect,
    verify,
    verify_reads_all: None,
    structure_at_end: None,
    command: Command::augment_subcommands,
    run,
    fuzz: get::fuzz,
};

const KEYS: &[Key] = keys! {
    "version": "\"MAJOR.MINOR\"",
    "n_stems": "distinct stems, as stored",
    "n_rows": "rows, as stored",
    "extensions": "[S, ...] in id order",
    "crash_stems": "[S, ...]: crash id k is element k-1",
    "contiguous": "flag bit 0 as stored: each stem's rows are adjacent",
    "rows": "with --rows: one object per row, in order" => keys! {
        "fid": "shard id",
        "offset": "offset of the tar header before the payload (the payload starts at \
                   offset + 512)",
        "size": "payload bytes",
        "ext": "the extension string",
        "crashid": "0 = canonical stem; k = crash stem k",
        "keyhash": "XXH64 of the stem as 16 lower-case hex digits (a JSON number would lose \
                    bits in jq and JavaScript)",
    },
};

/// `binfmt taridx …`.
#[derive(Debug, Subcommand)]
enum Command {
    /// Index the tar shards of a fold into a .taridx file.
    ///
    /// The shards of fold FOLD are the files DIR/FOLD_SUFFIX.tar (exactly one `_`),
    /// ordered by SUFFIX as strings; the index goes to DIR/FOLD.taridx unless -o is given
    /// (`-o -`: standard output). An existing index is replaced only with --force; a
    /// shard is never overwritten. Strict mode (the default) indexes regular files only,
    /// follows every tar extension (ustar prefix, GNU long names, pax, base-256 sizes),
    /// checks header checksums and fails on truncation and on compressed shards (gzip,
    /// bzip2, xz, zstd, lz4: decompress them first). Skipped members and warnings are
    /// printed on stderr, escaped, at most 100 of each kind (the rest counted); then a
    /// summary line `OUT: N rows, N stems, N extensions, N shards (…)`. A progress bar
    /// is drawn on stderr when it is a terminal.
    Build(build::BuildArgs),
    /// Write the payload of one member to standard output (or -o OUT); with several
    /// stems, a batch of samples as a tar stream (or files in --output-dir).
    ///
    /// STEM selects the sample (the stem rule applies: text after the last `/`, up to
    /// the first `.`); --ext, or else an extension in STEM itself (`x.jpg`), selects the
    /// member. The shards are found next to the index (INDEX is DIR/FOLD.taridx, shards
    /// DIR/FOLD_*.tar) unless --shards is given; only the shard holding the member is
    /// opened, and the member is read in one ranged read. By default the member's name is
    /// checked in its own header blocks (read with the payload), so a stem that merely
    /// shares a 64-bit hash with an indexed one is reported as absent.
    ///
    /// Batch: more than one STEM, or --keys FILE (one stem per line, - for standard
    /// input). The index is read once; the members of up to 64 samples are fetched
    /// together, one ranged read each and one batch per shard (a URL's batch runs up to 8
    /// requests at once). Every member of each sample is written (only --ext's, with
    /// --ext), samples in the order given, as a tar stream to OUT (default standard
    /// output) whose members are named STEM.EXT, as webdataset names them; or, with
    /// --output-dir DIR, as the files DIR/STEM.EXT (an existing one is replaced only with
    /// --force). A stem that is absent is reported on standard error and the batch goes
    /// on; the exit code is then 1.
    Get(get::GetArgs),
}

fn run(matches: &clap::ArgMatches) -> Result<ExitCode, Failure> {
    match Command::from_arg_matches(matches)? {
        Command::Build(args) => build::run(args),
        Command::Get(args) => get::run(&args),
    }
}

/// `inspect`: the index through the one view over a range cache that starts with the
/// bytes detection read (a whole index of up to 64 KiB), then the rest in one hinted
/// read.
fn inspect(input: &Input, options: &InspectOptions) -> Result<Inspection, Failure> {
    let cache = input.cache();
    let index = Index::from_data_with(&cache, &ReadOptions::new())
        .map_err(|e| Failure::diagnostic(input.name(), &e))?;
    let mut facts = Facts::new();
    facts
        .value("version", index.version().to_string())
        .value("n_stems", index.n_stems())
        .value("n_rows", index.n_rows())
        .strings("extensions", index.extensions().map(Box::from).collect())
        .strings("crash_stems", index.crash_stems().map(Box::from).collect())
        .value("contiguous", index.is_contiguous());
    if options.rows {
        // A 16-bit extension id names at most the first 65,536 extensions.
        let exts: Vec<&str> = index.extensions().take(1 << 16).collect();
        let mut rows = Vec::new();
        for entry in index.entries() {
            let e = entry.map_err(|e| Failure::diagnostic(input.name(), &e))?;
            rows.push(Facts::build(|row| {
                row.value("fid", e.fid)
                    .value("offset", e.offset)
                    .value("size", e.size)
                    .value("ext", exts.get(usize::from(e.extid)).copied().unwrap_or(""))
                    .value("crashid", e.crashid)
                    .value("keyhash", format!("{:016x}", e.keyhash))
            }));
        }
        facts.table("rows", rows);
    }
    Ok(Inspection::with_warnings(facts, index.warnings()))
}

/// The library's whole-index check (row ids, stem count, contiguity flag, …): shards are
/// not read.
fn verify(input: &Input, report: &mut Report<'_>) -> Result<Summary, Failure> {
    registry::verify_with(input, report, |cache, options, sink| {
        taridx::verify_data(cache, options, sink)
    })
}
