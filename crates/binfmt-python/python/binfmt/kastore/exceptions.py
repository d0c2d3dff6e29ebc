"""The exception classes of :mod:`binfmt.kastore`, importable as in the reference
package (``from kastore.exceptions import FileFormatError`` becomes
``from binfmt.kastore.exceptions import FileFormatError``).

The same classes as ``binfmt.kastore.FileFormatError`` etc.: ``FileFormatError`` and the
version errors are also :class:`binfmt.FormatError` (a :class:`ValueError`).
"""

from .._errors import (
    FileFormatError,
    KastoreEOFError,
    KastoreException,
    StoreClosedError,
    VersionTooNewError,
    VersionTooOldError,
)

__all__ = [
    "KastoreException",
    "FileFormatError",
    "VersionTooOldError",
    "VersionTooNewError",
    "StoreClosedError",
    "KastoreEOFError",
]
