"""Python baselines for benches/benches/taridx.rs, timed on the same files in the same run.

    python tools/taridx/bench_reference.py INDEX TAR STEM

glzn is not on PyPI, so these are numpy/Python equivalents of what glzn does (the
reference document times glzn itself at 25-38 ms per load and ~10 ms per lookup):

* load: read the file, parse the 64-byte header, decode both blocks, and view the rows
  with np.frombuffer over glzn's unaligned row dtype (glzn's `load` does this and more);
* isin lookup: glzn's `lookup_stems` selection, an O(N) `np.isin` over the keyhash column
  combined with the crash id (one key);
* scan: a pure-Python glzn-compat scanner (every header a row: read 512 bytes, parse the
  size, seek over the payload) over TAR, in members per second.

Prints one JSON object of medians.
"""

import json
import struct
import sys
import time

import numpy as np

from xxh64 import xxh64

ROW = np.dtype([("fid", "<u2"), ("offset", "<u8"), ("size", "<u8"), ("extid", "<u2"),
                ("crashid", "<u4"), ("keyhash", "<u8")])


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    (magic, major, minor, rec, hdr, n_stems, n_rows, n_ext, n_crash, off_crash, off_arr,
     flags) = struct.unpack_from("<8sHHHHQQIIQQB", data, 0)
    if magic.rstrip(b"\0") != b"TARIDX":
        raise ValueError("magic")
    exts = data[64:off_crash].decode("utf-8").split("\n")
    crash = data[off_crash:off_arr].decode("utf-8").split("\n") if n_crash else []
    arr = np.frombuffer(data, dtype=ROW, count=n_rows, offset=off_arr)
    return exts, {s: i + 1 for i, s in enumerate(crash)}, arr


def isin_lookup(arr, crash, stem):
    h = np.uint64(xxh64(stem.encode()))
    c = crash.get(stem, 0)
    mask = np.isin(arr["keyhash"], np.array([h], dtype=np.uint64)) & (arr["crashid"] == c)
    return arr[mask]


def scan(path):
    rows = 0
    with open(path, "rb") as f:
        pos = 0
        while True:
            f.seek(pos)
            block = f.read(512)
            if len(block) < 512 or block == b"\0" * 512:
                break
            size = int(block[124:136].split(b"\0")[0].strip() or b"0", 8)
            rows += 1
            pos += 512 + (size + 511) // 512 * 512
    return rows


def median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]


def main():
    index, tar, stem = sys.argv[1], sys.argv[2], sys.argv[3]
    exts, crash, arr = load(index)
    assert len(isin_lookup(arr, crash, stem)) > 0
    load_s = median_time(lambda: load(index), 15)
    lookup_s = median_time(lambda: isin_lookup(arr, crash, stem), 15)
    members = scan(tar)
    scan_s = median_time(lambda: scan(tar), 3)
    json.dump({
        "rows": int(len(arr)),
        "load_ms": load_s * 1e3,
        "isin_lookup_ms": lookup_s * 1e3,
        "scan_members": members,
        "scan_members_per_s": members / scan_s,
    }, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
