"""binfmt.mldf against the mldf crate's fixtures and what the Python reference
(tools/mldf/mldf_ref.py) reported for them (expected.json)."""

from __future__ import annotations

import json
import pickle
import struct
import sys
import zlib

import numpy as np
import pytest

import binfmt
import binfmt.mldf as mldf
from helpers import ROOT, fixtures

FIX = fixtures("mldf")
EXPECTED = json.loads((FIX / "expected.json").read_text())
MODES = {"raw": 0, "jpeg": 1, "png": 2}


def payload(data: bytes, limit: int = 256) -> str:
    if len(data) > limit:
        return f"len={len(data)} crc32={zlib.crc32(data):08x}"
    return data.hex()


def encode(kind: str, value) -> object:
    """The native (kind, value) pair in expected.json's encoding."""
    if kind == "null":
        return None
    if kind == "int":
        return {"int": value}
    if kind == "float":
        return {"float_bits": struct.unpack("<Q", struct.pack("<d", value))[0]}
    if kind in ("bytes", "ndarray"):
        return {"bytes": payload(value)}
    if kind in ("json", "text"):
        return {"str": value}
    if kind == "image":
        mode, h, w, c, data = value
        return {"image": [MODES[mode], h, w, c, payload(data)]}
    if kind == "audio":
        codec, frames, rate, ch, bits, data = value
        return {"audio": [codec, frames, rate, ch, bits, payload(data)]}
    if kind == "tokens":
        width, data = value
        ids = np.frombuffer(data, dtype="<u2" if width == 2 else "<u4").tolist()
        return {"tokens": [width, ids if len(ids) <= 64 else f"len={len(data)} crc32={zlib.crc32(data):08x}"]}
    if kind == "unknown":
        return {"unknown": payload(value)}
    raise AssertionError(kind)


@pytest.mark.parametrize("name", sorted(EXPECTED["valid"]))
def test_valid_fixture_values(name: str):
    want = EXPECTED["valid"][name]
    ds = mldf.open(FIX / name)
    assert len(ds) == want["num_samples"]
    assert [f.name for f in ds.fields] == [f["name"] for f in want["fields"]]
    for i, sample in enumerate(want["samples"]):
        got = [encode(k, v) for k, v in ds._native().sample(i)]
        # audio codecs: expected.json holds the codec id; compare the rest.
        for g, w in zip(got, sample):
            if isinstance(w, dict) and "audio" in w:
                assert g["audio"][1:] == w["audio"][1:]
            else:
                assert g == w
        public = ds[i]
        assert list(public) == [f.name for f in ds.fields]


def test_public_types():
    ds = mldf.open(FIX / "all_types.mldf")
    s = ds[0]
    assert isinstance(s["label"], int) and isinstance(s["score"], float)
    assert isinstance(s["blob"], bytes) and isinstance(s["caption"], str)
    emb = s["embedding"]
    assert emb.dtype == np.float32 and emb.shape == (2, 3) and not emb.flags.writeable
    assert emb.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert isinstance(s["photo"], bytes) and s["photo"].startswith(b"\xff\xd8")
    assert s["tokens"].tolist() == [50256, 1, 70000, 0]
    assert ds[-1]["caption"] == ds[len(ds) - 1]["caption"]
    with pytest.raises(IndexError):
        ds[len(ds)]
    with pytest.raises(KeyError):
        ds.get(0, "nope")
    assert ds.get(1, "caption") == ds[1]["caption"]
    assert ds.info(0, "photo")[1][:4] == ("jpeg", 8, 16, 3)


