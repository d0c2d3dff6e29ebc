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
everywhere; a malformed archive or a bad argument raises :class:`TacoError` (a
:class:`TacozipError` and a :class:`binfmt.FormatError`, so also a :class:`ValueError`)
with ``str(e) == "byte N: message"``; an I/O failure raises :class:`TacozipIOError`, a
:class:`TacozipError` that is also the matching :class:`OSError` (a missing file: a
:class:`FileNotFoundError`). Every error is a :class:`TacozipError` with tacozip's
``code`` (``TACOZ_ERR_IO``, ``TACOZ_ERR_INVALID_HEADER``, ``TACOZ_ERR_PARAM``…).
``TACOZ_OK`` and the ``TACOZ_ERR_*`` constants, :func:`self_check` and
``__tacozip_version__`` (this library's version, as tacozip gives its C library's) are
exported as tacozip exports them.
"""

from __future__ import annotations

import errno
import operator
import os
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence, TypeVar, Union

from .. import _binfmt
from .._errors import FormatError, _register
from .config import (
    ERROR_MESSAGES,
    TACO_HEADER_MAX_ENTRIES,
    TACO_HEADER_SIZE,
    TACOZ_ERR_EXISTS,
    TACOZ_ERR_INVALID_HEADER,
    TACOZ_ERR_IO,
    TACOZ_ERR_LIBZIP,
    TACOZ_ERR_NOT_FOUND,
    TACOZ_ERR_PARAM,
    TACOZ_ERR_TOO_LARGE,
    TACOZ_OK,
)

# tacozip's `__all__`, name for name (what `from tacozip import *` gives). binfmt's
# additions (`members`, `Member`, `TacoError`, `TacozipIOError`, `TacozipValidationError`,
# `HEADER_SIZE`) are imported by name.
__all__ = [
    "__version__",
    "__tacozip_version__",
    "__author__",
    "__author_email__",
    "__description__",
    "__url__",
    "__license__",
    "self_check",
    "TACOZ_OK",
    "TACOZ_ERR_IO",
    "TACOZ_ERR_LIBZIP",
    "TACOZ_ERR_INVALID_HEADER",
    "TACOZ_ERR_PARAM",
    "TACOZ_ERR_NOT_FOUND",
    "TACOZ_ERR_EXISTS",
    "TACOZ_ERR_TOO_LARGE",
    "TACO_HEADER_MAX_ENTRIES",
    "TacozipError",
    "create",
    "update_header",
    "read_header",
    "get_library_version",
]

HEADER_SIZE = TACO_HEADER_SIZE

PathLike = Union[str, os.PathLike]


class TacozipError(Exception):
    """Parent of every error this module raises (``tacozip.TacozipError``): ``code`` is
    one of the ``TACOZ_ERR_*`` constants, numbered as tacozip numbers them.

    ``TacozipError(code)`` builds one as tacozip does (``str``: ``tacozip error CODE:
    MESSAGE``). Raised errors are also one of: :class:`TacoError` (a
    :class:`binfmt.FormatError`, hence a :class:`ValueError`) for bad archives and bad
    arguments, or :class:`TacozipIOError` (also the matching :class:`OSError` subclass:
    a missing file is a :class:`FileNotFoundError`, with ``code == TACOZ_ERR_IO``)."""

    code: int

    def __init__(self, code: int = TACOZ_ERR_IO, message: str | None = None) -> None:
        self.code = code
        if message is None:
            message = ERROR_MESSAGES.get(code, f"Unknown error code: {code}")
        super().__init__(f"tacozip error {code}: {message}")


class TacozipValidationError(TacozipError):
    """A validation or parameter error (``tacozip.exceptions.TacozipValidationError``)."""


class TacozipLibraryError(TacozipError):
    """A native library that cannot be loaded (``tacozip.exceptions.TacozipLibraryError``):
    kept for code that catches it; binfmt's native code is part of the wheel, so this
    module does not raise it."""


class TacozipIOError(TacozipError, OSError):
    """An I/O error (``tacozip.exceptions.TacozipIOError``): also an :class:`OSError`
    with ``errno``, ``strerror`` and ``filename``; raised as the subclass matching the
    errno (``FileNotFoundError``, ``PermissionError``…), which is also this class.
    ``code`` is ``TACOZ_ERR_IO``."""

    def __init__(self, *args: Any) -> None:
        OSError.__init__(self, *args)
        self.code = TACOZ_ERR_IO

    def __str__(self) -> str:
        return OSError.__str__(self)


class TacoError(TacozipValidationError, FormatError):
    """A TACO archive (or header) that breaks a rule of the format, or bad entries: a
    :class:`TacozipError` and a :class:`binfmt.FormatError` (``str(e)`` is ``byte N:
    message``). ``code``: ``TACOZ_ERR_INVALID_HEADER`` for a malformed archive,
    ``TACOZ_ERR_PARAM`` for bad arguments, ``TACOZ_ERR_EXISTS`` for a duplicate member
    name, ``TACOZ_ERR_TOO_LARGE`` past a limit."""

    def __init__(self, message: str = "", *, code: int | None = None, **kw: Any) -> None:
        FormatError.__init__(self, message, **kw)
        self._code = code

    @property  # type: ignore[override]
    def code(self) -> int:
        if self._code is not None:
            return self._code
        if self.kind == "DuplicateName":
            return TACOZ_ERR_EXISTS
        if self.kind in ("NotAFile", "SourceChanged") or self.fault == "io":
            return TACOZ_ERR_IO
        if self.fault == "caller":
            return TACOZ_ERR_PARAM
        if self.fault == "limit" or self.kind in ("Overflow", "TooLarge"):
            return TACOZ_ERR_TOO_LARGE
        return TACOZ_ERR_INVALID_HEADER

    @code.setter
    def code(self, value: int) -> None:
        self._code = value


_register("taco", TacoError)

_IO_CLASSES: dict[type, type] = {OSError: TacozipIOError}


def _io_class(base: type) -> type:
    """The :class:`TacozipIOError` that is also ``base`` (an :class:`OSError` subclass),
    made once and kept as a module attribute (so that it pickles)."""
    cls = _IO_CLASSES.get(base)
    if cls is None:
        cls = type(f"Tacozip{base.__name__}", (TacozipIOError, base),
                   {"__module__": __name__, "__doc__": TacozipIOError.__doc__})
        _IO_CLASSES[base] = cls
        globals()[cls.__name__] = cls
    return cls


# The builtin OSError subclasses, made at import: TacozipFileNotFoundError, …
for _base in (FileNotFoundError, FileExistsError, PermissionError, IsADirectoryError,
              NotADirectoryError, InterruptedError, BlockingIOError, TimeoutError,
              ConnectionError, ProcessLookupError, ChildProcessError):
    _io_class(_base)
del _base


def _io_error(error: OSError, path: Any = None) -> TacozipIOError:
    """``error`` as a :class:`TacozipIOError` that is also its own class (``filename``:
    ``path`` when the error names none)."""
    cls = _io_class(type(error))
    filename = error.filename if error.filename is not None else path
    if error.errno is not None:
        args: tuple = (error.errno, error.strerror) + ((filename,) if filename is not None else ())
    else:
        args = error.args
    return cls(*args)


_T = TypeVar("_T")


def _call(f: Callable[..., _T], *args: Any, path: str | None = None) -> _T:
    """Calls the native ``f``, raising every OS error as a :class:`TacozipIOError` (naming
    ``path``, the one file ``f`` reads, when the error names no file)."""
    try:
        return f(*args)
    except TacozipError:
        raise
    except OSError as e:
        raise _io_error(e, path) from e


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
    # Integers only (any object with __index__), as tacozip's ctypes fields take them: a
    # float or a string is a TypeError there, not truncated or parsed.
    out = [(operator.index(o), operator.index(n)) for o, n in entries]
    if len(out) > TACO_HEADER_MAX_ENTRIES:
        # A ValueError, as tacozip raises, and a TacozipError.
        raise TacoError(f"Too many entries: {len(out)} > {TACO_HEADER_MAX_ENTRIES}",
                        code=TACOZ_ERR_PARAM, format="taco", kind="TooManyEntries",
                        fault="caller")
    for o, n in out:
        if not (0 <= o < 1 << 64 and 0 <= n < 1 << 64):
            # tacozip: TacozipError(TACOZ_ERR_PARAM); this one is a ValueError too.
            raise TacoError(f"entry ({o}, {n}) does not fit two unsigned 64-bit integers",
                            code=TACOZ_ERR_PARAM, format="taco", kind="EntryOutOfRange",
                            fault="caller")
    return out


def read_header(source: PathLike | bytes | bytearray | memoryview) -> list[tuple[int, int]]:
    """The ``(offset, length)`` entries of the TACO header.

    Args:
        source: a path (``str`` or :class:`os.PathLike`), a URL (``s3://``, ``gs://``,
            ``az://``, ``http(s)://``, ``file://``: one ranged read of the first 256 bytes,
            the GIL released), or the archive's first bytes (``bytes``, ``bytearray``,
            ``memoryview``; at least 157).

    Raises:
        TacoError: not a TACO header, or a field or the CRC-32 is wrong (a
            :class:`TacozipError`, ``code == TACOZ_ERR_INVALID_HEADER``).
        TacozipIOError: the file cannot be read (also the matching :class:`OSError`,
            such as :class:`FileNotFoundError`; ``code == TACOZ_ERR_IO``), or it is
            shorter than the 157-byte header (a path or a URL): tacozip reports that
            short read as an I/O error, and so does this module (an :class:`OSError`
            with ``errno.EIO``;
            bytes that are too short are a :class:`TacoError`, as in tacozip).
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _call(_binfmt.taco_read_header_bytes, bytes(source))
    # A file (a path, or a URL: file://, s3://…) shorter than the header is a short read.
    # A URL is not named in the error (it may carry credentials or a signed query).
    name: str | None
    if isinstance(source, str) and _binfmt.is_url(source):
        name, call, args = None, _binfmt.taco_read_header_url, (source,)
    else:
        name = os.fspath(source)
        call, args = _binfmt.taco_read_header_path, (name,)
    try:
        return _call(call, *args, path=name)
    except TacoError as e:
        if e.kind != "Truncated":
            raise
        raise TacozipIOError(*((errno.EIO, str(e)) + ((name,) if name else ()))) from e


