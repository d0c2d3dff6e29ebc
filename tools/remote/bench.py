#!/usr/bin/env python3
"""Remote reads on loopback: binfmt's request plans against what Python users do today.

    tools/.venv/bin/pip install -r tools/remote/bench-requirements.txt
    cargo build --release -p binfmt-cli
    tools/.venv/bin/python tools/remote/bench.py [--runs N] [--json] [--data DIR]

Starts its own servers on 127.0.0.1 only, on free ports, and stops them at the end:

* nginx (BINFMT_NGINX, else `nginx` on PATH, else /usr/sbin/nginx) with its own
  configuration, prefix and logs in a temporary directory, like binfmt-test-support's servers.rs.
  One `server` serves the data directory (Range support, nginx's defaults); a second one is
  a plain reverse proxy in front of moto, so that S3 requests get an access log with bytes
  too (moto's own log has no sizes). Access log line:
  `"$request" $status "$http_range" $body_bytes_sent`.
* moto's S3 server (BINFMT_MOTO_SERVER, else tools/.venv/bin/moto_server, else
  `moto_server` on PATH): `moto_server -H 127.0.0.1 -p PORT`, its request log kept.

It makes the data (into --data DIR, reused when the parameters match; else a temporary
directory), then runs each case N times (--runs, default 5) for each tool and reports, per
case and tool, the **requests** and **bytes sent** counted from the server's own log (of
the first run; later runs are checked to cost the same), and the **median wall time**:

1. `taco`: TACO header + member list of a tacozip archive of 10,000 members (4 KiB each).
   ours: `binfmt --stats inspect --json http://…/a.taco` (a whole process);
   reference: `fsspec.open(url)`, the TACO header read through it and parsed by
   `tacozip.read_header(bytes)` (tacozip's C reader takes a path or a buffer, not a file
   object), then `zipfile.ZipFile(f).infolist()`.
   `taco-large` is the same with 1,000 members of 80 KiB, where the local headers lie more
   than 64 KiB apart.
2. `taridx`: one sample's `.json` member from a tar shard of 100,000 members (50,000
   samples × .cls + .json), the middle sample.
   ours: `binfmt --stats taridx get http://…/shard.taridx STEM --ext json` (the index
   built beforehand, locally, by `binfmt taridx build DIR shard`), with
   `--shards http://…/shard_0000.tar` when binfmt asks for it (a URL has no directory to
   list the shards from);
   reference: `tarfile.open(fileobj=fsspec-file, mode="r|")` streamed until the member,
   which is what one does without an index.
3. `kastore`: one 25 MiB array of a 100 MiB kastore on S3 (moto).
   ours: `binfmt --stats kastore get --raw s3://bench/big.kas KEY` with AWS_ENDPOINT,
   AWS_ALLOW_HTTP, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION set for moto;
   reference: boto3 `get_object` of the whole object into a temporary file, then
   `kastore.load(path)[KEY]`.
   `kastore-small` is the same for a 4,000-byte array of that store.

Every tool's output is checked against the others' (same members, same bytes).

Timing: ours is a whole `binfmt` process (start-up included). The references run in this
process, warm: interpreter start-up, imports, fsspec's filesystem and boto3's client are
set up once, before the runs, and not timed. Both use the server's keep-alive where their
client does. "ratio" is the tool's median time ÷ ours (ours = 1.00). On loopback the round
trip is ~0.1 ms, so request counts and bytes say more about a real object store (20–200 ms
to first byte, tens of MB/s) than milliseconds do.

Output: a markdown table on stdout, or JSON with --json. Progress goes to stderr.
Nothing is sent anywhere but 127.0.0.1.
"""

import argparse
import io
import json
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TACO_MEMBERS, TACO_MEMBER_SIZE = 10_000, 4 * 1024
TACO_LARGE_MEMBERS, TACO_LARGE_MEMBER_SIZE = 1_000, 80 * 1024
TACO_ENTRIES = [(1_000_000, 4096), (2_000_000, 123)]
TAR_SAMPLES = 50_000  # × (.cls, .json) = 100,000 members
TAR_TARGET = TAR_SAMPLES // 2
KAS_ARRAYS, KAS_ARRAY_LEN = 4, 25 * 1024 * 1024 // 8  # 4 × 25 MiB of float64
KAS_KEY = "array_2"
KAS_SMALL_KEY = "meta/labels"  # 1,000 int32
BUCKET = "bench"
MOTO_KEY_ID, MOTO_SECRET, MOTO_REGION = "binfmt-bench-key", "binfmt-bench-secret", "us-east-1"
LOG_LINES = 40  # log lines kept per row in --json (of the first run)
DATA_VERSION = "1"  # bump when the generated data changes


