#!/usr/bin/env python3
"""Makes the kastore interop fixtures with the reference implementations.

    /work/venv/bin/python tools/kastore/make_fixtures.py [OUT_DIR]

OUT_DIR defaults to crates/kastore/tests/fixtures. Needs kastore==0.3.6, tskit==1.0.3 and
numpy (tools/requirements.txt). Writes:

* valid/*.kas, valid/tree.trees: stores written by the reference writers (the Python
  engine; every one is checked to be byte-identical to the C engine's output);
* malformed/*.kas: the malformed cases of the reference test suites, made the way those
  suites make them (patching reference output, or the reference's own pack_items and
  write_file), plus inputs the reference accepts that we treat differently (quirks);
* expected.json: what the reference reads from each valid file (keys in file order,
  dtypes, values, store sizes), and what each reference reader (Python and C engines,
  lazy and read_all) does with each malformed file, each run in a child process because
  one of them crashes.

The output is deterministic: the only random field, the .trees uuid, is replaced by a
fixed one (and the rest of the file is checked to be exactly what tskit wrote).
"""

import io
import json
import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import kastore
import kastore.store as kstore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fixture_json import DTYPES, item_json  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIXED_UUID = "6b617374-6f72-4500-8000-62696e666d74"  # "kastore" / "binfmt" in hex


def dumps_checked(data):
    """The Python engine's bytes, after checking that the C engine writes the same."""
    py = kastore.dumps(data)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "c.kas")
        kastore.dump(data, path, engine=kastore.C_ENGINE)
        c = Path(path).read_bytes()
    assert py == c, "the Python and C engines disagree"
    return py


# ---------------------------------------------------------------- valid stores


