"""Every writer that takes a path follows the ``binfmt`` command's output rules: a
temporary file beside the target, renamed over it (mode kept, symbolic links followed),
never a truncation or a rewrite in place of a file that may be mapped. Memory maps of the
old file (numpy arrays from ``binfmt.kastore.load``) keep reading the old bytes."""

from __future__ import annotations

import io
import mmap
import os
import shutil
import stat
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

import binfmt.bloscpack as ob
import binfmt.kastore as bk
import binfmt.mldf as mldf
import binfmt.taco as taco
import binfmt.taridx as taridx


def test_kastore_dump_over_the_loaded_file_keeps_old_arrays(tmp_path: Path) -> None:
    # The scenario: dict(load(p)), edit, dump back to p.
    p = tmp_path / "data.kas"
    bk.dump({"a": np.arange(100_000, dtype=np.int64), "b": np.linspace(0, 1, 5000)}, p)
    d = dict(bk.load(p))
    old_a, old_b = d["a"], d["b"]
    assert isinstance(old_a.base, memoryview) and isinstance(old_a.base.obj, mmap.mmap)
    d2 = dict(d)
    d2["a"] = np.arange(3, dtype=np.int64) * 7  # a much smaller file
    inode = os.stat(p).st_ino
    bk.dump(d2, p)
    # Checked first: reading arrays of a file truncated in place would be SIGBUS.
    assert os.stat(p).st_ino != inode, "dump rewrote the loaded file in place"
    assert old_a.tolist() == list(range(100_000))
    assert old_b.tolist() == np.linspace(0, 1, 5000).tolist()
    assert bk.load(p)["a"].tolist() == [0, 7, 14]
    # Several rounds, with the store still open.
    store = bk.load(p)
    held = store["a"]
    for i in range(3):
        bk.dump({"a": np.full(10, i, dtype=np.int64)}, p)
    assert held.tolist() == [0, 7, 14]
    assert bk.load(p)["a"].tolist() == [2] * 10
    assert sorted(os.listdir(tmp_path)) == ["data.kas"]  # no temporary file left


def test_kastore_dump_keeps_mode_and_follows_symlinks(tmp_path: Path) -> None:
    target = tmp_path / "target.kas"
    link = tmp_path / "link.kas"
    bk.dump({"a": np.arange(3)}, target)
    os.chmod(target, 0o640)
    link.symlink_to(target.name)
    bk.dump({"a": np.arange(5)}, link)
    assert link.is_symlink()
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert bk.load(target)["a"].tolist() == list(range(5))


def test_kastore_dump_failure_leaves_the_file(tmp_path: Path) -> None:
    p = tmp_path / "data.kas"
    bk.dump({"a": np.arange(3)}, p)
    before = p.read_bytes()
    with pytest.raises(ValueError):
        bk.dump({"a": np.zeros((2, 2))}, p)  # refused before anything is written
    assert p.read_bytes() == before
    with pytest.raises(FileNotFoundError) as info:
        bk.dump({"a": np.arange(3)}, tmp_path / "missing" / "x.kas")
    assert info.value.filename is not None


def test_kastore_dump_to_file_objects_writes_as_given(tmp_path: Path) -> None:
    buf = io.BytesIO(b"head")
    buf.seek(4)
    bk.dump({"a": np.arange(3)}, buf)
    assert buf.getvalue()[:4] == b"head"
    assert buf.getvalue()[4:] == bk.dumps({"a": np.arange(3)})
    p = tmp_path / "fd.kas"
    with open(p, "wb") as f:
        bk.dump({"a": np.arange(3)}, f.fileno())
        bk.dump({"b": np.arange(2)}, f)
    with open(p, "rb") as f:
        assert bk.load(f)["a"].tolist() == [0, 1, 2]
        assert bk.load(f)["b"].tolist() == [0, 1]


