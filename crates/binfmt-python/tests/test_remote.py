"""URLs wherever paths are (the `remote` cargo feature): ``file://`` URLs of the crates'
fixtures (object_store's local filesystem, no server), compared with the path results."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from binfmt import _binfmt, kastore, taco, taridx

from helpers import fixtures

pytestmark = pytest.mark.skipif(not _binfmt.remote_enabled(), reason="built without `remote`")

TACO = sorted(p for p in fixtures("taco-header").glob("*.taco"))
GOLDEN = fixtures("taridx") / "golden"
KAS = sorted(p for p in (fixtures("kastore") / "valid").glob("*") if p.is_file())


def url(p) -> str:
    return p.resolve().as_uri()


def test_is_url():
    assert _binfmt.is_url("file:///tmp/x")
    assert _binfmt.is_url("s3://bucket/key")
    assert not _binfmt.is_url("/tmp/x")
    assert not _binfmt.is_url("relative/path.taco")


@pytest.mark.parametrize("path", TACO, ids=lambda p: p.name)
def test_taco_read_header_url(path):
    try:
        want = taco.read_header(path)
    except taco.TacoError as e:
        with pytest.raises(taco.TacoError) as got:
            taco.read_header(url(path))
        assert str(got.value) == str(e)
        return
    assert taco.read_header(url(path)) == want


@pytest.mark.parametrize("path", TACO, ids=lambda p: p.name)
def test_taco_members_url(path):
    try:
        want = taco.members(path)
    except taco.TacoError:
        with pytest.raises(taco.TacoError):
            taco.members(url(path))
        return
    assert taco.members(url(path)) == want


def test_taco_missing_url(tmp_path):
    with pytest.raises(OSError) as e:
        taco.read_header(url(tmp_path / "absent.taco"))
    assert "absent.taco" in str(e.value)


def test_taridx_url_matches_path():
    shards = sorted(GOLDEN.glob("clean_*.tar"))
    local = taridx.open(GOLDEN / "clean.taridx")
    remote = taridx.open(url(GOLDEN / "clean.taridx"), shards=[url(s) for s in shards])
    assert len(remote) == len(local) and remote.n_rows == local.n_rows
    assert remote.extensions == local.extensions
    for i in range(len(local)):
        assert remote[i] == local[i]
    loaded = pickle.loads(pickle.dumps(remote))
    assert loaded[0] == local[0]


def test_taridx_url_get():
    shards = sorted(GOLDEN.glob("clean_*.tar"))
    import tarfile

    with tarfile.open(shards[0]) as tf:
        name = next(m.name for m in tf.getmembers() if m.isfile())
    stem = name.rsplit("/", 1)[-1].split(".", 1)[0]
    local = taridx.open(GOLDEN / "clean.taridx")
    remote = taridx.open(url(GOLDEN / "clean.taridx"), shards=[url(s) for s in shards])
    assert remote.get(stem) == local.get(stem)
    where = remote.locate(stem)
    assert all(isinstance(p, str) and p.startswith("file://") for p, _, _ in where.values())


def test_taridx_url_needs_shards():
    with pytest.raises(ValueError, match="no directory to list"):
        taridx.open(url(GOLDEN / "clean.taridx"))


@pytest.mark.parametrize("path", KAS, ids=lambda p: p.name)
def test_kastore_load_url(path):
    try:
        want = kastore.load(path, read_all=True)
    except Exception as e:  # noqa: BLE001 - compare the failure's type
        with pytest.raises(type(e)):
            kastore.load(url(path))
        return
    got = kastore.load(url(path))
    assert list(got) == list(want)
    for k in want:
        assert got[k].dtype == want[k].dtype
        np.testing.assert_array_equal(got[k], want[k])
        assert not got[k].flags.writeable


MLDF = sorted(fixtures("mldf").glob("*.mldf"))


@pytest.mark.parametrize("path", MLDF, ids=lambda p: p.name)
def test_mldf_open_url(path):
    from binfmt import mldf

    try:
        local = mldf.open(path)
    except Exception as e:  # noqa: BLE001 - compare the failure's type
        with pytest.raises(type(e)):
            mldf.open(url(path))
        return
    remote = mldf.open(url(path))
    assert len(remote) == len(local)
    assert remote.fields == local.fields
    for i in range(len(local)):
        np.testing.assert_equal(remote[i], local[i])
    if any(f.type in ("INT", "FLOAT") for f in local.fields):
        name = next(f.name for f in local.fields if f.type in ("INT", "FLOAT"))
        with pytest.raises(NotImplementedError):
            remote.column(name)
    loaded = pickle.loads(pickle.dumps(remote))
    assert len(loaded) == len(local)
