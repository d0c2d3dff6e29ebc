//! Test servers on 127.0.0.1, started by the tests that need them and stopped when dropped:
//!
//! * [`Nginx`]: Debian's nginx serving a directory with `Range` support, with its own
//!   configuration, prefix and logs in a temporary directory (no root-owned path), on a
//!   free port; its access log records method, URI, status, `Range`, `If-Match` and
//!   bytes sent, so tests count requests from the server's own log.
//! * [`Moto`]: moto's standalone S3 server; its request log gives method, path, status.
//! * [`Rogue`]: a tiny HTTP server on a thread, answering each request with whatever
//!   the test's handler says, for what no real server does on purpose (ignored ranges,
//!   short and over-long bodies, changing ETags, errors then success, silence).
//! * [`DelayProxy`]: a proxy that adds a round trip, for counting dependent round trips.
//!
//! Used by binfmt-remote's tests and the CLI's (feature `servers`). A test that needs
//! nginx or moto carries `#[cfg_attr(binfmt_no_nginx, ignore = "…")]` (or
//! `binfmt_no_moto`): the crate's build script (tools/test_skips.rs) sets the cfg when the
//! search of tools/remote/programs.rs (the one used here) finds nothing, so `cargo test`
//! counts the test as *ignored*, with the reason. The test then calls [`Nginx::start`] /
//! [`Moto::start`], which still return `None` (after saying why) when the program is
//! missing at run time, unless `BINFMT_REQUIRE_SERVERS=1`, in which case a missing server
//! fails the test (and the build script sets no cfg).
//! `tools/remote/install-servers.sh` installs both and prints the variables to export.
// Byte counts of test bodies and logs fit every type they are converted to, and the
// indices are into buffers this module sized itself.
#![allow(clippy::cast_possible_truncation, clippy::indexing_slicing)]

use core::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use core::time::Duration;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant;

/// True when `BINFMT_REQUIRE_SERVERS=1`: a missing server is then a failure.
pub fn require_servers() -> bool {
    std::env::var_os("BINFMT_REQUIRE_SERVERS").is_some_and(|v| v == "1")
}

fn missing<T>(test: &str, what: &str, var: &str) -> Option<T> {
    assert!(
        !require_servers(),
        "{test}: BINFMT_REQUIRE_SERVERS=1 but {what} was not found (set {var}, or run tools/remote/install-servers.sh)"
    );
    eprintln!(
        "{test}: skipped, {what} was not found (set {var}, or run tools/remote/install-servers.sh; \
         BINFMT_REQUIRE_SERVERS=1 turns this skip into a failure)"
    );
    None
}

pub use crate::fixtures::repo_root;

/// A directory under the system's temporary directory, removed when dropped.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// A fresh, empty directory named after `tag`, this process and a counter.
    pub fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("binfmt-remote-{tag}-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create a temporary directory");
        TempDir(dir)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A port on 127.0.0.1 that was free a moment ago.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("bind 127.0.0.1:0")
}