def update_header(
    zip_path: PathLike, entries: Sequence[tuple[int, int]], *, sync: bool = False
) -> None:
    """Replaces the header's entries with ``entries`` (at most 7) in place. The archive is
    checked first (header, end records, central directory); nothing is written unless
    the update can complete. In place by design, as tacozip and ``binfmt taco update``
    do (the header's 116 bytes are patched under a lock): the file keeps its inode.

    Crash consistency: the three writes (the central directory's copy of the CRC, the
    entries, the header's CRC, which commits) are made in that order. A process killed
    at any point leaves either the old header, the new one, or a *torn update* (the two
    CRC copies differ) that ``binfmt verify`` reports and the next ``update_header``
    repairs: the kernel keeps every write a killed process made, in order.

    Args:
        sync: ``False`` (the default, as tacozip, which never syncs): the writes are not
            flushed to the disk; a **power loss** may keep any subset of them (the
            archive is then still recognised as torn, but the old entries may be lost
            too). ``True``: ``fdatasync`` after each write, so that they reach the disk
            in order and the update is durable once this returns (about 30x slower).
    """
    path = os.fspath(zip_path)
    _call(_binfmt.taco_update_header, path, _entries(entries), bool(sync), path=path)


def create(
    zip_path: PathLike,
    src_files: Sequence[PathLike],
    arc_files: Sequence[str] | None = None,
    entries: Sequence[tuple[int, int]] | None = None,
) -> None:
    """Creates a TACO archive at ``zip_path`` (replaced atomically): the header holding
    ``entries``, then each of ``src_files`` stored under the matching name of
    ``arc_files`` (default: each file's base name). ``src_files`` may be empty.
    ``zip_path`` is written under the ``binfmt`` command's output rules: a temporary file
    beside it, renamed over it (never truncated in place; mode kept; symlinks followed)."""
    sources = [os.fspath(p) for p in src_files]
    if arc_files is None:
        names = [Path(p).resolve().name for p in sources]
    else:
        names = [str(n) for n in arc_files]
        if len(names) != len(sources):
            raise TacoError(
                f"Archive names count ({len(names)}) must match source files count "
                f"({len(sources)})", code=TACOZ_ERR_PARAM, format="taco",
                kind="ArcFilesCount", fault="caller")
    _call(_binfmt.taco_create, os.fspath(zip_path), list(zip(names, sources)), _entries(entries))


