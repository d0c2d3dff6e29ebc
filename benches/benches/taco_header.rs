//! TACO header decode throughput: ours (full check, structure only, the reference's
//! checks) against tacozip 0.13's C `tacozip_parse_header`, in the same run.
//!
//! Benches: `full`, `structure`, `reference_checks` (each: parse at that level, then copy
//! the entries out, as the C function does), `structure_view_only` (parse only: the view
//! reads entries in place on demand), `tacozip_c`.
//!
//! The reference is timed when `BINFMT_TACOZIP_LIB` names the tacozip wheel's
//! `libtacozip.so`, or `BINFMT_PYTHON` a Python with tacozip 0.13.0 installed; without
//! either only ours runs. Each iteration decodes one 157-byte header and reads its entries, as the C
//! function does (it fills a 120-byte meta array).

use std::hint::black_box;

use binfmt_benches::reference::tacozip::{self, TacoMetaArray, TacozipParseHeader};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use taco_header::{Check, Entries, Entry, Header};

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
    for (name, check) in [
        ("full", Check::Full),
        ("structure", Check::Structure),
        ("reference_checks", Check::Reference),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let header = Header::parse_with(black_box(&bytes), check).expect("valid");
                black_box(header.entries())
            });
        });
    }
    // The zero-copy decode alone: validate and hand out the view (entries are read from
    // it on demand). The closure returns a count, not the `Result`: criterion drops what
    // a routine returns, and dropping a `Result<_, Error>` costs more than the parse.
    group.bench_function("structure_view_only", |b| {
        b.iter(|| Header::parse_with(black_box(&bytes), Check::Structure).map_or(0, |h| h.count()))
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
    let mut archive = std::io::Cursor::new(Vec::new());
    let mut builder = taco_header::ArchiveBuilder::new(Entries::new());
    for i in 0..100u32 {
        builder.add_bytes(format!("member/{i:03}"), vec![0u8; 100]);
    }
    builder.write_to(&mut archive).expect("archive");
    let mut data = archive.into_inner();
    let entries = Entries::from_slice(&[Entry::new(1, 2)]).expect("one entry");
    c.bench_function("taco_header/update_in_memory_100_members", |b| {
        b.iter(|| taco_header::update_in_memory(black_box(&mut data), &entries).expect("valid"));
    });
}

criterion_group!(benches, decode, update_in_memory);
criterion_main!(benches);
