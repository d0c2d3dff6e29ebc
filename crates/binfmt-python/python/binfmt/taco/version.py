"""``tacozip.version``: the version of the package (binfmt's)."""


def _get_version() -> str:
    """The package's version: binfmt's, from its metadata, or ``"0.0.0"``."""
    try:
        from .. import __version__

        return str(__version__) or "0.0.0"
    except Exception:
        return "0.0.0"


__version__ = _get_version()
