"""binfmt.kastore against the kastore package and tskit, on the kastore crate's fixtures
(written by the reference writers) and on stores made here."""

from __future__ import annotations

import gc
import mmap
import os
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import binfmt
import binfmt.kastore as bk
from helpers import cli_first_error, fixtures, reference

VALID = sorted((fixtures("kastore") / "valid").glob("*"))
MALFORMED = sorted((fixtures("kastore") / "malformed").glob("*.kas"))


def same_array(a: np.ndarray, b: np.ndarray) -> None:
    assert a.dtype == b.dtype
    assert a.shape == b.shape
    assert a.tobytes() == b.tobytes()  # bit for bit (NaN payloads included)


def base_chain(array: np.ndarray) -> list:
    chain, obj = [], array
    while obj is not None:
        chain.append(obj)
        obj = getattr(obj, "base", None) if isinstance(obj, np.ndarray) else getattr(obj, "obj", None)
    return chain


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
@pytest.mark.parametrize("read_all", [False, True])
def test_reads_what_the_reference_reads(path: Path, read_all: bool) -> None:
    kastore = reference("kastore")
    ref = kastore.load(str(path), read_all=True)
    ours = bk.load(path, read_all=read_all)
    assert list(ours.keys()) == sorted(ref.keys()) == list(ref.keys())
    for key in ref:
        same_array(ours[key], ref[key])
        assert not ours[key].flags.writeable
        info = ours.info(key)
        assert (info.dtype, info.shape, info.size) == (ours[key].dtype, ours[key].shape, ours[key].nbytes)


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_writes_the_reference_bytes(path: Path) -> None:
    kastore = reference("kastore")
    data = {k: np.array(v) for k, v in kastore.load(str(path), read_all=True).items()}
    assert bk.dumps(data) == kastore.dumps(data)


def test_tskit_file_round_trips_byte_for_byte(tmp_path: Path) -> None:
    tskit = reference("tskit")
    trees = fixtures("kastore") / "valid" / "tree.trees"
    store = bk.load(trees)
    out = tmp_path / "copy.trees"
    bk.dump(dict(store), out)
    assert out.read_bytes() == trees.read_bytes()
    ts = tskit.load(out)  # and tskit reads what we wrote
    assert ts.num_nodes == len(store["nodes/time"])


def test_tskit_written_store(tmp_path: Path) -> None:
    tskit = reference("tskit")
    tables = tskit.TableCollection(sequence_length=10)
    for t in range(100):
        tables.nodes.add_row(flags=1, time=float(t))
    path = tmp_path / "t.trees"
    tables.dump(path)
    store = bk.load(path)
    same_array(store["nodes/time"], tables.nodes.time)
    same_array(store["nodes/flags"], tables.nodes.flags)


def test_zero_copy_views_of_the_map(tmp_path: Path) -> None:
    path = tmp_path / "big.kas"
    n = 50 * 1024 * 1024 // 8 // 4
    data = {f"col{i}": np.arange(n, dtype=np.float64) + i for i in range(4)}  # 50 MiB
    bk.dump(data, path)
    del data
    gc.collect()
    tracemalloc.start()
    store = bk.load(path)
    total = 0.0
    for key in store:
        array = store[key]
        total += float(array[-1])  # touch every array
        chain = base_chain(array)
        assert isinstance(chain[-1], mmap.mmap), chain
        assert not array.flags.writeable
        assert not array.flags.owndata
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 1 << 20, f"{peak} bytes allocated: something copied the 50 MiB store"
    # The arrays outlive the store and keep the map alive.
    col = store["col3"]
    store.close()
    with pytest.raises(bk.StoreClosedError):
        store["col0"]
    del store
    gc.collect()
    assert col[7] == 7 + 3


def test_read_all_copies_and_closes(tmp_path: Path) -> None:
    path = tmp_path / "a.kas"
    bk.dump({"a": np.arange(10)}, path)
    store = bk.load(path, read_all=True)
    assert isinstance(base_chain(store["a"])[-1], bytes)
    os.unlink(path)  # nothing keeps the file open
    same_array(store["a"], np.arange(10))


