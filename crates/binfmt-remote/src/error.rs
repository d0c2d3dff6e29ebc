//! Failures: one line naming the URL and the cause, with an `io::ErrorKind` that says
//! what kind of failure it is.

use core::fmt;
use core::ops::Range;
use core::time::Duration;
use std::boxed::Box;
use std::io;
use std::string::{String, ToString};

use crate::location::{clean, redact_urls};
use crate::options::human_bytes;

/// Why a remote read failed. The `Display` of each is the part of the message after
/// `URL: `; [`RemoteError::kind`] gives the `io::ErrorKind`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// The URL or the configuration cannot be used (`InvalidInput`).
    Config(String),
    /// There is no object at the URL: HTTP 404, or no such file (`NotFound`).
    NotFound {
        /// The HTTP status, when there was one.
        status: Option<u16>,
    },
    /// HTTP 403 or 401: the credentials do not allow this read (`PermissionDenied`).
    PermissionDenied {
        /// 403 or 401 (`None` for a local file).
        status: Option<u16>,
        /// The store's error code where it sent one (S3's `AccessDenied`,
        /// `InvalidAccessKeyId`, `SignatureDoesNotMatch`, …).
        code: Option<String>,
    },
    /// The host name did not resolve (`HostUnreachable`).
    Dns {
        /// The host.
        host: String,
    },
    /// No connection could be made (`ConnectionRefused`, or `NotConnected` for other
    /// connection failures).
    Connect {
        /// The operating system's reason.
        reason: String,
        /// Whether the peer refused the connection.
        refused: bool,
    },
    /// No complete answer in time (`TimedOut`).
    TimedOut {
        /// The per-request timeout, where known.
        timeout: Option<Duration>,
        /// Retries made before giving up, where known.
        retries: Option<u32>,
    },
    /// The request was not complete by its deadline (`TimedOut`): its headers did not
    /// come within the deadline's fixed part, or its body not within
    /// `fixed part + length / minimum rate` of its start ([`Options::with_deadline`],
    /// [`Options::with_min_rate`]). Not retried.
    ///
    /// [`Options::with_deadline`]: crate::Options::with_deadline
    /// [`Options::with_min_rate`]: crate::Options::with_min_rate
    Deadline {
        /// The deadline that passed, from the start of the request.
        deadline: Duration,
        /// The range announced by the server, when its headers had come.
        range: Option<Range<u64>>,
        /// The body bytes that had come by then.
        received: u64,
    },
    /// The server ignored the `Range` header and answered 200 with the whole object; none
    /// of the body was read (`Unsupported`).
    RangeIgnored,
    /// The server sent fewer bytes than the range it announced (`UnexpectedEof`).
    ShortBody {
        /// The range announced.
        range: Range<u64>,
        /// The bytes that came.
        received: u64,
    },
    /// The server sent more bytes than the range asked for; the rest was not read
    /// (`InvalidData`).
    LongBody {
        /// The range asked for.
        range: Range<u64>,
    },
    /// The server answered with another range than the one asked for (`InvalidData`).
    WrongRange(String),
    /// The object changed between two requests of one source (`StaleNetworkFileHandle`:
    /// like an NFS handle whose file was replaced).
    Changed(String),
    /// The connection broke in the middle of a response, after the retries
    /// (`ConnectionAborted`).
    Interrupted(String),
    /// Another HTTP error status, after the retries where it is retried (`Other`;
    /// `InvalidInput` for 400).
    Status {
        /// The status.
        status: u16,
        /// The store's error code where it sent one.
        code: Option<String>,
        /// Retries made, where known.
        retries: Option<u32>,
    },
    /// Anything else the store reported, on one line (`Other`).
    Other(String),
}

