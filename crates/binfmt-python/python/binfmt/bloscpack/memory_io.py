"""bloscpack's ``bloscpack.memory_io``: in-memory sources and sinks for
:func:`~binfmt.bloscpack.abstract_io.pack` and
:func:`~binfmt.bloscpack.abstract_io.unpack`: :class:`PlainMemorySource` (a list of
chunks), :class:`CompressedMemorySink` (keeps the compressed chunks and digests),
:class:`CompressedMemorySource` (reads them back), :class:`PlainMemorySink` (collects
the unpacked chunks)."""

from ._stream import (
    CompressedMemorySink,
    CompressedMemorySource,
    PlainMemorySink,
    PlainMemorySource,
)

__all__ = ["PlainMemorySource", "CompressedMemorySource", "PlainMemorySink",
           "CompressedMemorySink"]
