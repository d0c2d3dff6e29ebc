"""Time bloscpack 0.16.0 unpacking a file in-process (no interpreter start-up).

    python tools/bloscpack/time_unpack.py FILE.blp OUT RUNS

Runs `bloscpack.unpack_file_from_file(FILE.blp, OUT)` RUNS times with one c-blosc
thread and prints the median wall time in seconds. The benchmark uses it beside timing
the `blpk decompress` command (tools/bloscpack/blpk.py) as a whole.
"""

import statistics
import sys
import time

import refcompat
from refcompat import bp


def main(path, out, runs):
    times = []
    for _ in range(int(runs)):
        start = time.perf_counter()
        bp.unpack_file_from_file(path, out)
        times.append(time.perf_counter() - start)
    print(statistics.median(times))


if __name__ == "__main__":
    refcompat.blosc.set_nthreads(1)
    main(*sys.argv[1:])
