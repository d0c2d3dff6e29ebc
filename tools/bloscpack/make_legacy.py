"""Pack numpy arrays with the real bloscpack 0.11.0 or 0.13.0 and record what they wrote.

    /tmp/bp011/bin/python tools/bloscpack/make_legacy.py survey  [OUT_DIR]
    /tmp/bp011/bin/python tools/bloscpack/make_legacy.py fixtures [OUT_DIR]

Run it with a Python whose site-packages hold bloscpack 0.11.0 (or 0.13.0), python-blosc
and numpy; on Python 3.10+ those releases need `collections.MutableMapping`, which this
script puts back before importing them. A venv that works (Python 3.11):

    python3 -m venv /tmp/bp011 && /tmp/bp011/bin/pip install bloscpack==0.11.0 blosc numpy
    python3 -m venv /tmp/bp013 && /tmp/bp013/bin/pip install bloscpack==0.13.0 blosc numpy

(blosc 1.11.4 and numpy 2.4.6 at the time of writing.)

Why those releases write a short last chunk (numpy_io.pack_ndarray and abstract_io.pack of
both releases): `calculate_nchunks(array nbytes, chunk_size)` splits the array with the
chunk size **as requested**; `pack` then rounds chunk_size down to a multiple of the
itemsize (the typesize) but keeps nchunks and last_chunk; the header gets the rounded
chunk_size and the unrounded last_chunk, and `PlainNumpySource.__iter__` compresses
`int(last_chunk / itemsize)` whole elements for the last chunk. So, whenever the requested
chunk size is not a multiple of the itemsize:

* every chunk but the last holds chunk_size bytes (the rounded one, as the header says);
* the last chunk holds last_chunk rounded down to a whole element:
  nbytes = last_chunk - last_chunk % typesize, short of last_chunk by 1..typesize-1 bytes;
* the array's tail past what the chunks hold is never written: the metadata's shape
  promises (nchunks - 1) * (requested - chunk_size) + last_chunk % typesize bytes more
  than the chunks hold (up to nchunks * (typesize - 1)).

The default chunk size (1 MiB) is not a multiple of 3, 5, 6, 7, 9… so a structured dtype of
such an itemsize packed with defaults and larger than 1 MiB gets a short last chunk (the
issue's `ndarray_struct.blp`). A file whose last_chunk then exceeds the rounded chunk_size
is refused by their own header check (ValueError), after the output file was opened:
that leaves an empty file, which is not a Bloscpack file at all.

`survey` packs hundreds of arrays (dtypes, sizes, chunk sizes) into OUT_DIR (default a
temporary directory), checks each written file against the rule above and prints a
summary. `fixtures` writes a small representative set into OUT_DIR (default
crates/bloscpack-header/tests/fixtures/legacy) as `<release>_<case>.blp` and merges what
the release's own readers say about each into `expected.json` there: header fields, chunk
nbytes, the array's nbytes and shape, and the length and SHA-256 of the bytes
`unpack_bytes_file` (the release's own unpack) returns.
"""

import collections
import collections.abc
import hashlib
import json
import os
import sys
import tempfile

for _name in ("MutableMapping", "Mapping", "Sequence", "Iterable"):
    if not hasattr(collections, _name):
        setattr(collections, _name, getattr(collections.abc, _name))

import blosc  # noqa: E402
import bloscpack as bp  # noqa: E402
import numpy as np  # noqa: E402
from bloscpack import file_io  # noqa: E402

blosc.set_nthreads(1)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RELEASE = bp.__version__.replace(".", "_")  # "0_11_0"
assert bp.__version__ in ("0.11.0", "0.13.0"), bp.__version__

