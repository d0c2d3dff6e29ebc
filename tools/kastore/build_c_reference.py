#!/usr/bin/env python3
"""Builds the reference kastore C library into a shared object for the benchmark.

    python tools/kastore/build_c_reference.py OUT_DIR

Downloads the kastore 0.3.6 source distribution with pip (once; kept in OUT_DIR), checks
its SHA-256, and compiles its C library (lib/kastore.c) together with kasbench.c, a
two-function driver, with `gcc -O2`. Prints the path of the shared object. Needs pip's
access to PyPI the first time, and gcc.
"""

import hashlib
import subprocess
import sys
import tarfile
from pathlib import Path

SDIST = "kastore-0.3.6.tar.gz"
SHA256 = "d0cc3956d9b5211bc965241788de2524e935d7f2ef12ae7acaf8d99f2f4e09cc"
HERE = Path(__file__).resolve().parent


def main():
    out = Path(sys.argv[1]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    sdist = out / SDIST
    if not sdist.exists():
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", "kastore",
             "--no-deps", "kastore==0.3.6", "-d", str(out)],
            check=True, stdout=sys.stderr,
        )
    digest = hashlib.sha256(sdist.read_bytes()).hexdigest()
    if digest != SHA256:
        sys.exit(f"{sdist}: SHA-256 {digest}, expected {SHA256}")
    src = out / "src"
    src.mkdir(exist_ok=True)
    with tarfile.open(sdist) as tar:
        for name in ["kastore.c", "kastore.h"]:
            member = tar.getmember(f"kastore-0.3.6/lib/{name}")
            (src / name).write_bytes(tar.extractfile(member).read())
    lib = out / "libkastore_reference.so"
    subprocess.run(
        ["gcc", "-O2", "-fPIC", "-shared", "-o", str(lib), f"-I{src}",
         str(src / "kastore.c"), str(HERE / "kasbench.c")],
        check=True,
    )
    print(lib)


if __name__ == "__main__":
    main()
