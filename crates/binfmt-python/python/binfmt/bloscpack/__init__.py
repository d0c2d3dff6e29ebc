"""Bloscpack files: a drop-in for the ``bloscpack`` package's high-level functions.

Works on every Python the wheel supports (``bloscpack`` 0.16 no longer imports on 3.10+).
Compression and decompression run in the bundled c-blosc 1.21, chunks in parallel, with
the GIL released. Files written are byte-identical to bloscpack 0.16's with the same
options, a zlib-compressed metadata section included (deflated by C zlib, as Python's
``zlib.compress`` does). Format-2 files (bloscpack 0.2), which bloscpack 0.16 refuses,
are read too.

* :func:`pack_ndarray_to_file` / :func:`unpack_ndarray_from_file` (and ``_bytes``):
  numpy arrays, with dtype, shape and order stored as bloscpack stores them and restored
  from the metadata (the dtype is parsed as a Python literal with :func:`ast.literal_eval`,
  never evaluated); unpacked arrays are writable and own their memory: numpy allocates
  the array from the metadata, c-blosc decompresses straight into it (no copy). An array
  unpacked from a URL is read in one request and is a view of memory allocated as its
  chunks came (see :func:`unpack_ndarray_from_file`).
* :func:`set_nthreads`: how many chunks are (de)compressed at once (default: the
  cores, at most 8, as python-blosc), returning the previous value.
* :func:`pack_file_to_file` / :func:`unpack_file_from_file`,
  :func:`pack_bytes_to_file` / :func:`unpack_bytes_from_file`,
  :func:`pack_bytes_to_bytes` / :func:`unpack_bytes_from_bytes`.
* :func:`append`: in place, locked and crash-consistent.

Durability: a file written by the ``*_to_file`` functions and :func:`unpack_file_from_file`
is written beside its name and renamed over it, so a reader (or the next run after the
writer is killed) sees the old file or the whole new one, never a part. By default it is
not synced to the disk, as bloscpack never syncs (it writes in place, truncating the old
file first): after a power loss soon after the call, the file may be empty or incomplete.
``sync=True`` syncs the data before the rename and the directory after it, so the file
is durable when the call returns (``binfmt bloscpack pack`` always does).

Errors: a malformed file raises :class:`binfmt.FormatError` (``str(e)`` is
``byte N: message``), I/O :class:`OSError`.
"""

from __future__ import annotations

import ast
import copy
import json
import os
import pprint
from collections.abc import Iterator, MutableMapping
from typing import Any, Callable

import numpy as np

from .. import _binfmt
from .._errors import FormatError
from . import exceptions
from .exceptions import (
    ChecksumLengthMismatch,
    ChecksumMismatch,
    ChunkingException,
    ChunkSizeTypeSizeMismatch,
    FileNotFound,
    FormatVersionMismatch,
    MetadataSectionTooSmall,
    NoChangeInMetadata,
    NoMetadataFound,
    NonUniformTypesize,
    NoSuchChecksum,
    NoSuchCodec,
    NoSuchSerializer,
    NotANumpyArray,
    NotEnoughSpace,
    ObjectNumpyArrayRejection,
)

__all__ = [
    "BloscArgs",
    "BloscpackArgs",
    "MetadataArgs",
    "pack_ndarray_to_file",
    "pack_ndarray_to_bytes",
    "unpack_ndarray_from_file",
    "unpack_ndarray_from_bytes",
    "pack_file_to_file",
    "unpack_file_from_file",
    "pack_bytes_to_file",
    "pack_bytes_to_bytes",
    "unpack_bytes_from_file",
    "unpack_bytes_from_bytes",
    "append",
    "set_nthreads",
    "FormatError",
    "exceptions",
    *exceptions.__all__,
]

DEFAULT_CHUNK_SIZE = "1M"

# Chunks (de)compressed at once; python-blosc's default: the machine's cores, at most 8.
_nthreads = max(1, min(os.cpu_count() or 1, 8))


