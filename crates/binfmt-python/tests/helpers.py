"""Shared helpers (imported by the test modules): where the repository's fixtures are, the
reference packages, the CLI."""

from __future__ import annotations

import collections
import collections.abc
import importlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "crates"


def fixtures(crate: str) -> Path:
    return FIXTURES / crate / "tests" / "fixtures"


def reference(name: str):
    """The reference package `name`, or a skip (a failure under BINFMT_REQUIRE_REFERENCE=1,
    as in the Rust interop tests)."""
    if name == "bloscpack":
        # bloscpack 0.16 needs this alias on Python >= 3.10 (it will not be fixed upstream).
        collections.MutableMapping = collections.abc.MutableMapping  # type: ignore[attr-defined]
    try:
        module = importlib.import_module(name)
    except ImportError as e:
        if os.environ.get("BINFMT_REQUIRE_REFERENCE") == "1":
            raise
        pytest.skip(f"reference package {name} not installed: {e}")
    if name == "bloscpack":
        import blosc

        blosc.set_nthreads(1)  # deterministic output
    return module


def cli() -> str | None:
    """The `binfmt` command, if built (BINFMT_CLI, or target/{debug,release}/binfmt)."""
    env = os.environ.get("BINFMT_CLI")
    if env:
        return env
    for profile in ("release", "debug"):
        path = ROOT / "target" / profile / "binfmt"
        if path.exists():
            return str(path)
    return shutil.which("binfmt")


def cli_first_error(path: Path) -> str | None:
    """The first line `binfmt verify PATH` prints, or None without a CLI."""
    exe = cli()
    if exe is None:
        return None
    run = subprocess.run([exe, "verify", str(path)], capture_output=True, text=True)
    lines = (run.stdout + run.stderr).splitlines()
    return lines[0] if lines else ""
