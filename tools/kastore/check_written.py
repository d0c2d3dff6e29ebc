#!/usr/bin/env python3
"""Checks files written by the Rust kastore crate with the reference implementations.

    /work/venv/bin/python tools/kastore/check_written.py DIR

DIR holds the files and manifest.json: {"files": {NAME: {"stores": [{"items": [ITEM,
...]}, ...]}}}, items in the fixture_json.py form, in the order the writer was given
them (not sorted). For every file this checks that

* the Python engine (lazy and read_all) and the C engine (lazy and read_all) read every
  store, back to back, to exactly the manifest's contents, keys in sorted order;
* the bytes are exactly what the reference writers (Python and C engines) write for the
  same contents, store by store;
* a NAME ending in .trees loads in tskit and its tables match the kastore arrays.

Prints one line per file and exits 1 if anything differs.
"""

import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

import kastore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fixture_json import item_array, item_key  # noqa: E402

failures = []


def fail(name, message):
    failures.append(f"{name}: {message}")


def same_array(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def content(store):
    """The manifest store as the dict the reference writers take (str keys)."""
    return {item_key(i).decode("utf-8"): item_array(i) for i in store["items"]}


def check_read(name, path, stores, engine, read_all):
    label = f"{engine} engine, read_all={read_all}"
    with open(path, "rb") as f:
        for n, expected in enumerate(stores):
            try:
                got = kastore.load(f, engine=engine, read_all=read_all)
                got = {k: np.array(got[k]) for k in got}
            except Exception as e:  # noqa: BLE001
                fail(name, f"store {n}: {label}: {type(e).__name__}: {e}")
                return
            want = content(expected)
            if list(got) != sorted(want, key=lambda k: k.encode("utf-8")):
                fail(name, f"store {n}: {label}: keys {list(got)[:5]}… not in sorted order")
            for key, array in want.items():
                if key not in got or not same_array(got[key], array):
                    fail(name, f"store {n}: {label}: {key!r} differs")
            if not read_all:
                break  # the lazy readers do not leave the stream after the store
        else:
            if f.read(1):
                fail(name, f"{label}: bytes left after the last store")


def check_bytes(name, data, stores):
    want = b"".join(kastore.dumps(content(s)) for s in stores)
    if data != want:
        at = next((i for i, (a, b) in enumerate(zip(data, want)) if a != b), min(len(data), len(want)))
        fail(name, f"differs from the Python engine's bytes at byte {at} ({len(data)} vs {len(want)} bytes)")
    with tempfile.TemporaryDirectory() as d:
        c_bytes = b""
        for n, s in enumerate(stores):
            path = os.path.join(d, f"{n}.kas")
            kastore.dump(content(s), path, engine=kastore.C_ENGINE)
            c_bytes += Path(path).read_bytes()
    if data != c_bytes:
        fail(name, "differs from the C engine's bytes")


def check_tskit(name, path, stores):
    import tskit

    ts = tskit.load(path)
    arrays = content(stores[0])
    tables = ts.tables
    for key, column in [("nodes/time", tables.nodes.time), ("edges/left", tables.edges.left),
                        ("edges/parent", tables.edges.parent), ("sites/position", tables.sites.position)]:
        if not same_array(arrays[key], column):
            fail(name, f"tskit's {key} differs from the kastore array")
    if ts.file_uuid != bytes(arrays["uuid"].astype("int8").tobytes()).decode("ascii"):
        fail(name, "tskit reads another uuid")


def main():
    folder = Path(sys.argv[1])
    manifest = json.loads((folder / "manifest.json").read_text())
    for name, entry in manifest["files"].items():
        path = folder / name
        data = path.read_bytes()
        stores = entry["stores"]
        before = len(failures)
        for engine in [kastore.PY_ENGINE, kastore.C_ENGINE]:
            for read_all in [False, True]:
                if read_all or len(stores) == 1:
                    check_read(name, path, stores, engine, read_all)
        check_bytes(name, data, stores)
        if name.endswith(".trees"):
            check_tskit(name, str(path), stores)
        items = sum(len(s["items"]) for s in stores)
        status = "OK" if len(failures) == before else "FAILED"
        print(f"{name}: {status} ({len(stores)} store(s), {items} items, {len(data)} bytes)")
    for line in failures:
        print(line, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
