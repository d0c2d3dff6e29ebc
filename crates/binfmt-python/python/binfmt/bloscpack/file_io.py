"""bloscpack's ``bloscpack.file_io``: the file-object sources and sinks
(:class:`PlainFPSource`, :class:`CompressedFPSource`, :class:`PlainFPSink`,
:class:`CompressedFPSink`) for :func:`~binfmt.bloscpack.abstract_io.pack` and
:func:`~binfmt.bloscpack.abstract_io.unpack`, and the path and bytes functions of
:mod:`binfmt.bloscpack`."""

from . import (
    pack_bytes_file,
    pack_bytes_to_bytes,
    pack_bytes_to_file,
    pack_file,
    pack_file_to_file,
    unpack_bytes_file,
    unpack_bytes_from_bytes,
    unpack_bytes_from_file,
    unpack_file,
    unpack_file_from_file,
)
from ._stream import (
    FORMAT_VERSION,
    CompressedFPSink,
    CompressedFPSource,
    PlainFPSink,
    PlainFPSource,
    _read_beginning,
    calculate_nchunks,
    _read_bloscpack_header,
    _read_compressed_chunk_fp,
    _read_metadata,
    _read_offsets,
    _write_compressed_chunk,
    _write_metadata,
    _write_offsets,
    pack,
    unpack,
)

__all__ = ["PlainFPSource", "CompressedFPSource", "PlainFPSink", "CompressedFPSink",
           "pack_file_to_file", "unpack_file_from_file", "pack_bytes_to_file",
           "unpack_bytes_from_file", "pack_bytes_to_bytes", "unpack_bytes_from_bytes",
           "pack_file", "unpack_file", "pack_bytes_file", "unpack_bytes_file"]
