//! `binfmt taridx get`: one member's payload, read by range and verified from its own
//! header blocks (the library's `Reader`).

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use binfmt_core::source::ByteSource;
use clap::Args;
use taridx::{Entry, ErrorKind, Payload, ReadOptions, Reader};

use super::shards::Shard;
use crate::escape;
use crate::input::{self, Input};
use crate::report::{self, Failure};
use crate::write;

/// How many of a sample's extensions an error message lists.
const MAX_LISTED_EXTENSIONS: usize = 16;

#[derive(Debug, Args)]
pub(super) struct GetArgs {
    /// The .taridx file.
    #[arg(value_name = "INDEX")]
    pub(super) index: PathBuf,
    /// The sample's stem (or a member name; see above); several make a batch.
    #[arg(value_name = "STEM", required_unless_present = "keys")]
    pub(super) stems: Vec<String>,
    /// More stems, one per line, from FILE (- for standard input): a batch.
    #[arg(long, value_name = "FILE")]
    pub(super) keys: Option<PathBuf>,
    /// For a batch: write each member to DIR/STEM.EXT instead of a tar stream.
    #[arg(long, value_name = "DIR")]
    pub(super) output_dir: Option<PathBuf>,
    /// The member's extension (`jpg`, `b.c.json`; compared in lower case).
    #[arg(long, value_name = "EXT")]
    pub(super) ext: Option<String>,
    /// The fold's shards in shard-id order (default: found next to the index).
    #[arg(long, num_args = 1.., value_name = "SHARD")]
    pub(super) shards: Vec<PathBuf>,
    /// Trust the keyhash: read the payload alone, without the member's name.
    #[arg(long)]
    pub(super) no_verify: bool,
    /// Where to write the payload (- for standard output, the default).
    #[arg(short = 'o', long = "output", value_name = "OUT", default_value = "-")]
    pub(super) output: PathBuf,
    /// Replace OUT if it exists (through a symbolic link, its target; the index and its shards are never replaced).
    #[arg(short = 'f', long)]
    pub(super) force: bool,
}

/// The extension asked for: --ext, or else the one in the query itself.
pub(super) fn wanted(query: &str, ext: Option<&str>) -> Option<String> {
    match ext {
        Some(ext) => Some(ext.to_lowercase()),
        None => {
            let own = taridx::extension(query);
            (!own.is_empty()).then(|| own.into_owned())
        }
    }
}

/// Finds the member `query` (and `wanted`) names and reads it: one ranged read, or two
/// when a sample's extensions are ambiguous and names are verified (the smallest member
/// is read to tell an absent stem from an ambiguous one).
fn find<'r, S: ByteSource>(
    reader: &'r Reader<S>,
    query: &str,
    wanted: Option<&str>,
    warn: &mut dyn FnMut(String),
    fail: &dyn Fn(u16, taridx::Error) -> Failure,
    index_name: &str,
) -> Result<Payload<'r>, Failure> {
    let stem = escape::text_cut(taridx::stem(query), 256);
    let rows = reader.lookup(query);
    let candidates: Vec<Entry> = match wanted {
        Some(w) => rows
            .filter(|e| reader.extension(e.extid) == Some(w))
            .collect(),
        None => rows.collect(),
    };
    let read = |entry: &Entry| -> Result<Option<Payload<'r>>, Failure> {
        let mut found = reader
            .members(std::slice::from_ref(entry), query)
            .map_err(|e| fail(entry.fid, e))?;
        Ok(found.pop())
    };
    let absent = || {
        Failure::file(
            index_name,
            match wanted {
                Some(ext) => format!(
                    "no member \"{stem}\" with extension \"{}\"",
                    escape::text_cut(ext, 256)
                ),
                None => format!("no sample \"{stem}\""),
            },
        )
    };
    let Some(first) = candidates.first().copied() else {
        return Err(absent());
    };
    if wanted.is_none() {
        let ids = taridx::extension_ids(candidates.iter().copied());
        if ids.len() > 1 {
            // An absent stem whose hash collides with an indexed one is absent, not
            // ambiguous: verify the sample's smallest member first.
            let smallest = candidates.iter().min_by_key(|e| e.size).unwrap_or(&first);
            if read(smallest)?.is_none() {
                return Err(absent());
            }
            let mut listed: Vec<String> = ids
                .iter()
                .take(MAX_LISTED_EXTENSIONS)
                .map(|&id| escape::text_cut(reader.extension(id).unwrap_or(""), 64))
                .collect();
            if ids.len() > MAX_LISTED_EXTENSIONS {
                listed.push("…".to_owned());
            }
            return Err(Failure::file(
                index_name,
                format!(
                    "sample \"{stem}\" has {} members ({}); choose one with --ext",
                    ids.len(),
                    listed.join(", ")
                ),
            ));
        }
    }
    let Some(payload) = read(&first)? else {
        return Err(absent());
    };
    if candidates.len() > 1 {
        warn(format!(
            "\"{stem}\" has {} members with extension \"{}\"; writing the first (row {})",
            candidates.len(),
            escape::text_cut(reader.extension(first.extid).unwrap_or(""), 64),
            first.row
        ));
    }
    Ok(payload)
}

