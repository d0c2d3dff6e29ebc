"""binfmt.taridx against the taridx crate's golden fixtures, payloads compared with
Python's tarfile."""

from __future__ import annotations

import pickle
import shutil
import tarfile
from pathlib import Path

import pytest

import binfmt
import binfmt.taridx as taridx
from helpers import fixtures

GOLDEN = fixtures("taridx") / "golden"


def tar_members(fold: str) -> list[tuple[str, str, bytes]]:
    """(stem, ext, payload) of every regular member of the fold's shards, by tarfile."""
    out = []
    for shard in sorted(GOLDEN.glob(f"{fold}_*.tar")):
        with tarfile.open(shard) as tf:
            for m in tf.getmembers():
                if m.isfile():
                    base = m.name.rsplit("/", 1)[-1]
                    stem, _, ext = base.partition(".")
                    out.append((stem, ext.lower(), tf.extractfile(m).read()))
    return out


def test_clean_get_matches_tarfile():
    ix = taridx.open(GOLDEN / "clean.taridx")
    members = tar_members("clean")
    assert ix.n_rows == len(members)
    for stem, ext, payload in members:
        assert ix.get(stem, ext) == payload
        assert ix.get(stem)[ext] == payload
        shard, offset, size = ix.locate(stem, ext)
        with open(shard, "rb") as f:
            f.seek(offset)
            assert f.read(size) == payload


def test_clean_samples_match_tarfile():
    ix = taridx.open(GOLDEN / "clean.taridx")
    expected: dict[str, dict[str, bytes]] = {}
    for stem, ext, payload in tar_members("clean"):
        expected.setdefault(stem, {})[ext] = payload
    assert len(ix) == len(expected)
    assert [ix[i] for i in range(len(ix))] == list(expected.values())
    assert list(ix) == list(expected.values())
    with pytest.raises(IndexError):
        ix[len(ix)]


def test_explicit_shards_and_train_fold():
    shards = sorted(GOLDEN.glob("train_*.tar"))
    ix = taridx.open(GOLDEN / "train.taridx", shards=shards)
    assert ix.shards == tuple(shards)
    assert len(ix) > 0
    for i in range(len(ix)):
        sample = ix[i]
        assert sample and all(isinstance(v, bytes) for v in sample.values())


def test_absent_stem_and_ext():
    ix = taridx.open(GOLDEN / "clean.taridx")
    with pytest.raises(KeyError):
        ix.get("no-such-sample")
    with pytest.raises(KeyError):
        ix.get("sample000001", "png")
    with pytest.raises(KeyError):
        ix.locate("no-such-sample")


def test_pickle_round_trip():
    ix = taridx.open(GOLDEN / "clean.taridx")
    first = ix[0]
    ix.close()
    copy = pickle.loads(pickle.dumps(ix))
    assert len(copy) == len(ix)
    assert copy[0] == first
    assert copy.get("sample000002") == ix.get("sample000002")
    # Pickled before any read too (a DataLoader pickles the dataset for each worker).
    fresh = pickle.loads(pickle.dumps(taridx.open(GOLDEN / "clean.taridx")))
    assert fresh[len(fresh) - 1] == ix[len(ix) - 1]


def test_workers_in_other_processes():
    import multiprocessing as mp

    ix = taridx.open(GOLDEN / "clean.taridx")
    ix[0]  # files open in the parent
    ctx = mp.get_context("spawn")
    with ctx.Pool(2) as pool:
        got = pool.map(_item, [(ix, i) for i in range(len(ix))])
    assert got == [ix[i] for i in range(len(ix))]


def _item(arg):
    ix, i = arg
    return ix[i]


@pytest.mark.parametrize("fold", ["clean", "train"])
def test_build_reproduces_golden(tmp_path: Path, fold: str):
    for shard in GOLDEN.glob(f"{fold}_*.tar"):
        shutil.copy(shard, tmp_path / shard.name)
    out = taridx.build(tmp_path, fold, glzn=True)
    assert out == tmp_path / f"{fold}.taridx"
    assert out.read_bytes() == (GOLDEN / f"{fold}.taridx").read_bytes()
    strict = taridx.build(tmp_path, fold, tmp_path / "strict.taridx")
    assert strict.read_bytes() == (GOLDEN / "strict" / f"{fold}.taridx").read_bytes()


def test_errors(tmp_path: Path):
    with pytest.raises(FileNotFoundError):
        taridx.open(tmp_path / "missing.taridx")
    bad = tmp_path / "bad.taridx"
    data = bytearray((GOLDEN / "clean.taridx").read_bytes())
    data[0] ^= 0xFF
    bad.write_bytes(bytes(data))
    with pytest.raises(binfmt.FormatError) as e:
        taridx.open(bad, shards=[])
    assert isinstance(e.value, taridx.TaridxError)
    assert e.value.format == "taridx" and str(e.value).startswith("byte ")
    with pytest.raises(binfmt.FormatError):
        taridx.open(GOLDEN / "clean.taridx", shards=[]).get("sample000001")