def members(source: PathLike | bytes | bytearray | memoryview) -> list[Member]:
    """Every member of the archive, ``TACO_HEADER`` first, with the offset of its data.

    ``source``: a path or a URL (read by ranges: the header, the end of the file, the
    central directory, the local headers, batched; for a URL the GIL is released) or the
    whole archive as bytes. ``data_offset`` is exact for URLs too."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        rows = _call(_binfmt.taco_members_bytes, bytes(source))
    elif isinstance(source, str) and _binfmt.is_url(source):
        _, rows = _call(_binfmt.taco_members_url, source)
    else:
        path = os.fspath(source)
        _, rows = _call(_binfmt.taco_members_path, path, path=path)
    return [Member(*r) for r in rows]


def get_library_version() -> str:
    """This package's version (tacozip returns its C library's)."""
    from .. import __version__

    return __version__


def self_check() -> None:
    """Checks that the native library is usable, as ``tacozip.self_check`` does: returns
    ``None``, or raises :class:`TacozipError` naming what is missing."""
    required = ("taco_read_header_bytes", "taco_read_header_path", "taco_update_header",
                "taco_create", "taco_members_bytes", "taco_members_path")
    missing = [name for name in required if not hasattr(_binfmt, name)]
    if missing:
        raise TacozipError(TACOZ_ERR_IO, f"Missing functions in native library: {missing}")


__tacozip_version__ = get_library_version()
__version__ = __tacozip_version__
# This package's own metadata (tacozip's names; its values would claim another author).
__author__ = "The binfmt developers"
__author_email__ = "maintainers@users.noreply.a-seed-d723a818.example"
__description__ = "TACO Header reads and writes (binfmt's drop-in for tacozip): TACO ZIP archives, STORE only, header at byte 0."
__url__ = "https://github.com/binfmt-rs/binfmt"
__license__ = "MIT OR Apache-2.0"

# tacozip's submodules, for code that imports them (``from tacozip import config,
# exceptions``): the constants, the exception classes and the version, the same objects
# as above.
from . import config, exceptions, version  # noqa: E402
