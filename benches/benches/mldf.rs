//! MLDF benchmarks (issue #6 targets):
//!
//! * `mldf/open`: header decode, and header + descriptors + section checks;
//! * `mldf/random_access`: one field of a random sample of a 1,000,000-sample file, from a
//!   warm memory map (target ≤ 100 ns);
//! * `mldf/reader`: the same file through the ranged reader over positioned reads (open,
//!   and one field of a random sample: the slot, then the payload);
//! * `mldf/diff`: comparing a file with itself: 100,000 samples with their own payloads,
//!   and a 3 MB file whose 100,000 slots share one 1.4 MB payload (read once per side);
//! * `mldf/write`: streaming 100 KB image-like blobs to a file in the page cache, no fsync
//!   (target ≥ 1 GB/s), with and without CRC-32s.
//!
//! There is no reference implementation to time in the same run: MLDF is defined by its
//! decision record, and the Python implementation in tools/mldf is a checker, not a
//! performance baseline.

use std::hint::black_box;
use std::io::{BufWriter, Cursor};
use std::ops::ControlFlow;
use std::path::PathBuf;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mldf::diff::{DiffOptions, diff};
use mldf::{
    Dataset, Dtype, FieldType, Header, NdarraySpec, ReadOptions, Schema, Text, Value, Writer,
    WriterOptions,
};

const SAMPLES: u64 = 1_000_000;

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mldf-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A schema of `fields` fields of assorted types.
fn wide_schema(fields: usize) -> Schema {
    let types = [
        FieldType::Int,
        FieldType::TextRaw,
        FieldType::ImageJpeg { quality: 90 },
        FieldType::Ndarray(NdarraySpec::new(Dtype::F32, &[16, 16]).unwrap()),
    ];
    (0..fields).fold(Schema::new(), |s, i| {
        s.field(format!("field_{i}"), types[i % types.len()])
    })
}

fn open(c: &mut Criterion) {
    let mut group = c.benchmark_group("mldf/open");
    for fields in [2usize, 64] {
        let schema = wide_schema(fields);
        let bytes = Writer::new(
            Cursor::new(Vec::new()),
            &schema,
            WriterOptions::new().page_size(4096),
        )
        .unwrap()
        .finish()
        .unwrap()
        .into_inner();
        if fields == 2 {
            group.bench_function("header", |b| {
                b.iter(|| Header::parse(black_box(&bytes)).unwrap())
            });
        }
        let options = ReadOptions::new().checksums(false);
        group.throughput(Throughput::Elements(fields as u64));
        group.bench_with_input(
            BenchmarkId::new("header+descriptors", format!("{fields} fields")),
            &bytes,
            |b, bytes| b.iter(|| Dataset::parse_with(black_box(bytes), &options).unwrap()),
        );
    }
    group.finish();
}

fn random_access(c: &mut Criterion) {
    let dir = scratch();
    let path = dir.join("million.mldf");
    let schema = Schema::new()
        .field("label", FieldType::Int)
        .field("caption", FieldType::TextRaw)
        .field(
            "embedding",
            FieldType::Ndarray(NdarraySpec::new(Dtype::F32, &[4]).unwrap()),
        );
    let mut w = Writer::create(&path, &schema, WriterOptions::new().num_samples(SAMPLES)).unwrap();
    let emb = [0u8; 16];
    for i in 0..SAMPLES {
        let caption = format!("sample number {i}");
        w.add(&[
            Value::Int(i as i64),
            Value::Text(Text::Utf8(&caption)),
            Value::Ndarray(&emb),
        ])
        .unwrap();
    }
    w.finish().unwrap();
    let map = mldf::fs::map(&path).unwrap();
    let ds = Dataset::parse(&map).unwrap();
    // Warm the map: touch every page once.
    let mut sum = 0u64;
    for page in map.chunks(4096) {
        sum = sum.wrapping_add(u64::from(page[0]));
    }
    black_box(sum);
    // A fixed pseudo-random sequence of sample indexes (xorshift).
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let indexes: Vec<u64> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % SAMPLES
        })
        .collect();
    let mut group = c.benchmark_group("mldf/random_access");
    group.throughput(Throughput::Elements(1));
    for (name, field) in [("int", 0usize), ("text", 1), ("ndarray", 2)] {
        let mut k = 0usize;
        group.bench_function(format!("1M samples/{name}"), |b| {
            b.iter(|| {
                k = (k + 1) & 4095;
                // By reference: a by-value black_box would add a copy of the value that
                // no caller makes.
                black_box(&ds.value(black_box(indexes[k]), black_box(field)));
            })
        });
    }
    // The harness alone (next index, black_box), to subtract from the figures above.
    let mut k = 0usize;
    group.bench_function("baseline (index only)", |b| {
        b.iter(|| {
            k = (k + 1) & 4095;
            black_box(indexes[k])
        })
    });
    // The same accesses confined to 1024 samples whose rows and payloads stay in the CPU
    // cache: the decoding cost without the memory latency of a random row and payload.
    for (name, field) in [("int", 0usize), ("text", 1), ("ndarray", 2)] {
        let mut k = 0usize;
        group.bench_function(format!("cache-resident/{name}"), |b| {
            b.iter(|| {
                k = (k + 1) & 4095;
                ds.value(black_box(indexes[k] & 1023), black_box(field))
                    .unwrap()
            })
        });
    }
    group.finish();

    // The same file by ranges, through positioned reads of the file (page cache warm).
    let mut group = c.benchmark_group("mldf/reader");
    let options = ReadOptions::new().checksums(false);
    group.bench_function("open (1 request)", |b| {
        b.iter(|| mldf::fs::open_with(&path, &options).unwrap())
    });
    let reader = mldf::fs::open_with(&path, &options).unwrap();
    for (name, field) in [("int (1 request)", 0usize), ("text (2 requests)", 1)] {
        let mut k = 0usize;
        group.bench_function(format!("1M samples/{name}"), |b| {
            b.iter(|| {
                k = (k + 1) & 4095;
                black_box(
                    &reader
                        .value(black_box(indexes[k]), black_box(field))
                        .unwrap(),
                );
            })
        });
    }
    group.finish();
    drop(reader);
    drop(ds);
    drop(map);
    let _ = std::fs::remove_dir_all(dir);
}