def _make_tar(path: Path, members: dict[str, bytes]) -> None:
    with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def _writers(tmp_path: Path) -> dict[str, tuple[Path, Callable[[int], None]]]:
    """name -> (target path, write(round)) for every writer that takes a path."""
    src = tmp_path / "member.bin"
    src.write_bytes(b"member bytes")
    shard_dir = tmp_path / "shards"
    shard_dir.mkdir()
    _make_tar(shard_dir / "train_0.tar", {"a.txt": b"x", "a.json": b"{}"})

    def mldf_write(r: int, path: Path) -> None:
        with mldf.Writer(path, [("label", "INT")]) as w:
            for i in range(1 + 50 * (r % 2)):
                w.write({"label": i})

    return {
        "kastore.dump": (tmp_path / "k.kas",
                         lambda r, p=tmp_path / "k.kas": bk.dump({"a": np.arange(1 + 5000 * (r % 2))}, p)),
        "bloscpack.pack_bytes_to_file": (
            tmp_path / "b.blp",
            lambda r, p=tmp_path / "b.blp": ob.pack_bytes_to_file(os.urandom(10 + 20000 * (r % 2)), p)),
        "bloscpack.pack_ndarray_to_file": (
            tmp_path / "n.blp",
            lambda r, p=tmp_path / "n.blp": ob.pack_ndarray_to_file(np.arange(1 + 5000 * (r % 2)), p)),
        "bloscpack.pack_file_to_file": (
            tmp_path / "f.blp", lambda r, p=tmp_path / "f.blp": ob.pack_file_to_file(src, p)),
        "bloscpack.unpack_file_from_file": (
            tmp_path / "u.bin",
            lambda r, p=tmp_path / "u.bin": (
                ob.pack_bytes_to_file(b"z" * (1 + 9000 * (r % 2)), tmp_path / "u.blp"),
                ob.unpack_file_from_file(tmp_path / "u.blp", p))),
        "taco.create": (
            tmp_path / "t.zip",
            lambda r, p=tmp_path / "t.zip": taco.create(p, [src] * (r % 2), entries=[(r, r)])),
        "mldf.Writer": (tmp_path / "m.mldf", lambda r, p=tmp_path / "m.mldf": mldf_write(r, p)),
        "taridx.build": (
            tmp_path / "i.taridx",
            lambda r, p=tmp_path / "i.taridx": taridx.build(shard_dir, "train", p)),
    }


@pytest.mark.parametrize("name", [
    "kastore.dump", "bloscpack.pack_bytes_to_file", "bloscpack.pack_ndarray_to_file",
    "bloscpack.pack_file_to_file", "bloscpack.unpack_file_from_file", "taco.create",
    "mldf.Writer", "taridx.build",
])
def test_every_writer_replaces_by_rename(tmp_path: Path, name: str) -> None:
    path, write = _writers(tmp_path)[name]
    write(1)  # the larger file
    os.chmod(path, 0o600)
    before = path.read_bytes()
    inode = os.stat(path).st_ino
    with open(path, "rb") as f:
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        write(0)  # a smaller file: a truncation in place would make the map fault
        st = os.stat(path)
        # Checked first: reading a map of a file truncated in place would be SIGBUS.
        assert st.st_ino != inode, "the file was rewritten in place"
        # The mapped bytes are still the old file's, whole (no garbage).
        assert mapped[:] == before
    finally:
        mapped.close()
    assert stat.S_IMODE(st.st_mode) == 0o600, "the mode was not kept"
    assert not [n for n in os.listdir(path.parent) if ".binfmt-" in n], "temporary file left"


def test_bloscpack_unpack_file_from_file_never_replaces_its_input(tmp_path):
    """The output rules of every writer: an output that is the input, by its path, a hard
    link or a ``file://`` URL, is refused, and the input is left as it was (the reference
    would truncate it)."""
    from binfmt import _binfmt, bloscpack

    src = tmp_path / "a.blp"
    bloscpack.pack_bytes_to_file(b"0123456789" * 1000, src)
    before = src.read_bytes()
    link = tmp_path / "link.blp"
    os.link(src, link)
    for target in (src, link):
        with pytest.raises(OSError):
            bloscpack.unpack_file_from_file(src, target)
        assert src.read_bytes() == before
    if _binfmt.remote_enabled():
        with pytest.raises(OSError):
            bloscpack.unpack_file_from_file(src.resolve().as_uri(), src)
        assert src.read_bytes() == before
    out = tmp_path / "out.bin"
    bloscpack.unpack_file_from_file(src, out)
    assert out.read_bytes() == b"0123456789" * 1000


