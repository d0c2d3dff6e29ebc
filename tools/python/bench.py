#!/usr/bin/env python3
"""binfmt's Python package against the reference packages, in one run.

    tools/.venv/bin/python tools/python/bench.py [--quick] [--out FILE.md]

Needs `pip install ./crates/binfmt-python` and tools/requirements.txt in the same Python.
Every figure is the median of N repetitions (time.perf_counter), after one warm-up, page
cache warm. Prints a Markdown table (and writes it to --out).

1. kastore: `load` + reaching every array (each array's last element) of a 50 MB store
   and of a real tskit `.trees` file; and `load` + summing every array (every page read).
2. bloscpack: pack (to bytes, to a file: overwriting it call after call, and as a new
   file with nothing left to write back, ours with and without sync=True) and unpack
   (from bytes, from a file) of a 64 MiB float64 random walk, and pack of 64 MiB of zeros (bloscpack 0.16 with its
   compatibility alias; 2 threads on both sides; ours and the reference alternate call
   by call); the peak RSS growth of an unpack, in a fresh process per case.
3. TACO: `read_header` of an archive's path, and of its first 256 bytes, vs tacozip;
   `update_header` of a path per call (ours by default without fdatasync, as tacozip;
   and with `sync=True`), alternating two entry lists, vs tacozip in the same process.
4. taridx: 10,000 random lookups by stem in a 100,000-row fold (`TarIndex.locate`) vs
   glzn's `np.isin` over the keyhash column per key (tools/taridx/bench_reference.py);
   the dataset's pickle size and unpickle + first sample time (what each DataLoader
   worker pays), and a batch of 64 random samples by `__getitems__` vs 64 `ix[i]`.

`--only taco,taridx` runs some sections alone.
"""

from __future__ import annotations

import argparse
import collections
import collections.abc
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

collections.MutableMapping = collections.abc.MutableMapping  # bloscpack 0.16 on 3.10+

import binfmt  # noqa: E402
import binfmt.bloscpack as ob  # noqa: E402
import binfmt.kastore as ok  # noqa: E402
import binfmt.taco as ot  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ROWS: list[tuple[str, str, float, str, float, float]] = []


def median_time(fn, n: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def median_pair(ours, ref, n: int, before=lambda: None) -> tuple[float, float]:
    """Medians of n timings of each, alternating ours and ref call by call (after one
    warm-up of each), so that both see the same load on a busy machine; `before()` runs
    untimed before every call."""
    before()
    ours()
    before()
    ref()
    to, tr = [], []
    for _ in range(n):
        before()
        t = time.perf_counter()
        ours()
        to.append(time.perf_counter() - t)
        before()
        t = time.perf_counter()
        ref()
        tr.append(time.perf_counter() - t)
    return statistics.median(to), statistics.median(tr)


PEAK = """
import collections, collections.abc, sys
def hwm():  # this process's peak RSS in KiB (ru_maxrss would include the forking parent's)
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1])
collections.MutableMapping = collections.abc.MutableMapping
import numpy as np, blosc, bloscpack as bp
import binfmt.bloscpack as ob
blosc.set_nthreads(2); ob.set_nthreads(2)
which, source, path = sys.argv[1:4]
packed = open(path, "rb").read() if source == "bytes" else None
before = hwm()
m = ob if which == "ours" else bp
a = m.unpack_ndarray_from_bytes(packed) if packed else m.unpack_ndarray_from_file(path)
print((hwm() - before) / 1024)
"""


def peak_mib(which: str, source: str, path: Path) -> float:
    """Peak RSS growth (MiB) of one unpack in a fresh process: Rust's and c-blosc's
    allocations are invisible to tracemalloc, so VmHWM after minus before (Linux;
    ru_maxrss of a child counts the pages it shared with the parent before exec)."""
    import subprocess

    out = subprocess.run([sys.executable, "-c", PEAK, which, source, str(path)],
                         check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1])


def fmt(seconds: float) -> str:
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def row(what: str, ours: float, ref_name: str, ref: float) -> None:
    load = os.getloadavg()[0]
    ROWS.append((what, fmt(ours), ref, ref_name, ref / ours, load))
    print(f"{what}: ours {fmt(ours)}, {ref_name} {fmt(ref)}, ratio {ref / ours:.2f}x, "
          f"load {load:.1f}", flush=True)


def reach_all(store) -> None:
    for key in store:
        a = store[key]
        if len(a):
            a[-1]


def sum_all(store) -> None:
    for key in store:
        store[key].sum()