def say(*args):
    print(*args, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, proc, limit, log_path):
    start = time.monotonic()
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return None
        except OSError:
            pass
        if proc.poll() is not None:
            return f"exited with {proc.returncode}: {Path(log_path).read_text(errors='replace')}"
        if time.monotonic() - start > limit:
            return f"not listening after {limit} s: {Path(log_path).read_text(errors='replace')}"
        time.sleep(0.025)


def find_program(var, candidates):
    value = os.environ.get(var)
    if value:
        return value if Path(value).is_file() else None
    for c in candidates:
        if os.path.isabs(c):
            if Path(c).is_file():
                return c
        elif shutil.which(c):
            return shutil.which(c)
    return None


def stop(proc):
    if proc and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# --- logs -------------------------------------------------------------------------------

NGINX_LINE = re.compile(r'^"(?P<request>[^"]*)" (?P<status>\d+) "(?P<range>[^"]*)" (?P<sent>\d+)$')
MOTO_LINE = re.compile(r'\] "(?P<request>[A-Z]+ [^"]*)" (?P<status>\d+) ')
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class Log:
    """A server's log file, read from a mark: what one run cost."""

    def __init__(self, path, parse):
        self.path, self.parse = Path(path), parse

    def lines(self):
        try:
            text = self.path.read_text(errors="replace")
        except FileNotFoundError:
            return []
        return [r for r in map(self.parse, text.splitlines()) if r]

    def mark(self):
        return len(self.lines())

    def since(self, mark):
        """The lines after `mark`, once the log has stopped growing (servers write a line
        after the response; a client may exit first)."""
        last, stable_since, start = None, time.monotonic(), time.monotonic()
        while True:
            n = len(self.lines())
            if n != last:
                last, stable_since = n, time.monotonic()
            elif time.monotonic() - stable_since >= 0.12 or time.monotonic() - start > 5:
                return self.lines()[mark:]
            time.sleep(0.02)


def parse_nginx(line):
    m = NGINX_LINE.match(line.strip())
    if not m:
        return None
    method, _, rest = m["request"].partition(" ")
    return {"method": method, "path": rest.rsplit(" ", 1)[0], "status": int(m["status"]),
            "range": "" if m["range"] == "-" else m["range"], "sent": int(m["sent"])}


def parse_moto(line):
    m = MOTO_LINE.search(ANSI.sub("", line))
    if not m:
        return None
    method, _, rest = m["request"].partition(" ")
    return {"method": method, "path": rest.rsplit(" ", 1)[0], "status": int(m["status"])}


# --- servers ----------------------------------------------------------------------------