DTYPES = {
    "i1": np.dtype("<i1"),
    "u2": np.dtype("<u2"),
    "i4": np.dtype("<i4"),
    "f4": np.dtype("<f4"),
    "i8": np.dtype("<i8"),
    "f8": np.dtype("<f8"),
    # itemsize 15 (packed)
    "rec15": np.dtype([("a", "<i4"), ("b", "<f8"), ("c", "S3")]),
    # itemsize 9
    "rec9": np.dtype([("x", "<f4"), ("y", "<i2"), ("tag", "S3")]),
    # itemsize 24
    "rec24": np.dtype([("a", "<i4"), ("b", "<f8"), ("c", "S12")]),
    # itemsize 16, aligned (padding inside)
    "rec16a": np.dtype([("a", "<i4"), ("b", "<f8")], align=True),
    # nested, itemsize 7
    "nest7": np.dtype([("p", [("u", "<u2"), ("v", "u1")]), ("q", "<i4")]),
}


def array(dtype, n):
    """n elements of dtype whose bytes are a deterministic, mildly compressible ramp."""
    raw = (np.arange(n * dtype.itemsize, dtype=np.uint64) * 2654435761 >> 7).astype(np.uint8)
    raw[::3] = 0
    return np.frombuffer(raw.tobytes(), dtype=dtype).copy()


def describe(path):
    """What the release's own readers say about the file at `path`."""
    with open(path, "rb") as fp:
        header, metadata, _, offsets = file_io._read_beginning(fp)
        nbytes = []
        for _ in range(header.nchunks):
            _, bh, _ = file_io._read_compressed_chunk_fp(fp, header.checksum_impl)
            nbytes.append(bh["nbytes"])
    held = bp.unpack_bytes_file(path)
    return {
        "typesize": header.typesize,
        "chunk_size": header.chunk_size,
        "last_chunk": header.last_chunk,
        "nchunks": header.nchunks,
        "chunks": nbytes,
        "metadata": metadata,
        "held": len(held),
        "sha256": hashlib.sha256(held).hexdigest(),
    }


def rule(d):
    """None if the file follows the rule in the module docstring, else why not."""
    ts, cs, last, n = d["typesize"], d["chunk_size"], d["last_chunk"], d["nchunks"]
    chunks = d["chunks"]
    if len(chunks) != n:
        return "chunk count"
    if any(c != cs for c in chunks[:-1]):
        return "inner chunk"
    want = last - last % ts if ts else last
    if chunks[-1] != want:
        return "last chunk %d, want %d" % (chunks[-1], want)
    return None


def pack(a, path, chunk_size):
    if chunk_size is None:
        bp.pack_ndarray_file(a, path)
    else:
        bp.pack_ndarray_file(a, path, chunk_size=chunk_size)


def case(a, path, chunk_size):
    """Pack, describe, check. Returns (description or None, error or None)."""
    try:
        pack(a, path, chunk_size)
    except Exception as e:  # the release refuses some combinations
        return None, "%s: %s" % (type(e).__name__, e)
    d = describe(path)
    d["array_nbytes"] = a.nbytes
    d["promised"] = (d["nchunks"] - 1) * d["chunk_size"] + d["last_chunk"] if d["nchunks"] else 0
    return d, rule(d)


def survey(out):
    counts = collections.Counter()
    shortfalls = collections.Counter()
    for name, dtype in DTYPES.items():
        for n in (0, 1, 2, 7, 100, 1000, 4099):
            for cs in (1, 7, 64, 100, 1000, 1001, 3001, 4096, 65537, None):
                path = os.path.join(out, "%s_%d_%s.blp" % (name, n, cs))
                d, why = case(array(dtype, n), path, cs)
                if d is None:
                    counts["refused: " + why.split(":")[0]] += 1
                    continue
                if why:
                    counts["BREAKS THE RULE"] += 1
                    print("rule broken:", name, n, cs, why, d)
                    continue
                short = d["promised"] - d["held"]
                counts["short" if short else "exact"] += 1
                shortfalls[(d["typesize"], short, d["last_chunk"] % d["typesize"]
                            if d["typesize"] else 0)] += 1
                assert short == (d["last_chunk"] % d["typesize"] if d["typesize"] else 0)
                lost = d["array_nbytes"] - d["held"]
                assert 0 <= lost <= d["nchunks"] * (d["typesize"] - 1) if d["typesize"] else lost == 0
                os.remove(path)
    # The case: a 24-byte structured dtype, default chunk size, two chunks.
    a = array(DTYPES["rec24"], 45960)
    d, why = case(a, os.path.join(out, "issue.blp"), None)
    print("issue case:", {k: d[k] for k in ("chunk_size", "last_chunk", "nchunks", "chunks")},
          "rule:", why or "ok")
    print(bp.__version__, dict(counts))
    print("(typesize, shortfall, last_chunk % typesize): files")
    for k in sorted(shortfalls):
        print("  ", k, shortfalls[k])


