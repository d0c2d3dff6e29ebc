#!/usr/bin/env python3
"""Print criterion medians from target/criterion, with ratios between chosen benches.

Usage: python tools/bench_summary.py [FILTER] [--ratio A B]...
       python tools/bench_summary.py --headers [--no-run]

Reads every target/criterion/<group>/<bench>/new/estimates.json (the last run), prints
the median time per iteration and its 95% confidence interval, and for each
`--ratio A B` pair (bench ids as printed) prints median(B) / median(A): how many times
faster A is than B.

`--headers` runs the header-decode benches of the five formats, with the references the
benches time (tacozip's and kastore's C libraries, through BINFMT_PYTHON; the default is
tools/.venv/bin/python when it exists), times bloscpack's own Python header decoder in the
same run, and prints one Markdown table: headers per second and GiB/s for ours, the
reference's headers per second, and the ratio, with the date and the load average
(docs/performance.md, "Header decode"). About 5 minutes on 2 cores once the benches are
built; `--no-run` prints the table from the last run instead (the Python reference is
timed again).
"""
import json
import os
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ROOT = REPO / "target" / "criterion"


def fmt(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


# Header decode, one row per measurement: format, what is decoded, our bench (criterion's
# directory name: a `/` inside a group name is `_`), bytes of header decoded per header,
# headers per iteration, and the reference: a bench of the same run, "python:bloscpack"
# (timed below), or None, with what it is.
TACO_REF = ("taco_header_decode/tacozip_c", "tacozip 0.13 C `tacozip_parse_header` (no CRC)")
KASTORE_REF = (
    "kastore_parse/reference_c_lazy_open_10_items",
    "kastore 0.3.6 C: lazy `kastore_open` of the file, 1 get, close",
)
HEADER_ROWS = [
    ("TACO", "full parse (CRC-32) to a view", "taco_header_decode/full_view_only", 157, 1, TACO_REF),
    ("TACO", "structural parse (no CRC) to a view", "taco_header_decode/no_checksums_view_only", 157, 1, TACO_REF),
    ("Bloscpack", "32-byte header", "bloscpack/header_decode", 32, 1024,
     ("python:bloscpack", "bloscpack 0.16 `BloscpackHeader.decode` (pure Python)")),
    # 64-byte header, 10 descriptors of 64 bytes, 10 keys of 16 bytes.
    ("kastore", "header + 10 descriptors, in memory", "kastore_parse/10_items", 864, 1, KASTORE_REF),
    ("kastore", "the same from the file (read, parse, 1 array)", "kastore_parse/ours_file_10_items", 864, 1, KASTORE_REF),
    ("MLDF", "magic + 64-byte header", "mldf_open/header", 73, 1,
     (None, "none: MLDF has no other implementation")),
    ("taridx", "64-byte header of a 10k-row index", "taridx_open/10k_rows_slice", 64, 1,
     (None, "none: glzn is not on PyPI, and its loader reads the whole index")),
]
HEADER_FILTER = (
    "^(taco_header/decode/(full_view_only|no_checksums_view_only|tacozip_c)"
    "|bloscpack/header_decode"
    "|kastore_parse/(10_items|ours_file_10_items|reference_c_lazy_open_10_items)"
    "|mldf/open/header|taridx/open/10k_rows_slice)$"
)

BLOSCPACK_TIMER = """
import glob, statistics, sys, timeit
sys.path.insert(0, sys.argv[1])
import refcompat  # noqa: F401  (bloscpack 0.16 on Python 3.10+)
from bloscpack.headers import BloscpackHeader
raw = open(sorted(glob.glob(sys.argv[2] + "/*.blp"))[0], "rb").read()[:32]
BloscpackHeader.decode(raw)
t = timeit.Timer(lambda: BloscpackHeader.decode(raw))
n = 20000
print(statistics.median(t.repeat(repeat=7, number=n)) / n * 1e9)
"""


def median_ns(bench, since=None):
    est = ROOT / bench / "new" / "estimates.json"
    if not est.exists() or (since is not None and est.stat().st_mtime < since):
        return None
    return json.loads(est.read_text())["median"]["point_estimate"]


def python_reference(python):
    if not python:
        return None
    out = subprocess.run(
        [python, "-c", BLOSCPACK_TIMER, str(REPO / "tools" / "bloscpack"),
         str(REPO / "crates" / "bloscpack-header" / "tests" / "fixtures")],
        capture_output=True, text=True,
    )
    if out.returncode != 0:
        print(f"bloscpack reference not timed: {out.stderr.strip()}", file=sys.stderr)
        return None
    return float(out.stdout.strip())


def rate(ns):
    """Headers per second from nanoseconds per header."""
    if not ns:
        return "–"
    per_s = 1e9 / ns
    return f"{per_s / 1e6:,.1f} M" if per_s >= 1e6 else f"{per_s / 1e3:,.1f} k"


def headers(argv):
    env = dict(os.environ)
    venv = REPO / "tools" / ".venv" / "bin" / "python"
    if not env.get("BINFMT_PYTHON") and venv.exists():
        env["BINFMT_PYTHON"] = str(venv)
    python = env.get("BINFMT_PYTHON")
    since = None
    started = time.time()
    if "--no-run" not in argv:
        since = started
        cmd = ["cargo", "bench", "-p", "binfmt-benches"]
        for b in ("taco_header", "bloscpack", "kastore", "mldf", "taridx"):
            cmd += ["--bench", b]
        cmd += ["--", "--warm-up-time", "1", "--measurement-time", "3", HEADER_FILTER]
        print("+ " + " ".join(cmd[:-1]) + f" '{HEADER_FILTER}'", file=sys.stderr)
        # criterion's report goes to stderr, so that stdout is the table alone.
        subprocess.run(cmd, cwd=REPO, env=env, check=True, stdout=sys.stderr)
    bloscpack_ref = python_reference(python)
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                            capture_output=True, text=True).stdout.strip()
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"Header decode, {when}, commit {commit} (+ local changes if any), "
          f"`uptime`: {load.split('load average')[-1].strip(': ')} (load average)")
    print()
    print("| format | decoded | ours: headers/s | ours: GiB/s | ours: bench id | reference "
          "| reference: headers/s | ratio (ours ÷ reference) |")
    print("|---|---|---:|---:|---|---|---:|---:|")
    missing = []
    for fmt, what, bench, size, per_iter, (ref, ref_label) in HEADER_ROWS:
        ns = median_ns(bench, since)
        if ns is None:
            missing.append(bench)
            continue
        per_header = ns / per_iter
        gib = size * 1e9 / per_header / 2**30
        if ref == "python:bloscpack":
            ref_ns = bloscpack_ref
        elif ref:
            ref_ns = median_ns(ref, since)
            if ref_ns is None:
                missing.append(ref)
        else:
            ref_ns = None
        ratio = f"**{ref_ns / per_header:,.1f}×**" if ref_ns else "–"
        print(f"| {fmt} | {what} | {rate(per_header)} | {gib:,.1f} | `{bench}` | {ref_label} "
              f"| {rate(ref_ns)} | {ratio} |")
    print()
    print(f"Headers/s = 1 / (criterion median per header); GiB/s = bytes decoded per header "
          f"× headers/s / 2^30; ratio = reference time / our time (above 1: ours is faster). "
          f"Whole command: {time.time() - started:.0f} s.")
    if missing:
        print(f"not measured in this run: {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


def main(argv):
    if "--headers" in argv:
        sys.exit(headers(argv))
    ratios, filt, i = [], None, 0
    while i < len(argv):
        if argv[i] == "--ratio":
            ratios.append((argv[i + 1], argv[i + 2]))
            i += 3
        else:
            filt = argv[i]
            i += 1
    medians = {}
    for est in sorted(ROOT.glob("**/new/estimates.json")):
        bench = str(est.parent.parent.relative_to(ROOT))
        if filt and filt not in bench:
            continue
        m = json.loads(est.read_text())["median"]
        medians[bench] = m["point_estimate"]
        bench_json = est.parent / "benchmark.json"
        thr = ""
        if bench_json.exists():
            t = json.loads(bench_json.read_text()).get("throughput") or {}
            if "Bytes" in t:
                thr = f"  {t['Bytes'] / m['point_estimate']:.3g} GB/s"
            elif "Elements" in t:
                thr = f"  {t['Elements'] / m['point_estimate'] * 1e3:.3g} M elem/s"
        ci = m["confidence_interval"]
        print(f"{bench:60s} {fmt(m['point_estimate']):>10s}  [{fmt(ci['lower_bound'])} .. {fmt(ci['upper_bound'])}]{thr}")
    for a, b in ratios:
        if a in medians and b in medians:
            print(f"{b} / {a} = {medians[b] / medians[a]:.1f}x")
        else:
            print(f"ratio {a} vs {b}: missing", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
