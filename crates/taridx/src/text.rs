//! Names from tar shards as messages show them: escaped, so that a member name can never
//! drive the terminal it is printed on.
//!
//! A tar member name is whatever bytes its writer chose, escape sequences included
//! (`\x1b]0;…` retitles a terminal, `\x1b[2J` clears it), and a Unicode direction override
//! reorders what follows it. Every `Display` of this crate that shows a name goes through
//! the workspace's one escaper, `binfmt_core::text` (re-exported here as [`Escaped`]), so
//! a name prints the same in this crate's messages as in `binfmt` and the other format
//! crates; the raw text stays available (`as_str`) for callers that write it somewhere
//! safe (JSON, a file).
//!
//! ```
//! use taridx::Escaped;
//! assert_eq!(Escaped::new("a\x1b[2Jb\\c\u{202e}").to_string(), r"a\e[2Jb\\c\u{202e}");
//! assert_eq!(Escaped::new("naïve.jpg").to_string(), "naïve.jpg");
//! ```

pub use binfmt_core::text::Escaped;
/// Bytes that should be UTF-8, displayed escaped: valid text as [`Escaped`], each invalid
/// byte as `\xNN`.
pub(crate) use binfmt_core::text::EscapedBytes;

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    #[test]
    fn control_and_direction_characters_are_escaped() {
        assert_eq!(
            Escaped::new("\u{202e}gpj.exe").to_string(),
            r"\u{202e}gpj.exe"
        );
        assert_eq!(Escaped::new("tab\there\n").to_string(), r"tab\there\n");
        assert_eq!(Escaped::new("\u{9b}31m").to_string(), r"\u{9b}31m");
        assert_eq!(EscapedBytes::new(b"a\xff\x1bb").to_string(), r"a\xff\eb");
    }
}
