#!/usr/bin/env python3
"""Time the reference member listing of an archive: Python zipfile's infolist().

Usage: python tools/taco/time_listing.py ARCHIVE [RUNS]

Opens ARCHIVE with zipfile.ZipFile (which reads the end records and the whole central
directory, building one ZipInfo per member) and takes infolist(), RUNS times (default
20), in this process (no interpreter start-up). Prints the median in seconds and the
member count as JSON: {"median_s": S, "members": N, "runs": R}. The taco_header bench
runs it to time the reference in the same run as our listing.
"""
import json
import statistics
import sys
import time
import zipfile

path = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
times, members = [], 0
for _ in range(runs):
    start = time.perf_counter()
    with zipfile.ZipFile(path) as z:
        members = len(z.infolist())
    times.append(time.perf_counter() - start)
print(json.dumps({"median_s": statistics.median(times), "members": members, "runs": runs}))
