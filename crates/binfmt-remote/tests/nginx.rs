//! Against nginx on 127.0.0.1: request plans, counted from nginx's own access log.
//!
//! Ignored (with the reason) when nginx is missing, unless `BINFMT_REQUIRE_SERVERS=1`.
#![allow(clippy::unwrap_used, clippy::cast_possible_truncation)]

use std::fs::File;
use std::io;
use std::sync::Arc;

use binfmt_core::source::{ByteSource, PastEnd};
use binfmt_remote::{Options, Problem, RemoteError, RemoteSource};
use binfmt_test_support::server_test;
use binfmt_test_support::servers::{Nginx, TempDir, brief, pattern};

const SMALL: usize = 200_000;
/// A sparse file: 10 GiB that take no disk space.
const BIG: u64 = 10 << 30;

struct Site {
    nginx: Nginx,
    small: Vec<u8>,
    dir: TempDir,
}

fn site(test: &str) -> Option<Site> {
    let dir = TempDir::new("site");
    let small = pattern(SMALL, 1);
    std::fs::write(dir.path().join("small.bin"), &small).unwrap();
    std::fs::write(dir.path().join("empty.bin"), b"").unwrap();
    File::create(dir.path().join("big.bin"))
        .unwrap()
        .set_len(BIG)
        .unwrap();
    std::fs::create_dir(dir.path().join("private")).unwrap();
    std::fs::write(dir.path().join("private/secret.bin"), b"secret").unwrap();
    let nginx = Nginx::start(test, dir.path())?;
    Some(Site { nginx, small, dir })
}

fn open(site: &Site, path: &str, options: &Options) -> RemoteSource {
    RemoteSource::open_with(&site.nginx.url(path), options).unwrap()
}

server_test! {
    nginx fn by_default_a_head_of_256_bytes_is_one_get_of_256_bytes(site = site) {
        // The TACO plan: the header in one request of at most 256 bytes (tacoreader's GET).
        let src = open(&site, "small.bin", &Options::new());
        assert_eq!(&*src.read_head(256).unwrap(), &site.small[..256]);
        assert_eq!(src.len().unwrap(), SMALL as u64);
        // The block is kept: reading inside it again costs nothing.
        assert_eq!(&*src.read_range(100..200).unwrap(), &site.small[100..200]);
        let log = site.nginx.settled_log(1);
        assert_eq!(brief(&log), ["GET /small.bin 206 \"bytes=0-255\""]);
        assert_eq!(log[0].sent, 256);
    }
}

server_test! {
    nginx fn read_head_is_one_bounded_get_and_no_head(site = site) {
        let src = open(&site, "small.bin", &Options::new().with_read_ahead(65536));
        assert_eq!(&*src.read_head(256).unwrap(), &site.small[..256]);
        // Known from Content-Range: no HEAD.
        assert_eq!(src.len().unwrap(), SMALL as u64);
        // Inside the read-ahead block: no request.
        assert_eq!(
            &*src.read_range(1000..2000).unwrap(),
            &site.small[1000..2000]
        );
        let log = site.nginx.settled_log(1);
        assert_eq!(brief(&log), ["GET /small.bin 206 \"bytes=0-65535\""]);
        assert_eq!(log[0].sent, 65536);
        assert_eq!(
            log[0].if_match, "",
            "the first request has nothing to match"
        );
        let s = src.stats();
        assert_eq!(
            (s.requests, s.head_requests, s.bytes, s.cache_hits),
            (1, 0, 65536, 1)
        );
        assert_eq!(s.http_requests, 1);
    }
}

server_test! {
    nginx fn read_tail_is_one_suffix_get(site = site) {
        let src = open(&site, "small.bin", &Options::new().with_read_ahead(0));
        let (at, tail) = src.read_tail(100).unwrap();
        assert_eq!(at, SMALL as u64 - 100);
        assert_eq!(&*tail, &site.small[SMALL - 100..]);
        assert_eq!(src.len().unwrap(), SMALL as u64);
        let log = site.nginx.settled_log(1);
        assert_eq!(brief(&log), ["GET /small.bin 206 \"bytes=-100\""]);
    }
}

server_test! {
    nginx fn len_alone_is_one_head(site = site) {
        let src = open(&site, "small.bin", &Options::new());
        assert_eq!(src.len().unwrap(), SMALL as u64);
        assert_eq!(src.len().unwrap(), SMALL as u64);
        let log = site.nginx.settled_log(1);
        assert_eq!(brief(&log), ["HEAD /small.bin 200 \"\""]);
        assert_eq!(src.stats().head_requests, 1);
    }
}