def set_nthreads(nthreads: int) -> int:
    """Sets how many chunks are compressed or decompressed at once (each by one c-blosc
    thread; the bytes written do not depend on it) and returns the previous value, as
    ``blosc.set_nthreads`` does. The default is python-blosc's: the number of cores, at
    most 8."""
    global _nthreads
    n = int(nthreads)
    if not 1 <= n <= 256:
        raise ValueError(f"nthreads must be between 1 and 256, not {nthreads!r}")
    previous, _nthreads = _nthreads, n
    return previous
_SUFFIXES = {"B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


_CHECKSUMS = ("None", "adler32", "crc32", "md5", "sha1", "sha224", "sha256", "sha384", "sha512")
_META_CODECS = ("None", "zlib")


class _ArgsMapping(MutableMapping):
    """bloscpack's ``MutableMappingObject``: the options as attributes and as a mapping
    of their names (``args["clevel"]``, ``dict(args)``, ``**args``); keys cannot be
    added or deleted."""

    _attrs: tuple[str, ...] = ()

    @property
    def attributes(self) -> list[str]:
        return list(self._attrs)

    @property
    def bytes_attributes(self) -> list[str]:
        return []

    def __getitem__(self, key: str) -> Any:
        if key not in self._attrs:
            raise KeyError(f"{key} not in {type(self).__name__}")
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        if key not in self._attrs:
            raise KeyError(f"{key} not in {type(self).__name__}")
        setattr(self, key, value)

    def __delitem__(self, key: str) -> None:
        raise NotImplementedError(
            f"{type(self).__name__} does not support __delitem__ or derivatives")

    def __len__(self) -> int:
        return len(self._attrs)

    def __iter__(self) -> Iterator[str]:
        return iter(self._attrs)

    def __str__(self) -> str:
        return pprint.pformat(dict(self))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.items())
        return f"{type(self).__name__}({args})"

    def pformat(self, indent: int = 4) -> str:
        pad = " " * indent
        rows = (f"{k}: {v!r}" for k, v in self.items())
        return f"{type(self).__name__}:\n{pad}" + f"\n{pad}".join(rows)

    def copy(self) -> Any:
        return copy.copy(self)


def _ten_times(n: int) -> int:
    return 10 * n


class BloscArgs(_ArgsMapping):
    """How chunks are compressed (bloscpack's ``BloscArgs``, a mutable mapping of its
    four options): ``typesize`` 1..255, ``clevel`` 0..9, ``shuffle`` (``True``/``1``
    byte shuffle, ``2`` bit shuffle, ``False``/``0`` none), ``cname`` (``blosclz``,
    ``lz4``, ``lz4hc``, ``zlib``, ``zstd``)."""

    _attrs = ("typesize", "clevel", "shuffle", "cname")

    def __init__(self, typesize: int = 8, clevel: int = 7, shuffle: bool | int = True,
                 cname: str = "blosclz") -> None:
        self.typesize = typesize
        self.clevel = clevel
        self.shuffle = shuffle
        self.cname = cname


class BloscpackArgs(_ArgsMapping):
    """The container's options (bloscpack's ``BloscpackArgs``, a mutable mapping):
    ``offsets`` (an offsets section, needed to append), ``checksum`` (``"None"``,
    ``adler32``, ``crc32``, ``md5``, ``sha1``, ``sha224``, ``sha256``, ``sha384``,
    ``sha512``; ``None`` is stored as ``"None"``, as bloscpack does), ``max_app_chunks``
    (an int, or a function of the chunk count; default ``10 * n``)."""

    _attrs = ("offsets", "checksum", "max_app_chunks")

    def __init__(self, offsets: bool = True, checksum: str | None = "adler32",
                 max_app_chunks: int | Callable[[int], int] = _ten_times) -> None:
        self.offsets = offsets
        self.checksum = "None" if checksum is None else checksum
        self.max_app_chunks = max_app_chunks


