//! Text from files and from the network made safe to show: the one escaper and the one
//! URL redaction of the workspace.
//!
//! Every crate and the command-line tools show names, keys and paths through this escaper,
//! so one hostile name prints the same in a library error and in a CLI listing. It turns
//! every character that could act on a terminal, or make a name display as another, into
//! a visible escape: the C0 controls, DEL and the C1 controls (`\n`, `\r`, `\t`, `\e` for
//! ESC, `\u{9b}` for the others), the line and paragraph separators, and the Unicode
//! format characters (bidirectional embeddings, overrides, isolates and marks, zero-width
//! characters, the soft hyphen, tags: "Trojan Source"). A backslash becomes `\\`, so that
//! an escape and the text it stands for differ, and a byte that is not part of valid
//! UTF-8 becomes `\xNN`. Printable text, non-ASCII included, is kept as it is.
//!
//! The escaper needs no allocation: [`Escaped`] and [`EscapedBytes`] are `Display`
//! wrappers, [`write_escaped`] and [`write_escaped_bytes`] write into any
//! [`fmt::Write`], and [`EscapedChars`] yields the escaped text one input
//! character at a time, for callers that cut it to a width without splitting an escape.
//! With the `alloc` feature, `escape` and `escape_bytes` return a `String`.
//!
//! With `alloc`, `redact_url` removes what must never be printed from a URL: the user
//! name and password, and the query string (a presigned URL's `X-Amz-Signature` and
//! `X-Amz-Credential` live there), shown as `?…`, and the fragment.
//!
//! ```
//! use binfmt_core::text::{self, Escaped, EscapedBytes};
//!
//! assert_eq!(Escaped::new("a\x1b[2Jb\u{202e}c\n").to_string(), r"a\e[2Jb\u{202e}c\n");
//! assert_eq!(Escaped::new("ñandú 日本").to_string(), "ñandú 日本");
//! assert_eq!(EscapedBytes::new(b"a\\b\xff\x9b").to_string(), r"a\\b\xff\x9b");
//! assert!(text::is_url("S3://bucket/key"));
//! ```

#[cfg(feature = "alloc")]
use alloc::string::String;
use core::fmt;
use core::iter::FusedIterator;
use core::str::{Chars, Utf8Chunks};

/// The URL schemes the workspace reads (`s3`, `gs`, `az`, `http`, `https`, `file`).
pub const URL_SCHEMES: [&str; 11] = [
    "s3", "s3a", "gs", "az", "azure", "abfs", "abfss", "adl", "http", "https", "file",
];

/// True when `c` is shown as an escape ([`EscapedChar`]): a control character (C0, DEL,
/// C1), a line or paragraph separator, or a Unicode format character (bidirectional
/// controls, zero-width characters, the soft hyphen, tags, …). A backslash is not one of
/// them: it is printable, and only the escaper doubles it.
#[must_use]
pub fn needs_escape(c: char) -> bool {
    c.is_control() || is_format(c)
}

/// The characters of Unicode's general categories Cf (format), Zl and Zp: invisible,
/// yet they reorder or hide the text around them.
fn is_format(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{600}'..='\u{605}'
            | '\u{61c}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{890}'..='\u{891}'
            | '\u{8e2}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0001}'
            | '\u{e0020}'..='\u{e007f}'
    )
}

/// One character of the input, or one byte of it that is not UTF-8, as the escaper shows
/// it: the character itself, or its escape (`\\`, `\n`, `\r`, `\t`, `\e`, `\u{9b}`,
/// `\xNN`). This is where the escaper's one rule set lives; every other form of it is
/// built on this type.
///
/// Callers that cut escaped text to a width walk it with [`EscapedChars`] and use
/// [`char_count`](EscapedChar::char_count), so that a cut never splits an escape.
///
/// ```
/// use binfmt_core::text::EscapedChar;
///
/// assert_eq!(EscapedChar::new('\x1b').to_string(), r"\e");
/// assert_eq!(EscapedChar::new('\u{202e}').char_count(), 8);
/// assert_eq!(EscapedChar::invalid_byte(0xff).to_string(), r"\xff");
/// assert!(!EscapedChar::new('ñ').is_escape());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EscapedChar(Shown);