server_test! {
    nginx fn one_kilobyte_of_a_ten_gigabyte_object_downloads_one_kilobyte(site = site) {
        let src = open(&site, "big.bin", &Options::new().with_read_ahead(65536));
        let at = 5_000_000_000u64;
        assert_eq!(src.read_range(at..at + 1024).unwrap().len(), 1024);
        // A header read is widened by the read-ahead, never more.
        assert_eq!(src.read_head(1024).unwrap().len(), 1024);
        let (start, tail) = src.read_tail(22).unwrap();
        assert_eq!((start, tail.len()), (BIG - 22, 22));
        let log = site.nginx.settled_log(3);
        assert_eq!(
            brief(&log),
            [
                "GET /big.bin 206 \"bytes=5000000000-5000001023\"",
                "GET /big.bin 206 \"bytes=0-65535\"",
                "GET /big.bin 206 \"bytes=-65536\"",
            ]
        );
        let sent: Vec<u64> = log.iter().map(|l| l.sent).collect();
        assert_eq!(sent, [1024, 65536, 65536]);
        assert_eq!(src.stats().bytes, 1024 + 2 * 65536);
    }
}

server_test! {
    nginx fn ranges_merge_below_the_gap_only(site = site) {
        let ranges = [
            0..100,
            150..200,
            100_000..100_100,
            190_000..190_010,
            100_100..100_200,
        ];
        for (gap, want) in [
            // Default 64 KiB: the 50-byte hole and the adjacent pair merge; 89,800 bytes do not.
            (
                binfmt_remote::DEFAULT_COALESCE_GAP,
                vec!["bytes=0-199", "bytes=100000-100199", "bytes=190000-190009"],
            ),
            // A zero gap keeps even adjacent ranges apart.
            (
                0,
                vec![
                    "bytes=0-99",
                    "bytes=150-199",
                    "bytes=100000-100099",
                    "bytes=100100-100199",
                    "bytes=190000-190009",
                ],
            ),
            // One byte of gap merges adjacent ranges, not holes.
            (
                1,
                vec![
                    "bytes=0-99",
                    "bytes=150-199",
                    "bytes=100000-100199",
                    "bytes=190000-190009",
                ],
            ),
            (1 << 20, vec!["bytes=0-190009"]),
        ] {
            let before = site.nginx.log().len();
            let src = open(&site, "small.bin", &Options::new().with_coalesce_gap(gap));
            let parts = src.read_ranges(&ranges).unwrap();
            for (r, p) in ranges.iter().zip(&parts) {
                assert_eq!(&**p, &site.small[r.start as usize..r.end as usize]);
            }
            let log = site.nginx.settled_log(before + want.len());
            let mut got: Vec<String> = log[before..].iter().map(|l| l.range.clone()).collect();
            got.sort();
            let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
            want.sort();
            assert_eq!(got, want, "gap {gap}");
            assert_eq!(src.stats().requests as usize, want.len());
        }
    }
}

server_test! {
    nginx fn later_requests_carry_if_match_and_a_replaced_file_is_refused(site = site) {
        let src = open(&site, "small.bin", &Options::new());
        src.read_head(16).unwrap();
        src.read_range(150_000..150_010).unwrap();
        let etag = src.pinned().unwrap().e_tag.unwrap();
        // Replace the file (another length, so another ETag even within the same second).
        std::fs::write(site.dir.path().join("small.bin"), pattern(SMALL + 1, 2)).unwrap();
        let e = src.read_range(100_000..100_010).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::StaleNetworkFileHandle, "{e}");
        let url = site.nginx.url("small.bin");
        assert_eq!(
            e.to_string(),
            format!(
                "{url}: the object changed while it was being read (the server refused the pinned version: HTTP 412); nothing was mixed, read it again"
            )
        );
        let log = site.nginx.settled_log(3);
        assert_eq!(log[0].if_match, "");
        assert_eq!(log[1].if_match, etag);
        assert_eq!(
            (log[2].status, log[2].if_match.as_str()),
            (412, etag.as_str())
        );
    }
}

server_test! {
    nginx fn not_found_and_forbidden(site = site) {
        let src = open(&site, "missing.bin", &Options::new());
        let e = src.read_head(256).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        assert_eq!(
            e.to_string(),
            format!("{}: not found (HTTP 404)", site.nginx.url("missing.bin"))
        );
        let src = open(&site, "private/secret.bin", &Options::new());
        let e = src.read_tail(10).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
        assert_eq!(
            e.to_string(),
            format!(
                "{}: access denied (HTTP 403): check the credentials and the object's permissions",
                site.nginx.url("private/secret.bin")
            )
        );
        // Neither is retried.
        assert_eq!(site.nginx.settled_log(2).len(), 2);
    }
}

