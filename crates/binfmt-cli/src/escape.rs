//! Text from files (names, keys, metadata) made safe for a terminal.
//!
//! Every string that comes out of an input and goes to a terminal passes through here,
//! and through `binfmt_core::text`, the workspace's one escaper: control characters (C0,
//! DEL, C1) and the Unicode format characters that reorder or hide text, which could
//! move the cursor, change the terminal's state or disguise a name, become visible
//! escapes, and bytes that are not UTF-8 become `\xNN`. URLs are shown redacted (no
//! credentials, no query string). Text is also cut to a bounded number of characters
//! where a caller asks, so that a megabyte-long name cannot make one line a megabyte long.

use std::fmt::Write as _;
use std::io;

use binfmt_core::text as core_text;

/// `text` with control characters escaped (`\n`, `\t`, `\e`, `\u{9b}`, …).
pub(crate) fn text(text: &str) -> String {
    core_text::escape(text)
}

/// A message line made safe where it is printed: URLs in it redacted, control and format
/// characters escaped, backslashes kept (parts of it may be escaped already, and this is
/// idempotent). Third-party texts (`io::Error`, object_store, …) reach the terminal only
/// through this.
pub(crate) fn message(text: &str) -> String {
    core_text::escape_controls(&core_text::redact_urls_in(text))
}

/// `bytes` as text: UTF-8 where valid, `\xNN` elsewhere, control characters escaped.
pub(crate) fn bytes(bytes: &[u8]) -> String {
    core_text::escape_bytes(bytes)
}

/// [`text`], at most `max_chars` characters of escaped text (escapes are never split), a
/// cut marked with `…`: the output is bounded whatever the input holds.
pub(crate) fn text_cut(text: &str, max_chars: usize) -> String {
    cut_escaped(core_text::Escaped::new(text).chars(), max_chars)
}

/// Already-escaped `text` cut to `max_chars` characters, a cut marked with `…`.
pub(crate) fn cut(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => format!("{}…", text.get(..at).unwrap_or(text)),
        None => text.to_owned(),
    }
}

/// The escaped characters of `chars` that fit in `max_chars` characters (an escape is
/// never split), then `…` when some did not: the core escaper's text, cut here only.
fn cut_escaped(chars: core_text::EscapedChars<'_>, max_chars: usize) -> String {
    let mut out = String::new();
    let mut left = max_chars;
    for c in chars {
        let n = c.char_count();
        if n > left {
            out.push('…');
            return out;
        }
        // Writing to a `String` cannot fail.
        let _ = c.write_to(&mut out);
        left -= n;
    }
    out
}

