#!/usr/bin/env python3
"""Whole-object throughput of `binfmt verify URL` and `binfmt bloscpack unpack URL`
against `curl` of the same object, on loopback and through a delay proxy.

    cargo build --release -p binfmt-cli
    tools/.venv/bin/python tools/remote/throughput.py [--rtt-ms 0,80] [--runs 5] [--mb 200]

Starts nginx (and moto, through bench.py's `Servers`) on 127.0.0.1 only, makes a Bloscpack
file of incompressible float64 data (`--mb` MB, packed with bloscpack's defaults), and
times, per round trip (each pair's runs taken in turn):

* `curl -s -o /dev/null URL` against `binfmt verify URL` (every chunk digest checked);
* `curl -s -o FILE URL` against `binfmt bloscpack unpack URL FILE --force` (the output
  synced and renamed into place, as binfmt always writes a file).

A round trip above 0 is added by a proxy in this script: each direction's bytes are
delivered `rtt / 2` after they arrived, in order, with nothing else limited (an ideal long
link with unbounded bandwidth-delay product). The kernel here has no netem. Both tools go
through the same proxy, so the ratio (curl's time / binfmt's) is what the numbers are for.

Output: a markdown table on stdout (medians of --runs; `uptime` load; with a proxy, the
CPU its one thread used per run: when that is the transfer's whole duration, about the
run's time less one round trip, the proxy sets the pace of both tools). Nothing is sent
anywhere but 127.0.0.1.
"""

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402  (the servers and helpers of the request-plan bench)

ROOT = Path(__file__).resolve().parents[2]


class DelayProxy:
    """127.0.0.1:port → 127.0.0.1:upstream, each direction delayed by rtt/2, in a thread."""

    def __init__(self, upstream, rtt_s):
        self.upstream, self.one_way = upstream, rtt_s / 2
        self.port = bench.free_port()
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.ready.wait(10)

    def busy_ms(self):
        """CPU time the proxy's thread has used so far, ms: when it is busy for the whole
        transfer, the proxy, not the client, sets the pace."""
        stat = Path(f"/proc/self/task/{self.tid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(stat[11]) + int(stat[12])) * 1000 / os.sysconf("SC_CLK_TCK")

    def _run(self):
        self.tid = threading.get_native_id()
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._serve())

    async def _serve(self):
        server = await asyncio.start_server(self._client, "127.0.0.1", self.port,
                                            limit=1 << 20)
        self.server = server
        self.ready.set()
        async with server:
            await server.serve_forever()

    async def _pump(self, reader, writer):
        queue = asyncio.Queue()

        async def deliver():
            while True:
                at, data = await queue.get()
                if data is None:
                    break
                delay = at - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                writer.write(data)
                await writer.drain()
            try:
                writer.write_eof()
            except OSError:
                pass

        task = asyncio.ensure_future(deliver())
        try:
            while True:
                data = await reader.read(1 << 18)
                await queue.put((time.monotonic() + self.one_way, data or None))
                if not data:
                    break
        except OSError:
            await queue.put((0, None))
        await task

    async def _client(self, creader, cwriter):
        try:
            sreader, swriter = await asyncio.open_connection("127.0.0.1", self.upstream,
                                                             limit=1 << 20)
        except OSError:
            cwriter.close()
            return
        await asyncio.gather(self._pump(creader, swriter), self._pump(sreader, cwriter),
                             return_exceptions=True)
        cwriter.close()
        swriter.close()

    def url(self, name):
        return f"http://127.0.0.1:{self.port}/{name}"


