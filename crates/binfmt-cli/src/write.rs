//! Where the commands that write files put their bytes: `binfmt_core::output`'s rules,
//! with `--force` and the command's inputs.
//!
//! No existing file is replaced without `--force`; an output that is one of the command's
//! inputs is refused even with it; a symlink's target gets the output; FIFOs, devices and
//! `-` (standard output) are streamed into. Status lines go to standard error, so that
//! standard output carries only data.

use std::path::Path;

use binfmt_core::output::{Output, OutputOptions};

use crate::escape;
use crate::report::Failure;

/// Opens OUT for a command with `force` and these inputs; `seekable` for writers that
/// write their header last.
pub(crate) fn open(
    out: &Path,
    force: bool,
    inputs: &[&Path],
    seekable: bool,
) -> Result<Output, Failure> {
    let options = OutputOptions::new()
        .replace(force)
        .seekable(seekable)
        .inputs(inputs.iter().copied());
    Output::create(out, &options).map_err(|e| Failure::file(escape::path(out), e))
}

/// Finishes OUT.
pub(crate) fn commit(output: Output, out: &Path) -> Result<(), Failure> {
    output
        .commit()
        .map_err(|e| Failure::file(escape::path(out), e))
}
