"""Let bloscpack 0.16.0 append to a file that bloscpack-header wrote, then unpack it.

    python tools/bloscpack/check_append.py FILE.blp INPUT EXTRA

bloscpack's `append` adds the bytes of EXTRA to FILE.blp in place (it needs the offsets
section and spare slots we wrote); then bloscpack unpacks FILE.blp, which must give
INPUT followed by EXTRA. Prints what bloscpack reports afterwards, as JSON.
"""

import hashlib
import json
import sys

import refcompat
from bloscpack import append as bp_append


def main(blp, raw, extra):
    with open(raw, "rb") as f:
        want = f.read()
    with open(extra, "rb") as f:
        want += f.read()
    bp_append.append(blp, extra)
    report = refcompat.describe(blp)
    print(json.dumps(report, sort_keys=True))
    ok = report["ok"] and report["unpacked_sha256"] == hashlib.sha256(want).hexdigest()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main(*sys.argv[1:])
