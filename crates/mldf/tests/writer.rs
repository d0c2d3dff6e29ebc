//! Writer behaviour: validation before any byte, refused samples, atomic files, layouts.
// Every test writes or reads files with the `std` API.
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::io::Cursor;

use binfmt_core::le::U32;
use binfmt_test_support::Scratch;
use common::write;
use mldf::{
    Audio, AudioCodec, Dataset, Dtype, Error, ErrorKind, FieldType, Image, NdarraySpec,
    ReadOptions, Schema, Text, TypeId, Value, ValueProblem, Writer, WriterOptions,
};

fn scratch(name: &str) -> Scratch {
    Scratch::new(&format!("mldf-writer-{name}"))
}

fn bytes_schema() -> Schema {
    Schema::new()
        .field("id", FieldType::Int)
        .nullable_field("data", FieldType::Bytes)
        .field("doc", FieldType::Json)
}

fn problem(e: Error) -> ValueProblem {
    match e.into_kind() {
        ErrorKind::InvalidValue { problem, .. } => problem,
        other => panic!("not a value problem: {other}"),
    }
}

#[test]
fn a_refused_sample_writes_nothing() {
    let schema = bytes_schema();
    let good = vec![Value::Int(1), Value::Bytes(b"abc"), Value::Json("{}")];
    let mut w = Writer::new(Cursor::new(Vec::new()), &schema, WriterOptions::new()).unwrap();
    w.add(&good).unwrap();
    let bad = w
        .add(&[Value::Int(2), Value::Bytes(b"zzz"), Value::Json("{oops}")])
        .unwrap_err();
    assert!(matches!(problem(bad), ValueProblem::NotJson { at: 1, .. }));
    let missing = w
        .add(&[Value::Null, Value::Null, Value::Json("1")])
        .unwrap_err();
    assert_eq!(problem(missing), ValueProblem::Missing);
    assert!(matches!(
        w.add(&[Value::Int(1)]).unwrap_err().kind(),
        ErrorKind::ValueCount {
            expected: 3,
            got: 1,
            ..
        }
    ));
    w.add(&good).unwrap();
    let with_refusals = w.finish().unwrap().into_inner();
    assert_eq!(
        with_refusals,
        write(&schema, WriterOptions::new(), &[good.clone(), good])
    );
}

#[test]
fn output_is_deterministic_and_layouts_differ_only_in_placement() {
    let schema = bytes_schema();
    let samples: Vec<Vec<Value<'_>>> = (0..10)
        .map(|i| {
            vec![
                Value::Int(i),
                if i % 3 == 0 {
                    Value::Null
                } else {
                    Value::Bytes(b"xyz")
                },
                Value::Json("[true]"),
            ]
        })
        .collect();
    let streaming = write(&schema, WriterOptions::new().page_size(4096), &samples);
    assert_eq!(
        streaming,
        write(&schema, WriterOptions::new().page_size(4096), &samples)
    );
    let canonical = write(
        &schema,
        WriterOptions::new().page_size(4096).num_samples(10),
        &samples,
    );
    let (s, c) = (
        Dataset::parse(&streaming).unwrap(),
        Dataset::parse(&canonical).unwrap(),
    );
    assert!(s.header().metadata_ptr() > s.header().data_ptr());
    assert_eq!(s.header().metadata_ptr() % 64, 0);
    assert!(c.header().metadata_ptr() < c.header().data_ptr());
    assert_eq!(c.header().data_ptr() % 4096, 0);
    for i in 0..10 {
        for f in 0..3 {
            assert!(s.value(i, f).unwrap().same(&c.value(i, f).unwrap()));
        }
    }
    assert_eq!(s.value(0, 1).unwrap(), Value::Null);
}

#[test]
fn canonical_layout_needs_the_declared_count() {
    let schema = Schema::new().field("n", FieldType::Int);
    let mut w = Writer::new(
        Cursor::new(Vec::new()),
        &schema,
        WriterOptions::new().num_samples(1),
    )
    .unwrap();
    w.add(&[Value::Int(1)]).unwrap();
    assert!(matches!(
        w.add(&[Value::Int(2)]).unwrap_err().kind(),
        ErrorKind::SampleCount {
            expected: 1,
            got: 2,
            ..
        }
    ));
    w.finish().unwrap();
    let w = Writer::new(
        Cursor::new(Vec::new()),
        &schema,
        WriterOptions::new().num_samples(2),
    )
    .unwrap();
    assert!(matches!(
        w.finish().unwrap_err().kind(),
        ErrorKind::SampleCount {
            expected: 2,
            got: 0,
            ..
        }
    ));
    let none = Schema::new();
    assert!(matches!(
        Writer::new(
            Cursor::new(Vec::new()),
            &none,
            WriterOptions::new().num_samples(1)
        )
        .unwrap_err()
        .kind(),
        ErrorKind::SamplesWithoutFields
    ));
    let mut w = Writer::new(Cursor::new(Vec::new()), &none, WriterOptions::new()).unwrap();
    assert!(matches!(
        w.add(&[]).unwrap_err().kind(),
        ErrorKind::SamplesWithoutFields
    ));
}

