#![no_main]
//! MLDF's PNG and JPEG header readers, alone and through the writer: any bytes give
//! dimensions or an error, never a panic; what the writer accepts reads back with the
//! dimensions the header declares.

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use mldf::{Dataset, FieldType, Image, ImageMode, Schema, Value, Writer, WriterOptions};

fuzz_target!(|data: &[u8]| {
    let png = mldf::png_info(data);
    let jpeg = mldf::jpeg_info(data);
    for info in [&png, &jpeg].into_iter().flatten() {
        assert!((1..=4).contains(&info.channels));
    }
    let schema = Schema::new()
        .field("png", FieldType::ImagePng)
        .field("jpeg", FieldType::ImageJpeg { quality: 0 });
    let mut writer = Writer::new(
        Cursor::new(Vec::new()),
        &schema,
        WriterOptions::new().page_size(4096),
    )
    .expect("a valid schema");
    for (field, image, info) in [(0, Image::png(data), &png), (1, Image::jpeg(data), &jpeg)] {
        let empty = Value::Image(Image::png(&[]));
        let values = if field == 0 {
            [Value::Image(image), Value::Image(Image::jpeg(&[]))]
        } else {
            [empty, Value::Image(image)]
        };
        let pushed = writer.add(&values);
        let fits = |i: &mldf::ImageInfo| i.height <= 65535 && i.width <= 65535;
        // Accepted exactly when the header reads and fits (or there are no bytes).
        assert_eq!(
            pushed.is_ok(),
            data.is_empty() || info.as_ref().is_ok_and(fits),
            "{pushed:?} {info:?}"
        );
    }
    let file = writer.finish().expect("in memory").into_inner();
    let ds = Dataset::parse(&file).expect("what we write parses");
    for sample in ds.samples() {
        for (field, value) in sample.values().enumerate() {
            let Ok(Value::Image(image)) = value else {
                panic!("not an image: {value:?}");
            };
            if image.data.is_empty() {
                continue;
            }
            assert_eq!(image.data, data);
            let (mode, info) = if field == 0 {
                (ImageMode::Png, &png)
            } else {
                (ImageMode::Jpeg, &jpeg)
            };
            let info = info.as_ref().expect("only readable headers are written");
            assert_eq!(image.mode, mode);
            assert_eq!(
                (
                    u32::from(image.height),
                    u32::from(image.width),
                    image.channels
                ),
                (info.height, info.width, info.channels)
            );
        }
    }
});