impl Problem {
    /// The `io::ErrorKind` of this problem.
    #[must_use]
    pub fn kind(&self) -> io::ErrorKind {
        use io::ErrorKind as K;
        match self {
            Problem::Config(_) => K::InvalidInput,
            Problem::NotFound { .. } => K::NotFound,
            Problem::PermissionDenied { .. } => K::PermissionDenied,
            Problem::Dns { .. } => K::HostUnreachable,
            Problem::Connect { refused: true, .. } => K::ConnectionRefused,
            Problem::Connect { refused: false, .. } => K::NotConnected,
            Problem::TimedOut { .. } | Problem::Deadline { .. } => K::TimedOut,
            Problem::RangeIgnored => K::Unsupported,
            Problem::ShortBody { .. } => K::UnexpectedEof,
            Problem::LongBody { .. } | Problem::WrongRange(_) => K::InvalidData,
            Problem::Changed(_) => K::StaleNetworkFileHandle,
            Problem::Interrupted(_) => K::ConnectionAborted,
            Problem::Status { status: 400, .. } => K::InvalidInput,
            Problem::Status { .. } | Problem::Other(_) => K::Other,
        }
    }
}

fn retries_suffix(f: &mut fmt::Formatter<'_>, retries: Option<u32>) -> fmt::Result {
    match retries {
        Some(0) | None => Ok(()),
        Some(1) => f.write_str(" (after 1 retry)"),
        Some(n) => write!(f, " (after {n} retries)"),
    }
}

pub(crate) fn range_text(r: &Range<u64>) -> String {
    if r.end > r.start {
        std::format!("bytes {}-{}", r.start, r.end - 1)
    } else {
        std::format!("bytes {}..{}", r.start, r.end)
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Config(s) | Problem::Other(s) => f.write_str(&clean(s)),
            Problem::NotFound { status: Some(s) } => write!(f, "not found (HTTP {s})"),
            Problem::NotFound { status: None } => f.write_str("not found"),
            Problem::PermissionDenied { status, code } => {
                match status {
                    Some(401) => f.write_str("not authenticated (HTTP 401")?,
                    Some(s) => write!(f, "access denied (HTTP {s}")?,
                    None => f.write_str("access denied (")?,
                }
                if let Some(c) = code {
                    if status.is_some() {
                        f.write_str(" ")?;
                    }
                    f.write_str(&clean(c))?;
                }
                f.write_str("): check the credentials and the object's permissions")
            }
            Problem::Dns { host } => write!(f, "cannot resolve host {}", clean(host)),
            Problem::Connect { reason, .. } => write!(f, "cannot connect: {}", clean(reason)),
            Problem::TimedOut { timeout, retries } => {
                match timeout {
                    Some(t) => write!(f, "no answer within {}", duration_text(*t))?,
                    None => f.write_str("timed out")?,
                }
                retries_suffix(f, *retries)
            }
            Problem::Deadline {
                deadline,
                range: None,
                ..
            } => write!(
                f,
                "no response within {}, the request's deadline",
                duration_text(*deadline)
            ),
            Problem::Deadline {
                deadline,
                range: Some(range),
                received,
            } => write!(
                f,
                "{} not complete within {}, the request's deadline; {} had come (the server is slower than the minimum rate)",
                range_text(range),
                duration_text(*deadline),
                human_bytes(*received)
            ),
            Problem::RangeIgnored => f.write_str(
                "the server ignored the Range header and answered 200 with the whole object; \
                 nothing was downloaded (binfmt reads objects by range)",
            ),
            Problem::ShortBody { range, received } => write!(
                f,
                "the server announced {} but sent only {} (a short body)",
                range_text(range),
                human_bytes(*received)
            ),
            Problem::LongBody { range } => write!(
                f,
                "the server sent more than the {} of {} asked for; the rest was not read",
                human_bytes(range.end.saturating_sub(range.start)),
                range_text(range)
            ),
            Problem::WrongRange(s) => {
                write!(f, "the server answered another range: {}", clean(s))
            }
            Problem::Changed(s) => write!(
                f,
                "the object changed while it was being read ({}); nothing was mixed, read it again",
                clean(s)
            ),
            Problem::Interrupted(s) => write!(f, "the connection broke: {}", clean(s)),
            Problem::Status {
                status,
                code,
                retries,
            } => {
                write!(f, "HTTP {status}")?;
                if let Some(reason) = http_reason(*status) {
                    write!(f, " {reason}")?;
                }
                if let Some(c) = code {
                    write!(f, " ({})", clean(c))?;
                }
                retries_suffix(f, *retries)
            }
        }
    }
}

