//! Inputs from the hostile and the real world, one test per class; each failed before its
//! fix (see the report of the vocabulary port, and docs/kastore.md §6).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use std::path::Path;

use binfmt_core::source::Counting;
use kastore::{ErrorKind, KeyText, Reader, Store, Writer};

fn store(key: &str) -> Vec<u8> {
    Writer::new()
        .add(key, &[1u32, 2, 3])
        .unwrap()
        .to_vec()
        .unwrap()
}

/// Asserts what every reader says about `data`: one store, then `len` trailing bytes
/// with the given shape, all as warnings.
fn assert_trailing(data: &[u8], store_len: u64, store_like: bool) {
    let len = data.len() as u64 - store_len;
    let parsed = Store::parse(data).unwrap();
    let warnings: Vec<_> = parsed.warnings().collect();
    assert!(
        matches!(warnings[0].kind(), ErrorKind::TrailingBytes { len: l, store_like: s, .. } if *l == len && *s == store_like),
        "{}",
        warnings[0]
    );
    assert_eq!(warnings[0].offset(), Some(store_len));
    assert_eq!(warnings.len(), if store_like { 2 } else { 1 });
    // `stores` (what `binfmt inspect` and `kastore get` walk) reads the store and stops.
    let stores: Vec<_> = kastore::stores(data).collect();
    assert_eq!(stores.len(), 1);
    assert_eq!(stores[0].as_ref().unwrap().file_size(), store_len);
    // `verify`: valid, with the same warnings.
    let (errors, found) = common::verify_all(data, &kastore::ReadOptions::new());
    assert!(errors.is_empty(), "{errors:?}");
    let text = |w: &[kastore::Error]| w.iter().map(ToString::to_string).collect::<Vec<_>>();
    assert_eq!(text(&found), text(&warnings));
    // The ranged reader reads the store and counts the rest.
    let reader = Reader::open(data).unwrap();
    assert_eq!(reader.trailing_len(), len);
}

/// A tool padded the file to a multiple of 16 with zeros: tskit and kastore load it, and
/// we used to say "truncated input: the header needs 64 bytes" (the padding was read as a
/// next store).
#[test]
fn zero_padding_after_the_store_is_a_warning_not_a_truncated_store() {
    let mut data = store("a");
    let size = data.len() as u64;
    data.extend_from_slice(&[0; 8]);
    assert_trailing(&data, size, false);
    assert_eq!(
        Store::parse(&data)
            .unwrap()
            .warnings()
            .next()
            .unwrap()
            .to_string(),
        format!(
            "byte {size}: 8 bytes after the end of the store are not a kastore store; kastore and tskit ignore them"
        )
    );
}

/// Text appended to a `.trees` file (a log line, a shell redirect): we used to say "bad
/// magic".
#[test]
fn text_after_the_store_is_a_warning_not_bad_magic() {
    let mut data = store("a");
    let size = data.len() as u64;
    data.extend_from_slice(&b"simulated with msprime 1.3.3, seed 42\n".repeat(3));
    assert_trailing(&data, size, false);
}

/// A valid store after the first is still a second store: no warning.
#[test]
fn a_valid_second_store_is_still_a_store() {
    let mut data = store("a");
    let size = data.len() as u64;
    data.extend_from_slice(&store("b"));
    let stores: Vec<_> = kastore::stores(&data)
        .map(|s| s.unwrap().offset())
        .collect();
    assert_eq!(stores, [0, size]);
    assert_eq!(Store::parse(&data).unwrap().warnings().count(), 0);
    assert_eq!(
        common::verify_all(&data, &kastore::ReadOptions::new())
            .1
            .len(),
        0
    );
}

