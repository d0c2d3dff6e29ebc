//! How a [`RemoteSource`](crate::RemoteSource) reads: range merging, read-ahead,
//! concurrency, timeouts and retries, and extra object-store settings.

use core::fmt;
use core::time::Duration;
use std::io;
use std::string::String;
use std::sync::Arc;
use std::vec::Vec;

use object_store::client::DnsResolver;

/// Ranges of one [`read_ranges`](binfmt_core::source::ByteSource::read_ranges) call whose
/// hole is smaller than this are fetched by one request: 64 KiB.
///
/// At 50–100 MB/s, 64 KiB is 0.6–1.3 ms of transfer, far below one request's round trip
/// on an object store (20–200 ms to the first byte), so a merge never costs noticeable
/// time; and it is above the price at which S3 charges as much for the bytes as for a
/// request (a GET costs what about 4.4 KB of egress does), so it merges what is cheaper
/// merged. object_store's own default (1 MiB) suits column chunks of megabytes; our
/// readers read headers, directories and index records, where 1 MiB holes would be most
/// of the download.
pub const DEFAULT_COALESCE_GAP: u64 = 64 * 1024;

/// `read_head` and `read_tail` fetch at least this many bytes and keep them, so that the
/// structures right after a header (or right before a trailer) can be read from memory.
/// Off (0) by default: every format's `Reader` asks for exactly the head or tail it needs
/// (a TACO header is one GET of 256 bytes, as tacoreader's), and a widened first request
/// would only add bytes. Turn it on (`with_read_ahead`, `BINFMT_REMOTE_READ_AHEAD`) for
/// readers of your own that discover sizes one small read at a time. Plain range reads
/// are never widened.
pub const DEFAULT_READ_AHEAD: u64 = 0;

/// At most this many requests of one `read_ranges` call are in flight at once: 8.
/// When every request of the call is small ([`SMALL_RANGE`] or less: headers of a
/// listing), [`SMALL_CONCURRENCY`], unless a concurrency is set.
pub const DEFAULT_CONCURRENCY: usize = 8;

/// A request of at most this many bytes is small (see [`DEFAULT_CONCURRENCY`]): 64 KiB.
pub const SMALL_RANGE: u64 = 64 << 10;

/// The most small requests of one `read_ranges` call in flight at once: 64.
pub const SMALL_CONCURRENCY: usize = 64;

/// A request fails when no byte comes for this long, waiting for the headers or in the
/// middle of a body: 30 s. It is an idle timeout, reset by every byte; the whole request
/// is bounded by its deadline ([`DEFAULT_DEADLINE`], [`DEFAULT_MIN_RATE`]).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The fixed part of a request's deadline: 60 s.
///
/// A request of `n` bytes must be complete within `DEFAULT_DEADLINE + n / min_rate`
/// of its start (with [`DEFAULT_MIN_RATE`], 60 s plus 1 s per 64 KiB: 61 s for 64 KiB,
/// 188 s for 8 MiB, 316 s for a 16 MiB merged request), object_store's retries of that
/// request included; its headers must come within `DEFAULT_DEADLINE`. It is longer than
/// the idle timeout ([`DEFAULT_TIMEOUT`]) so that a silent server is reported as silent,
/// and leaves room for object_store's retries ([`DEFAULT_RETRY_TIMEOUT`]). A request past
/// its deadline fails with `TimedOut` ([`Problem::Deadline`](crate::Problem::Deadline))
/// and is not retried: a server that trickles would trickle again.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(60);

/// The slowest transfer a request's deadline allows, in bytes per second: 64 KiB/s
/// (0.5 Mbit/s), on top of [`DEFAULT_DEADLINE`]. Without it, a server that sends one
/// byte every 29 s never trips the 30 s idle timeout and holds a 64 KiB read for 22
/// days. 0 turns the deadline off (only the idle timeout is left).
pub const DEFAULT_MIN_RATE: u64 = 64 * 1024;

/// Connecting takes at most this long: 5 s.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A failed request (connection error, timeout, HTTP 5xx, 429) is retried this many
/// times, with exponential backoff from 100 ms: 3.
pub const DEFAULT_RETRIES: usize = 3;

/// No retry starts after this long since the first attempt: 30 s.
pub const DEFAULT_RETRY_TIMEOUT: Duration = Duration::from_secs(30);