fn duration_text(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        std::format!("{} s", d.as_secs())
    } else {
        std::format!("{} ms", d.as_millis())
    }
}

fn http_reason(status: u16) -> Option<&'static str> {
    Some(match status {
        400 => "Bad Request",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        412 => "Precondition Failed",
        416 => "Range Not Satisfiable",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => return None,
    })
}

/// A failed remote read: the URL (without credentials or query string) and the
/// [`Problem`]. Its `Display` is one line, `URL: cause`.
///
/// Text from elsewhere (the URL, object_store's and the server's messages) is shown
/// redacted: every URL in it without user name, password, query string (`?…`) and
/// fragment, and control characters (C0, DEL, C1, bidirectional controls) escaped by
/// `binfmt_core::text::escape_controls` (`\e`, `\n`, `\u{7}`, `\u{9b}`, …), so that a
/// message can neither leak a presigned signature nor drive the terminal it is printed
/// on.
///
/// [`RemoteSource`](crate::RemoteSource) returns it inside an `io::Error` of the
/// problem's kind; get it back with [`RemoteError::from_io`].
#[derive(Debug)]
pub struct RemoteError {
    url: String,
    problem: Problem,
    source: Option<Box<dyn core::error::Error + Send + Sync + 'static>>,
}

impl RemoteError {
    /// A failure of `url` because of `problem`. The URL is kept as messages show it:
    /// without user name, password, query string and fragment, control characters
    /// escaped.
    #[must_use]
    pub fn new(url: impl Into<String>, problem: Problem) -> Self {
        RemoteError {
            url: clean(&url.into()),
            problem,
            source: None,
        }
    }

    /// Keeps `text` (an object_store message), redacted and escaped, as the source.
    pub(crate) fn with_source(mut self, text: &str) -> Self {
        self.source = Some(clean(&one_line(text)).into());
        self
    }

    /// The URL, as shown in the message.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// What went wrong.
    #[must_use]
    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// The `io::ErrorKind` the problem maps to.
    #[must_use]
    pub fn kind(&self) -> io::ErrorKind {
        self.problem.kind()
    }

    /// The `RemoteError` inside an `io::Error` that a
    /// [`RemoteSource`](crate::RemoteSource) returned, if it is one.
    #[must_use]
    pub fn from_io(e: &io::Error) -> Option<&RemoteError> {
        e.get_ref()
            .and_then(|inner| inner.downcast_ref::<RemoteError>())
    }
}

impl fmt::Display for RemoteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.url, self.problem)
    }
}

impl core::error::Error for RemoteError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn core::error::Error + 'static))
    }
}

impl From<RemoteError> for io::Error {
    fn from(e: RemoteError) -> io::Error {
        io::Error::new(e.kind(), e)
    }
}

