#!/usr/bin/env python3
"""What `binfmt inspect` of a TACO archive shows, done with the reference tools: the
header's entries with tacozip 0.13 (`tacozip.read_header`) and the member list with
Python's zipfile (`ZipFile(path).infolist()`, which reads the end records and the whole
central directory, one ZipInfo per member).

Usage: python tools/taco/inspect_reference.py ARCHIVE

Prints {"entries": N, "members": N} as JSON. The taco_header bench spawns it, end to end
(interpreter start-up included, as `binfmt inspect` is spawned), in the same run as the
binfmt binary.
"""
import json
import sys
import zipfile

import tacozip

path = sys.argv[1]
entries = tacozip.read_header(path)
with zipfile.ZipFile(path) as z:
    members = len(z.infolist())
print(json.dumps({"entries": len(entries), "members": members}))
