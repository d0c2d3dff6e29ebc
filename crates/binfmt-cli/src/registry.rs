//! The one list of formats `binfmt` reads, and what each provides.
//!
//! Everything format-independent (detection, `inspect`, `verify`, the subcommand grammar,
//! `--help`, the JSON-keys test) iterates over [`FORMATS`]; adding a format is one module
//! and one line here.

use std::ops::ControlFlow;
use std::process::ExitCode;

use binfmt_core::{Diagnostic, Severity, Summary};

use crate::formats;
use crate::input::{Cache, FirstRead, Input};
use crate::model::{Facts, Key};
use crate::report::{Failure, Problem};

/// Flags of `binfmt inspect` that formats may use.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct InspectOptions {
    /// `--rows`: list every row of a .taridx index.
    pub(crate) rows: bool,
    /// `--json`: the facts are rendered as JSON, so every row of a table is needed;
    /// without it a format may build only the rows text shows (`Facts::table_head`).
    pub(crate) json: bool,
}

/// What `inspect` found in one file.
#[derive(Debug, Default)]
pub(crate) struct Inspection {
    /// The facts after `"file"` and `"format"`.
    pub(crate) facts: Facts,
    /// Things worth knowing that do not make the file invalid.
    pub(crate) warnings: Vec<Problem>,
}

impl Inspection {
    /// The facts, with a library's `warnings` as problems.
    pub(crate) fn with_warnings<W: Diagnostic>(
        facts: Facts,
        warnings: impl IntoIterator<Item = W>,
    ) -> Self {
        let warnings = warnings
            .into_iter()
            .map(|w| Problem::from_diagnostic(Severity::Warning, &w))
            .collect();
        Inspection { facts, warnings }
    }
}

/// Where a format's `verify` sends what it finds (the CLI prints, counts and caps it).
pub(crate) type Report<'a> = dyn FnMut(Problem) -> ControlFlow<()> + 'a;

