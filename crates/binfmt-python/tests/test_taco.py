"""binfmt.taco against tacozip 0.13, on the taco-header crate's fixtures (written by
tacozip) and on archives made here."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

import binfmt
import binfmt.taco as taco
from helpers import cli_first_error, fixtures, reference

DIR = fixtures("taco-header")
EXPECTED = json.loads((DIR / "expected.json").read_text())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_read_header_like_tacozip(name: str) -> None:
    tacozip = reference("tacozip")
    path = DIR / name
    ref = tacozip.read_header(str(path))
    assert taco.read_header(path) == ref == [tuple(e) for e in EXPECTED[name]["entries"]]
    head = path.read_bytes()[:256]  # as tacoreader does for a remote archive
    assert taco.read_header(head) == tacozip.read_header(head)
    assert taco.read_header(bytearray(head[:157])) == ref


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_members_with_data_offsets(name: str) -> None:
    path = DIR / name
    expected = EXPECTED[name]["members"]
    for got in (taco.members(path), taco.members(path.read_bytes())):
        assert [m.name for m in got] == [m["name"] for m in expected]
        assert [m.data_offset for m in got] == [m["data_offset"] for m in expected]
        assert [m.size for m in got] == [m["size"] for m in expected]
        assert [m.crc32 for m in got] == [m["crc32"] for m in expected]
        assert [m.header_offset for m in got] == [m["local_header_offset"] for m in expected]
    # The offsets are where zipfile finds the data.
    with zipfile.ZipFile(path) as z:
        data = path.read_bytes()
        for m in taco.members(path):
            start, n = m.range
            assert data[start:start + n] == z.read(m.name)


@pytest.mark.parametrize("bad", ["plain.zip", "not_a_zip.txt"])
def test_not_taco(bad: str) -> None:
    path = DIR / bad
    with pytest.raises(taco.TacoError) as info:
        taco.read_header(path)
    e = info.value
    assert isinstance(e, binfmt.FormatError) and e.format == "taco" and e.offset is not None
    assert str(e).startswith(f"byte {e.offset}: ")
    with pytest.raises(taco.TacoError) as info2:
        taco.read_header(path.read_bytes())
    assert str(info2.value) == str(e)


def test_message_equals_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "bad.taco"
    data = bytearray((DIR / "three_entries.taco").read_bytes())
    data[60] ^= 0xFF  # a payload byte: the CRC no longer matches
    path.write_bytes(bytes(data))
    with pytest.raises(taco.TacoError) as info:
        taco.read_header(path)
    line = cli_first_error(path)
    if line is not None:
        assert line == f"{path}: {info.value}"


def test_short_input() -> None:
    with pytest.raises(taco.TacoError):
        taco.read_header(b"PK\x03\x04")
    with pytest.raises(FileNotFoundError):
        taco.read_header("/no/such.taco")


def test_create_and_update_read_by_tacozip(tmp_path: Path) -> None:
    tacozip = reference("tacozip")
    a, b = tmp_path / "a.parquet", tmp_path / "COLLECTION.json"
    a.write_bytes(b"x" * 1000)
    b.write_bytes(b"{}")
    ours, ref = tmp_path / "ours.taco", tmp_path / "ref.taco"
    placeholders = [(0, 0)] * 2
    taco.create(ours, [a, b], ["METADATA/level0.parquet", "COLLECTION.json"], placeholders)
    tacozip.create(str(ref), [str(a), str(b)], ["METADATA/level0.parquet", "COLLECTION.json"],
                   placeholders)
    # The member layout is the same, so the data offsets are.
    assert [m[:4] for m in taco.members(ours)] == [m[:4] for m in taco.members(ref)]
    entries = [m.range for m in taco.members(ours)[1:]]
    taco.update_header(ours, entries)
    tacozip.update_header(str(ref), entries)
    assert tacozip.read_header(str(ours)) == taco.read_header(ref) == entries
    with zipfile.ZipFile(ours) as z:
        assert z.read("COLLECTION.json") == b"{}"
        assert z.testzip() is None


def test_header_only_archive(tmp_path: Path) -> None:
    tacozip = reference("tacozip")
    path = tmp_path / "h.taco"
    taco.create(path, [], entries=[(1, 2)])
    assert tacozip.read_header(str(path)) == [(1, 2)]
    assert [m.name for m in taco.members(path)] == ["TACO_HEADER"]


def test_update_validates_before_writing(tmp_path: Path) -> None:
    # tacozip writes the new header into an ordinary zip before failing; we refuse first.
    path = tmp_path / "plain.zip"
    shutil.copy(DIR / "plain.zip", path)
    before = path.read_bytes()
    with pytest.raises(taco.TacoError):
        taco.update_header(path, [(1, 2)])
    assert path.read_bytes() == before
    path = tmp_path / "false_zip64.taco"
    shutil.copy(DIR / "false_zip64.taco", path)
    taco.update_header(path, [(7, 8)])  # tacozip fails here, after writing
    assert taco.read_header(path) == [(7, 8)]


def test_too_many_entries(tmp_path: Path) -> None:
    path = tmp_path / "x.taco"
    shutil.copy(DIR / "zero_entries.taco", path)
    before = path.read_bytes()
    with pytest.raises(ValueError):
        taco.update_header(path, [(0, 1)] * 8)
    assert path.read_bytes() == before


def test_unsafe_names_refused(tmp_path: Path) -> None:
    src = tmp_path / "f"
    src.write_bytes(b"1")
    with pytest.raises(binfmt.FormatError):
        taco.create(tmp_path / "o.taco", [src], ["../evil"])
    assert not (tmp_path / "o.taco").exists()


def test_tacozip_constants_and_helpers_match_the_reference() -> None:
    tacozip = reference("tacozip")
    names = [n for n in tacozip.__all__ if n.startswith("TACOZ_")] + ["TACO_HEADER_MAX_ENTRIES"]
    assert len(names) == 9
    for name in names:
        assert getattr(taco, name) == getattr(tacozip, name), name
        assert name in taco.__all__
    assert taco.self_check() is None and tacozip.self_check() is None
    assert isinstance(taco.__tacozip_version__, str) and taco.__tacozip_version__
    assert taco.__tacozip_version__ == taco.get_library_version()
    # Built as tacozip builds it.
    e = taco.TacozipError(taco.TACOZ_ERR_PARAM)
    assert e.code == -4 and str(e) == str(tacozip.TacozipError(-4))


def _code_of(call) -> tuple[type, int]:
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e), getattr(e, "code", None)
    raise AssertionError("no error")


@pytest.mark.parametrize("case", ["missing_read", "missing_update", "missing_source",
                                  "missing_dir", "negative_offset", "not_zip"])
def test_every_failure_is_a_tacozip_error_with_the_reference_code(tmp_path: Path, case: str) -> None:
    tacozip = reference("tacozip")
    missing = str(tmp_path / "missing.taco")
    calls = {
        "missing_read": lambda m: m.read_header(missing),
        "missing_update": lambda m: m.update_header(missing, [(1, 2)]),
        "missing_source": lambda m: m.create(str(tmp_path / f"o_{m.__name__}.zip"), [missing]),
        "missing_dir": lambda m: m.create(str(tmp_path / "no" / "o.zip"), [__file__]),
        "negative_offset": lambda m: m.create(str(tmp_path / f"n_{m.__name__}.zip"), [],
                                              entries=[(-1, 2)]),
        "not_zip": lambda m: m.read_header(b"x" * 200),
    }
    ref_cls, ref_code = _code_of(lambda: calls[case](tacozip))
    assert issubclass(ref_cls, tacozip.TacozipError)
    ours_cls, ours_code = _code_of(lambda: calls[case](taco))
    assert issubclass(ours_cls, taco.TacozipError), ours_cls
    if case == "missing_dir":
        # libzip reports the failed open as its own error (TACOZ_ERR_LIBZIP); an I/O
        # failure here is always TACOZ_ERR_IO, the reference's code for I/O.
        assert ref_code == tacozip.TACOZ_ERR_LIBZIP
        ref_code = tacozip.TACOZ_ERR_IO
    assert ours_code == ref_code, (case, ours_code, ref_code)
    if ref_code == tacozip.TACOZ_ERR_IO:
        assert issubclass(ours_cls, OSError) and issubclass(ours_cls, taco.TacozipIOError)
    if case.startswith("missing_") and case != "missing_dir":
        assert issubclass(ours_cls, FileNotFoundError)
    if case == "negative_offset":
        assert issubclass(ours_cls, ValueError)  # as it was refused before, too
        assert not (tmp_path / "n_binfmt.taco.zip").exists()


def test_missing_file_caught_both_ways(tmp_path: Path) -> None:
    missing = tmp_path / "missing.taco"
    for except_as in (taco.TacozipError, FileNotFoundError, OSError):
        with pytest.raises(except_as) as info:
            taco.read_header(missing)
    e = info.value
    assert e.code == taco.TACOZ_ERR_IO and e.errno == 2 and e.filename == str(missing)
    with pytest.raises(taco.TacozipError) as info2:
        taco.members(missing)
    assert isinstance(info2.value, FileNotFoundError)


def test_format_and_argument_errors_keep_both_hierarchies(tmp_path: Path) -> None:
    path = tmp_path / "x.taco"
    shutil.copy(DIR / "zero_entries.taco", path)
    with pytest.raises(taco.TacozipError) as info:
        taco.update_header(path, [(0, 1)] * 8)
    assert isinstance(info.value, ValueError) and info.value.code == taco.TACOZ_ERR_PARAM
    with pytest.raises(taco.TacozipError) as info:
        taco.read_header(b"PK\x03\x04")
    assert isinstance(info.value, binfmt.FormatError)
    assert info.value.code == taco.TACOZ_ERR_INVALID_HEADER
    src = tmp_path / "f"
    src.write_bytes(b"1")
    with pytest.raises(taco.TacozipError) as info:
        taco.create(tmp_path / "d.taco", [src, src])
    assert info.value.code == taco.TACOZ_ERR_EXISTS
    with pytest.raises(ValueError):
        taco.create(tmp_path / "d.taco", [src], ["a", "b"])


def test_io_errors_pickle(tmp_path: Path) -> None:
    import pickle

    with pytest.raises(taco.TacozipError) as info:
        taco.read_header(tmp_path / "missing.taco")
    back = pickle.loads(pickle.dumps(info.value))
    assert type(back) is type(info.value) and isinstance(back, FileNotFoundError)
    assert back.code == taco.TACOZ_ERR_IO and back.errno == info.value.errno
    with pytest.raises(taco.TacoError) as info2:
        taco.read_header(b"PK\x03\x04")
    back2 = pickle.loads(pickle.dumps(info2.value))
    assert str(back2) == str(info2.value) and back2.code == info2.value.code


# -- update_header: no sync by default, crash-consistent against a killed process -------

OLD = [(100, 10), (200, 20)]
NEW = [(300, 30), (400, 40), (500, 50)]


def _archive(tmp_path: Path, name: str = "a.taco") -> Path:
    src = tmp_path / "member.bin"
    src.write_bytes(b"payload" * 100)
    path = tmp_path / name
    taco.create(path, [src], entries=OLD)
    return path


def test_update_with_and_without_sync_write_the_same_bytes(tmp_path: Path) -> None:
    tacozip = reference("tacozip")
    a = _archive(tmp_path, "a.taco")
    b = _archive(tmp_path, "b.taco")
    taco.update_header(a, NEW)  # the default: no fdatasync, as tacozip
    taco.update_header(b, NEW, sync=True)
    assert a.read_bytes() == b.read_bytes()
    assert tacozip.read_header(str(a)) == NEW == taco.read_header(a)
    import inspect

    assert inspect.signature(taco.update_header).parameters["sync"].default is False


@pytest.mark.parametrize("done", [0, 1, 2, 3])
def test_every_prefix_of_the_writes_is_old_new_or_a_repairable_torn_update(
    tmp_path: Path, done: int
) -> None:
    """What an update killed after its first `done` writes leaves (the page cache keeps a
    killed process's writes, in order): the old header, the new one, or a torn update
    that `members` (the whole-archive check) reports and the next update repairs."""
    from binfmt import _binfmt

    path = _archive(tmp_path)
    data = path.read_bytes()
    writes = _binfmt.taco_update_writes(data, NEW)
    assert len(writes) == 3
    torn = bytearray(data)
    for offset, chunk in writes[:done]:
        torn[offset : offset + len(chunk)] = chunk
    path.write_bytes(bytes(torn))
    if done == 0:
        assert taco.read_header(path) == OLD
    elif done == 3:
        assert taco.read_header(path) == NEW and bytes(torn) == _updated(tmp_path, NEW)
    else:
        with pytest.raises(taco.TacoError) as e:
            _binfmt.taco_members_bytes(bytes(torn))
        assert e.value.kind == "TornUpdate"
    for entries in (NEW, OLD):  # the next update repairs it, whichever way it goes
        copy = tmp_path / f"repair-{len(entries)}.taco"
        copy.write_bytes(bytes(torn))
        taco.update_header(copy, entries)
        assert taco.read_header(copy) == entries
        _binfmt.taco_members_bytes(copy.read_bytes())  # whole archive valid again


def _updated(tmp_path: Path, entries) -> bytes:
    path = _archive(tmp_path, "fresh.taco")
    taco.update_header(path, entries)
    return path.read_bytes()


_KILLED_LOOP = """
import sys
from binfmt import taco
path = sys.argv[1]
a, b = [(1, 2)], [(3, 4), (5, 6)]
print("ready", flush=True)
i = 0
while True:
    taco.update_header(path, a if i % 2 else b)
    i += 1
"""


def test_a_killed_updater_leaves_a_readable_or_repairable_archive(tmp_path: Path) -> None:
    import random
    import signal
    import subprocess
    import sys
    import time

    from binfmt import _binfmt

    path = _archive(tmp_path)
    rng = random.Random(7)
    for _ in range(8):
        proc = subprocess.Popen(
            [sys.executable, "-c", _KILLED_LOOP, str(path)], stdout=subprocess.PIPE
        )
        assert proc.stdout.readline().strip() == b"ready"
        time.sleep(rng.uniform(0.001, 0.03))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        data = path.read_bytes()
        try:
            _binfmt.taco_members_bytes(data)
            assert taco.read_header(path) in (OLD, [(1, 2)], [(3, 4), (5, 6)])
        except taco.TacoError as e:
            assert e.kind == "TornUpdate"
            taco.update_header(path, OLD)
            _binfmt.taco_members_bytes(path.read_bytes())
            assert taco.read_header(path) == OLD


def test_the_module_has_tacozip_s_shape() -> None:
    """What code written for tacozip imports: its `__all__`, name for name; its `config`
    constants with their values; its `exceptions` classes, with their constructors
    (`TacozipIOError(code, message)`) and hierarchy; its `version` module. Its ctypes
    internals (`bindings`, `loader`) have no counterpart: binfmt has no C library."""
    tacozip = reference("tacozip")
    import importlib

    assert set(taco.__all__) == set(tacozip.__all__)
    for name in tacozip.__all__:
        assert hasattr(taco, name), name
    ref_config = importlib.import_module("tacozip.config")
    import binfmt.taco.config as config
    import binfmt.taco.exceptions as exceptions
    import binfmt.taco.version as version

    for name in dir(ref_config):
        if name.isupper() and name != "LIBRARY_NAMES":
            assert getattr(config, name) == getattr(ref_config, name), name
    ref_exceptions = importlib.import_module("tacozip.exceptions")
    for name in dir(ref_exceptions):
        if name.startswith("Tacozip"):
            ours, theirs = getattr(exceptions, name), getattr(ref_exceptions, name)
            assert issubclass(ours, exceptions.TacozipError)
            e, r = ours(taco.TACOZ_ERR_IO, "IO failed"), theirs(taco.TACOZ_ERR_IO, "IO failed")
            assert e.code == r.code and "IO failed" in str(e)
    assert exceptions.TacozipError(-999).code == -999
    assert "Unknown error code: -999" in str(exceptions.TacozipError(-999))
    assert isinstance(version.__version__, str) and version._get_version()
    assert taco.__version__ == taco.__tacozip_version__ == binfmt.__version__
