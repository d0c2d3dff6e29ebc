//! Property tests: random schemas and samples survive a round trip and verify; random
//! corruption and truncation never panic, and whatever still verifies reads the same.
// Every test writes or reads files with the `std` API.
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::io::Cursor;

use binfmt_core::le::{U16, U32};
use mldf::{
    Audio, AudioCodec, Dataset, Dtype, FieldType, Image, NdarraySpec, Schema, Text, Value, Writer,
    WriterOptions,
};
use proptest::prelude::*;

/// Errors (not warnings) whole-file verification reports.
fn verify_errors(bytes: &[u8]) -> Vec<String> {
    let mut errors = Vec::new();
    mldf::verify(
        bytes,
        &mldf::ReadOptions::new(),
        &mut |severity, e: mldf::Error| {
            if severity == mldf::Severity::Error {
                errors.push(e.to_string());
            }
            core::ops::ControlFlow::Continue(())
        },
    );
    errors
}

/// The generated payloads, for as long as the test runs: a proptest value must own its
/// data and a [`Value`] borrows it, so the strategies leak what they generate (a few
/// megabytes over a run) and hand out `Value<'static>`.
fn leak<T>(v: Vec<T>) -> &'static [T] {
    v.leak()
}

fn png(w: u32, h: u32, colour: u8) -> Vec<u8> {
    let mut v = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    v.extend_from_slice(&w.to_be_bytes());
    v.extend_from_slice(&h.to_be_bytes());
    v.extend_from_slice(&[8, colour, 0, 0, 0, 0, 0, 0, 0]);
    v.extend_from_slice(b"\0\0\0\0IDAT\0\0\0\0");
    v
}

fn field_type() -> impl Strategy<Value = (FieldType, bool)> {
    prop_oneof![
        Just((FieldType::Int, false)),
        Just((FieldType::Float, false)),
        any::<bool>().prop_map(|n| (FieldType::Bytes, n)),
        any::<bool>().prop_map(|n| (FieldType::Json, n)),
        (0usize..13, prop::collection::vec(0u64..4, 0..4)).prop_map(|(d, shape)| {
            (
                FieldType::Ndarray(NdarraySpec::new(Dtype::ALL[d], &shape).unwrap()),
                false,
            )
        }),
        any::<bool>().prop_map(|n| (FieldType::ImageRaw, n)),
        Just((FieldType::ImagePng, true)),
        any::<bool>().prop_map(|n| (FieldType::AudioWaveform, n)),
        Just((FieldType::AudioCompressed, false)),
        any::<bool>().prop_map(|n| (FieldType::TextRaw, n)),
        Just((FieldType::TextTokenized { vocab_size: 7 }, false)),
    ]
}

