"""Type stubs of the native module (``binfmt._binfmt``, built from crates/binfmt-python/src).

Internal: the public API is the Python modules (``binfmt.kastore``, ``binfmt.bloscpack``,
``binfmt.taco``), which are typed inline (PEP 561 ``py.typed``)."""

from os import PathLike
from typing import Any, Callable

import numpy as np
import numpy.typing as npt

_Path = str | PathLike[str]

KASTORE_HEADER_SIZE: int

def kastore_index(data: bytes) -> tuple[list[tuple[bytes, str, int, int]], int]:
    """``([(key, dtype name, array offset, element count)], file_size)`` of the store at the
    start of ``data``."""

def kastore_file_size(head: bytes) -> int | None:
    """The header's ``file_size`` field (``None`` when ``head`` is shorter than a header)."""

def kastore_open(
    path: _Path, position: int = 0, read_all: bool = False
) -> tuple[list[tuple[bytes, str, int, int]], int, int | bytes | None]:
    """``(items, file_size, handle)`` of the store at ``position`` of ``path``, checked with
    positioned reads (GIL released). ``handle``: the store's bytes with ``read_all``, else
    a new descriptor of the file (the caller maps and closes it), or ``None`` off POSIX."""

def kastore_load_url(url: str) -> tuple[list[tuple[bytes, str, int, int]], int, bytes]:
    """``(items, file_size, buffer)`` of the store at ``url``: every array read by range
    (GIL released) to its offset in ``buffer``; not zero-copy."""

def kastore_dumps(items: list[tuple[bytes, str, bytes]]) -> bytes:
    """The store holding ``(key, dtype name, little-endian bytes)`` items."""

def blpk_pack(
    data: bytes | npt.NDArray[np.uint8],
    *,
    chunk_size: int,
    typesize: int,
    clevel: int,
    shuffle: int,
    cname: str,
    offsets: bool,
    checksum: str,
    max_app_chunks: int | None,
    metadata: bytes | None,
    meta_checksum: str,
    meta_codec: str,
    meta_level: int,
    max_meta_size: int | None,
    path: _Path | None,
    threads: int = 0,
    sync: bool = True,
    input_path: _Path | None = None,
) -> bytes | None:
    """The file's bytes, or ``None`` after writing them to ``path`` (replaced
    atomically; synced before the rename with ``sync``; refused if it is the file
    ``input_path``, whatever names it). ``data`` is read in place;
    ``threads`` chunks are compressed at once (0: the cores, at most 8); the bytes do not
    depend on it."""
def blpk_unpack(
    data: bytes | None = None,
    path: _Path | None = None,
    out_path: _Path | None = None,
    alloc: Callable[[str | None, int], npt.NDArray[np.uint8]] | None = None,
    threads: int = 0,
    url: str | None = None,
    sync: bool = True,
) -> tuple[npt.NDArray[np.uint8] | None, str | None]:
    """``(bytes as a uint8 array, metadata JSON or None)`` of the file given as ``data``,
    ``path`` (read chunk by chunk) or ``url`` (read by ranges, chunks read ahead); with
    ``out_path`` the bytes go to that file (replaced atomically; synced before the rename
    with ``sync``) and the array is ``None``. ``alloc(metadata_json, nbytes)``,
    when given, returns the array to decompress into: a writable, contiguous 1-D uint8
    array of ``nbytes`` (typically a view of the caller's final array). ``threads``
    chunks are decompressed at once (0: the cores, at most 8)."""
def blpk_append(path: _Path, data: bytes, *, clevel: int, shuffle: int, cname: str) -> tuple[int, int]: ...
def taco_read_header_bytes(data: bytes) -> list[tuple[int, int]]: ...
def taco_read_header_path(path: _Path) -> list[tuple[int, int]]: ...
def taco_update_header(path: _Path, entries: list[tuple[int, int]], sync: bool = False) -> None:
    """Patches the header in place (locked; three ordered writes; ``fdatasync`` after each
    with ``sync``)."""
def taco_update_writes(data: bytes, entries: list[tuple[int, int]]) -> list[tuple[int, bytes]]:
    """The ``(offset, bytes)`` writes an update of the archive ``data`` makes, in order."""
