"""bloscpack's stream API (``bloscpack.abstract_io``, ``file_io``, ``memory_io``,
``numpy_io``, ``append.append_fp``), on binfmt's native (de)compression.

The public names live in the submodules :mod:`binfmt.bloscpack.abstract_io`,
:mod:`~binfmt.bloscpack.file_io`, :mod:`~binfmt.bloscpack.memory_io` and
:mod:`~binfmt.bloscpack.numpy_io`, as in bloscpack 0.16; this module holds the code.

How it works: :func:`pack` drives the sink exactly as bloscpack's does (``configure``,
``write_bloscpack_header``, ``write_metadata``, ``init_offsets``, ``put(i, compressed)``
for each chunk, ``finalize``), so the files written through :class:`CompressedFPSink`
are byte-for-byte bloscpack's (the chunks are c-blosc 1.21's, the header and offsets
are encoded here; a zlib-compressed metadata section may differ in its deflate bytes, as
for every binfmt writer). The chunks a source yields are compressed in batches (at most
64 MiB of input at a time, several chunks in parallel, without the GIL) by the native
packer: a batch of input is held in memory, never the whole source.
:func:`unpack` checks each chunk's digest, then decompresses batches of chunks natively
(in parallel) straight into the sink (into the array, for :class:`PlainNumpySink`).
"""

from __future__ import annotations

import itertools
import json
import struct
import sys
import zlib
import hashlib
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from .. import _binfmt
from .._errors import FormatError
from .exceptions import (
    ChecksumMismatch,
    ChunkingException,
    ChunkSizeTypeSizeMismatch,
    FormatVersionMismatch,
    NoSuchChecksum,
    NoSuchCodec,
    NonUniformTypesize,
    NotEnoughSpace,
    ObjectNumpyArrayRejection,
)

_FORMAT = "bloscpack"
MAGIC = b"blpk"
FORMAT_VERSION = 3
BLOSC_HEADER_LENGTH = 16
BLOSCPACK_HEADER_LENGTH = 32
METADATA_HEADER_LENGTH = 32
MAX_FORMAT_VERSION = 255
MAX_CHUNKS = (2 ** 63) - 1
MAX_META_SIZE = 2 ** 32 - 1
MAX_CLEVEL = 9
BLOSC_MAX_BUFFERSIZE = 2 ** 31 - 1 - 16
BLOSC_MAX_TYPESIZE = 255
CODECS_AVAIL = ["None", "zlib"]
# Input (de)compressed per native call.
_BATCH_BYTES = 64 << 20
_HEADER = struct.Struct("<4sBBBBiiqq")


def _pkg():
    """The package module, looked up at call time (``mock.patch`` of its names works)."""
    return sys.modules["binfmt.bloscpack"]


# --- checksums (bloscpack.checksums) ---------------------------------------------------


class Hash:
    """A chunk or metadata checksum, as bloscpack's ``Hash``: ``name``, ``size`` (digest
    bytes), and called on bytes returns the digest."""

    def __init__(self, name: str, size: int, function: Callable[[Any], bytes]) -> None:
        self.name, self.size, self._function = name, size, function

    def __call__(self, data: Any) -> bytes:
        return self._function(data)

    def __repr__(self) -> str:
        return f"Hash({self.name!r}, {self.size})"


def _zlib_hash(func: Callable[[Any], int]) -> tuple[int, Callable[[Any], bytes]]:
    return 4, lambda data: struct.pack("<I", func(data) & 0xFFFFFFFF)


def _hashlib_hash(name: str) -> tuple[int, Callable[[Any], bytes]]:
    return hashlib.new(name).digest_size, lambda data: hashlib.new(name, data).digest()


CHECKSUMS = [Hash("None", 0, lambda data: b""),
             Hash("adler32", *_zlib_hash(zlib.adler32)),
             Hash("crc32", *_zlib_hash(zlib.crc32)),
             *(Hash(n, *_hashlib_hash(n))
               for n in ("md5", "sha1", "sha224", "sha256", "sha384", "sha512"))]
CHECKSUMS_AVAIL = [c.name for c in CHECKSUMS]
CHECKSUMS_LOOKUP = {c.name: c for c in CHECKSUMS}


def _check_valid_checksum(checksum: Any) -> None:
    if checksum not in CHECKSUMS_AVAIL:
        raise NoSuchChecksum(f"checksum '{checksum}' does not exist", format=_FORMAT,
                             kind="UnknownChecksum", fault="caller")


# --- headers (bloscpack.headers) -------------------------------------------------------


def check_range(name: str, value: Any, min_: int, max_: int) -> None:
    """bloscpack's ``check_range``: ``TypeError`` unless an int, ``ValueError`` unless in
    ``[min_, max_]``."""
    if not isinstance(value, int):
        raise TypeError(f"'{name}' must be of type 'int'")
    if not min_ <= value <= max_:
        raise ValueError(f"'{name}' must be in the range {min_} <= n <= {max_}, not '{value}'")


def _mapping_base():
    return _pkg()._ArgsMapping


def _truncated(what: str, offset: int | None = None) -> FormatError:
    return FormatError(f"the file ends inside the {what}", offset=offset, format=_FORMAT,
                       kind="Truncated", fault="input")


def _read_exact(fp: Any, n: int, what: str) -> bytes:
    data = fp.read(n)
    if data is None or len(data) != n:
        raise _truncated(what)
    return bytes(data)


def _nbytes(compressed: Any) -> int:
    """The uncompressed size a blosc chunk declares (its header's ``nbytes``)."""
    if len(compressed) < BLOSC_HEADER_LENGTH:
        raise FormatError(f"a blosc chunk of {len(compressed)} bytes has no header",
                          format=_FORMAT, kind="Truncated", fault="input")
    return int.from_bytes(bytes(compressed[4:8]), "little")


# --- native chunk (de)compression ------------------------------------------------------


def _shuffle(value: Any) -> int:
    return _pkg()._shuffle(value)