/// 100,000 samples of one TEXT_RAW field: each with its own 16-byte caption, or all
/// pointing at one 1.4 MB payload (the slots of a written file patched by hand).
fn diff_files() -> (Vec<u8>, Vec<u8>) {
    const N: usize = 100_000;
    let schema = Schema::new().field("t", FieldType::TextRaw);
    let options = WriterOptions::new().page_size(4096).num_samples(N as u64);
    let captions: Vec<String> = (0..N).map(|i| format!("caption {i:08}")).collect();
    let mut w = Writer::new(Cursor::new(Vec::new()), &schema, options).unwrap();
    for c in &captions {
        w.add(&[Value::Text(Text::Utf8(c))]).unwrap();
    }
    let own = w.finish().unwrap().into_inner();
    let big = "x".repeat(1_400_000);
    let mut w = Writer::new(Cursor::new(Vec::new()), &schema, options).unwrap();
    w.add(&[Value::Text(Text::Utf8(&big))]).unwrap();
    for _ in 1..N {
        w.add(&[Value::Text(Text::Utf8(""))]).unwrap();
    }
    let mut shared = w.finish().unwrap().into_inner();
    let meta = Dataset::parse(&shared).unwrap().header().metadata_ptr() as usize;
    let first: [u8; 16] = shared[meta..meta + 16].try_into().unwrap();
    for i in 1..N {
        shared[meta + 16 * i..meta + 16 * (i + 1)].copy_from_slice(&first);
    }
    (own, shared)
}

fn compare(c: &mut Criterion) {
    let (own, shared) = diff_files();
    let mut group = c.benchmark_group("mldf/diff");
    group.sample_size(20);
    for (name, file) in [
        ("100k samples, own payloads", &own),
        ("100k samples, one shared 1.4 MB payload", &shared),
    ] {
        let ds = Dataset::parse(file).unwrap();
        group.throughput(Throughput::Bytes(2 * file.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let summary = diff(&ds, &ds, &DiffOptions::new(), &mut |_| {
                    ControlFlow::Continue(())
                })
                .unwrap();
                assert!(summary.is_same());
                summary.values_compared()
            })
        });
    }
    group.finish();
}

fn write(c: &mut Criterion) {
    const BLOB: usize = 100 * 1024;
    const BLOBS: usize = 200;
    let dir = scratch();
    let schema = Schema::new()
        .field("label", FieldType::Int)
        .field("image", FieldType::Bytes);
    let blob: Vec<u8> = (0..BLOB).map(|i| (i * 31 % 251) as u8).collect();
    let mut group = c.benchmark_group("mldf/write");
    group.throughput(Throughput::Bytes((BLOB * BLOBS) as u64));
    group.sample_size(20);
    for checksums in [false, true] {
        let path = dir.join(format!("write-{checksums}.mldf"));
        let name = if checksums {
            "100KB blobs, CRC-32"
        } else {
            "100KB blobs"
        };
        group.bench_function(name, |b| {
            // Removing the previous file (freeing its pages) is setup, not timed.
            b.iter_batched(
                || {
                    let _ = std::fs::remove_file(&path);
                },
                |()| {
                    let file = std::fs::File::create(&path).unwrap();
                    let options = WriterOptions::new().checksums(checksums);
                    let mut w =
                        Writer::new(BufWriter::with_capacity(64 * 1024, file), &schema, options)
                            .unwrap();
                    for i in 0..BLOBS {
                        w.add(&[Value::Int(i as i64), Value::Bytes(&blob)]).unwrap();
                    }
                    w.finish().unwrap()
                },
                BatchSize::PerIteration,
            )
        });
    }
    // What this machine's page cache takes: the same bytes in the same 100 KB writes to a
    // fresh file, with no format at all. The writer's figures are bounded by this.
    let raw = dir.join("raw.bin");
    group.bench_function("baseline: raw 100KB writes", |b| {
        b.iter_batched(
            || {
                let _ = std::fs::remove_file(&raw);
            },
            |()| {
                let mut file = std::fs::File::create(&raw).unwrap();
                for _ in 0..BLOBS {
                    std::io::Write::write_all(&mut file, &blob).unwrap();
                }
                file
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
    let _ = std::fs::remove_dir_all(dir);
}

criterion_group!(benches, open, random_access, compare, write);
criterion_main!(benches);