/// Bytes in lowercase hexadecimal (keys that are not UTF-8, raw slots).
pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().saturating_mul(2));
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// A path (or URL) as the user named it, for messages and the `"file"` JSON key: escaped,
/// and a URL redacted (no `user:pass@`, the query string shown as `?…`, no fragment).
pub(crate) fn path(path: &std::path::Path) -> String {
    if let Some(url) = path.to_str().filter(|p| core_text::is_url(p)) {
        return text(&core_text::redact_url(url));
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        bytes(path.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        text(&path.to_string_lossy())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_never_reach_the_terminal() {
        assert_eq!(text("a\x1b[2Jb\u{9b}c\n"), "a\\e[2Jb\\u{9b}c\\n");
        assert_eq!(bytes(b"ok\xff\x07"), "ok\\xff\\u{7}");
        assert_eq!(text("ñandú 日本"), "ñandú 日本");
        assert_eq!(text("back\\slash"), "back\\\\slash");
        assert_eq!(text("a\u{202e}b\u{2066}"), "a\\u{202e}b\\u{2066}");
    }

    #[test]
    fn urls_are_named_redacted() {
        let url = "https://key:secret@h/x.taco?X-Amz-Signature=abc&X-Amz-Credential=k#f";
        assert_eq!(path(std::path::Path::new(url)), "https://h/x.taco?…");
        assert_eq!(path(std::path::Path::new("a?b@c")), "a?b@c");
        assert_eq!(
            message("GET http://u:p@h/x?sig=1 failed: \x1b[2J"),
            "GET http://h/x?… failed: \\e[2J"
        );
    }

    #[test]
    fn long_text_is_cut() {
        assert_eq!(text_cut("abcdef", 3), "abc…");
        assert_eq!(text_cut("abc", 3), "abc");
        assert_eq!(text_cut(&"x".repeat(10), 4), "xxxx…");
        // An escape is never split: `\e` (2 characters) fits in 2, not in 1.
        assert_eq!(text_cut("a\x1b", 3), "a\\e");
        assert_eq!(text_cut("ab\x1b", 3), "ab…");
        // The output is bounded, not the input: 13 000 control characters stay short.
        assert_eq!(text_cut(&"\u{1}".repeat(13_000), 12), "\\u{1}\\u{1}…");
    }
}

/// A writer of JSON text that is safe for a terminal: serde_json already escapes the C0
/// controls, `"` and `\`; this also writes DEL, the C1 controls (U+0080 to U+009F, which
/// some terminals obey as escape sequences) and the reordering controls as `\uXXXX`. They
/// can only occur inside JSON strings, where the escape means the same character, so the
/// text is the same JSON. Streams: a character split across writes waits for its end.
pub(crate) struct JsonSafe<W: io::Write> {
    inner: W,
    /// The first bytes of a character whose last bytes have not been written yet.
    pending: Vec<u8>,
}

impl<W: io::Write> JsonSafe<W> {
    pub(crate) fn new(inner: W) -> Self {
        JsonSafe {
            inner,
            pending: Vec::new(),
        }
    }

    /// Writes the complete characters of `bytes`, keeping an unfinished last one.
    fn push(&mut self, bytes: &[u8]) -> io::Result<()> {
        match std::str::from_utf8(bytes) {
            Ok(text) => self.emit(text),
            Err(e) => {
                let (valid, rest) = bytes.split_at(e.valid_up_to());
                self.emit(std::str::from_utf8(valid).unwrap_or_default())?;
                if e.error_len().is_some() {
                    // Not UTF-8 at all (serde_json never writes that): pass it through.
                    self.inner.write_all(rest)
                } else {
                    self.pending.extend_from_slice(rest);
                    Ok(())
                }
            }
        }
    }

    fn emit(&mut self, text: &str) -> io::Result<()> {
        let mut start = 0;
        for (i, c) in text.char_indices() {
            // A raw newline is the line's end: serde_json escapes those inside strings.
            if c != '\n' && core_text::needs_escape(c) {
                self.inner
                    .write_all(text.as_bytes().get(start..i).unwrap_or_default())?;
                // UTF-16 code units: a character beyond U+FFFF is a surrogate pair.
                for unit in c.encode_utf16(&mut [0; 2]) {
                    write!(self.inner, "\\u{:04x}", unit)?;
                }
                start = i + c.len_utf8();
            }
        }
        self.inner
            .write_all(text.as_bytes().get(start..).unwrap_or_default())
    }
}

impl<W: io::Write> io::Write for JsonSafe<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.pending.is_empty() {
            self.push(buf)?;
        } else {
            // Only after a write that ended inside a character (rare, and short).
            let mut joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(buf);
            self.push(&joined)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let pending = std::mem::take(&mut self.pending);
        self.inner.write_all(&pending)?;
        self.inner.flush()
    }
}

/// `value` as one line of terminal-safe JSON (see [`JsonSafe`]).
pub(crate) fn json_line(value: &serde_json::Value) -> String {
    let mut out = JsonSafe::new(Vec::new());
    let _ = serde_json::to_writer(&mut out, value);
    let _ = io::Write::flush(&mut out);
    String::from_utf8(out.inner).unwrap_or_default()
}

#[cfg(test)]
mod json_tests {
    use super::*;

    #[test]
    fn json_escapes_c1_del_and_reordering_controls_even_when_split() {
        let v = serde_json::json!({"a": "x\u{9b}31m\u{7f}\u{1b}\u{202e}é"});
        let line = json_line(&v);
        assert_eq!(line, r#"{"a":"x\u009b31m\u007f\u001b\u202eé"}"#);
        assert_eq!(serde_json::from_str::<serde_json::Value>(&line).unwrap(), v);
        // A format character beyond U+FFFF: a surrogate pair, still the same JSON.
        let tag = serde_json::json!("a\u{e0041}");
        let tagged = json_line(&tag);
        assert_eq!(tagged, r#""a\udb40\udc41""#);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&tagged).unwrap(),
            tag
        );
        // One byte at a time: the same.
        let mut out = JsonSafe::new(Vec::new());
        for b in v.to_string().as_bytes() {
            io::Write::write_all(&mut out, &[*b]).unwrap();
        }
        io::Write::flush(&mut out).unwrap();
        assert_eq!(String::from_utf8(out.inner).unwrap(), line);
    }
}
