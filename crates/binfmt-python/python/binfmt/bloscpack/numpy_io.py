"""bloscpack's ``bloscpack.numpy_io``: :func:`pack_ndarray` / :func:`unpack_ndarray` with
any sink or source, :class:`PlainNumpySource` / :class:`PlainNumpySink`, and the array
functions of :mod:`binfmt.bloscpack`."""

from . import (
    _lists_to_tuples as _conv,
    _ndarray_meta,
    pack_ndarray_file,
    pack_ndarray_str,
    pack_ndarray_to_bytes,
    pack_ndarray_to_file,
    unpack_ndarray_file,
    unpack_ndarray_from_bytes,
    unpack_ndarray_from_file,
    unpack_ndarray_str,
)
from ._stream import (
    CompressedFPSink,
    CompressedFPSource,
    PlainNumpySink,
    calculate_nchunks,
    PlainNumpySource,
    pack,
    pack_ndarray,
    unpack,
    unpack_ndarray,
)

__all__ = ["PlainNumpySource", "PlainNumpySink", "pack_ndarray", "unpack_ndarray",
           "pack_ndarray_to_file", "unpack_ndarray_from_file", "pack_ndarray_to_bytes",
           "unpack_ndarray_from_bytes", "pack_ndarray_file", "unpack_ndarray_file",
           "pack_ndarray_str", "unpack_ndarray_str"]
