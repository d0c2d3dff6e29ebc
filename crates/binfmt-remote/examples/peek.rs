//! How a format crate's reader reads a remote file, without depending on any format
//! crate: a `Reader<S: ByteSource>` states its request plan (here: the header, the
//! trailer, then a few records at once) and runs unchanged over a local file or a
//! [`RemoteSource`].
//!
//! ```sh
//! cargo run -p binfmt-remote --example peek -- s3://bucket/data.bin
//! cargo run -p binfmt-remote --example peek -- https://example.com/data.bin
//! cargo run -p binfmt-remote --example peek -- ./local.bin
//! ```
//!
//! It prints the length, the first and last 16 bytes and three samples from the middle,
//! then the requests made; a failure is one line on stderr and exit code 1, as in the
//! `binfmt` command.

use std::borrow::Cow;
use std::io;
use std::process::ExitCode;

use binfmt_core::source::{ByteSource, FileSource};
use binfmt_remote::RemoteSource;

/// The header a format would read first (TACO reads 256 bytes and parses 157).
const HEADER: u64 = 256;
/// The trailer a format with its directory at the end would read first.
const TRAILER: u64 = 64;

/// A format reader, as every format crate has one: generic over its source.
struct Reader<S> {
    source: S,
    len: u64,
    head: Vec<u8>,
    tail: Vec<u8>,
}

impl<S: ByteSource> Reader<S> {
    /// The request plan of `open`: one ranged GET for the header, one suffix GET for the
    /// trailer (which also tells the length, so no HEAD is needed).
    fn open(source: S) -> io::Result<Self> {
        let head = source.read_head(HEADER)?.into_owned();
        let (_, tail) = source.read_tail(TRAILER)?;
        let tail = tail.into_owned();
        let len = source.len()?;
        Ok(Reader {
            source,
            len,
            head,
            tail,
        })
    }

    /// Records the header or directory would point at, asked for together so that a
    /// remote source fetches them concurrently, merging the close ones.
    fn samples(&self) -> io::Result<Vec<(u64, Cow<'_, [u8]>)>> {
        let at: Vec<u64> = [3, 2, 1]
            .iter()
            .map(|d| self.len / 4 * (4 - d))
            .filter(|&o| o + 16 <= self.len)
            .collect();
        let ranges: Vec<_> = at.iter().map(|&o| o..o + 16).collect();
        Ok(at
            .into_iter()
            .zip(self.source.read_ranges(&ranges)?)
            .collect())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn show<S: ByteSource>(reader: &Reader<S>) -> io::Result<()> {
    println!("length  {}", reader.len);
    println!(
        "head    {}",
        hex(reader.head.get(..16).unwrap_or(&reader.head))
    );
    let tail = reader
        .tail
        .get(reader.tail.len().saturating_sub(16)..)
        .unwrap_or(&[]);
    println!("tail    {}", hex(tail));
    for (at, bytes) in reader.samples()? {
        println!("@{at:<10} {}", hex(&bytes));
    }
    Ok(())
}

fn run(arg: &str) -> io::Result<()> {
    if binfmt_remote::is_url(arg) {
        let source = RemoteSource::open(arg)?;
        let reader = Reader::open(&source)?;
        show(&reader)?;
        let s = source.stats();
        println!(
            "stats   {} requests ({} HEAD), {} bytes, {} reads served from read-ahead",
            s.requests, s.head_requests, s.bytes, s.cache_hits
        );
    } else {
        show(&Reader::open(FileSource::open(arg)?)?)?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let Some(arg) = std::env::args().nth(1) else {
        eprintln!("usage: peek URL|PATH");
        return ExitCode::from(2);
    };
    match run(&arg) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // A RemoteSource's errors already name the URL; a file's do not.
            if binfmt_remote::is_url(&arg) {
                eprintln!("peek: {e}");
            } else {
                eprintln!("peek: {arg}: {e}");
            }
            ExitCode::from(1)
        }
    }
}