def _as_u8(data: Any) -> Any:
    """bytes as they are; any other buffer as a 1-D uint8 array over it (no copy when
    it is contiguous)."""
    if isinstance(data, bytes):
        return data
    if isinstance(data, np.ndarray):
        flat = data.reshape(-1, order="A") if data.flags.forc else np.ascontiguousarray(data)
        return flat.view(np.uint8).reshape(-1) if flat.dtype != np.uint8 else flat
    return np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8) if len(memoryview(data)) \
        else b""


def _compress(data: Any, chunk_size: int, blosc_args: Any) -> list[bytes]:
    """``data`` cut into ``chunk_size`` chunks (the last one shorter), each compressed
    as ``blosc.compress(chunk, **blosc_args)`` does it; several chunks at once."""
    out = _binfmt.blpk_pack(
        _as_u8(data), chunk_size=max(1, int(chunk_size)), typesize=int(blosc_args["typesize"]),
        clevel=int(blosc_args["clevel"]), shuffle=_shuffle(blosc_args["shuffle"]),
        cname=str(blosc_args["cname"]), offsets=False, checksum="none", max_app_chunks=0,
        metadata=None, meta_checksum="none", meta_codec="none", meta_level=0,
        max_meta_size=None, path=None, threads=_pkg()._nthreads)
    chunks = []
    pos, end = BLOSCPACK_HEADER_LENGTH, len(out)
    while pos < end:
        ctbytes = int.from_bytes(out[pos + 12:pos + 16], "little")
        chunks.append(out[pos:pos + ctbytes])
        pos += ctbytes
    return chunks


def _compress_chunks(chunks: Iterable[Any], blosc_args: Any) -> Iterator[bytes]:
    """Each chunk of ``chunks`` compressed, in order; runs of equal-sized chunks (and the
    shorter one that may end a run) are compressed together, up to ``_BATCH_BYTES``."""

    def sized() -> Iterator[tuple[Any, int]]:
        for chunk in chunks:
            n = len(memoryview(chunk).cast("B")) if not isinstance(chunk, (bytes, bytearray)) \
                else len(chunk)
            yield chunk, n

    for run in _chunk_runs(sized(), empty_alone=True):
        size = run[0][1]
        if size == 0:
            yield from _compress(b"", 1, blosc_args)
            continue
        batch = [chunk for chunk, _ in run]
        data = batch[0] if len(batch) == 1 else b"".join(
            c if isinstance(c, (bytes, bytearray)) else memoryview(_as_u8(c)) for c in batch)
        out = _compress(data, size, blosc_args)
        assert len(out) == len(batch), (len(out), len(batch))
        yield from out


