"""Check that bloscpack 0.16.0 reads files that bloscpack-header wrote.

    python tools/bloscpack/check_read.py FILE.blp INPUT [FILE.blp INPUT ...]

For each pair, bloscpack unpacks FILE.blp (checking every digest, as it does) and the
result must equal the bytes of INPUT. Prints one JSON object per file with what
bloscpack reports (refcompat.describe) and exits 1 if any file fails.
"""

import hashlib
import json
import sys

import refcompat


def main(args):
    if len(args) % 2:
        sys.exit("usage: check_read.py FILE.blp INPUT [FILE.blp INPUT ...]")
    failed = False
    for blp, raw in zip(args[::2], args[1::2]):
        with open(raw, "rb") as f:
            want = f.read()
        report = refcompat.describe(blp)
        report["file"] = blp
        report["matches_input"] = bool(
            report["ok"]
            and report["unpacked_len"] == len(want)
            and report["unpacked_sha256"] == hashlib.sha256(want).hexdigest()
            and all(c["digest_ok"] for c in report["chunks"])
        )
        failed |= not report["matches_input"]
        print(json.dumps(report, sort_keys=True))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
