"""Read a .taridx written by the Rust crate back with Python, and check every row against
Python's tarfile view of the shards.

    python tools/taridx/check_index.py [--glzn-loadable] INDEX SHARD...

glzn itself is not on PyPI, so the reader here follows glzn's loader (numpy structured
dtype over the unaligned rows, blocks decoded as UTF-8) and additionally applies the
format's strict rules. Checks:

* header: magic, version 1.x, rec_size 32, hdr_size 64, offsets, exact row-region length;
* blocks split on '\\n' give n_ext / n_crash entries; with --glzn-loadable, glzn's own
  whitespace split must agree too (glzn's loader would accept the file);
* every row points at a regular, non-sparse tarfile member of shard `fid` whose last
  header is at `offset`, with the same size and the same payload bytes; its stem hashes
  (pure-Python XXH64, seed 0) to keyhash, its crash id matches the crash block, and its
  lower-cased extension is extension `extid`;
* every regular, non-sparse member with a non-empty stem and extension has a row;
* n_stems and flag bit 0 match the rows.

Prints "OK: N rows" and exits 0, or prints the problems and exits 1.
"""

import struct
import sys
import tarfile

import numpy as np

from xxh64 import xxh64

ROW = np.dtype([("fid", "<u2"), ("offset", "<u8"), ("size", "<u8"), ("extid", "<u2"),
                ("crashid", "<u4"), ("keyhash", "<u8")])
assert ROW.itemsize == 32


def split_name(name):
    base = name.rsplit("/", 1)[-1]
    stem, dot, ext = base.partition(".")
    return stem, ext.lower()


def main(argv):
    glzn_loadable = "--glzn-loadable" in argv
    args = [a for a in argv if a != "--glzn-loadable"]
    index_path, shard_paths = args[0], args[1:]
    data = open(index_path, "rb").read()
    problems = []

    def problem(msg):
        problems.append(msg)

    (magic, major, minor, rec_size, hdr_size, n_stems, n_rows, n_ext, n_crash, off_crash,
     off_arr, flags) = struct.unpack_from("<8sHHHHQQIIQQB", data, 0)
    if magic != b"TARIDX\0\0":
        problem(f"magic {magic!r}")
    if major != 1 or rec_size != 32 or hdr_size != 64:
        problem(f"version {major}.{minor}, rec_size {rec_size}, hdr_size {hdr_size}")
    if not 64 <= off_crash <= off_arr <= len(data) or len(data) - off_arr != 32 * n_rows:
        problem(f"offsets {off_crash} {off_arr}, length {len(data)}, n_rows {n_rows}")
        print("\n".join(problems))
        return 1
    ext_text = data[64:off_crash].decode("utf-8")
    crash_text = data[off_crash:off_arr].decode("utf-8")
    exts = ext_text.split("\n") if n_ext else []
    crash = crash_text.split("\n") if n_crash else []
    if len(exts) != n_ext or (n_ext == 0 and ext_text):
        problem(f"extension block holds {len(exts)} entries, header says {n_ext}")
    if len(crash) != n_crash or (n_crash == 0 and crash_text):
        problem(f"crash block holds {len(crash)} entries, header says {n_crash}")
    if glzn_loadable and (len(ext_text.split()) != n_ext or crash_text.split() != crash):
        problem("glzn's loader (str.split on whitespace) would reject or misread this index")
    rows = np.frombuffer(data, dtype=ROW, count=n_rows, offset=off_arr)

    members = {}  # (fid, header offset) -> (TarInfo, shard path)
    expected = set()
    for fid, path in enumerate(shard_paths):
        with tarfile.open(path, "r:") as tf:
            for m in tf:
                key = (fid, m.offset_data - 512)
                members[key] = (m, path)
                stem, ext = split_name(m.name)
                if m.isreg() and not m.issparse() and stem and ext:
                    expected.add(key)

    crash_ids = {s: i + 1 for i, s in enumerate(crash)}
    seen = set()
    for i, r in enumerate(rows):
        key = (int(r["fid"]), int(r["offset"]))
        seen.add(key)
        if key not in members:
            problem(f"row {i}: no tar member has its last header at {key[1]} in shard {key[0]}")
            continue
        m, path = members[key]
        stem, ext = split_name(m.name)
        if not m.isreg() or m.issparse():
            problem(f"row {i}: {m.name!r} is not a regular, non-sparse file")
        if int(r["size"]) != m.size:
            problem(f"row {i}: size {int(r['size'])}, tarfile says {m.size}")
        if xxh64(stem.encode("utf-8")) != int(r["keyhash"]):
            problem(f"row {i}: keyhash {int(r['keyhash']):016x} is not XXH64({stem!r})")
        if crash_ids.get(stem, 0) != int(r["crashid"]):
            problem(f"row {i}: crashid {int(r['crashid'])} for stem {stem!r}")
        if int(r["extid"]) >= len(exts) or exts[int(r["extid"])] != ext:
            problem(f"row {i}: extid {int(r['extid'])} is not extension {ext!r}")
        if m.isreg() and not m.issparse():
            with open(path, "rb") as f:
                f.seek(int(r["offset"]) + 512)
                payload = f.read(int(r["size"]))
            with tarfile.open(path, "r:") as tf:
                if payload != tf.extractfile(m).read():
                    problem(f"row {i}: payload bytes differ from tarfile's for {m.name!r}")
    for key in sorted(expected - seen):
        problem(f"member {members[key][0].name!r} of shard {key[0]} at {key[1]} has no row")

    keys = [(int(r["keyhash"]), int(r["crashid"])) for r in rows]
    distinct = len(set(keys))
    runs = sum(1 for j, k in enumerate(keys) if j == 0 or keys[j - 1] != k)
    if distinct != n_stems:
        problem(f"n_stems {n_stems}, rows hold {distinct} distinct keys")
    if bool(flags & 1) != (runs == distinct):
        problem(f"flag bit 0 is {flags & 1}, rows have {runs} runs of {distinct} keys")

    if problems:
        print("\n".join(problems))
        return 1
    print(f"OK: {n_rows} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
