"""MLDF (ML Data Format v1.0) datasets: random access to typed samples.

* :func:`open` — a dataset: the header and descriptors are read and checked at open;
  each access then reads only what it needs (positioned reads: the slot, then the
  payload), through the ``mldf`` crate's ``Reader``.
* ``len(ds)``, ``ds[i]`` — sample ``i`` as ``{field name: value}``:

  ============================  =====================================================
  field type                    value
  ============================  =====================================================
  INT / FLOAT                   ``int`` / ``float``
  BYTES                         ``bytes``
  JSON, TEXT_RAW                ``str`` (JSON is returned as its text, not parsed)
  NDARRAY                       a read-only ``numpy.ndarray`` of the field's dtype and
                                shape (``bf16`` as ``uint16`` bit patterns); empty
                                payload: an array of shape ``(0,)``
  TEXT_TOKENIZED                a read-only ``numpy`` array of ``uint16``/``uint32`` ids
  IMAGE_*, AUDIO_*              ``bytes`` (the payload: raw pixels, JPEG, PNG, PCM,
                                compressed audio); :meth:`Dataset.info` gives the
                                dimensions
  a type this version lacks     ``bytes`` (the slot as stored)
  null (NULLABLE fields)        ``None``
  ============================  =====================================================

* :meth:`Dataset.column` — every value of an INT or FLOAT field as a read-only numpy
  array that is a strided **view** of a memory map of the file (zero copy; the slot
  layout comes from the crate). Other types have no fixed-size value in the rows.

* :class:`Writer` — a context manager writing a new file through the crate's writer (a
  temporary file beside the target, moved into place on a clean exit; on an exception,
  or :meth:`Writer.abort`, nothing is left).

Errors: :class:`MldfError` (a :class:`binfmt.FormatError`) for a bad file,
:class:`OSError` for I/O, :class:`IndexError`/:class:`KeyError` for absent samples or
fields.
"""

from __future__ import annotations

import builtins
import operator
import os
from pathlib import Path
from typing import Any, Iterator, NamedTuple, Union

import numpy as np

from . import _binfmt
from ._errors import FormatError, _register

__all__ = ["open", "Dataset", "Field", "Writer", "MldfError"]

PathLike = Union[str, "os.PathLike[str]"]

builtins_open = builtins.open


class MldfError(FormatError):
    """An MLDF file that breaks a rule of the format."""


_register("mldf", MldfError)

_DTYPES: dict[str, Any] = {
    "u8": np.uint8, "i8": np.int8, "u16": np.dtype("<u2"), "i16": np.dtype("<i2"),
    "u32": np.dtype("<u4"), "i32": np.dtype("<i4"), "u64": np.dtype("<u8"),
    "i64": np.dtype("<i8"), "f16": np.dtype("<f2"), "f32": np.dtype("<f4"),
    "f64": np.dtype("<f8"), "bf16": np.dtype("<u2"), "bool": np.bool_,
}


class Field(NamedTuple):
    """A field: ``name``, ``type`` (the registry name, ``"NDARRAY"``…), ``nullable``, for
    NDARRAY fields the ``dtype`` name (``"f32"``…) and ``shape``, and ``argument``: the
    JPEG quality of IMAGE_JPEG, the vocabulary size of TEXT_TOKENIZED, else 0. A
    dataset's ``fields`` can be given to :class:`Writer` as its schema."""

    name: str
    type: str
    nullable: bool
    dtype: str | None
    shape: tuple[int, ...] | None
    argument: int = 0