def make_blp(binfmt, path, mb):
    """Random float64 (incompressible), packed with bloscpack's defaults by `binfmt`."""
    import numpy as np
    raw = path.with_suffix(".raw")
    np.random.default_rng(11).random(mb * 1_000_000 // 8).tofile(raw)
    subprocess.run([binfmt, "bloscpack", "pack", str(raw), str(path)], check=True)
    raw.unlink()


def once(argv):
    start = time.monotonic()
    with open(os.devnull, "wb") as null:
        done = subprocess.run(argv, stdout=null, stderr=subprocess.PIPE)
    took = time.monotonic() - start
    if done.returncode != 0:
        sys.exit(f"throughput.py: {argv[0]} failed ({done.returncode}): "
                 f"{done.stderr.decode(errors='replace')[:500]}")
    return took


def timed_pair(a, b, runs, proxy=None):
    """Medians of `runs` runs of `a` and of `b`, taken in turn (a, b, a, b, …), so that a
    change of the machine's load falls on both; and the median CPU the proxy's thread
    used in a run of each (None without a proxy)."""
    ta, tb, ba, bb = [], [], [], []
    for _ in range(runs):
        for argv, times, busy in ((a, ta, ba), (b, tb, bb)):
            before = proxy.busy_ms() if proxy else 0
            times.append(once(argv))
            busy.append(proxy.busy_ms() - before if proxy else 0)
    busy = (statistics.median(ba), statistics.median(bb)) if proxy else None
    return statistics.median(ta), statistics.median(tb), busy


def requests(binfmt, argv):
    """The requests `argv` (a binfmt command) made, from its `--stats` line."""
    done = subprocess.run([binfmt, "--stats", *argv[1:]], capture_output=True, text=True)
    for line in done.stderr.splitlines():
        if "request" in line:
            return line.strip()
    return "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rtt-ms", default="0,80", help="round trips to add, comma-separated")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--mb", type=int, default=200, help="size of the object, MB")
    ap.add_argument("--binfmt", default=str(ROOT / "target/release/binfmt"))
    args = ap.parse_args()
    if not Path(args.binfmt).is_file():
        sys.exit(f"throughput.py: {args.binfmt} not found: cargo build --release -p binfmt-cli")
    rows = []
    with tempfile.TemporaryDirectory(prefix="binfmt-throughput-") as tmp:
        tmp = Path(tmp)
        data = tmp / "data"
        data.mkdir()
        bench.say(f"making a {args.mb} MB Bloscpack file")
        make_blp(args.binfmt, data / "big.blp", args.mb)
        size = (data / "big.blp").stat().st_size
        out = tmp / "out"
        with bench.Servers(data, tmp) as srv:
            for rtt in [int(x) for x in args.rtt_ms.split(",")]:
                proxy = DelayProxy(srv.http_port, rtt / 1000) if rtt else None
                url = proxy.url("big.blp") if proxy else srv.url("big.blp")
                bench.say(f"rtt {rtt} ms: {url}")
                pairs = [
                    ("verify", ["curl", "-sf", "-o", "/dev/null", url],
                     [args.binfmt, "verify", url]),
                    ("unpack to a file", ["curl", "-sf", "-o", str(out), url],
                     [args.binfmt, "bloscpack", "unpack", "--force", url, str(out)]),
                ]
                for name, curl, ours in pairs:
                    bench.say(f"{name}: {requests(args.binfmt, ours)}")
                    t_curl, t_ours, busy = timed_pair(curl, ours, args.runs, proxy)
                    rows.append((rtt, name, t_curl, t_ours, busy))
    load = os.getloadavg()[0]
    print(f"{size / 1e6:.0f} MB object, medians of {args.runs}, load {load:.1f}\n")
    print("| RTT | operation | curl | binfmt | ratio (curl ÷ binfmt) | proxy thread CPU (curl / binfmt) |")
    print("|---|---|---:|---:|---:|---:|")
    for rtt, name, t_curl, t_ours, busy in rows:
        cpu = f"{busy[0]:.0f} / {busy[1]:.0f} ms" if busy else "-"
        print(f"| {rtt} ms | {name} | {t_curl:.2f} s | {t_ours:.2f} s | "
              f"{t_curl / t_ours:.2f}× | {cpu} |")


if __name__ == "__main__":
    main()
