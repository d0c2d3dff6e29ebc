"""Make the tar edge-case fixtures of the taridx crate, and record what Python's tarfile
(and GNU tar, when installed) make of each.

    python tools/taridx/make_fixtures.py OUT_DIR

writes OUT_DIR/<case>_0000.tar (one fold per case; the `gap` fold has three shards, the
middle one empty) and OUT_DIR/expected.json, the references' view of each shard (see
tar_view.py). Everything is deterministic except the GNU tar POSIX sparse shards
(sparsepax, sparsepax1), whose raw header name embeds the process id
(`GNUSparseFile.<pid>/holes.jpg`).
"""

import bz2
import gzip
import io
import json
import lzma
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile

from tar_view import find_gnutar, view

MTIME = 1_700_000_000


def info(name, data=b"", type_=tarfile.REGTYPE, mtime=MTIME):
    ti = tarfile.TarInfo(name)
    ti.size = len(data) if type_ in (tarfile.REGTYPE, tarfile.AREGTYPE) else 0
    ti.mtime = mtime
    ti.mode = 0o644
    ti.type = type_
    ti.uid = ti.gid = 0
    ti.uname = ti.gname = ""
    return ti


def make_tar(members, fmt=tarfile.USTAR_FORMAT, **kw):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=fmt, **kw) as tf:
        for name, data, *rest in members:
            ti = info(name, data, *rest)
            tf.addfile(ti, io.BytesIO(data) if ti.isreg() else None)
    return bytearray(buf.getvalue())


def fix_checksum(tar, at):
    block = tar[at:at + 512]
    block[148:156] = b" " * 8
    tar[at + 148:at + 156] = b"%06o\0 " % sum(block)


def pax_record(key, value):
    body = f" {key}={value}\n".encode()
    n = len(body) + 1
    while len(str(n)) + len(body) != n:
        n += 1
    return str(n).encode() + body