#[test]
fn schemas_are_checked_before_anything_is_written() {
    let check = |schema: Schema| schema.validate().unwrap_err().into_kind();
    assert!(matches!(
        check(Schema::new().field("x".repeat(64), FieldType::Int)),
        ErrorKind::NameLength { len: 64, .. }
    ));
    assert!(matches!(
        check(Schema::new().field("", FieldType::Int)),
        ErrorKind::NameLength { len: 0, .. }
    ));
    assert!(matches!(
        check(Schema::new().field("a\0b", FieldType::Int)),
        ErrorKind::NameHasNul { .. }
    ));
    assert!(matches!(
        check(
            Schema::new()
                .field("é", FieldType::Int)
                .field("é", FieldType::Bytes)
        ),
        ErrorKind::NameTaken {
            field: 1,
            first: 0,
            ..
        }
    ));
    // Unique by bytes: NFC and NFD spellings are two names.
    Schema::new()
        .field("\u{e9}", FieldType::Int)
        .field("e\u{301}", FieldType::Int)
        .validate()
        .unwrap();
    Schema::new()
        .field("x".repeat(63), FieldType::Int)
        .validate()
        .unwrap();
    assert!(matches!(
        check(Schema::new().nullable_field("n", FieldType::Float)),
        ErrorKind::NullableScalar { field: 0, .. }
    ));
    assert!(matches!(
        check(Schema::new().field("v", FieldType::Other(TypeId(22)))),
        ErrorKind::UnwritableType { .. }
    ));
    assert!(NdarraySpec::new(Dtype::F64, &[1 << 29]).is_err());
    assert!(NdarraySpec::new(Dtype::U8, &[1; 16]).is_err());
    assert_eq!(
        NdarraySpec::new(Dtype::U8, &[1 << 63, 4, 0])
            .unwrap()
            .byte_size(),
        0
    );
    let dir = scratch("schema");
    let target = dir.join("out.mldf");
    let bad = Schema::new().field("x".repeat(64), FieldType::Int);
    assert!(Writer::create(&target, &bad, WriterOptions::new()).is_err());
    let err = Writer::create(
        &target,
        &bytes_schema(),
        WriterOptions::new().page_size(3000),
    )
    .unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::InvalidPageSize {
            page_size: 3000,
            ..
        }
    ));
    assert_eq!((err.offset(), err.fault()), (None, mldf::Fault::Caller));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}