class Servers:
    """moto, then one nginx: a static server of `root` and a reverse proxy to moto."""

    def __init__(self, root, tmp):
        self.root, self.tmp = Path(root), Path(tmp)
        self.moto = self.nginx = None

    def __enter__(self):
        try:
            self._start_moto()
            self._start_nginx()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        stop(self.nginx)
        stop(self.moto)

    def _start_moto(self):
        venv = str(ROOT / "tools/.venv/bin/moto_server")
        bin_ = find_program("BINFMT_MOTO_SERVER", [venv, "moto_server"])
        if not bin_:
            sys.exit("bench.py: moto_server not found (run tools/remote/install-servers.sh, "
                     "or set BINFMT_MOTO_SERVER)")
        why = None
        for attempt in range(3):
            self.moto_port = free_port()
            log = self.tmp / f"moto-{attempt}.log"
            env = dict(os.environ, PYTHONUNBUFFERED="1", NO_COLOR="1")
            with open(log, "wb") as out:
                self.moto = subprocess.Popen(
                    [bin_, "-H", "127.0.0.1", "-p", str(self.moto_port)],
                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env)
            why = wait_listening(self.moto_port, self.moto, 60, log)
            if why is None:
                self.moto_log = Log(log, parse_moto)
                return
            stop(self.moto)
            if "Address already in use" not in why:
                break
        sys.exit(f"bench.py: moto_server did not start: {why}")

    def _start_nginx(self):
        bin_ = find_program("BINFMT_NGINX", ["nginx", "/usr/sbin/nginx"])
        if not bin_:
            sys.exit("bench.py: nginx not found (run tools/remote/install-servers.sh, "
                     "or set BINFMT_NGINX)")
        why = None
        for attempt in range(5):
            d = self.tmp / f"nginx-{attempt}"
            d.mkdir()
            self.http_port, self.s3_port = free_port(), free_port()
            # Relative paths are nginx's prefix, `-p d`: every file it writes is in d.
            conf = f"""daemon off;
master_process off;
worker_processes 1;
pid nginx.pid;
error_log error.log warn;
events {{ worker_connections 256; }}
http {{
    log_format bench '"$request" $status "$http_range" $body_bytes_sent';
    client_body_temp_path client_body;
    proxy_temp_path proxy;
    fastcgi_temp_path fastcgi;
    uwsgi_temp_path uwsgi;
    scgi_temp_path scgi;
    default_type application/octet-stream;
    sendfile on;
    keepalive_timeout 30s;
    keepalive_requests 100000;
    server {{
        listen 127.0.0.1:{self.http_port};
        server_name localhost;
        access_log http.log bench;
        root {self.root};
    }}
    server {{
        listen 127.0.0.1:{self.s3_port};
        server_name localhost;
        access_log s3.log bench;
        client_max_body_size 0;
        location / {{
            proxy_pass http://127.0.0.1:{self.moto_port};
            proxy_set_header Host $http_host;
            proxy_buffering off;
            proxy_request_buffering off;
        }}
    }}
}}
"""
            (d / "nginx.conf").write_text(conf)
            self.nginx = subprocess.Popen(
                [bin_, "-p", str(d), "-c", str(d / "nginx.conf"), "-e", str(d / "error.log")],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            why = wait_listening(self.http_port, self.nginx, 10, d / "error.log")
            if why is None:
                why = wait_listening(self.s3_port, self.nginx, 10, d / "error.log")
            if why is None:
                self.http_log = Log(d / "http.log", parse_nginx)
                self.s3_log = Log(d / "s3.log", parse_nginx)
                return
            stop(self.nginx)
            if "Address already in use" not in why:
                break
        sys.exit(f"bench.py: nginx did not start: {why}")

    def url(self, name):
        return f"http://127.0.0.1:{self.http_port}/{name}"

    @property
    def s3_endpoint(self):
        """Through the logging proxy."""
        return f"http://127.0.0.1:{self.s3_port}"

    @property
    def moto_endpoint(self):
        return f"http://127.0.0.1:{self.moto_port}"

    def s3_env(self):
        return {"AWS_ENDPOINT": self.s3_endpoint, "AWS_ALLOW_HTTP": "true",
                "AWS_ACCESS_KEY_ID": MOTO_KEY_ID, "AWS_SECRET_ACCESS_KEY": MOTO_SECRET,
                "AWS_REGION": MOTO_REGION}


# --- data -------------------------------------------------------------------------------

def make_taco(path, members, size, seed):
    import tacozip
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
        srcs, names = [], []
        for i in range(members):
            src = Path(tmp) / f"{i:05d}.bin"
            src.write_bytes(rng.randbytes(size))
            srcs.append(str(src))
            names.append(f"DATA/sample_{i:05d}.tif")
        tacozip.create(str(path), srcs, names, TACO_ENTRIES)


def make_shard(path):
    def header(name, size):
        ti = tarfile.TarInfo(name)
        ti.size, ti.mtime, ti.mode, ti.uid, ti.gid = size, 1_700_000_000, 0o644, 0, 0
        return ti

    with open(path, "wb") as raw, tarfile.open(fileobj=raw, mode="w",
                                                format=tarfile.USTAR_FORMAT) as tf:
        for i in range(TAR_SAMPLES):
            stem = f"sample{i:06d}"
            cls = f"{i % 1000}\n".encode()
            js = json.dumps({"key": stem, "label": i % 1000, "split": "train"}).encode()
            tf.addfile(header(f"{stem}.cls", len(cls)), io.BytesIO(cls))
            tf.addfile(header(f"{stem}.json", len(js)), io.BytesIO(js))


def make_kastore(path):
    import kastore
    import numpy as np
    rng = np.random.default_rng(7)
    data = {f"array_{i}": rng.random(KAS_ARRAY_LEN) for i in range(KAS_ARRAYS)}
    data["meta/labels"] = np.arange(1000, dtype=np.int32)
    kastore.dump(data, str(path))


def make_data(data_dir, binfmt, indexer):
    """Makes what is missing in `data_dir`; a stamp file records the parameters."""
    data_dir.mkdir(parents=True, exist_ok=True)
    params = json.dumps([DATA_VERSION, TACO_MEMBERS, TACO_MEMBER_SIZE, TACO_LARGE_MEMBERS,
                         TACO_LARGE_MEMBER_SIZE, TAR_SAMPLES, KAS_ARRAYS, KAS_ARRAY_LEN])
    stamp = data_dir / "bench-data.json"
    if not stamp.exists() or stamp.read_text() != params:
        for name in ("a.taco", "large.taco", "shard_0000.tar", "shard.taridx", "big.kas"):
            (data_dir / name).unlink(missing_ok=True)
        stamp.write_text(params)
    start = time.monotonic()
    if not (data_dir / "a.taco").exists():
        say(f"making a.taco ({TACO_MEMBERS} members of {TACO_MEMBER_SIZE} bytes, tacozip)")
        make_taco(data_dir / "a.taco", TACO_MEMBERS, TACO_MEMBER_SIZE, 1)
    if not (data_dir / "large.taco").exists():
        say(f"making large.taco ({TACO_LARGE_MEMBERS} members of {TACO_LARGE_MEMBER_SIZE} bytes)")
        make_taco(data_dir / "large.taco", TACO_LARGE_MEMBERS, TACO_LARGE_MEMBER_SIZE, 2)
    if not (data_dir / "shard_0000.tar").exists():
        say(f"making shard_0000.tar ({2 * TAR_SAMPLES} members, tarfile)")
        make_shard(data_dir / "shard_0000.tar.part")
        (data_dir / "shard_0000.tar.part").rename(data_dir / "shard_0000.tar")
    index_note = None
    if not (data_dir / "shard.taridx").exists():
        say("building shard.taridx (binfmt taridx build)")
        r = subprocess.run([indexer, "taridx", "build", str(data_dir), "shard"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            index_note = (f"`{Path(indexer).name} taridx build` failed: "
                          f"{(r.stderr or r.stdout).strip().splitlines()[-1:]}")
            say(index_note)
    if not (data_dir / "big.kas").exists():
        say(f"making big.kas ({KAS_ARRAYS} × {KAS_ARRAY_LEN * 8} bytes, kastore)")
        make_kastore(data_dir / "big.kas")
    say(f"data ready in {time.monotonic() - start:.1f} s")
    return index_note


# --- running ----------------------------------------------------------------------------

STATS = re.compile(r"binfmt: stats: (?P<name>.*): (?P<requests>\d+) requests \((?P<head>\d+) HEAD, "
                   r"(?P<http>\d+) HTTP with retries\), (?P<bytes>\d+) bytes")


def counted(lines):
    return {"requests": len(lines),
            "bytes": sum(line.get("sent", 0) for line in lines),
            "head": sum(1 for line in lines if line["method"] == "HEAD"),
            "statuses": sorted({line["status"] for line in lines}),
            "log": [f'{line["method"]} {line["path"]} {line["status"]}'
                    + (f' {line["range"]}' if line.get("range") else "")
                    + (f' {line["sent"]}' if "sent" in line else "") for line in lines]}


def measure(runs, logs, once, bytes_log=None):
    """Runs `once` `runs` times. `logs`: the logs whose lines count as requests (the first
    is the one whose lines are counted; others are cross-checks); bytes come from
    `bytes_log` (default: the first log). Returns the row's measurements and the first
    run's output."""
    times, costs, output = [], [], None
    for i in range(runs):
        marks = [log.mark() for log in logs]
        bmark = bytes_log.mark() if bytes_log else None
        start = time.perf_counter()
        out = once()
        times.append((time.perf_counter() - start) * 1000)
        if i == 0:
            output = out
        cost = counted(logs[0].since(marks[0]))
        if bytes_log:
            proxied = counted(bytes_log.since(bmark))
            cost["bytes"], cost["proxy_requests"] = proxied["bytes"], proxied["requests"]
            cost["proxy_log"] = proxied["log"]
        for log, mark in zip(logs[1:], marks[1:]):
            cost.setdefault("other_logs", []).append(len(log.since(mark)))
        costs.append(cost)
    first = costs[0]
    varied = [c["requests"] for c in costs if (c["requests"], c["bytes"]) != (first["requests"], first["bytes"])]
    row = {"requests": first["requests"], "bytes": first["bytes"], "head": first["head"],
           "statuses": first["statuses"], "median_ms": statistics.median(times),
           "runs_ms": [round(t, 2) for t in times], "log": first["log"][:LOG_LINES]}
    if "proxy_requests" in first:
        # The proxy's lines have the ranges and sizes that moto's lack.
        row["proxy_requests"] = first["proxy_requests"]
        row["log"] = first["proxy_log"][:LOG_LINES]
    if varied:
        row["varied"] = [(c["requests"], c["bytes"]) for c in costs]
    return row, output


def run_binfmt(argv, env=None):
    def once():
        r = subprocess.run(argv, capture_output=True, env=env)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)}: exit {r.returncode}: "
                               f"{r.stderr.decode(errors='replace').strip()}")
        return r
    return once


