"""The exception hierarchy of ``binfmt``.

Every problem with a file's contents raises :class:`FormatError` (a :class:`ValueError`)
or a subclass: its ``str()`` is ``byte N: MESSAGE``, the same text the ``binfmt`` command
prints after ``FILE:``. Problems of the operating system raise :class:`OSError` (and its
usual subclasses such as :class:`FileNotFoundError`). The drop-in modules add the
reference packages' own classes on top (``binfmt.kastore.FileFormatError`` is also a
``FormatError``), so code written for either hierarchy keeps working.
"""

from __future__ import annotations

__all__ = [
    "FormatError",
    "KastoreException",
    "FileFormatError",
    "VersionTooOldError",
    "VersionTooNewError",
    "StoreClosedError",
    "KastoreEOFError",
]


class FormatError(ValueError):
    """A file (or bytes) that breaks a rule of its format, or a request the format cannot
    satisfy.

    Attributes:
        offset: the byte offset at which the problem was found, or ``None``.
        format: the format's name: ``"kastore"``, ``"bloscpack"``, ``"taco"``,
            ``"taridx"`` or ``"mldf"``.
        kind: the name of the library's error variant (``"BadMagic"``, ``"Truncated"``…),
            stable enough to branch on.
        fault: who has to act: ``"input"`` (a malformed file), ``"unsupported"`` (a
            well-formed file we do not read), ``"caller"`` (bad arguments), ``"limit"``.
        message: the message without the ``byte N:`` prefix.
    """

    offset: int | None
    format: str | None
    kind: str | None
    fault: str | None
    message: str

    def __init__(
        self,
        message: str = "",
        *,
        offset: int | None = None,
        format: str | None = None,
        kind: str | None = None,
        fault: str | None = None,
    ) -> None:
        super().__init__(message)
        self.offset = offset
        self.format = format
        self.kind = kind
        self.fault = fault
        self.message = message


# kastore's classes, with the reference package's names and inheritance
# (KastoreException <- FileFormatError <- ...), each also a FormatError.


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


_BY_KIND: dict[tuple[str, str], type[FormatError]] = {
    ("kastore", "Eof"): KastoreEOFError,
    ("kastore", "VersionTooOld"): VersionTooOldError,
    ("kastore", "VersionTooNew"): VersionTooNewError,
}
_BY_FORMAT: dict[str, type[FormatError]] = {"kastore": FileFormatError}


def _register(format: str, cls: type[FormatError], kinds: dict[str, type[FormatError]] | None = None) -> None:
    _BY_FORMAT[format] = cls
    for kind, kcls in (kinds or {}).items():
        _BY_KIND[(format, kind)] = kcls


def _from_rust(
    format: str, kind: str, fault: str, offset: int | None, message: str, text: str
) -> FormatError:
    """Called by the native module for every library error that is not an OS error."""
    cls = _BY_KIND.get((format, kind)) or _BY_FORMAT.get(format, FormatError)
    exc = cls(text)
    exc.offset = offset
    exc.format = format
    exc.kind = kind
    exc.fault = fault
    exc.message = message
    return exc
