"""Make a file whose last chunk holds one whole element less than last_chunk.

    /work/venv/bin/python tools/bloscpack/make_short_last.py [OUT_DIR]

The first fix for bloscpack 0.11 and 0.13 assumed they compressed one element (typesize
bytes) too few of the last chunk. They do not: their last chunk holds last_chunk rounded
down to whole elements, 1 to typesize - 1 bytes short (tools/bloscpack/make_legacy.py makes
real ones). So this file, which no release writes, is a negative fixture: a size mismatch
our reader refuses (bloscpack 0.16 unpacks it short). This script packs
`np.arange(1000, dtype='<f8')` with bloscpack 0.16 (3,000-byte chunks: 3000, 3000, 2000),
then recompresses the last chunk without its last element and rewrites its digest. It
writes

* `short_last_0_11.blp`: the file;
* `short_last_0_11.bin`: the 7,992 bytes its chunks hold (what bloscpack 0.16 unpacks);
* `short_last_0_11.json`: what bloscpack 0.16 reports for it (refcompat.describe).

`make_fixtures.py` runs it after the other fixtures (it empties the directory first).
"""

import json
import os
import struct
import sys
import zlib

import numpy as np

import refcompat
from refcompat import bp

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def make(out):
    data = np.arange(1000, dtype="<f8")
    path = os.path.join(out, "short_last_0_11.blp")
    bp.pack_ndarray_to_file(data, path, chunk_size=3000)
    with open(path, "rb") as f:
        blob = bytearray(f.read())
    # The offsets section follows the metadata section; its last used entry is chunk 2.
    with open(path, "rb") as fp:
        header, _, _, offsets = refcompat.file_io._read_beginning(fp)
    assert header.nchunks == 3 and header.last_chunk == 2000 and len(offsets) == 3
    last_at = offsets[-1]
    raw = data.tobytes()[6000:-8]  # one element short
    chunk = refcompat.blosc.compress(raw, typesize=8, clevel=7, shuffle=refcompat.blosc.SHUFFLE,
                                     cname="blosclz")
    digest = struct.pack("<I", zlib.adler32(chunk) & 0xffffffff)
    blob = blob[:last_at] + chunk + digest
    with open(path, "wb") as f:
        f.write(bytes(blob))
    with open(os.path.join(out, "short_last_0_11.bin"), "wb") as f:
        f.write(data.tobytes()[:-8])
    with open(os.path.join(out, "short_last_0_11.json"), "w") as f:
        json.dump(refcompat.describe(path), f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    make(sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        ROOT, "crates", "bloscpack-header", "tests", "fixtures"))