/// Bytes that begin like a store but are not one (a second store cut short by a full
/// disk): a warning that says so, then why it is not a store.
#[test]
fn a_second_store_cut_short_is_a_store_like_warning() {
    let mut data = store("a");
    let size = data.len() as u64;
    let second = store("b");
    data.extend_from_slice(&second[..100]);
    assert_trailing(&data, size, true);
    let warnings: Vec<_> = Store::parse(&data).unwrap().warnings().collect();
    assert!(
        warnings[0]
            .to_string()
            .contains("begin with the kastore magic")
    );
    assert!(
        matches!(
            warnings[1].kind(),
            ErrorKind::Layout(kastore::Layout::Truncated {
                what: "descriptors",
                ..
            })
        ),
        "{}",
        warnings[1]
    );
    // Its descriptor does not fit in the 100 bytes.
    assert_eq!(warnings[1].offset(), Some(size + 64));
    // Even a few bytes of the magic are "store-like".
    let mut data = store("a");
    data.extend_from_slice(&kastore::MAGIC[..3]);
    assert_trailing(&data, size, true);
}

/// kastore 0.3.6 writes a 13 KB key of control characters without complaint; the command
/// line panicked padding its column (a width beyond 65,535). The library reads it, and
/// shows it cut to any width without copying it.
#[test]
fn a_long_control_key_from_kastore_0_3_6_is_read_and_shown_bounded() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/valid/long_control_key.kas");
    let bytes = kastore::fs::read(&path).unwrap();
    assert_eq!(bytes.len(), 13_424);
    let store = Store::parse(&bytes).unwrap();
    let item = store.item_at(0).unwrap();
    assert_eq!(item.key(), vec![1u8; 13_200]);
    assert_eq!(*store.get::<u8>(item.key()).unwrap(), [1]);
    assert_eq!(*store.get::<f64>("nodes/time").unwrap(), [0.5]);

    let text = item.key_text();
    assert_eq!(text.char_count(usize::MAX), 66_000);
    assert_eq!(text.char_count(80), 80, "measuring stops at the bound");
    let shown = text.max_chars(40).to_string();
    // Whole escapes only: seven `\u{1}` (35 characters) fit before the `…`.
    assert_eq!(shown, format!("{}…", r"\u{1}".repeat(7)));
    // Padding to a width never copies or widens the key beyond its cut.
    assert_eq!(format!("{:<50}|", text.max_chars(40)).chars().count(), 51);
    assert_eq!(text.lossy().char_count(usize::MAX), 13_200);
    assert_eq!(item.key_excerpt().len(), 13_200);
    assert_eq!(item.key_excerpt().as_bytes().len(), 40);

    // By ranges: one request for all of the metadata.
    let source = Counting::new(bytes.to_vec());
    let reader = Reader::open(&source).unwrap();
    assert_eq!(reader.entry_at(0).unwrap().key().len(), 13_200);
    assert_eq!(source.stats().requests, 1);
}

/// The 281 KB shape: thousands of keys beside one long key. Showing every key in a column
/// costs what the column's width says, not the longest key's escaped width per key.
#[test]
fn thousands_of_keys_beside_a_long_key_show_in_bounded_width() {
    let long = "\u{1}".repeat(13_200);
    let mut builder = Writer::new();
    builder.add(&long, &[1u8]).unwrap();
    let keys: Vec<String> = (0..4000).map(|i| format!("table{i:04}/column")).collect();
    for key in &keys {
        builder.add(key, &[0u8; 0]).unwrap();
    }
    let bytes = builder.to_vec().unwrap();
    assert!(bytes.len() > 280_000);
    let store = Store::parse(&bytes).unwrap();
    let width = store
        .items()
        .map(|item| item.key_text().char_count(64))
        .max()
        .unwrap();
    assert_eq!(width, 64);
    let mut out = String::new();
    for item in store.items() {
        use core::fmt::Write;
        writeln!(
            out,
            "{:<width$}  {}",
            item.key_text().max_chars(width),
            item.len()
        )
        .unwrap();
    }
    assert!(out.len() < 4001 * 80, "{} bytes", out.len());
    assert_eq!(KeyText::new(keys[0].as_bytes()).to_string(), keys[0]);
}
