//! What `binfmt` prints when something is wrong, and its exit codes.

use std::fmt;
use std::path::{Path, PathBuf};

use binfmt_core::Diagnostic;

/// Exit code when a file is invalid, unreadable or of an unknown format.
pub(crate) const EXIT_PROBLEMS: u8 = 1;
// Exit code 2 (bad arguments) comes from clap.

/// Writes one line to standard error. A failure to write there is ignored: there is
/// nowhere left to report it, and `eprintln!` would panic instead.
pub(crate) fn say(line: fmt::Arguments<'_>) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// A command that could not be carried out.
#[derive(Debug)]
pub(crate) struct Failure {
    /// The file the failure is about, if any.
    path: Option<PathBuf>,
    message: String,
    broken_pipe: bool,
}

impl Failure {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Failure {
            path: None,
            message: message.into(),
            broken_pipe: false,
        }
    }

    /// Writing to standard output failed.
    pub(crate) fn stdout(err: std::io::Error) -> Self {
        Failure {
            broken_pipe: err.kind() == std::io::ErrorKind::BrokenPipe,
            ..Failure::new(format!("cannot write to standard output: {err}"))
        }
    }

    /// The message without the file name (for `"error"` in JSON, next to `"file"`).
    pub(crate) fn message(&self) -> &str {
        &self.message
    }

    /// True when standard output was closed by its reader (`binfmt … | head`).
    pub(crate) fn is_broken_pipe(&self) -> bool {
        self.broken_pipe
    }

    /// `PATH: message`.
    pub(crate) fn file(path: &Path, message: impl fmt::Display) -> Self {
        Failure {
            path: Some(path.to_path_buf()),
            ..Failure::new(message.to_string())
        }
    }

    pub(crate) fn io(path: &Path, err: &std::io::Error) -> Self {
        Failure::file(path, err)
    }

    /// `PATH: byte N: message` from a format error.
    pub(crate) fn diagnostic(path: &Path, err: &dyn Diagnostic) -> Self {
        Failure::file(path, Problem::from_diagnostic(err))
    }
}

impl fmt::Display for Failure {
    /// `PATH: message`, or the message alone.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(f, "{}: {}", path.display(), self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// One thing `binfmt verify` found wrong with a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    offset: Option<u64>,
    message: String,
}

impl Problem {
    pub(crate) fn new(offset: Option<u64>, message: impl Into<String>) -> Self {
        Problem {
            offset,
            message: message.into(),
        }
    }

    /// The error's message, with its offset in front unless the message already names it
    /// (`byte N` appears once either way).
    pub(crate) fn from_diagnostic(err: &dyn Diagnostic) -> Self {
        let message = err.to_string();
        let offset = err
            .offset()
            .filter(|offset| !message.contains(&format!("byte {offset}")));
        Problem::new(offset, message)
    }
}

impl fmt::Display for Problem {
    /// `byte N: message`, or just the message when it has no offset.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(offset) => write!(f, "byte {offset}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}
