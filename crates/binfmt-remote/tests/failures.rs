//! Failures no well-behaved server produces, from a misbehaving server on 127.0.0.1 (a
//! thread of this test), and connection failures: each is one line naming the URL and
//! the cause, with its `io::ErrorKind`, and none panics or buffers what it should not.
#![allow(clippy::unwrap_used, clippy::panic, clippy::cast_possible_truncation)]

use core::time::Duration;
use std::io;
use std::sync::Arc;
use std::time::Instant;

use binfmt_core::source::ByteSource;
use binfmt_remote::object_store::client::{DnsFuture, DnsResolver};
use binfmt_remote::{Options, Problem, RemoteError, RemoteSource};
use binfmt_test_support::servers::{self, Body, Reply, Request, Rogue, pattern, serve_object};

/// Fast retries for tests: one retry, short timeouts.
fn quick() -> Options {
    Options::new()
        .with_retries(1)
        .with_timeout(Duration::from_millis(800))
        .with_connect_timeout(Duration::from_millis(800))
        .with_read_ahead(0)
}

fn open(server: &Rogue, options: &Options) -> RemoteSource {
    RemoteSource::open_with(&server.url("obj.bin"), options).unwrap()
}

fn problem(e: &io::Error) -> &Problem {
    RemoteError::from_io(e)
        .unwrap_or_else(|| panic!("not a RemoteError: {e:?}"))
        .problem()
}

/// `text` as an error of a read from `server`: `URL: text`.
fn at(server: &Rogue, text: &str) -> String {
    format!("{}: {text}", server.url("obj.bin"))
}

/// A 206 answer: `Content-Range: content_range`, `ETag: etag` and `body`.
fn partial(content_range: &str, etag: &str, body: Body) -> Reply {
    Reply::Send {
        status: 206,
        headers: vec![
            ("Content-Range".into(), content_range.into()),
            ("ETag".into(), etag.into()),
        ],
        body,
    }
}

/// A server that answers every request with 206, `Content-Range: content_range` and
/// `len` bytes, and the error of reading bytes 0-99 from it.
fn read_first_hundred(content_range: &'static str, len: usize) -> (Rogue, io::Error) {
    let server = Rogue::start(move |_, _: &Request| {
        partial(content_range, "\"a\"", Body::Bytes(pattern(len, 1)))
    });
    let e = open(&server, &quick()).read_range(0..100).unwrap_err();
    (server, e)
}

/// True when no request `server` had carried `If-Match`.
fn no_if_match(server: &Rogue) -> bool {
    server
        .requests()
        .iter()
        .all(|r| r.header("If-Match").is_none())
}

/// Checks an error's kind and its whole text.
/// `e` is of `kind` and reads `URL: text`, the URL being `server`'s.
fn assert_error(e: &io::Error, kind: io::ErrorKind, server: &Rogue, text: &str) {
    assert_eq!(e.kind(), kind, "{e}");
    assert_eq!(e.to_string(), at(server, text));
}

fn reply(status: u16, headers: &[(&str, &str)], body: Vec<u8>) -> Reply {
    Reply::Send {
        status,
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        body: Body::Bytes(body),
    }
}

/// `python -m http.server`: 200 and the whole of `data`, whatever the request asks.
fn ignoring_ranges(data: Arc<Vec<u8>>) -> Rogue {
    Rogue::start(move |_, _: &Request| {
        reply(
            200,
            &[
                ("Content-Length", &Vec::len(&data).to_string()),
                ("ETag", "\"a\""),
            ],
            data.to_vec(),
        )
    })
}

#[test]
fn range_ignored_on_a_large_object_downloads_nothing() {
    // 200 with a 4 GiB body, to any request (HEAD: the headers only).
    let server = Rogue::start(|_, _: &Request| Reply::Send {
        status: 200,
        headers: vec![("ETag".into(), "\"big\"".into())],
        body: Body::Large(4 << 30),
    });
    let src = open(&server, &quick());
    let started = Instant::now();
    let e = src.read_head(256).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::Unsupported);
    assert_eq!(*problem(&e), Problem::RangeIgnored);
    assert_eq!(
        e.to_string(),
        at(
            &server,
            "the server ignored the Range header and answered 200 with the whole object; nothing was downloaded (binfmt reads objects by range)"
        )
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(src.stats().bytes, 0);
    // The server could write what the socket buffers hold, and no more.
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        server.written() < 64 << 20,
        "{} bytes went out",
        server.written()
    );
    let methods: Vec<String> = server.requests().iter().map(|r| r.method.clone()).collect();
    assert_eq!(methods, ["GET", "HEAD"]);
}

