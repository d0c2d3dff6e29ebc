//! TACO benchmarks: header decode against tacozip 0.13's C `tacozip_parse_header`, the
//! in-place update, and listing 70,000 members against Python's `zipfile`, each
//! reference timed in the same run.
//!
//! * `taco_header/decode/*`: `full` (every check, CRC included), `no_checksums`,
//!   `lenient` (tacozip's checks, no CRC: what the C function checks); each parses, then
//!   copies the entries out, as the C function does (it fills a 120-byte meta array);
//!   `*_view_only` parse only (the view reads entries in place on demand); `tacozip_c`.
//!   The reference is timed when `BINFMT_TACOZIP_LIB` names the tacozip wheel's
//!   `libtacozip.so`, or `BINFMT_PYTHON` a Python with tacozip 0.13.0 installed.
//! * `taco_header/update_in_memory_100_members`.
//! * `taco_header/list_70000/*`: the member list (names, sizes, data offsets) of a
//!   70,001-entry archive (ZIP64 by count): `archive_members` (parse in memory and walk
//!   every member with its data offset), `reader_members_file` (`Reader` over a file:
//!   tail, central directory, one batch of local headers), and `verify` (every check).
//!   With `BINFMT_PYTHON`, the run ends by timing the reference listing,
//!   `zipfile.ZipFile(path).infolist()` in-process (tools/taco/time_listing.py, median
//!   of 20), next to ours timed the same way, and prints the ratio.
//! * `taco_header/cli_inspect_70000/*`: the `binfmt` command end to end on the same
//!   archive, each iteration one process: `inspect_json` (`binfmt inspect --json`, every
//!   member), `inspect_text` (`binfmt inspect`), `verify` (`binfmt verify`, every CRC),
//!   and `reference` (tools/taco/inspect_reference.py: tacozip's `read_header` and
//!   zipfile's `infolist()`, interpreter start-up included). The binary is `BINFMT_BIN`,
//!   or `target/release/binfmt` (build it first: `cargo build --release -p binfmt-cli`);
//!   without it the group is skipped, and `reference` needs `BINFMT_PYTHON`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::process::Stdio;
use std::time::{Duration, Instant};

use binfmt_benches::reference::tacozip::{self, TacoMetaArray, TacozipParseHeader};
use std::ops::ControlFlow;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use taco_header::{Archive, Entries, Entry, Error, Header, ReadOptions, Severity, Writer};

fn header() -> [u8; 157] {
    Entries::from_slice(&[
        Entry::new(157, 13),
        Entry::new(1000, 1000),
        Entry::new((1 << 32) + 5, 0x0102_0304_0506_0708),
    ])
    .expect("three entries fit")
    .to_header_bytes()
}

fn decode(c: &mut Criterion) {
    let bytes = header();
    let mut group = c.benchmark_group("taco_header/decode");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    const EVERY: ReadOptions = ReadOptions::new();
    const NO_CHECKSUMS: ReadOptions = EVERY.checksums(false);
    const LENIENT: ReadOptions = EVERY.lenient(true).checksums(false);
    for (name, options) in [
        ("full", EVERY),
        ("no_checksums", NO_CHECKSUMS),
        ("lenient", LENIENT),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let header = Header::parse_with(black_box(&bytes), &options).expect("valid");
                black_box(header.entries())
            });
        });
    }
    // The zero-copy decode alone: validate and hand out the view (entries are read from
    // it on demand). The closure returns a count, not the `Result`: criterion drops what
    // a routine returns, and dropping a `Result<_, Error>` costs more than the parse.
    group.bench_function("no_checksums_view_only", |b| {
        b.iter(|| Header::parse_with(black_box(&bytes), &NO_CHECKSUMS).map_or(0, |h| h.count()))
    });
    group.bench_function("full_view_only", |b| {
        b.iter(|| Header::parse(black_box(&bytes)).map_or(0, |h| h.count()))
    });
    let lib = tacozip::load()
        .map_err(|why| eprintln!("note: tacozip is not timed in this run: {why}"))
        .ok();
    if let Some(parse) = lib.as_ref().and_then(TacozipParseHeader::new) {
        let mut out = TacoMetaArray::default();
        assert_eq!(
            parse.call(&bytes, &mut out),
            0,
            "the reference accepts our header"
        );
        assert_eq!(out.count, 3);
        group.bench_function("tacozip_c", |b| {
            b.iter(|| {
                let rc = parse.call(black_box(&bytes), &mut out);
                black_box(rc);
                black_box(out.entries[2][1])
            });
        });
    }
    group.finish();
}

fn update_in_memory(c: &mut Criterion) {
    // The whole in-place update on an archive in memory: parse, locate, check, patch.
    let mut writer = Writer::new(Entries::new());
    for i in 0..100u32 {
        writer.add_bytes(format!("member/{i:03}"), vec![0u8; 100]);
    }
    let mut data = writer.to_vec().expect("archive");
    let entries = Entries::from_slice(&[Entry::new(1, 2)]).expect("one entry");
    c.bench_function("taco_header/update_in_memory_100_members", |b| {
        b.iter(|| taco_header::update_in_memory(black_box(&mut data), &entries).expect("valid"));
    });
}

