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
