"""The exception classes of ``tacozip.exceptions``: the same classes as
:mod:`binfmt.taco`'s (:class:`~binfmt.taco.TacoError` is the one binfmt adds)."""

from . import (
    TacoError,
    TacozipError,
    TacozipIOError,
    TacozipLibraryError,
    TacozipValidationError,
)

__all__ = [
    "TacoError",
    "TacozipError",
    "TacozipIOError",
    "TacozipLibraryError",
    "TacozipValidationError",
]