def extremes():
    """One array per dtype holding its extreme and special values."""
    out = {}
    for t in ["int8", "int16", "int32", "int64"]:
        i = np.iinfo(t)
        out[t] = np.array([i.min, i.min + 1, -1, 0, 1, i.max - 1, i.max], dtype=t)
    for t in ["uint8", "uint16", "uint32", "uint64"]:
        i = np.iinfo(t)
        out[t] = np.array([0, 1, i.max // 2, i.max // 2 + 1, i.max - 1, i.max], dtype=t)
    for t, bits in [("float32", "<u4"), ("float64", "<u8")]:
        f = np.finfo(t)
        values = np.array(
            [0.0, -0.0, 1.0, -1.5, f.tiny, f.smallest_subnormal, -f.smallest_subnormal,
             f.max, f.min, f.eps, np.inf, -np.inf, np.nan],
            dtype=t,
        )
        # NaNs with a payload and a sign: readers must keep every bit.
        payload = np.array([0x7FC00001, 0xFFC00000] if t == "float32"
                           else [0x7FF8000000000001, 0xFFF8000000000000], dtype=bits)
        out[t] = np.concatenate([values, payload.view(t)])
    return out


def sort_example():
    keys = ["A", "Z", "_", "a", "a\0b", "a.b", "a/b", "a0", "aa", "aaa", "ab", "abc",
            "abd", "b", "ba", "nodes/metadata", "nodes/metadata_offset",
            "nodes/metadata_schema", "nodes/time"]
    # Insert in reverse so that only the writer's sort can put them in order.
    return {k: np.arange(i % 4, dtype="int32") * (i + 1) for i, k in reversed(list(enumerate(keys)))}


def utf8_keys():
    keys = ["🧬 dna", "日本語", "ключ", "α", "Ω/omega", "é", "z", "naïve", "café"]
    return {k: np.array([i, -i], dtype="int16") for i, k in enumerate(keys)}


def mixed_empty():
    # Empty arrays take no bytes: consecutive items share an array_start, and a trailing
    # empty array still moves file_size to its aligned start.
    return {
        "a": np.array([], dtype="int8"),
        "b": np.array([1, 2, 3], dtype="int8"),
        "c": np.array([], dtype="float64"),
        "d": np.array([], dtype="uint16"),
        "e": np.array([7], dtype="int32"),
        "f": np.array([], dtype="uint64"),
    }


def tree_sequence_bytes():
    """A small tree sequence made with tskit tables (no msprime), dumped by tskit."""
    import tskit  # here, so that the probe children do not pay for it
    tables = tskit.TableCollection(sequence_length=100.0)
    tables.time_units = "generations"
    tables.metadata_schema = tskit.MetadataSchema.permissive_json()
    tables.metadata = {"made_by": "binfmt kastore fixtures"}
    tables.populations.metadata_schema = tskit.MetadataSchema.permissive_json()
    tables.populations.add_row(metadata={"name": "pop0"})
    tables.individuals.add_row(flags=0, location=[1.5, -2.0], parents=[-1, -1])
    tables.individuals.add_row(flags=0, location=[0.25], parents=[-1, -1])
    sample = tskit.NODE_IS_SAMPLE
    for ind, t in [(0, 0.0), (0, 0.0), (1, 0.0), (1, 0.0)]:
        tables.nodes.add_row(flags=sample, time=t, population=0, individual=ind)
    for t in [1.0, 2.5, 4.0]:
        tables.nodes.add_row(flags=0, time=t, population=0)
    # Two trees: ((0,1),(2,3)) on [0, 60) and ((0,2),(1,3)) on [60, 100).
    for left, right, parent, children in [
        (0, 60, 4, (0, 1)), (0, 60, 5, (2, 3)), (0, 60, 6, (4, 5)),
        (60, 100, 4, (0, 2)), (60, 100, 5, (1, 3)), (60, 100, 6, (4, 5)),
    ]:
        for child in children:
            tables.edges.add_row(left=left, right=right, parent=parent, child=child)
    tables.sites.add_row(position=10.0, ancestral_state="A")
    tables.sites.add_row(position=70.5, ancestral_state="G", metadata=b"\x01\x02")
    tables.mutations.add_row(site=0, node=0, derived_state="T", time=0.5)
    tables.mutations.add_row(site=1, node=5, derived_state="C", time=3.0)
    tables.mutations.add_row(site=1, node=3, derived_state="G", parent=1, time=1.0)
    tables.migrations.add_row(left=0, right=100, node=4, source=0, dest=0, time=1.5)
    tables.provenances.add_row(
        timestamp="2026-01-01T00:00:00", record='{"software": "binfmt fixtures"}'
    )
    tables.sort()
    tables.build_index()
    tables.compute_mutation_parents()
    ts = tables.tree_sequence()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "x.trees")
        ts.dump(path)
        return Path(path).read_bytes(), ts


def fixed_uuid_trees():
    """tskit's bytes with the random uuid replaced, checked byte for byte."""
    import tskit
    original, ts = tree_sequence_bytes()
    data = dict(kastore.loads(original))
    old_uuid = bytes(data["uuid"].astype("int8").tobytes())
    data["uuid"] = np.frombuffer(FIXED_UUID.encode("ascii"), dtype="int8")
    patched = dumps_checked(data)
    # kastore's writer must reproduce tskit's bytes exactly, uuid apart.
    assert len(patched) == len(original)
    assert original.replace(old_uuid, FIXED_UUID.encode("ascii")) == patched
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "fixed.trees")
        Path(path).write_bytes(patched)
        assert tskit.load(path).file_uuid == FIXED_UUID
    summary = {
        "file_uuid": FIXED_UUID,
        "sequence_length": ts.sequence_length,
        "num_trees": ts.num_trees,
        "tables": {name: t.num_rows for name, t in ts.tables.table_name_map.items()},
        "format_version": [int(v) for v in data["format/version"]],
    }
    return patched, summary


def describe(data):
    """What the reference reads: every store of a file, read back to back."""
    stores = []
    with io.BytesIO(data) as f:
        while f.tell() < len(data):
            start = f.tell()
            store = kastore.load(f, read_all=True)
            items = [item_json(k, store[k]) for k in store]
            stores.append({"offset": start, "file_size": f.tell() - start, "items": items})
    return stores