# (case name, dtype, elements, chunk size): small, each tells something.
FIXTURES = [
    ("f8_exact", "f8", 1000, 3000),        # chunk size a multiple of 8: nothing short
    ("f8_short", "f8", 1000, 3001),        # 3 chunks, last_chunk 1998 -> 1992 held
    ("i4_rounded", "i4", 100, 99),         # chunk_size rounded to 96, last_chunk 4: whole
    ("i4_short", "i4", 100, 101),          # 4 chunks of 100, last_chunk 97 -> 96
    ("u2_short", "u2", 1001, 501),         # 4 chunks of 500, last_chunk 499 -> 498
    ("rec15_short", "rec15", 300, 1000),   # itemsize 15
    ("rec15_one", "rec15", 1, 1000),       # one element: one chunk, nothing short
    ("rec9_short", "rec9", 500, 4096),     # itemsize 9
    ("rec24_short", "rec24", 400, 4096),   # itemsize 24, like the file
    ("rec16a_short", "rec16a", 300, 1001), # aligned struct with padding
    ("nest7_short", "nest7", 1000, 1003),  # nested struct, itemsize 7
    # The file: 45,960 24-byte records, the default chunk size (1 MiB, rounded
    # to 1,048,560), two chunks, last_chunk 54,464 of which the last chunk holds 54,456.
    # Mostly zeros, so that it stays a few KB.
    ("rec24_issue", "rec24", 45960, None),
    ("i1_many", "i1", 4099, 64),           # itemsize 1: never short
    ("f8_empty", "f8", 0, 3001),           # empty array
    ("f8_empty_last", "f8", 1001, 4001),   # last_chunk 6 < 8: an empty last chunk
]


def fixtures(out):
    os.makedirs(out, exist_ok=True)
    manifest_path = os.path.join(out, "expected.json")
    manifest = {}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
    for name, dtype, n, cs in FIXTURES:
        if name.endswith("_issue"):
            a = np.zeros(n, dtype=DTYPES[dtype])
            a["a"] = np.arange(n)
        else:
            a = array(DTYPES[dtype], n)
        file_name = "%s_%s.blp" % (RELEASE, name)
        d, why = case(a, os.path.join(out, file_name), cs)
        assert d is not None and why is None, (name, why)
        d.update({
            "release": bp.__version__,
            "dtype": str(DTYPES[dtype].descr) if DTYPES[dtype].names else DTYPES[dtype].str,
            "itemsize": DTYPES[dtype].itemsize,
            "shape": list(a.shape),
            "requested_chunk_size": cs,
            "shortfall": d["promised"] - d["held"],
        })
        del d["metadata"]
        manifest[file_name] = d
        print(file_name, d["chunk_size"], d["last_chunk"], d["chunks"][-1:], d["shortfall"])
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "survey"
    if mode == "survey":
        survey(sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="bp_legacy_"))
    elif mode == "fixtures":
        fixtures(sys.argv[2] if len(sys.argv) > 2 else os.path.join(
            ROOT, "crates", "bloscpack-header", "tests", "fixtures", "legacy"))
    else:
        sys.exit(__doc__)
