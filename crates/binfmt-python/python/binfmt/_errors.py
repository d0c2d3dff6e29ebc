"""The exception hierarchy of ``binfmt``.

Every problem with a file's contents raises :class:`FormatError` (a :class:`ValueError`)
or a subclass: its ``str()`` is ``byte N: MESSAGE``, the same text the ``binfmt`` command
prints after ``FILE:``. Problems of the operating system raise :class:`OSError` (and its
usual subclasses such as :class:`FileNotFoundError`). The drop-in modules add the
reference packages' own classes on top (``binfmt.kastore.FileFormatError`` is also a
``FormatError``), so code written for either hierarchy keeps working.
"""

from __future__ import annotations

__all__ = ["FormatError"]


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


# The drop-in modules' classes, registered by each module as it is imported (binfmt
# imports them all): by error kind, else by format.
_BY_KIND: dict[tuple[str, str], type[FormatError]] = {}
_BY_FORMAT: dict[str, type[FormatError]] = {}


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