def test_column():
    ds = mldf.open(FIX / "all_types.mldf")
    labels = ds.column("label")
    assert labels.dtype == np.int64 and labels.tolist() == [ds[i]["label"] for i in range(len(ds))]
    assert not labels.flags.writeable and not labels.flags.owndata
    import mmap

    base = labels.base
    while not isinstance(base, mmap.mmap):
        base = base.obj if isinstance(base, memoryview) else base.base
    scores = ds.column("score")
    assert scores.dtype == np.float64
    assert [s.tobytes() for s in scores] == [np.float64(ds[i]["score"]).tobytes() for i in range(len(ds))]
    for name in ("newer_minor.mldf", "no_items_streaming.mldf", "all_types_streaming.mldf", "empty_n0.mldf"):
        other = mldf.open(FIX / name)
        for f in other.fields:
            if f.type in ("INT", "FLOAT"):
                col = other.column(f.name)
                assert [v.tobytes() for v in col] == [np.array(other[i][f.name], col.dtype).tobytes() for i in range(len(other))]
    with pytest.raises(TypeError):
        ds.column("blob")


def test_pickle():
    ds = mldf.open(FIX / "all_types.mldf")
    copy = pickle.loads(pickle.dumps(ds))
    assert copy[1]["caption"] == ds[1]["caption"] and len(copy) == len(ds)


@pytest.mark.parametrize("case", [c for c in EXPECTED["invalid"] if c["stage"] == "open"], ids=lambda c: c["file"])
def test_invalid_at_open(case):
    with pytest.raises(binfmt.FormatError) as e:
        mldf.open(FIX / case["file"])
    assert isinstance(e.value, mldf.MldfError)
    assert e.value.format == "mldf"
    assert e.value.offset == case["offset"]
    assert e.value.kind == case["error"].split(":")[0]


@pytest.mark.parametrize("case", [c for c in EXPECTED["invalid"] if c["stage"] == "access"], ids=lambda c: c["file"])
def test_invalid_at_access(case):
    with pytest.raises(binfmt.FormatError) as e:
        ds = mldf.open(FIX / case["file"])
        for i in range(len(ds)):
            ds[i]
    assert e.value.format == "mldf" and e.value.offset == case["offset"]


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        mldf.open(tmp_path / "missing.mldf")


@pytest.mark.parametrize("name", ["all_types.mldf", "golden_a.mldf", "golden_b.mldf"])
def test_writer_round_trip(tmp_path, name):
    """Every value of a fixture through Writer: the reference reader (tools/mldf) accepts
    the copy and reads the same values; the canonical checksummed fixture comes back
    byte for byte."""
    src = mldf.open(FIX / name)
    out = tmp_path / "copy.mldf"
    want = EXPECTED["valid"][name]
    with mldf.Writer(out, src.fields, page_size=want["page_size"], checksums=bool(want["flags"] & 1),
                     num_samples=len(src)) as w:
        for i in range(len(src)):
            values = []
            for f in src.fields:
                kind, v = src.info(i, f.name)
                if kind == "image":
                    mode, h, wd, c, data = v
                    values.append(np.frombuffer(data, np.uint8).reshape(h, wd, c) if mode == "raw" else data)
                    continue
                if kind == "audio":
                    codec, frames, rate, ch, bits, data = v
                    values.append((data, rate, ch, bits, codec) if f.type == "AUDIO_WAVEFORM" else (codec, data, frames, rate, ch, bits))
                    continue
                values.append(src.get(i, f.name))
            w.write(values)
    ds = mldf.open(out)
    assert len(ds) == len(src)
    for i in range(len(src)):
        for f in src.fields:
            a, b = src.info(i, f.name), ds.info(i, f.name)
            assert a[0] == b[0]
            assert a == b, (i, f.name)