class Dataset:
    """An MLDF file opened for reading. Get one with :func:`open`.

    Picklable (the path; reopened lazily in each process)."""

    path: Path
    fields: tuple[Field, ...]

    def __init__(self, path: PathLike) -> None:
        self._url = isinstance(path, str) and _binfmt.is_url(path)
        self.path = path if self._url else Path(path)  # type: ignore[assignment]
        self._reader: Any = self._open_native()
        self._pid = os.getpid()
        self.fields = tuple(
            Field(n, t, nl, d, tuple(s) if s is not None else None, a) for n, t, nl, d, s, a in self._reader.fields()
        )
        self._by_name = {f.name: i for i, f in enumerate(self.fields)}
        self._len = self._reader.num_samples()

    def _native(self) -> Any:
        if self._reader is None or self._pid != os.getpid():
            self._reader = self._open_native()
            self._pid = os.getpid()
        return self._reader

    def _open_native(self) -> Any:
        if self._url:
            return _binfmt.MldfReader.open_url(str(self.path))
        return _binfmt.MldfReader(self.path)

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path}  # the reader and any map are reopened in the new process

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"])  # type: ignore[misc]

    def __len__(self) -> int:
        """The number of samples."""
        return self._len

    def _index(self, i: int) -> int:
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError(f"sample {i} of {self._len}")
        return i

    def _convert(self, field: Field, pair: tuple[str, Any]) -> Any:
        kind, value = pair
        if kind == "ndarray":
            dtype = _DTYPES[field.dtype or "u8"]
            if not value:
                return np.frombuffer(value, dtype=dtype)
            return np.frombuffer(value, dtype=dtype).reshape(field.shape or ())
        if kind == "tokens":
            width, data = value
            return np.frombuffer(data, dtype="<u2" if width == 2 else "<u4")
        if kind in ("image", "audio"):
            return value[-1]
        return value

    def __getitem__(self, i: int) -> dict[str, Any]:
        """Sample ``i`` (negative counts from the end) as ``{field name: value}``."""
        pairs = self._native().sample(self._index(i))
        return {f.name: self._convert(f, p) for f, p in zip(self.fields, pairs)}

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for i in range(self._len):
            yield self[i]

    def get(self, i: int, name: str) -> Any:
        """The value of field ``name`` of sample ``i`` (one slot and one payload read)."""
        f = self._field(name)
        return self._convert(self.fields[f], self._native().value(self._index(i), f))

    def info(self, i: int, name: str) -> tuple[str, Any]:
        """``(kind, details)`` of a value as the crate decodes it: for images
        ``("image", (mode, height, width, channels, payload))``, for audio ``("audio",
        (codec, frames, sample_rate, channels, bit_depth, payload))``, for token ids
        ``("tokens", (width in bytes, payload))``; other kinds as ``(kind, value)``."""
        return self._native().value(self._index(i), self._field(name))

    def _field(self, name: str) -> int:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(name) from None

    def column(self, name: str, copy: bool = False) -> np.ndarray:
        """Every value of the INT (``<i8``) or FLOAT (``<f8``) field ``name``.

        ``copy=False`` (the default): a read-only strided numpy **view** of a memory map
        of the file, no copy; its ``.base`` chain keeps the map alive, and the file must
        not be truncated while the array lives (reading a page past the new end kills the
        process with ``SIGBUS``). ``copy=True``: a writable, contiguous array in memory,
        unaffected by anything done to the file afterwards. The rows were checked at
        open (bounds, and the index CRC when the file has one)."""
        f = self._field(name)
        kind = self.fields[f].type
        if kind not in ("INT", "FLOAT"):
            raise TypeError(f"column() needs an INT or FLOAT field; {name!r} is {kind}")
        if self._url:
            raise NotImplementedError(
                f"{self.path}: column() maps a local file; for a URL, read the values with ds[i]"
            )
        dtype = np.dtype("<i8" if kind == "INT" else "<f8")
        if self._len == 0:
            return np.empty(0, dtype=dtype)
        metadata_ptr, row_size, row_offset, _ = self._native().slot_layout(f)
        view = np.ndarray((self._len,), dtype=dtype, buffer=self._map(),
                          offset=metadata_ptr + row_offset, strides=(row_size,))
        return np.array(view) if copy else view

    def _map(self) -> Any:
        import mmap

        m = getattr(self, "_mmap", None)
        if m is None or self._pid != os.getpid():
            with builtins_open(self.path, "rb") as fh:
                m = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            self._mmap = m
        return m

    def __repr__(self) -> str:
        return f"<binfmt.mldf.Dataset {str(self.path)!r}: {self._len} samples, {len(self.fields)} fields>"


def open(path: PathLike) -> Dataset:
    """Opens the MLDF file ``path``: its header and descriptors are read and checked.

    ``path`` may be a URL (``s3://``, ``gs://``, ``az://``, ``http(s)://``, ``file://``):
    it is then read by ranges through binfmt-remote, the GIL released; :meth:`Dataset.column`
    (a memory map) is not available for URLs."""
    return Dataset(path)


_AUDIO_DEPTH = {np.dtype("uint8"): 8, np.dtype("<i2"): 16, np.dtype("<i4"): 32}


