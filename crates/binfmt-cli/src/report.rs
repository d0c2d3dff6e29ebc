//! What `binfmt` prints when something is wrong, and its exit codes.

use std::fmt;
use std::process::ExitCode;

use binfmt_core::{Diagnostic, Severity};

use crate::escape;

/// Exit code: a file is invalid, unreadable or of an unknown format, or a command failed.
pub(crate) const EXIT_PROBLEMS: u8 = 1;
/// Exit code: bad command-line arguments (clap uses it too).
pub(crate) const EXIT_USAGE: u8 = 2;

/// Writes one line to standard error, the sink of every message: whatever it is made
/// of, control and format characters are escaped and URLs redacted (line by line: the
/// line breaks of a usage message are kept). A failure to write there is ignored: there
/// is nowhere left to report it, and `eprintln!` would panic instead.
pub(crate) fn say(line: fmt::Arguments<'_>) {
    use std::io::Write as _;
    let line = safe_lines(&line.to_string());
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Why a command stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    /// A file or the system: exit 1.
    Problem,
    /// The arguments, found wrong after parsing: exit 2.
    Usage,
    /// Standard output was closed by its reader (`binfmt … | head`): exit 0, silently.
    BrokenPipe,
}

/// A command that could not be carried out.
///
/// This is where every error text becomes a message line, ours and other libraries'
/// (`io::Error`, binfmt-remote, object_store) alike, so it is where they are made safe,
/// once: the file name and the message pass through [`escape::message`] (URLs redacted,
/// control and format characters escaped; idempotent, so parts escaped before are kept
/// as they are).
#[derive(Debug)]
pub(crate) struct Failure {
    /// The file the failure is about (escaped for the terminal), if any.
    file: Option<String>,
    /// The message, safe for a terminal.
    message: String,
    why: Why,
}

impl Failure {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Failure {
            file: None,
            message: escape::message(&message.into()),
            why: Why::Problem,
        }
    }

    /// Bad arguments detected after parsing (`--hex zz`, eight `--entry` flags): exit 2.
    pub(crate) fn usage(message: impl Into<String>) -> Self {
        Failure {
            why: Why::Usage,
            ..Failure::new(message)
        }
    }

    /// Writing to standard output failed: a reader that closed it (`| head`) ends the
    /// command quietly with 0 (`EPIPE`); any other failure, a closed descriptor included,
    /// is an error.
    pub(crate) fn stdout(err: std::io::Error) -> Self {
        Failure {
            why: if err.kind() == std::io::ErrorKind::BrokenPipe {
                Why::BrokenPipe
            } else {
                Why::Problem
            },
            ..Failure::new(format!("cannot write to standard output: {err}"))
        }
    }

    /// `FILE: message`, where `file` is how the user named it. A message that names the
    /// file itself in front (binfmt-remote's `URL: cause`) is shown without that prefix,
    /// so that the name is printed once.
    pub(crate) fn file(file: impl fmt::Display, message: impl fmt::Display) -> Self {
        let file = escape::message(&file.to_string());
        let message = message.to_string();
        let message = match message.split_once(": ") {
            Some((head, rest))
                if binfmt_core::text::is_url(head)
                    && (escape::message(head) == file || binfmt_core::text::is_url(&file)) =>
            {
                rest.to_owned()
            }
            _ => message,
        };
        Failure {
            file: Some(file),
            ..Failure::new(message)
        }
    }

    /// `FILE: byte N: message` from a format error.
    pub(crate) fn diagnostic(file: impl fmt::Display, err: &dyn Diagnostic) -> Self {
        Failure::file(file, Problem::from_diagnostic(Severity::Error, err))
    }

    /// The message without the file name (for `"error"` in JSON, next to `"file"`).
    pub(crate) fn message(&self) -> &str {
        &self.message
    }

    /// True when standard output was closed by its reader.
    pub(crate) fn is_broken_pipe(&self) -> bool {
        self.why == Why::BrokenPipe
    }

    /// The exit code this failure ends the command with.
    pub(crate) fn exit_code(&self) -> ExitCode {
        match self.why {
            Why::Problem => ExitCode::from(EXIT_PROBLEMS),
            Why::Usage => ExitCode::from(EXIT_USAGE),
            Why::BrokenPipe => ExitCode::SUCCESS,
        }
    }
}

impl fmt::Display for Failure {
    /// `FILE: message`, or the message alone.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "{file}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl From<clap::Error> for Failure {
    /// Arguments a format's subcommand could not make sense of: clap's lines, each made
    /// safe (they quote the arguments).
    fn from(e: clap::Error) -> Self {
        Failure {
            file: None,
            message: safe_lines(e.to_string().trim_end()),
            why: Why::Usage,
        }
    }
}

/// Text of several lines made safe line by line (its line breaks kept).
pub(crate) fn safe_lines(text: &str) -> String {
    text.lines()
        .map(escape::message)
        .collect::<Vec<_>>()
        .join("\n")
}

/// One thing `binfmt verify` found: `byte N: message` or `warning: byte N: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    severity: Severity,
    offset: Option<u64>,
    message: String,
}

impl Problem {
    /// From any format's error: the offset is the error's, never searched in its text.
    pub(crate) fn from_diagnostic(severity: Severity, err: &dyn Diagnostic) -> Self {
        Problem {
            severity,
            offset: err.offset(),
            message: escape::text(&err.message().to_string()),
        }
    }

    pub(crate) fn severity(&self) -> Severity {
        self.severity
    }

    pub(crate) fn offset(&self) -> Option<u64> {
        self.offset
    }

    pub(crate) fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Problem {
    /// `byte N: message`, `message` (no position), with `warning: ` in front of warnings.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.severity == Severity::Warning {
            f.write_str("warning: ")?;
        }
        match self.offset {
            Some(offset) => write!(f, "byte {offset}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}
