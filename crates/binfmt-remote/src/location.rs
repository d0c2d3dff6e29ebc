//! URLs: which ones we read, and how they are shown in messages.

use std::borrow::Cow;
use std::string::String;

use url::Url;

/// The URL schemes a [`RemoteSource`](crate::RemoteSource) reads.
pub const SCHEMES: &[&str] = &binfmt_core::text::URL_SCHEMES;

/// The local path a `file://` URL names, percent-decoded; `None` for other URLs and for
/// text that is no URL. Writers use it to tell that an output is one of their inputs,
/// whatever form names the input.
///
/// ```
/// use std::path::Path;
/// assert_eq!(
///     binfmt_remote::file_url_path("file:///tmp/a%20b.blp").as_deref(),
///     Some(Path::new("/tmp/a b.blp"))
/// );
/// assert_eq!(binfmt_remote::file_url_path("s3://bucket/a.blp"), None);
/// ```
#[must_use]
pub fn file_url_path(text: &str) -> Option<std::path::PathBuf> {
    let url = url::Url::parse(text).ok()?;
    (url.scheme() == "file").then(|| url.to_file_path().ok())?
}

/// True when `arg` is a URL that a [`RemoteSource`](crate::RemoteSource) reads
/// (`SCHEME://…` with a scheme of [`SCHEMES`]), as opposed to a local path.
///
/// A command-line tool uses this to choose between a file and a remote source; a
/// Windows path such as `C:\data` is not a URL.
///
/// ```
/// assert!(binfmt_remote::is_url("s3://bucket/key.taco"));
/// assert!(binfmt_remote::is_url("HTTPS://example.com/x"));
/// assert!(!binfmt_remote::is_url("data/x.taco"));
/// assert!(!binfmt_remote::is_url("C:\\data\\x.taco"));
/// assert!(!binfmt_remote::is_url("ftp://example.com/x"));
/// ```
#[must_use]
pub fn is_url(arg: &str) -> bool {
    binfmt_core::text::is_url(arg)
}

/// `url` as messages show it: no user name or password, and a query string (which may
/// hold a signature, as in presigned URLs) shown as `?…`; no fragment; control
/// characters escaped.
pub(crate) fn shown(url: &Url) -> String {
    let mut u = url.clone();
    // Both fail only for URLs that cannot have credentials, which is what we want. In
    // `abfs[s]://container@account…/path` the "user name" is the container: kept.
    if !container_at_account(url.scheme()) || url.password().is_some() {
        let _ = u.set_username("");
    }
    let _ = u.set_password(None);
    let had_query = u.query().is_some_and(|q| !q.is_empty());
    u.set_query(None);
    u.set_fragment(None);
    let mut s = String::from(u.as_str());
    if had_query {
        s.push_str("?…");
    }
    escape(&s)
}

/// Whether the part before `@` in URLs of `scheme` names a container (ADLS Gen2's
/// `abfs[s]://container@account.dfs.core.windows.net/path`), not a user.
fn container_at_account(scheme: &str) -> bool {
    scheme.eq_ignore_ascii_case("abfs") || scheme.eq_ignore_ascii_case("abfss")
}

/// Text of a user or a server (a URL that does not parse, an object_store or reqwest
/// message) as messages show it: on one line, every URL in it redacted as
/// [`shown`] does (found by its `scheme://`), control characters escaped.
pub(crate) fn clean(text: &str) -> String {
    escape(&redact_urls(text))
}

