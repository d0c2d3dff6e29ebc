//! bloscpack-header benchmarks (issue #4 targets):
//!
//! * `bloscpack/header_decode`: `Header::parse` of 1,024 varied 32-byte headers (target:
//!   at most 2 ns a header);
//! * `bloscpack/verify/<checksum>`: `Bloscpack::verify` of a 16 MiB file in memory, for
//!   each digest kind (target: at least 5 GB/s for crc32 and adler32);
//! * `bloscpack/unpack`: unpacking 64 MiB of float64 sensor samples (1 MiB chunks,
//!   blosclz level 7, byte shuffle, adler32: the bloscpack defaults), one c-blosc thread:
//!   `to_vec` (into memory), `file_to_file` (map the file, write the data: what
//!   `blpk decompress` does) and `file_to_file_atomic` (`unpack_to_path`: temporary file,
//!   fsync, rename; what `binfmt bloscpack unpack` does);
//! * `bloscpack/unpack_42MB`: the 42 MB file, file to file (`unpack_to_path`:
//!   parallel decompression on every core, output written while the next chunks
//!   decompress, atomic replace), and on one thread; the reference, bloscpack 0.16.0's
//!   `unpack_file_from_file` in-process, is timed in the same run (needs `BINFMT_PYTHON`);
//! * `reference/blpk_decompress`: the reference CLI, bloscpack 0.16.0's `blpk -n 1
//!   decompress`, on the same file, run as a subprocess (so it includes Python's start-up
//!   and imports, about 0.2 s), plus `reference/unpack_file_from_file`, the reference
//!   timed in-process by tools/bloscpack/time_unpack.py (no start-up; median of the runs).
//!   Both need `BINFMT_PYTHON` (a Python with tools/requirements.txt); without it they are
//!   skipped and the rest still runs.
//! * `bloscpack/cli_unpack_42MB`: the command end to end, `binfmt bloscpack unpack -f`
//!   of the 42 MB file, run as a process (the release binary: build it first
//!   with `cargo build --release -p binfmt-cli`, or name it in `BINFMT_BIN`; skipped when
//!   it is missing), against `reference/cli_unpack_42MB`: bloscpack 0.16.0's
//!   `unpack_file_from_file` timed in-process by tools/bloscpack/time_unpack.py (one
//!   c-blosc thread, no interpreter start-up), in the same run; the ratio is printed.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use bloscpack_header::{
    BloscArgs, Bloscpack, Checksum, Header, HeaderFields, Options, PackOptions, UnpackOptions,
};
use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};

/// 1,024 valid headers with varied fields, back to back.
fn headers() -> Vec<u8> {
    let mut out = Vec::with_capacity(1024 * 32);
    for i in 0..1024u64 {
        let nchunks = 1 + i % 97;
        let header = Header::new(HeaderFields {
            options: if i % 3 == 0 {
                Options::NONE
            } else {
                Options::OFFSETS
            },
            checksum: Checksum::ALL[(i % 9) as usize],
            typesize: (1 + i % 16) as u8,
            chunk_size: Some(1 << 20),
            last_chunk: Some(1 + (i as u32 * 7919) % (1 << 20)),
            nchunks: Some(nchunks),
            max_app_chunks: if i % 3 == 0 { 0 } else { 10 * nchunks },
        })
        .unwrap();
        out.extend_from_slice(&header.to_bytes());
    }
    out
}

fn header_decode(c: &mut Criterion) {
    let data = headers();
    let mut group = c.benchmark_group("bloscpack");
    group.throughput(Throughput::Elements(1024));
    group.bench_function("header_decode", |b| {
        b.iter(|| {
            let mut n = 0u64;
            for h in black_box(&data[..]).chunks_exact(32) {
                if let Ok(h) = Header::parse(h) {
                    n = n.wrapping_add(u64::from(h.typesize()));
                }
            }
            n
        });
    });
    group.finish();
}

/// 16 MiB of incompressible bytes, stored (clevel 0) in 1 MiB chunks.
fn verify_file(checksum: Checksum) -> Vec<u8> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let data: Vec<u8> = (0..16 << 20)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    PackOptions {
        checksum,
        blosc: BloscArgs {
            clevel: 0,
            ..BloscArgs::default()
        },
        ..PackOptions::default()
    }
    .to_vec(&data)
    .unwrap()
}

