//! `binfmt mldf diff A B`: the library's comparison (`mldf::diff`, linear in the two
//! files' sizes), one escaped, bounded line per difference.

use std::io::{self, Write};
use std::ops::ControlFlow;
use std::path::Path;
use std::process::ExitCode;

use binfmt_core::cache::ReadCache;
use mldf::diff::{DiffOptions, Difference, FieldAspect, Side};
use mldf::{Dataset, ReadOptions};

use super::show;
use crate::input::Input;
use crate::report::{EXIT_PROBLEMS, Failure};

pub(super) fn run(a: &Path, b: &Path, layout: bool, limit: u64) -> Result<ExitCode, Failure> {
    if a.as_os_str() == "-" && b.as_os_str() == "-" {
        return Err(Failure::usage(
            "standard input (-) can be only one of the two datasets",
        ));
    }
    let (input_a, input_b) = (Input::open(a)?, Input::open(b)?);
    crate::registry::expect(&input_a, &super::FORMAT)?;
    crate::registry::expect(&input_b, &super::FORMAT)?;
    let mut out = io::BufWriter::new(crate::write::stdout()?);
    let same = write(&mut out, &input_a, &input_b, layout, limit)?;
    out.flush().map_err(Failure::stdout)?;
    Ok(if same {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_PROBLEMS)
    })
}

/// Writes the differences between `a` and `b` to `out`, at most `limit` value lines;
/// true when nothing differs.
pub(super) fn write(
    out: &mut dyn Write,
    a: &Input,
    b: &Input,
    layout: bool,
    limit: u64,
) -> Result<bool, Failure> {
    let options = ReadOptions::new();
    // Both files by range: metadata kept, rows and payloads streamed (memory does not
    // grow with the files).
    let cache_a = ReadCache::with_head(a.source(), a.head(), a.head_len());
    let cache_b = ReadCache::with_head(b.source(), b.head(), b.head_len());
    let da = Dataset::from_data_with(&cache_a, &options)
        .map_err(|e| Failure::diagnostic(a.name(), &e))?;
    let db = Dataset::from_data_with(&cache_b, &options)
        .map_err(|e| Failure::diagnostic(b.name(), &e))?;
    let mut value_diffs = 0u64;
    let mut failed = None;
    let mut sink = |d: Difference<'_, '_, '_>| {
        let line = match d {
            Difference::Header { name, a, b } => format!("header.{name}: {a} != {b}"),
            Difference::Field {
                index,
                aspect,
                a: fa,
                b: fb,
            } => {
                let (x, y) = match aspect {
                    FieldAspect::Name => (show::quoted(fa.name()), show::quoted(fb.name())),
                    FieldAspect::Type => (show::type_name(fa), show::type_name(fb)),
                    FieldAspect::Flags => {
                        (format!("{:#x}", fa.flags()), format!("{:#x}", fb.flags()))
                    }
                    FieldAspect::MetadataSize => (
                        fa.metadata_size().to_string(),
                        fb.metadata_size().to_string(),
                    ),
                    _ => (String::from("?"), String::from("?")),
                };
                format!("field {index}: {aspect} {x} != {y}")
            }
            Difference::OnlyIn { index, side, field } => {
                let file = match side {
                    Side::A => a.name(),
                    Side::B => b.name(),
                };
                format!(
                    "field {index}: {} only in {file}",
                    show::quoted(field.name())
                )
            }
            Difference::Value(v) => {
                value_diffs = value_diffs.saturating_add(1);
                if value_diffs > limit {
                    return ControlFlow::Continue(());
                }
                format!(
                    "sample {}, field {}: {} != {}",
                    v.sample,
                    show::quoted(v.field.name()),
                    show::value(&v.a, v.crc_a),
                    show::value(&v.b, v.crc_b)
                )
            }
            _ => return ControlFlow::Continue(()),
        };
        match writeln!(out, "{line}") {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                failed = Some(e);
                ControlFlow::Break(())
            }
        }
    };
    let summary = mldf::diff::diff(&da, &db, &DiffOptions::new().layout(layout), &mut sink)
        .map_err(|e| {
            let file = match e.side {
                Side::A => a.name(),
                Side::B => b.name(),
            };
            Failure::diagnostic(file, &e.error)
        })?;
    if let Some(e) = failed {
        return Err(Failure::stdout(e));
    }
    if value_diffs > limit {
        writeln!(
            out,
            "… {} more differing values not listed",
            value_diffs - limit
        )
        .map_err(Failure::stdout)?;
    }
    Ok(summary.is_same())
}