/// `len` deterministic bytes that differ per `seed` and per position (xorshift).
pub fn pattern(len: usize, seed: u64) -> Vec<u8> {
    crate::noise::noise(len, seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
}

/// Starts a server up to `tries` times, each time in a fresh [`TempDir`] tagged `tag` and
/// on a fresh port, until it accepts connections within `limit`. `command` writes what the
/// server needs into the directory and says how to run it; the file `log` there says why
/// it did not start. A port taken between [`free_port`] and the bind ("Address already
/// in use") is tried again; any other failure panics, naming `what`.
fn start_server(
    test: &str,
    what: &str,
    tag: &str,
    tries: usize,
    limit: Duration,
    log: &str,
    command: impl Fn(&Path, u16) -> Command,
) -> (Child, u16, TempDir) {
    let mut last_error = String::new();
    for _ in 0..tries {
        let dir = TempDir::new(tag);
        let port = free_port();
        let mut command = command(dir.path(), port);
        let mut child = command.spawn().unwrap_or_else(|e| {
            panic!(
                "{test}: cannot run {}: {e}",
                Path::new(command.get_program()).display()
            )
        });
        match wait_listening(port, &mut child, limit) {
            Ok(()) => return (child, port, dir),
            Err(why) => {
                let _ = child.kill();
                let _ = child.wait();
                let text = fs::read_to_string(dir.path().join(log)).unwrap_or_default();
                last_error = format!("{why}: {text}");
                if !text.contains("Address already in use") {
                    break;
                }
            }
        }
    }
    panic!("{test}: {what} did not start: {last_error}");
}

/// `http://127.0.0.1:PORT/path` (one slash between the two).
fn local_url(port: u16, path: &str) -> String {
    format!("http://127.0.0.1:{port}/{}", path.trim_start_matches('/'))
}

/// Waits until something accepts connections on `port`, or `child` exits.
fn wait_listening(port: u16, child: &mut Child, limit: Duration) -> Result<(), String> {
    let start = Instant::now();
    loop {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("exited with {status}"));
        }
        if start.elapsed() > limit {
            return Err(format!("not listening after {limit:?}"));
        }
        thread::sleep(Duration::from_millis(25));
    }
}

// `nginx_program`, `moto_program`: where the servers are found (also read by the build
// scripts that mark the tests needing them as ignored, tools/test_skips.rs).
include!("../../../tools/remote/programs.rs");

/// Polls `read` until it returns at least `n` items and then stays the same for 100 ms
/// (servers write their log after the response), or 5 s pass.
fn settle<T: Clone>(n: usize, read: impl Fn() -> Vec<T>) -> Vec<T> {
    let start = Instant::now();
    let mut last = read();
    while last.len() < n && start.elapsed() < Duration::from_secs(5) {
        thread::sleep(Duration::from_millis(20));
        last = read();
    }
    loop {
        thread::sleep(Duration::from_millis(100));
        let again = read();
        if again.len() == last.len() || start.elapsed() > Duration::from_secs(5) {
            return again;
        }
        last = again;
    }
}

// --- nginx ------------------------------------------------------------------------------

/// One line of nginx's access log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessLine {
    /// The request method.
    pub method: String,
    /// The request URI, query included.
    pub uri: String,
    /// The response status.
    pub status: u16,
    /// The `Range` header, empty when there was none.
    pub range: String,
    /// The `If-Match` header, empty when there was none.
    pub if_match: String,
    /// Body bytes sent.
    pub sent: u64,
    /// nginx's serial number of the connection the request came on (`$connection`).
    pub connection: u64,
}

/// The log lines as `METHOD URI status "range"`, for compact assertions and messages.
pub fn brief(log: &[AccessLine]) -> Vec<String> {
    log.iter()
        .map(|l| format!("{} {} {} {:?}", l.method, l.uri, l.status, l.range))
        .collect()
}

/// nginx serving `root` on 127.0.0.1, with these locations besides the files:
/// `/private/…` answers 403, `/moved/X` redirects (302) to `/X`, and `/norange/X`
/// serves `X` with byte ranges turned off (`max_ranges 0`: 200 and the whole file).
#[derive(Debug)]
pub struct Nginx {
    child: Child,
    port: u16,
    dir: TempDir,
}