#[test]
fn read_ranges_runs_requests_concurrently_up_to_the_limit() {
    use core::sync::atomic::{AtomicUsize, Ordering};
    let data = Arc::new(pattern(100_000, 6));
    let in_flight = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let server = {
        let (data, in_flight, most) = (data.clone(), in_flight.clone(), most.clone());
        Rogue::start(move |_, req: &Request| {
            let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(300));
            in_flight.fetch_sub(1, Ordering::SeqCst);
            serve_object(req, &data, "\"c\"")
        })
    };
    // Six ranges far apart: six requests, at most three at once.
    let ranges: Vec<_> = (0..6u64).map(|i| i * 15_000..i * 15_000 + 10).collect();
    let src = open(&server, &quick().with_concurrency(3).with_coalesce_gap(0));
    let started = Instant::now();
    let parts = src.read_ranges(&ranges).unwrap();
    let took = started.elapsed();
    for (r, p) in ranges.iter().zip(&parts) {
        assert_eq!(&**p, &data[r.start as usize..r.end as usize]);
    }
    assert_eq!(server.requests().len(), 6);
    assert_eq!(
        most.load(Ordering::SeqCst),
        3,
        "three in flight at once, never more"
    );
    // Two waves of 300 ms, not six.
    assert!(took < Duration::from_millis(1500), "{took:?}");
}

#[test]
fn short_body() {
    // Content-Range announces 100 bytes; Content-Length and the body are 40.
    let (server, e) = read_first_hundred("bytes 0-99/1000", 40);
    let text = "the server announced bytes 0-99 but sent only 40 bytes (a short body)";
    assert_error(&e, io::ErrorKind::UnexpectedEof, &server, text);
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn connection_closed_in_the_middle_of_the_body() {
    // Content-Length says 100, 40 come, then the connection closes: object_store retries
    // the rest once (our retry budget), which breaks the same way.
    let server = Rogue::start(|_, req: &Request| {
        let range = req.header("Range").unwrap_or_default().to_string();
        let (start, end) = range
            .trim_start_matches("bytes=")
            .split_once('-')
            .map(|(a, b)| (a.parse::<u64>().unwrap(), b.parse::<u64>().unwrap()))
            .unwrap();
        reply(
            206,
            &[
                ("Content-Range", &format!("bytes {start}-{end}/1000")),
                ("Content-Length", &(end - start + 1).to_string()),
                ("ETag", "\"a\""),
            ],
            pattern(40, 1),
        )
    });
    let src = open(&server, &quick());
    let e = src.read_range(0..100).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "{e}");
    assert!(
        e.to_string().starts_with(&at(
            &server,
            "the server announced bytes 0-99 but sent only"
        )),
        "{e}"
    );
    assert!(!e.to_string().contains('\n'));
    assert_eq!(server.requests().len(), 2, "one retry of the rest");
}

#[test]
fn over_long_body() {
    // Content-Range announces 100 bytes; 5000 come.
    let (server, e) = read_first_hundred("bytes 0-99/100000", 5000);
    let text =
        "the server sent more than the 100 bytes of bytes 0-99 asked for; the rest was not read";
    assert_error(&e, io::ErrorKind::InvalidData, &server, text);
}

#[test]
fn wrong_range() {
    let (server, e) = read_first_hundred("bytes 500-599/100000", 100);
    assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
    assert!(
        e.to_string()
            .starts_with(&at(&server, "the server answered another range")),
        "{e}"
    );
}

