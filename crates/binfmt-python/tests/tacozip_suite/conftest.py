"""tacozip's own test suite (the tests/ of tacozip 0.12.0's source distribution, the
last release that ships them), run against the reference package and against
binfmt.taco, unchanged.

The machinery is ``tests/suite_harness.py``, shared with the bloscpack suite: each
``test_*.py`` is imported twice, and every test runs twice, under
``test_X.py::reference::`` with the installed tacozip (0.13) as ``tacozip``, and under
``test_X.py::binfmt::`` with binfmt.taco as ``tacozip`` and its submodules as
``tacozip.config``, ``tacozip.exceptions`` and ``tacozip.version``. binfmt.taco has no
``bindings`` or ``loader``: those are tacozip's ctypes layer over its C library, and the
tests of them are listed below as not applicable, with the reason.

Most of these tests check names, constants and exception classes, which calls no
function of binfmt's, so the suite does not require each test to reach binfmt's code
(the bloscpack suite does); every test imports ``tacozip`` while binfmt.taco is
installed under that name, which is what it tests.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)  # helpers.py, suite_harness.py
from helpers import reference  # noqa: E402
from suite_harness import Suite, view_module  # noqa: E402

HERE = Path(__file__).resolve().parent

_CTYPES = "tests tacozip's ctypes bindings to its C library (tacozip.bindings, tacozip.loader); "\
          "binfmt.taco is Rust behind PyO3 and has no such layer"
NOT_APPLICABLE = {
    "test_bindings.py::": _CTYPES,
    "test_integration.py::TestImportStructure::test_submodules_importable": _CTYPES,
    "test_integration.py::TestImportStructure::test_no_circular_imports": _CTYPES,
    "test_config.py::TestConfig::test_library_names": "checks the file names of tacozip's "
        "C library for each platform's loader (LIBRARY_NAMES); binfmt.taco keeps the "
        "names, with binfmt's one extension module as the value",
    "test_integration.py::TestIntegration::test_metadata_values": "checks tacozip's "
        "author and e-mail (__author__ contains 'Cesar Aybar'); binfmt.taco has the same "
        "metadata names with binfmt's values",
}

_SUBMODULES = ("config", "exceptions", "version")


def _build_views():
    ref = reference("tacozip")  # a skip, or a failure under BINFMT_REQUIRE_REFERENCE=1
    ref_subs = {s: importlib.import_module(f"tacozip.{s}")
                for s in _SUBMODULES + ("bindings", "loader")}
    import binfmt.taco as taco

    ours = {s: importlib.import_module(f"binfmt.taco.{s}") for s in _SUBMODULES}
    top = view_module("tacozip", taco, {})
    top.__path__ = []  # a package: submodules come from sys.modules
    return {
        "reference": {"tacozip": ref, **{f"tacozip.{s}": m for s, m in ref_subs.items()}},
        "binfmt": {"tacozip": top, **{f"tacozip.{s}": m for s, m in ours.items()}},
    }


SUITE = Suite("tacozip", HERE, _build_views, NOT_APPLICABLE, must_reach=False)
globals().update(SUITE.hooks())