class MetadataArgs(_ArgsMapping):
    """How the metadata section is stored (bloscpack's ``MetadataArgs``, a mutable
    mapping): ``magic_format`` (``b"JSON"``), ``meta_checksum``, ``meta_codec``
    (``"zlib"`` or ``"None"``), ``meta_level``, ``max_meta_size`` (an int, or a function
    of the metadata's size; default ``10 * size``)."""

    _attrs = ("magic_format", "meta_checksum", "meta_codec", "meta_level", "max_meta_size")

    def __init__(self, magic_format: bytes = b"JSON", meta_checksum: str | None = "adler32",
                 meta_codec: str | None = "zlib", meta_level: int = 6,
                 max_meta_size: int | Callable[[int], int] = _ten_times) -> None:
        if magic_format != b"JSON":
            raise ValueError("only the JSON metadata format is supported")
        self.magic_format = magic_format
        self.meta_checksum = meta_checksum
        self.meta_codec = meta_codec
        self.meta_level = meta_level
        self.max_meta_size = max_meta_size


def _check_checksum(name: str | None) -> None:
    if name is not None and name not in _CHECKSUMS:
        raise NoSuchChecksum(f"checksum {name!r} does not exist", format="bloscpack",
                             kind="UnknownChecksum", fault="caller")


def _chunk_size(chunk_size: int | str, length: int) -> int:
    if isinstance(chunk_size, str):
        text = chunk_size.strip()
        if text == "max":
            return max(1, min(length, 2147483631))
        unit = _SUFFIXES.get(text[-1:].upper())
        if unit is None:
            raise ValueError(f"chunk_size {chunk_size!r}: use an int or a number with B, K, M, G or T")
        return int(float(text[:-1]) * unit)
    return int(chunk_size)


def _name(value: str | None) -> str:
    return "none" if value is None or value == "None" else str(value)


def _shuffle(value: bool | int) -> int:
    if value is True:
        return 1
    if value is False:
        return 0
    return int(value)