fn value_for(ty: FieldType, nullable: bool) -> BoxedStrategy<Value<'static>> {
    let v: BoxedStrategy<Value<'static>> = match ty {
        FieldType::Int => any::<i64>().prop_map(Value::Int).boxed(),
        FieldType::Float => any::<f64>().prop_map(Value::Float).boxed(),
        FieldType::Bytes => prop::collection::vec(any::<u8>(), 0..40)
            .prop_map(|b| Value::Bytes(leak(b)))
            .boxed(),
        FieldType::Json => prop_oneof![
            Just(String::new()),
            any::<i32>().prop_map(|n| n.to_string()),
            "[a-z ]{0,12}".prop_map(|s| format!("{{\"k\": \"{s}\", \"n\": [null, true]}}")),
        ]
        .prop_map(|s| Value::Json(s.leak()))
        .boxed(),
        FieldType::Ndarray(spec) => {
            let n = spec.byte_size() as usize;
            prop_oneof![Just(vec![]), prop::collection::vec(any::<u8>(), n..=n)]
                .prop_map(|b| Value::Ndarray(leak(b)))
                .boxed()
        }
        FieldType::ImageRaw => (0u16..4, 0u16..4, prop::sample::select(vec![1u8, 3, 4]))
            .prop_flat_map(|(h, w, c)| {
                let n = usize::from(h) * usize::from(w) * usize::from(c);
                prop::collection::vec(any::<u8>(), n..=n)
                    .prop_map(move |b| Value::Image(Image::raw(h, w, c, leak(b))))
            })
            .boxed(),
        FieldType::ImagePng => (
            1u32..70000,
            1u32..100,
            prop::sample::select(vec![0u8, 2, 4, 6]),
        )
            .prop_filter("fits u16", |(w, _, _)| *w <= 65535)
            .prop_map(|(w, h, c)| Value::Image(Image::png(leak(png(w, h, c)))))
            .boxed(),
        FieldType::AudioWaveform => (
            prop::sample::select(vec![8u8, 16, 24, 32]),
            1u16..3,
            0usize..5,
        )
            .prop_flat_map(|(d, ch, frames)| {
                let n = frames * usize::from(ch) * usize::from(d / 8);
                prop::collection::vec(any::<u8>(), n..=n)
                    .prop_map(move |b| Value::Audio(Audio::pcm(44100, ch, d, leak(b))))
            })
            .boxed(),
        FieldType::AudioCompressed => prop::collection::vec(any::<u8>(), 0..10)
            .prop_map(|b| Value::Audio(Audio::compressed(AudioCodec::Mp3, leak(b))))
            .boxed(),
        FieldType::TextRaw => "\\PC{0,10}"
            .prop_map(|s| Value::Text(Text::Utf8(s.leak())))
            .boxed(),
        _ => prop_oneof![
            prop::collection::vec(any::<u32>().prop_map(U32::new), 0..8)
                .prop_map(|ids| Value::Text(Text::U32(leak(ids)))),
            prop::collection::vec(any::<u16>().prop_map(U16::new), 0..8)
                .prop_map(|ids| Value::Text(Text::U16(leak(ids)))),
        ]
        .boxed(),
    };
    if nullable {
        prop_oneof![1 => Just(Value::Null), 3 => v].boxed()
    } else {
        v
    }
}

fn dataset() -> impl Strategy<Value = (Schema, Vec<Vec<Value<'static>>>, WriterOptions)> {
    prop::collection::vec(field_type(), 1..6).prop_flat_map(|types| {
        let mut schema = Schema::new();
        for (i, (ty, nullable)) in types.iter().enumerate() {
            schema = if *nullable {
                schema.nullable_field(format!("f{i}"), *ty)
            } else {
                schema.field(format!("f{i}"), *ty)
            };
        }
        let row: Vec<BoxedStrategy<Value<'static>>> =
            types.iter().map(|(t, n)| value_for(*t, *n)).collect();
        (
            Just(schema),
            prop::collection::vec(row, 0..12),
            any::<bool>(),
            any::<bool>(),
            prop::sample::select(vec![4096u32, 8192]),
        )
            .prop_map(|(schema, samples, canonical, crc, page)| {
                let mut o = WriterOptions::new().page_size(page).checksums(crc);
                if canonical {
                    o = o.num_samples(samples.len() as u64);
                }
                (schema, samples, o)
            })
    })
}