def test_accepts_paths_files_descriptors_and_bytes(tmp_path: Path) -> None:
    data = {"x": np.arange(5, dtype=np.int32), "y": np.zeros(3)}
    path = tmp_path / "s.kas"
    bk.dump(data, path)
    raw = path.read_bytes()
    loaded = [bk.load(str(path)), bk.load(path), bk.load(os.fsencode(path)), bk.loads(raw),
              bk.loads(bytearray(raw)), bk.loads(memoryview(raw))]
    with open(path, "rb") as f:
        loaded.append(bk.load(f))
        assert f.tell() == len(raw)
    fd = os.open(path, os.O_RDONLY)
    try:
        loaded.append(bk.load(fd))
    finally:
        os.close(fd)
    for store in loaded:
        assert sorted(store) == ["x", "y"]
        same_array(store["x"], data["x"])


@pytest.mark.parametrize("path", MALFORMED, ids=lambda p: p.name)
def test_malformed_like_the_reference_and_the_cli(path: Path) -> None:
    kastore = reference("kastore")
    try:
        dict(kastore.load(str(path), read_all=True))
        reference_ok = True
    except Exception:
        reference_ok = False
    try:
        dict(bk.load(path))
    except EOFError as e:
        assert path.stat().st_size == 0
        assert isinstance(e, binfmt.FormatError)
        return
    except binfmt.FormatError as e:
        assert isinstance(e, bk.FileFormatError) and isinstance(e, ValueError)
        assert e.format == "kastore"
        if e.offset is not None:
            assert str(e).startswith(f"byte {e.offset}: ")
        line = cli_first_error(path)
        if line is not None and "unknown format" not in line:  # the CLI detects by magic
            assert line == f"{path}: {e}"
        return
    except UnicodeDecodeError:
        # A valid store whose key is not UTF-8: the reference fails to decode it too.
        assert not reference_ok
        return
    # We accept it: then so does the reference (we are never laxer).
    assert reference_ok, "binfmt accepted a store the reference rejects"


def test_error_attributes() -> None:
    with pytest.raises(binfmt.FormatError) as info:
        bk.loads(b"x" * 1024)
    e = info.value
    assert (e.offset, e.format, e.kind, e.fault) == (0, "kastore", "BadMagic", "input")
    assert str(e).startswith("byte 0: bad magic")
    assert isinstance(e, bk.KastoreException) and isinstance(e, ValueError)


def test_os_errors() -> None:
    with pytest.raises(FileNotFoundError):
        bk.load("/no/such/file.kas")


def test_dump_rejects_before_writing(tmp_path: Path) -> None:
    path = tmp_path / "out.kas"
    with pytest.raises(ValueError):
        bk.dump({"a": np.zeros((2, 2))}, path)
    with pytest.raises(ValueError):
        bk.dump({"a": np.array(["text"])}, path)
    assert not path.exists()


def test_big_endian_input_is_converted() -> None:
    kastore = reference("kastore")
    be = np.arange(5, dtype=">i4")
    assert bk.dumps({"a": be}) == kastore.dumps({"a": be.astype("<i4")})


def test_help_reads_well() -> None:
    doc = bk.load.__doc__
    assert doc and "Args:" in doc and "Returns:" in doc and "Raises:" in doc
    for name in bk.__all__:
        obj = getattr(bk, name)
        if callable(obj):
            assert obj.__doc__, name


def test_read_all_survives_truncation_and_the_default_is_documented(tmp_path: Path) -> None:
    # kastore 0.3.6 copies; here read_all=True is the copy, and the docstring says that
    # the default maps (and what truncation then does).
    path = tmp_path / "t.kas"
    bk.dump({"a": np.arange(1000, dtype=np.int64)}, path)
    store = bk.load(path, read_all=True)
    a = store["a"]
    with open(path, "r+b") as f:
        f.truncate(0)
    assert a.tolist() == list(range(1000))
    doc = bk.load.__doc__
    assert "read_all: ``False`` (the default)" in doc and "SIGBUS" in doc
    assert "``True``: read the whole store into memory" in doc
    assert "read_all=True" in bk.__doc__
    # `.base` is a memoryview over the map, as the docstring says.
    bk.dump({"a": np.arange(3)}, path)
    mapped = bk.load(path)["a"]
    assert isinstance(mapped.base, memoryview) and isinstance(mapped.base.obj, mmap.mmap)
    assert ".base.obj" in doc