/// How one [`EscapedChar`] is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Shown {
    /// Printable: the character itself.
    Plain(char),
    /// A backslash and this character: `\\`, `\n`, `\r`, `\t`, `\e`.
    Short(char),
    /// `\u{…}` with the code point in lowercase hexadecimal.
    Unicode(char),
    /// `\xNN`: a byte that is not part of valid UTF-8.
    Byte(u8),
}

impl EscapedChar {
    /// `c` as the escaper shows it.
    #[must_use]
    pub fn new(c: char) -> EscapedChar {
        EscapedChar(match c {
            '\\' => Shown::Short('\\'),
            '\n' => Shown::Short('n'),
            '\r' => Shown::Short('r'),
            '\t' => Shown::Short('t'),
            '\x1b' => Shown::Short('e'),
            c if needs_escape(c) => Shown::Unicode(c),
            c => Shown::Plain(c),
        })
    }

    /// A byte that is not part of valid UTF-8, shown as `\xNN`.
    #[must_use]
    pub const fn invalid_byte(byte: u8) -> EscapedChar {
        EscapedChar(Shown::Byte(byte))
    }

    /// True when this is shown as an escape, false for a character shown as it is.
    #[must_use]
    pub const fn is_escape(&self) -> bool {
        !matches!(self.0, Shown::Plain(_))
    }

    /// The number of characters this writes (1 for a character shown as it is; an
    /// escape is ASCII, so this is also its length in bytes).
    #[must_use]
    pub fn char_count(&self) -> usize {
        match self.0 {
            Shown::Plain(_) => 1,
            Shown::Short(_) => 2,
            Shown::Byte(_) => 4,
            // `\u{` + the hexadecimal digits + `}`.
            Shown::Unicode(c) => {
                4 + match u32::from(c) {
                    0..=0xf => 1,
                    0x10..=0xff => 2,
                    0x100..=0xfff => 3,
                    0x1000..=0xffff => 4,
                    0x1_0000..=0xf_ffff => 5,
                    _ => 6,
                }
            }
        }
    }

    /// Writes this to `out`.
    ///
    /// # Errors
    ///
    /// The error of `out`.
    pub fn write_to<W: fmt::Write + ?Sized>(&self, out: &mut W) -> fmt::Result {
        match self.0 {
            Shown::Plain(c) => out.write_char(c),
            Shown::Short(c) => {
                out.write_char('\\')?;
                out.write_char(c)
            }
            Shown::Unicode(c) => write!(out, "\\u{{{:x}}}", u32::from(c)),
            Shown::Byte(b) => write!(out, "\\x{b:02x}"),
        }
    }
}

impl fmt::Display for EscapedChar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

/// The escaped text of some bytes, one [`EscapedChar`] per input character (or per byte
/// that is not UTF-8): from [`Escaped::chars`] and [`EscapedBytes::chars`].
///
/// ```
/// use binfmt_core::text::EscapedBytes;
///
/// let widths: Vec<usize> = EscapedBytes::new(b"a\x1b\xff").chars().map(|c| c.char_count()).collect();
/// assert_eq!(widths, [1, 2, 4]);
/// ```
#[derive(Debug, Clone)]
pub struct EscapedChars<'a> {
    chunks: Utf8Chunks<'a>,
    /// The rest of the current chunk's valid text.
    valid: Chars<'a>,
    /// The current chunk's invalid bytes, after `valid`.
    invalid: &'a [u8],
}

impl<'a> EscapedChars<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        EscapedChars {
            chunks: bytes.utf8_chunks(),
            valid: "".chars(),
            invalid: &[],
        }
    }
}

impl Iterator for EscapedChars<'_> {
    type Item = EscapedChar;

    fn next(&mut self) -> Option<EscapedChar> {
        loop {
            if let Some(c) = self.valid.next() {
                return Some(EscapedChar::new(c));
            }
            if let Some((&b, rest)) = self.invalid.split_first() {
                self.invalid = rest;
                return Some(EscapedChar::invalid_byte(b));
            }
            let chunk = self.chunks.next()?;
            self.valid = chunk.valid().chars();
            self.invalid = chunk.invalid();
        }
    }
}

impl FusedIterator for EscapedChars<'_> {}

