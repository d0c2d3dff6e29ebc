//! `binfmt` on URLs, against real servers on 127.0.0.1: nginx (Debian's package) for
//! `http://`, moto's S3 server for `s3://`. Request counts come from the servers' own
//! logs. The servers are started by the tests, which are ignored (with the reason) when
//! they are missing, unless `BINFMT_REQUIRE_SERVERS=1` (`tools/remote/install-servers.sh`
//! installs them).
#![allow(clippy::unwrap_used)]

mod common;

use std::process::{Command, Output};

use binfmt_test_support::server_test;
use binfmt_test_support::servers::{self, Moto, Nginx, TempDir};
use common::{big_kastore, crate_file as fixture, s, stderr, stdout};

const FILES: &[(&str, &str)] = &[
    (
        "three_entries.taco",
        "taco-header/tests/fixtures/three_entries.taco",
    ),
    (
        "ndarray_c.blp",
        "bloscpack-header/tests/fixtures/ndarray_c.blp",
    ),
    ("control.kas", "kastore/tests/fixtures/valid/control.kas"),
    ("golden_b.mldf", "mldf/tests/fixtures/golden_b.mldf"),
    ("clean.taridx", "taridx/tests/fixtures/golden/clean.taridx"),
    (
        "clean_0000.tar",
        "taridx/tests/fixtures/golden/clean_0000.tar",
    ),
    (
        "clean_0001.tar",
        "taridx/tests/fixtures/golden/clean_0001.tar",
    ),
];

struct Site {
    nginx: Nginx,
    dir: TempDir,
}

fn site(test: &str) -> Option<Site> {
    let dir = TempDir::new("cli-site");
    for (name, rel) in FILES {
        std::fs::copy(fixture(rel), dir.path().join(name)).unwrap();
    }
    std::fs::write(dir.path().join("big.kas"), big_kastore()).unwrap();
    let nginx = Nginx::start(test, dir.path())?;
    Some(Site { nginx, dir })
}