def test_exceptions_submodule_mirrors_the_reference() -> None:
    kastore = reference("kastore")
    import importlib

    ours = importlib.import_module("binfmt.kastore.exceptions")
    import binfmt.kastore.exceptions as again

    assert again is ours
    for name in ("KastoreException", "FileFormatError", "VersionTooOldError",
                 "VersionTooNewError", "StoreClosedError"):
        assert hasattr(kastore.exceptions, name), name
        cls = getattr(ours, name)
        assert cls is getattr(bk, name)
        assert issubclass(cls, ours.KastoreException)
    assert issubclass(ours.FileFormatError, binfmt.FormatError)
    assert issubclass(ours.VersionTooNewError, ours.FileFormatError)
    with pytest.raises(ours.FileFormatError):
        bk.loads(b"\0" * 64)


@pytest.mark.parametrize("argv", [["ls"], ["ls", "-l"], ["ls", "-lH"], ["ls", "--long", "--human-readable"],
                                  ["dump", "{path}", "b"], ["dump", "{path}", "long/key"],
                                  ["dump", "{path}", "empty"]])
def test_cli_prints_what_the_reference_prints(tmp_path: Path, argv: list[str]) -> None:
    import subprocess
    import sys

    reference("kastore")
    path = tmp_path / "cli.kas"
    bk.dump({"b": np.arange(3, dtype=np.int32), "a": np.array([1.5, 2.25e10, np.nan]),
             "long/key": np.arange(3000, dtype=np.uint8), "empty": np.zeros(0, np.int8),
             "i64": np.array([-(2**63), 2**62])}, path)
    args = [a.format(path=path) for a in argv]
    if "{path}" not in argv:
        args.append(str(path))
    ours = subprocess.run([sys.executable, "-m", "binfmt.kastore", *args],
                          capture_output=True, text=True)
    ref = subprocess.run([sys.executable, "-m", "kastore", *args], capture_output=True, text=True)
    assert ref.returncode == 0, ref.stderr
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == ref.stdout