#[test]
fn etag_changing_between_requests_is_refused() {
    let v1 = pattern(10_000, 1);
    let v2 = pattern(10_000, 2);
    // A server that ignores If-Match and serves a new version from the second request.
    let server = Rogue::start(move |n, req: &Request| {
        let mut plain = req.clone();
        plain
            .headers
            .retain(|(k, _)| !k.eq_ignore_ascii_case("if-match"));
        if n == 0 {
            serve_object(&plain, &v1, "\"v1\"")
        } else {
            serve_object(&plain, &v2, "\"v2\"")
        }
    });
    let src = open(&server, &quick());
    src.read_range(0..10).unwrap();
    let e = src.read_range(5000..5010).unwrap_err();
    let text = "the object changed while it was being read (ETag \"v1\" became \"v2\"); nothing was mixed, read it again";
    assert_error(&e, io::ErrorKind::StaleNetworkFileHandle, &server, text);
    // It asked for the pinned version.
    assert_eq!(server.requests()[1].header("If-Match"), Some("\"v1\""));

    // A server that honours If-Match answers 412.
    let v1 = pattern(10_000, 1);
    let v2 = pattern(10_000, 2);
    let server = Rogue::start(move |n, req: &Request| {
        if n == 0 {
            serve_object(req, &v1, "\"v1\"")
        } else {
            serve_object(req, &v2, "\"v2\"")
        }
    });
    let src = open(&server, &quick());
    src.read_head(10).unwrap();
    let e = src.read_ranges(&[5000..5010, 9000..9010]).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::StaleNetworkFileHandle);
    assert!(e.to_string().contains("HTTP 412"), "{e}");
}

#[test]
fn if_match_can_be_turned_off_but_changes_are_still_caught() {
    let v1 = pattern(10_000, 1);
    let v2 = pattern(10_000, 2);
    let server = Rogue::start(move |n, req: &Request| {
        if n < 2 {
            serve_object(req, &v1, "\"v1\"")
        } else {
            serve_object(req, &v2, "\"v2\"")
        }
    });
    let src = open(&server, &quick().with_if_match(false));
    src.read_range(0..10).unwrap();
    src.read_range(100..110).unwrap();
    let e = src.read_range(200..210).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::StaleNetworkFileHandle, "{e}");
    assert!(e.to_string().contains("ETag \"v1\" became \"v2\""), "{e}");
    assert!(no_if_match(&server));
}

#[test]
fn weak_etags_are_compared_not_sent() {
    let data = pattern(10_000, 3);
    let server = Rogue::start(move |_, req: &Request| serve_object(req, &data, "W/\"weak\""));
    let src = open(&server, &quick());
    src.read_range(0..10).unwrap();
    src.read_range(100..110).unwrap();
    // `If-Match` compares strongly: a weak ETag would never match, so it is not sent.
    assert!(no_if_match(&server));
}

#[test]
fn without_an_etag_last_modified_pins_the_version() {
    let data = pattern(10_000, 4);
    let server = Rogue::start(
        move |_, req: &Request| match serve_object(req, &data, "x") {
            Reply::Send {
                status,
                mut headers,
                body,
            } => {
                headers.retain(|(k, _)| k != "ETag");
                Reply::Send {
                    status,
                    headers,
                    body,
                }
            }
            other => other,
        },
    );
    let src = open(&server, &quick());
    src.read_range(0..10).unwrap();
    src.read_range(100..110).unwrap();
    let second = &server.requests()[1];
    assert_eq!(
        second.header("If-Unmodified-Since"),
        Some("Tue, 01 Sep 2026 10:00:00 GMT")
    );
    assert_eq!(src.pinned().unwrap().e_tag, None);
}

#[test]
fn forbidden_and_not_found_are_not_retried() {
    for (status, kind, text) in [
        (
            403,
            io::ErrorKind::PermissionDenied,
            "access denied (HTTP 403 AccessDenied): check the credentials and the object's permissions",
        ),
        (
            401,
            io::ErrorKind::PermissionDenied,
            "not authenticated (HTTP 401): check the credentials and the object's permissions",
        ),
        (404, io::ErrorKind::NotFound, "not found (HTTP 404)"),
        (400, io::ErrorKind::InvalidInput, "HTTP 400 Bad Request"),
    ] {
        let server = Rogue::start(move |_, _: &Request| {
            let body = if status == 403 {
                b"<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>".to_vec()
            } else {
                Vec::new()
            };
            reply(status, &[], body)
        });
        let src = open(&server, &quick());
        let e = src.read_head(10).unwrap_err();
        assert_eq!(e.kind(), kind, "{status}: {e}");
        assert_eq!(e.to_string(), at(&server, text));
        assert_eq!(server.requests().len(), 1, "{status} is not retried");
    }
}

