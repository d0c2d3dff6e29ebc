//! Against moto's S3 server on 127.0.0.1, configured the way users configure S3: through
//! `AWS_ENDPOINT`, `AWS_ALLOW_HTTP`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
//! `AWS_REGION` (and `AWS_SKIP_SIGNATURE`). The environment of a process is shared by all
//! its threads, so each scenario runs in a child process: this test binary, re-run with
//! `BINFMT_REMOTE_S3_CHILD` naming the scenario and the variables set. Request counts
//! come from moto's own log.
//!
//! Ignored (with the reason) when moto is missing, unless `BINFMT_REQUIRE_SERVERS=1`.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::io;
use std::process::Command;

use binfmt_core::source::ByteSource;
use binfmt_remote::{Problem, RemoteError, RemoteSource};
use binfmt_test_support::server_test;
use binfmt_test_support::servers::{self, Moto, MotoLine, pattern};

const BUCKET: &str = "binfmt-test";
const SIZE: usize = 300_000;

/// The variables a child must not inherit from the machine: they would change what it
/// reads (credentials, profiles, endpoints of a real account).
const SCRUB: &[&str] = &[
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_CONFIG_FILE",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "AWS_DEFAULT_REGION",
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_S3",
    "AWS_SKIP_SIGNATURE",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_ROLE_ARN",
    "BINFMT_REMOTE_COALESCE",
    "BINFMT_REMOTE_READ_AHEAD",
    "BINFMT_REMOTE_CONCURRENCY",
    "BINFMT_REMOTE_TIMEOUT",
    "BINFMT_REMOTE_CONNECT_TIMEOUT",
    "BINFMT_REMOTE_RETRIES",
    "BINFMT_REMOTE_RETRY_TIMEOUT",
];

/// Runs `scenario` in a child process with `env`; fails with its output if it fails.
fn child(scenario: &str, env: &[(&str, String)]) {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "child_process_scenario",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    for k in SCRUB {
        cmd.env_remove(k);
    }
    cmd.env("BINFMT_REMOTE_S3_CHILD", scenario);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "scenario {scenario} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn requests_since(moto: &Moto, before: usize, n: usize) -> Vec<String> {
    let log: Vec<MotoLine> = moto.settled_log(before + n);
    log[before..]
        .iter()
        .map(|l| format!("{} {} {}", l.method, l.path, l.status))
        .collect()
}

server_test! {
    moto fn s3_through_the_environment(moto = Moto::start) {
        moto.create_bucket(BUCKET);
        moto.put(BUCKET, "data/sample.bin", &pattern(SIZE, 21));
        moto.put(BUCKET, "data/empty.bin", b"");
        let obj = format!("/{BUCKET}/data/sample.bin");

        // Head, tail, the length, three ranges of which two merge: four GETs, no HEAD.
        let before = moto.log().len();
        child("reads", &moto.env());
        assert_eq!(
            requests_since(&moto, before, 4),
            vec![format!("GET {obj} 206"); 4]
        );

        // A missing key, an empty object.
        let before = moto.log().len();
        child("missing_and_empty", &moto.env());
        let empty = format!("/{BUCKET}/data/empty.bin");
        assert_eq!(
            requests_since(&moto, before, 3),
            [
                format!("GET /{BUCKET}/data/missing.bin 404"),
                // S3 answers 416 to any range of an empty object; a HEAD tells it is empty.
                format!("GET {empty} 416"),
                format!("HEAD {empty} 200"),
            ]
        );

        // Unsigned requests (AWS_SKIP_SIGNATURE) to a private bucket: 403, not retried.
        let before = moto.log().len();
        let mut env: Vec<(&str, String)> = moto
            .env()
            .into_iter()
            .filter(|(k, _)| !k.starts_with("AWS_ACCESS") && !k.starts_with("AWS_SECRET"))
            .collect();
        env.push(("AWS_SKIP_SIGNATURE", "true".into()));
        child("forbidden", &env);
        assert_eq!(requests_since(&moto, before, 1), [format!("GET {obj} 403")]);

        // Plain http:// to a server without AWS_ALLOW_HTTP: refused before any request.
        let before = moto.log().len();
        let env: Vec<(&str, String)> = moto
            .env()
            .into_iter()
            .filter(|(k, _)| *k != "AWS_ALLOW_HTTP")
            .collect();
        child("http_not_allowed", &env);
        assert_eq!(requests_since(&moto, before, 0), Vec::<String>::new());

        // A versioned bucket: the version ID pins the object, so an overwrite in the middle
        // of the reads is invisible and the source keeps reading the version it started with.
        let versioned = "binfmt-versioned";
        moto.create_bucket(versioned);
        let status = servers::raw_request(
            moto.port(),
            "PUT",
            &format!("/{versioned}?versioning"),
            &[],
            b"<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>",
        );
        assert_eq!(status, 200);
        moto.put(versioned, "v.bin", &pattern(SIZE, 31));
        let before = moto.log().len();
        child("versioned", &moto.env());
        let v = format!("/{versioned}/v.bin");
        let lines: Vec<String> = requests_since(&moto, before, 3)
            .into_iter()
            .map(|l| match l.split_once("?versionId=") {
                Some((a, b)) => format!("{a}?versionId=ID {}", b.rsplit(' ').next().unwrap()),
                None => l,
            })
            .collect();
        assert_eq!(
            lines,
            [
                format!("GET {v} 206"),
                format!("PUT {v} 200"),
                format!("GET {v}?versionId=ID 206")
            ]
        );

        // The object replaced between two reads: refused (412 to If-Match).
        let before = moto.log().len();
        child("pinned", &moto.env());
        assert_eq!(
            requests_since(&moto, before, 3),
            [
                format!("GET {obj} 206"),
                format!("PUT {obj} 200"),
                format!("GET {obj} 412")
            ]
        );
    }
}