def bench_kastore(tmp: Path, n: int) -> None:
    import kastore

    path = tmp / "big.kas"
    rng = np.random.default_rng(0)
    cols = 6_553_600 // 8  # 50 MiB in 8 columns
    data = {f"table{i // 2}/col{i}": rng.random(cols) if i % 2 else
            rng.integers(0, 1 << 30, cols, dtype=np.int64) for i in range(8)}
    ok.dump(data, path)
    print(f"kastore store: {path.stat().st_size / 1e6:.1f} MB", flush=True)
    row("kastore 50 MB: load + reach every array",
        median_time(lambda: reach_all(ok.load(path)), n), "kastore.load",
        median_time(lambda: reach_all(kastore.load(str(path))), n))
    row("kastore 50 MB: load + sum every array",
        median_time(lambda: sum_all(ok.load(path)), n), "kastore.load",
        median_time(lambda: sum_all(kastore.load(str(path))), n))
    trees = ROOT / "crates/kastore/tests/fixtures/valid/tree.trees"
    print(f".trees file: {trees.stat().st_size} bytes, {len(ok.load(trees))} arrays", flush=True)
    row(f"kastore real .trees ({trees.stat().st_size // 1000} KB): load + reach every array",
        median_time(lambda: reach_all(ok.load(trees)), n * 20), "kastore.load",
        median_time(lambda: reach_all(kastore.load(str(trees))), n * 20))
    try:
        import tskit

        row("  (same file) vs tskit.load",
            median_time(lambda: reach_all(ok.load(trees)), n * 20), "tskit.load",
            median_time(lambda: tskit.load(str(trees)), n * 20))
    except ImportError:
        pass


def bench_bloscpack(tmp: Path, n: int) -> None:
    """64 MiB float64 random walk (and 64 MiB of zeros): pack to bytes and to a file,
    unpack from bytes and from a file, vs bloscpack 0.16, both with 2 threads
    (`blosc.set_nthreads(2)`, `binfmt.bloscpack.set_nthreads(2)`), the calls alternating;
    then the peak memory of an unpack, each in a fresh process."""
    import blosc
    import bloscpack as bp

    blosc.set_nthreads(2)
    ob.set_nthreads(2)

    array = np.cumsum(np.random.default_rng(0).standard_normal(8 << 20))  # 64 MiB float64
    zeros = np.zeros(8 << 20)
    path, out = tmp / "a.blp", tmp / "b.blp"
    bp.pack_ndarray_to_file(array, str(path))
    packed = path.read_bytes()
    print(f"bloscpack file: {len(packed) / 1e6:.1f} MB for 64 MiB", flush=True)
    assert np.array_equal(ob.unpack_ndarray_from_file(path), array)
    for what, ours, ref in (
        ("unpack 64 MiB array (file)", lambda: ob.unpack_ndarray_from_file(path),
         lambda: bp.unpack_ndarray_from_file(str(path))),
        ("unpack 64 MiB array (bytes)", lambda: ob.unpack_ndarray_from_bytes(packed),
         lambda: bp.unpack_ndarray_from_bytes(packed)),
        ("pack 64 MiB array (bytes)", lambda: ob.pack_ndarray_to_bytes(array),
         lambda: bp.pack_ndarray_to_bytes(array)),
        ("pack 64 MiB array (file, overwritten)", lambda: ob.pack_ndarray_to_file(array, out),
         lambda: bp.pack_ndarray_to_file(array, str(out))),
        ("pack 64 MiB of zeros (bytes)", lambda: ob.pack_ndarray_to_bytes(zeros),
         lambda: bp.pack_ndarray_to_bytes(zeros)),
    ):
        mine, theirs = median_pair(ours, ref, n)
        row(f"bloscpack {what}", mine, "bloscpack 0.16", theirs)

    def new_file() -> None:
        # What a user's one pack meets: no file at the path, and no dirty pages of the
        # last call still being written back (the overwritten row above has both).
        out.unlink(missing_ok=True)
        os.sync()

    for what, kw in (("new file", {}), ("new file, ours sync=True", {"sync": True})):
        mine, theirs = median_pair(lambda: ob.pack_ndarray_to_file(array, out, **kw),
                                   lambda: bp.pack_ndarray_to_file(array, str(out)), n,
                                   before=new_file)
        row(f"bloscpack pack 64 MiB array ({what})", mine, "bloscpack 0.16", theirs)
    for source in ("file", "bytes"):
        mine = statistics.median(peak_mib("ours", source, path) for _ in range(3))
        theirs = statistics.median(peak_mib("ref", source, path) for _ in range(3))
        print(f"bloscpack unpack 64 MiB array ({source}): peak RSS +{mine:.1f} MiB, "
              f"bloscpack 0.16 +{theirs:.1f} MiB (medians of 3 processes)", flush=True)


