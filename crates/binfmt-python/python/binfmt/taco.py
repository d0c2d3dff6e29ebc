"""TACO headers of tacozip archives: a drop-in for ``tacozip``'s functions, plus the
member listing that tacoreader computes by hand.

A TACO archive is a ZIP file whose first member, ``TACO_HEADER``, is a stored 116-byte
payload of up to seven ``(offset, length)`` pairs: the first 157 bytes of the file.

* :func:`read_header` — the entries, from a path or from bytes (157 or more: a 256-byte
  range response will do); every field and the CRC-32 are checked.
* :func:`update_header` — replaces the entries in place, **after** checking everything
  the writes depend on (tacozip writes first and can leave a broken file); locked and
  crash-consistent.
* :func:`create` — a new archive (header first, members stored, ZIP64 when needed);
  header-only archives too; unsafe and duplicate names refused.
* :func:`members` — every member with the offset of its data, as range requests need.

:func:`read_header` and :func:`members` accept URLs (``s3://``, ``gs://``, ``az://``,
``http(s)://``, ``file://``) as well as paths, read by ranges without the GIL (see the
package README, "URLs").

Differences from tacozip 0.13: the stored count is the number of entries given
(tacozip counts the entries that are not ``(0, 0)`` while keeping slots positional, so
``[(0, 0), (100, 200)]`` reads back from it as ``[(0, 0)]``); ``pathlib.Path`` works
everywhere; errors are :class:`TacoError` (a :class:`binfmt.FormatError`, aliased
``TacozipError``) with ``str(e) == "byte N: message"``, and :class:`OSError` for I/O.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple, Sequence, Union

from . import _binfmt
from ._errors import FormatError, _register

__all__ = [
    "read_header",
    "update_header",
    "create",
    "members",
    "Member",
    "TacoError",
    "TacozipError",
    "TACO_HEADER_MAX_ENTRIES",
    "HEADER_SIZE",
    "get_library_version",
]

TACO_HEADER_MAX_ENTRIES = 7
HEADER_SIZE = 157

PathLike = Union[str, os.PathLike]


class TacoError(FormatError):
    """A TACO archive (or header) that breaks a rule of the format, or bad entries."""


TacozipError = TacoError
_register("taco", TacoError)


class Member(NamedTuple):
    """One ZIP member: ``name`` (decoded lossily), ``data_offset`` (where its bytes start),
    ``size``, ``compressed_size`` (equal for stored members), ``method`` (0 = stored),
    ``crc32`` and ``header_offset`` (its local header)."""

    name: str
    data_offset: int
    size: int
    compressed_size: int
    method: int
    crc32: int
    header_offset: int

    @property
    def range(self) -> tuple[int, int]:
        """``(data_offset, compressed_size)``: what to range-request."""
        return (self.data_offset, self.compressed_size)


def _entries(entries: Sequence[tuple[int, int]] | None) -> list[tuple[int, int]]:
    if entries is None:
        return []
    out = [(int(o), int(n)) for o, n in entries]
    if len(out) > TACO_HEADER_MAX_ENTRIES:
        raise ValueError(f"Too many entries: {len(out)} > {TACO_HEADER_MAX_ENTRIES}")
    for o, n in out:
        if not (0 <= o < 1 << 64 and 0 <= n < 1 << 64):
            raise ValueError(f"entry ({o}, {n}) does not fit two unsigned 64-bit integers")
    return out


def read_header(source: PathLike | bytes | bytearray | memoryview) -> list[tuple[int, int]]:
    """The ``(offset, length)`` entries of the TACO header.

    Args:
        source: a path (``str`` or :class:`os.PathLike`), a URL (``s3://``, ``gs://``,
            ``az://``, ``http(s)://``, ``file://``: one ranged read of the first 256 bytes,
            the GIL released), or the archive's first bytes (``bytes``, ``bytearray``,
            ``memoryview``; at least 157).

    Raises:
        TacoError: not a TACO header, or a field or the CRC-32 is wrong.
        OSError: the file cannot be read.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _binfmt.taco_read_header_bytes(bytes(source))
    if isinstance(source, str) and _binfmt.is_url(source):
        return _binfmt.taco_read_header_url(source)
    return _binfmt.taco_read_header_path(os.fspath(source))


def update_header(zip_path: PathLike, entries: Sequence[tuple[int, int]]) -> None:
    """Replaces the header's entries with ``entries`` (at most 7) in place. The archive is
    checked first (header, end records, central directory); nothing is written unless
    the update can complete."""
    _binfmt.taco_update_header(os.fspath(zip_path), _entries(entries))


def create(
    zip_path: PathLike,
    src_files: Sequence[PathLike],
    arc_files: Sequence[str] | None = None,
    entries: Sequence[tuple[int, int]] | None = None,
) -> None:
    """Creates a TACO archive at ``zip_path`` (replaced atomically): the header holding
    ``entries``, then each of ``src_files`` stored under the matching name of
    ``arc_files`` (default: each file's base name). ``src_files`` may be empty."""
    sources = [os.fspath(p) for p in src_files]
    if arc_files is None:
        names = [Path(p).resolve().name for p in sources]
    else:
        names = [str(n) for n in arc_files]
        if len(names) != len(sources):
            raise ValueError("arc_files must have the same length as src_files")
    _binfmt.taco_create(os.fspath(zip_path), list(zip(names, sources)), _entries(entries))


def members(source: PathLike | bytes | bytearray | memoryview) -> list[Member]:
    """Every member of the archive, ``TACO_HEADER`` first, with the offset of its data.

    ``source``: a path or a URL (read by ranges: the header, the end of the file, the
    central directory, the local headers, batched; for a URL the GIL is released) or the
    whole archive as bytes. ``data_offset`` is exact for URLs too."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        rows = _binfmt.taco_members_bytes(bytes(source))
    elif isinstance(source, str) and _binfmt.is_url(source):
        _, rows = _binfmt.taco_members_url(source)
    else:
        _, rows = _binfmt.taco_members_path(os.fspath(source))
    return [Member(*r) for r in rows]


def get_library_version() -> str:
    """This package's version (tacozip returns its C library's)."""
    from . import __version__

    return __version__
