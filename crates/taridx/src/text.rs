//! Names from tar shards as messages show them: escaped, so that a member name can never
//! drive the terminal it is printed on.
//!
//! A tar member name is whatever bytes its writer chose, escape sequences included
//! (`\x1b]0;…` retitles a terminal, `\x1b[2J` clears it), and a Unicode direction override
//! reorders what follows it. Every `Display` of this crate that shows a name goes through
//! [`Escaped`]; the raw text stays available (`as_str`) for callers that write it
//! somewhere safe (JSON, a file).

use core::fmt::{self, Write as _};

/// A `Display` of text with control characters, backslashes and Unicode direction
/// controls escaped as Rust escapes them (`\u{1b}`, `\n`, `\\`).
///
/// ```
/// use taridx::Escaped;
/// assert_eq!(Escaped::new("a\x1b[2Jb\\c").to_string(), r"a\u{1b}[2Jb\\c");
/// assert_eq!(Escaped::new("naïve.jpg").to_string(), "naïve.jpg");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Escaped<'a>(&'a str);

impl<'a> Escaped<'a> {
    /// `text`, to be displayed escaped.
    #[must_use]
    pub const fn new(text: &'a str) -> Self {
        Escaped(text)
    }

    /// The text itself.
    #[must_use]
    pub const fn as_str(&self) -> &'a str {
        self.0
    }
}

/// True for what a terminal or a bidirectional renderer would act on rather than show.
fn needs_escape(c: char) -> bool {
    c.is_control()
        || c == '\\'
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(i) = rest.find(needs_escape) {
            let (clean, tail) = rest.split_at(i);
            f.write_str(clean)?;
            let mut chars = tail.chars();
            if let Some(c) = chars.next() {
                for e in c.escape_default() {
                    f.write_char(e)?;
                }
            }
            rest = chars.as_str();
        }
        f.write_str(rest)
    }
}

/// Bytes that should be UTF-8, displayed escaped: valid text as [`Escaped`], each invalid
/// byte as `\xNN`.
pub(crate) struct EscapedBytes<'a>(pub(crate) &'a [u8]);

impl fmt::Display for EscapedBytes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for chunk in self.0.utf8_chunks() {
            fmt::Display::fmt(&Escaped(chunk.valid()), f)?;
            for b in chunk.invalid() {
                write!(f, "\\x{b:02x}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    #[test]
    fn control_and_direction_characters_are_escaped() {
        assert_eq!(Escaped("\u{202e}gpj.exe").to_string(), r"\u{202e}gpj.exe");
        assert_eq!(Escaped("tab\there\n").to_string(), r"tab\there\n");
        assert_eq!(Escaped("\u{9b}31m").to_string(), r"\u{9b}31m");
        assert_eq!(EscapedBytes(b"a\xff\x1bb").to_string(), r"a\xff\u{1b}b");
    }
}
