"""binfmt.bloscpack against bloscpack 0.16 (imported with its compatibility alias), on the
bloscpack-header crate's fixtures (written by bloscpack) and on arrays made here."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

import binfmt
import binfmt.bloscpack as ob
from helpers import cli_first_error, fixtures, reference

DIR = fixtures("bloscpack-header")
EXPECTED = json.loads((DIR / "expected.json").read_text())["fixtures"]
GOOD = sorted(n for n, e in EXPECTED.items() if e["reference"].get("ok"))
# version2 is a valid format-2 file (bloscpack 0.2) that bloscpack 0.16 refuses; we read it.
BAD = sorted(n for n, e in EXPECTED.items() if not e["reference"].get("ok") and n != "version2")

ARRAYS = {
    "f8": np.linspace(0, 1, 100_000),
    "i4_2d_be": np.arange(600, dtype=">i4").reshape(20, 30),
    "fortran": np.asfortranarray(np.arange(600, dtype="<i4").reshape(20, 30)),
    "struct": np.zeros(100, dtype=[("x", "<f4"), ("y", "<i2"), ("tag", "S3")]),
    "empty": np.array([], dtype="u1"),
    "bool_3d": np.ones((4, 5, 6), dtype=bool),
    "complex": np.arange(10, dtype=np.complex128),
    "unicode": np.array(["a", "bc"], dtype="<U2"),
}


@pytest.mark.parametrize("name", GOOD)
def test_unpacks_every_reference_file(name: str) -> None:
    ref = EXPECTED[name]["reference"]
    data, meta = ob.unpack_bytes_from_file(DIR / EXPECTED[name]["file"])
    assert len(data) == ref["unpacked_len"]
    assert hashlib.sha256(data).hexdigest() == ref["unpacked_sha256"]
    assert meta == ref["metadata"]


@pytest.mark.parametrize("name", BAD)
def test_refuses_what_the_reference_refuses(name: str) -> None:
    path = DIR / EXPECTED[name]["file"]
    with pytest.raises(binfmt.FormatError) as info:
        ob.unpack_bytes_from_file(path)
    e = info.value
    assert e.format == "bloscpack"
    if e.offset is not None:
        assert str(e).startswith(f"byte {e.offset}: ")
    line = cli_first_error(path)
    if line is not None and "unknown format" not in line and e.kind != "Decompress":
        # `verify` reports structure and digests in file order; unpack stops at the first.
        assert line == f"{path}: {e}"


@pytest.mark.parametrize("name", ["ndarray_c", "ndarray_f", "ndarray_struct"])
def test_reference_ndarrays(name: str) -> None:
    bp = reference("bloscpack")
    path = DIR / f"{name}.blp"
    ours = ob.unpack_ndarray_from_file(path)
    ref = bp.unpack_ndarray_from_file(str(path))
    assert ours.dtype == ref.dtype and ours.shape == ref.shape
    assert ours.flags.f_contiguous == ref.flags.f_contiguous
    assert ours.tobytes(order="A") == ref.tobytes(order="A")
    # Allocated from the metadata first and decompressed into: it owns its memory.
    assert ours.flags.writeable and ours.flags.owndata and ours.base is None


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_ndarray_round_trips_both_ways(name: str, tmp_path: Path) -> None:
    bp = reference("bloscpack")
    array = ARRAYS[name]
    ours = ob.pack_ndarray_to_bytes(array, chunk_size="4K")
    ref = bp.pack_ndarray_to_bytes(array, chunk_size="4K")
    for packed in (ours, ref):
        got = ob.unpack_ndarray_from_bytes(packed)
        assert got.dtype == array.dtype and got.shape == array.shape
        assert got.tobytes(order="A") == np.asanyarray(array).tobytes(order="A")
    back = bp.unpack_ndarray_from_bytes(ours)
    assert back.dtype == array.dtype and np.array_equal(back, array)
    # Byte-identical with raw metadata (zlib streams differ between zlib and miniz_oxide).
    raw = dict(meta_codec="None", meta_level=0)
    assert ob.pack_ndarray_to_bytes(array, chunk_size="4K", metadata_args=ob.MetadataArgs(**raw)) == \
        bp.pack_ndarray_to_bytes(array, chunk_size="4K", metadata_args=bp.MetadataArgs(**raw))
    # Files too.
    ob.pack_ndarray_to_file(array, tmp_path / "a.blp")
    assert np.array_equal(bp.unpack_ndarray_from_file(str(tmp_path / "a.blp")), array)


@pytest.mark.parametrize("checksum", ["None", "adler32", "crc32", "md5", "sha512"])
@pytest.mark.parametrize("cname", ["blosclz", "lz4", "zstd", "zlib"])
def test_bytes_identical_to_the_reference(checksum: str, cname: str) -> None:
    bp = reference("bloscpack")
    data = (DIR / "ramp.bin").read_bytes()
    kw = dict(chunk_size=4096)
    ours = ob.pack_bytes_to_bytes(data, blosc_args=ob.BloscArgs(cname=cname),
                                  bloscpack_args=ob.BloscpackArgs(checksum=checksum), **kw)
    ref = bp.pack_bytes_to_bytes(data, blosc_args=bp.BloscArgs(cname=cname),
                                 bloscpack_args=bp.BloscpackArgs(checksum=checksum), **kw)
    assert ours == ref
    assert ob.unpack_bytes_from_bytes(ref) == (data, None)


def test_file_to_file(tmp_path: Path) -> None:
    bp = reference("bloscpack")
    src = DIR / "ramp_100000.bin"
    ob.pack_file_to_file(src, tmp_path / "o.blp", chunk_size="32K")
    bp.pack_file_to_file(str(src), str(tmp_path / "r.blp"), chunk_size="32K")
    assert (tmp_path / "o.blp").read_bytes() == (tmp_path / "r.blp").read_bytes()
    ob.unpack_file_from_file(tmp_path / "r.blp", tmp_path / "out.bin")
    assert (tmp_path / "out.bin").read_bytes() == src.read_bytes()


@pytest.mark.parametrize("name", ["append_fits", "append_chunks"])
def test_append_like_the_reference(name: str, tmp_path: Path) -> None:
    bp = reference("bloscpack")
    import bloscpack.append as bpa

    ramp = (DIR / "ramp.bin").read_bytes()
    extra = tmp_path / "extra.bin"
    extra.write_bytes((DIR / EXPECTED[name]["input"]).read_bytes()[len(ramp):])
    ours, ref = tmp_path / "ours.blp", tmp_path / "ref.blp"
    bp.pack_bytes_to_file(ramp, str(ours), chunk_size=4096)
    shutil.copy(ours, ref)
    ob.append(ours, extra)
    bpa.append(str(ref), str(extra))
    assert ob.unpack_bytes_from_file(ours)[0] == ob.unpack_bytes_from_file(ref)[0] == \
        (DIR / EXPECTED[name]["input"]).read_bytes()
    assert bp.unpack_bytes_from_file(str(ours))[0] == ramp + extra.read_bytes()


def test_append_refused_without_offsets(tmp_path: Path) -> None:
    path = tmp_path / "n.blp"
    ob.pack_bytes_to_file(b"x" * 100, path, bloscpack_args=ob.BloscpackArgs(offsets=False))
    before = path.read_bytes()
    with pytest.raises(binfmt.FormatError):
        ob.append_bytes(path, b"more")
    assert path.read_bytes() == before


def test_dtype_is_parsed_not_evaluated() -> None:
    packed = ob.pack_bytes_to_bytes(
        b"\0" * 8, metadata={"dtype": "__import__('os').getcwd()", "shape": [1],
                             "order": "C", "container": "numpy"})
    with pytest.raises(binfmt.FormatError):
        ob.unpack_ndarray_from_bytes(packed)
    with pytest.raises(ob.NotANumpyArray):
        ob.unpack_ndarray_from_bytes(ob.pack_bytes_to_bytes(b"abc"))


def test_gil_released_while_unpacking() -> None:
    array = np.random.default_rng(1).random(4 << 20)  # 32 MiB, poorly compressible
    packed = ob.pack_ndarray_to_bytes(array)
    ticks = 0
    done = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1

    thread = threading.Thread(target=count)
    thread.start()
    try:
        before = ticks
        out = ob.unpack_ndarray_from_bytes(packed)
        during = ticks - before
    finally:
        done.set()
        thread.join()
    assert np.array_equal(out, array)
    assert during > 0


def test_reads_format_2_which_the_reference_refuses() -> None:
    v2, _ = ob.unpack_bytes_from_file(DIR / "version2.blp")
    assert v2 == ob.unpack_bytes_from_file(DIR / "max_app_0.blp")[0] == (DIR / "ramp.bin").read_bytes()


def test_exception_classes_by_the_reference_names() -> None:
    bloscpack = reference("bloscpack")
    import binfmt.bloscpack.exceptions as ours

    for name in dir(bloscpack.exceptions):
        ref = getattr(bloscpack.exceptions, name)
        if not (isinstance(ref, type) and issubclass(ref, BaseException)):
            continue
        cls = getattr(ob, name)
        assert cls is getattr(ours, name), name
        # Every base of the reference class is a base of ours (RuntimeError, ValueError…).
        for base in ref.__mro__[1:]:
            if base.__module__ == "builtins":
                assert issubclass(cls, base), (name, base)
        if issubclass(ref, (RuntimeError, ValueError)) and ref is not bloscpack.exceptions.FileNotFound:
            assert issubclass(cls, binfmt.FormatError), name


def test_flipped_payload_byte_is_a_checksum_mismatch() -> None:
    bloscpack = reference("bloscpack")
    data = b"hello world" * 100
    packed = bytearray(ob.pack_bytes_to_bytes(data, chunk_size=100))
    assert packed == bytearray(bloscpack.pack_bytes_to_bytes(data, chunk_size=100))
    packed[-5] ^= 1  # the last chunk's payload
    with pytest.raises(bloscpack.exceptions.ChecksumMismatch):
        bloscpack.unpack_bytes_from_bytes(bytes(packed))
    with pytest.raises(ob.ChecksumMismatch) as info:
        ob.unpack_bytes_from_bytes(bytes(packed))
    e = info.value
    assert isinstance(e, RuntimeError) and isinstance(e, binfmt.FormatError)
    assert e.kind == "ChunkDigestMismatch" and str(e).startswith(f"byte {e.offset}: ")


def test_format_version_mismatch_like_the_reference() -> None:
    bloscpack = reference("bloscpack")
    packed = bytearray(ob.pack_bytes_to_bytes(b"abc" * 100, chunk_size=100))
    packed[4] = 9
    with pytest.raises(bloscpack.exceptions.FormatVersionMismatch):
        bloscpack.unpack_bytes_from_bytes(bytes(packed))
    with pytest.raises(ob.FormatVersionMismatch) as info:
        ob.unpack_bytes_from_bytes(bytes(packed))
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, binfmt.FormatError)


@pytest.mark.parametrize("chunk_size", [3, 12, "3B"])
def test_chunk_size_not_a_multiple_of_the_item_size(tmp_path: Path, chunk_size) -> None:
    bloscpack = reference("bloscpack")
    a = np.arange(10, dtype=np.int64)
    with pytest.raises(bloscpack.exceptions.ChunkSizeTypeSizeMismatch):
        bloscpack.pack_ndarray_to_bytes(a, chunk_size=chunk_size)
    with pytest.raises(ob.ChunkSizeTypeSizeMismatch) as info:
        ob.pack_ndarray_to_bytes(a, chunk_size=chunk_size)
    assert isinstance(info.value, ValueError)
    out = tmp_path / "a.blp"
    with pytest.raises(ob.ChunkSizeTypeSizeMismatch):
        ob.pack_ndarray_to_file(a, out, chunk_size=chunk_size)
    assert not out.exists()
    # A multiple, or larger than the array (one chunk), is accepted, as by the reference.
    for ok in (16, 1000, "1M"):
        packed = ob.pack_ndarray_to_bytes(a, chunk_size=ok)
        same = ob.unpack_ndarray_from_bytes(packed)
        assert same.tolist() == a.tolist()
        assert bloscpack.unpack_ndarray_from_bytes(packed).tolist() == a.tolist()


def test_unknown_checksum_and_codec() -> None:
    bloscpack = reference("bloscpack")
    with pytest.raises(bloscpack.exceptions.NoSuchChecksum):
        bloscpack.pack_bytes_to_bytes(b"abc" * 100, chunk_size=100,
                                      bloscpack_args=bloscpack.BloscpackArgs(checksum="nope"))
    with pytest.raises(ob.NoSuchChecksum):
        ob.pack_bytes_to_bytes(b"abc" * 100, chunk_size=100,
                               bloscpack_args=ob.BloscpackArgs(checksum="nope"))
    with pytest.raises(ob.NoSuchCodec):
        ob.pack_bytes_to_bytes(b"abc", metadata={"a": 1},
                               metadata_args=ob.MetadataArgs(meta_codec="nope"))
    with pytest.raises(ob.MetadataSectionTooSmall) as info:
        ob.pack_bytes_to_bytes(b"abc", metadata={"a": 1},
                               metadata_args=ob.MetadataArgs(max_meta_size=2, meta_codec="None"))
    assert isinstance(info.value, RuntimeError)


def test_not_enough_space_when_appending(tmp_path: Path) -> None:
    path = tmp_path / "a.blp"
    ob.pack_bytes_to_file(b"x" * 100, path, chunk_size=50,
                          bloscpack_args=ob.BloscpackArgs(max_app_chunks=1))
    with pytest.raises(ob.NotEnoughSpace) as info:
        ob.append_bytes(path, b"y" * 1000)
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, binfmt.FormatError)


def test_args_are_mappings_like_the_reference() -> None:
    bloscpack = reference("bloscpack")
    import collections.abc

    assert ob.BloscpackArgs(checksum=None)["checksum"] == "None"
    assert ob.BloscpackArgs(checksum=None).checksum == "None"
    for name, kw in (("BloscArgs", {}), ("BloscArgs", {"typesize": 4, "clevel": 1, "cname": "lz4"}),
                     ("BloscpackArgs", {"offsets": False, "checksum": None}),
                     ("BloscpackArgs", {"max_app_chunks": 5}),
                     ("MetadataArgs", {"meta_codec": "None", "max_meta_size": 7})):
        ref, ours = getattr(bloscpack, name)(**kw), getattr(ob, name)(**kw)
        assert isinstance(ours, collections.abc.MutableMapping)
        assert list(ours) == list(ref) and len(ours) == len(ref)
        for key in ref:
            if not callable(ref[key]):
                assert ours[key] == ref[key], (name, key)
                assert f"{key}={ref[key]!r}" in repr(ours)
        assert repr(ours).startswith(f"{name}(")
    args = ob.BloscArgs()
    args["clevel"] = 3
    assert args.clevel == 3 and dict(args)["clevel"] == 3
    with pytest.raises(KeyError):
        args["nope"] = 1
    with pytest.raises(KeyError):
        args["nope"]
    with pytest.raises(NotImplementedError):
        del args["clevel"]
    copied = args.copy()
    copied["clevel"] = 9
    assert args.clevel == 3
    # **args works, as with the reference.
    assert ob.BloscArgs(**args)["clevel"] == 3
    # And they still drive packing: checksum None packs without digests.
    data = b"abc" * 1000
    assert ob.pack_bytes_to_bytes(data, chunk_size=512, bloscpack_args=ob.BloscpackArgs(checksum=None)) == \
        bloscpack.pack_bytes_to_bytes(data, chunk_size=512, bloscpack_args=bloscpack.BloscpackArgs(checksum=None))


def test_set_nthreads_like_blosc() -> None:
    default = ob.set_nthreads(1)
    try:
        assert default == min(os.cpu_count() or 1, 8)
        assert ob.set_nthreads(3) == 1
        for bad in (0, -1, 257):
            with pytest.raises(ValueError):
                ob.set_nthreads(bad)
        assert ob.set_nthreads(3) == 3
    finally:
        ob.set_nthreads(default)


@pytest.mark.parametrize("order", ["C", "F"])
def test_thread_count_changes_nothing(order: str, tmp_path: Path) -> None:
    """Pack and unpack give the same bytes and arrays on 1, 2 and 5 threads, to and from
    bytes and files; the unpacked array is a writable array owning its memory."""
    walk = np.cumsum(np.random.default_rng(3).standard_normal((700, 301)), axis=1)
    array = np.asarray(walk, order=order)
    raw = dict(meta_codec="None", meta_level=0)
    default = ob.set_nthreads(1)
    try:
        expected = ob.pack_ndarray_to_bytes(array, chunk_size="64K",
                                            metadata_args=ob.MetadataArgs(**raw))
        for n in (1, 2, 5):
            ob.set_nthreads(n)
            packed = ob.pack_ndarray_to_bytes(array, chunk_size="64K",
                                              metadata_args=ob.MetadataArgs(**raw))
            assert packed == expected
            path = tmp_path / f"{n}.blp"
            ob.pack_ndarray_to_file(array, path, chunk_size="64K",
                                    metadata_args=ob.MetadataArgs(**raw))
            assert path.read_bytes() == expected
            for got in (ob.unpack_ndarray_from_bytes(packed), ob.unpack_ndarray_from_file(path)):
                assert got.flags.owndata and got.base is None and got.flags.writeable
                assert got.flags.f_contiguous == (order == "F")
                assert np.array_equal(got, array)
            assert ob.unpack_bytes_from_file(path)[0] == ob.unpack_bytes_from_bytes(packed)[0]
    finally:
        ob.set_nthreads(default)
    bp = reference("bloscpack")
    assert expected == bp.pack_ndarray_to_bytes(array, chunk_size="64K",
                                                metadata_args=bp.MetadataArgs(**raw))


def test_truncated_file_is_an_error(tmp_path: Path) -> None:
    array = np.arange(300_000, dtype=np.float64)
    path = tmp_path / "t.blp"
    ob.pack_ndarray_to_file(array, path, chunk_size="64K")
    path.write_bytes(path.read_bytes()[:-5000])
    with pytest.raises((binfmt.FormatError, OSError)):
        ob.unpack_ndarray_from_file(path)
    with pytest.raises((FileNotFoundError, binfmt.FormatError, OSError)):
        ob.unpack_ndarray_from_file(tmp_path / "missing.blp")