def valid_fixtures():
    two = dumps_checked({"first": np.array([1, 2, 3], dtype="int16")})
    assert len(two) == 142
    two += dumps_checked({"second": np.arange(5, dtype="float32") / 4, "x": np.array([9], dtype="uint8")})
    trees, summary = fixed_uuid_trees()
    # The reference suites' base stores, which the Rust tests patch the way the Python
    # suite does (file_size, key and array starts, truncation), and the C suite's valid
    # v1/all_types_{n}_elements files (every type, n elements).
    suites = {f"suite_{n}_items.kas": n_items(n) for n in range(10)}
    suites["suite_one_item.kas"] = dumps_checked({"a": np.arange(100)})
    suites["suite_two_items.kas"] = dumps_checked({"a": np.arange(100), "b": []})
    for n in range(10):
        suites[f"all_types_{n}_elements.kas"] = dumps_checked(
            {t: np.arange(n).astype(t) for t in DTYPES})
    return suites | {
        "all_dtypes.kas": dumps_checked(extremes()),
        "empty.kas": dumps_checked({}),
        "empty_array.kas": dumps_checked({"empty": np.array([], dtype="float64")}),
        "control.kas": dumps_checked(
            {"a": np.arange(3, dtype="uint32"), "bb": np.arange(5, dtype="uint8")}
        ),
        "mixed_empty.kas": dumps_checked(mixed_empty()),
        "utf8_keys.kas": dumps_checked(utf8_keys()),
        "prefix_keys.kas": dumps_checked(sort_example()),
        "long_key.kas": dumps_checked({"k" * 1000: np.array([1], dtype="uint8"), "short": np.array([2.0])}),
        # A 13 KB file from the wild's shape: a 13,200-byte key of control characters,
        # 66,000 characters once escaped for display (beyond any formatting width).
        "long_control_key.kas": dumps_checked(
            {"\x01" * 13_200: np.array([1], dtype="uint8"), "nodes/time": np.array([0.5])}
        ),
        "two_stores.kas": two,
        "tree.trees": trees,
    }, {"tree.trees": summary}


# ------------------------------------------------------------ malformed stores


def pack(items):
    """The reference's own packing (descriptors and size) for `items`."""
    return kstore.pack_items(items)


def write(descriptors, file_size):
    f = io.BytesIO()
    kstore.write_file(f, descriptors, file_size)
    return f.getvalue()


def n_items(n):
    """The reference suites' n-item store: keys a, aa, aaa… with arange(j) (int64)."""
    return dumps_checked({"a" * (j + 1): np.arange(j) for j in range(n)})


def patch(data, offset, fmt, value):
    out = bytearray(data)
    struct.pack_into(fmt, out, offset, value)
    return bytes(out)


def crafted(items, change):
    descriptors, size = pack(items)
    change(descriptors)
    return write(descriptors, size)


