"""kastore stores, zero-copy: a drop-in for the ``kastore`` package's public API.

``load(path)`` maps the file by default and returns a read-only :class:`Store` (a
:class:`collections.abc.Mapping` of ``str`` key to 1-D numpy array) whose arrays are views
of the map: nothing is copied, and opening costs the same for 6 KB and 50 GB. Each array
keeps the map alive (its ``.base`` is a :class:`memoryview` whose ``.obj`` is the
:class:`mmap.mmap`), so arrays stay valid after the store is closed or dropped, and after
:func:`dump` replaces the file (it writes a new file and renames it over the old one).

**Truncation.** A mapped file must not be truncated or rewritten in place while arrays
are alive: reading a page past the new end kills the process with ``SIGBUS`` (the
reference kastore 0.3.6 copies, and returns the data). Where a file may be shrunk under
you, pass ``read_all=True``: the store is then copied into memory at once and its arrays
are views of that copy, immune to anything done to the file.

Inputs: a path (``str``, ``bytes``, :class:`os.PathLike`), an integer file descriptor, an
object with ``read()`` (read from its current position to the end of one store, leaving
it there, so several stores can be read in a row, from pipes too), or, with
:func:`loads`, ``bytes``. ``dump``/``dumps`` write exactly the bytes the reference writes.

Errors: a malformed store raises :class:`FileFormatError` (also a
:class:`binfmt.FormatError` and a :class:`ValueError`), a version other than 1
:class:`VersionTooOldError`/:class:`VersionTooNewError`, zero bytes :class:`EOFError`
(``KastoreEOFError``); ``str(e)`` is ``byte N: message``, as ``binfmt verify`` prints it.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from .. import _binfmt
from .._errors import FormatError
from . import exceptions  # binfmt.kastore.exceptions, as kastore.exceptions
# The exception classes (exceptions.__all__), importable from here as from kastore.
from .exceptions import *  # noqa: F403

__all__ = [
    "load",
    "loads",
    "dump",
    "dumps",
    "Store",
    "ValueInfo",
    "KastoreException",
    "FileFormatError",
    "VersionTooOldError",
    "VersionTooNewError",
    "StoreClosedError",
    "FormatError",
    "PY_ENGINE",
    "C_ENGINE",
]

PY_ENGINE = "python"
C_ENGINE = "c"
DEFAULT_KEY_ENCODING = "utf-8"
# The header's size, from the native module (the one place that knows the layout).
HEADER_SIZE: int = _binfmt.KASTORE_HEADER_SIZE
_ENGINES = (PY_ENGINE, C_ENGINE)
# numpy dtype names kastore stores, in type-code order.
_DTYPES = (
    "int8", "uint8", "int16", "uint16", "int32", "uint32",
    "int64", "uint64", "float32", "float64",
)


def _check_engine(engine: object) -> None:
    if not isinstance(engine, str) or engine not in _ENGINES:
        raise ValueError("unknown engine")


class ValueInfo:
    """What :meth:`Store.info` says about one array: ``dtype``, ``shape`` and ``size``
    (bytes), as in the ``kastore`` package."""

    __slots__ = ("dtype", "shape", "size")

    def __init__(self, dtype: np.dtype, shape: tuple[int], size: int) -> None:
        self.dtype = dtype
        self.shape = shape
        self.size = size

    def __str__(self) -> str:
        return f"dtype={self.dtype} shape={self.shape}, size={self.size}"

    __repr__ = __str__


class Store(Mapping):
    """A loaded store: a read-only mapping of key to 1-D numpy array.

    Arrays are made on first access and cached; they are read-only views of the
    store's buffer (a memory map for paths, the bytes read otherwise). :meth:`close`
    (or leaving a ``with`` block) makes the store unusable
    (:class:`StoreClosedError`) but leaves arrays already taken valid.
    """

    def __init__(
        self,
        buffer: Any,
        items: list,
        key_encoding: str = DEFAULT_KEY_ENCODING,
        origin: tuple[str, int, bool] | None = None,
    ) -> None:
        """``buffer`` holds the arrays (a memory map, a memoryview of one, ``bytes``);
        ``items`` are ``(key bytes, dtype name, array offset in buffer, element count)``
        as the native module returns them; ``origin`` is where the store came from, for
        pickling: ``(path or URL, byte position, read_all)``, or ``None`` (bytes given to
        :func:`loads`, a pipe: then pickled by value). Local files and URLs alike."""
        self._buffer = buffer
        self._index: dict[str, tuple[str, int, int]] = {}
        for key, dtype, offset, count in items:
            self._index[key.decode(key_encoding)] = (dtype, offset, count)
        self._arrays: dict[str, np.ndarray] = {}
        self._closed = False
        self.key_encoding = key_encoding
        self._origin = origin

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosedError()

    def __getitem__(self, key: str) -> np.ndarray:
        self._check_open()
        array = self._arrays.get(key)
        if array is None:
            dtype, offset, count = self._index[key]
            if count == 0:
                array = np.empty(0, dtype=dtype)
                array.flags.writeable = False
            else:
                array = np.frombuffer(self._buffer, dtype=dtype, count=count, offset=offset)
            self._arrays[key] = array
        return array

    def __len__(self) -> int:
        self._check_open()
        return len(self._index)

    def __iter__(self) -> Iterator[str]:
        self._check_open()
        return iter(self._index)

    def __contains__(self, key: object) -> bool:
        self._check_open()
        return key in self._index

    def info(self, key: str) -> ValueInfo:
        """The dtype, shape and size in bytes of the array under ``key``, without making
        the array."""
        self._check_open()
        dtype, _, count = self._index[key]
        dt = np.dtype(dtype)
        return ValueInfo(dt, (count,), count * dt.itemsize)

    def close(self) -> None:
        """Closes the store. Arrays already taken stay valid (they keep the memory map
        alive); the map itself is closed now if no array uses it."""
        if self._closed:
            return
        self._closed = True
        buffer, self._buffer = self._buffer, None
        self._arrays = {}
        if isinstance(buffer, (mmap.mmap, memoryview)):
            try:
                buffer.close() if isinstance(buffer, mmap.mmap) else buffer.release()
            except BufferError:
                pass  # arrays still view it; it closes when the last one goes

    def __reduce__(self) -> tuple:
        """Pickles by reference where the store came from a file: the path (made absolute
        at load) and the store's byte position in it, re-mapped (or re-read, for
        ``read_all=True``) on unpickling, so a store of any size pickles in a few bytes
        (to worker processes, say). A store from bytes or a pipe pickles by value."""
        self._check_open()
        if self._origin is not None:
            path, position, read_all = self._origin
            return (_unpickle, (path, position, read_all, self.key_encoding))
        arrays = {key: np.array(self[key]) for key in self._index}
        return (loads, (_encode(arrays, self.key_encoding), self.key_encoding))

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *args: object) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._closed:
            return "<binfmt.kastore.Store (closed)>"
        return f"<binfmt.kastore.Store of {len(self._index)} items>"


def _path_of(file: object) -> str | bytes | None:
    if isinstance(file, (int, bool)):
        return None
    try:
        return os.fspath(file)  # type: ignore[call-overload]
    except TypeError:
        return None


def _read_exactly(f: Any, n: int) -> bytes:
    chunks = []
    while n > 0:
        chunk = f.read(min(n, 1 << 26))
        if not chunk:
            break
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _read_one_store(f: Any) -> bytes:
    """The bytes of the store starting at ``f``'s position, read forward only (pipes and
    sockets work), leaving ``f`` just after the store."""
    head = _read_exactly(f, HEADER_SIZE)
    file_size = _binfmt.kastore_file_size(head)
    if file_size is None:
        return head  # the native parser reports EOF (zero bytes) or truncation
    if file_size <= HEADER_SIZE:
        return head
    return head + _read_exactly(f, file_size - HEADER_SIZE)


def _from_bytes(
    data: bytes, key_encoding: str, origin: tuple[str, int, bool] | None = None
) -> Store:
    items, _ = _binfmt.kastore_index(data)
    return Store(data, items, key_encoding, origin)


def _load_url(url: str, key_encoding: str) -> Store:
    """The store at ``url``: header and descriptors by range, then every array by range
    (adjacent ranges merged) into one buffer, the GIL released; arrays are views of it."""
    items, _, buffer = _binfmt.kastore_load_url(url)
    return Store(buffer, items, key_encoding, (url, 0, False))


def load(
    file: Any,
    read_all: bool = False,
    key_encoding: str = DEFAULT_KEY_ENCODING,
    engine: str = PY_ENGINE,
) -> Store:
    """Loads a kastore store.

    Args:
        file: a path (``str``, ``bytes`` or :class:`os.PathLike`), an integer file
            descriptor, or a file object with ``read()``, or a URL (``s3://``, ``gs://``,
            ``az://``, ``http(s)://``, ``file://``: read by ranges into memory, **not**
            zero-copy, the GIL released; ``read_all`` is then moot). A path is memory-mapped; a
            file object or descriptor is read from its current position to the end of
            one store, and left there.
        read_all: ``False`` (the default): memory-map a path, copy nothing; arrays are
            views of the map, and truncating the file while they live gives ``SIGBUS``.
            ``True``: read the whole store into memory and close the file at once (arrays
            are views of that ``bytes`` copy and survive anything done to the file: the
            reference's behaviour). File objects and descriptors are always read (copied).
        key_encoding: how keys are decoded to ``str``.
        engine: ``"python"`` or ``"c"``, accepted for compatibility and ignored.

    Returns:
        A read-only :class:`Store` (a :class:`collections.abc.Mapping`) of key to 1-D
        numpy array; every array is read-only, and (by default, for a path) a zero-copy
        view of the map.

    Raises:
        FileFormatError: the store is malformed (``str(e)`` is ``byte N: message``).
        VersionTooOldError, VersionTooNewError: the store is not kastore 1.x.
        EOFError: zero bytes where the store should start.
        OSError: the file cannot be opened or read.
        TypeError: ``file`` is none of the above.

    Example:
        >>> store = binfmt.kastore.load("example.trees")  # doctest: +SKIP
        >>> store["nodes/time"].base  # doctest: +SKIP
        <memory at 0x...>
        >>> store["nodes/time"].base.obj  # doctest: +SKIP
        <mmap.mmap closed=False, access=ACCESS_READ, length=..., pos=0, offset=0>
        >>> copied = binfmt.kastore.load("example.trees", read_all=True)  # doctest: +SKIP
    """
    _check_engine(engine)
    if isinstance(file, str) and _binfmt.is_url(file):
        return _load_url(file, key_encoding)
    path = _path_of(file)
    if path is not None:
        return _load_path(path, 0, read_all, key_encoding)
    if isinstance(file, int) and not isinstance(file, bool):
        with open(file, "rb", closefd=False, buffering=0) as f:
            return _from_bytes(_read_one_store(f), key_encoding)
    if not hasattr(file, "read"):
        raise TypeError("file must be a path, a file descriptor or a file object with read()")
    origin = _file_origin(file)
    return _from_bytes(
        _read_one_store(file), key_encoding, None if origin is None else (*origin, True)
    )


def _file_origin(file: Any) -> tuple[str, int] | None:
    """The path and position of a file object opened on a regular file, if it has them."""
    name = getattr(file, "name", None)
    if not isinstance(name, (str, bytes)):
        return None
    try:
        position = file.tell()
        path = os.path.abspath(os.fsdecode(name))
        if not os.path.isfile(path):
            return None
    except (OSError, ValueError, AttributeError):
        return None
    return (path, position)


def _load_path(path: str | bytes, position: int, read_all: bool, key_encoding: str) -> Store:
    """The store at byte ``position`` of the file at ``path``, opened and checked by the
    native module (positioned reads, the GIL released): mapped here through the
    descriptor it returns, or read into memory by it with ``read_all``."""
    origin = (os.path.abspath(os.fsdecode(path)), position, read_all)
    items, file_size, handle = _binfmt.kastore_open(os.fsdecode(path), position, read_all)
    if read_all:
        return Store(handle, items, key_encoding, origin)
    end = position + file_size
    if handle is None:  # no descriptor to hand over (not a POSIX system)
        with open(path, "rb") as f:
            mm = mmap.mmap(f.fileno(), end, access=mmap.ACCESS_READ)
    else:
        try:
            mm = mmap.mmap(handle, end, access=mmap.ACCESS_READ)
        finally:
            os.close(handle)
    buffer: Any = mm if position == 0 else memoryview(mm)[position:]
    return Store(buffer, items, key_encoding, origin)


def _unpickle(path: str, position: int, read_all: bool, key_encoding: str) -> Store:
    if _binfmt.is_url(path):
        return _load_url(path, key_encoding)
    return _load_path(path, position, read_all, key_encoding)


def loads(encoded_data: bytes, key_encoding: str = DEFAULT_KEY_ENCODING) -> Store:
    """Loads a store from bytes (``bytes``, ``bytearray`` or ``memoryview``): arrays are
    read-only views of ``encoded_data`` (of a copy, for a mutable buffer)."""
    data = encoded_data if isinstance(encoded_data, bytes) else bytes(encoded_data)
    return _from_bytes(data, key_encoding)


def _encode(data: Mapping, key_encoding: str) -> bytes:
    if not isinstance(data, Mapping):
        raise TypeError("Input must be dict-like")
    items = []
    for key, value in data.items():
        if not isinstance(key, str):
            raise TypeError("Key must be a string")
        if len(key) == 0:
            raise ValueError("Empty keys not supported")
        array = np.asarray(value)
        if array.ndim != 1:
            raise ValueError("Only 1D arrays supported")
        name = array.dtype.name
        if name not in _DTYPES:
            raise ValueError(f"kastore cannot store arrays of dtype {array.dtype}")
        array = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
        items.append((key.encode(key_encoding), name, array.tobytes()))
    return _binfmt.kastore_dumps(items)


def dumps(data: Mapping, key_encoding: str = DEFAULT_KEY_ENCODING) -> bytes:
    """The bytes of a store holding ``data`` (a mapping of ``str`` to 1-D array-like):
    exactly what ``kastore.dumps`` returns."""
    return _encode(data, key_encoding)


def dump(
    data: Mapping,
    file: Any,
    key_encoding: str = DEFAULT_KEY_ENCODING,
    engine: str = PY_ENGINE,
) -> None:
    """Writes ``data`` (a mapping of ``str`` to 1-D array-like) as a store to ``file``.

    ``file`` is a path, an integer file descriptor or a file object with ``write()``. A
    path is replaced atomically, under the ``binfmt`` command's output rules: the store
    is written to a temporary file in the same directory, synced and renamed over the
    path (keeping the old file's permissions; a symbolic link is followed and stays a
    link; a FIFO is streamed into). The old file is never truncated nor rewritten in
    place, so arrays still mapped from it by :func:`load` keep their values, and nothing
    is changed if writing fails. A descriptor or file object is written at its position,
    as given (several stores can follow each other). The bytes are exactly the
    reference's; everything is checked before anything is written."""
    _check_engine(engine)
    encoded = _encode(data, key_encoding)
    path = _path_of(file)
    if path is not None:
        # Never truncated nor rewritten in place: a temporary file beside it, renamed over
        # it (maps of the old file, such as arrays from load(), keep their bytes).
        _binfmt.write_file(os.fsdecode(path), encoded)
    elif isinstance(file, int) and not isinstance(file, bool):
        with open(file, "wb", closefd=False, buffering=0) as f:
            view = memoryview(encoded)
            while view:
                view = view[f.write(view):]
    elif hasattr(file, "write"):
        file.write(encoded)
    else:
        raise TypeError("file must be a path, a file descriptor or a file object with write()")
