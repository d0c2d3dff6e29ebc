//! Where the commands put their bytes: `binfmt_core::output`'s rules for OUT, with
//! `--force` and the command's inputs, and the one rule for standard output.
//!
//! No existing file is replaced without `--force`; an output that is one of the command's
//! inputs is refused even with it; a symlink's target gets the output; FIFOs, devices and
//! `-` (standard output) are streamed into. Status lines go to standard error, so that
//! standard output carries only data.
//!
//! Standard output, for every command that writes there (`-` as OUT, listings, values,
//! JSON): a reader that closes it early (`binfmt … | head`) ends the command quietly
//! with 0, whatever it was writing; a standard output that is closed from the start
//! (`binfmt … >&-`) is an error (exit 1) before anything is done, never a silent success.

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use binfmt_core::output::{Output, OutputOptions};

use crate::escape;
use crate::report::Failure;

/// Set when the process started without a standard output (see
/// [`started_without_standard_output`]).
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Notes that the process started with its standard output closed (`>&-`): called by the
/// binary before `main` (its `startup` module), where a closed descriptor can still be
/// told from an open one. The Rust runtime then puts `/dev/null` on it, and writes there
/// would succeed, discarded; the commands that write there refuse them instead. A standard
/// output that *is* `/dev/null` (`>/dev/null`, `1<>/dev/null`, Python's
/// `subprocess.DEVNULL`) is written to, as any other.
pub fn started_without_standard_output() {
    STDOUT_CLOSED.store(true, Ordering::Relaxed);
}

/// The failure of a command that must write to a standard output that is closed.
fn closed() -> Failure {
    Failure::new("cannot write to standard output: it is closed")
}

/// Standard output, for a command that writes there.
///
/// # Errors
/// When standard output is closed (`>&-`).
pub(crate) fn stdout() -> Result<io::StdoutLock<'static>, Failure> {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return Err(closed());
    }
    Ok(io::stdout().lock())
}

/// True when `out` is standard output (`-`).
pub(crate) fn is_stdout(out: &Path) -> bool {
    out.as_os_str() == "-"
}

/// A failure to write OUT: standard output's rule for `-` (a closed pipe ends quietly),
/// `OUT: message` for a file.
pub(crate) fn failure(out: &Path, err: io::Error) -> Failure {
    if is_stdout(out) {
        Failure::stdout(err)
    } else {
        Failure::file(escape::path(out), err)
    }
}

/// Opens OUT for a command with `force` and these inputs; `seekable` for writers that
/// write their header last.
///
/// # Errors
/// OUT cannot be written (the output rules), or it is `-` and standard output is closed.
pub(crate) fn open(
    out: &Path,
    force: bool,
    inputs: &[&Path],
    seekable: bool,
) -> Result<Output, Failure> {
    if is_stdout(out) && STDOUT_CLOSED.load(Ordering::Relaxed) {
        return Err(closed());
    }
    let options = OutputOptions::new()
        .replace(force)
        .seekable(seekable)
        .inputs(inputs.iter().copied());
    // By identity too: an input named by `-` or a `file://` URL is the same file as OUT
    // when its device and inode are, whatever its name says.
    let options = inputs
        .iter()
        .filter_map(|input| crate::input::identity(input))
        .fold(options, OutputOptions::input_id);
    Output::create(out, &options).map_err(|e| failure(out, e))
}

/// Finishes OUT.
pub(crate) fn commit(output: Output, out: &Path) -> Result<(), Failure> {
    output.commit().map_err(|e| failure(out, e))
}
