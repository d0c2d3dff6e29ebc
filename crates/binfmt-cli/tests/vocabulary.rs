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
    "one view `View<'d, D: Data<'d> = &'d [u8]>`: `Archive`, `Bloscpack`, `Store`, `Dataset`, `Index`",
    "`View::parse(&[u8])`, `View::parse_with(&[u8], &ReadOptions)`",
    "`View::from_data(D)`, `View::from_data_with(D, &ReadOptions)` on any `Data`",
    "`View::warnings()`: an iterator of `Error`",
    "`verify_data(D: Data, &ReadOptions, &mut dyn Sink<Error>) -> Summary`",
    "`HEAD_SIZE: u64`: what a view over a cache asks for first",
    "`fs::open(path)`, `fs::open_with(path, &ReadOptions)` (`std`): a `Reader<FileSource>`",
    "`ReadOptions` getters: `get_foo()` for every setter `foo(value) -> Self`",
    "`Writer`: items in with `add` (typed `add_*` where kinds differ), `finish(self) -> Result<_>`",
    "`to_vec(&self)`, `write_to<W: Write>(&self, W) -> Result<u64>`, `write_to_path(&self, path)` on what writes a whole file",
];

/// The cells of the table that are not a plain "yes": (row, crate, cell). Every other
/// cell must be "yes", so the document cannot qualify an item that this test does not
/// know about, nor drop one.
const QUALIFIED: &[(&str, &str, &str)] = &[
    (
        "`verify(&[u8], &ReadOptions, &mut dyn Sink<Error>) -> Summary`",
        "mldf",
        "yes (`alloc`)",
    ),
    (
        "`verify(&[u8], &ReadOptions, &mut dyn Sink<Error>) -> Summary`",
        "taridx",
        "yes (`alloc`)",
    ),
    (
        "one view `View<'d, D: Data<'d> = &'d [u8]>`: `Archive`, `Bloscpack`, `Store`, `Dataset`, `Index`",
        "mldf",
        "yes (`alloc`)",
    ),
    (
        "`View::parse(&[u8])`, `View::parse_with(&[u8], &ReadOptions)`",
        "mldf",
        "yes (`alloc`)",
    ),
    (
        "`View::from_data(D)`, `View::from_data_with(D, &ReadOptions)` on any `Data`",
        "mldf",
        "yes (`alloc`)",
    ),
    (
        "`View::warnings()`: an iterator of `Error`",
        "mldf",
        "yes (`alloc`)",
    ),
    (
        "`verify_data(D: Data, &ReadOptions, &mut dyn Sink<Error>) -> Summary`",
        "mldf",
        "yes (`alloc`)",
    ),
    (
        "`verify_data(D: Data, &ReadOptions, &mut dyn Sink<Error>) -> Summary`",
        "taridx",
        "yes (`alloc`)",
    ),
    (
        "`HEAD_SIZE: u64`: what a view over a cache asks for first",
        "mldf",
        "yes (`alloc`)",
    ),
    (
        "`fs::open(path)`, `fs::open_with(path, &ReadOptions)` (`std`): a `Reader<FileSource>`",
        "taridx",
        "yes (the index and the shards next to it; `fs::open_with_shards` takes them as paths)",
    ),
    (
        "`to_vec(&self)`, `write_to<W: Write>(&self, W) -> Result<u64>`, `write_to_path(&self, path)` on what writes a whole file",
        "mldf",
        "no: the writer streams and writes its header last (`Writer::new(out: Write + Seek)`, `Writer::create(path)`)",
    ),
    (
        "`to_vec(&self)`, `write_to<W: Write>(&self, W) -> Result<u64>`, `write_to_path(&self, path)` on what writes a whole file",
        "taridx",
        "yes (on `IndexFile`, what `finish` returns)",
    ),
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
    ($c:ident, $manifest:literal, $view:ident, $getter:ident) => {{
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
        // One view generic over `Data`, the slice by default.
        fn view<'d, D: $c::Data<'d>>(_: Option<$c::$view<'d, D>>) {}
        view::<&[u8]>(None::<$c::$view<'_>>);
        view::<&binfmt_core::cache::ReadCache<Vec<u8>>>(None);
        // `parse` and `parse_with` on slices: an empty input is no file.
        let parse: for<'a> fn(&'a [u8]) -> $c::Result<$c::$view<'a>> =
            |data| $c::$view::parse(data);
        let parse_with: for<'a, 'o> fn(&'a [u8], &'o $c::ReadOptions) -> $c::Result<$c::$view<'a>> =
            |data, options| $c::$view::parse_with(data, options);
        assert!(parse(b"").is_err());
        assert!(parse_with(b"", &$c::ReadOptions::new()).is_err());
        // `from_data` and `from_data_with` on any `Data` (here a cache).
        let cache = binfmt_core::cache::ReadCache::new(Vec::<u8>::new());
        assert!($c::$view::from_data(&cache).is_err());
        assert!($c::$view::from_data_with(&cache, &$c::ReadOptions::new()).is_err());
        // `warnings()`: an iterator of `Error`.
        fn warnings(view: &$c::$view<'_>) -> Vec<$c::Error> {
            view.warnings().collect()
        }
        let _ = warnings;
        // `verify_data` over any `Data`, with the same signature as `verify` otherwise.
        fn verify_data<'d, D: $c::Data<'d>>(
            data: D,
            options: &$c::ReadOptions,
            sink: &mut dyn $c::Sink<$c::Error>,
        ) -> $c::Summary
        where
            $c::Error: From<D::Error>,
        {
            $c::verify_data(data, options, sink)
        }
        let mut ignore = |_: $c::Severity, _: $c::Error| core::ops::ControlFlow::Continue(());
        assert!(!verify_data(&b""[..], &$c::ReadOptions::new(), &mut ignore).is_valid());
        // `HEAD_SIZE: u64`: at least the header.
        let head_size: u64 = $c::HEAD_SIZE;
        assert!(head_size >= u64::try_from(header_size).unwrap());
        // `fs::open` and `fs::open_with`: a ranged `Reader` over the file.
        let open: fn(&Path) -> $c::Result<$c::Reader<binfmt_core::source::FileSource>> =
            |path| $c::fs::open(path);
        let open_with: fn(
            &Path,
            &$c::ReadOptions,
        ) -> $c::Result<$c::Reader<binfmt_core::source::FileSource>> =
            |path, options| $c::fs::open_with(path, options);
        assert!(open(missing).is_err());
        assert!(open_with(missing, &$c::ReadOptions::new()).is_err());
        // `ReadOptions` getters: one is called here; `getters_follow_their_setters`
        // checks every one against the crate's source.
        let _ = $c::ReadOptions::new().$getter();
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
    vocabulary!(taco_header, "taco-header", Archive, get_checksums);
    vocabulary!(
        bloscpack_header,
        "bloscpack-header",
        Bloscpack,
        get_checksums
    );
    vocabulary!(kastore, "kastore", Store, get_max_store_size);
    vocabulary!(mldf, "mldf", Dataset, get_checksums);
    vocabulary!(taridx, "taridx", Index, get_lenient);
}

/// The getter rule, read from each crate's `src/options.rs`: every setter
/// `pub const fn foo(self, …) -> Self` has a getter `pub const fn get_foo(&self)`, and
/// every other `&self` function of `ReadOptions` is a deprecated earlier name.
/// The writers: one name, one verb, one `finish` shape, and the whole-file outputs.
#[test]
fn every_crate_writes_with_a_writer() {
    use std::io::Cursor;
    // taco-header: `add_bytes`/`add_file`, `finish` -> the archive's bytes.
    let mut taco = taco_header::Writer::new(taco_header::Entries::new());
    taco.add_bytes("a.bin", b"x".to_vec());
    let bytes = taco.to_vec().unwrap();
    let mut streamed = Vec::new();
    assert_eq!(taco.write_to(&mut streamed).unwrap(), bytes.len() as u64);
    assert_eq!(streamed, bytes);
    let _: fn(&taco_header::Writer, &Path) -> taco_header::Result<u64> = |w, p| w.write_to_path(p);
    assert_eq!(taco.finish().unwrap(), bytes);
    // kastore: `add` (and `add_vec`, `add_array`, `add_item`), `finish` -> the bytes.
    let mut kas = kastore::Writer::new();
    kas.add("a", &[1u8, 2, 3]).unwrap();
    let bytes = kas.to_vec().unwrap();
    let mut streamed = Vec::new();
    assert_eq!(kas.write_to(&mut streamed).unwrap(), bytes.len() as u64);
    assert_eq!(streamed, bytes);
    let _: fn(&kastore::Writer<'_>, &Path) -> kastore::Result<u64> = |w, p| w.write_to_path(p);
    assert_eq!(kas.finish().unwrap(), bytes);
    // bloscpack-header: `add`, `finish` -> the bytes.
    let mut blp = bloscpack_header::Writer::new(bloscpack_header::PackOptions::default());
    blp.add(&b"0123456789"[..]);
    let bytes = blp.to_vec().unwrap();
    let mut streamed = Vec::new();
    assert_eq!(blp.write_to(&mut streamed).unwrap(), bytes.len() as u64);
    assert_eq!(streamed, bytes);
    let _: fn(&bloscpack_header::Writer<'_>, &Path) -> bloscpack_header::Result<u64> =
        |w, p| w.write_to_path(p);
    assert_eq!(blp.finish().unwrap(), bytes);
    // mldf: a streaming `Writer<W: Write + Seek>`, `add`, `finish` -> the output.
    let schema = mldf::Schema::new().field("x", mldf::FieldType::Int);
    let mut w = mldf::Writer::new(
        Cursor::new(Vec::new()),
        &schema,
        mldf::WriterOptions::default(),
    )
    .unwrap();
    w.add(&[mldf::Value::Int(7)]).unwrap();
    let out: Cursor<Vec<u8>> = w.finish().unwrap();
    assert!(mldf::sniff(out.get_ref()));
    // taridx: `add` (a shard), `finish` -> `Finished { index, report }`; the index writes
    // itself whole.
    let mut idx = taridx::Writer::new(taridx::BuildOptions::default());
    let _ = idx.add("empty_0000.tar", &[0u8; 1024]).unwrap();
    let finished: taridx::Finished = idx.finish().unwrap();
    let bytes = finished.index.to_vec().unwrap();
    let mut streamed = Vec::new();
    finished.index.write_to(&mut streamed).unwrap();
    assert_eq!(streamed, bytes);
    let _: fn(&taridx::IndexFile, &Path) -> taridx::Result<u64> = |w, p| w.write_to_path(p);
}

#[test]
fn getters_follow_their_setters() {
    for krate in CRATES {
        let source = std::fs::read_to_string(format!(
            "{}/../{krate}/src/options.rs",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let lines: Vec<&str> = source.lines().map(str::trim).collect();
        let mut setters = Vec::new();
        let mut getters = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let Some(rest) = line.strip_prefix("pub const fn ") else {
                continue;
            };
            let (name, args) = rest.split_once('(').unwrap();
            if args.starts_with("self") || args.starts_with("mut self") {
                setters.push(name);
            } else if args.starts_with("&self") {
                if name.starts_with("get_") {
                    getters.push(name);
                } else {
                    // The attributes above the function, up to its doc comment.
                    let deprecated = lines[..i]
                        .iter()
                        .rev()
                        .take_while(|l| l.starts_with("#["))
                        .any(|l| l.starts_with("#[deprecated"));
                    assert!(
                        deprecated,
                        "{krate}: getter `{name}` is neither `get_*` nor deprecated"
                    );
                }
            }
        }
        assert!(!setters.is_empty(), "{krate}: no setters found");
        let mut expected: Vec<String> = setters.iter().map(|s| format!("get_{s}")).collect();
        let mut found: Vec<String> = getters.iter().map(|s| s.to_string()).collect();
        expected.sort();
        found.sort();
        assert_eq!(found, expected, "{krate}: getters vs. setters");
    }
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
        for (krate, cell) in CRATES.iter().zip(&row[1..]) {
            let qualified = QUALIFIED
                .iter()
                .find(|(item, k, _)| *item == row[0] && k == krate);
            let expected = qualified.map_or("yes", |(_, _, cell)| *cell);
            assert_eq!(
                *cell, expected,
                "every crate has every item, qualified only as QUALIFIED says: {row:?}"
            );
        }
    }
}

fn cells(line: &str) -> Vec<&str> {
    line.trim()
        .trim_matches('|')
        .split(" | ")
        .map(str::trim)
        .collect()
}

/// The earlier names, kept for one release as deprecated aliases, still mean what the
/// new ones mean.
#[test]
#[allow(deprecated)]
fn earlier_names_forward_to_the_new_ones() {
    assert_eq!(taco_header::HEAD_LEN, taco_header::HEAD_SIZE);
    assert_eq!(taco_header::TAIL_LEN, taco_header::TAIL_SIZE);
    assert_eq!(taco_header::VERIFY_PIECE, taco_header::PIECE_SIZE);
    assert_eq!(bloscpack_header::HEAD_REQUEST, bloscpack_header::HEAD_SIZE);

    let taco = taco_header::ReadOptions::new()
        .checksums(false)
        .lenient(true);
    assert_eq!(taco.checks_checksums(), taco.get_checksums());
    assert_eq!(taco.is_lenient(), taco.get_lenient());
    let blosc = bloscpack_header::ReadOptions::new()
        .accept_version_2(false)
        .checksums(false)
        .max_metadata_size(7);
    assert_eq!(blosc.version_2_accepted(), blosc.get_accept_version_2());
    assert_eq!(blosc.checksums_checked(), blosc.get_checksums());
    assert_eq!(blosc.metadata_limit(), blosc.get_max_metadata_size());
    let kas = kastore::ReadOptions::new().max_store_size(7);
    assert_eq!(kas.store_size_limit(), kas.get_max_store_size());
    let ml = mldf::ReadOptions::new()
        .memory_limit(7)
        .index_checksum(false);
    assert_eq!(ml.max_memory(), ml.get_memory_limit());
    assert_eq!(ml.checks_index(), ml.get_index_checksum());
    assert_eq!(ml.checks_items(), ml.get_item_checksums());
    let tar = taridx::ReadOptions::new().row_ids(false);
    assert_eq!(tar.checks_header_sizes(), tar.get_header_sizes());
    assert_eq!(tar.checks_row_ids(), tar.get_row_ids());

    let missing = Path::new("/nonexistent/binfmt-vocabulary-test");
    assert!(kastore::fs::reader(missing).is_err());
    assert!(mldf::fs::reader(missing, &mldf::ReadOptions::new()).is_err());
    assert!(taridx::fs::open_reader(missing, &[], &taridx::ReadOptions::new()).is_err());
}
