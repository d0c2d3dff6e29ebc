"""The command line of :mod:`binfmt.kastore` (``python -m binfmt.kastore``): ``ls`` and
``dump``, printing what the reference's ``python -m kastore`` prints.

* ``ls [-l] [-H] STORE``: the keys, sorted; ``-l`` adds dtype, length and size in bytes
  (``-H``: human-readable, as ``humanize.naturalsize(size, gnu=True)``).
* ``dump STORE ARRAY``: one value of the array per line.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
from typing import Any

from . import load


def _natural_size(size: int) -> str:
    """``humanize.naturalsize(size, gnu=True)``, without needing humanize."""
    try:
        import humanize  # the reference's dependency, when it is installed

        return humanize.naturalsize(size, gnu=True)
    except ImportError:
        pass
    base = 1024
    if abs(size) < base:
        return f"{size}B"
    for exp, suffix in enumerate("KMGTPEZY", start=2):
        unit = base**exp
        if abs(size) < unit:
            return f"{base * size / unit:.1f}{suffix}"
    return f"{base * size / unit:.1f}Y"


def _setup_logging(args: argparse.Namespace) -> None:
    level = logging.WARNING
    if args.verbose == 1:
        level = logging.INFO
    elif args.verbose >= 2:
        level = logging.DEBUG
    logging.basicConfig(format="%(asctime)s %(message)s", level=level)


def _list(store: Any, args: argparse.Namespace) -> None:
    keys = sorted(store.keys())
    if not keys:
        return
    if not args.long:
        for key in keys:
            print(key)
        return
    dtypes, lengths, sizes = [], [], []
    for key in keys:
        info = store.info(key)
        dtypes.append(str(info.dtype))
        lengths.append(str(info.shape[0]))
        sizes.append(_natural_size(info.size) if args.human_readable else str(info.size))
    dw = max(map(len, dtypes))
    lw = max(map(len, lengths))
    sw = max(map(len, sizes))
    for key, dtype, length, size in zip(keys, dtypes, lengths, sizes):
        print("{:<{}} {:>{}} {:>{}} {}".format(dtype, dw, length, lw, size, sw, key))


def _dump(store: Any, args: argparse.Namespace) -> None:
    for value in store[args.array]:
        print(f"{value}")


def run_list(args: argparse.Namespace) -> None:
    _setup_logging(args)
    with load(args.store) as store:
        _list(store, args)


def run_dump(args: argparse.Namespace) -> None:
    _setup_logging(args)
    with load(args.store) as store:
        _dump(store, args)


def get_kastore_parser() -> argparse.ArgumentParser:
    from .. import __version__

    top = argparse.ArgumentParser(
        description="Command line utility for kastore files.",
    )
    top.add_argument("-V", "--version", action="version", version=f"%(prog)s {__version__}")
    top.add_argument("--verbose", "-v", action="count", default=0, help="Increase verbosity.")
    sub = top.add_subparsers(dest="subcommand")
    sub.required = True
    parser = sub.add_parser("ls", help="List the contents of a store")
    parser.add_argument("store", help="The input kastore file")
    parser.add_argument("--long", "-l", action="store_true", help="Show details about arrays")
    parser.add_argument("--human-readable", "-H", action="store_true",
                        help="Show array sizes in human-readable format.")
    parser.set_defaults(runner=run_list)
    parser = sub.add_parser("dump", help="Dump an array within the file to stdout")
    parser.add_argument("store", help="The input kastore file")
    parser.add_argument("array", help="The name of the array of interest.")
    parser.set_defaults(runner=run_dump)
    return top


def kastore_main(argv: list[str] | None = None) -> None:
    if os.name == "posix":
        # Quietly die on a closed pipe (`... | head`), as the reference does.
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    args = get_kastore_parser().parse_args(argv)
    args.runner(args)