/// Writes `text` escaped to `out`: each character as [`EscapedChar`] shows it. Needs no
/// allocation.
///
/// ```
/// use binfmt_core::text;
///
/// let mut out = String::new();
/// text::write_escaped(&mut out, "tab\there\u{9b}")?;
/// assert_eq!(out, r"tab\there\u{9b}");
/// # Ok::<(), core::fmt::Error>(())
/// ```
///
/// # Errors
///
/// The error of `out`.
pub fn write_escaped<W: fmt::Write + ?Sized>(out: &mut W, text: &str) -> fmt::Result {
    let mut rest = text;
    // Printable runs are written whole: most names have nothing to escape.
    while let Some(at) = rest.find(|c| EscapedChar::new(c).is_escape()) {
        let (clean, tail) = rest.split_at_checked(at).unwrap_or((rest, ""));
        out.write_str(clean)?;
        let mut chars = tail.chars();
        if let Some(c) = chars.next() {
            EscapedChar::new(c).write_to(out)?;
        }
        rest = chars.as_str();
    }
    out.write_str(rest)
}

/// Writes `bytes` escaped to `out`: valid UTF-8 as [`write_escaped`] writes it, every
/// byte that is not part of valid UTF-8 as `\xNN`. Needs no allocation.
///
/// ```
/// use binfmt_core::text;
///
/// let mut out = String::new();
/// text::write_escaped_bytes(&mut out, b"ok\xff\x07")?;
/// assert_eq!(out, r"ok\xff\u{7}");
/// # Ok::<(), core::fmt::Error>(())
/// ```
///
/// # Errors
///
/// The error of `out`.
pub fn write_escaped_bytes<W: fmt::Write + ?Sized>(out: &mut W, bytes: &[u8]) -> fmt::Result {
    for chunk in bytes.utf8_chunks() {
        write_escaped(out, chunk.valid())?;
        for &b in chunk.invalid() {
            EscapedChar::invalid_byte(b).write_to(out)?;
        }
    }
    Ok(())
}

/// Text displayed escaped ([`write_escaped`]), without copying it; the raw text stays
/// available for output that is not a terminal (JSON, a file).
///
/// ```
/// use binfmt_core::text::Escaped;
///
/// assert_eq!(Escaped::new("a\x1b[2Jb\\c").to_string(), r"a\e[2Jb\\c");
/// assert_eq!(Escaped::new("naïve.jpg").to_string(), "naïve.jpg");
/// assert_eq!(Escaped::new("x\n").as_str(), "x\n");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Escaped<'a>(&'a str);

impl<'a> Escaped<'a> {
    /// `text`, to be displayed escaped.
    #[must_use]
    pub const fn new(text: &'a str) -> Self {
        Escaped(text)
    }

    /// The text itself, not escaped.
    #[must_use]
    pub const fn as_str(&self) -> &'a str {
        self.0
    }

    /// The escaped text one input character at a time.
    #[must_use]
    pub fn chars(&self) -> EscapedChars<'a> {
        EscapedChars::new(self.0.as_bytes())
    }
}

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_escaped(f, self.0)
    }
}

/// Bytes that should be UTF-8 displayed escaped ([`write_escaped_bytes`]: invalid UTF-8
/// as `\xNN`), without copying them. Different byte strings always display differently.
///
/// ```
/// use binfmt_core::text::EscapedBytes;
///
/// assert_eq!(EscapedBytes::new(b"bad\xff\x1b]0;t\x07").to_string(), r"bad\xff\e]0;t\u{7}");
/// assert_ne!(EscapedBytes::new(br"a\xff").to_string(), EscapedBytes::new(b"a\xff").to_string());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EscapedBytes<'a>(&'a [u8]);

impl<'a> EscapedBytes<'a> {
    /// `bytes`, to be displayed escaped.
    #[must_use]
    pub const fn new(bytes: &'a [u8]) -> Self {
        EscapedBytes(bytes)
    }

    /// The bytes themselves, not escaped.
    #[must_use]
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.0
    }

    /// The escaped text one input character (or invalid byte) at a time.
    #[must_use]
    pub fn chars(&self) -> EscapedChars<'a> {
        EscapedChars::new(self.0)
    }
}

impl fmt::Display for EscapedBytes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_escaped_bytes(f, self.0)
    }
}