def _compress_slices(data: Any, chunk_size: int, nchunks: int,
                     blosc_args: Any) -> Iterator[bytes]:
    """The ``nchunks`` chunks of ``data`` (``chunk_size`` each, the last shorter),
    compressed in batches of slices of it."""
    if len(data) == 0:
        yield from _compress(b"", 1, blosc_args)
        return
    per = max(1, _BATCH_BYTES // chunk_size)
    for first in range(0, nchunks, per):
        part = data[first * chunk_size:min(nchunks, first + per) * chunk_size]
        out = _compress(part, chunk_size, blosc_args)
        assert len(out) == min(per, nchunks - first)
        yield from out


def _decompress(compressed: list[Any], alloc: Callable[[Any, int], Any] | None = None) -> Any:
    """The chunks ``compressed`` (a run of equal-sized ones, the last maybe shorter)
    decompressed, in parallel, into one uint8 array (``alloc(None, nbytes)`` when given
    returns the array to fill)."""
    sizes = [_nbytes(c) for c in compressed]
    typesize = compressed[0][3] if isinstance(compressed[0], (bytes, bytearray)) \
        else bytes(compressed[0][3:4])[0]
    head = _HEADER.pack(MAGIC, FORMAT_VERSION, 0, 0, typesize, sizes[0], sizes[-1],
                        len(compressed), 0)
    data = b"".join([head, *(bytes(c) if not isinstance(c, bytes) else c for c in compressed)])
    kwargs = {} if alloc is None else {"alloc": alloc}
    array, _ = _binfmt.blpk_unpack(data=data, threads=_pkg()._nthreads, **kwargs)
    return array


def _chunk_runs(items: Iterable[tuple[Any, int]], *,
                empty_alone: bool = False) -> Iterator[list[tuple[Any, int]]]:
    """``(chunk, nbytes)`` grouped into runs of equal-sized chunks, the last of a run maybe
    shorter, up to ``_BATCH_BYTES`` a run: the runs ``_decompress`` takes of compressed
    chunks, and ``_compress_chunks`` compresses together. With ``empty_alone``, a chunk of
    0 bytes is a run of its own."""
    run: list[tuple[Any, int]] = []
    size = 0
    closed = False
    total = 0
    for item in items:
        n = item[1]
        alone = empty_alone and n == 0
        if run and (closed or n > size or alone or total >= _BATCH_BYTES):
            yield run
            run, closed, total = [], False, 0
        if alone:
            yield [item]
            continue
        if not run:
            size = n
        elif n < size:
            closed = True
        run.append(item)
        total += n
    if run:
        yield run


# --- the abstract sources and sinks (bloscpack.abstract_io) -----------------------------


def _compress_chunk_str(chunk: Any, blosc_args: Any) -> bytes:
    """One chunk compressed as ``blosc.compress(chunk, **blosc_args)``."""
    return _compress(chunk, len(memoryview(chunk).cast("B")) or 1, blosc_args)[0]


class PlainSource:
    """Where :func:`pack` reads the plain data from: iterating it (after
    ``configure(chunk_size, last_chunk, nchunks)``) yields the chunks, as bytes-like
    objects."""

    def configure(self, chunk_size: int, last_chunk: int, nchunks: int) -> None:
        self.chunk_size = chunk_size
        self.last_chunk = last_chunk
        self.nchunks = nchunks

    @property
    def compress_func(self) -> Callable[[Any, Any], bytes]:
        return _compress_chunk_str

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


class CompressedSource:
    """Where :func:`unpack` reads a Bloscpack file from: iterating it yields
    ``(compressed chunk, digest or None)``; it has ``checksum_impl``, ``nchunks`` and
    ``metadata``."""

    def __iter__(self) -> Iterator[tuple[bytes, bytes | None]]:
        raise NotImplementedError


class PlainSink:
    """Where :func:`unpack` writes the data: ``put(compressed)`` decompresses one chunk
    and returns its size."""

    def put(self, compressed: bytes) -> int:
        raise NotImplementedError

    # binfmt's sinks take runs of decompressed chunks at once.
    def _put_run(self, compressed: list[bytes], sizes: list[int]) -> None:
        for c in compressed:
            self.put(c)


class CompressedSink:
    """Where :func:`pack` writes a Bloscpack file (bloscpack's protocol: ``configure``,
    ``write_bloscpack_header``, ``write_metadata``, ``init_offsets``, ``put(i,
    compressed)``, ``finalize``)."""

    def configure(self, blosc_args: Any, bloscpack_header: Any) -> None:
        self.blosc_args = blosc_args
        self.bloscpack_header = bloscpack_header
        self.checksum_impl = bloscpack_header.checksum_impl
        self.offsets = bloscpack_header.offsets

    def write_bloscpack_header(self) -> None:
        raise NotImplementedError

    def write_metadata(self, metadata: Any, metadata_args: Any) -> None:
        raise NotImplementedError

    def init_offsets(self) -> None:
        raise NotImplementedError

    def finalize(self) -> None:
        raise NotImplementedError

    def put(self, i: int, compressed: bytes) -> Any:
        raise NotImplementedError

    def do_checksum(self, compressed: bytes) -> bytes:
        return self.checksum_impl(compressed) if self.checksum_impl.size > 0 else b""


def _handle_max_apps(offsets: bool, nchunks: int, max_app_chunks: Any) -> int:
    """bloscpack's ``_handle_max_apps``: the ``max_app_chunks`` stored (0 without
    offsets; a callable is called with ``nchunks``; capped to ``MAX_CHUNKS - nchunks``)."""
    check_range("nchunks", nchunks, -1, MAX_CHUNKS)
    if offsets and nchunks != -1:
        if callable(max_app_chunks):
            max_app_chunks = max_app_chunks(nchunks)
            if not isinstance(max_app_chunks, int):
                raise ValueError("max_app_chunks callable returned a non integer of type "
                                 f"'{type(max_app_chunks)}'")
            if max_app_chunks < 0:
                raise ValueError("max_app_chunks callable returned a negative integer")
        elif isinstance(max_app_chunks, int):
            check_range("max_app_chunks", max_app_chunks, 0, MAX_CHUNKS)
        else:
            raise TypeError("max_app_chunks was neither a callable or an int")
        if nchunks + max_app_chunks > MAX_CHUNKS:
            max_app_chunks = MAX_CHUNKS - nchunks
        return max_app_chunks
    return 0


def calculate_nchunks(in_file_size: int, chunk_size: int | str = "1M") -> tuple[int, int, int]:
    """bloscpack's ``calculate_nchunks``: ``(nchunks, chunk_size, last_chunk_size)`` for
    ``in_file_size`` bytes (``chunk_size`` an int or ``"1M"``-style)."""
    if in_file_size < 0:
        raise ValueError(f"'in_file_size' must be strictly positive, not {in_file_size}")
    if in_file_size == 0:
        return 1, 0, 0
    if isinstance(chunk_size, str):
        chunk_size = _pkg()._chunk_size(chunk_size, in_file_size)
    check_range("chunk_size", chunk_size, 1, BLOSC_MAX_BUFFERSIZE)
    chunk_size = min(chunk_size, in_file_size)
    quotient, remainder = divmod(in_file_size, chunk_size)
    if chunk_size == in_file_size:
        return 1, in_file_size, in_file_size
    nchunks = quotient if remainder == 0 else quotient + 1
    if nchunks > MAX_CHUNKS:
        raise ChunkingException(
            f"nchunks: '{nchunks}' is greater than the MAX_CHUNKS: '{MAX_CHUNKS}'")
    return nchunks, chunk_size, chunk_size if remainder == 0 else remainder


def pack(source: PlainSource, sink: CompressedSink, nchunks: int, chunk_size: int,
         last_chunk: int, metadata: Any = None, blosc_args: Any = None,
         bloscpack_args: Any = None, metadata_args: Any = None) -> None:
    """bloscpack's core packing function: the chunks of ``source`` compressed into
    ``sink``. ``nchunks``, ``chunk_size`` and ``last_chunk`` are stored in the header, as
    :func:`calculate_nchunks` gives them. Chunks are compressed in batches of up to 64
    MiB of input (held in memory), several at once; the sink receives them one by one, in
    order. Raises ``TypeError`` unless ``source`` is a :class:`PlainSource` and ``sink``
    a :class:`CompressedSink`."""
    if not isinstance(source, PlainSource):
        raise TypeError
    if not isinstance(sink, CompressedSink):
        raise TypeError
    pkg = _pkg()
    blosc_args = blosc_args or pkg.BloscArgs()
    bloscpack_args = bloscpack_args or pkg.BloscpackArgs()
    if metadata is not None:
        metadata_args = metadata_args or pkg.MetadataArgs()
    max_app_chunks = _handle_max_apps(bloscpack_args.offsets, nchunks,
                                      bloscpack_args.max_app_chunks)
    header = BloscpackHeader(offsets=bloscpack_args.offsets, metadata=metadata is not None,
                             checksum=bloscpack_args.checksum, typesize=blosc_args.typesize,
                             chunk_size=chunk_size, last_chunk=last_chunk, nchunks=nchunks,
                             max_app_chunks=max_app_chunks)
    source.configure(chunk_size, last_chunk, nchunks)
    sink.configure(blosc_args, header)
    sink.write_bloscpack_header()
    if metadata is not None:
        sink.write_metadata(metadata, metadata_args)
    sink.init_offsets()
    whole = getattr(source, "_whole", None)
    data = whole() if whole is not None else None
    compressed_chunks: Iterable[bytes]
    if data is not None:
        # All the chunks in one buffer: batches are slices of it (no copy).
        compressed_chunks = _compress_slices(data, chunk_size, nchunks, blosc_args)
    elif type(source).compress_func is not PlainSource.compress_func:
        # A source with a compressor of its own: used chunk by chunk, as bloscpack.
        compress = source.compress_func
        compressed_chunks = (compress(c, blosc_args) for c in source)
    else:
        compressed_chunks = _compress_chunks(iter(source), blosc_args)
    for i, compressed in enumerate(compressed_chunks):
        sink.put(i, compressed)
    sink.finalize()


def unpack(source: CompressedSource, sink: PlainSink) -> None:
    """bloscpack's core unpacking function: each chunk of ``source`` checked against its
    digest (:class:`ChecksumMismatch`) and decompressed into ``sink``. binfmt's sinks
    get runs of chunks (up to 64 MiB of output) decompressed at once, in parallel;
    others get ``sink.put(compressed)`` for each chunk."""
    if not isinstance(source, CompressedSource):
        raise TypeError
    if not isinstance(sink, PlainSink):
        raise TypeError

    def checked() -> Iterator[tuple[Any, int]]:
        for i, (compressed, digest) in enumerate(source):
            if digest:
                computed = source.checksum_impl(compressed)
                if digest != computed:
                    raise ChecksumMismatch(
                        f"Checksum mismatch detected in chunk, expected: '{digest!r}', "
                        f"received: '{computed!r}'", format=_FORMAT,
                        kind="ChunkDigestMismatch", fault="input")
            yield compressed, _nbytes(compressed)

    if type(sink)._put_run is PlainSink._put_run:
        for compressed, _ in checked():
            sink.put(compressed)
        return
    for run in _chunk_runs(checked()):
        sink._put_run([c for c, _ in run], [n for _, n in run])


# --- files and file objects (bloscpack.file_io) ----------------------------------------


def _write_metadata(output_fp: Any, metadata: Any, metadata_args: Any) -> int:
    """Writes the metadata section (header, metadata, preallocated space, digest) at the
    position of ``output_fp``, as bloscpack's ``_write_metadata`` (the section is
    binfmt's packer's, byte for byte the reference's); returns its size."""
    pkg = _pkg()
    out = pkg._pack(b"", None, 1, metadata, pkg.BloscArgs(),
                    pkg.BloscpackArgs(offsets=False, checksum=None), metadata_args)
    start = BLOSCPACK_HEADER_LENGTH
    max_meta_size = int.from_bytes(out[start + 16:start + 20], "little")
    digest = CHECKSUMS_LOOKUP[CHECKSUMS_AVAIL[out[start + 9]]].size
    total = METADATA_HEADER_LENGTH + max_meta_size + digest
    output_fp.write(out[start:start + total])
    return total


def _read_bloscpack_header(input_fp: Any) -> Any:
    """The Bloscpack header at the position of ``input_fp``
    (:class:`FormatVersionMismatch` unless format 3)."""
    header = BloscpackHeader.decode(_read_exact(input_fp, BLOSCPACK_HEADER_LENGTH,
                                                "Bloscpack header"))
    if header.format_version != FORMAT_VERSION:
        raise FormatVersionMismatch(
            f"format version of file was not '{FORMAT_VERSION}' as expected, but "
            f"'{header.format_version}'", offset=4, format=_FORMAT,
            kind="VersionTooNew" if header.format_version > FORMAT_VERSION
            else "VersionTooOld", fault="unsupported")
    return header


def _read_metadata(input_fp: Any) -> tuple[Any, Any]:
    """``(metadata, metadata header)`` read at the position of ``input_fp``; the
    digest is checked (:class:`ChecksumMismatch`)."""
    mh = MetadataHeader.decode(_read_exact(input_fp, METADATA_HEADER_LENGTH,
                                           "metadata header"))
    metadata = _read_exact(input_fp, mh.meta_comp_size, "metadata")
    input_fp.seek(mh.max_meta_size - mh.meta_comp_size, 1)
    if mh.meta_checksum != "None":
        impl = CHECKSUMS_LOOKUP[mh.meta_checksum]
        expected = _read_exact(input_fp, impl.size, "metadata digest")
        received = impl(metadata)
        if received != expected:
            raise ChecksumMismatch(
                f"Checksum mismatch detected in metadata expected: '{expected!r}', "
                f"received: '{received!r}'", format=_FORMAT, kind="MetadataDigestMismatch",
                fault="input")
    if mh.meta_codec != "None":
        try:
            metadata = zlib.decompress(metadata)
        except zlib.error as e:
            raise FormatError(f"the metadata does not inflate: {e}", format=_FORMAT,
                              kind="BadMetadata", fault="input") from None
    try:
        return json.loads(metadata.decode()), mh
    except (UnicodeDecodeError, ValueError) as e:
        raise FormatError(f"the metadata is not JSON: {e}", format=_FORMAT,
                          kind="BadMetadata", fault="input") from None


def _read_offsets(input_fp: Any, bloscpack_header: Any) -> list[int]:
    """The offsets of the chunks written (the spare slots are skipped over)."""
    if not bloscpack_header.offsets:
        return []
    total = bloscpack_header.total_prospective_chunks
    raw = _read_exact(input_fp, 8 * total, "offsets")
    return list(struct.unpack(f"<{bloscpack_header.nchunks}q", raw[:8 * bloscpack_header.nchunks]))


def _read_beginning(input_fp: Any) -> tuple[Any, Any, Any, list[int]]:
    """``(bloscpack_header, metadata, metadata_header, offsets)`` from the start of a
    file object (left after the offsets)."""
    header = _read_bloscpack_header(input_fp)
    metadata, metadata_header = _read_metadata(input_fp) if header.metadata else (None, None)
    offsets = _read_offsets(input_fp, header)
    return header, metadata, metadata_header, offsets


def _write_offsets(output_fp: Any, offsets: list[int]) -> None:
    output_fp.write(struct.pack(f"<{len(offsets)}q", *offsets))


def _read_compressed_chunk_fp(input_fp: Any, checksum_impl: Hash) -> tuple[bytes, dict, bytes | None]:
    """``(compressed chunk, its blosc header as a dict, digest or None)`` at the
    position of ``input_fp``."""
    head = _read_exact(input_fp, BLOSC_HEADER_LENGTH, "blosc header")
    blosc_header = decode_blosc_header(head)
    ctbytes = blosc_header["ctbytes"]
    if ctbytes < BLOSC_HEADER_LENGTH:
        raise FormatError(f"a blosc chunk says it is {ctbytes} bytes long", format=_FORMAT,
                          kind="BadChunk", fault="input")
    compressed = head + _read_exact(input_fp, ctbytes - BLOSC_HEADER_LENGTH, "chunk")
    digest = _read_exact(input_fp, checksum_impl.size, "chunk digest") \
        if checksum_impl.size > 0 else None
    return compressed, blosc_header, digest


def decode_blosc_header(buffer_: Any) -> dict:
    """A blosc chunk's 16-byte header as bloscpack decodes it."""
    b = bytes(buffer_[:BLOSC_HEADER_LENGTH])
    version, versionlz, flags, typesize, nbytes, blocksize, ctbytes = \
        struct.unpack("<BBBBIII", b)
    return {"version": version, "versionlz": versionlz, "flags": flags,
            "typesize": typesize, "nbytes": nbytes, "blocksize": blocksize,
            "ctbytes": ctbytes}


def _write_compressed_chunk(output_fp: Any, compressed: bytes, digest: bytes) -> None:
    output_fp.write(compressed)
    if len(digest) > 0:
        output_fp.write(digest)


class PlainFPSource(PlainSource):
    """The plain data read from a binary file object (``nchunks - 1`` reads of
    ``chunk_size`` bytes, then one of ``last_chunk``)."""

    def __init__(self, input_fp: Any) -> None:
        self.input_fp = input_fp

    def __iter__(self) -> Iterator[bytes]:
        for num_bytes in [self.chunk_size] * (self.nchunks - 1) + [self.last_chunk]:
            yield self.input_fp.read(num_bytes)


class CompressedFPSource(CompressedSource):
    """A Bloscpack file read from a binary file object: constructing it reads the
    header, the metadata (``.metadata``, ``.metadata_header``) and the offsets; iterating
    it reads the chunks one after the other (:class:`FormatVersionMismatch` unless the
    file is format 3)."""

    def __init__(self, input_fp: Any) -> None:
        self.input_fp = input_fp
        self.bloscpack_header, self.metadata, self.metadata_header, self.offsets = \
            _read_beginning(input_fp)
        self.checksum_impl = self.bloscpack_header.checksum_impl
        self.nchunks = self.bloscpack_header.nchunks

    def __iter__(self) -> Iterator[tuple[bytes, bytes | None]]:
        for _ in range(self.nchunks):
            compressed, _header, digest = _read_compressed_chunk_fp(self.input_fp,
                                                                   self.checksum_impl)
            yield compressed, digest


class PlainFPSink(PlainSink):
    """Writes the unpacked data to a binary file object."""

    def __init__(self, output_fp: Any, nchunks: int | None = None) -> None:
        self.output_fp = output_fp
        self.nchunks = nchunks

    def put(self, compressed: bytes) -> int:
        decompressed = _decompress([compressed])
        self.output_fp.write(memoryview(decompressed))
        return len(decompressed)

    def _put_run(self, compressed: list[bytes], sizes: list[int]) -> None:
        self.output_fp.write(memoryview(_decompress(compressed)))


class CompressedFPSink(CompressedSink):
    """Writes a Bloscpack file to a binary file object from its position, as
    bloscpack's: header, metadata section, offsets (``-1`` until :meth:`finalize` seeks
    back to write them, so the file object must be seekable when there are offsets),
    then the chunks and digests."""

    def __init__(self, output_fp: Any) -> None:
        self.output_fp = output_fp
        self.meta_total = 0

    def write_bloscpack_header(self) -> None:
        self.output_fp.write(self.bloscpack_header.encode())

    def write_metadata(self, metadata: Any, metadata_args: Any) -> None:
        self.meta_total += _write_metadata(self.output_fp, metadata, metadata_args)

    def init_offsets(self) -> None:
        if self.offsets:
            total = self.bloscpack_header.total_prospective_chunks
            self.offset_storage = [-1] * self.bloscpack_header.nchunks
            self.output_fp.write(struct.pack("<q", -1) * total)

    def finalize(self) -> None:
        if self.offsets:
            self.output_fp.seek(BLOSCPACK_HEADER_LENGTH + self.meta_total, 0)
            _write_offsets(self.output_fp, self.offset_storage)

    def put(self, i: int, compressed: bytes) -> tuple[int, bytes, bytes]:
        offset = self.output_fp.tell()
        digest = self.do_checksum(compressed)
        _write_compressed_chunk(self.output_fp, compressed, digest)
        if self.offsets:
            self.offset_storage[i] = offset
        return offset, compressed, digest


# --- memory (bloscpack.memory_io) ------------------------------------------------------


class PlainMemorySource(PlainSource):
    """The plain data given as a list of chunks (bytes-like)."""

    def __init__(self, chunks: list[Any]) -> None:
        self.chunks = chunks

    def __iter__(self) -> Iterator[Any]:
        yield from self.chunks


class CompressedMemorySource(CompressedSource):
    """The compressed chunks (and digests, metadata) held by a
    :class:`CompressedMemorySink`."""

    @property
    def metadata(self) -> Any:
        return self.compressed_memory_sink.metadata

    def __init__(self, compressed_memory_sink: Any) -> None:
        self.compressed_memory_sink = compressed_memory_sink
        self.checksum_impl = compressed_memory_sink.checksum_impl
        self.checksum = compressed_memory_sink.checksum
        self.nchunks = compressed_memory_sink.nchunks
        self.chunks = compressed_memory_sink.chunks
        if self.checksum:
            self.checksums = compressed_memory_sink.checksums

    def __iter__(self) -> Iterator[tuple[bytes, bytes | None]]:
        for i in range(self.nchunks):
            yield self.chunks[i], self.checksums[i] if self.checksum else None


class PlainMemorySink(PlainSink):
    """Collects the unpacked chunks, as bytes, in ``.chunks``."""

    def __init__(self, nchunks: int | None = None) -> None:
        if nchunks is not None:
            self.have_chunks = True
            self.chunks: list[Any] = [None] * nchunks
            self.i = 0
        else:
            self.have_chunks = False
            self.chunks = []

    def _store(self, chunk: bytes) -> None:
        if self.have_chunks:
            self.chunks[self.i] = chunk
            self.i += 1
        else:
            self.chunks.append(chunk)

    def put(self, compressed: bytes) -> int:
        chunk = _decompress([compressed]).tobytes()
        self._store(chunk)
        return len(chunk)

    def _put_run(self, compressed: list[bytes], sizes: list[int]) -> None:
        view = memoryview(_decompress(compressed))
        pos = 0
        for n in sizes:
            self._store(view[pos:pos + n].tobytes())
            pos += n


class CompressedMemorySink(CompressedSink):
    """Keeps the compressed chunks (``.chunks``), their digests (``.checksums``) and the
    metadata (``.metadata``, as given: not serialised) in memory."""

    def configure(self, blosc_args: Any, bloscpack_header: Any) -> None:
        self.blosc_args = blosc_args
        self.bloscpack_header = bloscpack_header
        self.checksum_impl = bloscpack_header.checksum_impl
        self.checksum = bloscpack_header.checksum
        self.nchunks = bloscpack_header.nchunks
        self.chunks: list[Any] = [None] * self.bloscpack_header.nchunks
        if self.checksum:
            self.checksums: list[Any] = [None] * self.bloscpack_header.nchunks
        self.metadata = None
        self.metadata_args = None

    def write_bloscpack_header(self) -> None:
        pass

    def write_metadata(self, metadata: Any, metadata_args: Any) -> None:
        self.metadata = metadata
        self.metadata_args = metadata_args

    def init_offsets(self) -> None:
        pass

    def finalize(self) -> None:
        pass

    def put(self, i: int, compressed: bytes) -> None:
        self.chunks[i] = compressed
        if self.checksum:
            self.checksums[i] = self.do_checksum(compressed)


# --- numpy (bloscpack.numpy_io) --------------------------------------------------------


class PlainNumpySource(PlainSource):
    """A numpy array's bytes, in its memory order (read in place when it is
    contiguous); ``.metadata`` is what bloscpack stores for it."""

    def __init__(self, ndarray: np.ndarray) -> None:
        pkg = _pkg()
        self.metadata = pkg._ndarray_meta(ndarray)
        self.size = ndarray.size * ndarray.itemsize
        self.ndarray = ndarray
        self._bytes = pkg._ndarray_bytes(ndarray)

    def _check(self) -> None:
        itemsize = self.ndarray.itemsize
        if itemsize and self.chunk_size % itemsize != 0:
            raise ChunkSizeTypeSizeMismatch(
                f"chunk_size: '{self.chunk_size}' is not divisible by typesize: '{itemsize}'",
                format=_FORMAT, kind="ChunkSizeTypeSizeMismatch", fault="caller")

    def __iter__(self) -> Iterator[Any]:
        self._check()
        pos = 0
        for n in [self.chunk_size] * (self.nchunks - 1) + [self.last_chunk]:
            yield self._bytes[pos:pos + n]
            pos += n

    def _whole(self) -> Any:
        # All the chunks, as the array's bytes (pack slices batches out of them), when
        # the chunking covers them exactly.
        cs, n = self.chunk_size, self.nchunks
        if len(self._bytes) == 0 and n == 1:
            return self._bytes
        if cs <= 0 or n < 1 or (n - 1) * cs + self.last_chunk != len(self._bytes) \
                or not 0 < self.last_chunk <= cs:
            return None
        self._check()
        return self._bytes


class PlainNumpySink(PlainSink):
    """Unpacks into a new numpy array (``.ndarray``), allocated from ``metadata`` (the
    dtype parsed with :func:`ast.literal_eval`, never evaluated); chunks are
    decompressed straight into it. :class:`NotANumpyArray` unless the metadata describes
    one."""

    def __init__(self, metadata: Any) -> None:
        self.metadata = metadata
        dtype, shape, order = _pkg()._ndarray_layout(metadata)
        self.ndarray = np.empty(shape, dtype=dtype, order=order)
        self._flat = self.ndarray.reshape(-1, order="A").view(np.uint8) \
            if self.ndarray.nbytes else np.empty(0, dtype=np.uint8)
        self._pos = 0

    def _target(self, _meta: Any, nbytes: int) -> np.ndarray:
        if self._pos + nbytes > len(self._flat):
            raise FormatError(
                f"the chunks hold more than the {len(self._flat)} bytes the metadata "
                "describes", format=_FORMAT, kind="ShapeMismatch", fault="input")
        return self._flat[self._pos:self._pos + nbytes]

    def _put_run(self, compressed: list[bytes], sizes: list[int]) -> None:
        _decompress(compressed, alloc=self._target)
        self._pos += sum(sizes)

    def put(self, compressed: bytes) -> int:
        n = _nbytes(compressed)
        self._put_run([compressed], [n])
        return n


def pack_ndarray(ndarray: np.ndarray, sink: CompressedSink,
                 chunk_size: int | str = "1M", blosc_args: Any = None,
                 bloscpack_args: Any = None, metadata_args: Any = None) -> None:
    """Packs a numpy array into ``sink`` (bloscpack's ``numpy_io.pack_ndarray``); the
    ``typesize`` of ``blosc_args`` is replaced by the array's itemsize (in a copy:
    ``blosc_args`` itself is left as it is)."""
    pkg = _pkg()
    if ndarray.dtype.hasobject:
        raise ObjectNumpyArrayRejection("cannot pack arrays of Python objects",
                                        format=_FORMAT, kind="ObjectArray", fault="caller")
    blosc_args = pkg._ndarray_args(ndarray, blosc_args)
    source = PlainNumpySource(ndarray)
    nchunks, chunk_size, last_chunk_size = calculate_nchunks(source.size, chunk_size)
    pack(source, sink, nchunks, chunk_size, last_chunk_size, metadata=source.metadata,
         blosc_args=blosc_args, bloscpack_args=bloscpack_args, metadata_args=metadata_args)


def unpack_ndarray(source: CompressedSource) -> np.ndarray:
    """The numpy array in ``source`` (:class:`NotANumpyArray` unless its metadata
    describes one)."""
    sink = PlainNumpySink(source.metadata)
    unpack(source, sink)
    if sink._pos != len(sink._flat):
        raise FormatError(
            f"the metadata describes {len(sink._flat)} bytes, but the chunks hold "
            f"{sink._pos}", format=_FORMAT, kind="ShapeMismatch", fault="input")
    return sink.ndarray


# --- appending to a file object (bloscpack.append.append_fp) ---------------------------


def append_fp(original_fp: Any, new_content_fp: Any, new_size: int,
              blosc_args: Any = None) -> int:
    """Appends ``new_size`` bytes read from the file object ``new_content_fp`` to the
    Bloscpack file in the file object ``original_fp`` (opened ``r+b``, or a
    ``BytesIO``), as bloscpack's ``append_fp`` does, byte for byte: the last chunk is
    decompressed, topped up to ``chunk_size`` and rewritten in place, the rest goes into
    new chunks after it, then the header and offsets are rewritten. Returns the number
    of chunks added (0 when everything fitted into the last chunk).

    ``blosc_args`` (a :class:`BloscArgs` or dict): how the rewritten and new chunks are
    compressed; ``None`` entries (or no ``blosc_args``) mean the file's typesize and the
    defaults (clevel 7, shuffle, blosclz). Not locked, and not crash-consistent (a
    failure part way leaves a damaged file): :func:`binfmt.bloscpack.append` on a path
    is. ``RuntimeError`` without offsets, :class:`NotEnoughSpace` (before anything is
    written) when the spare offset slots are too few, :class:`NonUniformTypesize` if
    the file has no uniform typesize. The new data is read and compressed in batches of
    up to 64 MiB."""
    header, metadata, metadata_header, offsets = _read_beginning(original_fp)
    checksum_impl = header.checksum_impl
    if not offsets:
        raise RuntimeError("Appending to a file without offsets is not yet supported")
    args = {"typesize": None, "clevel": None, "shuffle": None, "cname": None}
    if blosc_args is not None:
        given = dict(blosc_args)
        if set(given) != set(args):
            raise ValueError(f"blosc args must have exactly the keys {sorted(args)}, "
                             f"not {sorted(given)}")
        args.update(given)
    if args["typesize"] is None:
        if header.typesize == -1:
            raise NonUniformTypesize("Non uniform type size, can not append to file.",
                                     format=_FORMAT, kind="NonUniformTypesize",
                                     fault="input")
        args["typesize"] = header.typesize
    for key, default in (("clevel", 7), ("shuffle", True), ("cname", "blosclz")):
        if args[key] is None:
            args[key] = default
    offsets_pos = BLOSCPACK_HEADER_LENGTH + (
        METADATA_HEADER_LENGTH + metadata_header["max_meta_size"]
        + CHECKSUMS_LOOKUP[metadata_header["meta_checksum"]].size
        if metadata is not None else 0)
    original_fp.seek(offsets[-1], 0)
    compressed, _blosc_header, _digest = _read_compressed_chunk_fp(original_fp, checksum_impl)
    decompressed = _decompress([compressed]).tobytes()
    bytes_to_read = header.chunk_size - len(decompressed)
    if new_size <= bytes_to_read:
        fill_up = new_content_fp.read(new_size)
        original_fp.seek(offsets[-1], 0)
        compressed = _compress_chunk_str(decompressed + fill_up, args)
        _write_compressed_chunk(original_fp, compressed, checksum_impl(compressed))
        header.last_chunk += new_size
        original_fp.seek(0)
        original_fp.write(header.encode())
        return 0
    new_new_size = new_size - bytes_to_read
    fill_up = new_content_fp.read(bytes_to_read)
    nchunks, chunk_size, last_chunk_size = calculate_nchunks(new_new_size,
                                                             chunk_size=header.chunk_size)
    if nchunks > header.max_app_chunks:
        raise NotEnoughSpace("not enough space", format=_FORMAT, kind="NotEnoughSpace",
                             fault="caller")
    original_fp.seek(offsets[-1], 0)
    source = PlainFPSource(new_content_fp)
    source.configure(chunk_size, last_chunk_size, nchunks)
    chunks = itertools.chain([decompressed + fill_up], source)
    new_offsets = []
    for i, compressed in enumerate(_compress_chunks(chunks, args)):
        if i > 0:
            new_offsets.append(original_fp.tell())
        _write_compressed_chunk(original_fp, compressed, checksum_impl(compressed))
    header.last_chunk = last_chunk_size
    header.nchunks += nchunks
    header.max_app_chunks -= nchunks
    original_fp.seek(0)
    original_fp.write(header.encode())
    original_fp.seek(offsets_pos)
    _write_offsets(original_fp, offsets + new_offsets)
    return nchunks


def _build_header_classes() -> tuple[type, type]:
    base = _mapping_base()

    class BloscpackHeader(base):
        """The Bloscpack header (bloscpack's ``headers.BloscpackHeader``): a mutable
        mapping of its nine fields, checked as bloscpack checks them; :meth:`encode` /
        :meth:`decode` to and from its 32 bytes."""

        _attrs = ("format_version", "offsets", "metadata", "checksum", "typesize",
                  "chunk_size", "last_chunk", "nchunks", "max_app_chunks")

        def __init__(self, format_version: int = FORMAT_VERSION, offsets: bool = False,
                     metadata: bool = False, checksum: str = "None", typesize: int = 0,
                     chunk_size: int = -1, last_chunk: int = -1, nchunks: int = -1,
                     max_app_chunks: int = 0) -> None:
            check_range("format_version", format_version, 0, MAX_FORMAT_VERSION)
            _check_valid_checksum(checksum)
            check_range("typesize", typesize, 0, BLOSC_MAX_TYPESIZE)
            check_range("chunk_size", chunk_size, -1, BLOSC_MAX_BUFFERSIZE)
            check_range("last_chunk", last_chunk, -1, BLOSC_MAX_BUFFERSIZE)
            check_range("nchunks", nchunks, -1, MAX_CHUNKS)
            check_range("max_app_chunks", max_app_chunks, 0, MAX_CHUNKS)
            if nchunks != -1:
                check_range("nchunks + max_app_chunks", nchunks + max_app_chunks, 0,
                            MAX_CHUNKS)
            elif max_app_chunks != 0:
                raise ValueError("'max_app_chunks' can not be non '0' if 'nchunks' is '-1'")
            if chunk_size != -1 and last_chunk != -1 and last_chunk > chunk_size:
                raise ValueError(f"'last_chunk' ({last_chunk}) is larger than 'chunk_size' "
                                 f"({chunk_size})")
            self.format_version = format_version
            self.offsets = offsets
            self.metadata = metadata
            self.checksum = checksum
            self.typesize = typesize
            self.chunk_size = chunk_size
            self.last_chunk = last_chunk
            self.nchunks = nchunks
            self.max_app_chunks = max_app_chunks

        @property
        def bytes_attributes(self) -> list[str]:
            return ["chunk_size", "last_chunk"]

        @property
        def checksum_impl(self) -> Hash:
            return CHECKSUMS_LOOKUP[self.checksum]

        @property
        def total_prospective_chunks(self) -> int | None:
            return self.nchunks + self.max_app_chunks if self.nchunks >= 0 else None

        def encode(self) -> bytes:
            options = (1 if self.offsets else 0) | (2 if self.metadata else 0)
            return _HEADER.pack(MAGIC, self.format_version, options,
                                CHECKSUMS_AVAIL.index(self.checksum), self.typesize,
                                self.chunk_size, self.last_chunk, self.nchunks,
                                self.max_app_chunks)

        @staticmethod
        def decode(buffer_: bytes) -> "BloscpackHeader":
            if len(buffer_) != BLOSCPACK_HEADER_LENGTH:
                raise _truncated("Bloscpack header")
            (magic, version, options, checksum, typesize, chunk_size, last_chunk, nchunks,
             max_app_chunks) = _HEADER.unpack(bytes(buffer_))
            if magic != MAGIC:
                raise FormatError(f"the magic marker {MAGIC!r} is missing from the "
                                  f"bloscpack header, instead we found: {magic!r}",
                                  offset=0, format=_FORMAT, kind="BadMagic", fault="input")
            if options & 0xFC:
                raise FormatError(f"unknown options bits {options:#010b}", offset=5,
                                  format=_FORMAT, kind="BadOptions", fault="input")
            if checksum >= len(CHECKSUMS_AVAIL):
                raise NoSuchChecksum(f"checksum {checksum} does not exist", offset=6,
                                     format=_FORMAT, kind="UnknownChecksum", fault="input")
            try:
                return BloscpackHeader(format_version=version, offsets=bool(options & 1),
                                       metadata=bool(options & 2),
                                       checksum=CHECKSUMS_AVAIL[checksum],
                                       typesize=typesize, chunk_size=chunk_size,
                                       last_chunk=last_chunk, nchunks=nchunks,
                                       max_app_chunks=max_app_chunks)
            except (TypeError, ValueError) as e:
                raise FormatError(f"bad Bloscpack header: {e}", format=_FORMAT,
                                  kind="BadHeader", fault="input") from None

    class MetadataHeader(base):
        """The metadata section's header (bloscpack's ``headers.MetadataHeader``), as
        decoded from its 32 bytes."""

        _attrs = ("magic_format", "meta_options", "meta_checksum", "meta_codec",
                  "meta_level", "meta_size", "max_meta_size", "meta_comp_size",
                  "user_codec")

        def __init__(self, **fields: Any) -> None:
            for k in self._attrs:
                setattr(self, k, fields[k])

        @property
        def bytes_attributes(self) -> list[str]:
            return ["meta_size", "max_meta_size", "meta_comp_size"]

        @staticmethod
        def decode(buffer_: bytes) -> "MetadataHeader":
            if len(buffer_) != METADATA_HEADER_LENGTH:
                raise _truncated("metadata header")
            b = bytes(buffer_)
            checksum, codec = b[9], b[10]
            if checksum >= len(CHECKSUMS_AVAIL):
                raise NoSuchChecksum(f"metadata checksum {checksum} does not exist",
                                     format=_FORMAT, kind="UnknownChecksum", fault="input")
            if codec >= len(CODECS_AVAIL):
                raise NoSuchCodec(f"metadata codec {codec} does not exist", format=_FORMAT,
                                  kind="UnknownCodec", fault="input")
            meta_size, max_meta_size, meta_comp_size = struct.unpack("<III", b[12:24])
            if meta_comp_size > max_meta_size:
                raise FormatError(f"the metadata ({meta_comp_size} bytes) is larger than "
                                  f"its section ({max_meta_size})", format=_FORMAT,
                                  kind="BadMetadata", fault="input")
            return MetadataHeader(
                magic_format=b[:8].strip(b"\x00"), meta_options=format(b[8], "08b"),
                meta_checksum=CHECKSUMS_AVAIL[checksum], meta_codec=CODECS_AVAIL[codec],
                meta_level=b[11], meta_size=meta_size, max_meta_size=max_meta_size,
                meta_comp_size=meta_comp_size, user_codec=b[24:32].strip(b"\x00"))

    return BloscpackHeader, MetadataHeader


BloscpackHeader, MetadataHeader = _build_header_classes()