_SYNC_SCRIPT = """
import sys
import numpy as np
import binfmt.bloscpack as ob
d, sync = sys.argv[1], sys.argv[2] == "1"
ob.pack_bytes_to_file(b"x" * 100000, d + "/a.blp", sync=sync)
ob.pack_ndarray_to_file(np.arange(10000), d + "/n.blp", sync=sync)
ob.pack_file_to_file(d + "/a.blp", d + "/f.blp", sync=sync)
ob.unpack_file_from_file(d + "/a.blp", d + "/u.bin", sync=sync)
"""


def _strace_works() -> bool:
    if shutil.which("strace") is None:
        return False
    return subprocess.run(["strace", "-qq", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _strace_works(), reason="strace is not installed or cannot trace")
def test_bloscpack_file_writers_sync_only_when_asked(tmp_path: Path) -> None:
    """The bloscpack drop-in's file writers do not sync by default, as bloscpack does not
    (they still write beside the target and rename), and with ``sync=True`` sync the data
    and the directory: counted with strace, in a process of its own."""
    counts = {}
    for sync in ("0", "1"):
        d = tmp_path / sync
        d.mkdir()
        run = subprocess.run(
            ["strace", "-f", "-qq", "-e", "trace=fsync,fdatasync,sync_file_range",
             sys.executable, "-c", _SYNC_SCRIPT, str(d), sync],
            capture_output=True, text=True, check=True)
        counts[sync] = sum(1 for line in run.stderr.splitlines()
                           if "sync" in line and "= 0" in line)
        assert (d / "u.bin").read_bytes() == b"x" * 100000
        assert not [n for n in os.listdir(d) if ".binfmt-" in n]
    assert counts["0"] == 0, "a default write synced"
    # Each of the four files: its data, then its directory.
    assert counts["1"] >= 8


def _read_fifo_while(fifo: Path, write: Callable[[], None]) -> bytes:
    """What `write()` streams into the FIFO `fifo`, read by a thread meanwhile."""
    import threading

    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    try:
        write()
    finally:
        reader.join(timeout=30)
    assert got, "the reader did not finish"
    return got[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("sync", [False, True])
def test_bloscpack_writers_stream_into_fifos_and_devices(tmp_path: Path, sync: bool) -> None:
    """A FIFO or a device is streamed into, not replaced (the output rules), with or
    without `sync`: the bytes are the ones a regular file gets."""
    array = np.arange(100_000, dtype="<f8")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    streamed = _read_fifo_while(fifo, lambda: ob.pack_ndarray_to_file(array, fifo, sync=sync))
    assert stat.S_ISFIFO(os.stat(fifo).st_mode), "the FIFO was replaced"
    assert streamed == ob.pack_ndarray_to_bytes(array)
    packed = tmp_path / "a.blp"
    packed.write_bytes(streamed)
    raw = _read_fifo_while(fifo, lambda: ob.unpack_file_from_file(packed, fifo, sync=sync))
    assert raw == array.tobytes()
    ob.pack_bytes_to_file(b"x" * 1000, os.devnull, sync=sync)
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_bloscpack_pack_file_to_file_never_replaces_its_input(tmp_path: Path) -> None:
    """As every writer: the output may not be the input, by its path or a hard link (the
    reference truncates it before reading it); the input is left as it was."""
    src = tmp_path / "data.bin"
    src.write_bytes(b"0123456789" * 1000)
    link = tmp_path / "link.bin"
    os.link(src, link)
    for target in (src, link):
        with pytest.raises(OSError):
            ob.pack_file_to_file(src, target)
        assert src.read_bytes() == b"0123456789" * 1000
    out = tmp_path / "out.blp"
    ob.pack_file_to_file(src, out)
    assert ob.unpack_bytes_from_file(out)[0] == b"0123456789" * 1000