#[test]
fn server_errors_are_retried_then_reported() {
    // 500, then a good answer: one retry, success.
    let data = pattern(1000, 5);
    let server = Rogue::start(move |n, req: &Request| {
        if n == 0 {
            reply(500, &[], b"oops".to_vec())
        } else {
            serve_object(req, &data, "\"e\"")
        }
    });
    let src = open(&server, &quick());
    assert_eq!(&*src.read_head(10).unwrap(), &pattern(1000, 5)[..10]);
    assert_eq!(server.requests().len(), 2);
    assert_eq!(
        src.stats().requests,
        1,
        "retries are object_store's, not ours"
    );
    assert_eq!(src.stats().http_requests, 2, "but they are counted");

    // 503 SlowDown every time: the retries, then the status and the store's code.
    let server = Rogue::start(|_, _: &Request| {
        reply(503, &[], b"<Error><Code>SlowDown</Code></Error>".to_vec())
    });
    let src = open(&server, &quick().with_retries(2));
    let e = src.read_head(10).unwrap_err();
    let text = "HTTP 503 Service Unavailable (SlowDown) (after 2 retries)";
    assert_error(&e, io::ErrorKind::Other, &server, text);
    assert_eq!(server.requests().len(), 3);
    assert_eq!(src.stats().http_requests, 3);
}

#[test]
fn a_server_that_never_answers_times_out() {
    let server = Rogue::start(|_, _: &Request| Reply::Silence(Duration::from_secs(20)));
    let options = quick().with_timeout(Duration::from_millis(500));
    let src = open(&server, &options);
    let started = Instant::now();
    let e = src.read_head(10).unwrap_err();
    let text = "no answer within 500 ms (after 1 retry)";
    assert_error(&e, io::ErrorKind::TimedOut, &server, text);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn the_timeout_is_for_silence_not_for_slow_bodies() {
    // 2 s in all, a piece every 200 ms: slower than the 500 ms timeout in total, never
    // silent that long. It succeeds.
    let data = pattern(1000, 8);
    let server = {
        let data = data.clone();
        Rogue::start(move |_, _: &Request| {
            let body = Body::Slow {
                data: data.clone(),
                pieces: 10,
                pause: Duration::from_millis(200),
            };
            partial("bytes 0-999/5000", "\"s\"", body)
        })
    };
    let src = open(&server, &quick().with_timeout(Duration::from_millis(500)));
    assert_eq!(&*src.read_range(0..1000).unwrap(), &data[..]);

    // Half the body, then a stall: the timeout, not a hang.
    let server = Rogue::start(move |_, _: &Request| {
        let body = Body::Slow {
            data: pattern(1000, 8),
            pieces: 2,
            pause: Duration::from_millis(1500),
        };
        partial("bytes 0-999/5000", "\"s\"", body)
    });
    let src = open(
        &server,
        &quick()
            .with_retries(0)
            .with_timeout(Duration::from_millis(500)),
    );
    let started = Instant::now();
    let e = src.read_range(0..1000).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::TimedOut, "{e}");
    assert_eq!(e.to_string(), at(&server, "no answer within 500 ms"));
    assert!(
        started.elapsed() < Duration::from_millis(1400),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn connection_refused() {
    let port = servers::free_port();
    let url = format!("http://127.0.0.1:{port}/obj.bin");
    let src = RemoteSource::open_with(&url, &quick()).unwrap();
    let e = src.read_head(10).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::ConnectionRefused, "{e}");
    assert_eq!(
        e.to_string(),
        format!("{url}: cannot connect: connection refused")
    );
}

/// A resolver that knows no host: a DNS failure without sending a DNS query anywhere.
#[derive(Debug)]
struct NoSuchHost;

impl DnsResolver for NoSuchHost {
    fn resolve(&self, host: &str) -> DnsFuture {
        let msg =
            format!("failed to lookup address information: {host}: Name or service not known");
        Box::pin(async move { Err(msg.into()) })
    }
}

#[test]
fn dns_failure() {
    let url = "http://no-such-host.binfmt.test/obj.bin";
    let options = quick().with_dns_resolver(Arc::new(NoSuchHost));
    let src = RemoteSource::open_with(url, &options).unwrap();
    let e = src.read_head(10).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::HostUnreachable, "{e}");
    assert_eq!(
        e.to_string(),
        format!("{url}: cannot resolve host no-such-host.binfmt.test")
    );
}