def malformed_fixtures():
    """name -> (bytes, what the case is). Descriptor 0 is at 64, descriptor 1 at 128."""
    one_a = {"a": np.array([1], dtype="int8")}  # key at 128, array at 136, 137 bytes
    empty = dumps_checked({})
    ten = n_items(10)
    out = {}

    def add(name, data, case):
        out[name] = (data, case)

    # The C suite's test-data files.
    add("empty_file.kas", b"", "0 bytes: end of file, not a format error")
    add("bad_magic_number.kas", patch(empty, 0, "<Q", 0), "magic zeroed")
    add("bad_type_11.kas", crafted({"a": []}, lambda d: setattr(d[0], "type", 11)), "type 11")
    add("bad_type_20.kas", crafted({"a": []}, lambda d: setattr(d[0], "type", 20)), "type 20")
    add("version_0.kas", patch(empty, 8, "<H", 0), "major version 0")
    add("version_100.kas", patch(empty, 8, "<H", 100), "major version 100")
    for n, base in [(0, empty), (10, ten)]:
        for delta in [-1, 1, 1024]:
            add(f"bad_filesize_{n}_{delta}.kas", patch(base, 16, "<Q", len(base) + delta),
                f"{n} items, file_size {delta:+}")
    add("truncated_file.kas", ten[:150], "10 items cut at byte 150")
    big = 2**32
    add("key_offset_outside_file.kas", patch(dumps_checked(one_a), 64 + 8, "<Q", big), "key_start 2^32")
    add("key_len_outside_file.kas", patch(dumps_checked(one_a), 64 + 16, "<Q", big), "key_len 2^32")
    add("array_offset_outside_file.kas", patch(dumps_checked(one_a), 64 + 24, "<Q", big), "array_start 2^32")
    add("array_len_outside_file.kas", patch(dumps_checked(one_a), 64 + 32, "<Q", big), "array_len 2^32")
    for delta in [-1, 1]:
        add(f"bad_key_start_{delta}.kas", patch(dumps_checked(one_a), 64 + 8, "<Q", 128 + delta),
            f"key_start 128{delta:+}")
    for delta in [-8, -1, 1, 8]:
        add(f"bad_array_start_{delta}.kas", patch(dumps_checked(one_a), 64 + 24, "<Q", 136 + delta),
            f"array_start 136{delta:+}")
    for size in [100, 128, 129, 200]:
        add(f"truncated_file_correct_size_{size}.kas", patch(ten, 16, "<Q", size)[:size],
            f"file_size {size} and the file cut to match")

    # Further cases of the C and Python suites.
    u64 = {"a": np.array([1], dtype="uint64")}
    add("array_len_overflow.kas", patch(dumps_checked(u64), 64 + 32, "<Q", 2**61),
        "uint64 array_len 2^61: its byte size wraps to 0 in 64 bits")
    add("key_len_overflow.kas", patch(dumps_checked(one_a), 64 + 16, "<Q", 2**64 - 1), "key_len u64::MAX")
    # Zero key_len with everything else consistent: no key bytes, the array right after
    # the descriptor at 128, file_size 129.
    zero = dumps_checked(one_a)
    zero = zero[:128] + zero[136:]
    for offset, value in [(16, 129), (64 + 16, 0), (64 + 24, 128)]:
        zero = patch(zero, offset, "<Q", value)
    add("zero_key_len.kas", zero, "key_len 0, the rest consistent with it")
    for n in [1, 32, 63]:
        add(f"short_header_{n}.kas", bytes(n), f"{n} zero bytes")
    add("descriptors_truncated.kas", n_items(3)[: 3 * 64 - 1], "3 items, cut inside the descriptors")
    add("data_truncated.kas", n_items(3)[:-1], "3 items, last byte missing")
    add("bad_magic_12345678.kas", b"12345678" + empty[8:], "magic b'12345678'")
    add("version_2.kas", patch(empty, 8, "<H", 2), "major version 2")
    two_items = {"a": np.arange(100), "b": []}
    add("key_not_sequential.kas",
        crafted(two_items, lambda d: setattr(d[1], "key_start", d[1].key_start + 1)),
        "second key_start + 1")
    add("array_not_sequential.kas",
        crafted(two_items, lambda d: setattr(d[1], "array_start", d[1].array_start + 8)),
        "second array_start + 8")
    int8s = {"a": np.arange(100, dtype=np.int8), "b": []}

    def misalign(d):
        d[0].array_start += 1
        d[0].array_len -= 1

    def gap(d):
        d[0].array_start += 8
        d[0].array_len -= 8

    add("array_misaligned.kas", crafted(int8s, misalign), "array_start + 1, array_len - 1")
    add("array_gap.kas", crafted(int8s, gap), "array_start + 8, array_len - 8: a gap before the array")
    add("num_items_max.kas", patch(empty, 12, "<I", 2**32 - 1), "num_items 0xFFFFFFFF in a 64-byte file")
    add("bad_type_10.kas", crafted({"a": []}, lambda d: setattr(d[0], "type", 10)), "type 10")
    add("bad_type_255.kas", crafted({"a": []}, lambda d: setattr(d[0], "type", 255)), "type 255")
    ab = dumps_checked({"a": np.array([1], dtype="int8"), "b": np.array([2], dtype="int8")})
    assert ab[192:194] == b"ab"
    add("unsorted_keys.kas", ab[:192] + b"ba" + ab[194:], "keys b, a in file order")
    add("duplicate_keys.kas", ab[:192] + b"aa" + ab[194:], "key a twice")
    add("trailing_garbage.kas", dumps_checked(one_a) + b"garbage!", "a valid store, then 8 bytes that are no store")
    return out