impl Nginx {
    /// Starts nginx (`BINFMT_NGINX`, else `nginx` on PATH, else `/usr/sbin/nginx`), or
    /// returns `None` after saying why the test skips.
    pub fn start(test: &str, root: &Path) -> Option<Nginx> {
        let Some(bin) = nginx_program() else {
            return missing(test, "nginx", "BINFMT_NGINX");
        };
        let root = root.display();
        let (child, port, dir) = start_server(
            test,
            "nginx",
            "nginx",
            5,
            Duration::from_secs(10),
            "error.log",
            |dir, port| {
                let d = dir.display();
                let conf = format!(
                    r#"daemon off;
master_process off;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 256; }}
http {{
    log_format binfmt '$request_method $request_uri $status "$http_range" "$http_if_match" $body_bytes_sent $connection';
    access_log {d}/access.log binfmt;
    client_body_temp_path {d}/client_body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    default_type application/octet-stream;
    sendfile on;
    keepalive_timeout 10s;
    server {{
        listen 127.0.0.1:{port};
        server_name localhost;
        root {root};
        location /private/ {{ return 403; }}
        location /moved/ {{ rewrite ^/moved/(.*)$ /$1 redirect; }}
        location /norange/ {{ alias {root}/; max_ranges 0; }}
    }}
}}
"#
                );
                fs::write(dir.join("nginx.conf"), conf).expect("write nginx.conf");
                let mut command = Command::new(&bin);
                command
                    .arg("-p")
                    .arg(dir)
                    .arg("-c")
                    .arg(dir.join("nginx.conf"))
                    .arg("-e")
                    .arg(dir.join("error.log"))
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null());
                command
            },
        );
        Some(Nginx { child, port, dir })
    }

    /// `http://127.0.0.1:PORT/path`.
    pub fn url(&self, path: &str) -> String {
        local_url(self.port, path)
    }

    /// The port nginx listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The access log so far.
    pub fn log(&self) -> Vec<AccessLine> {
        let text = fs::read_to_string(self.dir.path().join("access.log")).unwrap_or_default();
        text.lines().filter_map(parse_access).collect()
    }

    /// The access log once it holds at least `n` lines and has stopped growing.
    pub fn settled_log(&self, n: usize) -> Vec<AccessLine> {
        settle(n, || self.log())
    }

    /// The error log (for failure messages).
    pub fn error_log(&self) -> String {
        fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default()
    }
}

fn parse_access(line: &str) -> Option<AccessLine> {
    // GET /x 206 "bytes=0-9" "\"etag\"" 10 3
    let (method, rest) = line.split_once(' ')?;
    let (uri, rest) = rest.split_once(' ')?;
    let (status, rest) = rest.split_once(' ')?;
    let rest = rest.strip_prefix('"')?;
    let (range, rest) = rest.split_once("\" \"")?;
    let (if_match, rest) = rest.rsplit_once("\" ")?;
    let (sent, connection) = rest.trim().split_once(' ')?;
    let unescape = |s: &str| {
        if s == "-" {
            String::new()
        } else {
            s.replace("\\x22", "\"")
        }
    };
    Some(AccessLine {
        method: method.to_string(),
        uri: uri.to_string(),
        status: status.parse().ok()?,
        range: unescape(range),
        if_match: unescape(if_match),
        sent: sent.parse().ok()?,
        connection: connection.parse().ok()?,
    })
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// --- moto -------------------------------------------------------------------------------

/// One request in moto's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MotoLine {
    /// The request method.
    pub method: String,
    /// The request path, query included.
    pub path: String,
    /// The response status.
    pub status: u16,
}

/// moto's standalone S3 server on 127.0.0.1.
#[derive(Debug)]
pub struct Moto {
    child: Child,
    port: u16,
    dir: TempDir,
}

/// The credentials the tests give moto (it accepts any).
pub const MOTO_KEY_ID: &str = "binfmt-test-key";
/// The secret key the tests give moto.
pub const MOTO_SECRET: &str = "binfmt-test-secret";
/// The region the tests give moto.
pub const MOTO_REGION: &str = "us-east-1";

impl Moto {
    /// Starts `moto_server` (`BINFMT_MOTO_SERVER`, else `tools/.venv/bin/moto_server`,
    /// else `moto_server` on PATH), or returns `None` after saying why the test skips.
    pub fn start(test: &str) -> Option<Moto> {
        let Some(bin) = moto_program(&repo_root()) else {
            return missing(test, "moto_server (moto[server])", "BINFMT_MOTO_SERVER");
        };
        let (child, port, dir) = start_server(
            test,
            "moto_server",
            "moto",
            3,
            Duration::from_secs(30),
            "moto.log",
            |dir, port| {
                let log = fs::File::create(dir.join("moto.log")).expect("create moto.log");
                let mut command = Command::new(&bin);
                command
                    .args(["-H", "127.0.0.1", "-p", &port.to_string()])
                    .env("PYTHONUNBUFFERED", "1")
                    .env("NO_COLOR", "1")
                    .stdin(Stdio::null())
                    .stdout(log.try_clone().expect("dup log"))
                    .stderr(log);
                command
            },
        );
        Some(Moto { child, port, dir })
    }