def test_cli_errors_like_the_reference(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "cli.kas"
    bk.dump({"a": np.arange(3)}, path)
    for args in (["dump", str(path), "nope"], ["ls", str(tmp_path / "missing.kas")], []):
        run = subprocess.run([sys.executable, "-m", "binfmt.kastore", *args],
                             capture_output=True, text=True)
        assert run.returncode != 0
    run = subprocess.run([sys.executable, "-m", "binfmt.kastore", "dump", str(path), "nope"],
                         capture_output=True, text=True)
    assert "KeyError: 'nope'" in run.stderr


def test_store_pickles_by_path_and_position(tmp_path: Path) -> None:
    import pickle

    path = tmp_path / "p.kas"
    big = {"a": np.arange(200_000, dtype=np.int64), "b": np.linspace(0, 1, 7)}
    bk.dump(big, path)
    store = bk.load(path)
    blob = pickle.dumps(store)
    assert len(blob) < 1000  # by reference, not by value
    back = pickle.loads(blob)
    assert isinstance(back["a"].base.obj, mmap.mmap)  # re-mapped
    same_array(back["a"], big["a"])
    same_array(back["b"], big["b"])
    # read_all is kept.
    back = pickle.loads(pickle.dumps(bk.load(path, read_all=True)))
    assert isinstance(base_chain(back["a"])[-1], bytes)
    same_array(back["a"], big["a"])
    # A store read from a file object at a position: path and position.
    two = tmp_path / "two.kas"
    with open(two, "wb") as f:
        bk.dump({"x": np.arange(5)}, f)
        bk.dump({"y": np.arange(3) * 2}, f)
    with open(two, "rb") as f:
        first = bk.load(f)
        second = bk.load(f)
    blob = pickle.dumps(second)
    assert len(blob) < 1000
    back = pickle.loads(blob)
    assert list(back) == ["y"] and back["y"].tolist() == [0, 2, 4]
    assert pickle.loads(pickle.dumps(first))["x"].tolist() == list(range(5))
    # A store from bytes pickles by value; a closed store does not pickle.
    back = pickle.loads(pickle.dumps(bk.loads(bk.dumps({"z": np.arange(4)}))))
    assert back["z"].tolist() == [0, 1, 2, 3]
    store.close()
    with pytest.raises(bk.StoreClosedError):
        pickle.dumps(store)


# -- one front door: paths are opened by the native module ------------------------------


def test_a_path_is_opened_once_by_rust_and_only_mapped_here(tmp_path: Path, monkeypatch) -> None:
    from binfmt import _binfmt

    path = tmp_path / "s.kas"
    bk.dump({"a": np.arange(10), "b": np.array([1.5, 2.5])}, path)
    calls = []
    real = _binfmt.kastore_open
    monkeypatch.setattr(_binfmt, "kastore_open", lambda *a: calls.append(a) or real(*a))

    def no_bytes(*a):  # the bytes parser is for loads() and streams only
        raise AssertionError("a path went through kastore_index")

    monkeypatch.setattr(_binfmt, "kastore_index", no_bytes)
    store = bk.load(path)
    assert len(calls) == 1
    assert isinstance(base_chain(store["a"])[-1], mmap.mmap)
    same_array(store["a"], np.arange(10))
    copied = bk.load(path, read_all=True)
    assert len(calls) == 2
    assert isinstance(base_chain(copied["b"])[-1], bytes)
    same_array(copied["b"], np.array([1.5, 2.5]))


def test_the_descriptor_handed_over_is_closed(tmp_path: Path) -> None:
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("needs /proc/self/fd")
    path = tmp_path / "s.kas"
    bk.dump({"a": np.arange(100)}, path)
    before = len(os.listdir("/proc/self/fd"))
    kept = []
    for i in range(40):
        store = bk.load(path)
        kept.append(store["a"])  # arrays alive keep the map, not a descriptor
        store.close()
    with pytest.raises(bk.FileFormatError):
        for _ in range(10):
            bad = tmp_path / "bad.kas"
            bad.write_bytes(bk.dumps({"a": np.arange(3)})[:70])
            bk.load(bad)
    assert all(int(a[-1]) == 99 for a in kept)
    # Python's mmap holds its own duplicate while the map lives; none is left after.
    del kept, store
    gc.collect()
    assert len(os.listdir("/proc/self/fd")) == before


def test_errors_of_a_path_equal_those_of_its_bytes(tmp_path: Path) -> None:
    def outcome(load, arg):
        try:
            store = load(arg)
        except Exception as e:  # noqa: BLE001 - compared below
            return (type(e), str(e))
        return sorted((k, store[k].tobytes()) for k in store)

    for path in MALFORMED:
        assert outcome(bk.load, path) == outcome(bk.loads, path.read_bytes()), path.name
    empty = tmp_path / "empty.kas"
    empty.write_bytes(b"")
    with pytest.raises(EOFError):
        bk.load(empty)


def test_the_header_layout_comes_from_rust() -> None:
    import inspect

    from binfmt import _binfmt

    data = bk.dumps({"x": np.arange(3), "y": np.zeros(2)})
    assert bk.HEADER_SIZE == _binfmt.KASTORE_HEADER_SIZE == 64
    assert _binfmt.kastore_file_size(data[: bk.HEADER_SIZE]) == len(data)
    assert _binfmt.kastore_file_size(data[: bk.HEADER_SIZE - 1]) is None
    source = inspect.getsource(bk)
    assert "struct" not in source and "unpack" not in source
    assert "._index[" not in source.split("class Store")[1].split("\nclass ")[0].split("def __init__")[0]


def test_one_constructor_for_every_origin(tmp_path: Path) -> None:
    import inspect

    source = inspect.getsource(bk)
    outside = source.split("class Store")[0] + source.split("def _path_of")[1]
    # Nothing outside the class writes its private state.
    for attribute in ("._index", "._arrays", "._origin", "._buffer"):
        assert f"store{attribute}" not in outside, attribute
    path = tmp_path / "s.kas"
    bk.dump({"k": np.arange(4)}, path)
    store = bk.Store(b"", [], origin=None)
    assert len(store) == 0


def test_large_stores_in_memory_round_trip(tmp_path: Path) -> None:
    # Past 4 MiB `dumps` and `load(read_all=True)` fill their bytes object in place (huge
    # pages, `new_bytes.rs`): the bytes are the reference's, read back the same.
    kastore = reference("kastore")
    data = {"x": np.arange(1 << 20, dtype=np.float64), "y": np.arange(7, dtype=np.int8)}
    ours = bk.dumps(data)
    assert type(ours) is bytes and len(ours) > 4 << 20
    path = tmp_path / "big.kas"
    kastore.dump(data, str(path))
    assert ours == path.read_bytes()
    with bk.load(path, read_all=True) as store:
        np.testing.assert_array_equal(store["x"], data["x"])
        np.testing.assert_array_equal(store["y"], data["y"])