/// The 70,001-entry archive of the listing benches, written once to a file.
fn archive_70000() -> PathBuf {
    let path = std::env::temp_dir().join("binfmt-bench-taco-70000.taco");
    let mut writer = Writer::new(Entries::from_slice(&[Entry::new(11, 22)]).expect("one"));
    for i in 0..70_000u32 {
        writer.add_bytes(format!("m/{i:06}"), (i % 10_000).to_le_bytes().to_vec());
    }
    writer.write_to_path(&path).expect("archive");
    path
}

/// Our listing, as the benches and the reference comparison time it.
fn list_in_memory(data: &[u8]) -> usize {
    let archive = Archive::parse(data).expect("valid");
    archive.members().filter(Result::is_ok).count()
}

fn list_70000(c: &mut Criterion) {
    let path = archive_70000();
    let data = std::fs::read(&path).expect("archive");
    let mut group = c.benchmark_group("taco_header/list_70000");
    group.throughput(Throughput::Elements(70_001));
    group.bench_function("archive_members", |b| {
        b.iter(|| list_in_memory(black_box(&data)))
    });
    group.bench_function("reader_members_file", |b| {
        b.iter(|| {
            let reader = taco_header::fs::open(&path).expect("header");
            reader.members().expect("members").len()
        });
    });
    group.bench_function("verify", |b| {
        b.iter(|| {
            let mut sink = |_: Severity, _: Error| ControlFlow::Continue(());
            taco_header::verify(black_box(&data), &ReadOptions::new(), &mut sink).errors()
        });
    });
    group.finish();
    reference_listing(&path, &data);
}

/// Python's `zipfile` listing of the same archive, and ours timed the same way (median
/// of 20 in-process runs).
fn reference_listing(path: &Path, data: &[u8]) {
    let Some(python) = std::env::var_os("BINFMT_PYTHON").filter(|p| !p.is_empty()) else {
        eprintln!("reference/zipfile_infolist: skipped, BINFMT_PYTHON is not set");
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/taco/time_listing.py");
    let out = Command::new(python)
        .arg(script)
        .arg(path)
        .arg("20")
        .output();
    let Some(seconds) = out.ok().filter(|o| o.status.success()).and_then(|o| {
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        let (_, rest) = text.split_once("\"median_s\": ")?;
        rest.split([',', '}']).next()?.trim().parse::<f64>().ok()
    }) else {
        eprintln!("reference/zipfile_infolist: the reference script failed");
        return;
    };
    let mut ours: Vec<f64> = (0..20)
        .map(|_| {
            let start = Instant::now();
            black_box(list_in_memory(black_box(data)));
            start.elapsed().as_secs_f64()
        })
        .collect();
    ours.sort_by(f64::total_cmp);
    let ours = ours[ours.len() / 2];
    eprintln!(
        "reference/zipfile_infolist (70,001 members, median of 20): {:.2} ms; ours (archive_members): {:.3} ms; zipfile takes {:.0}x as long",
        seconds * 1e3,
        ours * 1e3,
        seconds / ours
    );
}

/// The `binfmt` binary to spawn: `BINFMT_BIN`, or the workspace's release build.
fn binfmt_binary() -> Option<PathBuf> {
    let path = std::env::var_os("BINFMT_BIN")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/binfmt"));
    path.is_file().then_some(path)
}

/// Runs `program args…` to completion, output discarded; panics unless it succeeds.
fn spawn(program: &Path, args: &[&std::ffi::OsStr]) {
    let status = Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("spawn");
    assert!(status.success(), "{} {args:?}: {status}", program.display());
}

fn cli_inspect_70000(c: &mut Criterion) {
    let Some(binfmt) = binfmt_binary() else {
        eprintln!(
            "taco_header/cli_inspect_70000: skipped, no binary (cargo build --release -p binfmt-cli, or set BINFMT_BIN)"
        );
        return;
    };
    let path = archive_70000();
    let file = path.as_os_str();
    let mut group = c.benchmark_group("taco_header/cli_inspect_70000");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Elements(70_001));
    group.bench_function("inspect_json", |b| {
        b.iter(|| spawn(&binfmt, &["inspect".as_ref(), "--json".as_ref(), file]));
    });
    group.bench_function("inspect_text", |b| {
        b.iter(|| spawn(&binfmt, &["inspect".as_ref(), file]));
    });
    group.bench_function("verify", |b| {
        b.iter(|| spawn(&binfmt, &["verify".as_ref(), file]));
    });
    match std::env::var_os("BINFMT_PYTHON").filter(|p| !p.is_empty()) {
        Some(python) => {
            let script =
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/taco/inspect_reference.py");
            group.bench_function("reference", |b| {
                b.iter(|| spawn(Path::new(&python), &[script.as_os_str(), file]));
            });
        }
        None => {
            eprintln!("taco_header/cli_inspect_70000/reference: skipped, BINFMT_PYTHON is not set")
        }
    }
    group.finish();
}

criterion_group!(
    benches,
    decode,
    update_in_memory,
    list_70000,
    cli_inspect_70000
);
criterion_main!(benches);
