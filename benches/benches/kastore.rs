//! kastore benchmarks (issue #3):
//!
//! * `kastore_parse`: `Store::parse` of in-memory stores of 10, 62 (a real `.trees` file)
//!   and 1000 items; reported per item. Target: 10 items in at most 1 µs. Also
//!   `ours_file_10_items` (read the 10-item store's file, parse, one array) against
//!   `reference_c_lazy_open_10_items` (the C library's lazy open of that file, the same
//!   array, close): the reference decodes headers only from a file.
//! * `kastore_lookup`: `Store::item(key)` (binary search), round robin over all keys.
//! * `kastore_50MB`: a 50.2 MB store of 7 arrays, generated here (not committed), warm in
//!   the page cache:
//!   - `ours_mmap_reach_all`: map + parse + a zero-copy `&[T]` of every array, against
//!     `reference_c_open_get_all_lazy` / `_read_all`: the reference C library's open plus
//!     `kastore_get` of every key, built from the kastore 0.3.6 sdist and called in this
//!     process (see `kastore/reference_c.rs`). Target: at least 100× faster.
//!   - `ours_mmap_checksum`: map + parse + a checksum over every array's bytes, against
//!     `plain_read`: `std::fs::read` of the file. Target: at most 1.5× the read.
//!   - `ours_read_reach_all`, `ours_read_checksum`: the same from `kastore::fs::read`.
//! * `kastore_one_column`: reading one 13.2 MB column (`nodes/time`) of the same file, as a
//!   remote reader would: `ours_reader_open` (`kastore::fs::open`: one 64 KiB positioned
//!   read, every rule checked), `ours_reader_get_one` (that, plus one read of the column
//!   into an owned `Vec<f64>`), `ours_mmap_get_one` (map + parse + borrowed slice, touched),
//!   against `reference_c_lazy_open_get_one` (the C library's lazy open plus `kastore_get`
//!   of that key).
//!
//! After criterion's own report, a summary prints the medians of this run and the three
//! target ratios. Run: `cargo bench -p binfmt-benches --bench kastore` (add `-- --quick`
//! while developing). Set `BINFMT_PYTHON` (or `KASTORE_REFERENCE_LIB`) to include the C
//! library; without it those benchmarks are skipped and the ratio says so.
#![deny(unsafe_code)]

use binfmt_benches::reference::kastore as reference_c;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use criterion::{Criterion, Throughput};
use kastore::{AnyArray, Store, Writer};

/// The directory criterion writes to, as criterion itself chooses it.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the bench knows its path");
    // target/<profile>/deps/<bench>
    exe.ancestors()
        .nth(3)
        .expect("inside a target directory")
        .to_path_buf()
}

fn criterion_dir() -> PathBuf {
    std::env::var_os("CRITERION_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("criterion"))
}

/// A store of `n` items like a tskit table column set: int32[16] each.
fn store_with(n: usize) -> Vec<u8> {
    let values: Vec<i32> = (0..16).collect();
    let mut b = Writer::new();
    for i in 0..n {
        b.add(format!("table{:04}/column", i), &values).unwrap();
    }
    b.to_vec().unwrap()
}

const TREES: &[u8] = include_bytes!("../../crates/kastore/tests/fixtures/valid/tree.trees");

fn parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("kastore_parse");
    for (name, bytes) in [
        ("10_items", store_with(10)),
        ("trees_62_items", TREES.to_vec()),
        ("1000_items", store_with(1000)),
    ] {
        let n = Store::parse(&bytes).unwrap().len();
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(name, |b| {
            b.iter(|| Store::parse(black_box(&bytes)).unwrap().len())
        });
    }
    // The reference C library has no in-memory entry point: its header decode is
    // `kastore_open` of a file (lazy: header, descriptors and keys), here with one
    // `kastore_get` and the close. `ours_file_10_items` does the same work from the same
    // file (read, parse, one array), for a like-for-like ratio.
    let path = target_dir()
        .join("kastore-bench")
        .join("store-10-items.kas");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, store_with(10)).unwrap();
    group.throughput(Throughput::Elements(10));
    group.bench_function("ours_file_10_items", |b| {
        b.iter(|| {
            let bytes = std::fs::read(black_box(&path)).unwrap();
            let store = Store::parse(&bytes).unwrap();
            store.item("table0000/column").unwrap().bytes().len()
        })
    });
    match reference_c::ReferenceC::load(&target_dir().join("kastore-reference")) {
        Ok(lib) => {
            let c_path = reference_c::c_path(&path);
            group.bench_function("reference_c_lazy_open_10_items", |b| {
                b.iter(|| lib.open_get_one(&c_path, false, b"table0000/column"))
            });
        }
        Err(why) => eprintln!("kastore_parse/reference_c_lazy_open_10_items: skipped: {why}"),
    }
    group.finish();
}

