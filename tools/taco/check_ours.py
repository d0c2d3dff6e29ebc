#!/usr/bin/env python3
"""Read archives written or updated by binfmt with the reference implementation.

Usage: python tools/taco/check_ours.py ARCHIVE...

For each archive: tacozip 0.13.0's read_header (from the path, and from the first 157
bytes), and Python zipfile's testzip() (every member's CRC) and member list. Prints one
JSON object mapping each path to what the reference saw; exits 1 if any check fails.
"""
import json
import sys
import zipfile

import tacozip

result, ok = {}, True
for path in sys.argv[1:]:
    seen = {}
    try:
        seen["entries"] = [list(e) for e in tacozip.read_header(path)]
        with open(path, "rb") as f:
            seen["header_from_bytes"] = [list(e) for e in tacozip.read_header(f.read(157))]
        with zipfile.ZipFile(path) as z:
            bad = z.testzip()
            seen["testzip"] = bad
            seen["members"] = [[i.filename, i.file_size] for i in z.infolist()]
            if bad is not None:
                ok = False
    except Exception as e:  # report every failure, keep going
        seen["error"] = f"{type(e).__name__}: {e}"
        ok = False
    result[path] = seen
print(json.dumps(result, ensure_ascii=False))
sys.exit(0 if ok else 1)