/// Classifies an object_store error. `timeout` is the request timeout in force.
pub(crate) fn classify(e: &object_store::Error, timeout: Option<Duration>) -> Problem {
    let chain = chain_text(e);
    let status = status_in(&chain);
    let code = store_code(&chain);
    let retries = retries_in(&chain);
    match e {
        object_store::Error::NotFound { .. } => {
            return Problem::NotFound {
                status: status.or(http_hint(&chain).then_some(404)),
            };
        }
        object_store::Error::PermissionDenied { .. } => {
            return Problem::PermissionDenied {
                status: status.or(Some(403)),
                code,
            };
        }
        object_store::Error::Unauthenticated { .. } => {
            return Problem::PermissionDenied {
                status: status.or(Some(401)),
                code,
            };
        }
        object_store::Error::Precondition { .. } => {
            return Problem::Changed(std::format!(
                "the server refused the pinned version: HTTP {}",
                status.unwrap_or(412)
            ));
        }
        object_store::Error::UnknownConfigurationKey { key, store } => {
            return Problem::Config(std::format!("{key:?} is not a setting of {store}"));
        }
        _ => {}
    }
    // object_store's two wordings: the cloud stores' and the HTTP store's.
    if chain.contains("Received non-partial response when range requested")
        || chain.contains("Range request not supported")
    {
        return Problem::RangeIgnored;
    }
    if let Some(text) = chain.find("Requested ").and_then(|at| chain.get(at..))
        && text.contains(", got ")
    {
        return Problem::WrongRange(one_line(text));
    }
    // Transport failures, from the innermost error outwards.
    let mut refused = None;
    let mut kind = None;
    let mut cur: Option<&(dyn core::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(h) = err.downcast_ref::<object_store::client::HttpError>() {
            kind.get_or_insert(h.kind());
        }
        if let Some(io) = err.downcast_ref::<io::Error>()
            && io.kind() == io::ErrorKind::ConnectionRefused
        {
            refused = Some(io.to_string());
        }
        cur = err.source();
    }
    let lower = chain.to_ascii_lowercase();
    if lower.contains("dns error") || lower.contains("failed to lookup address") {
        return Problem::Dns {
            host: host_in(&chain).unwrap_or_else(|| String::from("(unknown host)")),
        };
    }
    if let Some(reason) = refused {
        return Problem::Connect {
            reason: without_os_code(&reason),
            refused: true,
        };
    }
    use object_store::client::HttpErrorKind as H;
    match kind {
        Some(H::Timeout) => return Problem::TimedOut { timeout, retries },
        Some(H::Connect) => {
            return Problem::Connect {
                reason: innermost(e),
                refused: false,
            };
        }
        _ => {}
    }
    if let Some(status) = status {
        return Problem::Status {
            status,
            code,
            retries,
        };
    }
    match kind {
        Some(H::Interrupted | H::Request) => Problem::Interrupted(innermost(e)),
        _ => Problem::Other(one_line(&redact_urls(&e.to_string()))),
    }
}

/// Whether `e` says the range starts at or after the end of the object: HTTP 416, or a
/// local file's "Wanted range starting at" (object_store's `InvalidGetRange`).
pub(crate) fn is_unsatisfiable(e: &object_store::Error) -> bool {
    let chain = chain_text(e);
    status_in(&chain) == Some(416) || chain.contains("Wanted range starting at")
}

/// Every message of the chain, joined, with the URLs in it redacted (reqwest's messages
/// name the URL with its user name and password; hosts are read from this text).
fn chain_text(e: &(dyn core::error::Error + 'static)) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(err) = cur {
        s.push_str(" | ");
        s.push_str(&err.to_string());
        cur = err.source();
    }
    redact_urls(&s).into_owned()
}