fn lookup(c: &mut Criterion) {
    let mut group = c.benchmark_group("kastore_lookup");
    group.throughput(Throughput::Elements(1));
    for (name, bytes) in [
        ("trees_62_items", TREES.to_vec()),
        ("1000_items", store_with(1000)),
    ] {
        let store = Store::parse(&bytes).unwrap();
        let keys: Vec<&[u8]> = store.keys().collect();
        let mut i = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                i = (i + 1) % keys.len();
                store.item(black_box(keys[i])).unwrap().index()
            })
        });
    }
    let bytes = kastore::AlignedBytes::copy_from(TREES);
    let store = Store::parse(&bytes).unwrap();
    group.bench_function("trees_get_f64_nodes_time", |b| {
        b.iter(|| store.get::<f64>(black_box("nodes/time")).unwrap().len())
    });
    group.finish();
}

/// The 50.2 MB store: 7 arrays of the kinds a large tree sequence holds.
fn big_store(path: &Path) -> u64 {
    let n = 1_250_000usize;
    let child: Vec<i32> = (0..n as i32)
        .map(|i| i.wrapping_mul(7919) % 1_000_003)
        .collect();
    let parent: Vec<i32> = (0..n as i32).map(|i| i / 2 + 1_000_000).collect();
    let left: Vec<f64> = (0..n).map(|i| i as f64 * 0.5).collect();
    let right: Vec<f64> = (0..n).map(|i| i as f64 * 0.5 + 0.5).collect();
    let states: Vec<u8> = (0..3_000_000u32)
        .map(|i| b"ACGT"[(i % 4) as usize])
        .collect();
    let flags: Vec<u32> = (0..1_000_000u32).map(|i| u32::from(i < 1000)).collect();
    let time: Vec<f64> = (0..1_650_000).map(|i| f64::from(i) / 3.0).collect();
    let mut b = Writer::new();
    b.add("edges/child", &child).unwrap();
    b.add("edges/parent", &parent).unwrap();
    b.add("edges/left", &left).unwrap();
    b.add("edges/right", &right).unwrap();
    b.add("mutations/derived_state", &states).unwrap();
    b.add("nodes/flags", &flags).unwrap();
    b.add("nodes/time", &time).unwrap();
    b.write_to_path(path).unwrap()
}

/// A typed slice of every array, borrowed: panics if any array would have to be copied.
fn reach_all(store: &Store<'_>) -> usize {
    fn slice<T: kastore::Element>(a: kastore::Array<'_, T>) -> usize {
        a.as_slice().expect("zero-copy").len()
    }
    store
        .items()
        .map(|item| match item.values() {
            AnyArray::Int8(a) => slice(a),
            AnyArray::UInt8(a) => slice(a),
            AnyArray::Int16(a) => slice(a),
            AnyArray::UInt16(a) => slice(a),
            AnyArray::Int32(a) => slice(a),
            AnyArray::UInt32(a) => slice(a),
            AnyArray::Int64(a) => slice(a),
            AnyArray::UInt64(a) => slice(a),
            AnyArray::Float32(a) => slice(a),
            AnyArray::Float64(a) => slice(a),
        })
        .sum()
}

/// A wrapping sum of the bytes as little-endian 64-bit words (a trailing partial word
/// byte by byte): every byte is read once. Four lanes let the compiler vectorize.
fn checksum(bytes: &[u8]) -> u64 {
    let word = |w: &[u8]| u64::from_le_bytes(w.try_into().unwrap());
    let mut lanes = [0u64; 4];
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        for (lane, w) in lanes.iter_mut().zip(block.chunks_exact(8)) {
            *lane = lane.wrapping_add(word(w));
        }
    }
    let mut sum = lanes.iter().fold(0u64, |a, &l| a.wrapping_add(l));
    let mut words = blocks.remainder().chunks_exact(8);
    for w in &mut words {
        sum = sum.wrapping_add(word(w));
    }
    for &b in words.remainder() {
        sum = sum.wrapping_add(u64::from(b));
    }
    sum
}