def stats_of(result):
    """binfmt's own --stats, summed over its inputs (taridx get opens the index and a
    shard)."""
    found = list(STATS.finditer(result.stderr.decode(errors="replace")))
    if not found:
        return None
    total = {k: sum(int(m[k]) for m in found) for k in ("requests", "head", "http", "bytes")}
    total["inputs"] = len(found)
    return total


# --- cases ------------------------------------------------------------------------------

def case_taco(args, srv, name, members):
    import fsspec
    import tacozip
    url = srv.url(name)
    rows = []
    ours, out = measure(args.runs, [srv.http_log],
                        run_binfmt([args.binfmt, "--stats", "inspect", "--json", url]))
    facts = json.loads(out.stdout)
    facts = facts[0] if isinstance(facts, list) else facts
    ours_members = [(m["name"], m["size"]) for m in facts["members"]]
    ours_entries = [(e["offset"], e["length"]) for e in facts["entries"]]
    ours["stats"] = stats_of(out)
    rows.append(dict(tool="ours", command=f"binfmt --stats inspect --json {url}", **ours))

    def reference():
        with fsspec.open(url, "rb") as f:
            entries = tacozip.read_header(f.read(256))
            f.seek(0)
            with zipfile.ZipFile(f) as z:
                listed = [(i.filename, i.file_size) for i in z.infolist()]
        return entries, listed

    ref, (entries, listed) = measure(args.runs, [srv.http_log], reference)
    rows.append(dict(tool="fsspec + zipfile + tacozip.read_header(bytes)",
                     command="fsspec.open(url); tacozip.read_header(f.read(256)); "
                             "zipfile.ZipFile(f).infolist()", **ref))
    assert len(ours_members) == members + 1, (len(ours_members), members)
    assert listed == ours_members, "zipfile lists other members than binfmt"
    assert [tuple(e) for e in entries] == ours_entries == TACO_ENTRIES, (entries, ours_entries)
    return rows