/// A body of `len` bytes, one byte every `pause` (a server that never goes silent for
/// as long as the idle timeout, and never finishes).
fn trickle(len: usize, pause: Duration) -> Reply {
    let body = Body::Slow {
        data: pattern(len, 9),
        pieces: len,
        pause,
    };
    partial(&format!("bytes 0-{}/100000", len - 1), "\"t\"", body)
}

#[test]
fn a_trickling_server_fails_by_the_deadline() {
    // One byte every 100 ms: the 5 s idle timeout never trips, and the 1000 bytes would
    // take 100 s. The deadline for 1000 bytes is 0.5 s + 1000 / (500 bytes/s) = 2.5 s.
    let server = Rogue::start(|_, _: &Request| trickle(1000, Duration::from_millis(100)));
    let options = quick()
        .with_timeout(Duration::from_secs(5))
        .with_deadline(Duration::from_millis(500))
        .with_min_rate(500);
    let src = open(&server, &options);
    let started = Instant::now();
    let e = src.read_range(0..1000).unwrap_err();
    let took = started.elapsed();
    assert_eq!(e.kind(), io::ErrorKind::TimedOut, "{e}");
    let Problem::Deadline {
        deadline,
        range,
        received,
    } = problem(&e).clone()
    else {
        panic!("not a deadline: {e}");
    };
    assert_eq!(deadline, Duration::from_millis(2500));
    assert_eq!(range, Some(0..1000));
    assert!((1..1000).contains(&received), "{received}");
    assert_eq!(
        e.to_string(),
        format!(
            "{}: bytes 0-999 not complete within 2500 ms, the request's deadline; {received} bytes had come (the server is slower than the minimum rate)",
            server.url("obj.bin")
        )
    );
    assert!(took >= Duration::from_millis(2400), "{took:?}");
    assert!(took < Duration::from_secs(6), "{took:?}");
    // Not retried: a trickling server would trickle again.
    assert_eq!(server.requests().len(), 1);

    // `read_ranges` has the same deadline per request (these two merge into 0..1000).
    let started = Instant::now();
    let e = src.read_ranges(&[0..10, 990..1000]).unwrap_err();
    assert!(matches!(problem(&e), Problem::Deadline { .. }), "{e}");
    assert!(started.elapsed() < Duration::from_secs(6));
}

#[test]
fn the_deadline_covers_waiting_for_the_headers() {
    // Silent for 20 s: the 5 s idle timeout would come later than the 300 ms deadline.
    let server = Rogue::start(|_, _: &Request| Reply::Silence(Duration::from_secs(20)));
    let options = quick()
        .with_timeout(Duration::from_secs(5))
        .with_deadline(Duration::from_millis(300));
    let src = open(&server, &options);
    let started = Instant::now();
    let e = src.read_head(10).unwrap_err();
    let text = "no response within 300 ms, the request's deadline";
    assert_error(&e, io::ErrorKind::TimedOut, &server, text);
    assert!(started.elapsed() < Duration::from_secs(3));
    // A HEAD has the same deadline.
    let e = src.len().unwrap_err();
    assert!(
        matches!(problem(&e), Problem::Deadline { range: None, .. }),
        "{e}"
    );
}

#[test]
fn a_slow_body_within_the_minimum_rate_is_read() {
    // 1000 bytes in 10 pieces 100 ms apart: 1 s, within 0.5 s + 1000 / 500 = 2.5 s.
    let data = pattern(1000, 9);
    let server = Rogue::start(|_, _: &Request| {
        let body = Body::Slow {
            data: pattern(1000, 9),
            pieces: 10,
            pause: Duration::from_millis(100),
        };
        partial("bytes 0-999/100000", "\"t\"", body)
    });
    let options = quick()
        .with_deadline(Duration::from_millis(500))
        .with_min_rate(500);
    let src = open(&server, &options);
    assert_eq!(&*src.read_range(0..1000).unwrap(), &data[..]);
    // A minimum rate of 0 turns the deadline off.
    let src = open(
        &server,
        &quick()
            .with_deadline(Duration::from_millis(1))
            .with_min_rate(0),
    );
    assert_eq!(&*src.read_range(0..1000).unwrap(), &data[..]);
}

/// 2^62: what a lying server claims as the object's length.
const HUGE: u64 = 1 << 62;