/// Appends `c` to `out`, escaped as [`escape`] escapes it (a backslash doubled).
#[cfg(feature = "alloc")]
pub fn push_escaped(out: &mut String, c: char) {
    // Writing to a `String` cannot fail.
    let _ = EscapedChar::new(c).write_to(out);
}

/// Appends `c`, escaped when [`needs_escape`] says so; a backslash is kept.
#[cfg(feature = "alloc")]
fn push_control(out: &mut String, c: char) {
    match c {
        '\\' => out.push('\\'),
        c => push_escaped(out, c),
    }
}

/// `text` with every character that [`needs_escape`] written as an escape (`\n`, `\r`,
/// `\t`, `\e`, `\u{9b}`, `\u{202e}`) and a backslash as `\\`: [`Escaped`] as a `String`.
///
/// ```
/// assert_eq!(binfmt_core::text::escape("a\x1b[2J\\"), r"a\e[2J\\");
/// ```
#[cfg(feature = "alloc")]
#[must_use]
pub fn escape(text: &str) -> String {
    written(text.len(), |out| write_escaped(out, text))
}

/// `bytes` escaped as [`escape`] escapes text, every byte that is not part of valid UTF-8
/// as `\xNN`: [`EscapedBytes`] as a `String`.
///
/// ```
/// assert_eq!(binfmt_core::text::escape_bytes(b"ok\xff\x07"), r"ok\xff\u{7}");
/// ```
#[cfg(feature = "alloc")]
#[must_use]
pub fn escape_bytes(bytes: &[u8]) -> String {
    written(bytes.len(), |out| write_escaped_bytes(out, bytes))
}

/// What `write` writes, into a `String` of `capacity`.
#[cfg(feature = "alloc")]
fn written(capacity: usize, write: impl FnOnce(&mut String) -> fmt::Result) -> String {
    let mut out = String::with_capacity(capacity);
    // Writing to a `String` cannot fail.
    let _ = write(&mut out);
    out
}

/// `text` with the characters that [`needs_escape`] escaped as [`escape`] escapes them,
/// backslashes kept: for a message that may already hold escaped parts (a name escaped
/// by [`escape`]). Applying it twice gives the same text as applying it once, so a
/// message can be made safe where it is printed whatever was escaped before.
#[cfg(feature = "alloc")]
#[must_use]
pub fn escape_controls(text: &str) -> String {
    if !text.chars().any(needs_escape) {
        return String::from(text);
    }
    let mut out = String::with_capacity(text.len().saturating_add(8));
    for c in text.chars() {
        push_control(&mut out, c);
    }
    out
}

/// True when `text` is a URL the workspace reads (`SCHEME://…` with a scheme of
/// [`URL_SCHEMES`], in any case), as opposed to a local path: the one test, used by
/// binfmt-remote, the CLI (with or without remote support) and the Python package.
#[must_use]
pub fn is_url(text: &str) -> bool {
    text.split_once("://")
        .is_some_and(|(scheme, _)| URL_SCHEMES.iter().any(|s| s.eq_ignore_ascii_case(scheme)))
}

/// `url` as messages may show it: without the user name and password (`user:pass@`),
/// the query string shown as `?…` (it may hold a presigned URL's signature and
/// credential), and without the fragment. Text that is not a URL ([`is_url`]) is
/// returned as it is.
#[cfg(feature = "alloc")]
#[must_use]
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://").filter(|_| is_url(url)) else {
        return String::from(url);
    };
    let (before_fragment, _) = rest.split_once('#').unwrap_or((rest, ""));
    let (location, query) = match before_fragment.split_once('?') {
        Some((location, query)) => (location, Some(query)),
        None => (before_fragment, None),
    };
    let (authority, path) = match location.find('/') {
        Some(at) => location.split_at(at),
        None => (location, ""),
    };
    // In `abfs[s]://container@account…` the "user name" is the container, not a
    // credential: kept, unless a password follows it.
    let container = ["abfs", "abfss"]
        .iter()
        .any(|s| s.eq_ignore_ascii_case(scheme));
    let host = match authority.rsplit_once('@') {
        Some((user, _)) if container && !user.contains(':') => authority,
        Some((_, host)) => host,
        None => authority,
    };
    let mut out = String::with_capacity(url.len());
    out.push_str(scheme);
    out.push_str("://");
    out.push_str(host);
    out.push_str(path);
    if query.is_some_and(|q| !q.is_empty()) {
        out.push_str("?…");
    }
    out
}