/// The environment variables [`Options::from_env`] reads, with what each sets.
pub const ENV_VARS: &[(&str, &str)] = &[
    (
        "BINFMT_REMOTE_COALESCE",
        "coalesce gap in bytes (K/M/KiB/MiB suffixes allowed)",
    ),
    (
        "BINFMT_REMOTE_READ_AHEAD",
        "read-ahead of read_head/read_tail in bytes; 0 turns it off",
    ),
    (
        "BINFMT_REMOTE_CONCURRENCY",
        "requests in flight at once (at least 1)",
    ),
    (
        "BINFMT_REMOTE_TIMEOUT",
        "per-request timeout (`30`, `30s`, `500ms`, `2m`)",
    ),
    ("BINFMT_REMOTE_CONNECT_TIMEOUT", "connect timeout"),
    (
        "BINFMT_REMOTE_RETRIES",
        "retries of a failed request; 0 turns them off",
    ),
    (
        "BINFMT_REMOTE_RETRY_TIMEOUT",
        "no retry after this long since the first attempt",
    ),
    (
        "BINFMT_REMOTE_DEADLINE",
        "fixed part of a request's deadline (a duration, more than 0)",
    ),
    (
        "BINFMT_REMOTE_MIN_RATE",
        "slowest transfer a request's deadline allows, in bytes/s (`64K`, `1MiB/s`); 0 turns the deadline off",
    ),
];

/// How a [`RemoteSource`](crate::RemoteSource) reads.
///
/// [`Options::new`] has the defaults (`DEFAULT_*` constants); [`Options::from_env`]
/// starts from them and applies the `BINFMT_REMOTE_*` variables of [`ENV_VARS`]. The
/// credentials, region and endpoint come from the object store's own variables
/// (`AWS_*`, `GOOGLE_*`, `AZURE_*`; see `docs/remote.md`), or from
/// [`with_store_option`](Options::with_store_option).
///
/// Timeouts: a value set here (or by `BINFMT_REMOTE_*`) wins; otherwise a store's own
/// variable (`AWS_TIMEOUT`, `AWS_CONNECT_TIMEOUT`, …) is kept; otherwise the default.
#[derive(Clone, Default)]
pub struct Options {
    pub(crate) coalesce_gap: Option<u64>,
    pub(crate) read_ahead: Option<u64>,
    pub(crate) concurrency: Option<usize>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) connect_timeout: Option<Duration>,
    pub(crate) retries: Option<usize>,
    pub(crate) retry_timeout: Option<Duration>,
    pub(crate) deadline: Option<Duration>,
    pub(crate) min_rate: Option<u64>,
    pub(crate) if_match: Option<bool>,
    pub(crate) whole_object: Option<bool>,
    pub(crate) tail_ahead: Option<u64>,
    pub(crate) store_options: Vec<(String, String)>,
    pub(crate) dns_resolver: Option<Arc<dyn DnsResolver>>,
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Store options may hold secrets: show their keys only.
        let keys: Vec<&str> = self.store_options.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("Options")
            .field("coalesce_gap", &self.coalesce_gap())
            .field("read_ahead", &self.read_ahead())
            .field("concurrency", &self.concurrency())
            .field("timeout", &self.timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("retries", &self.retries())
            .field("retry_timeout", &self.retry_timeout())
            .field("deadline", &self.deadline())
            .field("min_rate", &self.min_rate())
            .field("if_match", &self.if_match())
            .field("whole_object", &self.whole_object())
            .field("tail_ahead", &self.tail_ahead())
            .field("store_options", &keys)
            .field("dns_resolver", &self.dns_resolver.is_some())
            .finish()
    }
}

