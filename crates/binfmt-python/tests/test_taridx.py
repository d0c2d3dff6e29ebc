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
        # Samples carry their stem as `__key__`, as webdataset and wids samples do.
        expected.setdefault(stem, {"__key__": stem})[ext] = payload
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
        key = sample.pop("__key__")
        assert isinstance(key, str)
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
        # A timeout: a worker that dies (say, the package reinstalled under it) loses its
        # task and `map` would wait forever.
        got = pool.map_async(_item, [(ix, i) for i in range(len(ix))]).get(timeout=300)
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


# -- a dataset for data loaders ---------------------------------------------------------


def _fold(tmp_path: Path, n: int, shards: int = 2) -> Path:
    """A fold of `n` samples (`.cls` and `.txt` members) over `shards` shards, indexed."""
    import io

    per = -(-n // shards)
    for s in range(shards):
        with tarfile.open(tmp_path / f"big_{s:04d}.tar", "w", format=tarfile.USTAR_FORMAT) as tf:
            for i in range(s * per, min(n, (s + 1) * per)):
                for ext, data in (("cls", str(i % 10).encode()), ("txt", f"text {i}".encode())):
                    info = tarfile.TarInfo(f"s{i:06d}.{ext}")
                    info.size = len(data)
                    tf.addfile(info, io.BytesIO(data))
    return taridx.build(tmp_path, "big")


def test_pickles_its_paths_alone_and_reopens_lazily(tmp_path: Path) -> None:
    index = _fold(tmp_path, 3000)
    ix = taridx.open(index)
    assert len(ix) == 3000
    blob = pickle.dumps(ix)
    assert len(blob) < 64 * 1024
    assert len(blob) < 1024  # paths and options only: no sample table
    copy = pickle.loads(blob)
    assert copy._reader is None  # nothing opened until first access
    assert copy[2999] == {"__key__": "s002999", "cls": b"9", "txt": b"text 2999"}
    assert len(copy) == 3000 and copy._reader is not None


def test_samples_carry_their_key(tmp_path: Path) -> None:
    ix = taridx.open(_fold(tmp_path, 50))
    for i in (0, 17, 49, -1):
        sample = ix[i]
        key = sample["__key__"]
        assert key == f"s{i % 50:06d}"
        assert ix.get(key) == {k: v for k, v in sample.items() if k != "__key__"}
    with pytest.raises(IndexError):
        ix[50]
    with pytest.raises(IndexError):
        ix[-51]


def test_get_many_in_the_keys_order(tmp_path: Path) -> None:
    ix = taridx.open(_fold(tmp_path, 200, shards=3))
    keys = ["s000150", "s000003", "s000150.txt", "s000099", "s000100"]
    got = ix.get_many(keys)
    assert [s["__key__"] for s in got] == ["s000150", "s000003", "s000150", "s000099", "s000100"]
    for key, sample in zip(keys, got):
        stem = key.split(".")[0]
        assert sample == {"__key__": stem, **ix.get(stem)}
    assert ix.get_many([]) == []
    with pytest.raises(KeyError):
        ix.get_many(["s000001", "no-such-sample"])


def test_getitems_is_the_batched_getitem(tmp_path: Path) -> None:
    ix = taridx.open(_fold(tmp_path, 120, shards=4))
    indices = [119, 0, 64, 64, 3, -2]
    assert ix.__getitems__(indices) == [ix[i] for i in indices]
    assert ix.__getitems__([]) == []
    with pytest.raises(IndexError):
        ix.__getitems__([0, 120])
    # In a worker: unpickled, then a batch first.
    assert pickle.loads(pickle.dumps(ix)).__getitems__([5, 1]) == [ix[5], ix[1]]


def test_missing_shard_in_a_batch(tmp_path: Path) -> None:
    index = _fold(tmp_path, 20, shards=2)
    ix = taridx.open(index, shards=[tmp_path / "big_0000.tar"])
    with pytest.raises(taridx.TaridxError) as e:
        ix.__getitems__([0, 19])
    assert e.value.kind == "NoShard"