fn verify(c: &mut Criterion) {
    let mut group = c.benchmark_group("bloscpack/verify");
    group.sample_size(20);
    for checksum in Checksum::ALL {
        let file = verify_file(checksum);
        group.throughput(Throughput::Bytes(file.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(checksum), &file, |b, file| {
            b.iter(|| {
                Bloscpack::parse(black_box(file))
                    .unwrap()
                    .verify_digests()
                    .unwrap()
            });
        });
    }
    group.finish();
}

/// `n` float64 samples (little-endian) of a 12-bit sensor: a slow sine plus up to ±2
/// counts of noise, the same every run.
fn sensor(n: usize) -> Vec<u8> {
    let mut state = 12345u64;
    let mut data = Vec::with_capacity(n * 8);
    for i in 0..n {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        let noise = ((state >> 61) as f64) - 3.5;
        let counts = ((i as f64 * 1e-4).sin() * 2047.0 + noise).round();
        data.extend_from_slice(&(counts / 2048.0).to_le_bytes());
    }
    data
}

/// 64 MiB of float64 samples of a 12-bit sensor (a slow sine plus up to ±2 counts of
/// noise), packed with bloscpack's defaults: data of the kind Blosc is made for (it
/// compresses 6.6:1 here).
fn unpack_input(dir: &Path) -> (PathBuf, u64) {
    let path = dir.join("sensor-64MiB-v1.blp");
    let n = 8 << 20;
    let data = sensor(n);
    if !path.exists() {
        PackOptions::default().write_to_path(&data, &path).unwrap();
    }
    (path, data.len() as u64)
}

fn python() -> Option<PathBuf> {
    std::env::var_os("BINFMT_PYTHON")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
}

fn tools() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/bloscpack")
}

/// A group unpacking `len` bytes: ten samples, in about `seconds` seconds.
fn unpack_group<'c>(
    c: &'c mut Criterion,
    name: &str,
    seconds: u64,
    len: u64,
) -> BenchmarkGroup<'c, WallTime> {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(seconds));
    group.throughput(Throughput::Bytes(len));
    group
}

fn unpack(c: &mut Criterion) {
    let dir = std::env::temp_dir().join("binfmt-bench-bloscpack");
    std::fs::create_dir_all(&dir).unwrap();
    let (path, len) = unpack_input(&dir);
    let packed = std::fs::read(&path).unwrap();
    let out = dir.join("ours.out");
    let mut group = unpack_group(c, "bloscpack/unpack", 10, len);
    group.bench_function("to_vec", |b| {
        let file = Bloscpack::parse(&packed).unwrap();
        b.iter(|| file.unpack_to_vec(&UnpackOptions::DEFAULT).unwrap());
    });
    // What `blpk decompress` does: read the file, write the data (no fsync). The input is
    // memory-mapped, as `binfmt` does.
    group.bench_function("file_to_file", |b| {
        b.iter(|| {
            let data = bloscpack_header::fs::map(&path).unwrap();
            let file = Bloscpack::parse(&data).unwrap();
            let sink = std::io::BufWriter::new(std::fs::File::create(&out).unwrap());
            file.unpack_to_writer(sink, &UnpackOptions::DEFAULT)
                .unwrap()
        });
    });
    // `unpack_to_path` (and `binfmt bloscpack unpack`): a temporary file, fsync, rename.
    group.bench_function("file_to_file_atomic", |b| {
        b.iter(|| {
            let data = bloscpack_header::fs::map(&path).unwrap();
            let file = Bloscpack::parse(&data).unwrap();
            file.unpack_to_path(&out, &UnpackOptions::DEFAULT).unwrap()
        });
    });
    group.finish();

    let Some(py) = python() else {
        eprintln!("reference/blpk_decompress: skipped, BINFMT_PYTHON is not set");
        return;
    };
    let theirs = dir.join("reference.out");
    let mut group = unpack_group(c, "reference", 20, len);
    group.bench_function("blpk_decompress", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                let _ = std::fs::remove_file(&theirs);
                let status = Command::new(&py)
                    .arg(tools().join("blpk.py"))
                    .args(["-n", "1", "decompress"])
                    .arg(&path)
                    .arg(&theirs)
                    .status()
                    .unwrap();
                assert!(status.success());
            }
            start.elapsed()
        });
    });
    group.finish();
    assert_same_output(&theirs, &out);

    // The reference in-process (no interpreter start-up), median of 5 runs.
    let output = Command::new(&py)
        .arg(tools().join("time_unpack.py"))
        .arg(&path)
        .arg(&theirs)
        .arg("5")
        .output()
        .unwrap();
    let secs: f64 = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .unwrap_or(f64::NAN);
    eprintln!(
        "reference/unpack_file_from_file (bloscpack 0.16.0 in-process, 1 thread, median of 5): {:.1} ms, {:.2} GB/s",
        secs * 1e3,
        len as f64 / secs / 1e9
    );
}

/// The file: 42 MB of float64 samples (5.25 M values of the same sensor) packed
/// with bloscpack's defaults; file to file, ours (the library path `binfmt bloscpack
/// unpack` takes: map, parse, parallel decompression, atomic write) against bloscpack
/// 0.16.0 in-process (tools/bloscpack/time_unpack.py, one c-blosc thread, median of 10),
/// in the same run.
fn unpack_42mb(c: &mut Criterion) {
    let dir = std::env::temp_dir().join("binfmt-bench-bloscpack");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sensor-42MB-v1.blp");
    let n = 42_000_000 / 8;
    let data = sensor(n);
    if !path.exists() {
        PackOptions::default().write_to_path(&data, &path).unwrap();
    }
    let out = dir.join("ours-42.out");
    let mut group = c.benchmark_group("bloscpack/unpack_42MB");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(data.len() as u64));
    for (name, threads) in [("file_to_file", 0), ("file_to_file_1_thread", 1)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let map = bloscpack_header::fs::map(&path).unwrap();
                let file = Bloscpack::parse(&map).unwrap();
                file.unpack_to_path(&out, &UnpackOptions::DEFAULT.threads(threads))
                    .unwrap()
            });
        });
    }
    group.finish();
    if let Ok(ours) = std::fs::read(&out) {
        assert_eq!(ours, data);
    }
    let theirs = dir.join("reference-42.out");
    let Some(secs) = reference_unpack("unpack_42MB", &path, &theirs, 10) else {
        return;
    };
    eprintln!(
        "reference/unpack_42MB (bloscpack 0.16.0 unpack_file_from_file in-process, 1 thread, median of 10): {:.1} ms",
        secs * 1e3
    );
    assert_eq!(std::fs::read(&theirs).unwrap(), data);
}

