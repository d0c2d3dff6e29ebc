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

/// Set by [`guard_standard_streams`] when the process started without a standard output.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Run first: notes whether the process started with its standard output closed
/// (`>&-`). The Rust runtime puts `/dev/null` on a closed standard descriptor before
/// `main` (so that no file opened later becomes descriptor 1), and writes there then
/// succeed, discarded; [`stdout`] and [`open`] refuse them instead. The runtime opens
/// that `/dev/null` for reading and writing, which a shell's `>/dev/null` never does:
/// that is how it is told apart (Linux, through `/proc/self`; elsewhere nothing is
/// noted).
pub(crate) fn guard_standard_streams() {
    if stdout_was_closed() {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn stdout_was_closed() -> bool {
    let is_null = std::fs::read_link("/proc/self/fd/1").is_ok_and(|t| t == Path::new("/dev/null"));
    if !is_null {
        return false;
    }
    // `flags:\t0100002`: octal, the access mode in the low two bits (2 = O_RDWR).
    let Ok(info) = std::fs::read_to_string("/proc/self/fdinfo/1") else {
        return false;
    };
    info.lines()
        .find_map(|l| l.strip_prefix("flags:"))
        .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
        .is_some_and(|flags| flags & 0o3 == 0o2)
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn stdout_was_closed() -> bool {
    false
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
