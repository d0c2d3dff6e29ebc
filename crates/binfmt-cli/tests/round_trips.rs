//! Request plans measured as a user meets them: each operation run by `binfmt` against
//! nginx on 127.0.0.1 through a proxy that adds a round trip of [`RTT`] (the kernel here
//! has no netem), counted in requests (nginx's own log) and in dependent round trips (the
//! command's time over the round trip). docs/remote.md has the same table.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation,
    missing_docs
)]

mod common;
#[path = "../../../tools/remote/servers.rs"]
mod servers;

use core::time::Duration;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use common::stderr;
use servers::{DelayProxy, Nginx, TempDir};

/// The round trip the proxy adds: large next to loopback processing and process start,
/// so a count of round trips is the time over it, rounded.
const RTT: Duration = Duration::from_millis(400);

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// A kastore file of three 1 MiB arrays.
fn big_kastore() -> Vec<u8> {
    let a: Vec<u64> = (0..131_072u64).collect();
    let b: Vec<f64> = (0..131_072u32).map(f64::from).collect();
    let c: Vec<u8> = (0..1_048_576u32).map(|i| (i % 251) as u8).collect();
    let mut builder = kastore::Builder::new();
    builder.insert("a", &a).unwrap();
    builder.insert("b", &b).unwrap();
    builder.insert("c", &c).unwrap();
    builder.to_vec().unwrap()
}

struct Site {
    nginx: Nginx,
    proxy: DelayProxy,
    _dir: TempDir,
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
    let nginx = Nginx::start(test, dir.path())?;
    let proxy = DelayProxy::start(nginx.port(), RTT);
    Some(Site {
        nginx,
        proxy,
        _dir: dir,
    })
}

/// One measured operation.
struct Measured {
    out: Output,
    requests: usize,
    round_trips: u32,
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
        let requests = self.nginx.settled_log(before + 1).len() - before;
        Measured {
            out,
            requests,
            round_trips: self.proxy.round_trips(elapsed),
        }
    }
}

/// Runs `args` and checks it succeeded within `requests` requests and `round_trips`
/// dependent round trips; a failure is noted in `failures` (every operation is measured
/// and printed before the test fails, so one run gives the whole table).
fn check(
    site: &Site,
    failures: &mut Vec<String>,
    what: &str,
    args: &[&str],
    requests: usize,
    round_trips: u32,
) {
    let m = site.run(args);
    eprintln!(
        "{what}: {} requests, {} round trips",
        m.requests, m.round_trips
    );
    if !m.out.status.success() {
        failures.push(format!("{what}: failed: {}", stderr(&m.out)));
    } else if m.requests > requests || m.round_trips > round_trips {
        failures.push(format!(
            "{what}: {} requests (at most {requests}), {} round trips (at most {round_trips})",
            m.requests, m.round_trips
        ));
    }
}

#[test]
fn request_plans_in_round_trips() {
    let Some(site) = site("request_plans_in_round_trips") else {
        return;
    };
    let url = |name: &str| site.proxy.url(name);
    let mut failures = Vec::new();
    check(
        &site,
        &mut failures,
        "taco header",
        &["taco", "header", &url("t.taco")],
        1,
        1,
    );
    check(
        &site,
        &mut failures,
        "taco inspect (listing)",
        &["inspect", &url("t.taco")],
        3,
        2,
    );
    check(
        &site,
        &mut failures,
        "kastore inspect",
        &["inspect", &url("big.kas")],
        2,
        2,
    );
    check(
        &site,
        &mut failures,
        "kastore get one array",
        &["kastore", "get", "--raw", &url("big.kas"), "c"],
        3,
        3,
    );
    check(
        &site,
        &mut failures,
        "bloscpack inspect",
        &["inspect", &url("c.blp")],
        3,
        2,
    );
    check(
        &site,
        &mut failures,
        "mldf inspect",
        &["inspect", &url("g.mldf")],
        3,
        3,
    );
    check(
        &site,
        &mut failures,
        "taridx get one sample",
        &[
            "taridx",
            "get",
            &url("clean.taridx"),
            "sample000002",
            "--ext",
            "json",
            "--shards",
            &url("clean_0000.tar"),
            &url("clean_0001.tar"),
        ],
        3,
        3,
    );
    assert!(failures.is_empty(), "{failures:#?}");
}