    /// `http://127.0.0.1:PORT`, for `AWS_ENDPOINT`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The port moto listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The environment a user sets to read from this server.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT", self.endpoint()),
            ("AWS_ALLOW_HTTP", "true".into()),
            ("AWS_ACCESS_KEY_ID", MOTO_KEY_ID.into()),
            ("AWS_SECRET_ACCESS_KEY", MOTO_SECRET.into()),
            ("AWS_REGION", MOTO_REGION.into()),
        ]
    }

    /// Creates a bucket (moto accepts an unsigned `PUT /bucket`).
    pub fn create_bucket(&self, name: &str) {
        let status = raw_request(self.port, "PUT", &format!("/{name}"), &[], b"");
        assert_eq!(status, 200, "create bucket {name}");
    }

    /// Stores an object through the S3 API (a signed `PUT /bucket/key`).
    pub fn put(&self, bucket: &str, key: &str, data: &[u8]) {
        MotoClient::new(self.port).put(bucket, key, data);
    }

    /// The requests so far.
    pub fn log(&self) -> Vec<MotoLine> {
        let text = fs::read_to_string(self.dir.path().join("moto.log")).unwrap_or_default();
        text.lines().filter_map(parse_werkzeug).collect()
    }

    /// The requests once there are at least `n` and no more come.
    pub fn settled_log(&self, n: usize) -> Vec<MotoLine> {
        settle(n, || self.log())
    }
}

/// Writes to a moto server on `127.0.0.1:port` (from a process that did not start it).
#[derive(Debug)]
pub struct MotoClient {
    port: u16,
}

impl MotoClient {
    /// A client of the moto server on `127.0.0.1:port`.
    pub fn new(port: u16) -> MotoClient {
        MotoClient { port }
    }

    /// Stores an object through the S3 API (a signed `PUT /bucket/key`, by object_store).
    pub fn put(&self, bucket: &str, key: &str, data: &[u8]) {
        use object_store::ObjectStoreExt;
        let store = object_store::aws::AmazonS3Builder::new()
            .with_endpoint(format!("http://127.0.0.1:{}", self.port))
            .with_allow_http(true)
            .with_bucket_name(bucket)
            .with_region(MOTO_REGION)
            .with_access_key_id(MOTO_KEY_ID)
            .with_secret_access_key(MOTO_SECRET)
            .build()
            .expect("an S3 store for moto");
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        rt.block_on(store.put(&object_store::path::Path::from(key), data.to_vec().into()))
            .unwrap_or_else(|e| panic!("put s3://{bucket}/{key}: {e}"));
    }
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn parse_werkzeug(line: &str) -> Option<MotoLine> {
    // 127.0.0.1 - - [24/Nov/2026 13:12:58] "GET /bkt/obj HTTP/1.1" 206 -
    let line = strip_ansi(line);
    let (_, rest) = line.split_once("] \"")?;
    let (request, rest) = rest.split_once('"')?;
    let mut parts = request.split(' ');
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let status = rest.trim().split(' ').next()?.parse().ok()?;
    Some(MotoLine {
        method,
        path,
        status,
    })
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request with `Connection: close`; returns the status.
pub fn raw_request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> u16 {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).expect("send");
    s.write_all(body).expect("send body");
    let mut line = String::new();
    BufReader::new(s).read_line(&mut line).expect("read status");
    line.split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

// --- the misbehaving server -------------------------------------------------------------

/// A request as [`Rogue`] received it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The request method.
    pub method: String,
    /// The request target as sent.
    pub path: String,
    /// The headers, in order, names as sent.
    pub headers: Vec<(String, String)>,
}

impl Request {
    /// A header's value (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What [`Rogue`] sends back.
#[derive(Debug, Clone)]
pub enum Reply {
    /// Status line, headers, then the body. `Content-Length` is added when `headers` has
    /// none.
    Send {
        /// The status code.
        status: u16,
        /// The headers, besides `Connection: close` (and `Content-Length`).
        headers: Vec<(String, String)>,
        /// The body.
        body: Body,
    },
    /// Reads the request and says nothing for this long, then closes.
    Silence(Duration),
}

/// A reply body.
#[derive(Debug, Clone)]
pub enum Body {
    /// These bytes, at once.
    Bytes(Vec<u8>),
    /// `len` bytes of `pattern(len, 7)` written as long as the client reads (for a large
    /// body that must not be downloaded); the server counts what it managed to write.
    Large(u64),
    /// `data` in `pieces` parts with `pause` before each (a slow link, or a stall).
    Slow {
        /// The whole body.
        data: Vec<u8>,
        /// How many parts it is sent in.
        pieces: usize,
        /// The pause before each part.
        pause: Duration,
    },
}

type Handler = dyn Fn(usize, &Request) -> Reply + Send + Sync;

/// A misbehaving HTTP server on 127.0.0.1: `handler(n, request)` answers the `n`th
/// request (from 0). Every request is recorded.
pub struct Rogue {
    port: u16,
    stop: Arc<AtomicBool>,
    requests: Arc<Mutex<Vec<Request>>>,
    written: Arc<AtomicU64>,
    thread: Option<thread::JoinHandle<()>>,
}

impl core::fmt::Debug for Rogue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Rogue").field("port", &self.port).finish()
    }
}