/// Claims an object of [`HUGE`] bytes: answers each range as asked in its headers
/// (`Content-Range`, `Content-Length`), sends 256 bytes and closes.
fn liar(req: &Request) -> Reply {
    let range = req
        .header("Range")
        .and_then(|r| r.strip_prefix("bytes="))
        .and_then(|r| r.split_once('-'));
    let (start, end) = match range {
        Some((a, b)) if !a.is_empty() => {
            let start: u64 = a.parse().unwrap();
            let end = b.parse::<u64>().map_or(HUGE, |e| (e + 1).min(HUGE));
            (start, end)
        }
        Some((_, n)) => (HUGE - n.parse::<u64>().unwrap().min(HUGE), HUGE),
        None => (0, HUGE),
    };
    let mut headers = vec![
        ("ETag".to_string(), "\"huge\"".to_string()),
        ("Content-Length".to_string(), (end - start).to_string()),
    ];
    let status = if range.is_some() {
        headers.push((
            "Content-Range".to_string(),
            format!("bytes {start}-{}/{HUGE}", end - 1),
        ));
        206
    } else {
        200
    };
    Reply::Send {
        status,
        headers,
        body: Body::Bytes(pattern(256, 3)),
    }
}

#[test]
fn a_claimed_length_of_2_to_the_62_allocates_only_what_came() {
    let server = Rogue::start(|_, req: &Request| liar(req));
    let options = quick().with_retries(0);
    let src = open(&server, &options);
    let started = Instant::now();
    // The head is 256 bytes; the claimed length is pinned but nothing is sized from it.
    assert_eq!(src.read_head(256).unwrap().len(), 256);
    assert_eq!(src.len().unwrap(), HUGE);
    // The whole object, and a large range of it: a short body after 256 bytes, not an
    // allocation of 2^62 (or of a list of its 8 MiB parts).
    for range in [0..HUGE, 1 << 40..(1 << 40) + (16 << 20)] {
        let e = src.read_range(range.clone()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "{e}");
        assert!(
            matches!(problem(&e), Problem::ShortBody { received: 256, .. }),
            "{e}"
        );
    }
    // Whole-object reads the way `binfmt verify` does them: 8 MiB parts, 8 at a time.
    let parts: Vec<_> = (0..8u64)
        .map(|i| i * (8 << 20)..(i + 1) * (8 << 20))
        .collect();
    let e = src.read_ranges(&parts).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "{e}");
    // The tail is a suffix range of the claimed object.
    let (at, tail) = src.read_tail(256).unwrap();
    assert_eq!((at, tail.len()), (HUGE - 256, 256));
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// A resolver whose error text holds terminal escapes and a URL with credentials and a
/// signature, as third-party error texts may.
#[derive(Debug)]
struct HostileResolver;

impl DnsResolver for HostileResolver {
    fn resolve(&self, _host: &str) -> DnsFuture {
        let msg = "\x1b]0;owned\x07\x1b[2J no route via https://AKIA:s3cret@proxy.example/p?X-Amz-Signature=abc123 \u{9b}31m";
        Box::pin(async move { Err(msg.into()) })
    }
}

#[test]
fn third_party_texts_are_escaped_and_redacted() {
    // object_store percent-decodes the path and quotes it in its refusal.
    let e = RemoteSource::open_with(
        "http://user:pa55@127.0.0.1:1/a%1B%5B31m.bin?X-Amz-Signature=abc123",
        &Options::new(),
    )
    .unwrap_err();
    let t = e.to_string();
    assert!(!t.chars().any(char::is_control), "{t:?}");
    assert!(t.contains("a\\e[31m.bin"), "{t}");
    assert!(!t.contains("pa55") && !t.contains("abc123"), "{t}");

    let url = "http://user:pa55@no-such-host.binfmt.test/obj.bin";
    let options = quick()
        .with_retries(0)
        .with_dns_resolver(Arc::new(HostileResolver));
    let src = RemoteSource::open_with(url, &options).unwrap();
    assert_eq!(src.url(), "http://no-such-host.binfmt.test/obj.bin");
    let e = src.read_head(10).unwrap_err();
    let remote = RemoteError::from_io(&e).unwrap();
    let mut texts = vec![e.to_string(), remote.to_string()];
    let mut cur: Option<&dyn core::error::Error> = Some(remote);
    while let Some(err) = cur {
        texts.push(err.to_string());
        cur = err.source();
    }
    for t in &texts {
        assert!(!t.chars().any(char::is_control), "{t:?}");
        for secret in ["pa55", "s3cret", "AKIA", "abc123", "Signature", "user"] {
            assert!(!t.contains(secret), "{secret} in {t:?}");
        }
    }
    assert_eq!(
        texts[0],
        "http://no-such-host.binfmt.test/obj.bin: cannot resolve host no-such-host.binfmt.test"
    );
    // A token as the user name is not taken for the host.
    let src =
        RemoteSource::open_with("http://tok3n@no-such-host.binfmt.test/obj.bin", &options).unwrap();
    let e = src.read_head(10).unwrap_err();
    assert_eq!(
        e.to_string(),
        "http://no-such-host.binfmt.test/obj.bin: cannot resolve host no-such-host.binfmt.test"
    );

    // A URL that does not parse is shown redacted too.
    let e = RemoteSource::open_with(
        "https://user:pa55@[bad/x\x1b?X-Amz-Signature=abc123",
        &Options::new(),
    )
    .unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    let t = e.to_string();
    assert!(t.starts_with("https://[bad/x\\e?…: not a URL"), "{t}");
    // And so is a URL given to `RemoteError::new`.
    let e = RemoteError::new(
        "s3://b/k?versionId=1#f",
        Problem::Other("bad \x07 https://u:p@h/?s=1".into()),
    );
    assert_eq!(e.to_string(), "s3://b/k?…: bad \\u{7} https://h/?…");
}