# Inputs that are well-formed for every reader, but unusual.
def quirk_fixtures():
    one_a = dumps_checked({"a": np.array([1], dtype="int8"), "b": np.array([1, 2], dtype="int32")})
    noisy = bytearray(one_a)
    noisy[24:64] = b"\xaa" * 40  # header reserved
    noisy[65:72] = b"\xbb" * 7  # descriptor 0, bytes 1..7
    noisy[128 + 40:128 + 64] = b"\xcc" * 24  # descriptor 1, bytes 40..63
    noisy[194:200] = b"\xdd" * 6  # padding after the keys
    noisy[201:208] = b"\xee" * 7  # padding after array a
    nul = dumps_checked({"a\0b": np.array([1], dtype="uint8")})
    bad_utf8 = bytearray(dumps_checked({"ab": np.array([1], dtype="uint8")}))
    bad_utf8[128:130] = b"\xff\xfe"
    return {
        "minor_65535.kas": (patch(one_a, 10, "<H", 65535), "minor version 65535"),
        "nonzero_reserved.kas": (bytes(noisy), "reserved and padding bytes not zero"),
        "nul_in_key.kas": (nul, "a key containing a NUL byte"),
        "invalid_utf8_key.kas": (bytes(bad_utf8), "a key that is not UTF-8"),
    }


# ------------------------------------------------------- running the readers

ENGINES = [("python", kastore.PY_ENGINE, False), ("python_read_all", kastore.PY_ENGINE, True),
           ("c", kastore.C_ENGINE, False), ("c_read_all", kastore.C_ENGINE, True)]


def probe_one(path, engine, read_all):
    try:
        store = kastore.load(path, engine=engine, read_all=read_all)
        n = 0
        for key in store:
            np.asarray(store[key])
            n += 1
        return {"result": "ok", "items": n}
    except Exception as e:  # noqa: BLE001 - the point is to record whatever happens
        return {"result": type(e).__name__, "message": str(e)}


def c_code(outcome):
    """The C library's return code behind a C-engine outcome."""
    r, msg = outcome["result"], outcome.get("message", "")
    if r == "ok":
        return 0
    if r == "FileFormatError":
        return -8 if msg == "Unknown data type" else -5
    codes = {"VersionTooOldError": -6, "VersionTooNewError": -7, "EOFError": -14, "OSError": -2}
    if r in codes:
        return codes[r]
    if r == "ValueError" and msg.startswith("Error occured: "):
        return int(msg.split(":")[1])
    return None


def run_probe(args):
    child = subprocess.run([sys.executable, __file__, "--probe", *args], capture_output=True, text=True)
    if child.returncode < 0:
        return None, -child.returncode
    if child.returncode != 0:
        raise RuntimeError(f"probe {args} failed:\n{child.stderr}")
    return json.loads(child.stdout), 0


def probe(path):
    """Runs every reader on `path` in a child process (the lazy C engine can crash); after
    a crash, runs each reader in a child of its own to see which one crashed."""
    results, signal = run_probe([str(path)])
    if results is None:
        results = {}
        for name, _, _ in ENGINES:
            one, signal = run_probe([str(path), name])
            results[name] = one[name] if one else {"result": "crash", "signal": signal}
    for name in ["c", "c_read_all"]:
        results[name]["code"] = c_code(results[name]) if results[name]["result"] != "crash" else None
    return results


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--probe":
        wanted = sys.argv[3:] or [name for name, _, _ in ENGINES]
        print(json.dumps({name: probe_one(sys.argv[2], engine, read_all)
                          for name, engine, read_all in ENGINES if name in wanted}))
        return
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "crates/kastore/tests/fixtures"
    for sub in ["valid", "malformed"]:
        (out / sub).mkdir(parents=True, exist_ok=True)
        for old in (out / sub).iterdir():
            old.unlink()
    expected = {
        "generator": "tools/kastore/make_fixtures.py",
        "reference": {"kastore": kastore.__version__, "tskit": __import__("tskit").__version__,
                      "numpy": np.__version__},
        "valid": {},
        "malformed": {},
    }
    valid, summaries = valid_fixtures()
    for name, data in valid.items():
        (out / "valid" / name).write_bytes(data)
        entry = {"size": len(data), "stores": describe(data)}
        if name in summaries:
            entry["tskit"] = summaries[name]
        expected["valid"][name] = entry
    for group, cases in [("malformed", malformed_fixtures()), ("quirk", quirk_fixtures())]:
        for name, (data, case) in cases.items():
            path = out / "malformed" / name
            path.write_bytes(data)
            expected["malformed"][name] = {"group": group, "case": case, "size": len(data),
                                           "reference": probe(path)}
    (out / "expected.json").write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(valid)} valid and {len(expected['malformed'])} malformed or quirky fixtures to {out}")


if __name__ == "__main__":
    main()