fn write(schema: &Schema, samples: &[Vec<Value<'_>>], options: WriterOptions) -> Vec<u8> {
    let mut w = Writer::new(Cursor::new(Vec::new()), schema, options).unwrap();
    for s in samples {
        w.add(s).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// What a written value reads back as (JPEG/PNG dimensions are filled in; an empty
/// payload with an all-zero slot reads as null or empty).
fn reads_as(written: &Value<'_>, read: &Value<'_>) -> bool {
    match (written, read) {
        (Value::Image(w), Value::Image(r)) if w.mode == mldf::ImageMode::Png => r.data == w.data,
        (Value::Null, _) | (_, Value::Null) => read.payload().is_none_or(<[u8]>::is_empty),
        (Value::Image(w), Value::Image(r))
            if w.data.is_empty() && w.height == 0 && w.width == 0 =>
        {
            r.data.is_empty()
        }
        (Value::Audio(w), Value::Audio(r)) if w.data.is_empty() && r.sample_rate == 0 => {
            r.data.is_empty()
        }
        (Value::Text(Text::U16(w)), Value::Text(Text::U16(r))) => w == r,
        _ => written.same(read) || (written.payload() == Some(&[]) && read.payload() == Some(&[])),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn round_trip((schema, samples, options) in dataset()) {
        let bytes = write(&schema, &samples, options);
        let ds = Dataset::parse(&bytes).unwrap();
        prop_assert_eq!(ds.num_samples(), samples.len() as u64);
        let problems = verify_errors(&bytes);
        prop_assert!(problems.is_empty(), "{:?}", problems);
        let reader = mldf::Reader::open(binfmt_core::source::Counting::new(&bytes[..])).unwrap();
        for (i, s) in samples.iter().enumerate() {
            for (f, written) in s.iter().enumerate() {
                let read = ds.value(i as u64, f).unwrap();
                prop_assert!(reads_as(written, &read), "sample {} field {}: {:?} read as {:?}", i, f, written, read);
                prop_assert!(reader.value(i as u64, f).unwrap().value().same(&read));
            }
        }
        // A dataset is the same as itself, reading each payload once per side.
        let summary = mldf::diff::diff(&ds, &ds, &mldf::diff::DiffOptions::new().layout(true), &mut |d| {
            panic!("{d:?}")
        }).unwrap();
        prop_assert!(summary.is_same());
        prop_assert!(summary.payload_bytes() <= 2 * bytes.len() as u64);
    }

    #[test]
    fn corruption_is_caught_or_harmless(
        (schema, samples, options) in dataset(),
        at in any::<prop::sample::Index>(),
        xor in 1u8..,
        cut in any::<prop::sample::Index>(),
    ) {
        let bytes = write(&schema, &samples, options.checksums(true));
        let original = Dataset::parse(&bytes).unwrap();
        let mut flipped = bytes.clone();
        flipped[at.index(bytes.len())] ^= xor;
        let truncated = &bytes[..cut.index(bytes.len())];
        for damaged in [&flipped[..], truncated] {
            let problems = verify_errors(damaged).len();
            // The ranged reader agrees with the slice reader, error for error.
            let ranged = mldf::Reader::open(binfmt_core::source::Counting::new(damaged));
            match (&ranged, Dataset::parse(damaged)) {
                (Ok(r), Ok(d)) => {
                    for i in 0..d.num_samples() {
                        for f in 0..d.fields().len() {
                            match (r.value(i, f), d.value(i, f)) {
                                (Ok(x), Ok(y)) => prop_assert!(x.value().same(&y)),
                                (Err(x), Err(y)) => prop_assert_eq!(x.to_string(), y.to_string()),
                                (x, y) => prop_assert!(false, "{:?} vs {:?}", x, y),
                            }
                        }
                    }
                }
                (Err(r), Err(d)) => prop_assert_eq!(r.to_string(), d.to_string()),
                (r, d) => prop_assert!(false, "{:?} vs {:?}", r.as_ref().err(), d.err()),
            }
            // Readers must not panic, whatever the damage.
            if let Ok(ds) = Dataset::parse(damaged) {
                if let Ok(same) = mldf::diff::diff(&ds, &ds, &mldf::diff::DiffOptions::new(), &mut |_| core::ops::ControlFlow::Continue(())) {
                    prop_assert!(same.is_same());
                }
                for s in ds.samples() {
                    for v in s.values() {
                        let _ = v;
                    }
                }
                if problems == 0 {
                    // Whatever verifies (e.g. a flip in zero padding) reads as before.
                    for i in 0..original.num_samples() {
                        for f in 0..original.fields().len() {
                            prop_assert!(original.value(i, f).unwrap().same(&ds.value(i, f).unwrap()));
                        }
                    }
                }
            } else {
                prop_assert!(problems > 0, "open fails but verify finds nothing");
            }
        }
    }
}