def case_taridx(args, srv, index_note):
    import fsspec
    stem = f"sample{TAR_TARGET:06d}"
    index_url, shard_url = srv.url("shard.taridx"), srv.url("shard_0000.tar")
    rows = []
    note = index_note
    ours_bytes = None
    if not note:
        argv = [args.binfmt, "--stats", "taridx", "get", index_url, stem, "--ext", "json"]
        mark = srv.http_log.mark()
        probe = subprocess.run(argv, capture_output=True)
        probe_requests = len(srv.http_log.since(mark))  # also waits for the log to settle
        shards_note = None
        if probe.returncode != 0 and b"--shards" in probe.stderr:
            # A URL has no directory to list: the shards must be named.
            shards_note = probe.stderr.decode(errors="replace").strip()
            argv += ["--shards", shard_url]
        try:
            ours, out = measure(args.runs, [srv.http_log], run_binfmt(argv))
            ours["stats"] = stats_of(out)
            if shards_note:
                ours["note"] = (f"without --shards ({probe_requests} requests): "
                                f"{shards_note.replace(args.binfmt, 'binfmt')}")
            ours_bytes = out.stdout
            rows.append(dict(tool="ours", command=" ".join(["binfmt"] + argv[1:]), **ours))
        except RuntimeError as e:
            note = str(e).replace(args.binfmt, "binfmt")
    if note:
        say(f"taridx, ours: {note}")
        rows.append(dict(tool="ours", command="binfmt --stats taridx get …", skipped=note))

    def reference():
        with fsspec.open(shard_url, "rb") as f, tarfile.open(fileobj=f, mode="r|") as tf:
            for member in tf:
                if member.name == f"{stem}.json":
                    return tf.extractfile(member).read()
        raise RuntimeError(f"{stem}.json not in the shard")

    ref, data = measure(args.runs, [srv.http_log], reference)
    rows.append(dict(tool="fsspec + tarfile, streamed to the member",
                     command='tarfile.open(fileobj=fsspec.open(url), mode="r|")', **ref))
    assert json.loads(data)["key"] == stem
    if ours_bytes is not None:
        assert ours_bytes == data, "binfmt taridx get wrote other bytes than tarfile"
    return rows


