"""Indexes of tar shards (``.taridx`` v1.0, glzn's iTar datasets): random access to the
samples of webdataset-style shards, one sample being the members that share a stem
(``sample000001.jpg``, ``sample000001.cls``, …).

* :func:`open` — an index and its shards (``DIR/FOLD.taridx`` next to
  ``DIR/FOLD_*.tar`` unless ``shards`` is given), checked whole at open.
* :meth:`TarIndex.get` — a sample's payloads by stem (names verified against the tar
  headers, so that a hash collision with an absent stem finds nothing);
  :meth:`TarIndex.locate` — where they are, from the index alone.
* ``len(ix)`` / ``ix[i]`` — the ``i``-th sample (first-row order) as ``{ext: bytes}``: a
  map-style dataset. The sample table is built once at open; the object pickles as its
  paths and table and reopens its files lazily in each process, so a PyTorch
  ``DataLoader`` with workers can use it (this package does not depend on torch).
* :func:`build` — indexes a fold's shards (strict mode, or glzn's byte-exact mode).

Errors: :class:`TaridxError` (a :class:`binfmt.FormatError`) for a bad index or shard,
:class:`OSError` for I/O, :class:`KeyError` for an absent stem or extension.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence, Union

from . import _binfmt
from ._errors import FormatError, _register

__all__ = ["open", "build", "TarIndex", "TaridxError"]

PathLike = Union[str, "os.PathLike[str]"]

_open = open  # the builtin, before this module's open() hides it


class TaridxError(FormatError):
    """A ``.taridx`` index or tar shard that breaks a rule of the format."""


_register("taridx", TaridxError)


def _fold_shards(index: Path) -> list[Path]:
    """``DIR/FOLD_<suffix>.tar`` next to ``DIR/FOLD.taridx`` (exactly one ``_`` in the
    suffix rule, ordered by suffix as bytes), as ``taridx::fs::shards_of_index``."""
    directory = index.parent
    fold = index.stem
    found = []
    for name in os.listdir(directory):
        if not (name.startswith(fold + "_") and name.endswith(".tar")):
            continue
        suffix = name[len(fold) + 1 : -4]
        if suffix and "_" not in suffix:
            found.append((os.fsencode(suffix), directory / name))
    return [p for _, p in sorted(found)]


class TarIndex:
    """An index and its shards. Get one with :func:`open`.

    Attributes:
        index_path: the ``.taridx`` file.
        shards: the shard files, in shard-id order.
        extensions: the index's extensions, by id.
    """

    index_path: Path
    shards: tuple[Path, ...]
    extensions: tuple[str, ...]

    def __init__(self, index_path: PathLike, shards: Sequence[PathLike] | None = None) -> None:
        self._url = isinstance(index_path, str) and _binfmt.is_url(index_path)
        if self._url:
            if shards is None:
                raise ValueError(
                    f"{index_path}: a URL has no directory to list: give the shards' URLs "
                    "with shards=[url, ...] (in shard-id order)"
                )
            self.index_path = index_path  # type: ignore[assignment]
            self.shards = tuple(str(s) for s in shards)  # type: ignore[assignment]
        else:
            self.index_path = Path(index_path)
            if shards is None:
                shards = _fold_shards(self.index_path)
            self.shards = tuple(Path(s) for s in shards)
        reader = self._open_native()
        self.extensions = tuple(reader.extensions())
        self._samples: list[list[tuple[str, int, int, int]]] = reader.samples()
        self._n_rows: int = reader.n_rows()
        self._reader: Any = reader
        self._fds: dict[int, int] = {}
        self._pid = os.getpid()

    # -- lazily reopened state (per process) ---------------------------------------------

    def _native(self) -> Any:
        if self._reader is None or self._pid != os.getpid():
            self._reset()
            self._reader = self._open_native()
        return self._reader

    def _open_native(self) -> Any:
        if self._url:
            return _binfmt.TaridxReader.open_urls(str(self.index_path), [str(s) for s in self.shards])
        return _binfmt.TaridxReader(self.index_path, list(self.shards))

    def _reset(self) -> None:
        for fd in self._fds.values():
            try:
                os.close(fd)
            except OSError:  # pragma: no cover
                pass
        self._fds = {}
        self._reader = None
        self._pid = os.getpid()

    def _fd(self, fid: int) -> int:
        if self._pid != os.getpid():
            self._fds = {}
            self._reader = None
            self._pid = os.getpid()
        fd = self._fds.get(fid)
        if fd is None:
            if fid >= len(self.shards):
                raise TaridxError(f"shard id {fid} but {len(self.shards)} shards", format="taridx", kind="NoShard", fault="input")
            fd = os.open(self.shards[fid], os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            self._fds[fid] = fd
        return fd

    def __getstate__(self) -> dict[str, Any]:
        return {
            "url": self._url,
            "index_path": self.index_path,
            "shards": self.shards,
            "extensions": self.extensions,
            "samples": self._samples,
            "n_rows": self._n_rows,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._url = state.get("url", False)
        self.index_path = state["index_path"]
        self.shards = state["shards"]
        self.extensions = state["extensions"]
        self._samples = state["samples"]
        self._n_rows = state["n_rows"]
        self._reader = None
        self._fds = {}
        self._pid = os.getpid()

    def close(self) -> None:
        """Closes the files (they reopen on the next read)."""
        self._reset()

    def __enter__(self) -> "TarIndex":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            if self._pid == os.getpid():
                for fd in self._fds.values():
                    os.close(fd)
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    # -- access --------------------------------------------------------------------------

    @property
    def n_rows(self) -> int:
        """The number of rows (tar members) in the index."""
        return self._n_rows

    def get(self, stem: str, ext: str | None = None) -> bytes | dict[str, bytes]:
        """The payload of ``stem``'s member with extension ``ext``, or every member of
        ``stem`` as ``{ext: bytes}`` when ``ext`` is ``None``. Names are verified against
        the members' own tar headers. The stem rule applies (``"a.jpg"`` names sample
        ``"a"``). Raises :class:`KeyError` when absent."""
        found = self._native().get(stem)
        if not found:
            raise KeyError(stem)
        if ext is None:
            return dict(found)
        want = ext.lower().lstrip(".")
        for x, payload in found:
            if x == want:
                return payload
        raise KeyError((stem, ext))

    def locate(self, stem: str, ext: str | None = None) -> tuple[Path, int, int] | dict[str, tuple[Path, int, int]]:
        """``(shard_path, payload_offset, size)`` of ``stem``'s member with extension
        ``ext`` (or ``{ext: ...}`` for every member when ``ext`` is ``None``), from the
        index alone: no shard is read, so names are **not** verified (an absent stem whose
        XXH64 collides with an indexed one is found). Raises :class:`KeyError` when absent."""
        rows = self._native().locate(stem)
        if not rows:
            raise KeyError(stem)
        out = {x: (self._shard(fid), off, size) for x, fid, off, size in rows}
        if ext is None:
            return out
        try:
            return out[ext.lower().lstrip(".")]
        except KeyError:
            raise KeyError((stem, ext)) from None

    def _shard(self, fid: int) -> Path:
        if fid >= len(self.shards):
            raise TaridxError(f"shard id {fid} but {len(self.shards)} shards", format="taridx", kind="NoShard", fault="input")
        return self.shards[fid]

    def __len__(self) -> int:
        """The number of samples (distinct stems)."""
        return len(self._samples)

    def __getitem__(self, i: int) -> dict[str, bytes]:
        """The ``i``-th sample (in order of first row) as ``{ext: bytes}``: one positional
        read per member (``os.pread``), no name verification (the table comes from the
        index, which was checked at open)."""
        members = self._samples[i]
        out = {}
        if self._url:
            native = self._native()
            for x, fid, off, size in members:
                if fid >= len(self.shards):
                    self._shard(fid)
                out[x] = native.read(fid, off, size)
            return out
        for x, fid, off, size in members:
            data = os.pread(self._fd(fid), size, off)
            if len(data) != size:
                raise TaridxError(
                    f"byte {off}: the shard {self.shards[fid]} ends inside a member's payload",
                    offset=off, format="taridx", kind="Truncated", fault="input",
                )
            out[x] = data
        return out

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __repr__(self) -> str:
        return f"<binfmt.taridx.TarIndex {str(self.index_path)!r}: {len(self)} samples, {self._n_rows} rows, {len(self.shards)} shards>"


def open(index_path: PathLike, shards: Sequence[PathLike] | None = None) -> TarIndex:
    """Opens the index ``index_path`` and its shards: ``shards`` in shard-id order, or the
    files ``DIR/FOLD_<suffix>.tar`` next to ``DIR/FOLD.taridx`` (ordered by suffix). The
    whole index is read and checked; shards are opened, not read.

    ``index_path`` may be a URL (``s3://``, ``gs://``, ``az://``, ``http(s)://``,
    ``file://``): the index is then read once, whole, and each member of ``get`` or
    ``ix[i]`` is one ranged read of its shard, the GIL released. ``shards`` (their URLs)
    is then required: a URL has no directory to list. ``locate`` returns the shard's URL."""
    return TarIndex(index_path, shards)


def build(dir: PathLike, fold: str, output: PathLike | None = None, *, glzn: bool = False) -> Path:
    """Indexes the shards ``DIR/FOLD_*.tar`` (tar headers only, each shard memory-mapped)
    and writes the index to ``output`` (default ``DIR/FOLD.taridx``) atomically. Strict
    mode by default; ``glzn=True`` reproduces glzn's index byte for byte. Returns the
    index's path."""
    out = Path(output) if output is not None else Path(dir) / f"{fold}.taridx"
    _binfmt.taridx_build(Path(dir), fold, out, glzn)
    return out
