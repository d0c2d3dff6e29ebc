"""The reference `blpk` command (bloscpack 0.16.0's CLI) with the Python 3.10+ shim.

Usage: python tools/bloscpack/blpk.py [blpk arguments], e.g. `-n 1 decompress IN OUT`.
The benchmark times this to compare with `binfmt bloscpack unpack`.
"""

import sys

import refcompat  # noqa: F401  (applies the shim)
from bloscpack import cli

if __name__ == "__main__":
    sys.argv[0] = "blpk"
    cli.main()