/// One scenario of [`s3_through_the_environment`], run in a child process with the
/// environment set (ignored in an ordinary test run, where it would do nothing).
#[test]
#[ignore = "a scenario of s3_through_the_environment, run in its child process"]
fn child_process_scenario() {
    let Ok(scenario) = std::env::var("BINFMT_REMOTE_S3_CHILD") else {
        return;
    };
    let data = pattern(SIZE, 21);
    let url = format!("s3://{BUCKET}/data/sample.bin");
    match scenario.as_str() {
        "reads" => {
            let src = RemoteSource::open(&url).unwrap();
            assert_eq!(&*src.read_head(256).unwrap(), &data[..256]);
            let (at, tail) = src.read_tail(1000).unwrap();
            assert_eq!((at, &*tail), ((SIZE - 1000) as u64, &data[SIZE - 1000..]));
            assert_eq!(src.len().unwrap(), SIZE as u64);
            // Two ranges 10 bytes apart merge; the third is 100 KB away.
            let parts = src
                .read_ranges(&[100_000..100_010, 100_020..100_030, 200_000..200_100])
                .unwrap();
            assert_eq!(&*parts[0], &data[100_000..100_010]);
            assert_eq!(&*parts[1], &data[100_020..100_030]);
            assert_eq!(&*parts[2], &data[200_000..200_100]);
            let s = src.stats();
            assert_eq!((s.requests, s.head_requests), (4, 0), "{s:?}");
            // No read-ahead by default: the head and the tail are exactly what was asked.
            assert_eq!(s.bytes, 256 + 1000 + 20 + 10 + 100, "{s:?}");
            assert_eq!(s.http_requests, 4, "{s:?}");
            assert!(src.pinned().unwrap().e_tag.is_some());
        }
        "missing_and_empty" => {
            let src = RemoteSource::open(&format!("s3://{BUCKET}/data/missing.bin")).unwrap();
            let e = src.read_head(256).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::NotFound);
            assert_eq!(
                e.to_string(),
                format!("s3://{BUCKET}/data/missing.bin: not found (HTTP 404)")
            );
            let src = RemoteSource::open(&format!("s3://{BUCKET}/data/empty.bin")).unwrap();
            assert!(src.read_head(256).unwrap().is_empty());
            assert_eq!(src.len().unwrap(), 0);
        }
        "forbidden" => {
            let src = RemoteSource::open(&url).unwrap();
            let e = src.read_head(256).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{e}");
            assert_eq!(
                e.to_string(),
                // moto's 403 has no body; S3's carries <Code>AccessDenied</Code>, which the
                // message then names (tests/failures.rs).
                format!(
                    "{url}: access denied (HTTP 403): check the credentials and the object's permissions"
                )
            );
        }
        "http_not_allowed" => {
            let e = RemoteSource::open(&url).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
            let endpoint = std::env::var("AWS_ENDPOINT").unwrap();
            assert_eq!(
                e.to_string(),
                format!(
                    "{url}: the endpoint {endpoint} (AWS_ENDPOINT) is plain HTTP, which is refused unless AWS_ALLOW_HTTP=true"
                )
            );
            assert!(matches!(
                RemoteError::from_io(&e).unwrap().problem(),
                Problem::Config(_)
            ));
        }
        "versioned" => {
            let url = "s3://binfmt-versioned/v.bin";
            let src = RemoteSource::open(url).unwrap();
            assert_eq!(&*src.read_head(16).unwrap(), &pattern(SIZE, 31)[..16]);
            let version = src.pinned().unwrap().version.expect("a version ID");
            let endpoint = std::env::var("AWS_ENDPOINT").unwrap();
            let port: u16 = endpoint.rsplit(':').next().unwrap().parse().unwrap();
            servers::MotoClient::new(port).put("binfmt-versioned", "v.bin", &pattern(SIZE, 32));
            assert_eq!(
                &*src.read_range(150_000..150_100).unwrap(),
                &pattern(SIZE, 31)[150_000..150_100]
            );
            assert_eq!(
                src.pinned().unwrap().version.as_deref(),
                Some(version.as_str())
            );
        }
        "pinned" => {
            let src = RemoteSource::open(&url).unwrap();
            src.read_head(16).unwrap();
            // Another writer replaces the object.
            let endpoint = std::env::var("AWS_ENDPOINT").unwrap();
            let port: u16 = endpoint.rsplit(':').next().unwrap().parse().unwrap();
            let moto = servers::MotoClient::new(port);
            moto.put(BUCKET, "data/sample.bin", &pattern(SIZE, 22));
            let e = src.read_range(150_000..150_100).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::StaleNetworkFileHandle, "{e}");
            assert!(
                e.to_string()
                    .contains("the object changed while it was being read"),
                "{e}"
            );
        }
        other => panic!("no scenario {other}"),
    }
}