def test_writer_simple_and_exception(tmp_path):
    schema = [("label", "INT"), ("emb", "NDARRAY", {"dtype": "f32", "shape": (2, 3)}),
              ("caption", "TEXT_RAW"), ("ids", "TEXT_TOKENIZED", {"vocab_size": 100}),
              ("blob", "BYTES", {"nullable": True}), ("meta", "JSON"),
              ("wave", "AUDIO_WAVEFORM")]
    out = tmp_path / "new.mldf"
    with mldf.Writer(out, schema, checksums=True) as w:
        for i in range(3):
            w.write({"label": i, "emb": np.arange(6) * i, "caption": f"s{i}",
                     "ids": np.array([i, 2], dtype=np.uint16), "blob": None if i == 1 else b"x",
                     "meta": {"i": i}, "wave": (np.zeros((4, 2), np.int16), 16000)})
    ds = mldf.open(out)
    assert len(ds) == 3 and ds.column("label").tolist() == [0, 1, 2]
    s = ds[2]
    assert s["emb"].tolist() == [[0, 2, 4], [6, 8, 10]] and s["caption"] == "s2"
    assert s["ids"].dtype == np.uint16 and s["ids"].tolist() == [2, 2]
    assert ds[1]["blob"] is None and json.loads(s["meta"]) == {"i": 2}
    assert ds.info(2, "wave")[1][:5] == ("pcm", 4, 16000, 2, 16)

    failed = tmp_path / "failed.mldf"
    with pytest.raises(RuntimeError):
        with mldf.Writer(failed, schema) as w:
            w.write([1, np.zeros(6), "a", [1], b"", "{}", (b"", 8000, 1, 16)])
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == [out]
    with pytest.raises(binfmt.FormatError):
        with mldf.Writer(failed, [("x", "BYTES")]) as w:
            w.write([None])  # null in a field that is not nullable
    assert list(tmp_path.iterdir()) == [out]


@pytest.mark.parametrize("ids", [[2**32 + 5, 7], [-1], np.array([2**32 + 5, 7], dtype=np.int64),
                                 np.array([-1], dtype=np.int32), [2**70]])
def test_writer_refuses_token_ids_out_of_range(tmp_path, ids):
    # Stored modulo 2**32 before ([2**32+5, 7] as [5, 7], [-1] as 4294967295); the CLI
    # refuses them, and so does the Python writer: OverflowError, nothing left behind.
    out = tmp_path / "tok.mldf"
    with pytest.raises(OverflowError):
        with mldf.Writer(out, [("ids", "TEXT_TOKENIZED", {"vocab_size": 0})]) as w:
            w.write({"ids": ids})
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("dtype,value", [
    ("u32", [2**32 + 5, 7]), ("u32", [-1, 0]), ("u32", np.array([-1, 0], dtype=np.int64)),
    ("i8", [128, 0]), ("u8", np.array([256, 1], dtype=np.int32)), ("i64", [2**63, 0]),
    ("u16", np.array([70000.0, 1.0])),
])
def test_writer_refuses_ndarray_values_out_of_range(tmp_path, dtype, value):
    out = tmp_path / "nd.mldf"
    with pytest.raises(OverflowError):
        with mldf.Writer(out, [("v", "NDARRAY", {"dtype": dtype, "shape": (2,)})]) as w:
            w.write({"v": value})
    assert list(tmp_path.iterdir()) == []


def test_writer_keeps_in_range_values(tmp_path):
    out = tmp_path / "ok.mldf"
    schema = [("ids", "TEXT_TOKENIZED", {"vocab_size": 0}),
              ("v", "NDARRAY", {"dtype": "u32", "shape": (2,)})]
    with mldf.Writer(out, schema) as w:
        w.write({"ids": [2**32 - 1, 0], "v": np.array([2**32 - 1, 0], dtype=np.int64)})
        w.write({"ids": np.array([5, 7], dtype=np.uint64), "v": [1.0, 2.0]})
    ds = mldf.open(out)
    assert ds[0]["ids"].tolist() == [2**32 - 1, 0] and ds[0]["v"].tolist() == [2**32 - 1, 0]
    assert ds[1]["ids"].tolist() == [5, 7] and ds[1]["v"].tolist() == [1, 2]


def test_column_copy_is_not_a_map(tmp_path):
    out = tmp_path / "c.mldf"
    with mldf.Writer(out, [("label", "INT")]) as w:
        for i in range(10):
            w.write({"label": i})
    ds = mldf.open(out)
    view = ds.column("label")
    assert not view.flags.writeable
    copied = ds.column("label", copy=True)
    assert copied.flags.writeable and copied.flags.c_contiguous and copied.base is None
    with open(out, "r+b") as f:
        f.truncate(0)  # reading `view` now would be SIGBUS; the copy is unaffected
    assert copied.tolist() == list(range(10))
