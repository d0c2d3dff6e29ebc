//! The vocabulary every format crate shares (docs/architecture.md, "One vocabulary for
//! every format crate"), checked two ways: each item of the table is used here, with its
//! documented type, for all five crates (so a crate that drifts stops this test from
//! compiling), and the table in the document is parsed and compared with the rows this
//! test knows (so the document cannot claim what is not checked).

use std::path::Path;

use binfmt_core::source::ByteSource;

/// The rows of the table, in order, each checked for every crate by `vocabulary!`.
const ROWS: &[&str] = &[
    "`MAGIC: &[u8]`",
    "`VERSION: Version`",
    "`HEADER_SIZE: usize`",
    "`sniff(&[u8]) -> bool`",
    "`verify(&[u8], &ReadOptions, &mut dyn Sink<Error>) -> Summary`",
    "`ReadOptions`",
    "`Error`, `ErrorKind`, `Result`",
    "`Fault`, `Layout`, `Found`, `Diagnostic`, `Severity`, `Sink`, `Summary`, `Version`, `Compatibility` (re-exported from core)",
    "`IoError` (re-exported from core; `std`)",
    "`raw` module (layout structs and their sizes)",
    "`fs::read(path)` (`std`), `fs::map(path)` (`mmap`)",
    "`Reader<S: ByteSource>` (`std`): reads by range",
    "features `alloc`, `std` (default), `mmap`",
];

const CRATES: [&str; 5] = [
    "taco-header",
    "bloscpack-header",
    "kastore",
    "mldf",
    "taridx",
];

/// Uses every item of the table from one crate, with the documented types.
macro_rules! vocabulary {
    ($c:ident, $manifest:literal) => {{
        // `MAGIC: &[u8]`, `VERSION: Version`, `HEADER_SIZE: usize`, and the `raw` module
        // they come from.
        let magic: &[u8] = $c::MAGIC;
        let version: $c::Version = $c::VERSION;
        let header_size: usize = $c::HEADER_SIZE;
        assert_eq!(magic, $c::raw::MAGIC);
        assert_eq!(version, $c::raw::VERSION);
        assert_eq!(header_size, $c::raw::HEADER_SIZE);
        assert!(!magic.is_empty() && header_size >= magic.len());
        // `sniff(&[u8]) -> bool`: a file's first bytes.
        let sniff: fn(&[u8]) -> bool = $c::sniff;
        assert!(!sniff(b""));
        // `verify(&[u8], &ReadOptions, &mut dyn Sink<Error>) -> Summary`, with the
        // re-exported `Sink`, `Severity`, `Summary`, `Diagnostic`, `Fault`.
        let verify: fn(&[u8], &$c::ReadOptions, &mut dyn $c::Sink<$c::Error>) -> $c::Summary =
            $c::verify;
        let mut seen = Vec::new();
        let mut sink = |severity: $c::Severity, e: $c::Error| {
            let d: &dyn $c::Diagnostic = &e;
            let fault: $c::Fault = d.fault();
            seen.push((severity, d.offset(), fault, e.to_string()));
            core::ops::ControlFlow::Continue(())
        };
        let summary: $c::Summary = verify(b"", &$c::ReadOptions::default(), &mut sink);
        assert!(
            !summary.is_valid(),
            "an empty input is not a valid {}",
            $manifest
        );
        assert!(!seen.is_empty());
        // `ReadOptions`: Default, Clone, Copy, Eq, Hash, Debug, and `new()` is the default.
        fn options<T: Default + Clone + Copy + Eq + core::hash::Hash + core::fmt::Debug>() {}
        options::<$c::ReadOptions>();
        assert_eq!($c::ReadOptions::new(), $c::ReadOptions::default());
        // `Error` (the core error over `ErrorKind`), `Result`.
        let e: $c::Error = binfmt_core::Error::truncated("test", 3, 4, 1).into();
        let kind: &$c::ErrorKind = e.kind();
        let _ = kind;
        assert_eq!(e.offset(), Some(3));
        let _: $c::Result<()> = Err(e);
        // `Layout`, `Found`, `Version`, `Compatibility` re-exported from core.
        let _: Option<$c::Layout> = None;
        let _ = $c::Found::new(b"x");
        let _: Option<$c::Compatibility> = None;
        // `IoError` (std): the one I/O error, with an optional path.
        let _: Option<$c::IoError> = None;
        // `fs::read(path)` (std) and `fs::map(path)` (mmap).
        let missing = Path::new("/nonexistent/binfmt-vocabulary-test");
        assert!($c::fs::read(missing).is_err());
        assert!($c::fs::map(missing).is_err());
        // `Reader<S: ByteSource>`: generic over the byte source.
        fn reader<S: ByteSource>(_: Option<$c::Reader<S>>) {}
        reader::<Vec<u8>>(None);
        reader::<binfmt_core::source::FileSource>(None);
        // Features `alloc`, `std` (default), `mmap`: in the crate's manifest.
        let manifest = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../",
            $manifest,
            "/Cargo.toml"
        ))
        .unwrap();
        let features = manifest
            .split("[features]")
            .nth(1)
            .expect("a [features] table");
        let features = features.split("\n[").next().unwrap_or(features);
        for line in ["alloc = [", "std = [", "mmap = [", "default = [\"std\""] {
            assert!(
                features.lines().any(|l| l.trim_start().starts_with(line)),
                "{}: no `{line}` in [features]",
                $manifest
            );
        }
        let std_line = features.lines().find(|l| l.starts_with("std = [")).unwrap();
        assert!(
            std_line.contains("\"alloc\""),
            "{}: std must imply alloc",
            $manifest
        );
        let mmap_line = features
            .lines()
            .find(|l| l.starts_with("mmap = ["))
            .unwrap();
        assert!(
            mmap_line.contains("\"std\""),
            "{}: mmap must imply std",
            $manifest
        );
    }};
}

#[test]
fn every_crate_exports_the_vocabulary() {
    vocabulary!(taco_header, "taco-header");
    vocabulary!(bloscpack_header, "bloscpack-header");
    vocabulary!(kastore, "kastore");
    vocabulary!(mldf, "mldf");
    vocabulary!(taridx, "taridx");
}

#[test]
fn the_table_in_architecture_md_is_the_checked_one() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/architecture.md"
    ))
    .unwrap();
    let start = doc
        .find("<!-- vocabulary table")
        .expect("the table's start marker");
    let end = doc
        .find("<!-- end of vocabulary table -->")
        .expect("the table's end marker");
    let mut lines = doc[start..end].lines().skip(1);
    let header: Vec<&str> = cells(lines.next().unwrap());
    assert_eq!(header[0], "item");
    assert_eq!(
        &header[1..],
        CRATES,
        "the table's columns are the five crates"
    );
    assert!(lines.next().unwrap().starts_with("|---"));
    let rows: Vec<Vec<&str>> = lines.filter(|l| l.starts_with('|')).map(cells).collect();
    let items: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(
        items, ROWS,
        "rows of the table vs. the rows this test checks"
    );
    for row in &rows {
        assert_eq!(row.len(), 6, "{row:?}");
        assert!(
            row[1..].iter().all(|c| *c == "yes"),
            "every crate has every item: {row:?}"
        );
    }
}

fn cells(line: &str) -> Vec<&str> {
    line.trim()
        .trim_matches('|')
        .split(" | ")
        .map(str::trim)
        .collect()
}