def case_kastore(args, srv, s3, key):
    import kastore
    import numpy as np
    url = f"s3://{BUCKET}/big.kas"
    env = dict(os.environ, **srv.s3_env())
    argv = [args.binfmt, "--stats", "kastore", "get", "--raw", url, key]
    rows = []
    ours, out = measure(args.runs, [srv.moto_log, srv.s3_log], run_binfmt(argv, env),
                        bytes_log=srv.s3_log)
    ours["stats"] = stats_of(out)
    rows.append(dict(tool="ours", command=" ".join(["binfmt"] + argv[1:]), **ours))
    ours_bytes = out.stdout

    def reference():
        with tempfile.NamedTemporaryFile(dir=args.tmp, suffix=".kas") as tmp:
            body = s3.get_object(Bucket=BUCKET, Key="big.kas")["Body"]
            shutil.copyfileobj(body, tmp, 1 << 20)
            tmp.flush()
            store = kastore.load(tmp.name)
            try:
                return np.array(store[key]).tobytes()
            finally:
                store.close()

    ref, data = measure(args.runs, [srv.moto_log, srv.s3_log], reference, bytes_log=srv.s3_log)
    rows.append(dict(tool="boto3 get_object + kastore.load",
                     command="s3.get_object(...) to a file; kastore.load(path)[KEY]", **ref))
    assert data == ours_bytes, "binfmt kastore get --raw wrote other bytes than kastore"
    return rows


# --- report -----------------------------------------------------------------------------

CASES = {
    "taco": "1. TACO header + member list, 10,000 members × 4 KiB (HTTP, nginx)",
    "taco-large": "1b. the same, 1,000 members × 80 KiB (HTTP, nginx)",
    "taridx": "2. one sample of a 100,000-member tar shard (HTTP, nginx)",
    "kastore": "3. one 25 MiB array of a 100 MiB kastore (S3, moto)",
    "kastore-small": "3b. one 4,000-byte array of the same store (S3, moto)",
}


def human(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:,} B" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024


def markdown(results):
    lines = ["| case | tool | requests | bytes sent | median ms | ratio |",
             "|---|---|---:|---:|---:|---:|"]
    for case in results["cases"]:
        ours = next((r for r in case["rows"] if r["tool"] == "ours" and "median_ms" in r), None)
        for r in case["rows"]:
            if "skipped" in r:
                lines.append(f"| {case['title']} | {r['tool']} | – | – | – | skipped: {r['skipped']} |")
                continue
            reqs = str(r["requests"])
            if r.get("head"):
                reqs += f" ({r['head']} HEAD)"
            ratio = f"{r['median_ms'] / ours['median_ms']:.2f}" if ours else "–"
            lines.append(f"| {case['title']} | {r['tool']} | {reqs} | {human(r['bytes'])} "
                         f"| {r['median_ms']:.1f} | {ratio} |")
    return "\n".join(lines)