#[test]
fn values_are_checked_against_their_fields() {
    let tiny_jpeg = |nf: u8| {
        let mut j = vec![0xFF, 0xD8, 0xFF, 0xC0, 0, 8 + 3 * nf, 8, 0, 2, 0, 3, nf];
        j.extend(core::iter::repeat_n(0, 3 * usize::from(nf)));
        j.extend([0xFF, 0xD9]);
        j
    };
    let wide_png = {
        let mut v = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        v.extend_from_slice(&[0, 1, 0, 0, 0, 0, 0, 1, 8, 0, 0, 0, 0, 0, 0, 0, 0]);
        v
    };
    let schema = Schema::new()
        .field("img", FieldType::ImageJpeg { quality: 0 })
        .field("pcm", FieldType::AudioWaveform)
        .field("txt", FieldType::TextRaw)
        .field(
            "arr",
            FieldType::Ndarray(NdarraySpec::new(Dtype::U16, &[2]).unwrap()),
        );
    let mut w = Writer::new(Cursor::new(Vec::new()), &schema, WriterOptions::new()).unwrap();
    let pcm = Value::Audio(Audio::pcm(8000, 1, 16, &[0, 0]));
    let txt = Value::Text(Text::Utf8("ok"));
    let arr = Value::Ndarray(&[1, 0, 2, 0]);
    let jpeg3 = tiny_jpeg(3);
    let mut try_img = |img: Value<'_>| problem(w.add(&[img, pcm, txt, arr]).unwrap_err());
    let jpeg5 = tiny_jpeg(5);
    assert!(matches!(
        try_img(Value::Image(Image::jpeg(&jpeg5))),
        ValueProblem::JpegComponents { components: 5, .. }
    ));
    assert!(matches!(
        try_img(Value::Image(Image::png(&wide_png))),
        ValueProblem::ImageTooLarge { width: 65536, .. }
    ));
    assert!(matches!(
        try_img(Value::Image(Image::jpeg(b"not a jpeg"))),
        ValueProblem::ImageHeader { .. }
    ));
    assert!(matches!(
        try_img(Value::Image(Image::raw(2, 2, 3, &[0; 11]))),
        ValueProblem::RawImageSize { .. }
    ));
    assert!(matches!(
        try_img(Value::Image(Image::raw(1, 1, 2, &[0; 2]))),
        ValueProblem::RawImageChannels { channels: 2, .. }
    ));
    assert!(matches!(
        try_img(Value::Int(3)),
        ValueProblem::WrongType { got: "int", .. }
    ));
    let img = Value::Image(Image::jpeg(&jpeg3));
    let mut try_rest = |pcm: Value<'_>, txt: Value<'_>, arr: Value<'_>| {
        problem(w.add(&[img, pcm, txt, arr]).unwrap_err())
    };
    assert!(matches!(
        try_rest(Value::Audio(Audio::pcm(8000, 1, 16, &[0, 0, 0])), txt, arr),
        ValueProblem::PcmSize { .. }
    ));
    assert!(matches!(
        try_rest(
            Value::Audio(Audio::compressed(AudioCodec::Flac, b"fLaC")),
            txt,
            arr
        ),
        ValueProblem::AudioCodecFamily { codec: 1, .. }
    ));
    assert!(matches!(
        try_rest(Value::Audio(Audio::pcm(8000, 1, 12, &[])), txt, arr),
        ValueProblem::BitDepth { .. }
    ));
    let ids = [U32::new(1)];
    assert!(matches!(
        try_rest(pcm, Value::Text(Text::U32(&ids)), arr),
        ValueProblem::WrongType { .. }
    ));
    assert!(matches!(
        try_rest(pcm, txt, Value::Ndarray(&[1, 2])),
        ValueProblem::NdarraySize {
            size: 2,
            expected: 4,
            ..
        }
    ));
    w.add(&[img, pcm, txt, arr]).unwrap();
    w.add(&[
        Value::Image(Image::jpeg(&[])),
        pcm,
        Value::Text(Text::Utf8("")),
        Value::Ndarray(&[]),
    ])
    .unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let ds = Dataset::parse(&bytes).unwrap();
    let Value::Image(i) = ds.value(0, 0).unwrap() else {
        panic!()
    };
    assert_eq!((i.height, i.width, i.channels), (2, 3, 3));
    let Value::Image(empty) = ds.value(1, 0).unwrap() else {
        panic!()
    };
    assert_eq!(
        (empty.mode, empty.data.len(), empty.channels),
        (mldf::ImageMode::Jpeg, 0, 0)
    );
    let summary = mldf::verify(&bytes, &ReadOptions::new(), &mut |_, e| panic!("{e}"));
    assert!(summary.is_valid());
}

#[test]
fn file_writer_is_atomic() {
    let dir = scratch("atomic");
    let target = dir.join("data.mldf");
    std::fs::write(&target, b"previous contents").unwrap();
    let schema = bytes_schema();
    {
        let mut w = Writer::create(&target, &schema, WriterOptions::new()).unwrap();
        w.add(&[Value::Int(1), Value::Null, Value::Json("2")])
            .unwrap();
        // Dropped without finish.
    }
    assert_eq!(std::fs::read(&target).unwrap(), b"previous contents");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    {
        let w = Writer::create(&target, &schema, WriterOptions::new().num_samples(3)).unwrap();
        assert!(w.finish().is_err()); // too few samples: nothing replaces the target
    }
    assert_eq!(std::fs::read(&target).unwrap(), b"previous contents");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    let mut w = Writer::create(&target, &schema, WriterOptions::new().checksums(true)).unwrap();
    w.add(&[Value::Int(1), Value::Bytes(b"abc"), Value::Json("2")])
        .unwrap();
    assert_eq!(w.samples(), 1);
    let size = w.finish().unwrap();
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    let bytes = std::fs::read(&target).unwrap();
    assert_eq!(size, bytes.len() as u64);
    assert_eq!(
        Dataset::parse(&bytes).unwrap().value(0, 1).unwrap(),
        Value::Bytes(b"abc")
    );
    #[cfg(feature = "mmap")]
    {
        let map = mldf::fs::map(&target).unwrap();
        assert_eq!(Dataset::parse(&map).unwrap().num_samples(), 1);
    }
}

#[test]
fn empty_files_are_extended_to_the_allocation_table() {
    let schema = Schema::new().field("n", FieldType::Int);
    let canonical = write(
        &schema,
        WriterOptions::new().page_size(4096).num_samples(0),
        &[],
    );
    assert_eq!(canonical.len(), 4096);
    let ds = Dataset::parse(&canonical).unwrap();
    assert_eq!(
        (ds.header().data_ptr(), ds.header().alloc_table_ptr()),
        (4096, 4096)
    );
    let streaming = write(
        &schema,
        WriterOptions::new().page_size(4096),
        &[vec![Value::Int(1)]],
    );
    let ds = Dataset::parse(&streaming).unwrap();
    assert_eq!(ds.header().metadata_ptr(), ds.header().data_ptr());
    assert_eq!(streaming.len(), 4096 + 8);
}
