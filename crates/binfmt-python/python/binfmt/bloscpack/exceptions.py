"""The exception classes of :mod:`binfmt.bloscpack`, by the names and with the bases of
``bloscpack.exceptions`` (bloscpack 0.16), so that ``except bloscpack.ChecksumMismatch``
code keeps working after ``import binfmt.bloscpack as bloscpack``.

Each class that describes a problem with a file or a request the format cannot satisfy
is also a :class:`binfmt.FormatError` (a :class:`ValueError`, with ``offset``, ``kind``,
``fault``, and ``str(e) == "byte N: message"`` where there is an offset): a class that is
a :class:`RuntimeError` in bloscpack is then both. Raised where bloscpack raises them:

* :class:`ChecksumMismatch`: a chunk's or the metadata's digest does not match;
* :class:`FormatVersionMismatch`: the file's format version is not 3 (2 is read too);
* :class:`ChunkSizeTypeSizeMismatch`: packing an array with a chunk size that is not a
  multiple of its item size;
* :class:`NotEnoughSpace`: appending needs more chunks than the spare offset slots;
* :class:`MetadataSectionTooSmall`: the metadata does not fit ``max_meta_size``;
* :class:`NoSuchChecksum`, :class:`NoSuchCodec`: an unknown checksum or metadata codec;
* :class:`NotANumpyArray`: unpacking as an array a file whose metadata is not numpy's;
* :class:`ObjectNumpyArrayRejection`: packing an array of Python objects.

The others (``FileNotFound``, ``NoSuchSerializer``, ``ChunkingException``,
``ChecksumLengthMismatch``, ``NoMetadataFound``, ``NoChangeInMetadata``,
``NonUniformTypesize``) exist for ``except`` clauses and ``isinstance`` checks; a missing
file raises :class:`FileNotFoundError`, as in bloscpack.
"""

from __future__ import annotations

from .._errors import FormatError, _register

__all__ = [
    "FileNotFound",
    "NoSuchChecksum",
    "NoSuchCodec",
    "NoSuchSerializer",
    "ChunkingException",
    "ChunkSizeTypeSizeMismatch",
    "ChecksumMismatch",
    "FormatVersionMismatch",
    "ChecksumLengthMismatch",
    "NoMetadataFound",
    "NoChangeInMetadata",
    "MetadataSectionTooSmall",
    "NonUniformTypesize",
    "NotEnoughSpace",
    "NotANumpyArray",
    "ObjectNumpyArrayRejection",
]


class FileNotFound(FileNotFoundError):
    """bloscpack's ``FileNotFound`` (an :class:`IOError`); files that are missing raise
    :class:`FileNotFoundError`, its parent."""


class NoSuchChecksum(FormatError):
    """An unknown checksum name (bloscpack: a :class:`ValueError`)."""


class NoSuchCodec(FormatError):
    """An unknown metadata codec (bloscpack: a :class:`ValueError`)."""


class NoSuchSerializer(FormatError):
    """An unknown metadata serializer (bloscpack: a :class:`ValueError`)."""


class ChunkingException(BaseException):
    """bloscpack's ``ChunkingException`` (a :class:`BaseException`)."""


class ChunkSizeTypeSizeMismatch(FormatError):
    """The chunk size is not a multiple of the array's item size (bloscpack: a
    :class:`ValueError`)."""


class ChecksumMismatch(FormatError, RuntimeError):
    """A chunk's or the metadata's digest does not match (bloscpack: a
    :class:`RuntimeError`)."""


class FormatVersionMismatch(FormatError, RuntimeError):
    """The file's format version is one this library does not read (bloscpack: a
    :class:`RuntimeError`)."""


class ChecksumLengthMismatch(FormatError, RuntimeError):
    """bloscpack's ``ChecksumLengthMismatch``."""


class NoMetadataFound(FormatError, RuntimeError):
    """bloscpack's ``NoMetadataFound``."""


class NoChangeInMetadata(FormatError, RuntimeError):
    """bloscpack's ``NoChangeInMetadata``."""


class MetadataSectionTooSmall(FormatError, RuntimeError):
    """The metadata does not fit the section (``max_meta_size``)."""


class NonUniformTypesize(FormatError, RuntimeError):
    """bloscpack's ``NonUniformTypesize``."""


class NotEnoughSpace(FormatError, RuntimeError):
    """Appending needs more chunks than the file has spare offset slots for."""


class NotANumpyArray(FormatError, RuntimeError):
    """The file's metadata does not describe a numpy array (``container`` is not
    ``"numpy"``)."""


class ObjectNumpyArrayRejection(FormatError, RuntimeError):
    """Arrays of Python objects cannot be packed (a :class:`ValueError` here as before,
    a :class:`RuntimeError` as in bloscpack)."""


# The library's error kinds (binfmt.FormatError.kind) raised as these classes.
_register("bloscpack", FormatError, {
    "ChunkDigestMismatch": ChecksumMismatch,
    "MetadataDigestMismatch": ChecksumMismatch,
    "VersionTooNew": FormatVersionMismatch,
    "VersionTooOld": FormatVersionMismatch,
    "UnknownChecksum": NoSuchChecksum,
    "NotEnoughSpace": NotEnoughSpace,
    "MetadataTooLarge": MetadataSectionTooSmall,
})