/// The release `binfmt`, when it has been built (or `BINFMT_BIN`).
fn binfmt_binary() -> Option<PathBuf> {
    let path = std::env::var_os("BINFMT_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/binfmt"));
    path.exists().then_some(path)
}

/// The 42 MB file of [`unpack_42mb`] and the data it holds.
fn input_42mb(dir: &Path) -> (PathBuf, u64) {
    let path = dir.join("sensor-42MB-v1.blp");
    let n = 42_000_000 / 8;
    if !path.exists() {
        let data = sensor(n);
        PackOptions::default().write_to_path(&data, &path).unwrap();
    }
    (path, (n * 8) as u64)
}

/// `binfmt bloscpack unpack` of the 42 MB file as a process, the reference in-process in
/// the same run; prints both medians and the ratio.
fn cli_unpack_42mb(c: &mut Criterion) {
    let Some(binfmt) = binfmt_binary() else {
        eprintln!(
            "bloscpack/cli_unpack_42MB: skipped, build target/release/binfmt or set BINFMT_BIN"
        );
        return;
    };
    let dir = std::env::temp_dir().join("binfmt-bench-bloscpack");
    std::fs::create_dir_all(&dir).unwrap();
    let (path, len) = input_42mb(&dir);
    let out = dir.join("cli-42.out");
    let mut group = c.benchmark_group("bloscpack/cli_unpack_42MB");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(len));
    let mut times = Vec::new();
    group.bench_function("binfmt", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                let status = Command::new(&binfmt)
                    .args(["bloscpack", "unpack", "-f"])
                    .arg(&path)
                    .arg(&out)
                    .stderr(std::process::Stdio::null())
                    .status()
                    .unwrap();
                let took = start.elapsed();
                assert!(status.success());
                times.push(took);
                total += took;
            }
            total
        });
    });
    group.finish();
    if times.is_empty() {
        return; // filtered out
    }
    assert_eq!(std::fs::metadata(&out).unwrap().len(), len);
    times.sort();
    let ours = times[times.len() / 2].as_secs_f64();
    eprintln!(
        "bloscpack/cli_unpack_42MB/binfmt: median {:.1} ms over {} runs",
        ours * 1e3,
        times.len()
    );
    let theirs = dir.join("reference-42.out");
    let Some(secs) = reference_unpack("cli_unpack_42MB", &path, &theirs, 20) else {
        return;
    };
    eprintln!(
        "reference/cli_unpack_42MB (bloscpack 0.16.0 unpack_file_from_file in-process, 1 thread, median of 20): {:.1} ms; binfmt / reference = {:.2}",
        secs * 1e3,
        ours / secs
    );
    assert_same_output(&theirs, &out);
}

/// Asserts that the reference and we wrote the same bytes, when both files exist: under a
/// filter (`cargo bench -- bloscpack/header_decode`, tools/bench_summary.py --headers) the
/// benches that write them may not have run.
fn assert_same_output(theirs: &Path, ours: &Path) {
    if let (Ok(a), Ok(b)) = (std::fs::read(theirs), std::fs::read(ours)) {
        assert!(a == b, "{} and {} differ", theirs.display(), ours.display());
    }
}

/// bloscpack 0.16.0's `unpack_file_from_file` of `path` into `out`, timed in-process by
/// `tools/bloscpack/time_unpack.py` (median of `runs`, seconds); `None`, said, without
/// `BINFMT_PYTHON`.
fn reference_unpack(bench: &str, path: &Path, out: &Path, runs: u32) -> Option<f64> {
    let Some(py) = python() else {
        eprintln!("reference/{bench}: skipped, BINFMT_PYTHON is not set");
        return None;
    };
    let output = Command::new(&py)
        .arg(tools().join("time_unpack.py"))
        .arg(path)
        .arg(out)
        .arg(runs.to_string())
        .output()
        .unwrap();
    Some(
        String::from_utf8_lossy(&output.stdout)
            .trim()
            .parse()
            .unwrap_or(f64::NAN),
    )
}

criterion_group!(
    benches,
    // First: the others assume their own groups ran (a filter on this one skips them).
    cli_unpack_42mb,
    header_decode,
    verify,
    unpack,
    unpack_42mb
);
criterion_main!(benches);
