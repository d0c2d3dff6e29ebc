#!/usr/bin/env python3
"""Make a ZIP64-by-count archive (70,000 members) with tacozip 0.13.0, for a test.

Usage: python tools/taco/make_zip64_by_count.py OUT.taco [COUNT]

libzip writes a ZIP64 end record and locator once there are more than 65,535 entries,
but keeps real 32-bit values in the classic record's size and offset fields. Too large
to commit (about 7 MB) and slow to make (about 7 s), so tests make it when the reference
is available. Prints the JSON {"entries": [...], "members": N}.
"""
import json
import os
import sys
import tempfile
import zipfile

import tacozip

out = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 70_000
with tempfile.TemporaryDirectory() as tmp:
    srcs = []
    for i in range(count):
        p = os.path.join(tmp, f"{i}")
        with open(p, "wb") as f:
            f.write(b"%04d" % (i % 10_000))
        srcs.append(p)
    tacozip.create(out, srcs, [f"m/{i:06d}" for i in range(count)], [(11, 22), (33, 44)])
with zipfile.ZipFile(out) as z:
    members = len(z.infolist())
print(json.dumps({"entries": [list(e) for e in tacozip.read_header(out)], "members": members}))