/// Builder methods that set one field: `fn with_x(param: T) => field = value;` makes
/// `pub fn with_x(mut self, param: T) -> Self`, which stores `Some(value)`.
macro_rules! setters {
    ($($(#[$doc:meta])* fn $name:ident($param:ident: $ty:ty) => $field:ident = $value:expr;)*) => {$(
        $(#[$doc])*
        #[must_use]
        pub fn $name(mut self, $param: $ty) -> Self {
            self.$field = Some($value);
            self
        }
    )*};
}

/// Getters of the setting in force: `fn x -> T = DEFAULT;` makes `pub fn x(&self) -> T`,
/// the field `x` when set, `DEFAULT` otherwise.
macro_rules! getters {
    ($($(#[$doc:meta])* fn $name:ident -> $ty:ty = $default:expr;)*) => {$(
        $(#[$doc])*
        #[must_use]
        pub fn $name(&self) -> $ty {
            self.$name.unwrap_or($default)
        }
    )*};
}

impl Options {
    /// The defaults.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The defaults with the `BINFMT_REMOTE_*` environment variables applied.
    ///
    /// # Errors
    /// `InvalidInput`, naming the variable, when one holds a value that does not parse.
    pub fn from_env() -> io::Result<Self> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// As [`from_env`](Options::from_env), reading variables through `lookup`.
    pub(crate) fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> io::Result<Self> {
        /// The variable `name` parsed by `parse(name, value)`; `None` when unset or blank.
        fn var<T>(
            lookup: &impl Fn(&str) -> Option<String>,
            name: &str,
            parse: impl Fn(&str, &str) -> io::Result<T>,
        ) -> io::Result<Option<T>> {
            lookup(name)
                .filter(|v| !v.trim().is_empty())
                .map(|v| parse(name, &v))
                .transpose()
        }
        Ok(Self {
            coalesce_gap: var(&lookup, "BINFMT_REMOTE_COALESCE", parse_size)?,
            read_ahead: var(&lookup, "BINFMT_REMOTE_READ_AHEAD", parse_size)?,
            concurrency: var(
                &lookup,
                "BINFMT_REMOTE_CONCURRENCY",
                refusing(parse_count, |n| *n == 0, "must be at least 1"),
            )?,
            timeout: var(&lookup, "BINFMT_REMOTE_TIMEOUT", parse_duration)?,
            connect_timeout: var(&lookup, "BINFMT_REMOTE_CONNECT_TIMEOUT", parse_duration)?,
            retries: var(&lookup, "BINFMT_REMOTE_RETRIES", parse_count)?,
            retry_timeout: var(&lookup, "BINFMT_REMOTE_RETRY_TIMEOUT", parse_duration)?,
            deadline: var(
                &lookup,
                "BINFMT_REMOTE_DEADLINE",
                refusing(
                    parse_duration,
                    Duration::is_zero,
                    "must be more than 0 (BINFMT_REMOTE_MIN_RATE=0 turns the deadline off)",
                ),
            )?,
            min_rate: var(&lookup, "BINFMT_REMOTE_MIN_RATE", parse_rate)?,
            if_match: var(&lookup, "BINFMT_REMOTE_IF_MATCH", |name, v| {
                match v.trim().to_ascii_lowercase().as_str() {
                    "1" | "true" | "yes" | "on" => Ok(true),
                    "0" | "false" | "no" | "off" => Ok(false),
                    _ => Err(bad_var(name, v, "expected 0 or 1")),
                }
            })?,
            ..Self::new()
        })
    }

    setters! {
        /// Ranges of one `read_ranges` call whose hole is smaller than `bytes` are fetched by
        /// one request; 0 merges only overlapping ranges. Default [`DEFAULT_COALESCE_GAP`].
        fn with_coalesce_gap(bytes: u64) => coalesce_gap = bytes;

        /// `read_head(n)` and `read_tail(n)` fetch `max(n, bytes)` and keep the block (when it
        /// is at most 1 MiB) for later reads inside it; 0 turns read-ahead off. Default
        /// [`DEFAULT_READ_AHEAD`].
        fn with_read_ahead(bytes: u64) => read_ahead = bytes;

        /// At most `n` requests in flight at once (at least 1). Default
        /// [`DEFAULT_CONCURRENCY`].
        fn with_concurrency(n: usize) => concurrency = n.max(1);

        /// A request fails (and may be retried) when no byte comes for this long. Default
        /// [`DEFAULT_TIMEOUT`].
        fn with_timeout(timeout: Duration) => timeout = timeout;

        /// Connecting takes at most this long. Default [`DEFAULT_CONNECT_TIMEOUT`].
        fn with_connect_timeout(timeout: Duration) => connect_timeout = timeout;

        /// A failed request is retried up to `n` times (0: never). Default
        /// [`DEFAULT_RETRIES`].
        fn with_retries(n: usize) => retries = n;

        /// No retry starts after this long since the first attempt. Default
        /// [`DEFAULT_RETRY_TIMEOUT`].
        fn with_retry_timeout(timeout: Duration) => retry_timeout = timeout;

        /// The fixed part of a request's deadline: a request of `n` bytes fails with
        /// [`Problem::Deadline`](crate::Problem::Deadline) unless it is complete within
        /// `base + n / min_rate` of its start, and its headers within `base`. Default
        /// [`DEFAULT_DEADLINE`]; a zero `base` counts as 1 ms.
        fn with_deadline(base: Duration) => deadline = base.max(Duration::from_millis(1));

        /// The slowest transfer a request's deadline allows, in bytes per second; 0 turns
        /// the deadline off. Default [`DEFAULT_MIN_RATE`]. See
        /// [`with_deadline`](Options::with_deadline).
        fn with_min_rate(bytes_per_second: u64) => min_rate = bytes_per_second;

        /// Whether requests after the first carry `If-Match` (default: yes). Turn it off only
        /// for a server that answers 412 wrongly (a host that redirects to a CDN and compares
        /// the condition with an ETag of its own); every response is still checked against
        /// the pinned ETag and length, so two versions are never mixed.
        fn with_if_match(on: bool) => if_match = on;

        /// For a caller that reads the whole object in order (`verify`, `unpack`): the first
        /// read (the head) asks for the whole object, and the bytes after the head keep
        /// coming in the background, at most 4 MiB held, for the first stream of ranges
        /// ([`ByteSource::stream_ranges`](binfmt_core::source::ByteSource::stream_ranges))
        /// to take over: one request and one round trip where a head read and then a
        /// stream make two of each. Off by default: a caller that reads only parts would
        /// receive up to 4 MiB for nothing, and keep a connection busy with them.
        fn with_whole_object(on: bool) => whole_object = on;

        /// For a caller that reads a format whose structure sits at the end of the object
        /// (a ZIP's end records and central directory: TACO): the first read (the head)
        /// also asks for the last `bytes` bytes (at most 1 MiB), at the same time, and
        /// keeps them for the reads that follow: the tail then costs no round trip of its
        /// own. The head read does not wait for it; a read of bytes in it does, rather
        /// than ask for them again. 0 (the default): the head alone. A file whose
        /// structure is at its start pays one request more.
        fn with_tail_ahead(bytes: u64) => tail_ahead = bytes;

        /// Resolves host names with `resolver` instead of the system's (tests; pinning a host
        /// to an address). Applies to every store that speaks HTTP.
        fn with_dns_resolver(resolver: Arc<dyn DnsResolver>) => dns_resolver = resolver;
    }

    /// One object-store setting, by object_store's key for the URL's store
    /// (`aws_region`, `aws_endpoint`, `google_service_account`, `azure_storage_account_name`,
    /// `allow_http`, …). These win over the environment.
    #[must_use]
    pub fn with_store_option(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.store_options.push((key.into(), value.into()));
        self
    }

    getters! {
        /// The coalesce gap in force.
        fn coalesce_gap -> u64 = DEFAULT_COALESCE_GAP;

        /// The read-ahead in force.
        fn read_ahead -> u64 = DEFAULT_READ_AHEAD;

        /// The retries in force.
        fn retries -> usize = DEFAULT_RETRIES;

        /// The retry timeout in force.
        fn retry_timeout -> Duration = DEFAULT_RETRY_TIMEOUT;

        /// The fixed part of a request's deadline in force.
        fn deadline -> Duration = DEFAULT_DEADLINE;

        /// The minimum rate of the deadline in force, in bytes per second (0: no deadline).
        fn min_rate -> u64 = DEFAULT_MIN_RATE;

        /// Whether later requests carry `If-Match`.
        fn if_match -> bool = true;

        /// Whether the first read asks for the whole object.
        fn whole_object -> bool = false;

        /// The bytes at the end the first read also asks for (0: none).
        fn tail_ahead -> u64 = 0;
    }

    /// How many small requests ([`SMALL_RANGE`] or less each) of one call go at once:
    /// [`SMALL_CONCURRENCY`], unless a concurrency was set (`with_concurrency`,
    /// `BINFMT_REMOTE_CONCURRENCY`), which then bounds every call.
    #[must_use]
    pub fn small_concurrency(&self) -> usize {
        match self.concurrency {
            Some(n) => n.max(1),
            None => SMALL_CONCURRENCY,
        }
    }

    /// The concurrency in force.
    #[must_use]
    pub fn concurrency(&self) -> usize {
        self.concurrency.unwrap_or(DEFAULT_CONCURRENCY).max(1)
    }

    /// The deadline of a request of `len` bytes, from its start: `base + len / min_rate`
    /// (saturating); `None` when the minimum rate is 0.
    #[must_use]
    pub fn deadline_for(&self, len: u64) -> Option<Duration> {
        deadline_for(self.deadline(), self.min_rate(), len)
    }

    /// The request timeout set here or by `BINFMT_REMOTE_TIMEOUT`; `None` when it comes
    /// from the store's own variable or the default.
    #[must_use]
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// The connect timeout set here or by `BINFMT_REMOTE_CONNECT_TIMEOUT`, as
    /// [`timeout`](Options::timeout).
    #[must_use]
    pub fn connect_timeout(&self) -> Option<Duration> {
        self.connect_timeout
    }
}

fn bad_var(name: &str, value: &str, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        std::format!("{name}={value:?}: {why}"),
    )
}

/// `parse`, refusing the values for which `bad` holds, saying `why`.
fn refusing<T>(
    parse: impl Fn(&str, &str) -> io::Result<T>,
    bad: impl Fn(&T) -> bool,
    why: &'static str,
) -> impl Fn(&str, &str) -> io::Result<T> {
    move |name, value| match parse(name, value)? {
        v if bad(&v) => Err(bad_var(name, value, why)),
        v => Ok(v),
    }
}

/// `65536`, `64K`, `64KiB`, `1M`, `1MiB`, `0`.
pub(crate) fn parse_size(name: &str, value: &str) -> io::Result<u64> {
    let v = value.trim();
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (digits, unit) = v.split_at(split);
    let unit_mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1024,
        "m" | "mb" | "mib" => 1024 * 1024,
        "g" | "gb" | "gib" => 1024 * 1024 * 1024,
        _ => {
            return Err(bad_var(
                name,
                value,
                "expected bytes, e.g. 65536, 64K or 1MiB",
            ));
        }
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(unit_mult))
        .ok_or_else(|| bad_var(name, value, "expected bytes, e.g. 65536, 64K or 1MiB"))
}

/// A size per second: `65536`, `64K`, `64KiB/s`, `1MiB/s`, `0`.
fn parse_rate(name: &str, value: &str) -> io::Result<u64> {
    let v = value.trim();
    let v = v.strip_suffix("/s").unwrap_or(v);
    parse_size(name, v).map_err(|_| {
        bad_var(
            name,
            value,
            "expected bytes per second, e.g. 65536, 64K or 1MiB/s",
        )
    })
}

/// `base + len / rate`, saturating at about 584 years' worth of seconds; `None` for
/// `rate == 0`.
pub(crate) fn deadline_for(base: Duration, rate: u64, len: u64) -> Option<Duration> {
    if rate == 0 {
        return None;
    }
    let secs = len / rate;
    // The remainder as nanoseconds: below 1 s, so the product fits in u128.
    let nanos = u128::from(len % rate) * 1_000_000_000 / u128::from(rate);
    let extra = Duration::from_secs(secs).saturating_add(Duration::from_nanos(
        u64::try_from(nanos).unwrap_or(u64::MAX),
    ));
    Some(base.saturating_add(extra))
}

fn parse_count(name: &str, value: &str) -> io::Result<usize> {
    value
        .trim()
        .parse::<usize>()
        .map_err(|_| bad_var(name, value, "expected a whole number"))
}

/// `30` (seconds), `30s`, `500ms`, `2m`.
pub(crate) fn parse_duration(name: &str, value: &str) -> io::Result<Duration> {
    let v = value.trim();
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (digits, unit) = v.split_at(split);
    let n: u64 = digits.parse().map_err(|_| {
        bad_var(
            name,
            value,
            "expected a duration, e.g. 30, 30s, 500ms or 2m",
        )
    })?;
    match unit.trim() {
        "" | "s" => Ok(Duration::from_secs(n)),
        "ms" => Ok(Duration::from_millis(n)),
        "m" | "min" => n
            .checked_mul(60)
            .map(Duration::from_secs)
            .ok_or_else(|| bad_var(name, value, "too long")),
        _ => Err(bad_var(
            name,
            value,
            "expected a duration, e.g. 30, 30s, 500ms or 2m",
        )),
    }
}

/// `bytes` as people read it: `65536 bytes` → `64 KiB`.
pub(crate) fn human_bytes(bytes: u64) -> String {
    if bytes >= 1024 * 1024 && bytes.is_multiple_of(1024 * 1024) {
        std::format!("{} MiB", bytes / (1024 * 1024))
    } else if bytes >= 1024 && bytes.is_multiple_of(1024) {
        std::format!("{} KiB", bytes / 1024)
    } else {
        std::format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_durations_parse() {
        assert_eq!(parse_size("X", "65536").unwrap(), 65536);
        assert_eq!(parse_size("X", "64K").unwrap(), 65536);
        assert_eq!(parse_size("X", "64 KiB").unwrap(), 65536);
        assert_eq!(parse_size("X", "1MiB").unwrap(), 1 << 20);
        assert_eq!(parse_size("X", "0").unwrap(), 0);
        let e = parse_size("BINFMT_REMOTE_COALESCE", "lots").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(
            e.to_string()
                .starts_with("BINFMT_REMOTE_COALESCE=\"lots\": "),
            "{e}"
        );
        assert_eq!(parse_duration("X", "30").unwrap(), Duration::from_secs(30));
        assert_eq!(
            parse_duration("X", "500ms").unwrap(),
            Duration::from_millis(500)
        );
        assert_eq!(parse_duration("X", "2m").unwrap(), Duration::from_secs(120));
        assert!(parse_duration("X", "soon").is_err());
        assert_eq!(human_bytes(65536), "64 KiB");
        assert_eq!(human_bytes(100), "100 bytes");
    }

    #[test]
    fn env_lookup_applies_and_rejects() {
        let o = Options::from_lookup(|k| match k {
            "BINFMT_REMOTE_COALESCE" => Some("0".into()),
            "BINFMT_REMOTE_RETRIES" => Some("1".into()),
            "BINFMT_REMOTE_TIMEOUT" => Some("2s".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(o.coalesce_gap(), 0);
        assert_eq!(o.retries(), 1);
        assert_eq!(o.timeout, Some(Duration::from_secs(2)));
        assert_eq!(o.read_ahead(), DEFAULT_READ_AHEAD);
        let e = Options::from_lookup(|k| (k == "BINFMT_REMOTE_CONCURRENCY").then(|| "0".into()))
            .unwrap_err();
        assert!(e.to_string().contains("BINFMT_REMOTE_CONCURRENCY"), "{e}");
    }

    #[test]
    fn deadline_settings() {
        let o = Options::new();
        assert_eq!(o.deadline(), DEFAULT_DEADLINE);
        assert_eq!(o.min_rate(), DEFAULT_MIN_RATE);
        // 60 s + 1 s per 64 KiB.
        assert_eq!(o.deadline_for(0), Some(Duration::from_secs(60)));
        assert_eq!(o.deadline_for(64 * 1024), Some(Duration::from_secs(61)));
        assert_eq!(o.deadline_for(8 << 20), Some(Duration::from_secs(188)));
        assert_eq!(
            o.deadline_for(32 * 1024),
            Some(Duration::from_millis(60_500))
        );
        // Never overflows.
        assert!(o.deadline_for(u64::MAX).is_some());
        assert!(deadline_for(Duration::MAX, 1, u64::MAX).is_some_and(|d| d == Duration::MAX));
        assert_eq!(o.clone().with_min_rate(0).deadline_for(1), None);

        let o = Options::from_lookup(|k| match k {
            "BINFMT_REMOTE_DEADLINE" => Some("2s".into()),
            "BINFMT_REMOTE_MIN_RATE" => Some("1MiB/s".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(o.deadline(), Duration::from_secs(2));
        assert_eq!(o.min_rate(), 1 << 20);
        assert_eq!(o.deadline_for(3 << 20), Some(Duration::from_secs(5)));
        let o =
            Options::from_lookup(|k| (k == "BINFMT_REMOTE_MIN_RATE").then(|| "0".into())).unwrap();
        assert_eq!(o.deadline_for(100), None);
        let e = Options::from_lookup(|k| (k == "BINFMT_REMOTE_DEADLINE").then(|| "0".into()))
            .unwrap_err();
        assert!(
            e.to_string().starts_with("BINFMT_REMOTE_DEADLINE=\"0\": "),
            "{e}"
        );
        let e = Options::from_lookup(|k| (k == "BINFMT_REMOTE_MIN_RATE").then(|| "fast".into()))
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(
            e.to_string()
                .starts_with("BINFMT_REMOTE_MIN_RATE=\"fast\": "),
            "{e}"
        );
    }
}
