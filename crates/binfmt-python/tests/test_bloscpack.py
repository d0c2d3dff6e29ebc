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
    # Byte-identical, with the default (zlib-compressed) metadata and with raw metadata.
    assert ob.pack_ndarray_to_bytes(array, chunk_size="4K") == \
        bp.pack_ndarray_to_bytes(array, chunk_size="4K")
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


# --- the stream API: sources, sinks, pack/unpack, append_fp ----------------------------


def _ref_stream():
    bp = reference("bloscpack")
    import bloscpack.abstract_io as rai
    import bloscpack.append as rap
    import bloscpack.args as rargs
    import bloscpack.file_io as rfio
    import bloscpack.memory_io as rmio
    import bloscpack.numpy_io as rnio

    return bp, rai, rfio, rmio, rnio, rap, rargs


def _stream_pack(mod_ai, mod_fio, ns, data: bytes, chunk_size, **kw) -> bytes:
    import io

    out = io.BytesIO()
    chunking = ns.calculate_nchunks(len(data), chunk_size)
    mod_ai.pack(mod_fio.PlainFPSource(io.BytesIO(data)), mod_fio.CompressedFPSink(out),
                *chunking, **kw)
    return out.getvalue()


@pytest.mark.parametrize("checksum", ["None", "adler32", "sha256"])
@pytest.mark.parametrize("chunk_size", [1000, 4096, 1 << 20])
@pytest.mark.parametrize("offsets", [True, False])
def test_stream_pack_identical_to_the_reference(checksum, chunk_size, offsets) -> None:
    bp, rai, rfio, _, _, _, rargs = _ref_stream()
    from binfmt.bloscpack import abstract_io, file_io

    data = (DIR / "ramp.bin").read_bytes()
    meta = {"k": [1, 2]}
    ours = _stream_pack(abstract_io, file_io, ob, data, chunk_size, metadata=meta,
                        blosc_args=ob.BloscArgs(clevel=5),
                        bloscpack_args=ob.BloscpackArgs(checksum=checksum, offsets=offsets),
                        metadata_args=ob.MetadataArgs(meta_codec="None"))
    ref = _stream_pack(rai, rfio, rargs, data, chunk_size, metadata=meta,
                       blosc_args=bp.BloscArgs(clevel=5),
                       bloscpack_args=bp.BloscpackArgs(checksum=checksum, offsets=offsets),
                       metadata_args=bp.MetadataArgs(meta_codec="None"))
    assert ours == ref
    # the same bytes as the path/bytes functions (meta_level 0: those record 0 for an
    # uncompressed metadata section where bloscpack records the level asked for)
    kw = dict(metadata=meta, blosc_args=ob.BloscArgs(clevel=5),
              bloscpack_args=ob.BloscpackArgs(checksum=checksum, offsets=offsets),
              metadata_args=ob.MetadataArgs(meta_codec="None", meta_level=0))
    assert _stream_pack(abstract_io, file_io, ob, data, chunk_size, **kw) == \
        ob.pack_bytes_to_bytes(data, chunk_size=chunk_size, **kw)


def test_stream_unpack_reads_reference_streams_and_back() -> None:
    import io

    bp, rai, rfio, rmio, _, _, rargs = _ref_stream()
    from binfmt.bloscpack import abstract_io, file_io, memory_io

    data = np.linspace(0, 1, 300_000).tobytes()
    ref = _stream_pack(rai, rfio, rargs, data, 65536, metadata={"a": 1})
    # ours reads the reference's file, and the reference reads ours
    source = file_io.CompressedFPSource(io.BytesIO(ref))
    sink = file_io.PlainFPSink(io.BytesIO())
    abstract_io.unpack(source, sink)
    assert sink.output_fp.getvalue() == data and source.metadata == {"a": 1}
    # memory round trip, then through a file object; the reference reads the result
    msink = memory_io.CompressedMemorySink()
    abstract_io.pack(file_io.PlainFPSource(io.BytesIO(data)), msink,
                     *ob.calculate_nchunks(len(data), 65536), metadata={"a": 1})
    plain = memory_io.PlainMemorySink()
    abstract_io.unpack(memory_io.CompressedMemorySource(msink), plain)
    assert b"".join(plain.chunks) == data and len(plain.chunks) == msink.nchunks
    out = io.BytesIO()
    abstract_io.pack(memory_io.PlainMemorySource(plain.chunks), file_io.CompressedFPSink(out),
                     *ob.calculate_nchunks(len(data), 65536))
    assert bp.unpack_bytes_from_bytes(out.getvalue()) == (data, None)
    with pytest.raises(TypeError):
        abstract_io.pack(rfio.PlainFPSource(io.BytesIO(data)), file_io.CompressedFPSink(out),
                         *ob.calculate_nchunks(len(data)))
    with pytest.raises(TypeError):
        abstract_io.unpack(source, rfio.PlainFPSink(io.BytesIO()))


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_stream_numpy_identical_to_the_reference(name: str) -> None:
    import io

    _, _, rfio, _, rnio, _, _ = _ref_stream()
    from binfmt.bloscpack import file_io, memory_io, numpy_io

    a = ARRAYS[name]
    ours, ref = io.BytesIO(), io.BytesIO()
    args = ob.MetadataArgs(meta_codec="None")
    numpy_io.pack_ndarray(a, file_io.CompressedFPSink(ours), chunk_size=4000 - 4000 % max(1, a.itemsize),
                          metadata_args=args)
    rnio.pack_ndarray(a, rfio.CompressedFPSink(ref), chunk_size=4000 - 4000 % max(1, a.itemsize),
                      metadata_args=reference("bloscpack").MetadataArgs(meta_codec="None"))
    assert ours.getvalue() == ref.getvalue()
    back = numpy_io.unpack_ndarray(file_io.CompressedFPSource(io.BytesIO(ref.getvalue())))
    np.testing.assert_array_equal(back, a)
    assert back.dtype == a.dtype and np.isfortran(back) == np.isfortran(a)
    sink = memory_io.CompressedMemorySink()
    numpy_io.pack_ndarray(a, sink)
    np.testing.assert_array_equal(numpy_io.unpack_ndarray(memory_io.CompressedMemorySource(sink)), a)