/// Where a URL written in running text ends.
fn url_end(c: char) -> bool {
    c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`')
}

/// Every `…://…` of `text` (whatever its scheme) without user name, password and
/// fragment, its query string as `?…`.
pub(crate) fn redact_urls(text: &str) -> Cow<'_, str> {
    if !text.contains("://") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let before = rest.get(..at).unwrap_or_default();
        let scheme_len: usize = before
            .chars()
            .rev()
            .take_while(char::is_ascii_alphanumeric)
            .map(char::len_utf8)
            .sum();
        let scheme = before.get(at - scheme_len..).unwrap_or_default();
        out.push_str(rest.get(..at + 3).unwrap_or_default());
        let after = rest.get(at + 3..).unwrap_or_default();
        let len = after.find(url_end).unwrap_or(after.len());
        redact_one(
            after.get(..len).unwrap_or_default(),
            container_at_account(scheme),
            &mut out,
        );
        rest = after.get(len..).unwrap_or_default();
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// What follows `scheme://` in a URL, redacted, onto `out`; `container` when the part
/// before `@` is a container name (kept unless a password follows it).
fn redact_one(tail: &str, container: bool, out: &mut String) {
    let authority_len = tail.find(['/', '?', '#']).unwrap_or(tail.len());
    let (authority, path_etc) = tail.split_at(authority_len);
    // user:password@host → host
    match authority.rsplit_once('@') {
        Some((user, _)) if container && !user.contains(':') => out.push_str(authority),
        Some((_, host)) => out.push_str(host),
        None => out.push_str(authority),
    }
    let without_fragment = path_etc.split_once('#').map_or(path_etc, |(p, _)| p);
    match without_fragment.split_once('?') {
        Some((path, query)) => {
            out.push_str(path);
            if !query.is_empty() {
                out.push_str("?…");
            }
        }
        None => out.push_str(without_fragment),
    }
}

/// `text` with control characters (C0, DEL, C1) and the invisible characters that
/// reorder or hide text (bidirectional controls, zero-width characters, line and paragraph
/// separators, …) escaped, printable Unicode kept: the workspace's escaper,
/// [`binfmt_core::text::escape_controls`] (`\e` for ESC, `\n`, `\t`, `\u{7}`, `\u{9b}`;
/// backslashes kept, so escaping twice changes nothing).
pub(crate) fn escape(text: &str) -> String {
    binfmt_core::text::escape_controls(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_hides_credentials_and_signatures() {
        let u =
            Url::parse("https://user:secret@example.com/a/b.bin?X-Amz-Signature=abc#f").unwrap();
        assert_eq!(shown(&u), "https://example.com/a/b.bin?…");
        let u = Url::parse("s3://bucket/key").unwrap();
        assert_eq!(shown(&u), "s3://bucket/key");
        // object_store's HTTP store percent-decodes paths; a Url keeps them encoded.
        let u = Url::parse("http://h/a%1B[31mb").unwrap();
        assert_eq!(shown(&u), "http://h/a%1B[31mb");
        // ADLS Gen2: the container before `@` is not a user name.
        let u = Url::parse("abfss://data@acct.dfs.core.windows.net/x.taco?sig=1").unwrap();
        assert_eq!(shown(&u), "abfss://data@acct.dfs.core.windows.net/x.taco?…");
        assert_eq!(
            clean("at abfss://data@acct.dfs.core.windows.net/x and https://u@h/"),
            "at abfss://data@acct.dfs.core.windows.net/x and https://h/"
        );
        assert_eq!(clean("abfs://c:key@acct/x"), "abfs://acct/x");
    }

    #[test]
    fn escape_keeps_printable_unicode() {
        // The escaper's cases are binfmt_core's (`text::escape_controls`); this is it.
        assert_eq!(escape("ü 日本 a\x1b[31mb\\e"), r"ü 日本 a\e[31mb\e");
    }

    #[test]
    fn urls_in_text_lose_credentials_and_queries() {
        assert_eq!(
            clean(
                "Error performing GET https://AKIA:secret@bucket.example.com/k?X-Amz-Signature=abc&X-Amz-Credential=AKIA in 1s"
            ),
            "Error performing GET https://bucket.example.com/k?… in 1s"
        );
        assert_eq!(
            clean("see \"http://u@h:8080/p#frag\" and s3://b/k?versionId=3"),
            "see \"http://h:8080/p\" and s3://b/k?…"
        );
        // Idempotent, and no URL: unchanged.
        assert_eq!(clean("https://h/x?…"), "https://h/x?…");
        assert_eq!(clean("no url: here"), "no url: here");
        assert_eq!(clean("odd ://x and http://"), "odd ://x and http://");
        assert_eq!(clean("ü://user:pw@h/x"), "ü://h/x");
        assert_eq!(
            clean("Object at location a\x1b]0;pwned\x07 not found"),
            "Object at location a\\e]0;pwned\\u{7} not found"
        );
    }
}