/// A whole-object source (`with_whole_object`) whose one response breaks: the head read
/// and the ranges before the break are served from it, the range the break cuts gets the
/// short-body error (a reader falls back to reading it alone), and nothing hangs.
#[test]
fn a_whole_object_response_that_breaks_ends_its_stream_with_the_error() {
    const LEN: u64 = 1_000_000;
    let data = pattern(LEN as usize, 3);
    let served = data.clone();
    // Every answer runs to the object's end, as `bytes=N-` asks, and breaks 300,000 bytes
    // into the object (a retry resumes where the body broke, and breaks there again).
    let server = Rogue::start(move |_, req: &Request| {
        let range = req.header("Range").unwrap_or_default().to_string();
        let start: u64 = range
            .trim_start_matches("bytes=")
            .split('-')
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let cut = 300_000u64.max(start) as usize;
        let body = served[start as usize..cut].to_vec();
        let length = (LEN - start).to_string();
        if req.header("Range").is_none() {
            return reply(200, &[("Content-Length", &length), ("ETag", "\"a\"")], body);
        }
        reply(
            206,
            &[
                ("Content-Range", &format!("bytes {start}-{}/{LEN}", LEN - 1)),
                ("Content-Length", &length),
                ("ETag", "\"a\""),
            ],
            body,
        )
    });
    let src = open(&server, &quick().with_whole_object(true));
    assert_eq!(&*src.read_head(1000).unwrap(), &data[..1000]);
    let ranges = vec![500..100_000, 100_000..299_000, 299_000..310_000];
    let mut parts = src.stream_ranges(ranges, 1 << 20).unwrap();
    assert_eq!(parts.next().unwrap().unwrap(), &data[500..100_000]);
    assert_eq!(parts.next().unwrap().unwrap(), &data[100_000..299_000]);
    let e = parts.next().unwrap().unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "{e}");
    assert!(
        e.to_string()
            .starts_with(&at(&server, "the server announced")),
        "{e}"
    );
    assert!(parts.next().is_none());
    // The whole object is asked without a `Range` header.
    assert!(server.requests()[0].header("Range").is_none());
}