def sample(stem, size=10):
    return [(f"{stem}.cls", b"7"), (f"{stem}.jpg", bytes(range(256)) * (size // 256) + b"J" * (size % 256))]


def cases(gnutar):
    out = {}
    # base-256 size of 1000 bytes, written by hand: Python writes base-256 only when
    # octal overflows.
    t = make_tar([("b256.jpg", b"x" * 1000), ("b256.cls", b"1")])
    t[124:136] = b"\x80" + (1000).to_bytes(11, "big")
    fix_checksum(t, 0)
    out["base256"] = [t]
    # base-256 size of 9 GiB in a small file: truncated.
    t = make_tar([("big.jpg", b"x" * 100)])
    t[124:136] = b"\x80" + (9 << 30).to_bytes(11, "big")
    fix_checksum(t, 0)
    out["base256big"] = [t]
    # Octal variants: space-padded, and a full 12-digit size with no terminator.
    t = make_tar([("oct1.jpg", b"a" * 20), ("oct2.jpg", b"b" * 30)])
    t[124:136] = b"     24     "
    fix_checksum(t, 0)
    t[1024 + 124:1024 + 136] = b"000000000036"
    fix_checksum(t, 1024)
    out["octal"] = [t]
    # A bad checksum in the second header.
    t = make_tar(sample("s1") + sample("s2"))
    t[1024 + 148:1024 + 156] = b"0000000\0"
    out["badsum"] = [t]
    # A payload cut at 300 of its 1000 bytes.
    t = make_tar([("cut.cls", b"1"), ("cut.jpg", b"z" * 1000)])
    out["truncated"] = [t[:1024 + 512 + 300]]
    # No end-of-archive blocks at all.
    t = make_tar(sample("nm"))
    out["nomarker"] = [t[:2048]]
    # One zero block, then EOF.
    out["lonezero"] = [t[:2048 + 512]]
    # Two archives concatenated (each with its end marker and record padding).
    out["concat"] = [make_tar(sample("c1")) + make_tar(sample("c2"))]
    # Bytes after the end-of-archive marker.
    out["trailing"] = [make_tar(sample("tr")) + b"junk"]
    # Fewer than 512 bytes after the last member and no end marker: GNU tar drops a
    # partial block at the end of an archive, and tarfile stops there.
    out["partial"] = [t[:2048] + b"\0" * 60 + b"partial block" + b"\0" * 27]
    # Compressed tars given as shards (one fold each): a small one (< 512 bytes, which an
    # indexer that does not look would take for an empty shard) for each compressor.
    small = bytes(make_tar(sample("z", size=3)))
    out["gzip"] = [bytearray(gzip.compress(small, mtime=0))]
    out["bzip2"] = [bytearray(bz2.compress(small))]
    out["xz"] = [bytearray(lzma.compress(small))]
    out["zstd"] = [zstd_raw(small)]
    # pax size=1000 while the ustar size field says 0.
    # Built by hand: an `x` header whose only record is size=1000.
    rec = pax_record("size", "1000")
    x = info("./PaxHeaders/ps.jpg", rec)
    x.type = tarfile.XHDTYPE
    buf = io.BytesIO()
    buf.write(x.tobuf(tarfile.USTAR_FORMAT))
    buf.write(rec + b"\0" * (512 - len(rec)))
    hdr = bytearray(info("ps.jpg", b"").tobuf(tarfile.USTAR_FORMAT))
    buf.write(bytes(hdr))
    buf.write(b"p" * 1000 + b"\0" * 24)
    rest = make_tar([("ps.cls", b"1")])
    buf.write(bytes(rest))
    out["paxsize"] = [bytearray(buf.getvalue())]
    # v7: no magic, typeflag NUL, and an old-style directory (NUL type, trailing slash).
    t = make_tar([("v7dir/", b"", tarfile.DIRTYPE), ("v7dir/v7.jpg", b"v" * 40), ("v7dir/v7.cls", b"1")])
    for at in (0, 512, 1536):
        t[at + 156] = 0
        t[at + 257:at + 265] = b"\0" * 8
        t[at + 265:at + 500] = b"\0" * 235
        fix_checksum(t, at)
    out["v7"] = [t]
    # Invalid UTF-8 in a GNU-format name (raw bytes).
    t = make_tar([("bad\xff.jpg", b"q")], fmt=tarfile.GNU_FORMAT, encoding="latin-1")
    out["badutf8"] = [t]
    # Two GNU long-name headers before one member: the last one wins.
    long1 = "l" * 120 + "/first.jpg"
    long2 = "m" * 120 + "/second.jpg"
    t1 = make_tar([(long1, b"1")], fmt=tarfile.GNU_FORMAT)
    t2 = make_tar([(long2, b"2")], fmt=tarfile.GNU_FORMAT)
    # [L long1][data long1][L long2][data long2][real header of long2][payload] ...
    t = t1[:1024] + t2
    out["twolong"] = [t]
    # An empty shard between two others: strict keeps shard ids 0 and 2, glzn 0 and 1.
    out["gap"] = [make_tar(sample("g1")), make_tar([]), make_tar(sample("g2"))]
    # webdataset's TarWriter writes float mtimes, so Python adds a pax header per member.
    wds = []
    for i in range(3):
        for ext, data in (("cls", b"%d" % i), ("jpg", b"J" * (100 + i)), ("json", b"{}")):
            wds.append((f"{i:06d}.{ext}", data, tarfile.REGTYPE, MTIME + 0.25))
    out["wds"] = [make_tar(wds, fmt=tarfile.PAX_FORMAT)]
    if gnutar:
        out.update(gnu_sparse(gnutar))
    return out


def zstd_raw(data):
    """A Zstandard frame of raw (stored) blocks, written by hand: no zstd module needed."""
    assert 256 <= len(data) < 65536 + 256
    frame = bytearray(b"\x28\xb5\x2f\xfd")
    # Frame header descriptor: 2-byte content size, single segment, no checksum, no dict.
    frame.append(0b0110_0000)
    frame += struct.pack("<H", len(data) - 256)
    for at in range(0, len(data), 1 << 17):
        block = data[at:at + (1 << 17)]
        last = at + len(block) == len(data)
        frame += struct.pack("<I", (len(block) << 3) | int(last))[:3]
        frame += block
    return frame


def gnu_sparse(gnutar):
    """GNU tar --sparse in GNU format and in POSIX format (sparse 0.1 and 1.0)."""
    out = {}
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "holes.jpg"), "wb") as f:
            f.write(b"S" * 4096)
            f.seek(256 * 1024)
            f.write(b"T" * 4096)
            f.truncate(512 * 1024)
        with open(os.path.join(d, "holes.cls"), "wb") as f:
            f.write(b"3")
        os.utime(os.path.join(d, "holes.jpg"), (MTIME, MTIME))
        os.utime(os.path.join(d, "holes.cls"), (MTIME, MTIME))
        common = ["--sparse", "--mtime=@%d" % MTIME, "--owner=0", "--group=0", "--numeric-owner",
                  "--sort=name", "-C", d]
        for case, extra in (
            ("sparsegnu", ["--format=gnu"]),
            ("sparsepax", ["--format=posix", "--sparse-version=0.1",
                           "--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime"]),
            ("sparsepax1", ["--format=posix", "--sparse-version=1.0",
                            "--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime"]),
        ):
            path = os.path.join(d, case + ".tar")
            subprocess.run([gnutar, "-cf", path, *common, *extra, "holes.cls", "holes.jpg"], check=True)
            with open(path, "rb") as f:
                out[case] = [bytearray(f.read())]
    return out


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    gnutar = find_gnutar()
    expected = {}
    for case, shards in sorted(cases(gnutar).items()):
        for i, data in enumerate(shards):
            name = f"{case}_{i:04d}.tar"
            path = os.path.join(out_dir, name)
            with open(path, "wb") as f:
                f.write(bytes(data))
            expected[name] = view(path, gnutar)
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
