"""bloscpack's ``bloscpack.abstract_io``: the core :func:`pack` and :func:`unpack` and the
source and sink base classes they take (see :mod:`binfmt.bloscpack._stream` for how
they run on binfmt's native compression)."""

from ._stream import (
    BloscpackHeader,
    CompressedSink,
    CompressedSource,
    PlainSink,
    PlainSource,
    _compress_chunk_str,
    _handle_max_apps,
    calculate_nchunks,
    pack,
    unpack,
)

__all__ = ["pack", "unpack", "PlainSource", "CompressedSource", "PlainSink",
           "CompressedSink"]