#[test]
fn a_whole_object_is_read_from_a_server_that_ignores_ranges() {
    const LEN: usize = 300_000;
    let data = Arc::new(pattern(LEN, 5));
    let server = ignoring_ranges(Arc::clone(&data));
    let src = open(&server, &quick().with_whole_object(true));
    assert_eq!(&*src.read_head(1000).unwrap(), &data[..1000]);
    let ranges = vec![1000..100_000, 100_000..LEN as u64];
    let parts: Vec<Vec<u8>> = src
        .stream_ranges(ranges, 1 << 20)
        .unwrap()
        .collect::<io::Result<_>>()
        .unwrap();
    assert_eq!(parts.concat(), &data[1000..]);
    // The head is kept: a read in it asks nothing more.
    assert_eq!(&*src.read_range(10..20).unwrap(), &data[10..20]);
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn an_empty_object_is_one_request_when_read_whole() {
    let server = Rogue::start(|_, _: &Request| {
        reply(
            200,
            &[("Content-Length", "0"), ("ETag", "\"e\"")],
            Vec::new(),
        )
    });
    let src = open(&server, &quick().with_whole_object(true));
    assert!(src.read_head(1000).unwrap().is_empty());
    assert_eq!(src.len().unwrap(), 0);
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_whole_object_reads_in_order_from_a_server_that_ignores_ranges() {
    use std::io::Read as _;
    // 40 MiB and a bit: the head, then three streams of 16 pieces.
    const LEN: usize = (40 << 20) + 12_345;
    let data = Arc::new(pattern(LEN, 9));
    let server = ignoring_ranges(Arc::clone(&data));
    let mut object = binfmt_remote::WholeObject::open(&server.url("obj.bin"), &quick()).unwrap();
    let mut got = Vec::new();
    object.read_to_end(&mut got).unwrap();
    assert!(got == *data);
    assert_eq!(server.requests().len(), 1);
    assert!(server.requests()[0].header("Range").is_none());
    assert_eq!(object.source().stats().requests, 1);
}

#[test]
fn a_whole_object_that_ends_early_is_an_error_not_a_short_read() {
    use std::io::Read as _;
    let server = Rogue::start(|_, _: &Request| {
        reply(
            200,
            &[("Content-Length", "3000000"), ("ETag", "\"a\"")],
            pattern(2_000_000, 1),
        )
    });
    let mut object = binfmt_remote::WholeObject::open(&server.url("obj.bin"), &quick()).unwrap();
    let mut got = Vec::new();
    let e = object.read_to_end(&mut got).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "{e}");
    assert!(got.len() < 3_000_000);
}

#[test]
fn a_stream_fallback_reads_in_order_from_a_server_that_ignores_ranges() {
    use binfmt_remote::StreamFallback;
    const LEN: usize = 3_000_000;
    let data = Arc::new(pattern(LEN, 4));
    let server = ignoring_ranges(Arc::clone(&data));
    let url = server.url("obj.bin");
    let ranged = Arc::new(RemoteSource::open_with(&url, &quick()).unwrap());
    let told = Arc::new(std::sync::Mutex::new(Vec::new()));
    let tell = Arc::clone(&told);
    let source = StreamFallback::new(ranged, &url, &quick(), 1 << 30)
        .with_notice(move |shown| tell.lock().unwrap().push(shown.to_owned()));
    assert!(!source.streamed() && !source.is_stream());
    assert_eq!(&*source.read_head(100).unwrap(), &data[..100]);
    assert_eq!(*told.lock().unwrap(), core::slice::from_ref(&url));
    assert!(source.streamed() && source.is_stream());
    assert_eq!(source.len().unwrap(), LEN as u64);
    assert_eq!(
        &*source.read_range(2_000_000..2_000_100).unwrap(),
        &data[2_000_000..2_000_100]
    );
    assert_eq!(&*source.read_range(10..20).unwrap(), &data[10..20]);
    let (at, tail) = source.read_tail(50).unwrap();
    assert_eq!(at, (LEN - 50) as u64);
    assert_eq!(&*tail, &data[LEN - 50..]);
    // The plans of a ranged source are not offered to a stream.
    assert!(!source.streams() && source.stream_ranges(vec![0..10, 20..30], 1 << 20).is_none());
    // The refused GET, the HEAD after it, and the stream's one GET.
    let methods: Vec<String> = server.requests().iter().map(|r| r.method.clone()).collect();
    assert_eq!(methods, ["GET", "HEAD", "GET"]);
    assert_eq!(source.stats().requests, 3);
    // Told once, however many reads came from the stream.
    assert_eq!(told.lock().unwrap().len(), 1);
}

#[test]
fn a_stream_fallback_keeps_to_ranges_where_they_work() {
    use binfmt_remote::StreamFallback;
    let data = pattern(100_000, 2);
    let server = Rogue::start(move |_, req: &Request| serve_object(req, &data, "\"a\""));
    let url = server.url("obj.bin");
    let ranged = Arc::new(RemoteSource::open_with(&url, &quick()).unwrap());
    let source = StreamFallback::new(ranged, &url, &quick(), 1 << 30);
    assert_eq!(source.read_range(50_000..50_010).unwrap().len(), 10);
    assert!(!source.streamed() && !source.is_stream());
    assert_eq!(server.requests().len(), 1);
}
