//! .taridx benchmarks, against the targets of issue #5:
//!
//! | bench | target | glzn (reference document) |
//! |---|---|---|
//! | `open/1m_rows_*` | ≤ 100 µs, independent of the row count | 25–38 ms `load` |
//! | `first_lookup/1m_rows` (stem map build + one lookup) | ≤ 10 ms | ~10 ms per lookup |
//! | `lookup/1m_rows` (each further lookup, 4096 random stems) | ≤ 100 ns | ~10 ms per lookup |
//! | `lookup/1m_rows_same_stem` (one stem, all in cache), `lookup/1m_rows_absent` | – | – |
//! | `index/tar_100k_members` (page cache, mmap) | ≥ 1M members/s | 120–170k members/s |
//!
//! When `BINFMT_PYTHON` (or `/work/venv/bin/python`) is available, the run ends by timing
//! numpy/Python equivalents of glzn's load, `isin` lookup and scanner on the same files
//! (tools/taridx/bench_reference.py) and printing them, labelled, with our ratios.

use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use binfmt_test_support::tar;
use criterion::{BenchmarkId, Criterion, Throughput};
use taridx::{BuildOptions, Index, IndexFile, RowData, StemMap, Writer, keyhash};

const STEMS: u64 = 333_334;
const EXTS: [&str; 3] = ["cls", "jpg", "json"];
const TAR_SAMPLES: u64 = 33_334; // × 3 members ≈ 100k members

struct Fixture {
    dir: PathBuf,
    index_1m: PathBuf,
    index_10k: PathBuf,
    tar: PathBuf,
    tar_members: u64,
}

fn stem(i: u64) -> String {
    format!("sample{i:07}")
}

/// 333,334 stems × {cls, jpg, json} over 100 shards, like the reference document's index.
fn index_file(stems: u64) -> IndexFile {
    let mut rows = Vec::new();
    for i in 0..stems {
        let h = keyhash(&stem(i));
        let fid = u16::try_from(i * 100 / stems).unwrap();
        for (extid, size) in [(0u16, 1u64), (1, 2000), (2, 30)] {
            let offset = (i % 3334) * 4608 + u64::from(extid) * 1024;
            rows.push(RowData {
                fid,
                offset,
                size,
                extid,
                crashid: 0,
                keyhash: h,
            });
        }
    }
    let exts = EXTS.iter().map(|s| s.to_string()).collect();
    IndexFile::new(exts, vec![], rows).unwrap()
}

/// A USTAR shard of small members as glzn's writer makes them.
fn write_tar(path: &Path) -> u64 {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut members = 0;
    for i in 0..TAR_SAMPLES {
        for (ext, size) in [("cls", 1u64), ("jpg", 2000), ("json", 30)] {
            out.write_all(&tar::header(
                format!("{}.{ext}", stem(i)).as_bytes(),
                size,
                b'0',
            ))
            .unwrap();
            let padded = size.div_ceil(512) * 512;
            out.write_all(&vec![b'x'; usize::try_from(padded).unwrap()])
                .unwrap();
            members += 1;
        }
    }
    out.write_all(&[0u8; 1024]).unwrap();
    out.flush().unwrap();
    members
}