def _field_spec(entry: Any) -> tuple[str, str, bool, str | None, list[int] | None, int]:
    """A schema entry: ``(name, type)``, ``(name, type, options)`` (options: ``nullable``,
    ``dtype``, ``shape``, ``quality``, ``vocab_size``), or a :class:`Field`."""
    if isinstance(entry, Field):
        return (entry.name, entry.type, entry.nullable, entry.dtype,
                list(entry.shape) if entry.shape is not None else None, entry.argument)
    name, kind, *rest = entry
    opts: dict[str, Any] = dict(rest[0]) if rest else {}
    shape = opts.get("shape")
    arg = opts.get("quality", opts.get("vocab_size", 0))
    return (name, kind.upper(), bool(opts.get("nullable", False)), opts.get("dtype"),
            [int(n) for n in shape] if shape is not None else None, int(arg))


def _check_int_range(name: str, value: Any, target: np.dtype) -> None:
    """Raises :class:`OverflowError` when an integer of ``value`` does not fit ``target``
    (token ids: ``uint32``), as the ``binfmt`` command refuses them, instead of storing
    them modulo 2**N as a numpy cast would. Floats are checked by range too (and must be
    finite); ``TypeError`` for values that are not numbers (strings…)."""
    a = np.asarray(value)
    if a.size == 0 or a.dtype.kind == "b":
        return
    if a.dtype.kind in "iu":
        lo, hi = int(a.min()), int(a.max())
    elif a.dtype.kind == "O":  # Python ints beyond 64 bits
        ints = [operator.index(v) for v in a.ravel().tolist()]
        lo, hi = min(ints), max(ints)
    elif a.dtype.kind == "f":
        if not np.all(np.isfinite(a)):
            raise OverflowError(f"field {name!r}: {a.dtype} value not finite for {target}")
        lo, hi = float(a.min()), float(a.max())
    else:
        raise TypeError(f"field {name!r}: {a.dtype} values cannot be stored as {target}")
    info = np.iinfo(target)
    if lo < info.min or hi > info.max:
        bad = lo if lo < info.min else hi
        raise OverflowError(
            f"field {name!r}: {bad} does not fit {target.name} ({info.min}..{info.max})"
        )


def _to_native(field: tuple[str, str, bool, str | None, list[int] | None, int], value: Any) -> tuple[str, Any]:
    name, kind, _, dtype, shape, _ = field
    if value is None:
        return ("null", None)
    if kind == "INT":
        return ("int", int(value))
    if kind == "FLOAT":
        return ("float", float(value))
    if kind == "BYTES":
        return ("bytes", bytes(value))
    if kind == "JSON":
        import json

        return ("json", value if isinstance(value, str) else json.dumps(value))
    if kind == "NDARRAY":
        target = np.dtype(_DTYPES[dtype or "u8"])
        if target.kind in "iu":
            _check_int_range(name, value, target)
        a = np.ascontiguousarray(value, dtype=target)
        want = tuple(shape or ())
        if a.size == 0:  # an empty payload (allowed for any shape)
            return ("ndarray", b"")
        if a.shape != want:
            a = a.reshape(want)
        return ("ndarray", a.tobytes())
    if kind.startswith("IMAGE_"):
        # The mode is the value's, not the field's (a field may mix modes): an array is
        # raw pixels, bytes are a PNG (by its signature) or a JPEG file.
        if isinstance(value, (bytes, bytearray, memoryview)):
            data = bytes(value)
            return ("png", data) if data.startswith(b"\x89PNG") else ("jpeg", data)
        a = np.ascontiguousarray(value, dtype=np.uint8)
        if a.ndim == 2:
            a = a[:, :, None]
        h, w, c = a.shape
        return ("image_raw", (h, w, c, a.tobytes()))
    if kind == "AUDIO_WAVEFORM":
        if isinstance(value, tuple) and len(value) in (4, 5):
            data, rate, channels, depth, *codec = value
            if codec and codec[0] == "pcm_f32":
                return ("pcm_f32", (int(rate), int(channels), bytes(data)))
            return ("pcm", (int(rate), int(channels), int(depth), bytes(data)))
        samples, rate = value
        a = np.asarray(samples)
        channels = 1 if a.ndim == 1 else a.shape[1]
        if a.dtype == np.float32:
            return ("pcm_f32", (int(rate), channels, np.ascontiguousarray(a, dtype="<f4").tobytes()))
        depth = _AUDIO_DEPTH.get(a.dtype.newbyteorder("<") if a.dtype.itemsize > 1 else a.dtype)
        if depth is None:
            raise TypeError(f"field {name!r}: PCM samples must be uint8, int16, int32 or float32, not {a.dtype}")
        return ("pcm", (int(rate), channels, depth, np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes()))
    if kind == "AUDIO_COMPRESSED":
        codec, data, *info = value
        frames, rate, channels, bits = (list(info) + [0, 0, 0, 0])[:4]
        return ("compressed", (str(codec), bytes(data), int(frames), int(rate), int(channels), int(bits)))
    if kind == "TEXT_RAW":
        return ("text", str(value))
    if kind == "TEXT_TOKENIZED":
        a = np.asarray(value)
        if a.dtype == np.uint16:
            return ("tokens16", a.tolist())
        _check_int_range(name, a, np.dtype(np.uint32))
        return ("tokens32", a.astype(np.uint32).tolist())
    raise TypeError(f"field {name!r}: cannot write type {kind}")