def checks(results):
    """Our --stats against the server's log."""
    notes = []
    for case in results["cases"]:
        for r in case["rows"]:
            s = r.get("stats")
            if r["tool"] != "ours" or "median_ms" not in r:
                continue
            if r.get("note"):
                notes.append(f"{case['name']}: {r['note']}")
            if s is None:
                notes.append(f"{case['name']}: no --stats line")
                continue
            if s["http"] != r["requests"]:
                notes.append(f"{case['name']}: --stats says {s['http']} HTTP requests, the server logged {r['requests']}")
            if r.get("proxy_requests") not in (None, r["requests"]):
                notes.append(f"{case['name']}: moto logged {r['requests']} requests, the proxy {r['proxy_requests']}")
            if r.get("varied"):
                notes.append(f"{case['name']}: requests/bytes varied between runs: {r['varied']}")
    return notes


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=5, help="runs per tool and case (default 5)")
    p.add_argument("--json", action="store_true", help="print JSON instead of markdown")
    p.add_argument("--data", type=Path, help="keep the generated data here and reuse it")
    p.add_argument("--binfmt", default=os.environ.get("BINFMT", str(ROOT / "target/release/binfmt")),
                   help="the binfmt to measure (default: target/release/binfmt, or $BINFMT)")
    p.add_argument("--indexer", help="the binfmt that runs `taridx build` (default: --binfmt)")
    p.add_argument("--cases", default=",".join(CASES),
                   help=f"comma-separated, of {', '.join(CASES)} (default: all)")
    args = p.parse_args()
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        p.error(f"unknown case(s) {unknown}")
    if not Path(args.binfmt).is_file():
        sys.exit(f"bench.py: {args.binfmt} not found: cargo build --release -p binfmt-cli")
    try:
        import boto3
        import fsspec  # noqa: F401
        import aiohttp  # noqa: F401
    except ImportError as e:
        sys.exit(f"bench.py: {e}: pip install -r tools/remote/bench-requirements.txt")

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="binfmt-bench-") as tmp:
        args.tmp = tmp
        data_dir = args.data or Path(tmp) / "data"
        index_note = make_data(data_dir, args.binfmt, args.indexer or args.binfmt)
        results = {"machine": {"cores": os.cpu_count(), "runs": args.runs,
                               "binfmt": args.binfmt}, "cases": []}
        with Servers(data_dir, tmp) as srv:
            s3 = None
            if "kastore" in cases or "kastore-small" in cases:
                s3 = boto3.client("s3", endpoint_url=srv.s3_endpoint, region_name=MOTO_REGION,
                                  aws_access_key_id=MOTO_KEY_ID, aws_secret_access_key=MOTO_SECRET)
                direct = boto3.client("s3", endpoint_url=srv.moto_endpoint, region_name=MOTO_REGION,
                                      aws_access_key_id=MOTO_KEY_ID,
                                      aws_secret_access_key=MOTO_SECRET)
                direct.create_bucket(Bucket=BUCKET)
                with open(data_dir / "big.kas", "rb") as f:
                    direct.put_object(Bucket=BUCKET, Key="big.kas", Body=f)
                s3.head_object(Bucket=BUCKET, Key="big.kas")  # warm the client (not timed)
            import fsspec
            fsspec.filesystem("http")  # the reference's session, made before the runs
            for name in cases:
                say(f"case {name}")
                if name == "taco":
                    rows = case_taco(args, srv, "a.taco", TACO_MEMBERS)
                elif name == "taco-large":
                    rows = case_taco(args, srv, "large.taco", TACO_LARGE_MEMBERS)
                elif name == "taridx":
                    rows = case_taridx(args, srv, index_note)
                elif name == "kastore":
                    rows = case_kastore(args, srv, s3, KAS_KEY)
                else:
                    rows = case_kastore(args, srv, s3, KAS_SMALL_KEY)
                results["cases"].append({"name": name, "title": CASES[name], "rows": rows})
        results["notes"] = checks(results)
        results["seconds"] = round(time.monotonic() - started, 1)
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print(markdown(results))
        print()
        print(f"{args.runs} runs per row; requests and bytes from the servers' logs "
              f"(S3: requests from moto's log, bytes from the proxy's); ratio = median ms ÷ ours; "
              f"{results['seconds']} s in all.")
        for note in results["notes"]:
            print(f"* {note}")
    say(f"done in {results['seconds']} s")


if __name__ == "__main__":
    main()
