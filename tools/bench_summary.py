#!/usr/bin/env python3
"""Print criterion medians from target/criterion, with ratios between chosen benches.

Usage: python tools/bench_summary.py [FILTER] [--ratio A B]...

Reads every target/criterion/<group>/<bench>/new/estimates.json (the last run), prints
the median time per iteration and its 95% confidence interval, and for each
`--ratio A B` pair (bench ids as printed) prints median(B) / median(A): how many times
faster A is than B.
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "target" / "criterion"


def fmt(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def main(argv):
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
