//! `verify_data` over a range cache finds exactly what `verify` finds over the bytes,
//! and holds only metadata.
// Caches need the `std` API.
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used)]

use std::path::Path;

use binfmt_core::cache::ReadCache;
use binfmt_core::source::Counting;
use binfmt_test_support::agree::{self, Damage, Positions};
use binfmt_test_support::fixtures::{files_with, fixtures_dir, read_all};
use binfmt_test_support::verify_pair;
use mldf::{FieldType, ReadOptions, Schema, Value, Writer, WriterOptions};

/// Truncated (a page in, too), with bytes appended, and with single bytes changed all
/// along the file.
const DAMAGE: Damage<'static> = Damage {
    cuts: &[1, 8, 100, 4096],
    tails: &[&[0; 16]],
    doubled: false,
    at: Positions::Spread(300),
    values: &[0, 0xff, 3],
};

/// A checksummed file with items of every kind the rules read.
fn built(samples: usize, item: usize) -> Vec<u8> {
    built_with(samples, item, usize::MAX)
}

/// [`built`], with sample `changed`'s values different.
fn built_with(samples: usize, item: usize, changed: usize) -> Vec<u8> {
    let schema = Schema::new()
        .field("b", FieldType::Bytes)
        .field("j", FieldType::Json)
        .field("t", FieldType::TextRaw)
        .field("n", FieldType::Int);
    let options = WriterOptions::new().page_size(4096).checksums(true);
    let mut writer = Writer::new(std::io::Cursor::new(Vec::new()), &schema, options).unwrap();
    let bytes = vec![5u8; item];
    let other = vec![6u8; item];
    for i in 0..samples {
        let n = i64::try_from(i).unwrap();
        let (b, text) = if i == changed {
            (&other, "world")
        } else {
            (&bytes, "héllo")
        };
        writer
            .add(&[
                Value::Bytes(b),
                Value::Json("{\"a\": 1}"),
                Value::Text(mldf::Text::Utf8(text)),
                Value::Int(n),
            ])
            .unwrap();
    }
    writer.finish().unwrap().into_inner()
}

#[test]
fn every_fixture_gives_the_same_findings_over_a_cache() {
    let paths = files_with(&fixtures_dir("mldf"), &["mldf"]);
    assert!(paths.len() > 40, "{}", paths.len());
    let mut all = read_all(&paths);
    all.push(("built(5, 100)".into(), built(5, 100)));
    let options = [ReadOptions::new(), ReadOptions::new().checksums(false)];
    agree::assert_all_agree(&all, &DAMAGE, &options, verify_pair!(mldf));
}

#[test]
fn a_cache_holds_metadata_only() {
    let data = built(40, 1 << 20);
    let cached = agree::verify_cached(&data, |c, f| mldf::verify_data(c, &ReadOptions::new(), f));
    assert!(cached.held <= 128 * 1024, "{cached:?}");
    // Every item was read, for its CRC.
    assert!(cached.read >= 40 << 20, "{cached:?}");
}

/// Writes two large datasets differing in a few values, for measuring `binfmt verify` and
/// `binfmt mldf diff` (run with `--ignored` and `BINFMT_BIG=DIR`).
#[test]
#[ignore = "writes two 500 MB files"]
fn write_two_large_datasets() {
    let Some(dir) = std::env::var_os("BINFMT_BIG") else {
        return;
    };
    let schema = Schema::new()
        .field("label", FieldType::Int)
        .field("b", FieldType::Bytes)
        .field("t", FieldType::TextRaw);
    for (name, changed) in [("a.mldf", u64::MAX), ("b.mldf", 7)] {
        let options = WriterOptions::new().page_size(4096).checksums(true);
        let file = std::fs::File::create(Path::new(&dir).join(name)).unwrap();
        let mut writer = Writer::new(std::io::BufWriter::new(file), &schema, options).unwrap();
        let mut bytes = vec![0u8; 100_000];
        for i in 0..5000u64 {
            bytes[..8].copy_from_slice(&i.to_le_bytes());
            let label = if i % 1000 == changed {
                -1
            } else {
                i64::try_from(i).unwrap()
            };
            writer
                .add(&[
                    Value::Int(label),
                    Value::Bytes(&bytes),
                    Value::Text(mldf::Text::Utf8("some text")),
                ])
                .unwrap();
        }
        writer.finish().unwrap();
    }
}

/// The lines and summary of a diff of `a` and `b`, both opened over `open`.
fn diff_lines<'d, D: binfmt_core::data::Data<'d>>(a: D, b: D) -> String
where
    mldf::Error: From<D::Error>,
{
    use mldf::Dataset;
    use mldf::diff::{DiffOptions, Difference};
    let (Ok(da), Ok(db)) = (Dataset::from_data(a), Dataset::from_data(b)) else {
        return String::from("unopened");
    };
    let mut lines = Vec::new();
    let result = mldf::diff::diff(&da, &db, &DiffOptions::new().layout(true), &mut |d| {
        lines.push(match d {
            Difference::Value(v) => format!(
                "{} {} {:?} {:?} {:?} {:?}",
                v.sample,
                v.field.name(),
                v.a,
                v.crc_a,
                v.b,
                v.crc_b
            ),
            other => format!("{other:?}"),
        });
        core::ops::ControlFlow::Continue(())
    });
    format!("{result:?} {lines:?}")
}

#[test]
fn diff_over_caches_is_diff_over_slices() {
    let paths = files_with(&fixtures_dir("mldf"), &["mldf"]);
    let mut all: Vec<Vec<u8>> = read_all(&paths).into_iter().map(|(_, d)| d).collect();
    let base = built(5, 100);
    all.extend(agree::variants(&base, &DAMAGE).into_iter().step_by(7));
    let mut compared = 0;
    let changed = [built_with(5, 100, 2), built_with(7, 100, 0)];
    let pairs = [
        [base.clone(), base.clone()],
        [base.clone(), changed[0].clone()],
        [changed[1].clone(), base.clone()],
    ];
    for pair in all.windows(2).chain(pairs.iter().map(|p| p.as_slice())) {
        let (a, b) = (&pair[0], &pair[1]);
        let slices = diff_lines::<&[u8]>(a, b);
        let (sa, sb) = (Counting::new(&a[..]), Counting::new(&b[..]));
        let (ca, cb) = (ReadCache::new(&sa), ReadCache::new(&sb));
        let ranged = diff_lines(&ca, &cb);
        assert_eq!(slices, ranged);
        if core::ptr::eq(pair, pairs[1].as_slice()) {
            assert!(
                slices.contains("6, 6, 6") && slices.contains("world"),
                "{slices}"
            );
        }
        compared += 1;
    }
    assert!(compared > 100);
}