def _pack(data: bytes | np.ndarray, path: str | None, chunk_size: int | str, metadata: Any,
          blosc_args: BloscArgs | None, bloscpack_args: BloscpackArgs | None,
          metadata_args: MetadataArgs | None, sync: bool = False,
          input_path: str | None = None) -> bytes | None:
    blosc_args = blosc_args or BloscArgs()
    bloscpack_args = bloscpack_args or BloscpackArgs()
    metadata_args = metadata_args or MetadataArgs()
    _check_checksum(bloscpack_args.checksum)
    if metadata is not None:
        _check_checksum(metadata_args.meta_checksum)
        codec = metadata_args.meta_codec
        if codec is not None and codec not in _META_CODECS:
            raise NoSuchCodec(f"codec {codec!r} does not exist", format="bloscpack",
                              kind="UnknownCodec", fault="caller")
    size = _chunk_size(chunk_size, len(data))
    if size <= 0:
        raise ValueError(f"chunk_size must be positive, not {size}")
    nchunks = 1 if len(data) == 0 else -(-len(data) // min(size, len(data)))
    max_app_arg = bloscpack_args.max_app_chunks
    max_app = max_app_arg(nchunks) if callable(max_app_arg) else max_app_arg
    meta_json = None
    max_meta: int | None = None
    if metadata is not None:
        meta_json = json.dumps(metadata, separators=(",", ":")).encode()
        max_meta_arg = metadata_args.max_meta_size
        max_meta = max_meta_arg(len(meta_json)) if callable(max_meta_arg) else max_meta_arg
    return _binfmt.blpk_pack(
        data,
        chunk_size=size,
        typesize=int(blosc_args.typesize),
        clevel=int(blosc_args.clevel),
        shuffle=_shuffle(blosc_args.shuffle),
        cname=str(blosc_args.cname),
        offsets=bool(bloscpack_args.offsets),
        checksum=_name(bloscpack_args.checksum),
        max_app_chunks=int(max_app),
        metadata=meta_json,
        meta_checksum=_name(metadata_args.meta_checksum),
        meta_codec=_name(metadata_args.meta_codec),
        meta_level=int(metadata_args.meta_level),
        max_meta_size=None if max_meta is None else int(max_meta),
        path=path,
        threads=_nthreads,
        sync=bool(sync),
        input_path=input_path,
    )


def _decode_meta(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _as_bytes(data: Any) -> bytes:
    return data if isinstance(data, bytes) else bytes(data)


# --- bytes and files ---------------------------------------------------------------


def pack_bytes_to_bytes(bytes_: bytes, chunk_size: int | str = DEFAULT_CHUNK_SIZE,
                        metadata: Any = None, blosc_args: BloscArgs | None = None,
                        bloscpack_args: BloscpackArgs | None = None,
                        metadata_args: MetadataArgs | None = None) -> bytes:
    """Packs ``bytes_`` and returns the Bloscpack file as bytes. ``metadata``: any
    JSON-serialisable value, stored in a metadata section."""
    out = _pack(_as_bytes(bytes_), None, chunk_size, metadata, blosc_args, bloscpack_args,
                metadata_args)
    assert out is not None
    return out


def pack_bytes_to_file(bytes_: bytes, out_file: str | os.PathLike,
                       chunk_size: int | str = DEFAULT_CHUNK_SIZE, metadata: Any = None,
                       blosc_args: BloscArgs | None = None,
                       bloscpack_args: BloscpackArgs | None = None,
                       metadata_args: MetadataArgs | None = None, *,
                       sync: bool = False) -> None:
    """Packs ``bytes_`` into the file ``out_file`` (replaced atomically; ``sync``: see
    Durability in the module's docstring)."""
    _pack(_as_bytes(bytes_), os.fspath(out_file), chunk_size, metadata, blosc_args,
          bloscpack_args, metadata_args, sync)


def pack_file_to_file(in_file: str | os.PathLike, out_file: str | os.PathLike,
                      chunk_size: int | str = DEFAULT_CHUNK_SIZE, metadata: Any = None,
                      blosc_args: BloscArgs | None = None,
                      bloscpack_args: BloscpackArgs | None = None,
                      metadata_args: MetadataArgs | None = None, *,
                      sync: bool = False) -> None:
    """Packs the file ``in_file`` into ``out_file`` (replaced atomically; ``sync``: see
    Durability in the module's docstring)."""
    with open(in_file, "rb") as f:
        data = f.read()
    # `out_file` may not be `in_file` (by any name), as for every writer.
    _pack(data, os.fspath(out_file), chunk_size, metadata, blosc_args, bloscpack_args,
          metadata_args, sync, os.fspath(in_file))


def unpack_bytes_from_bytes(bytes_: bytes) -> tuple[bytes, Any]:
    """Unpacks a Bloscpack file given as bytes: ``(data, metadata or None)``."""
    data, meta = _binfmt.blpk_unpack(data=_as_bytes(bytes_), threads=_nthreads)
    assert data is not None
    return data.tobytes(), _decode_meta(meta)


def _source(name: str | os.PathLike) -> dict:
    """``blpk_unpack``'s keyword for a path or a URL (``s3://``, ``https://``, …: read by
    ranges, as ``binfmt.kastore`` and ``binfmt.taco`` read them; docs/remote.md)."""
    name = os.fspath(name)
    if isinstance(name, str) and _binfmt.is_url(name):
        return {"url": name}
    return {"path": name}


def unpack_bytes_from_file(compressed_file: str | os.PathLike) -> tuple[bytes, Any]:
    """Unpacks the file ``compressed_file`` (a path or a URL): ``(data, metadata or
    None)``."""
    data, meta = _binfmt.blpk_unpack(**_source(compressed_file), threads=_nthreads)
    assert data is not None
    return data.tobytes(), _decode_meta(meta)


def unpack_file_from_file(in_file: str | os.PathLike, out_file: str | os.PathLike, *,
                          sync: bool = False) -> Any:
    """Unpacks ``in_file`` (a path or a URL) into ``out_file`` (replaced atomically;
    chunks decompressed in parallel while it is written; ``sync``: see Durability in the
    module's docstring); returns the metadata or ``None``."""
    _, meta = _binfmt.blpk_unpack(**_source(in_file), out_path=os.fspath(out_file),
                                 threads=_nthreads, sync=bool(sync))
    return _decode_meta(meta)


# --- numpy ---------------------------------------------------------------------------


def _ndarray_meta(ndarray: np.ndarray) -> dict:
    # Exactly what bloscpack 0.16 stores (key order included).
    return {
        "dtype": repr(ndarray.dtype.descr) if ndarray.dtype.names is not None
        else repr(ndarray.dtype.str),
        "shape": list(ndarray.shape),
        "order": "F" if np.isfortran(ndarray) else "C",
        "container": "numpy",
    }


def _ndarray_bytes(ndarray: np.ndarray) -> np.ndarray:
    """The array's bytes in its memory order, as a 1-D uint8 view (no copy when the array
    is contiguous): the native packer reads them in place."""
    if np.isfortran(ndarray):
        flat = np.asfortranarray(ndarray).ravel(order="F")
    else:
        flat = np.ascontiguousarray(ndarray).reshape(-1)
    if flat.dtype.itemsize == 0 or flat.size == 0:
        return np.empty(0, dtype=np.uint8)
    return flat.view(np.uint8)


def _lists_to_tuples(descr: Any) -> Any:
    # Files of bloscpack < 0.7.2 stored a structured dtype's descr as nested JSON lists.
    if isinstance(descr, list):
        if descr and isinstance(descr[0], list):
            return [_lists_to_tuples(d) for d in descr]
        return tuple(_lists_to_tuples(d) for d in descr)
    return descr


def _dtype_of(text: Any) -> np.dtype:
    """The dtype stored in the metadata: a Python literal (``"'<f8'"``, or a structured
    dtype's ``descr`` list), parsed with :func:`ast.literal_eval`, which evaluates
    nothing; older files' forms are accepted too."""
    if isinstance(text, str):
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = text  # bloscpack < 0.7.2: the bare dtype string
    else:
        value = _lists_to_tuples(text)
    try:
        return np.dtype(value)
    except (TypeError, ValueError) as e:
        raise FormatError(f"the metadata's dtype {text!r} is not a numpy dtype: {e}",
                          format="bloscpack", kind="BadDtype", fault="input") from None


def _check_ndarray(ndarray: np.ndarray) -> None:
    if ndarray.dtype.hasobject:
        raise ObjectNumpyArrayRejection("cannot pack arrays of Python objects")


def _check_chunk_size(ndarray: np.ndarray, chunk_size: int | str) -> None:
    """bloscpack's check: the chunk size (the whole array when it is smaller, as
    ``calculate_nchunks`` has it) must be a multiple of the item size."""
    nbytes = int(ndarray.nbytes)
    itemsize = int(ndarray.dtype.itemsize)
    if nbytes == 0 or itemsize == 0:
        return
    size = min(_chunk_size(chunk_size, nbytes), nbytes)
    if size > 0 and size % itemsize != 0:
        raise ChunkSizeTypeSizeMismatch(
            f"chunk_size: {size} bytes is not divisible by the typesize: {itemsize}",
            format="bloscpack", kind="ChunkSizeTypeSizeMismatch", fault="caller")


def _ndarray_args(ndarray: np.ndarray, blosc_args: BloscArgs | None) -> BloscArgs:
    if blosc_args is None:
        return BloscArgs(typesize=ndarray.dtype.itemsize)
    args = copy.copy(blosc_args)
    args.typesize = ndarray.dtype.itemsize
    return args


def pack_ndarray_to_bytes(ndarray: np.ndarray, chunk_size: int | str = DEFAULT_CHUNK_SIZE,
                          blosc_args: BloscArgs | None = None,
                          bloscpack_args: BloscpackArgs | None = None,
                          metadata_args: MetadataArgs | None = None) -> bytes:
    """Packs a numpy array (any shape, C or Fortran order, plain or structured dtype) into
    bytes; ``typesize`` is the dtype's itemsize, as in bloscpack."""
    ndarray = np.asanyarray(ndarray)
    _check_ndarray(ndarray)
    _check_chunk_size(ndarray, chunk_size)
    out = _pack(_ndarray_bytes(ndarray), None, chunk_size, _ndarray_meta(ndarray),
                _ndarray_args(ndarray, blosc_args), bloscpack_args, metadata_args)
    assert out is not None
    return out


def pack_ndarray_to_file(ndarray: np.ndarray, filename: str | os.PathLike,
                         chunk_size: int | str = DEFAULT_CHUNK_SIZE,
                         blosc_args: BloscArgs | None = None,
                         bloscpack_args: BloscpackArgs | None = None,
                         metadata_args: MetadataArgs | None = None, *,
                         sync: bool = False) -> None:
    """Packs a numpy array into the file ``filename`` (replaced atomically; ``sync``: see
    Durability in the module's docstring)."""
    ndarray = np.asanyarray(ndarray)
    _check_ndarray(ndarray)
    _check_chunk_size(ndarray, chunk_size)
    _pack(_ndarray_bytes(ndarray), os.fspath(filename), chunk_size, _ndarray_meta(ndarray),
          _ndarray_args(ndarray, blosc_args), bloscpack_args, metadata_args, sync)


def _ndarray_layout(meta: Any) -> tuple[np.dtype, tuple[int, ...], str]:
    if not isinstance(meta, dict) or meta.get("container") != "numpy":
        raise NotANumpyArray("the file's metadata does not describe a numpy array",
                             format="bloscpack", kind="NotANumpyArray", fault="caller")
    dtype = _dtype_of(meta.get("dtype"))
    shape = tuple(int(n) for n in meta.get("shape", ()))
    order = meta.get("order", "C")
    if order not in ("C", "F"):
        raise FormatError(f"the metadata's order {order!r} is neither 'C' nor 'F'",
                          format="bloscpack", kind="BadOrder", fault="input")
    return dtype, shape, order


class _Target:
    """The ``alloc`` callback of ``blpk_unpack``: from the metadata, allocates the final
    array (dtype, shape, order) and hands its memory to the native code as a 1-D uint8
    view, so that c-blosc decompresses straight into the array that is returned."""

    def __init__(self) -> None:
        self.array: np.ndarray | None = None

    def __call__(self, meta_text: str | None, nbytes: int) -> np.ndarray:
        dtype, shape, order = _layout_of(meta_text, nbytes)
        array = np.empty(shape, dtype=dtype, order=order)
        self.array = array
        if nbytes == 0:
            return np.empty(0, dtype=np.uint8)
        return array.reshape(-1, order="A").view(np.uint8)


def _layout_of(meta_text: str | None, nbytes: int) -> tuple[np.dtype, tuple, str]:
    """The metadata's dtype, shape and order, checked against the unpacked length."""
    dtype, shape, order = _ndarray_layout(_decode_meta(meta_text))
    expected = dtype.itemsize * int(np.prod(shape, dtype=np.int64))
    if expected != nbytes:
        raise FormatError(
            f"the metadata describes {expected} bytes ({dtype}, shape {shape}), "
            f"but the chunks hold {nbytes}",
            format="bloscpack", kind="ShapeMismatch", fault="input")
    return dtype, shape, order


def _unpack_ndarray(**source: Any) -> np.ndarray:
    target = _Target()
    data, meta = _binfmt.blpk_unpack(alloc=target, threads=_nthreads, **source)
    assert data is not None
    if target.array is not None:
        return target.array
    # A URL, unpacked in one pass without `alloc` (its length was not known before the
    # chunks came): a view of the flat bytes.
    dtype, shape, order = _layout_of(meta, data.nbytes)
    if data.nbytes == 0:
        return np.empty(shape, dtype=dtype, order=order)
    return data.view(dtype).reshape(shape, order=order)


def unpack_ndarray_from_bytes(bytes_: bytes) -> np.ndarray:
    """The numpy array packed in ``bytes_``: dtype, shape and order from the metadata;
    writable, and owning its memory (``a.flags.owndata``): the array is allocated from
    the metadata first and c-blosc decompresses straight into it (no copy)."""
    return _unpack_ndarray(data=_as_bytes(bytes_))


def unpack_ndarray_from_file(filename: str | os.PathLike) -> np.ndarray:
    """The numpy array packed in the file ``filename``, a path or a URL (see
    :func:`unpack_ndarray_from_bytes`).

    A URL is read in one pass, with one request for the whole object, and decompressed
    as it comes; the array is then a view (``a.base``) of memory this package allocated
    as the chunks came, since nothing in the file can be trusted to size an array before
    them: writable, but ``a.flags.owndata`` is false. Memory: the array, and up to 16 MiB
    of compressed chunks read ahead of the decompression.

    A path is read chunk by chunk, never whole:
    each chunk is read into its own place in the array and decompressed there when it is
    one shuffled block (as bloscpack's defaults make them), into a buffer otherwise, so
    peak memory is the array plus c-blosc's scratch block per thread (and, for other
    chunks, one chunk per thread)."""
    return _unpack_ndarray(**_source(filename))


# --- append --------------------------------------------------------------------------


def append(orig_file: str | os.PathLike, new_file: str | os.PathLike,
           blosc_args: BloscArgs | None = None) -> None:
    """Appends the contents of the file ``new_file`` to the Bloscpack file ``orig_file``,
    in place (bloscpack's ``bloscpack.append.append``): the last chunk is topped up, new
    chunks use the spare offset slots. Locked and crash-consistent; checked first (a file
    without offsets or without enough spare slots is refused before anything is
    written)."""
    with open(new_file, "rb") as f:
        data = f.read()
    append_bytes(orig_file, data, blosc_args)


def append_bytes(orig_file: str | os.PathLike, data: bytes,
                 blosc_args: BloscArgs | None = None) -> None:
    """Appends ``data`` to the Bloscpack file ``orig_file`` (see :func:`append`)."""
    args = blosc_args or BloscArgs()
    _binfmt.blpk_append(os.fspath(orig_file), _as_bytes(data), clevel=int(args.clevel),
                        shuffle=_shuffle(args.shuffle), cname=str(args.cname))


# bloscpack's older names.
pack_file = pack_file_to_file
unpack_file = unpack_file_from_file
pack_bytes_file = pack_bytes_to_file
unpack_bytes_file = unpack_bytes_from_file
pack_ndarray_file = pack_ndarray_to_file
unpack_ndarray_file = unpack_ndarray_from_file
pack_ndarray_str = pack_ndarray_to_bytes
unpack_ndarray_str = unpack_ndarray_from_bytes


# --- the stream API (bloscpack's abstract_io, file_io, memory_io, numpy_io, append_fp) --
# The sources and sinks and the core pack/unpack live in the submodules, as in
# bloscpack: ``binfmt.bloscpack.abstract_io.pack``, ``.file_io.CompressedFPSink``,
# ``.memory_io.CompressedMemorySink``, ``.numpy_io.pack_ndarray``, ... (code in _stream).
# ``append_fp`` is here: ``binfmt.bloscpack.append`` is the function on paths, which also
# carries ``append.append_fp`` and ``append.append``, so that ``bloscpack.append.append_fp``
# spellings keep working.
from . import abstract_io, file_io, memory_io, numpy_io  # noqa: E402
from ._stream import append_fp, calculate_nchunks  # noqa: E402

append.append_fp = append_fp  # type: ignore[attr-defined]
append.append = append  # type: ignore[attr-defined]
__all__ += ["append_fp", "calculate_nchunks", "abstract_io", "file_io", "memory_io",
            "numpy_io"]