/// One format.
pub(crate) struct Format {
    /// The subcommand and the `"format"` JSON value.
    pub(crate) name: &'static str,
    /// One line for `--help`.
    pub(crate) about: &'static str,
    /// What a file of the format is called in messages: "a TACO archive".
    pub(crate) noun: &'static str,
    /// True when the first bytes of a file are this format's.
    pub(crate) sniff: fn(&[u8]) -> bool,
    /// The keys `inspect --json` emits after `"file"` and `"format"`.
    pub(crate) keys: &'static [Key],
    /// `binfmt inspect`.
    pub(crate) inspect: fn(&Input, &InspectOptions) -> Result<Inspection, Failure>,
    /// `binfmt verify`: the library's `verify`, every finding sent to the report.
    pub(crate) verify: fn(&Input, &mut Report<'_>) -> Result<Summary, Failure>,
    /// When `verify` reads every byte of a file, in order (Bloscpack's chunk digests): the
    /// file-name extension files of the format carry (`blp`). `binfmt verify` of a URL so
    /// named asks the first request for the whole object ([`Input::open_whole`]): the
    /// format is known from the first bytes only, and asking a file of another format for
    /// all of its bytes would transfer what its checks do not read.
    pub(crate) verify_reads_all: Option<&'static str>,
    /// When the format's structure sits at the end of a file (a ZIP's end records and
    /// central directory: TACO): the file-name extension its files carry and the bytes at
    /// the end its parse reads first. `binfmt inspect` and `verify` of a URL so named ask
    /// for those bytes with the first request, at the same time
    /// ([`binfmt_remote::Options::with_tail_ahead`]): one round trip fewer.
    pub(crate) structure_at_end: Option<(&'static str, u64)>,
    /// Adds the format's subcommands to `binfmt NAME`.
    pub(crate) command: fn(clap::Command) -> clap::Command,
    /// Runs `binfmt NAME …`.
    pub(crate) run: fn(&clap::ArgMatches) -> Result<ExitCode, Failure>,
    /// Drives the read paths of the format's own subcommands (`get`, `unpack`, listings,
    /// their formatting) over one input, output discarded: the `cli_commands` fuzz target.
    pub(crate) fuzz: fn(&Input),
}

/// The registry entry of a format module whose items have the usual names: `name`,
/// `about`, `noun` and `sniff` given, then the module's `KEYS`, `inspect`, `verify`,
/// `Command`'s subcommands, `run` and `fuzz`; `verify_reads_all` and `structure_at_end`
/// are `None` unless given.
macro_rules! format_entry {
    (
        name: $name:expr, about: $about:expr, noun: $noun:expr, sniff: $sniff:expr
        $(, verify_reads_all: $all:literal)?
        $(, structure_at_end: $end:expr)? $(,)?
    ) => {
        $crate::registry::Format {
            name: $name,
            about: $about,
            noun: $noun,
            sniff: $sniff,
            keys: KEYS,
            inspect,
            verify,
            verify_reads_all: $crate::registry::given!($($all)?),
            structure_at_end: $crate::registry::given!($($end)?),
            command: Command::augment_subcommands,
            run,
            fuzz,
        }
    };
}
pub(crate) use format_entry;

/// `Some` of an optional argument of [`format_entry!`], `None` without it.
macro_rules! given {
    () => {
        None
    };
    ($value:expr) => {
        Some($value)
    };
}
pub(crate) use given;

/// What the first request for `path` asks for, in `binfmt verify` (`verify`) or `inspect`:
/// the whole object for a URL named like a format whose `verify` reads every byte
/// (Bloscpack's digests; `verify` only), the head and the tail for a URL named like a
/// format whose structure is at its end (TACO), else the head alone. A file's format is
/// known only from its first bytes, which this request brings: the name is the guess, and
/// a file of another format so named costs one request more, or has the rest of its
/// response dropped after detection.
pub(crate) fn first_read(path: &std::path::Path, verify: bool) -> FirstRead {
    let Some(url) = path.to_str().filter(|p| crate::input::is_url(p)) else {
        return FirstRead::Head;
    };
    // The last segment of the URL's path, without its query or fragment.
    let name = url.split(['?', '#']).next().unwrap_or(url);
    let name = name.rsplit('/').next().unwrap_or(name);
    let Some((_, ext)) = name.rsplit_once('.') else {
        return FirstRead::Head;
    };
    let named = |x: &str| x.eq_ignore_ascii_case(ext);
    for f in FORMATS {
        if verify && f.verify_reads_all.is_some_and(named) {
            return FirstRead::Whole;
        }
        if let Some((x, len)) = f.structure_at_end
            && named(x)
        {
            return FirstRead::HeadAndTail(len);
        }
    }
    FirstRead::Head
}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// Every format, in the order `--help` lists them. Signatures are distinct: at most one
/// format's `sniff` accepts a file.
pub(crate) static FORMATS: [&Format; 5] = [
    &formats::taco::FORMAT,
    &formats::bloscpack::FORMAT,
    &formats::kastore::FORMAT,
    &formats::mldf::FORMAT,
    &formats::taridx::FORMAT,
];

/// The format whose signature `head` starts with.
pub(crate) fn detect(head: &[u8]) -> Option<&'static Format> {
    FORMATS.iter().copied().find(|f| (f.sniff)(head))
}

/// Why `head`, the first bytes of an input a command of `expected` was given, is not
/// of that format, when that can be said better than the format's own parser would: the
/// input is empty, or it is a file of another format ("this is a TACO archive, not a
/// kastore store"). `None` otherwise: the format's parser then says what is wrong.
pub(crate) fn mismatch(head: &[u8], expected: &Format) -> Option<String> {
    if head.is_empty() {
        return Some("empty file".to_owned());
    }
    detect(head)
        .filter(|found| found.name != expected.name)
        .map(|found| format!("this is {}, not {}", found.noun, expected.noun))
}

/// Checks that `input` can be of the format `expected` ([`mismatch`]); a stream must also
/// start with the format's signature, since it is never read further to find out.
///
/// # Errors
/// A failure naming the input when it is empty, of another format, or a stream without
/// the signature.
pub(crate) fn expect(input: &Input, expected: &Format) -> Result<(), Failure> {
    if let Some(why) = mismatch(input.head(), expected) {
        return Err(Failure::file(input.name(), why));
    }
    // A stream (a pipe, `/dev/zero`, standard input) is judged on its first bytes: it is
    // not read further to let the parser say in detail what a file would be told.
    if input.source().is_stream() && !(expected.sniff)(input.head()) {
        let head = input.head().get(..16).unwrap_or(input.head());
        return Err(Failure::file(
            input.name(),
            format!(
                "not {} (first bytes: {})",
                expected.noun,
                binfmt_core::Found::new(head)
            ),
        ));
    }
    Ok(())
}

/// [`expect`] for a file a library opened itself (an in-place edit), when it failed with
/// `failure`: the file's first bytes are read to say what it is instead, if they tell.
pub(crate) fn explain(path: &std::path::Path, expected: &Format, failure: Failure) -> Failure {
    use std::io::Read as _;
    let mut head = Vec::new();
    let read = std::fs::File::open(path)
        .and_then(|f| f.take(crate::input::SMALL_HEAD_SIZE).read_to_end(&mut head));
    match read.ok().and_then(|_| mismatch(&head, expected)) {
        Some(why) => Failure::file(crate::escape::path(path), why),
        None => failure,
    }
}

/// The format named `name`.
pub(crate) fn by_name(name: &str) -> Option<&'static Format> {
    FORMATS.iter().copied().find(|f| f.name == name)
}

