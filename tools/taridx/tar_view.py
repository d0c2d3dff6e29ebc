"""What the references make of tar shards: Python's tarfile and, if installed, GNU tar.

    python tools/taridx/tar_view.py SHARD...

prints one JSON object keyed by shard file name:

    {"<shard>": {"tarfile": {"members": [[name, header_offset, size, type], ...],
                             "error": null | "ExceptionName"},
                 "gnutar": {"exit": int, "names": [...], "stderr": "..."} | null}}

header_offset is tarfile's `offset_data - 512`: the member's own (last) header, which is
what a .taridx row stores (tarfile's `offset` is the start of the header chain).
"""

import json
import os
import shutil
import subprocess
import sys
import tarfile


def find_gnutar():
    tar = shutil.which("tar")
    if tar and b"GNU tar" in subprocess.run([tar, "--version"], capture_output=True).stdout:
        return tar
    return None


def tarfile_view(path):
    members, error = [], None
    try:
        with tarfile.open(path, "r:") as tf:
            for m in tf:
                # Undecodable bytes arrive as surrogates; JSON gets U+FFFD instead.
                name = m.name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                members.append([name, m.offset_data - 512, m.size, m.type.decode("latin-1")])
    except Exception as e:  # noqa: BLE001 - the exception's kind is the observation
        error = type(e).__name__
    return {"members": members, "error": error}


def gnutar_view(gnutar, path):
    if not gnutar:
        return None
    p = subprocess.run([gnutar, "-tf", path], capture_output=True)
    return {
        "exit": p.returncode,
        "names": p.stdout.decode("utf-8", "replace").splitlines(),
        "stderr": p.stderr.decode("utf-8", "replace").replace(path, "SHARD").replace(gnutar, "tar"),
    }


def view(path, gnutar):
    return {"tarfile": tarfile_view(path), "gnutar": gnutar_view(gnutar, path)}


def main():
    gnutar = find_gnutar()
    out = {os.path.basename(p): view(p, gnutar) for p in sys.argv[1:]}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
