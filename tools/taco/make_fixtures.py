#!/usr/bin/env python3
"""Make the TACO interop fixtures with the reference implementation, tacozip 0.13.0.

Usage: python tools/taco/make_fixtures.py [OUT_DIR]
(default OUT_DIR: crates/taco-header/tests/fixtures)

Each archive is made by tacozip.create (and tacozip.update_header for the updated one).
Next to the archives, expected.json records what the reference reports for each:
tacozip.read_header's entries, and Python zipfile's view of the members (name, size,
CRC, and the data offset computed from each local header), which our tests compare
against. Member mtimes are fixed with os.utime so that member entries are reproducible;
the header's own DOS time is tacozip's creation time and differs between runs.
"""
import json
import os
import struct
import sys
import tempfile
import zipfile
from pathlib import Path

import tacozip

assert tacozip.get_library_version() == "0.13.0", tacozip.get_library_version()

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "crates/taco-header/tests/fixtures"
MTIME = 1_700_000_000  # fixed member mtime

THREE = [(157, 13), (1000, 1000), (2**32 + 5, 0x0102030405060708)]
SEVEN = [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (2**64 - 1, 2**64 - 1),
         (0x1122334455667788, 0x99AABBCCDDEEFF00)]


def source(tmp, name, data):
    path = Path(tmp) / name.replace("/", "_")
    path.write_bytes(data)
    os.utime(path, (MTIME, MTIME))
    return str(path)


def create(out, members, entries):
    with tempfile.TemporaryDirectory() as tmp:
        srcs = [source(tmp, f"{i}_{name}", data) for i, (name, data) in enumerate(members)]
        tacozip.create(str(out), srcs, [name for name, _ in members], entries)


def zip_view(path):
    """Members as Python's zipfile sees them, with data offsets from the local headers."""
    raw = path.read_bytes()
    members = []
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None, path
        for info in z.infolist():
            lfh = info.header_offset
            name_len, extra_len = struct.unpack_from("<HH", raw, lfh + 26)
            members.append({
                "name": info.filename,
                "size": info.file_size,
                "crc32": info.CRC,
                "local_header_offset": lfh,
                "data_offset": lfh + 30 + name_len + extra_len,
                "utf8_flag": bool(info.flag_bits & 0x800),
            })
    return members


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    made = {}

    # count 0: entries=None is stored as count 0.
    create(OUT / "zero_entries.taco", [("a.txt", b"hello\n")], None)
    # count 3: the reference's CRC vector, an empty member and a non-ASCII name.
    create(OUT / "three_entries.taco",
           [("METADATA/level0.parquet", b"PAR1" + bytes(range(64)) + b"PAR1"),
            ("empty.bin", b""),
            ("DATA/ñandú_日本.txt", "ñandú 日本\n".encode())],
           THREE)
    # count 7: every slot used, extreme values included.
    create(OUT / "seven_entries.taco", [("x.bin", bytes(200))], SEVEN)
    # A lone empty member.
    create(OUT / "empty_member.taco", [("empty.txt", b"")], [(0, 1)])
    # A member whose data contains the ZIP64 locator signature near the end: tacozip's
    # update_header takes it for a locator; ours must not.
    create(OUT / "false_zip64.taco", [("trap.bin", b"x" * 100 + b"PK\x06\x07" + bytes(16))], [(1, 1)])

    # The way real writers use it: placeholders at creation, then update_header with
    # (data offset, size) of each member, in place.
    create(OUT / "updated.taco",
           [("METADATA/level0.parquet", b"A" * 300), ("METADATA/level1.parquet", b"B" * 200),
            ("COLLECTION.json", b'{"type": "collection"}')],
           [(0, 0)] * 3)
    view = zip_view(OUT / "updated.taco")
    tacozip.update_header(str(OUT / "updated.taco"),
                          [(m["data_offset"], m["size"]) for m in view[1:]])

    # Not TACO archives: an ordinary ZIP file and a text file. update must refuse both
    # without changing a byte (tacozip overwrites bytes 14-17 and 41-156 of both).
    with zipfile.ZipFile(OUT / "plain.zip", "w", zipfile.ZIP_STORED) as z:
        info = zipfile.ZipInfo("readme.txt", date_time=(2020, 1, 1, 0, 0, 0))
        z.writestr(info, "an ordinary zip file, long enough to hold a fake TACO header " * 4)
    (OUT / "not_a_zip.txt").write_text("just text, " * 40)

    for path in sorted(OUT.glob("*.taco")):
        made[path.name] = {
            "entries": [list(e) for e in tacozip.read_header(str(path))],
            "header_from_bytes": [list(e) for e in tacozip.read_header(path.read_bytes()[:157])],
            "members": zip_view(path),
        }
    (OUT / "expected.json").write_text(json.dumps(made, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(made)} archives and expected.json to {OUT}")


if __name__ == "__main__":
    main()
