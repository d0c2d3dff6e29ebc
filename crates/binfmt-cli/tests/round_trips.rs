//! Request plans measured as a user meets them: each operation run by `binfmt` against
//! nginx on 127.0.0.1 through a proxy that adds a round trip of [`RTT`] (the kernel here
//! has no netem), counted in requests (nginx's own log) and in dependent round trips (the
//! command's time over the round trip). docs/remote.md has the same table.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod common;

use core::time::Duration;
use std::process::{Command, Output};
use std::time::Instant;

use binfmt_test_support::server_test;
use binfmt_test_support::servers::{DelayProxy, Nginx, TempDir};
use common::{big_kastore, crate_file as fixture, stderr};

/// The round trip the proxy adds: large next to loopback processing and process start,
/// so a count of round trips is the time over it, rounded.
const RTT: Duration = Duration::from_millis(400);

struct Site {
    nginx: Nginx,
    proxy: DelayProxy,
    dir: TempDir,
}

fn site(test: &str) -> Option<Site> {
    let dir = TempDir::new("cli-rtt");
    for (name, rel) in [
        ("t.taco", "taco-header/tests/fixtures/three_entries.taco"),
        ("c.blp", "bloscpack-header/tests/fixtures/ndarray_c.blp"),
        ("g.mldf", "mldf/tests/fixtures/golden_b.mldf"),
        ("clean.taridx", "taridx/tests/fixtures/golden/clean.taridx"),
        (
            "clean_0000.tar",
            "taridx/tests/fixtures/golden/clean_0000.tar",
        ),
        (
            "clean_0001.tar",
            "taridx/tests/fixtures/golden/clean_0001.tar",
        ),
    ] {
        std::fs::copy(fixture(rel), dir.path().join(name)).unwrap();
    }
    std::fs::write(dir.path().join("big.kas"), big_kastore()).unwrap();
    // A 32 MiB Bloscpack file of 32 chunks (incompressible: the chunks are stored).
    let raw = dir.path().join("raw.bin");
    std::fs::write(&raw, pattern(32 << 20)).unwrap();
    let blp = dir.path().join("big.blp");
    let packed = Command::new(env!("CARGO_BIN_EXE_binfmt"))
        .args(["bloscpack", "pack", "--chunk-size", "1M"])
        .arg(&raw)
        .arg(&blp)
        .output()
        .unwrap();
    assert!(packed.status.success(), "{}", stderr(&packed));
    // A TACO archive of 3,000 members whose central directory (about 200 KiB) does not
    // fit the tail read.
    let members = dir.path().join("members");
    std::fs::create_dir_all(&members).unwrap();
    let mut args: Vec<std::ffi::OsString> = vec!["taco".into(), "create".into()];
    args.push(dir.path().join("big.taco").into());
    args.push("--strip-dirs".into());
    for i in 0..3000u32 {
        let path = members.join(format!("member-with-a-longish-name-{i:05}.bin"));
        std::fs::write(&path, [u8::try_from(i % 251).unwrap(); 16]).unwrap();
        args.push(path.into());
    }
    let created = Command::new(env!("CARGO_BIN_EXE_binfmt"))
        .args(&args)
        .output()
        .unwrap();
    assert!(created.status.success(), "{}", stderr(&created));
    let nginx = Nginx::start(test, dir.path())?;
    let proxy = DelayProxy::start(nginx.port(), RTT);
    Some(Site { nginx, proxy, dir })
}

/// `len` bytes that do not compress.
fn pattern(len: usize) -> Vec<u8> {
    binfmt_test_support::noise::noise_low(len, 0x9e37_79b9_7f4a_7c15)
}

/// One measured operation.
struct Measured {
    out: Output,
    requests: usize,
    bytes: u64,
    round_trips: u32,
    /// The TCP connections its requests came on (nginx's `$connection`).
    connections: usize,
}

impl Site {
    fn run(&self, args: &[&str]) -> Measured {
        let before = self.nginx.settled_log(0).len();
        let start = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_binfmt"))
            .args(args)
            .output()
            .unwrap();
        let elapsed = start.elapsed();
        let log = self.nginx.settled_log(before + 1);
        let requests = log.len() - before;
        let bytes = log[before..].iter().map(|l| l.sent).sum();
        let mut connections: Vec<u64> = log[before..].iter().map(|l| l.connection).collect();
        connections.sort_unstable();
        connections.dedup();
        Measured {
            out,
            requests,
            bytes,
            round_trips: self.proxy.round_trips(elapsed),
            connections: connections.len(),
        }
    }
}

/// The most an operation may cost.
#[derive(Clone, Copy)]
struct Budget {
    requests: usize,
    round_trips: u32,
    bytes: u64,
    connections: usize,
}

const fn budget(requests: usize, round_trips: u32, bytes: u64) -> Budget {
    Budget {
        requests,
        round_trips,
        bytes,
        connections: usize::MAX,
    }
}

impl Budget {
    /// Every request on one TCP connection (files on one host share one client).
    const fn one_connection(self) -> Budget {
        Budget {
            connections: 1,
            ..self
        }
    }
}

