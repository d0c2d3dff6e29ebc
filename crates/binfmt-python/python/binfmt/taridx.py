"""Indexes of tar shards (``.taridx`` v1.0, glzn's iTar datasets): random access to the
samples of webdataset-style shards, one sample being the members that share a stem
(``sample000001.jpg``, ``sample000001.cls``, …).

* :func:`open` — an index and its shards (``DIR/FOLD.taridx`` next to
  ``DIR/FOLD_*.tar`` unless ``shards`` is given), checked whole at open.
* :meth:`TarIndex.get` — a sample's payloads by stem (names verified against the tar
  headers, so that a hash collision with an absent stem finds nothing);
  :meth:`TarIndex.locate` — where they are, from the index alone.
* ``len(ix)`` / ``ix[i]`` — the ``i``-th sample (first-row order) as ``{"__key__": stem,
  ext: bytes}``, as webdataset and wids samples are: a map-style dataset, with
  ``ix.__getitems__(indices)`` (PyTorch's batched fetch) and :meth:`TarIndex.get_many`
  (by stems) reading a whole batch in one call per shard. The object pickles as its
  paths alone and reopens the index lazily in each process, so a PyTorch ``DataLoader``
  with workers can use it (this package does not depend on torch).
* :func:`build` — indexes a fold's shards (strict mode, or glzn's byte-exact mode).

Errors: :class:`TaridxError` (a :class:`binfmt.FormatError`) for a bad index or shard,
:class:`OSError` for I/O, :class:`KeyError` for an absent stem or extension.
"""

from __future__ import annotations

import operator
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
    """An index and its shards: a map-style dataset of samples. Get one with :func:`open`.

    ``ix[i]`` is the ``i``-th sample (first-row order) as ``{"__key__": stem, ext:
    bytes, ...}``, as webdataset and wids samples are. The object pickles as its paths (or
    URLs) alone, a few hundred bytes whatever the number of samples, and reopens the
    index lazily in each process on first access, so that a PyTorch ``DataLoader`` can
    send it to its workers cheaply (this package does not depend on torch).
    ``__getitems__`` (PyTorch's batched fetch) and :meth:`get_many` read a whole batch
    in one request per member, concurrently for URLs, one call per shard.

    Attributes:
        index_path: the ``.taridx`` file (or its URL).
        shards: the shard files (or URLs), in shard-id order.
    """

    index_path: Path
    shards: tuple[Path, ...]

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
        self._reader: Any = None
        self._pid = os.getpid()
        self._native()  # opened and checked now: errors are raised by open()

    # -- lazily reopened state (per process) ---------------------------------------------

    def _native(self) -> Any:
        if self._reader is None or self._pid != os.getpid():
            if self._url:
                reader = _binfmt.TaridxReader.open_urls(
                    str(self.index_path), [str(s) for s in self.shards]
                )
            else:
                reader = _binfmt.TaridxReader(self.index_path, list(self.shards))
            self._reader = reader
            self._pid = os.getpid()
        return self._reader

    def __getstate__(self) -> dict[str, Any]:
        """The paths (or URLs) alone: the index is reopened on first access."""
        return {"url": self._url, "index_path": self.index_path, "shards": self.shards}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._url = state.get("url", False)
        self.index_path = state["index_path"]
        self.shards = state["shards"]
        self._reader = None
        self._pid = os.getpid()

    def close(self) -> None:
        """Closes the files (they reopen on the next read)."""
        self._reader = None

    def __enter__(self) -> "TarIndex":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- access --------------------------------------------------------------------------

    @property
    def extensions(self) -> tuple[str, ...]:
        """The index's extensions, by id."""
        return tuple(self._native().extensions())

    @property
    def n_rows(self) -> int:
        """The number of rows (tar members) in the index."""
        return self._native().n_rows()

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

    def get_many(self, keys: Sequence[str]) -> list[dict[str, Any]]:
        """The samples named by ``keys``, in the keys' order, each ``{"__key__": stem,
        ext: bytes, ...}`` (names verified, as :meth:`get`). The index is read once and
        every member of the batch is fetched in one call per shard (concurrent ranged
        reads for URLs), the GIL released. Raises :class:`KeyError` for the first key
        that names no sample."""
        keys = [str(k) for k in keys]
        found = self._native().get_many(keys)
        for key, (n, _) in zip(keys, found):
            if n == 0:
                raise KeyError(key)
        return [sample for _, sample in found]

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
        return self._native().n_samples()

    def _position(self, i: Any) -> int:
        n = len(self)
        i = operator.index(i)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"sample index {i} out of range for {n} samples")
        return i

    def __getitem__(self, i: int) -> dict[str, Any]:
        """The ``i``-th sample (in order of first row) as ``{"__key__": stem, ext:
        bytes, ...}``: each member's tar header blocks and payload in one positioned (or
        ranged) read, the stem taken from the member's own name."""
        return self._native().samples_at([self._position(i)])[0]

    def __getitems__(self, indices: Sequence[int]) -> list[dict[str, Any]]:
        """The samples at ``indices``, in their order (PyTorch's batched fetch, used by
        its ``DataLoader`` when present): one call per shard for the whole batch."""
        return self._native().samples_at([self._position(i) for i in indices])

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __repr__(self) -> str:
        return f"<binfmt.taridx.TarIndex {str(self.index_path)!r}: {len(self)} samples, {self.n_rows} rows, {len(self.shards)} shards>"


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
