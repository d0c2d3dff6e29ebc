//! Text from files and from the network made safe to show: the one escaper and the one
//! URL redaction of the workspace's command-line tools.
//!
//! [`escape`] turns every character that could act on a terminal, or make a name display
//! as another, into a visible escape: the C0 controls, DEL and the C1 controls
//! (`\n`, `\r`, `\t`, `\e` for ESC, `\u{9b}` for the others), the line and paragraph
//! separators, and the Unicode format characters (bidirectional embeddings, overrides,
//! isolates and marks, zero-width characters, the soft hyphen, tags: "Trojan Source").
//! A backslash becomes `\\`, so that an escape and the text it stands for differ.
//! Printable text, non-ASCII included, is kept as it is.
//!
//! [`redact_url`] removes what must never be printed from a URL: the user name and
//! password, and the query string (a presigned URL's `X-Amz-Signature` and
//! `X-Amz-Credential` live there), shown as `?…`, and the fragment.
//!
//! ```
//! use binfmt_core::text;
//!
//! assert_eq!(text::escape("a\x1b[2Jb\u{202e}c\n"), "a\\e[2Jb\\u{202e}c\\n");
//! assert_eq!(text::escape("ñandú 日本"), "ñandú 日本");
//! assert_eq!(
//!     text::redact_url("https://user:pw@host/k.bin?X-Amz-Signature=abc#f"),
//!     "https://host/k.bin?…"
//! );
//! assert!(text::is_url("S3://bucket/key"));
//! ```

use alloc::string::String;
use core::fmt::Write as _;

/// The URL schemes the workspace reads (`s3`, `gs`, `az`, `http`, `https`, `file`).
pub const URL_SCHEMES: [&str; 11] = [
    "s3", "s3a", "gs", "az", "azure", "abfs", "abfss", "adl", "http", "https", "file",
];

/// True when `c` is shown as an escape by [`escape`]: a control character (C0, DEL,
/// C1), a line or paragraph separator, or a Unicode format character (bidirectional
/// controls, zero-width characters, the soft hyphen, tags, …). A backslash is not one of
/// them: it is printable, and only [`escape`] doubles it.
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

/// Appends `c` to `out`, escaped as [`escape`] escapes it (a backslash doubled).
pub fn push_escaped(out: &mut String, c: char) {
    match c {
        '\\' => out.push_str("\\\\"),
        c => push_control(out, c),
    }
}

/// Appends `c`, escaped when [`needs_escape`] says so; a backslash is kept.
fn push_control(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\x1b' => out.push_str("\\e"),
        c if needs_escape(c) => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
}

/// `text` with every character that [`needs_escape`] written as an escape (`\n`, `\r`,
/// `\t`, `\e`, `\u{9b}`, `\u{202e}`) and a backslash as `\\`.
#[must_use]
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_escaped(&mut out, c);
    }
    out
}

/// `text` with the characters that [`needs_escape`] escaped as [`escape`] escapes them,
/// backslashes kept: for a message that may already hold escaped parts (a name escaped
/// by [`escape`]). Applying it twice gives the same text as applying it once, so a
/// message can be made safe where it is printed whatever was escaped before.
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
mod tests {
    use super::*;

    #[test]
    fn controls_and_format_characters_are_escaped() {
        assert_eq!(escape("a\x1b[2Jb\u{9b}c\n"), "a\\e[2Jb\\u{9b}c\\n");
        assert_eq!(escape("\x07\x7f\u{85}\t\r"), "\\u{7}\\u{7f}\\u{85}\\t\\r");
        assert_eq!(
            escape("a\u{202e}b\u{2066}\u{200b}\u{feff}\u{ad}\u{2028}"),
            "a\\u{202e}b\\u{2066}\\u{200b}\\u{feff}\\u{ad}\\u{2028}"
        );
        assert_eq!(escape("\u{e0041}"), "\\u{e0041}");
        assert_eq!(escape("ñandú 日本 🦀"), "ñandú 日本 🦀");
        assert_eq!(escape("back\\slash"), "back\\\\slash");
    }

    #[test]
    fn escaping_controls_is_idempotent() {
        let once = escape_controls("a\\e\x1b]0;x\x07 \u{202e}");
        assert_eq!(once, "a\\e\\e]0;x\\u{7} \\u{202e}");
        assert_eq!(escape_controls(&once), once);
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
