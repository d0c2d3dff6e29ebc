"""binfmt: zero-copy readers and writers for five binary formats.

Modules (each a drop-in for its reference package where there is one):

* :mod:`binfmt.kastore` — kastore stores and tskit ``.trees`` files (``kastore``);
* :mod:`binfmt.bloscpack` — bloscpack files (``bloscpack``);
* :mod:`binfmt.taco` — TACO ZIP headers (``tacozip``);
* :mod:`binfmt.taridx` — indexes of tar shards;
* :mod:`binfmt.mldf` — MLDF datasets.

Errors: :class:`FormatError` (a :class:`ValueError`) for bad files, :class:`OSError` for
I/O. ``str(error)`` is ``byte N: message``, as the ``binfmt`` command prints it.
"""

# Before the submodules: binfmt.taco reads it at import (__tacozip_version__).
try:
    from importlib.metadata import version as _version

    __version__ = _version("binfmt")
except Exception:  # pragma: no cover - not installed
    __version__ = "0.0.0"

from ._errors import FormatError
from . import bloscpack, kastore, mldf, taco, taridx

__all__ = ["FormatError", "bloscpack", "kastore", "mldf", "taco", "taridx"]