/// The message of the innermost error, on one line (without OS error numbers), its URLs
/// redacted.
fn innermost(e: &(dyn core::error::Error + 'static)) -> String {
    let mut last = e;
    while let Some(next) = last.source() {
        last = next;
    }
    without_os_code(&one_line(&redact_urls(&last.to_string())))
}

fn without_os_code(s: &str) -> String {
    // "Connection refused (os error 111)" → "connection refused"
    let s = s.split(" (os error").next().unwrap_or(s);
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    if let Some(c) = chars.next() {
        out.extend(c.to_lowercase());
    }
    out.extend(chars);
    out
}

/// `s` on one line, at most 300 characters.
pub(crate) fn one_line(s: &str) -> String {
    let flat: String = s.split_whitespace().collect::<std::vec::Vec<_>>().join(" ");
    if flat.chars().count() > 300 {
        let mut cut: String = flat.chars().take(300).collect();
        cut.push('…');
        cut
    } else {
        flat
    }
}

fn http_hint(chain: &str) -> bool {
    chain.contains("status code") || chain.contains("Error performing")
}

/// The status in object_store's "Server returned non-2xx status code: 503 …".
fn status_in(chain: &str) -> Option<u16> {
    let at = chain.find("status code: ")?;
    let rest = chain.get(at + "status code: ".len()..)?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok().filter(|s| (100..600).contains(s))
}

/// The retries in object_store's "…, after 3 retries, max_retries: …".
fn retries_in(chain: &str) -> Option<u32> {
    let at = chain.find("after ")?;
    let rest = chain.get(at + "after ".len()..)?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    if rest.get(digits.len()..)?.starts_with(" retries") {
        digits.parse().ok()
    } else {
        None
    }
}

/// The error code of an S3 or Azure XML error body (`<Code>AccessDenied</Code>`) or a GCS
/// JSON one (`"reason": "forbidden"`).
fn store_code(chain: &str) -> Option<String> {
    let pick = |open: &str, close: &str| -> Option<String> {
        let at = chain.find(open)? + open.len();
        let rest = chain.get(at..)?;
        let end = rest.find(close)?;
        let code = rest.get(..end)?.trim();
        (!code.is_empty()
            && code.len() <= 64
            && code
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_'))
        .then(|| code.to_string())
    };
    pick("<Code>", "</Code>").or_else(|| pick("\"reason\": \"", "\""))
}

/// The host of the first URL in the chain.
fn host_in(chain: &str) -> Option<String> {
    let at = chain.find("://")? + 3;
    let rest = chain.get(at..)?;
    let end = rest.find(['/', ':', ' ', ')', '?']).unwrap_or(rest.len());
    let host = rest.get(..end)?;
    (!host.is_empty()).then(|| host.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_object_store_messages() {
        let m = "Generic HTTP error: Error performing GET http://127.0.0.1:1/x in 1.2s, after 3 retries, max_retries: 3, retry_timeout: 30s  - Server returned non-2xx status code: 503 Service Unavailable: <Error><Code>SlowDown</Code></Error>";
        assert_eq!(status_in(m), Some(503));
        assert_eq!(retries_in(m), Some(3));
        assert_eq!(store_code(m).as_deref(), Some("SlowDown"));
        assert_eq!(host_in(m).as_deref(), Some("127.0.0.1"));
        let m = redact_urls("error sending request for url (http://tok3n@h.example/x)");
        assert_eq!(host_in(&m).as_deref(), Some("h.example"));
        assert_eq!(status_in("no status here"), None);
        assert_eq!(retries_in("after the fact"), None);
    }

    #[test]
    fn messages_are_one_line_with_the_right_kind() {
        let e = RemoteError::new("s3://b/k", Problem::NotFound { status: Some(404) });
        assert_eq!(e.to_string(), "s3://b/k: not found (HTTP 404)");
        let io: io::Error = e.into();
        assert_eq!(io.kind(), io::ErrorKind::NotFound);
        assert_eq!(io.to_string(), "s3://b/k: not found (HTTP 404)");
        assert!(RemoteError::from_io(&io).is_some());
        let e = RemoteError::new(
            "s3://b/k",
            Problem::PermissionDenied {
                status: Some(403),
                code: Some("AccessDenied".into()),
            },
        );
        assert_eq!(
            e.to_string(),
            "s3://b/k: access denied (HTTP 403 AccessDenied): check the credentials and the object's permissions"
        );
        let p = Problem::Status {
            status: 500,
            code: None,
            retries: Some(2),
        };
        assert_eq!(
            p.to_string(),
            "HTTP 500 Internal Server Error (after 2 retries)"
        );
        assert_eq!(one_line("a\nb\r\n  c"), "a b c");
        assert_eq!(
            without_os_code("Connection refused (os error 111)"),
            "connection refused"
        );
    }
}
