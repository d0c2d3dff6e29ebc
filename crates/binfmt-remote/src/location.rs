//! URLs: which ones we read, and how they are shown in messages.

use std::string::String;

use url::Url;

/// The URL schemes a [`RemoteSource`](crate::RemoteSource) reads.
pub const SCHEMES: &[&str] = &[
    "s3", "s3a", "gs", "az", "azure", "abfs", "abfss", "adl", "http", "https", "file",
];

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
    arg.split_once("://")
        .is_some_and(|(scheme, _)| SCHEMES.iter().any(|s| s.eq_ignore_ascii_case(scheme)))
}

/// `url` as messages show it: no user name or password, and a query string (which may
/// hold a signature, as in presigned URLs) shown as `?…`.
pub(crate) fn shown(url: &Url) -> String {
    let mut u = url.clone();
    // Both fail only for URLs that cannot have credentials, which is what we want.
    let _ = u.set_username("");
    let _ = u.set_password(None);
    let had_query = u.query().is_some_and(|q| !q.is_empty());
    u.set_query(None);
    u.set_fragment(None);
    let mut s = String::from(u.as_str());
    if had_query {
        s.push_str("?…");
    }
    s
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
    }
}