def taco_create(path: _Path, members: list[tuple[str, _Path]], entries: list[tuple[int, int]]) -> int: ...
def taco_members_bytes(data: bytes) -> list[tuple[str, int, int, int, int, int, int]]: ...
def taco_members_path(path: _Path) -> tuple[list[tuple[int, int]], list[tuple[str, int, int, int, int, int, int]]]: ...

def taco_read_header_url(url: str) -> list[tuple[int, int]]:
    """The header's entries from ``url`` (one ranged read of 256 bytes, GIL released)."""
def taco_members_url(url: str) -> tuple[list[tuple[int, int]], list[tuple[str, int, int, int, int, int, int]]]: ...
def write_file(path: _Path, data: bytes) -> None:
    """Writes ``data`` to ``path`` under the CLI's output rules: a temporary file beside
    it, synced and renamed over it (mode kept, symlinks followed); never in place."""
def is_url(arg: str) -> bool:
    """Whether ``arg`` is a URL (``s3://``, ``gs://``, ``az://``, ``http(s)://``, ``file://``, …)."""
def remote_enabled() -> bool:
    """Whether this build reads URLs (the ``remote`` cargo feature, on by default)."""

class TaridxReader:
    def __init__(self, index: _Path, shards: list[_Path]) -> None: ...
    @staticmethod
    def open_urls(index: str, shards: list[str]) -> TaridxReader:
        """The index at URL ``index`` (read once) with the shards at URLs ``shards``."""
    def read(self, fid: int, offset: int, size: int) -> bytes:
        """``size`` bytes at ``offset`` of shard ``fid`` (one ranged read, GIL released)."""
    def n_rows(self) -> int: ...
    def extensions(self) -> list[str]: ...
    def n_samples(self) -> int: ...
    def samples(self) -> list[list[tuple[str, int, int, int]]]:
        """Each sample (first-row order): ``[(ext, shard id, payload offset, size)]``."""
    def samples_at(self, indices: list[int]) -> list[dict[str, Any]]:
        """``{"__key__": stem, ext: payload}`` of each sample at ``indices``, one batch."""
    def get_many(self, keys: list[str]) -> list[tuple[int, dict[str, Any]]]:
        """``(members found, {"__key__": stem, ext: payload})`` per key, one batch."""
    def locate(self, stem: str) -> list[tuple[str, int, int, int]]: ...
    def get(self, stem: str) -> list[tuple[str, bytes]]: ...

def taridx_build(dir: _Path, fold: str, output: _Path, glzn: bool) -> tuple[int, int, int]: ...

class MldfReader:
    def __init__(self, path: _Path) -> None: ...
    @staticmethod
    def open_url(url: str) -> MldfReader:
        """The MLDF object at ``url``, read by ranges (GIL released)."""
    def num_samples(self) -> int: ...
    def fields(self) -> list[tuple[str, str, bool, str | None, list[int] | None, int]]:
        """``[(name, type name, nullable, NDARRAY dtype name, NDARRAY shape, JPEG quality or
        vocabulary size)]``."""
    def sample(self, i: int) -> list[tuple[str, Any]]:
        """``(kind, value)`` of every field of sample ``i``, in field order."""
    def value(self, i: int, field: int) -> tuple[str, Any]: ...
    def slot_layout(self, field: int) -> tuple[int, int, int, int]:
        """``(metadata_ptr, row_size, row_offset, slot size)`` of a field."""

class MldfWriter:
    def __init__(
        self,
        path: _Path,
        fields: list[tuple[str, str, bool, str | None, list[int] | None, int]],
        page_size: int | None = None,
        checksums: bool = False,
        num_samples: int | None = None,
    ) -> None:
        """Fields: ``(name, type name, nullable, NDARRAY dtype, NDARRAY shape, JPEG quality
        or vocabulary size)``."""
    def push(self, values: list[tuple[str, Any]]) -> None:
        """One sample: ``(kind, value)`` pairs (``"int"``, ``"image_raw"``, ``"pcm"``,
        ``"tokens16"``…) in field order."""
    def finish(self) -> int: ...
    def abort(self) -> None: ...
