"""Reads MLDF files with the independent Python reader (tools/mldf/mldf_ref.py), runs
whole-file verification on each (every check, CRC and slot), and prints one JSON dump per
line. Exits non-zero on the first file with a problem.

    python tools/mldf/check_read.py FILE...
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mldf_ref  # noqa: E402

if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    for path in sys.argv[1:]:
        print(json.dumps(mldf_ref.dump(path), sort_keys=True))