/// The formats' names, for messages: `"taco", "bloscpack", …`.
pub(crate) fn names() -> String {
    FORMATS
        .iter()
        .map(|f| format!("\"{}\"", f.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `binfmt verify` of one input for any format: the crate's own `verify_data` with its
/// default (every check on) options, over the input's range cache ([`Input::cache`]):
/// metadata is read by ranges and kept, payloads are streamed and not kept, so memory
/// does not grow with the input.
pub(crate) fn verify_with<O: Default, E: Diagnostic>(
    input: &Input,
    report: &mut Report<'_>,
    verify: fn(&Cache<'_>, &O, &mut dyn binfmt_core::Sink<E>) -> Summary,
) -> Result<Summary, Failure> {
    Ok(verify(&input.cache(), &O::default(), &mut sink(report)))
}

/// A library sink that turns a crate's errors into [`Problem`]s for `report`.
pub(crate) fn sink<'r, 'a, E: Diagnostic>(
    report: &'r mut Report<'a>,
) -> impl FnMut(Severity, E) -> ControlFlow<()> + 'r {
    move |severity, err: E| report(Problem::from_diagnostic(severity, &err))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn the_first_request_is_chosen_by_the_urls_name() {
        use super::FirstRead::{Head, HeadAndTail, Whole};
        let tail = HeadAndTail(taco_header::TAIL_SIZE);
        for (arg, verify, inspect) in [
            ("https://h.example/d/x.blp", Whole, Head),
            ("s3://bucket/x.BLP?versionId=3#f", Whole, Head),
            ("https://h.example/x.blp/", Head, Head),
            ("https://h.example/x.kas", Head, Head),
            ("https://h.example/blp", Head, Head),
            ("https://h.example/t/a.taco", tail, tail),
            ("s3://bucket/a.TACO?x=1", tail, tail),
            ("x.blp", Head, Head),
            ("a.taco", Head, Head),
            ("-", Head, Head),
        ] {
            assert_eq!(super::first_read(Path::new(arg), true), verify, "{arg}");
            assert_eq!(super::first_read(Path::new(arg), false), inspect, "{arg}");
        }
    }
}