class Writer:
    """Writes a new MLDF file at ``path`` through the crate's writer::

        schema = [("label", "INT"), ("emb", "NDARRAY", {"dtype": "f32", "shape": (2, 3)}),
                  ("caption", "TEXT_RAW"), ("photo", "IMAGE_JPEG", {"quality": 90}),
                  ("blob", "BYTES", {"nullable": True})]
        with mldf.Writer("out.mldf", schema) as w:
            w.write({"label": 1, "emb": np.zeros((2, 3)), "caption": "a cat",
                     "photo": jpeg_bytes, "blob": None})

    Values: ``int``, ``float``, ``bytes``; JSON as ``str`` (or any object, serialised with
    :func:`json.dumps`); NDARRAY as anything numpy converts to the field's dtype and
    shape; images (any IMAGE_* field: the mode is the value's) as a ``uint8`` array ``(h,
    w)`` or ``(h, w, c)`` of raw pixels, or a PNG or JPEG file's bytes; AUDIO_WAVEFORM as ``(samples, sample_rate)`` (``uint8``/``int16``/
    ``int32``/``float32``, ``(frames,)`` or ``(frames, channels)``) or ``(pcm bytes,
    sample_rate, channels, bit_depth[, codec])`` (codec ``"pcm"`` or ``"pcm_f32"`` for
    32-bit floats); AUDIO_COMPRESSED as ``(codec name, bytes)`` or ``(codec name, bytes, frames,
    sample_rate, channels, bit_depth)`` (the description is informational);
    TEXT_RAW as ``str``; TEXT_TOKENIZED as ids (``uint16`` arrays are stored as u16 ids,
    anything else as u32); ``None`` for a null in a nullable field.

    Integers are never wrapped: a token id outside ``0..2**32-1``, or an integer NDARRAY
    value outside its dtype's range (``[2**32 + 5]`` or ``[-1]`` for ``u32``), raises
    :class:`OverflowError` from :meth:`write`, as the ``binfmt`` command refuses them
    (ids that are not numbers raise :class:`TypeError`).

    The file appears at ``path`` only when :meth:`close` (or a clean ``with`` exit)
    succeeds, under the ``binfmt`` command's output rules: written to a temporary file
    beside ``path`` and renamed over it (an existing file is replaced, never truncated
    nor rewritten in place; its mode is kept; a symbolic link is followed). An exception
    inside the ``with`` block, :meth:`abort`, or dropping the writer unfinished leaves
    nothing behind.
    """

    def __init__(self, path: PathLike, schema: Any, *, page_size: int | None = None,
                 checksums: bool = False, num_samples: int | None = None) -> None:
        self.path = Path(path)
        self._fields = [_field_spec(e) for e in schema]
        self._index = {f[0]: i for i, f in enumerate(self._fields)}
        self._native: Any = _binfmt.MldfWriter(self.path, self._fields, page_size, checksums, num_samples)
        self._count = 0

    def write(self, sample: Any) -> None:
        """Appends a sample: ``{field name: value}`` (every field) or values in field order."""
        if isinstance(sample, dict):
            missing = [f[0] for f in self._fields if f[0] not in sample]
            extra = [k for k in sample if k not in self._index]
            if missing or extra:
                raise KeyError(f"sample fields: missing {missing}, unknown {extra}")
            values = [sample[f[0]] for f in self._fields]
        else:
            values = list(sample)
            if len(values) != len(self._fields):
                raise ValueError(f"{len(values)} values for {len(self._fields)} fields")
        self._native.push([_to_native(f, v) for f, v in zip(self._fields, values)])
        self._count += 1

    def close(self) -> int:
        """Finishes the file and moves it into place; returns its size in bytes."""
        return self._native.finish()

    def abort(self) -> None:
        """Drops the unfinished file: nothing is left at ``path``."""
        self._native.abort()

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()
