//! Entry points for the cargo-fuzz targets in `fuzz/`: the command's own code paths
//! (detection, every format's inspect and verify, both renderings), driven by arbitrary
//! bytes as if they were a file named on the command line. Not an API.

use std::io;
use std::ops::ControlFlow;

use crate::input::Input;
use crate::registry::{self, InspectOptions};

fn input(data: &[u8]) -> Option<Input> {
    Input::from_source("fuzz".to_owned(), None, Box::new(data.to_vec())).ok()
}

/// `data` as the sources a file, a URL and a pipe are: read by range through the views'
/// `ReadCache` (a counted source has no slice to borrow), and as a stream that spills to
/// a temporary file past 4 KiB and ends at 1 MiB.
fn ranged_inputs(data: &[u8]) -> Vec<Input> {
    use binfmt_core::source::{Counting, StreamSource};
    let ranged = Box::new(Counting::new(data.to_vec()));
    let stream = Box::new(StreamSource::with_memory(
        io::Cursor::new(data.to_vec()),
        1 << 20,
        4 << 10,
    ));
    [
        Input::from_source("ranged".to_owned(), None, ranged),
        Input::from_source("stream".to_owned(), None, stream),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// `inspect`, `verify` and the format's own subcommands over `data` read by range and as
/// a stream (one that spills past 4 KiB): the one door's cache paths, which the slice paths of
/// [`inspect`] and [`verify`] do not take.
pub fn ranged(data: &[u8]) {
    for input in ranged_inputs(data) {
        let Some(format) = registry::detect(input.head()) else {
            return;
        };
        let _ = registry::expect(&input, format);
        for json in [false, true] {
            if let Ok(inspection) = (format.inspect)(&input, &InspectOptions { rows: true, json }) {
                let _ = inspection.facts.write_text(&mut io::sink(), 2);
                let _ = inspection.facts.write_json_members(&mut io::sink());
            }
        }
        let _ = (format.verify)(&input, &mut |p| {
            let _ = p.to_string();
            ControlFlow::Continue(())
        });
        (format.fuzz)(&input);
    }
}

/// `binfmt inspect` and `binfmt inspect --json --rows` of `data`, rendered into a sink.
pub fn inspect(data: &[u8]) {
    let Some(input) = input(data) else { return };
    let Some(format) = registry::detect(input.head()) else {
        return;
    };
    for (rows, json) in [(false, false), (true, false), (false, true), (true, true)] {
        if let Ok(inspection) = (format.inspect)(&input, &InspectOptions { rows, json }) {
            if json {
                let _ = serde_json::to_writer(io::sink(), &inspection.facts.to_json());
                let _ = inspection.facts.write_json_members(&mut io::sink());
            } else {
                let _ = inspection.facts.write_text(&mut io::sink(), 2);
            }
            for w in &inspection.warnings {
                let _ = w.to_string();
            }
        }
    }
}

/// `binfmt verify` of `data`, every problem rendered.
pub fn verify(data: &[u8]) {
    let Some(input) = input(data) else { return };
    let Some(format) = registry::detect(input.head()) else {
        return;
    };
    let _ = (format.verify)(&input, &mut |p| {
        let _ = p.to_string();
        ControlFlow::Continue(())
    });
}

/// The read paths of the detected format's own subcommands over `data`
/// (each format's `fuzz` entry of the registry).
pub fn commands(data: &[u8]) {
    let Some(input) = input(data) else { return };
    if let Some(format) = registry::detect(input.head()) {
        (format.fuzz)(&input);
    }
}

/// `binfmt mldf pack`'s reading of SCHEMA and SAMPLES and its conversion (bounded, into
/// memory); payload paths are resolved in memory, never on the file system.
pub fn mldf_pack(schema: &[u8], samples: &[u8]) {
    crate::formats::mldf::pack::fuzz(schema, samples);
}