server_test! {
    nginx fn redirects_are_followed_with_the_range(site = site) {
        let src = open(&site, "moved/small.bin", &Options::new().with_read_ahead(0));
        assert_eq!(&*src.read_head(100).unwrap(), &site.small[..100]);
        let log = site.nginx.settled_log(2);
        assert_eq!(
            brief(&log),
            [
                "GET /moved/small.bin 302 \"bytes=0-99\"",
                "GET /small.bin 206 \"bytes=0-99\""
            ]
        );
        // The client follows the redirect within one request.
        assert_eq!((src.stats().requests, src.stats().http_requests), (1, 1));
    }
}

server_test! {
    nginx fn a_server_ignoring_range_is_refused_without_downloading(site = site) {
        // nginx with `max_ranges 0` answers 200 and the whole 10 GiB.
        let src = open(
            &site,
            "norange/big.bin",
            &Options::new().with_read_ahead(65536),
        );
        let e = src.read_head(256).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::Unsupported);
        assert!(
            matches!(
                RemoteError::from_io(&e).unwrap().problem(),
                Problem::RangeIgnored
            ),
            "{e}"
        );
        assert!(
            e.to_string().starts_with(&format!(
                "{}: the server ignored the Range header",
                site.nginx.url("norange/big.bin")
            )),
            "{e}"
        );
        // Not retried; one HEAD tells it from an empty object (for which nginx ignores ranges).
        let log = site.nginx.settled_log(2);
        assert_eq!(
            brief(&log),
            [
                "GET /norange/big.bin 200 \"bytes=0-65535\"",
                "HEAD /norange/big.bin 200 \"\""
            ]
        );
        // What nginx managed to send before we hung up: socket buffers, not the object.
        assert!(log[0].sent < 64 << 20, "sent {} bytes", log[0].sent);
        assert!(src.stats().bytes == 0);
    }
}

server_test! {
    nginx fn empty_objects_and_ranges_past_the_end(site = site) {
        let src = open(&site, "empty.bin", &Options::new().with_read_ahead(65536));
        assert!(src.read_head(256).unwrap().is_empty());
        let (at, tail) = src.read_tail(10).unwrap();
        assert_eq!((at, tail.len()), (0, 0));
        // nginx ignores ranges of an empty file (200, no body); a HEAD tells an empty object
        // from a server that ignores ranges. (S3 answers 416; the same HEAD follows.)
        let log = site.nginx.settled_log(2);
        assert_eq!(
            brief(&log),
            [
                "GET /empty.bin 200 \"bytes=0-65535\"",
                "HEAD /empty.bin 200 \"\""
            ]
        );

        let before = log.len();
        let src = open(&site, "small.bin", &Options::new());
        let e = src.read_range(199_990..200_010).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        let past = e.get_ref().unwrap().downcast_ref::<PastEnd>().unwrap();
        assert_eq!(
            (past.range.clone(), past.len),
            (199_990..200_010, SMALL as u64)
        );
        // Now the length is known: no request for the next one.
        assert!(src.read_range(300_000..300_001).is_err());
        let log = site.nginx.settled_log(before + 1);
        assert_eq!(
            brief(&log[before..]),
            ["GET /small.bin 206 \"bytes=199990-200009\""]
        );
    }
}

server_test! {
    nginx fn concurrent_readers_share_one_source(site = site) {
        let src = Arc::new(open(&site, "small.bin", &Options::new().with_read_ahead(0)));
        let small = Arc::new(site.small.clone());
        let threads: Vec<_> = (0..4u64)
            .map(|t| {
                let (src, small) = (Arc::clone(&src), Arc::clone(&small));
                std::thread::spawn(move || {
                    for i in 0..5u64 {
                        let s = (t * 40_000 + i * 7_000) as usize;
                        assert_eq!(
                            &*src.read_range(s as u64..s as u64 + 500).unwrap(),
                            &small[s..s + 500]
                        );
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let log = site.nginx.settled_log(20);
        assert_eq!(log.len(), 20);
        assert_eq!(src.stats().requests, 20);
        // Every request after the first pinned the version.
        assert!(log.iter().filter(|l| l.if_match.is_empty()).count() <= 4);
    }
}

server_test! {
    nginx fn the_whole_object_is_one_get_even_asked_as_u64_max(site = site) {
        // `.taridx`'s Reader asks for its index this way; nginx answers 416 to a range end
        // past i64::MAX, so the source must not send one.
        let src = open(&site, "small.bin", &Options::new());
        assert_eq!(&*src.read_head(u64::MAX).unwrap(), &site.small[..]);
        let other = open(&site, "small.bin", &Options::new());
        let (at, tail) = other.read_tail(u64::MAX).unwrap();
        assert_eq!((at, &*tail), (0, &site.small[..]));
        let log = site.nginx.settled_log(2);
        assert_eq!(log.len(), 2, "{:?}", brief(&log));
        assert!(
            log.iter().all(|l| l.status == 206 || l.status == 200),
            "{:?}",
            brief(&log)
        );
    }
}