def test_stream_checksum_mismatch_and_not_a_numpy_array() -> None:
    import io

    from binfmt.bloscpack import abstract_io, file_io, numpy_io

    data = (DIR / "ramp.bin").read_bytes()
    packed = bytearray(ob.pack_bytes_to_bytes(data, chunk_size=4096))
    source = file_io.CompressedFPSource(io.BytesIO(bytes(packed)))
    first = source.offsets[0]
    packed[first + 20] ^= 0xFF
    with pytest.raises(ob.ChecksumMismatch):
        abstract_io.unpack(file_io.CompressedFPSource(io.BytesIO(bytes(packed))),
                           file_io.PlainFPSink(io.BytesIO()))
    with pytest.raises(ob.NotANumpyArray):
        numpy_io.unpack_ndarray(file_io.CompressedFPSource(io.BytesIO(ob.pack_bytes_to_bytes(data))))


APPEND_CASES = {
    # name: (chunk_size of the original, lengths appended in turn, blosc_args kwargs)
    "into_last_chunk": (8192, [100, 200], None),
    "new_chunks": (4096, [10_000], None),
    "full_last_chunk": (4096, [4096, 5000], None),
    "clevel0_file_typesize": (4096, [9000], dict(typesize=None, clevel=0)),
    "explicit_typesize_noshuffle": (4096, [9000], dict(typesize=4, shuffle=False, clevel=9)),
}


@pytest.mark.parametrize("checksum", ["adler32", "None", "sha1"])
@pytest.mark.parametrize("metadata", [None, {"dtype": "u1"}])
@pytest.mark.parametrize("case", sorted(APPEND_CASES))
def test_append_fp_identical_to_the_reference(case: str, metadata, checksum) -> None:
    import io

    bp, rai, rfio, _, _, rap, rargs = _ref_stream()
    chunk_size, lengths, bargs = APPEND_CASES[case]
    ramp = (DIR / "ramp.bin").read_bytes()
    extra = bytes(range(256)) * 200
    orig = bp.pack_bytes_to_bytes(ramp[:10_000], chunk_size=chunk_size, metadata=metadata,
                                  bloscpack_args=bp.BloscpackArgs(checksum=checksum),
                                  metadata_args=bp.MetadataArgs(meta_codec="None"))
    ours, ref = io.BytesIO(orig), io.BytesIO(orig)
    expected = ramp[:10_000]
    for n in lengths:
        got = ob.append_fp(ours, io.BytesIO(extra[:n]), n,
                           blosc_args=None if bargs is None else ob.BloscArgs(**bargs))
        want = rap.append_fp(ref, io.BytesIO(extra[:n]), n,
                             blosc_args=None if bargs is None else bp.BloscArgs(**bargs))
        assert got == want
        ours.seek(0)
        ref.seek(0)
        expected += extra[:n]
    assert ours.getvalue() == ref.getvalue()
    assert ob.unpack_bytes_from_bytes(ours.getvalue()) == (expected, metadata)
    assert bp.unpack_bytes_from_bytes(ours.getvalue()) == (expected, metadata)


def test_append_fp_on_a_file_and_errors(tmp_path: Path) -> None:
    import io

    path = tmp_path / "a.blp"
    data = (DIR / "ramp.bin").read_bytes()
    ob.pack_bytes_to_file(data, path, chunk_size=4096)
    with open(path, "r+b") as f:
        assert ob.append_fp(f, io.BytesIO(data), len(data)) > 0
    assert ob.unpack_bytes_from_file(path)[0] == data * 2
    assert ob.append.append_fp is ob.append_fp  # bloscpack.append.append_fp spelling
    no_offsets = ob.pack_bytes_to_bytes(data, bloscpack_args=ob.BloscpackArgs(offsets=False))
    with pytest.raises(RuntimeError):
        ob.append_fp(io.BytesIO(no_offsets), io.BytesIO(data), len(data))
    small = ob.pack_bytes_to_bytes(data, chunk_size=1024,
                                   bloscpack_args=ob.BloscpackArgs(max_app_chunks=1))
    target = io.BytesIO(small)
    with pytest.raises(ob.NotEnoughSpace):
        ob.append_fp(target, io.BytesIO(data), len(data))
    assert target.getvalue() == small  # refused before anything is written


def test_large_packed_bytes_are_what_the_reference_reads() -> None:
    # Past 4 MiB the packed `bytes` object is made in place (huge pages, `new_bytes.rs`):
    # it is an ordinary, immutable bytes object holding exactly the packed file.
    bp = reference("bloscpack")
    a = np.cumsum(np.random.default_rng(3).standard_normal(3 << 20))  # 24 MiB
    packed = ob.pack_ndarray_to_bytes(a)
    assert type(packed) is bytes and len(packed) > 4 << 20
    assert hash(packed) == hash(bytes(packed))
    np.testing.assert_array_equal(bp.unpack_ndarray_from_bytes(packed), a)
    np.testing.assert_array_equal(ob.unpack_ndarray_from_bytes(packed), a)