impl Rogue {
    /// Starts the server on a free port; it answers until dropped.
    pub fn start(handler: impl Fn(usize, &Request) -> Reply + Send + Sync + 'static) -> Rogue {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().expect("address").port();
        listener.set_nonblocking(true).expect("nonblocking");
        let stop = Arc::new(AtomicBool::new(false));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let written = Arc::new(AtomicU64::new(0));
        let handler: Arc<Handler> = Arc::new(handler);
        let thread = {
            let (stop, requests, written) = (stop.clone(), requests.clone(), written.clone());
            thread::spawn(move || {
                let count = Arc::new(AtomicUsize::new(0));
                let mut workers = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    match listener.accept() {
                        Ok((conn, _)) => {
                            let (stop, requests, written, handler, count) = (
                                stop.clone(),
                                requests.clone(),
                                written.clone(),
                                handler.clone(),
                                count.clone(),
                            );
                            workers.push(thread::spawn(move || {
                                serve(conn, &stop, &requests, &written, &*handler, &count)
                            }));
                        }
                        Err(_) => thread::sleep(Duration::from_millis(5)),
                    }
                }
                for w in workers {
                    let _ = w.join();
                }
            })
        };
        Rogue {
            port,
            stop,
            requests,
            written,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT/path`.
    pub fn url(&self, path: &str) -> String {
        local_url(self.port, path)
    }

    /// The requests so far.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().expect("requests").clone()
    }

    /// Body bytes written so far (for [`Body::Large`]: how much the client let through).
    pub fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }
}

impl Drop for Rogue {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(
    mut conn: TcpStream,
    stop: &AtomicBool,
    requests: &Mutex<Vec<Request>>,
    written: &AtomicU64,
    handler: &Handler,
    count: &AtomicUsize,
) {
    let _ = conn.set_nonblocking(false);
    let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
    // One request per connection (we always answer with `Connection: close`).
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 64 * 1024 {
        match conn.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let text = String::from_utf8_lossy(&head);
    let mut lines = text.split("\r\n");
    let mut first = lines.next().unwrap_or_default().split(' ');
    let request = Request {
        method: first.next().unwrap_or_default().to_string(),
        path: first.next().unwrap_or_default().to_string(),
        headers: lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            .collect(),
    };
    requests.lock().expect("requests").push(request.clone());
    let n = count.fetch_add(1, Ordering::Relaxed);
    match handler(n, &request) {
        Reply::Silence(d) => {
            let start = Instant::now();
            while start.elapsed() < d && !stop.load(Ordering::Relaxed) {
                thread::sleep(Duration::from_millis(20));
            }
        }
        Reply::Send {
            status,
            headers,
            body,
        } => {
            let len = match &body {
                Body::Bytes(b) | Body::Slow { data: b, .. } => b.len() as u64,
                Body::Large(n) => *n,
            };
            let mut out = format!(
                "HTTP/1.1 {status} {}\r\nConnection: close\r\n",
                reason(status)
            );
            if !headers
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            {
                out.push_str(&format!("Content-Length: {len}\r\n"));
            }
            for (k, v) in &headers {
                out.push_str(&format!("{k}: {v}\r\n"));
            }
            out.push_str("\r\n");
            if conn.write_all(out.as_bytes()).is_err() || request.method == "HEAD" {
                return;
            }
            match body {
                Body::Bytes(b) => {
                    if conn.write_all(&b).is_ok() {
                        written.fetch_add(b.len() as u64, Ordering::Relaxed);
                    }
                }
                Body::Slow {
                    data,
                    pieces,
                    pause,
                } => {
                    for piece in data.chunks(data.len().div_ceil(pieces.max(1)).max(1)) {
                        thread::sleep(pause);
                        if stop.load(Ordering::Relaxed)
                            || conn.write_all(piece).and_then(|()| conn.flush()).is_err()
                        {
                            break;
                        }
                        written.fetch_add(piece.len() as u64, Ordering::Relaxed);
                    }
                }
                Body::Large(n) => {
                    let chunk = pattern(64 * 1024, 7);
                    let _ = conn.set_write_timeout(Some(Duration::from_secs(5)));
                    let mut sent = 0u64;
                    while sent < n && !stop.load(Ordering::Relaxed) {
                        let take = (n - sent).min(chunk.len() as u64) as usize;
                        match conn.write(&chunk[..take]) {
                            Ok(0) | Err(_) => break,
                            Ok(k) => {
                                sent += k as u64;
                                written.fetch_add(k as u64, Ordering::Relaxed);
                            }
                        }
                    }
                }
            }
        }
    }
    let _ = conn.flush();
    let _ = conn.shutdown(Shutdown::Both);
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        206 => "Partial Content",
        304 => "Not Modified",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        412 => "Precondition Failed",
        416 => "Range Not Satisfiable",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Whatever",
    }
}

/// What a correct server answers to `request` for an object `data` with ETag `etag`
/// (`Range`, suffix ranges, 416, `If-Match`, HEAD): the building block of handlers that
/// misbehave only in one way.
pub fn serve_object(request: &Request, data: &[u8], etag: &str) -> Reply {
    let len = data.len() as u64;
    let mut headers = vec![
        ("ETag".to_string(), etag.to_string()),
        (
            "Last-Modified".to_string(),
            "Tue, 01 Sep 2026 10:00:00 GMT".to_string(),
        ),
        ("Accept-Ranges".to_string(), "bytes".to_string()),
    ];
    if let Some(m) = request.header("If-Match")
        && m != etag
        && m != "*"
    {
        return Reply::Send {
            status: 412,
            headers: vec![],
            body: Body::Bytes(Vec::new()),
        };
    }
    let Some(range) = request
        .header("Range")
        .and_then(|r| r.strip_prefix("bytes="))
    else {
        return Reply::Send {
            status: 200,
            headers,
            body: Body::Bytes(data.to_vec()),
        };
    };
    let (a, b) = range.split_once('-').unwrap_or(("", ""));
    let (start, end) = if a.is_empty() {
        let n: u64 = b.parse().unwrap_or(0);
        (len.saturating_sub(n), len)
    } else {
        let start: u64 = a.parse().unwrap_or(0);
        let end = if b.is_empty() {
            len
        } else {
            (b.parse::<u64>().unwrap_or(0) + 1).min(len)
        };
        (start, end)
    };
    if start >= len || start >= end {
        headers.push(("Content-Range".into(), format!("bytes */{len}")));
        return Reply::Send {
            status: 416,
            headers,
            body: Body::Bytes(Vec::new()),
        };
    }
    headers.push((
        "Content-Range".into(),
        format!("bytes {start}-{}/{len}", end - 1),
    ));
    Reply::Send {
        status: 206,
        headers,
        body: Body::Bytes(data[start as usize..end as usize].to_vec()),
    }
}

// --- the delay proxy ---------------------------------------------------------------------

/// A TCP proxy on 127.0.0.1 that delays every byte by `one_way` in each direction, so a
/// request and its response cost one round trip of `2 × one_way` (this kernel has no
/// netem). Tests and `tools/remote/bench.py` measure *dependent round trips* through it:
/// an operation's time divided by the round trip, which concurrent requests do not add
/// to and sequential ones do. Connections are counted, so a test can also check that
/// requests to one host share one connection.
#[derive(Debug)]
pub struct DelayProxy {
    port: u16,
    rtt: Duration,
    connections: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl DelayProxy {
    /// Proxies to `127.0.0.1:upstream` with a round trip of `rtt`.
    pub fn start(upstream: u16, rtt: Duration) -> DelayProxy {
        let listener = TcpListener::bind(("127.0.0.1", 0)).expect("bind the delay proxy");
        let port = listener.local_addr().expect("local address").port();
        listener.set_nonblocking(true).expect("nonblocking accept");
        let connections = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let one_way = rtt / 2;
        {
            let connections = Arc::clone(&connections);
            let stop = Arc::clone(&stop);
            thread::spawn(move || {
                // Bounded: the proxy lives as long as its test, at most ten minutes.
                let deadline = Instant::now() + Duration::from_secs(600);
                while !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
                    match listener.accept() {
                        Ok((client, _)) => {
                            connections.fetch_add(1, Ordering::Relaxed);
                            let _ = client.set_nonblocking(false);
                            let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
                                continue;
                            };
                            let (c2, s2) = match (client.try_clone(), server.try_clone()) {
                                (Ok(c), Ok(s)) => (c, s),
                                _ => continue,
                            };
                            thread::spawn(move || pump(client, server, one_way));
                            thread::spawn(move || pump(s2, c2, one_way));
                        }
                        Err(_) => thread::sleep(Duration::from_millis(2)),
                    }
                }
            });
        }
        DelayProxy {
            port,
            rtt,
            connections,
            stop,
        }
    }

    /// `http://127.0.0.1:PORT/path` through the proxy.
    pub fn url(&self, path: &str) -> String {
        local_url(self.port, path)
    }

    /// The proxy's port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The round trip it adds.
    pub fn rtt(&self) -> Duration {
        self.rtt
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::Relaxed)
    }

    /// How many dependent round trips `elapsed` holds: the whole ones, rounded to the
    /// nearest (processing on loopback is small next to a round trip of 100 ms or more).
    pub fn round_trips(&self, elapsed: Duration) -> u32 {
        let ratio = elapsed.as_secs_f64() / self.rtt.as_secs_f64();
        // Truncation is intended: a count of round trips.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let n = ratio.round() as u32;
        n
    }
}

impl Drop for DelayProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Copies `from` to `to`, each chunk written `delay` after it was read (in order: a
/// writer thread sleeps until each chunk is due).
fn pump(mut from: TcpStream, mut to: TcpStream, delay: Duration) {
    let (tx, rx) = std::sync::mpsc::channel::<(Instant, Vec<u8>)>();
    let writer = thread::spawn(move || {
        for (due, chunk) in rx {
            let now = Instant::now();
            if due > now {
                thread::sleep(due - now);
            }
            if to.write_all(&chunk).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    });
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if tx
                    .send((Instant::now() + delay, buf[..n].to_vec()))
                    .is_err()
                {
                    break;
                }
            }
        }
    }
    drop(tx);
    let _ = writer.join();
}