/// `text` with every URL in it ([`is_url`]'s schemes, up to the next white space,
/// quote, `(`, `)`, `<`, `>` or the end) passed through [`redact_url`]: for messages of
/// other libraries, which may quote the URL they failed on.
#[cfg(feature = "alloc")]
#[must_use]
pub fn redact_urls_in(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let head = rest.get(..at).unwrap_or("");
        let scheme_start = head
            .rfind(|c: char| !c.is_ascii_alphanumeric())
            .map_or(0, |i| i + 1);
        let scheme = head.get(scheme_start..).unwrap_or("");
        let tail = rest.get(at..).unwrap_or("");
        let end = tail
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '(' | ')' | '<' | '>'))
            .unwrap_or(tail.len());
        // Punctuation after a URL (`URL: cause`, `URL, …`) is the sentence's.
        let end = tail.get(..end).map_or(end, |url| {
            url.trim_end_matches([':', ',', '.', ';', '!']).len()
        });
        let whole_end = at.saturating_add(end);
        let candidate = rest.get(scheme_start..whole_end).unwrap_or("");
        if URL_SCHEMES.iter().any(|s| s.eq_ignore_ascii_case(scheme)) {
            out.push_str(head.get(..scheme_start).unwrap_or(""));
            out.push_str(&redact_url(candidate));
        } else {
            out.push_str(rest.get(..whole_end).unwrap_or(""));
        }
        // `end` is at least 3 (the "://" itself): the loop moves on.
        rest = rest.get(whole_end..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod no_alloc_tests {
    use super::*;
    use std::string::{String, ToString};
    use std::vec::Vec;

    /// What `EscapedChars` yields, joined: must equal the `Display` forms.
    fn joined(chars: EscapedChars<'_>) -> String {
        chars.map(|c| c.to_string()).collect()
    }

    #[test]
    fn one_rule_set_for_text_bytes_and_single_characters() {
        let hostile = "a\x1b[2J\u{9b}b\u{202e}c\u{200b}\\d\n\u{0}\u{e0041}ñ";
        let shown = r"a\e[2J\u{9b}b\u{202e}c\u{200b}\\d\n\u{0}\u{e0041}ñ";
        assert_eq!(Escaped::new(hostile).to_string(), shown);
        assert_eq!(EscapedBytes::new(hostile.as_bytes()).to_string(), shown);
        assert_eq!(joined(Escaped::new(hostile).chars()), shown);
        let bytes = b"x\xff\xe6\x97\x1b";
        assert_eq!(EscapedBytes::new(bytes).to_string(), r"x\xff\xe6\x97\e");
        assert_eq!(joined(EscapedBytes::new(bytes).chars()), r"x\xff\xe6\x97\e");
    }

    #[test]
    fn char_counts_are_the_lengths_written() {
        let all: Vec<char> = [
            '\0', '\u{f}', '\u{10}', '\u{7f}', '\u{9b}', '\u{ad}', '\u{200b}',
        ]
        .into_iter()
        .chain(['\u{110bd}', '\u{e0041}', '\\', '\n', '\x1b', 'a', '日'])
        .collect();
        for c in all {
            let e = EscapedChar::new(c);
            assert_eq!(e.char_count(), e.to_string().chars().count(), "{c:?}");
            assert_eq!(e.is_escape(), c == '\\' || needs_escape(c), "{c:?}");
        }
        assert_eq!(EscapedChar::invalid_byte(0).to_string(), r"\x00");
        assert_eq!(EscapedChar::invalid_byte(0).char_count(), 4);
    }

    #[test]
    fn writes_into_a_fixed_buffer_without_allocating() {
        /// A writer over a fixed array: what a `no_std` caller without `alloc` has.
        struct Fixed([u8; 32], usize);
        impl fmt::Write for Fixed {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                let end = self.1.checked_add(s.len()).ok_or(fmt::Error)?;
                self.0
                    .get_mut(self.1..end)
                    .ok_or(fmt::Error)?
                    .copy_from_slice(s.as_bytes());
                self.1 = end;
                Ok(())
            }
        }
        let mut out = Fixed([0; 32], 0);
        write_escaped_bytes(&mut out, b"n\x1b\xff").unwrap();
        assert_eq!(out.0.get(..out.1).unwrap(), br"n\e\xff");
        // A writer's error comes back; nothing panics.
        let mut small = Fixed([0; 32], 0);
        assert!(write_escaped(&mut small, &"\u{1}".repeat(10)).is_err());
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;

    #[test]
    fn controls_and_format_characters_are_escaped() {
        for (text, escaped) in [
            ("a\x1b[2Jb\u{9b}c\n", r"a\e[2Jb\u{9b}c\n"),
            ("\x07\x7f\u{85}\t\r", r"\u{7}\u{7f}\u{85}\t\r"),
            (
                "a\u{202e}b\u{2066}\u{200b}\u{feff}\u{ad}\u{2028}",
                r"a\u{202e}b\u{2066}\u{200b}\u{feff}\u{ad}\u{2028}",
            ),
            ("\u{e0041}", r"\u{e0041}"),
            ("ñandú 日本 🦀", "ñandú 日本 🦀"),
            ("back\\slash", r"back\\slash"),
        ] {
            assert_eq!(escape(text), escaped, "{text:?}");
        }
    }

    #[test]
    fn escaping_controls_keeps_backslashes_and_is_idempotent() {
        for (text, escaped) in [
            ("a\\e\x1b]0;x\x07 \u{202e}", r"a\e\e]0;x\u{7} \u{202e}"),
            ("plain ü 日本", "plain ü 日本"),
            ("a\x1b[31mb\x07c\x7f", r"a\e[31mb\u{7}c\u{7f}"),
            ("\u{9b}x\u{85}", r"\u{9b}x\u{85}"),
            ("a\u{202e}b", r"a\u{202e}b"),
            ("\0\n\t", r"\u{0}\n\t"),
        ] {
            assert_eq!(escape_controls(text), escaped, "{text:?}");
            assert_eq!(escape_controls(escaped), escaped, "{text:?}");
        }
        assert_eq!(escape_controls(&escape("n\\\x1b")), escape("n\\\x1b"));
    }

    #[test]
    fn urls() {
        for u in [
            "s3://b/k",
            "GS://b/k",
            "az://c/b",
            "http://h/x",
            "HTTPS://h",
            "file:///x",
        ] {
            assert!(is_url(u), "{u}");
        }
        for u in ["ftp://h/x", "data/x.taco", "C:\\x", "-", "s3:/b", ""] {
            assert!(!is_url(u), "{u}");
        }
    }

    #[test]
    fn redaction_drops_credentials_queries_and_fragments() {
        assert_eq!(
            redact_url(
                "https://AKIA:secret@bucket.s3.amazonaws.com/k.taco?X-Amz-Credential=AKIA%2F&X-Amz-Signature=abc#frag"
            ),
            "https://bucket.s3.amazonaws.com/k.taco?…"
        );
        assert_eq!(redact_url("s3://bucket/a@b/key"), "s3://bucket/a@b/key");
        assert_eq!(redact_url("http://h:8080/x?"), "http://h:8080/x");
        assert_eq!(redact_url("http://u@h?q=1"), "http://h?…");
        assert_eq!(redact_url("file:///tmp/x#y"), "file:///tmp/x");
        assert_eq!(redact_url("dir/x?y"), "dir/x?y");
    }

    #[test]
    fn urls_inside_messages_are_redacted() {
        assert_eq!(
            redact_urls_in(
                "error sending request for url (https://u:p@h/x?X-Amz-Signature=s): refused"
            ),
            "error sending request for url (https://h/x?…): refused"
        );
        assert_eq!(redact_urls_in("no url here"), "no url here");
        assert_eq!(
            redact_urls_in("ftp://h/x?a and s3://b/k?s"),
            "ftp://h/x?a and s3://b/k?…"
        );
        assert_eq!(redact_urls_in("trailing ://"), "trailing ://");
        assert_eq!(
            redact_urls_in("binfmt: http://h/x?…: cannot connect."),
            "binfmt: http://h/x?…: cannot connect."
        );
        assert_eq!(redact_urls_in("s3://b/k?sig, then"), "s3://b/k?…, then");
    }
}