/// Runs `args` and checks it succeeded within `limit`; a failure is noted in `failures`
/// (every operation is measured and printed before the test fails, so one run gives the
/// whole table: `cargo test --test round_trips -- --nocapture`).
fn check(site: &Site, failures: &mut Vec<String>, what: &str, args: &[&str], limit: Budget) {
    let m = site.run(args);
    eprintln!(
        "| {what} | {} | {} | {} | {} |",
        m.requests, m.round_trips, m.bytes, m.connections
    );
    if !m.out.status.success() {
        failures.push(format!("{what}: failed: {}", stderr(&m.out)));
    } else if m.requests > limit.requests
        || m.round_trips > limit.round_trips
        || m.bytes > limit.bytes
        || m.connections > limit.connections
    {
        failures.push(format!(
            "{what}: {} requests, {} round trips, {} bytes, {} connections (at most {}, {}, {}, {})",
            m.requests,
            m.round_trips,
            m.bytes,
            m.connections,
            limit.requests,
            limit.round_trips,
            limit.bytes,
            limit.connections
        ));
    }
}

server_test! {
    nginx fn request_plans_in_round_trips(site = site) {
        const KIB: u64 = 1024;
        let url = |name: &str| site.proxy.url(name);
        let mut failures = Vec::new();
        let f = &mut failures;
        eprintln!("| operation | requests | round trips | bytes | connections |");
        let header = ["taco", "header", &url("big.taco")];
        check(&site, f, "taco header", &header, budget(1, 1, 256));
        // The URL is named `*.taco`: the tail is asked with the head (detection), at the
        // same time, then the central directory: 3 requests, 2 round trips (3 and 3 before).
        let listing = ["inspect", "--json", &url("big.taco")];
        check(
            &site,
            f,
            "taco inspect, 3,000 members",
            &listing,
            budget(3, 2, 512 * KIB),
        );
        let kas = ["inspect", &url("big.kas")];
        check(&site, f, "kastore inspect", &kas, budget(1, 1, 64 * KIB));
        let get = ["kastore", "get", "--raw", &url("big.kas"), "c"];
        let one_array = budget(2, 2, 64 * KIB + 1024 * KIB);
        check(&site, f, "kastore get, one 1 MiB array", &get, one_array);
        // One small range per chunk header (32 chunks), all in flight at once.
        let blp = ["inspect", &url("big.blp")];
        check(
            &site,
            f,
            "bloscpack inspect, 32 MiB",
            &blp,
            budget(33, 2, 320 * KIB),
        );
        // Every chunk read: the chunks the offsets section names are announced, and the
        // cache streams them from the first one read: one GET for all of them, received as
        // fast as they are checked (at most STREAM_BUDGET held). `verify`, and `unpack` into
        // a file, check each chunk header from the bytes that bring the chunk (one pass):
        // measured 2 requests (the head, the stream), 2 round trips; 4 requests and 3 round
        // trips with three 16 MiB windows in flight, 35 requests with a request per chunk
        // header, 34 round trips before the windows. Both now ask the first request for the
        // whole object (`Options::with_whole_object`; `verify` because the URL is named
        // `*.blp`) and stream the chunks from its rest: 1 request, 1 round trip after
        // connecting. The round-trip count is the time over
        // the round trip, and a debug build's checks of 32 MiB take longer under load (two
        // round trips of slack). `unpack` to standard output still fetches the chunk headers
        // first (one small request each): nothing goes to a stream before the structure is
        // checked.
        let whole = budget(1, 3, 33 << 20);
        let verify = ["verify", &url("big.blp")];
        check(&site, f, "bloscpack verify, 32 MiB", &verify, whole);
        let out = site.dir.path().join("big.raw");
        let out = out.to_str().unwrap();
        let unpack = ["bloscpack", "unpack", &url("big.blp"), out, "--force"];
        check(
            &site,
            f,
            "bloscpack unpack to a file, 32 MiB",
            &unpack,
            whole,
        );
        let unpack = ["bloscpack", "unpack", &url("big.blp"), "-"];
        check(
            &site,
            f,
            "bloscpack unpack to stdout, 32 MiB",
            &unpack,
            budget(33 + 8, 5, 33 << 20),
        );
        // Formats whose `verify` checks structure only: the head read is ranged, as
        // `inspect`'s (only a URL named `*.blp` is asked for whole; one named `*.taco` has
        // its tail asked with the head: 5 requests, 4 round trips, where they were 5 and 5).
        let verify = ["verify", &url("big.kas")];
        check(&site, f, "kastore verify", &verify, budget(1, 1, 64 * KIB));
        let verify = ["verify", &url("big.taco")];
        let taco_verify = budget(5, 5, 1024 * KIB);
        check(&site, f, "taco verify, 3,000 members", &verify, taco_verify);
        let mldf = ["inspect", &url("g.mldf")];
        check(&site, f, "mldf inspect", &mldf, budget(1, 1, 64 * KIB));
        let (index, s0, s1) = (
            url("clean.taridx"),
            url("clean_0000.tar"),
            url("clean_0001.tar"),
        );
        let sample = [
            "taridx",
            "get",
            &index,
            "sample000002",
            "--ext",
            "json",
            "--shards",
            &s0,
            &s1,
        ];
        check(
            &site,
            f,
            "taridx get, one sample",
            &sample,
            // The index and the shard are on one host: one client, one connection.
            budget(2, 2, 64 * KIB).one_connection(),
        );
        let batch = [
            "taridx",
            "get",
            &index,
            "sample000001",
            "sample000002",
            "sample000003",
            "--shards",
            &s0,
            &s1,
        ];
        check(
            &site,
            f,
            "taridx get, 3 samples",
            &batch,
            budget(12, 3, 64 * KIB),
        );
        assert!(failures.is_empty(), "{failures:#?}");
    }
}