fn checksum_store(store: &Store<'_>) -> u64 {
    store
        .items()
        .fold(0u64, |acc, item| acc.wrapping_add(checksum(item.bytes())))
}

fn fifty_megabytes(c: &mut Criterion) {
    let dir = target_dir().join("kastore-bench");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("store-50mb.kas");
    let size = big_store(&path);
    let reference = reference_c::ReferenceC::load(&target_dir().join("kastore-reference"));
    match &reference {
        Ok(lib) => eprintln!(
            "kastore_50MB: reference C library {} loaded from {}",
            lib.version,
            lib.path.display()
        ),
        Err(why) => eprintln!("kastore_50MB: reference C library skipped: {why}"),
    }
    let c_path = reference_c::c_path(&path);

    let mut group = c.benchmark_group("kastore_50MB");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(8));
    group.throughput(Throughput::Bytes(size));
    group.bench_function("ours_mmap_reach_all", |b| {
        b.iter(|| {
            let map = kastore::fs::map(&path).unwrap();
            let store = Store::parse(&map).unwrap();
            reach_all(&store)
        })
    });
    group.bench_function("ours_read_reach_all", |b| {
        b.iter(|| {
            let bytes = kastore::fs::read(&path).unwrap();
            let store = Store::parse(&bytes).unwrap();
            reach_all(&store)
        })
    });
    if let Ok(lib) = &reference {
        group.bench_function("reference_c_open_get_all_lazy", |b| {
            b.iter(|| lib.open_get_all(&c_path, false))
        });
        group.bench_function("reference_c_open_get_all_read_all", |b| {
            b.iter(|| lib.open_get_all(&c_path, true))
        });
    }
    group.bench_function("plain_read", |b| {
        b.iter(|| std::fs::read(&path).unwrap().len())
    });
    group.bench_function("ours_mmap_checksum", |b| {
        b.iter(|| {
            let map = kastore::fs::map(&path).unwrap();
            checksum_store(&Store::parse(&map).unwrap())
        })
    });
    group.bench_function("ours_read_checksum", |b| {
        b.iter(|| {
            let bytes = kastore::fs::read(&path).unwrap();
            checksum_store(&Store::parse(&bytes).unwrap())
        })
    });
    group.finish();
}

/// One column of the 50 MB store, by ranges and otherwise.
fn one_column(c: &mut Criterion) {
    let path = target_dir().join("kastore-bench").join("store-50mb.kas");
    let reference = reference_c::ReferenceC::load(&target_dir().join("kastore-reference")).ok();
    let c_path = reference_c::c_path(&path);
    let mut group = c.benchmark_group("kastore_one_column");
    group.sample_size(30);
    group.bench_function("ours_reader_open", |b| {
        b.iter(|| kastore::fs::open(&path).unwrap().len())
    });
    group.bench_function("ours_reader_get_one", |b| {
        b.iter(|| {
            let reader = kastore::fs::open(&path).unwrap();
            let time = reader.get::<f64>("nodes/time").unwrap();
            time[time.len() - 1].to_bits()
        })
    });
    group.bench_function("ours_mmap_get_one", |b| {
        b.iter(|| {
            let map = kastore::fs::map(&path).unwrap();
            let store = Store::parse(&map).unwrap();
            checksum(store.item("nodes/time").unwrap().bytes())
        })
    });
    if let Some(lib) = &reference {
        group.bench_function("reference_c_lazy_open_get_one", |b| {
            b.iter(|| lib.open_get_one(&c_path, false, b"nodes/time"))
        });
    }
    group.finish();
}

/// The median criterion measured in this run, in nanoseconds.
fn median(group: &str, bench: &str, since: SystemTime) -> Option<f64> {
    let file = criterion_dir()
        .join(group)
        .join(bench)
        .join("new/estimates.json");
    let fresh = std::fs::metadata(&file).ok()?.modified().ok()? >= since;
    if !fresh {
        return None;
    }
    let text = std::fs::read_to_string(file).ok()?;
    let key = "\"median\":{\"confidence_interval\":";
    let at = text.find(key)?;
    let rest = &text[at..];
    let point = rest.find("\"point_estimate\":")? + "\"point_estimate\":".len();
    let end = rest[point..].find(',')?;
    rest[point..point + end].parse().ok()
}