fn fixture() -> Fixture {
    let dir = std::env::temp_dir().join(format!("binfmt-bench-taridx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let index_1m = dir.join("big.taridx");
    index_file(STEMS).write_to_path(&index_1m).unwrap();
    let index_10k = dir.join("small.taridx");
    index_file(3_334).write_to_path(&index_10k).unwrap();
    let tar = dir.join("shard_0000.tar");
    let tar_members = write_tar(&tar);
    Fixture {
        dir,
        index_1m,
        index_10k,
        tar,
        tar_members,
    }
}

fn bench(c: &mut Criterion, f: &Fixture) {
    let big = std::fs::read(&f.index_1m).unwrap();
    let small = std::fs::read(&f.index_10k).unwrap();

    let mut g = c.benchmark_group("taridx/open");
    g.bench_function("1m_rows_slice", |b| {
        b.iter(|| Index::parse(black_box(&big)).unwrap().n_rows())
    });
    g.bench_function("10k_rows_slice", |b| {
        b.iter(|| Index::parse(black_box(&small)).unwrap().n_rows())
    });
    g.bench_function("1m_rows_mmap", |b| {
        b.iter(|| {
            let map = taridx::fs::map(black_box(&f.index_1m)).unwrap();
            Index::parse(&map).unwrap().n_rows()
        })
    });
    g.finish();

    let index = Index::parse(&big).unwrap();
    let mut g = c.benchmark_group("taridx/first_lookup");
    g.sample_size(20).measurement_time(Duration::from_secs(8));
    g.bench_function("1m_rows", |b| {
        b.iter(|| {
            let map = StemMap::build(black_box(&index)).unwrap();
            map.lookup(black_box("sample0123456"))
                .map(|e| e.size)
                .sum::<u64>()
        })
    });
    g.finish();

    let map = StemMap::build(&index).unwrap();
    // Random stems (a fixed LCG), so lookups miss the caches as real ones do.
    let queries: Vec<String> = (0..4096u64)
        .map(|i| stem(i.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1) % STEMS))
        .collect();
    let mut g = c.benchmark_group("taridx/lookup");
    g.bench_function("1m_rows", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) & 4095;
            map.lookup(black_box(&queries[i]))
                .map(|e| e.size)
                .sum::<u64>()
        })
    });
    // The same stem every time: the structure's own cost, with every line in cache.
    g.bench_function("1m_rows_same_stem", |b| {
        b.iter(|| {
            map.lookup(black_box("sample0123456"))
                .map(|e| e.size)
                .sum::<u64>()
        })
    });
    g.bench_function("1m_rows_absent", |b| {
        b.iter(|| map.lookup(black_box("not-a-sample")).len())
    });
    g.finish();

    let shard = taridx::fs::map(&f.tar).unwrap();
    let mut g = c.benchmark_group("taridx/index");
    g.throughput(Throughput::Elements(f.tar_members));
    g.sample_size(20).measurement_time(Duration::from_secs(10));
    for (name, options) in [
        ("strict", BuildOptions::strict()),
        ("glzn", BuildOptions::glzn()),
    ] {
        g.bench_with_input(
            BenchmarkId::new("tar_100k_members", name),
            &options,
            |b, &o| {
                b.iter(|| {
                    let mut builder = Writer::new(o);
                    builder.add("shard_0000.tar", black_box(&shard)).unwrap();
                    builder.finish().unwrap().index.rows().len()
                })
            },
        );
    }
    g.finish();
}

/// Times the Python/numpy equivalents of glzn on the same files and prints them.
fn reference(f: &Fixture) {
    let python = std::env::var_os("BINFMT_PYTHON")
        .map(PathBuf::from)
        .or_else(|| Some(PathBuf::from("/work/venv/bin/python")).filter(|p| p.exists()));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/taridx/bench_reference.py");
    let measured = python.and_then(|py| {
        let out = Command::new(py)
            .arg(&script)
            .arg(&f.index_1m)
            .arg(&f.tar)
            .arg(stem(123_456))
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    });
    println!("\n=== taridx reference figures ===");
    match measured {
        Some(json) => {
            println!("measured now, Python/numpy equivalents of glzn on the same files");
            println!(
                "(tools/taridx/bench_reference.py; compare with the criterion medians above):"
            );
            println!("  {}", json.trim());
        }
        None => println!("Python not available: no reference measured in this run"),
    }
    println!(
        "glzn itself (reference document, 2-vCPU EPYC, warm cache): load 25-38 ms for 1M rows,"
    );
    println!("  ~8.7-11 ms per isin lookup, indexing 122-166k members/s (parse_tar + finalize).");
}

fn main() {
    let f = fixture();
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, &f);
    c.final_summary();
    reference(&f);
    let _ = std::fs::remove_dir_all(&f.dir);
}