def bench_taco(tmp: Path, n: int) -> None:
    import tacozip

    path = ROOT / "crates/taco-header/tests/fixtures/three_entries.taco"
    head = path.read_bytes()[:256]
    row("TACO read_header(path)",
        median_time(lambda: ot.read_header(path), n * 200), "tacozip 0.13",
        median_time(lambda: tacozip.read_header(str(path)), n * 200))
    row("TACO read_header(256 bytes)",
        median_time(lambda: ot.read_header(head), n * 200), "tacozip 0.13",
        median_time(lambda: tacozip.read_header(head), n * 200))

    ours_path, ref_path = tmp / "ours.taco", tmp / "ref.taco"
    for p in (ours_path, ref_path):
        p.write_bytes(path.read_bytes())
    lists = ([(1, 2), (3, 4)], [(5, 6), (7, 8), (9, 10)])

    def alternate(update, target, **kw):
        state = [0]

        def call() -> None:
            state[0] ^= 1
            update(target, lists[state[0]], **kw)
        return call

    ref = median_time(alternate(tacozip.update_header, str(ref_path)), n * 200)
    row("TACO update_header(path)", median_time(alternate(ot.update_header, ours_path), n * 200),
        "tacozip 0.13", ref)
    row("TACO update_header(path, sync=True)",
        median_time(alternate(ot.update_header, ours_path, sync=True), n * 4), "tacozip 0.13", ref)


def bench_taridx(tmp: Path, n: int) -> None:
    """10,000 random stems of a 100,000-row fold (50,000 samples x 2 members, 4 shards):
    `TarIndex.locate` vs glzn's lookup, an O(rows) `np.isin` over the keyhash column of
    the index loaded with numpy (tools/taridx/bench_reference.py, keyhashes precomputed)."""
    import io
    import tarfile

    import binfmt.taridx as tx

    sys.path.insert(0, str(ROOT / "tools/taridx"))
    from bench_reference import load  # glzn's unaligned row dtype over the whole file
    from xxh64 import xxh64

    n_samples, n_shards = 50_000, 4
    stems = [f"sample{i:07d}" for i in range(n_samples)]
    per = n_samples // n_shards
    for s in range(n_shards):
        with tarfile.open(tmp / f"bench_{s:04d}.tar", "w", format=tarfile.USTAR_FORMAT) as tf:
            for stem in stems[s * per:(s + 1) * per]:
                for ext, data in (("cls", b"7"), ("jpg", b"x" * 100)):
                    info = tarfile.TarInfo(f"{stem}.{ext}")
                    info.size = len(data)
                    tf.addfile(info, io.BytesIO(data))
    index = tx.build(tmp, "bench")
    idx = tx.open(index)
    print(f"taridx: {idx.n_rows} rows, {len(idx)} samples", flush=True)
    rng = random.Random(0)
    keys = [rng.choice(stems) for _ in range(10_000)]
    _, crash, arr = load(index)
    hashes = [(np.array([np.uint64(xxh64(k.encode()))], dtype=np.uint64), crash.get(k, 0)) for k in keys]
    column, crashids = arr["keyhash"], arr["crashid"]

    def ours() -> None:
        for k in keys:
            idx.locate(k)

    def isin() -> None:
        for h, c in hashes:
            arr[np.isin(column, h) & (crashids == c)]

    row("taridx 10,000 random lookups (100k rows)", median_time(ours, max(3, n // 3)),
        "glzn np.isin per key", median_time(isin, 1))

    import pickle

    blob = pickle.dumps(idx)
    print(f"taridx dataset of {len(idx)} samples pickles to {len(blob)} bytes", flush=True)
    unpickle = median_time(lambda: pickle.loads(blob)[0], n)
    print(f"taridx unpickle + first sample (what a worker pays): {fmt(unpickle)}", flush=True)
    batch = [rng.randrange(len(idx)) for _ in range(64)]
    row("taridx batch of 64 samples: __getitems__ vs 64 ix[i]",
        median_time(lambda: idx.__getitems__(batch), n * 4), "ix[i] x64",
        median_time(lambda: [idx[i] for i in batch], n * 4))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--only", help="comma-separated sections: kastore,bloscpack,taco,taridx")
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else {"kastore", "bloscpack", "taco", "taridx"}
    n = 5 if args.quick else 15
    print(f"binfmt {binfmt.__version__}, Python {sys.version.split()[0]}, numpy {np.__version__}, "
          f"{os.cpu_count()} cores; medians of {n} (x20 / x200 for the small cases)", flush=True)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for name, bench in (("kastore", bench_kastore), ("bloscpack", bench_bloscpack),
                            ("taco", bench_taco), ("taridx", bench_taridx)):
            if name in only:
                bench(tmp, n)
    lines = ["| operation | binfmt | reference | reference time | ratio (ref / ours) | load |",
             "|---|---|---|---|---|---|"]
    for what, ours, ref, ref_name, ratio, load in ROWS:
        lines.append(f"| {what} | {ours} | {ref_name} | {fmt(ref)} | {ratio:.2f}× | {load:.1f} |")
    table = "\n".join(lines)
    print()
    print(table)
    if args.out:
        args.out.write_text(table + "\n")


if __name__ == "__main__":
    main()