fn show(ns: f64) -> String {
    match ns {
        n if n >= 1e6 => format!("{:.2} ms", n / 1e6),
        n if n >= 1e3 => format!("{:.2} µs", n / 1e3),
        n => format!("{n:.1} ns"),
    }
}

fn summary(since: SystemTime) {
    let m = |g: &str, b: &str| median(g, b, since);
    println!(
        "\nkastore summary (criterion medians of this run; reference = the C library built from kastore 0.3.6):"
    );
    for (g, b) in [
        ("kastore_parse", "10_items"),
        ("kastore_parse", "trees_62_items"),
        ("kastore_parse", "1000_items"),
        ("kastore_lookup", "trees_62_items"),
        ("kastore_lookup", "1000_items"),
        ("kastore_lookup", "trees_get_f64_nodes_time"),
        ("kastore_50MB", "ours_mmap_reach_all"),
        ("kastore_50MB", "ours_read_reach_all"),
        ("kastore_50MB", "reference_c_open_get_all_lazy"),
        ("kastore_50MB", "reference_c_open_get_all_read_all"),
        ("kastore_50MB", "plain_read"),
        ("kastore_50MB", "ours_mmap_checksum"),
        ("kastore_50MB", "ours_read_checksum"),
        ("kastore_one_column", "ours_reader_open"),
        ("kastore_one_column", "ours_reader_get_one"),
        ("kastore_one_column", "ours_mmap_get_one"),
        ("kastore_one_column", "reference_c_lazy_open_get_one"),
    ] {
        if let Some(ns) = m(g, b) {
            println!("  {g}/{b:<36} {:>12}", show(ns));
        }
    }
    println!("targets:");
    match m("kastore_parse", "10_items") {
        Some(ns) => println!("  parse of 10 items: {} (target ≤ 1 µs)", show(ns)),
        None => println!("  parse of 10 items: not measured in this run"),
    }
    match (
        m("kastore_50MB", "reference_c_open_get_all_lazy"),
        m("kastore_50MB", "reference_c_open_get_all_read_all"),
        m("kastore_50MB", "ours_mmap_reach_all"),
    ) {
        (Some(lazy), read_all, Some(ours)) => {
            let best = read_all.map_or(lazy, |r| r.min(lazy));
            println!(
                "  reaching every array: reference C (faster of lazy/READ_ALL) {} vs ours {}: {:.0}× (target ≥ 100×)",
                show(best),
                show(ours),
                best / ours
            );
        }
        _ => println!("  reaching every array: reference C not measured in this run"),
    }
    // Two measurements and their ratio: (what, (group, bench)) of each, what follows the
    // ratio, and what to say when either is missing.
    for ((what_a, a), (what_b, b), after, missing) in [
        (
            (
                "checksum over every array (mmap)",
                ("kastore_50MB", "ours_mmap_checksum"),
            ),
            ("plain read()", ("kastore_50MB", "plain_read")),
            " (target ≤ 1.5×)",
            "checksum vs read(): not measured in this run",
        ),
        (
            (
                "one 13.2 MB column by ranges: reference C lazy open + get",
                ("kastore_one_column", "reference_c_lazy_open_get_one"),
            ),
            ("our Reader", ("kastore_one_column", "ours_reader_get_one")),
            "",
            "one column: reference C not measured in this run",
        ),
    ] {
        match (m(a.0, a.1), m(b.0, b.1)) {
            (Some(x), Some(y)) => println!(
                "  {what_a} {} vs {what_b} {}: {:.2}×{after}",
                show(x),
                show(y),
                x / y
            ),
            _ => println!("  {missing}"),
        }
    }
}

fn main() {
    let since = SystemTime::now();
    let mut c = Criterion::default()
        .output_directory(&criterion_dir())
        .configure_from_args();
    parse(&mut c);
    lookup(&mut c);
    fifty_megabytes(&mut c);
    one_column(&mut c);
    c.final_summary();
    summary(since);
}