/// The shards: --shards, or the fold's shards next to a local index.
pub(super) fn shard_paths(args: &GetArgs) -> Result<Vec<PathBuf>, Failure> {
    if !args.shards.is_empty() {
        return Ok(args.shards.clone());
    }
    let index = args.index.as_path();
    let is_url = index.to_str().is_some_and(binfmt_core::text::is_url);
    if index.as_os_str() == "-" || is_url {
        return Err(Failure::usage(
            "give the shards with --shards: they are found by listing the index's directory, \
             which standard input and URLs do not have",
        ));
    }
    taridx::fs::shards_of_index(index).map_err(|e| Failure::diagnostic(escape::path(index), &e))
}

pub(super) fn run(args: &GetArgs) -> Result<ExitCode, Failure> {
    if args.stems.len() != 1 || args.keys.is_some() || args.output_dir.is_some() {
        return super::batch::run(args);
    }
    let paths = shard_paths(args)?;
    let index_name = escape::path(&args.index);
    let reader = open_reader(args, &paths)?;
    let fail = |fid: u16, e: taridx::Error| {
        let shard = reader.shards().get(usize::from(fid)).map(Shard::name);
        shard_failure(&index_name, shard, &e)
    };
    let wanted = wanted(
        args.stems.first().map_or("", String::as_str),
        args.ext.as_deref(),
    );
    let mut warn = |line: String| report::say(format_args!("binfmt: warning: {line}"));
    let stem = args.stems.first().map_or("", String::as_str);
    let payload = find(
        &reader,
        stem,
        wanted.as_deref(),
        &mut warn,
        &fail,
        &index_name,
    )?;

    let out = args.output.as_path();
    let mut inputs: Vec<&Path> = vec![args.index.as_path()];
    inputs.extend(paths.iter().map(PathBuf::as_path));
    let mut output = write::open(out, args.force, &inputs, false)?;
    output
        .write_all(payload.payload())
        .and_then(|()| output.flush())
        .map_err(|e| write::failure(out, e))?;
    write::commit(output, out)?;
    Ok(ExitCode::SUCCESS)
}

/// Opens INDEX (read whole, once) with its shards `paths` (opened when first read).
pub(super) fn open_reader(args: &GetArgs, paths: &[PathBuf]) -> Result<Reader<Shard>, Failure> {
    let index_name = escape::path(&args.index);
    let source = input::open_source(&args.index)?;
    let shards: Vec<Shard> = paths.iter().map(|p| Shard::new(p)).collect();
    let reader =
        Reader::open_with(&*source, shards, &ReadOptions::new()).map_err(|e| match e.kind() {
            ErrorKind::Io(_) => index_failure(&index_name, &e),
            _ if binfmt_core::text::is_url(&index_name) || args.index.as_os_str() == "-" => {
                index_failure(&index_name, &e)
            }
            _ => crate::registry::explain(
                &args.index,
                &super::FORMAT,
                index_failure(&index_name, &e),
            ),
        })?;
    Ok(reader.verify_names(!args.no_verify))
}

pub(super) fn index_failure(index_name: &str, e: &taridx::Error) -> Failure {
    match e.kind() {
        ErrorKind::Io(io) => Failure::file(index_name, &io.source),
        _ => Failure::diagnostic(index_name, e),
    }
}

/// A failure while reading a member: the shard's (I/O, damage), or the index's (a shard
/// id without a shard).
pub(super) fn shard_failure(index_name: &str, shard: Option<String>, e: &taridx::Error) -> Failure {
    if let ErrorKind::NoShard { fid, shards, .. } = e.kind() {
        return Failure::file(
            index_name,
            format!(
                "the index refers to shard {fid}, but only {shards} shards were found (give them with --shards)"
            ),
        );
    }
    let name = shard.unwrap_or_else(|| index_name.to_owned());
    match e.kind() {
        ErrorKind::Io(io) => Failure::file(name, &io.source),
        _ => Failure::diagnostic(name, e),
    }
}

/// `taridx get` over one input, for the `cli_commands` fuzz target: the input is the
/// index and also, whole and from its middle, its two shards; a few stems are looked up
/// with and without an extension and with and without name verification, and the
/// payloads written to a sink.
pub(super) fn fuzz(input: &Input) {
    let Ok(data) = input.bytes() else { return };
    let half = data.get(data.len() / 2..).unwrap_or(&[]);
    for verify in [true, false] {
        let Ok(reader) = Reader::open_with(data, vec![data, half], &ReadOptions::new()) else {
            return;
        };
        let reader = reader.verify_names(verify);
        let crash: Vec<String> = reader
            .index()
            .crash_stems()
            .take(2)
            .map(|s| format!("{s}.jpg"))
            .collect();
        let queries = crash.iter().map(String::as_str).chain([
            "sample000001",
            "sample000001.jpg",
            "a.cls",
            "",
        ]);
        for query in queries {
            for ext in [None, Some("jpg")] {
                let wanted = wanted(query, ext);
                let fail = |fid: u16, e: taridx::Error| {
                    shard_failure("fuzz", Some(format!("shard {fid}")), &e)
                };
                match find(
                    &reader,
                    query,
                    wanted.as_deref(),
                    &mut |_| {},
                    &fail,
                    "fuzz",
                ) {
                    Ok(payload) => {
                        let _ = io::sink().write_all(payload.payload());
                    }
                    Err(failure) => {
                        let _ = failure.to_string();
                    }
                }
            }
        }
    }
}