fn binfmt(args: &[&str], env: &[(&str, String)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_binfmt"));
    cmd.args(args);
    for k in [
        "AWS_PROFILE",
        "AWS_CONFIG_FILE",
        "AWS_SHARED_CREDENTIALS_FILE",
    ] {
        cmd.env_remove(k);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// An `inspect --json` line without `"file"`, and with TACO members' `data_offset` null:
/// for a URL the listing comes from the central directory alone (a data offset would
/// cost a request per member), so only those differ from a local inspect.
fn comparable(line: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
    let object = v.as_object_mut().unwrap();
    object.remove("file");
    if let Some(members) = object.get_mut("members").and_then(|m| m.as_array_mut()) {
        for m in members {
            m["data_offset"] = serde_json::Value::Null;
        }
    }
    v
}

server_test! {
    nginx fn inspect_and_verify_read_urls_as_they_read_files(site = site) {
        for (name, rel) in FILES.iter().filter(|(n, _)| !n.ends_with(".tar")) {
            let url = site.nginx.url(name);
            let local = binfmt(&["inspect", "--json", s(&fixture(rel))], &[]);
            let remote = binfmt(&["inspect", "--json", &url], &[]);
            assert!(remote.status.success(), "{name}: {}", stderr(&remote));
            let strip = |o: &Output| comparable(&stdout(o));
            assert_eq!(strip(&local), strip(&remote), "{name}");
            let verify = binfmt(&["verify", &url], &[]);
            assert!(verify.status.success(), "{name}: {}", stderr(&verify));
            assert_eq!(
                stdout(&verify),
                format!(
                    "{url}: OK ({})\n",
                    strip(&local)["format"].as_str().unwrap()
                )
            );
        }
    }
}

server_test! {
    nginx fn a_server_that_ignores_ranges_is_read_as_a_stream(site = site) {
        // nginx's `max_ranges 0` answers 200 and the whole file, as `python -m http.server`:
        // every format is read in order from one GET without `Range`, with a note.
        for (name, rel) in FILES.iter().filter(|(n, _)| !n.ends_with(".tar")) {
            let url = site.nginx.url(&format!("norange/{name}"));
            let local = binfmt(&["inspect", "--json", s(&fixture(rel))], &[]);
            let remote = binfmt(&["inspect", "--json", &url], &[]);
            assert!(remote.status.success(), "{name}: {}", stderr(&remote));
            let strip = |o: &Output| comparable(&stdout(o));
            assert_eq!(strip(&local), strip(&remote), "{name}");
            let note = format!("binfmt: {url}: the server ignores Range headers");
            common::assert_contains(&stderr(&remote), &note);
            let verify = binfmt(&["verify", &url], &[]);
            assert!(verify.status.success(), "{name}: {}", stderr(&verify));
        }
        let url = site.nginx.url("norange/big.kas");
        let out = binfmt(&["kastore", "get", "--raw", &url, "c"], &[]);
        assert!(out.status.success(), "{}", stderr(&out));
        let local = site.dir.path().join("big.kas");
        let want = binfmt(&["kastore", "get", "--raw", s(&local), "c"], &[]);
        assert!(out.stdout == want.stdout);
        // Shards too: a member is read from the stream of its shard.
        let index = site.nginx.url("norange/clean.taridx");
        let shards = [
            site.nginx.url("norange/clean_0000.tar"),
            site.nginx.url("norange/clean_0001.tar"),
        ];
        let local_index = fixture("taridx/tests/fixtures/golden/clean.taridx");
        let want = binfmt(
            &["taridx", "get", s(&local_index), "sample000002", "--ext", "json"],
            &[],
        );
        assert!(want.status.success(), "{}", stderr(&want));
        let got = binfmt(
            &[
                "taridx", "get", &index, "sample000002", "--ext", "json", "--shards",
                &shards[0], &shards[1],
            ],
            &[],
        );
        assert!(got.status.success(), "{}", stderr(&got));
        assert!(got.stdout == want.stdout);
        // Said once for the index and once for the shard read, when each fell back.
        let err = stderr(&got);
        for url in [&index, &shards[0]] {
            let note = format!("binfmt: {url}: the server ignores Range headers");
            assert_eq!(err.matches(&note).count(), 1, "{err}");
        }
    }
}

server_test! {
    nginx fn a_taco_header_is_one_request_of_at_most_256_bytes(site = site) {
        let url = site.nginx.url("three_entries.taco");
        // `taco header`: the header alone, one GET of 256 bytes (tacoreader's).
        let out = binfmt(&["--stats", "taco", "header", "--json", &url], &[]);
        assert!(out.status.success(), "{}", stderr(&out));
        let log = site.nginx.settled_log(1);
        assert_eq!(log.len(), 1, "{:?}", servers::brief(&log));
        assert_eq!(log[0].range, "bytes=0-255", "{:?}", servers::brief(&log));
        assert!(log[0].sent <= 256);
        common::assert_contains(&stderr(&out), &format!("binfmt: stats: {url}: 1 requests"));
        // `inspect` lists the members too: detection's first read (64 KiB), then the tail
        // and the directory if the first read does not hold them.
        let out = binfmt(&["--stats", "inspect", "--json", &url], &[]);
        assert!(out.status.success(), "{}", stderr(&out));
        let log = site.nginx.settled_log(2);
        assert!(log.len() - 1 <= 3, "{:?}", servers::brief(&log));
    }
}

server_test! {
    nginx fn kastore_get_of_one_array_fetches_that_array(site = site) {
        let url = site.nginx.url("big.kas");
        let out = binfmt(&["kastore", "get", "--raw", &url, "c"], &[]);
        assert!(out.status.success(), "{}", stderr(&out));
        let expected: Vec<u8> = (0..1_048_576u32).map(|i| (i % 251) as u8).collect();
        assert!(out.stdout == expected, "the array's bytes");
        let log = site.nginx.settled_log(2);
        // Open: header + descriptors (at most 2); the array: 1.
        assert!(log.len() <= 3, "{:?}", servers::brief(&log));
        let sent: u64 = log.iter().map(|l| l.sent).sum();
        let size = std::fs::metadata(site.dir.path().join("big.kas"))
            .unwrap()
            .len();
        // Detection's 256 bytes, the reader's first 64 KiB (header, descriptors, keys), the array.
        assert!(
            sent <= 1_048_576 + 65_536 + 256,
            "{sent} of {size} bytes sent"
        );
    }
}

server_test! {
    nginx fn taridx_get_is_one_request_per_sample_on_the_shard(site = site) {
        let local = binfmt(
            &[
                "taridx",
                "get",
                s(&fixture("taridx/tests/fixtures/golden/clean.taridx")),
                "sample000002",
                "--ext",
                "json",
            ],
            &[],
        );
        assert!(local.status.success(), "{}", stderr(&local));
        let url = site.nginx.url("clean.taridx");
        // A URL has no directory listing: the shards are named (a bucket listing would be a
        // request of its own, and a prefix may hold other folds).
        let shard0 = site.nginx.url("clean_0000.tar");
        let shard1 = site.nginx.url("clean_0001.tar");
        let out = binfmt(
            &[
                "taridx",
                "get",
                &url,
                "sample000002",
                "--ext",
                "json",
                "--shards",
                &shard0,
                &shard1,
            ],
            &[],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(out.stdout, local.stdout);
        let log = site.nginx.settled_log(2);
        let on_index = log.iter().filter(|l| l.uri.ends_with(".taridx")).count();
        let on_shards = log.iter().filter(|l| l.uri.ends_with(".tar")).count();
        assert_eq!((on_index, on_shards), (1, 1), "{:?}", servers::brief(&log));
    }
}

server_test! {
    nginx fn bloscpack_unpack_of_a_url_writes_what_a_local_unpack_writes(site = site) {
        let dir = TempDir::new("cli-unpack");
        let local_out = dir.path().join("local.bin");
        let remote_out = dir.path().join("remote.bin");
        let local = binfmt(
            &[
                "bloscpack",
                "unpack",
                s(&fixture("bloscpack-header/tests/fixtures/ndarray_c.blp")),
                s(&local_out),
            ],
            &[],
        );
        assert!(local.status.success(), "{}", stderr(&local));
        let url = site.nginx.url("ndarray_c.blp");
        let out = binfmt(&["bloscpack", "unpack", &url, s(&remote_out)], &[]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(
            std::fs::read(&remote_out).unwrap(),
            std::fs::read(&local_out).unwrap()
        );
        // A server that ignores ranges (nginx's `max_ranges 0`, as `python -m http.server`)
        // serves the one GET of the whole object these commands make: no Range header.
        let url = site.nginx.url("norange/ndarray_c.blp");
        let out = binfmt(&["bloscpack", "unpack", "--force", &url, s(&remote_out)], &[]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(
            std::fs::read(&remote_out).unwrap(),
            std::fs::read(&local_out).unwrap()
        );
        let out = binfmt(&["verify", &url], &[]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
}

server_test! {
    nginx fn failures_are_one_line_naming_the_url_and_leave_no_output(site = site) {
        let dir = TempDir::new("cli-failures");
        let missing = site.nginx.url("missing.blp");
        let out_file = dir.path().join("out.bin");
        for args in [
            vec!["inspect", missing.as_str()],
            vec!["verify", missing.as_str()],
            vec!["bloscpack", "unpack", missing.as_str(), s(&out_file)],
        ] {
            let out = binfmt(&args, &[]);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
            let err = stderr(&out);
            assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
            assert!(
                err.contains(&missing) && err.contains("not found"),
                "{args:?}: {err}"
            );
            assert!(!out_file.exists(), "no output file");
        }
        // Nobody listens on this port.
        let refused = format!("http://127.0.0.1:{}/x.taco", servers::free_port());
        let out = binfmt(&["inspect", &refused], &[]);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
        assert!(stderr(&out).contains(&refused), "{}", stderr(&out));
    }
}

server_test! {
    moto fn s3_urls_through_the_usual_environment(moto = Moto::start) {
        moto.create_bucket("data");
        let big = big_kastore();
        moto.put("data", "trees/big.kas", &big);
        moto.put(
            "data",
            "three_entries.taco",
            &std::fs::read(fixture("taco-header/tests/fixtures/three_entries.taco")).unwrap(),
        );
        let env = moto.env();
        let before = moto.log().len();
        let out = binfmt(
            &[
                "--stats",
                "kastore",
                "get",
                "--raw",
                "s3://data/trees/big.kas",
                "a",
            ],
            &env,
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let expected: Vec<u8> = (0..131_072u64).flat_map(u64::to_le_bytes).collect();
        assert!(out.stdout == expected);
        let log = moto.settled_log(before + 2);
        let gets = log[before..].iter().filter(|l| l.method == "GET").count();
        assert!(
            (2..=3).contains(&gets),
            "open ≤ 2 + the array 1: {:?}",
            &log[before..]
        );

        let out = binfmt(&["inspect", "--json", "s3://data/three_entries.taco"], &env);
        assert!(out.status.success(), "{}", stderr(&out));
        let local = binfmt(
            &[
                "inspect",
                "--json",
                s(&fixture("taco-header/tests/fixtures/three_entries.taco")),
            ],
            &[],
        );
        let strip = |o: &Output| comparable(&stdout(o));
        assert_eq!(strip(&out), strip(&local));

        let out = binfmt(&["inspect", "s3://data/nothing-here.taco"], &env);
        common::assert_exit_saying(&out, 1, "s3://data/nothing-here.taco");
        assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    }
}

server_test! {
    /// `bloscpack unpack URL FILE` checks and unpacks in one pass into a temporary file: a bad
    /// digest in the last chunk, or an offsets entry that lies, fails with the problem the
    /// two steps report (as `unpack URL -` does) and leaves FILE as it was; a FILE that exists
    /// without `--force` is refused before anything is read past the head.
    nginx fn bloscpack_unpack_of_a_url_into_a_file_is_all_or_nothing(site = site) {
        let dir = TempDir::new("cli-unpack-one-pass");
        let raw = dir.path().join("raw.bin");
        let data: Vec<u8> = (0..600_000u32)
            .map(|i| i.wrapping_mul(2_654_435_761).to_le_bytes()[1])
            .collect();
        std::fs::write(&raw, &data).unwrap();
        let blp = site.dir.path().join("many.blp");
        let packed = binfmt(
            &["bloscpack", "pack", "--chunk-size", "64K", s(&raw), s(&blp)],
            &[],
        );
        assert!(packed.status.success(), "{}", stderr(&packed));
        let good = std::fs::read(&blp).unwrap();
        let view = bloscpack_header::Bloscpack::parse(&good[..]).unwrap();
        assert!(view.nchunks() > 5);
        let last = view.chunks().last().unwrap();
        let entry = view.chunks().nth(3).unwrap().offset().to_le_bytes();
        let entry_at = good.windows(8).position(|w| w == entry).unwrap();
        let out = dir.path().join("out.bin");
        // Good: the same bytes as the input.
        let url = site.nginx.url("many.blp");
        let done = binfmt(&["bloscpack", "unpack", &url, s(&out)], &[]);
        assert!(done.status.success(), "{}", stderr(&done));
        assert_eq!(std::fs::read(&out).unwrap(), data);
        // Refused without --force: FILE untouched.
        let again = binfmt(&["bloscpack", "unpack", &url, s(&out)], &[]);
        assert_ne!(again.status.code(), Some(0));
        assert_eq!(std::fs::read(&out).unwrap(), data);
        std::fs::write(&out, b"before").unwrap();
        for (name, at, flip) in [
            (
                "digest.blp",
                usize::try_from(last.digest_offset()).unwrap(),
                0x5a,
            ),
            ("entry.blp", entry_at, 0x01),
        ] {
            let mut bad = good.clone();
            bad[at] ^= flip;
            std::fs::write(site.dir.path().join(name), &bad).unwrap();
            let url = site.nginx.url(name);
            let to_file = binfmt(&["bloscpack", "unpack", &url, s(&out), "--force"], &[]);
            let to_stdout = binfmt(&["bloscpack", "unpack", &url, "-"], &[]);
            assert_eq!(
                to_file.status.code(),
                Some(1),
                "{name}: {}",
                stderr(&to_file)
            );
            assert_eq!(to_stdout.status.code(), Some(1), "{name}");
            assert_eq!(stderr(&to_file), stderr(&to_stdout), "{name}");
            assert_eq!(std::fs::read(&out).unwrap(), b"before", "{name}");
            let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
            assert_eq!(names.len(), 2, "{name}: no temporary file left");
        }
    }
}
