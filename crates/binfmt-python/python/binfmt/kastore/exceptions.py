"""The exception classes of :mod:`binfmt.kastore`, importable as in the reference
package (``from kastore.exceptions import FileFormatError`` becomes
``from binfmt.kastore.exceptions import FileFormatError``).

The same classes as ``binfmt.kastore.FileFormatError`` etc.: ``FileFormatError`` and the
version errors are also :class:`binfmt.FormatError` (a :class:`ValueError`).
"""

from .._errors import FormatError, _register

__all__ = [
    "KastoreException",
    "FileFormatError",
    "VersionTooOldError",
    "VersionTooNewError",
    "StoreClosedError",
    "KastoreEOFError",
]


# The reference package's names and inheritance (KastoreException <- FileFormatError
# <- ...), each also a FormatError.


class KastoreException(Exception):
    """Parent of every kastore exception (as in the ``kastore`` package)."""


class FileFormatError(KastoreException, FormatError):
    """The store is malformed (``kastore.FileFormatError``; also a :class:`FormatError`)."""


class VersionTooOldError(FileFormatError):
    """The store's major version is older than 1."""


class VersionTooNewError(FileFormatError):
    """The store's major version is newer than 1."""


class StoreClosedError(KastoreException):
    """The store was used after :meth:`binfmt.kastore.Store.close`."""


class KastoreEOFError(FileFormatError, EOFError):
    """Zero bytes where a store should start: the end of a stream of stores. An
    :class:`EOFError`, as the reference raises, and a :class:`FileFormatError`."""


_register("kastore", FileFormatError, {
    "Eof": KastoreEOFError,
    "VersionTooOld": VersionTooOldError,
    "VersionTooNew": VersionTooNewError,
})
