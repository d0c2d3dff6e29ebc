"""Runs a reference package's own test suite, vendored in a folder, against the reference
and against binfmt's drop-in: the machinery the vendored suites' ``conftest.py`` share.

Each vendored ``test_*.py`` is imported twice, and every test runs twice: under
``test_X.py::reference::`` with the reference's modules installed in ``sys.modules`` under
the package's name, and under ``test_X.py::binfmt::`` with binfmt's view of them. The
view is installed while the module is imported and while each test runs, and restored
after.

A suite's ``conftest.py`` builds a :class:`Suite` (the package's name, its folder, the two
views, the tests that do not apply to binfmt with the reason) and exports its hooks with
``globals().update(suite.hooks())``. Listed tests are skipped in the binfmt run with
their reason; the reference run runs everything. With ``must_reach``, a binfmt test that
never calls into binfmt's Python code fails, asking to be listed: a suite whose tests
check names and constants (tacozip's) sets it off, since reading a constant calls
nothing.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import types
from pathlib import Path
from typing import Callable

import pytest

IMPLS = ("reference", "binfmt")

Views = dict[str, dict[str, types.ModuleType]]


def view_module(name: str, base: types.ModuleType, overrides: dict,
                module: types.ModuleType | None = None) -> types.ModuleType:
    """A module named `name` holding `base`'s names, then `overrides` (into `module` if
    given, e.g. a forwarding subclass)."""
    module = module if module is not None else types.ModuleType(name)
    for k, v in vars(base).items():
        if k not in ("__name__", "__spec__", "__loader__"):
            module.__dict__[k] = v
    module.__dict__.update(overrides)
    return module


class SuiteModule(pytest.Module):
    """The test file imported with one implementation installed."""

    impl: str
    suite: "Suite"

    def _getobj(self):
        name = f"{self.suite.package}_suite__{self.impl}__{self.path.stem}"
        spec = importlib.util.spec_from_file_location(name, self.path)
        module = importlib.util.module_from_spec(spec)
        with self.suite.installed(self.impl):
            try:
                spec.loader.exec_module(module)
            except ImportError:
                # A file that tests what binfmt does not have (tacozip's ctypes
                # bindings) may not even import: skipped whole, if listed whole.
                reason = self.suite.not_applicable(f"{self.path.name}::")
                if self.impl != "binfmt" or reason is None:
                    raise
                pytest.skip("not applicable: " + reason, allow_module_level=True)
        sys.modules[name] = module
        return module


class SuiteFile(pytest.File):
    suite: "Suite"

    def collect(self):
        for impl in IMPLS:
            node = SuiteModule.from_parent(self, path=self.path, name=impl,
                                           nodeid=f"{self.nodeid}::{impl}")
            node.impl, node.suite = impl, self.suite
            yield node


class Suite:
    """One vendored suite: `package` is the name its tests import, `here` its folder,
    `build_views` returns ``{"reference": {...}, "binfmt": {...}}`` (module name to
    module; called once, lazily), `not_applicable` maps "FILE::TEST" (or a prefix ending
    in "::") to the reason binfmt's run skips it."""

    def __init__(self, package: str, here: Path, build_views: Callable[[], Views],
                 not_applicable: dict[str, str], must_reach: bool = True) -> None:
        self.package, self.here = package, here
        self._build_views, self._views = build_views, None
        self.not_applicable_table, self.must_reach = not_applicable, must_reach

    def views(self) -> Views:
        if self._views is None:
            self._views = self._build_views()
        return self._views

    def not_applicable(self, key: str) -> str | None:
        """The reason `key` ("FILE::TEST", "FILE::CLASS::TEST") is not applicable."""
        for prefix, reason in self.not_applicable_table.items():
            if key == prefix or key.startswith(prefix if prefix.endswith("::")
                                               else prefix + "::"):
                return reason
        return None

    @contextlib.contextmanager
    def installed(self, impl: str):
        """Installs `impl`'s modules in sys.modules; restores the previous ones after."""
        view = self.views()[impl]
        pkg = self.package
        names = set(view) | {n for n in sys.modules
                             if n == pkg or n.startswith(pkg + ".")}
        saved = {n: sys.modules[n] for n in names if n in sys.modules}
        for n in names:
            sys.modules.pop(n, None)
        sys.modules.update(view)
        try:
            yield
        finally:
            for n in names:
                sys.modules.pop(n, None)
            sys.modules.update(saved)

    def impl_and_key(self, item) -> tuple[str, str] | None:
        """("reference" or "binfmt", "FILE::TEST") of a collected test of this suite."""
        module = next((n for n in item.listchain() if isinstance(n, SuiteModule)), None)
        if module is None or module.suite is not self:
            return None
        rest = item.nodeid.split(f"::{module.impl}::", 1)[1]
        return module.impl, f"{item.path.name}::{rest}"

    def hooks(self) -> dict[str, Callable]:
        """The conftest hooks: collection (each file twice), the skips, and running each
        test with its implementation installed."""
        suite = self

        def pytest_pycollect_makemodule(module_path, parent):
            if module_path.parent == suite.here and module_path.name.startswith("test_"):
                node = SuiteFile.from_parent(parent, path=module_path)
                node.suite = suite
                return node
            return None

        def pytest_collection_modifyitems(config, items):
            for item in items:
                found = suite.impl_and_key(item)
                if found is None or found[0] != "binfmt":
                    continue
                reason = suite.not_applicable(found[1])
                if reason is not None:
                    item.add_marker(pytest.mark.skip(reason="not applicable: " + reason))

        @pytest.hookimpl(wrapper=True)
        def pytest_runtest_call(item):
            found = suite.impl_and_key(item)
            if found is None:
                return (yield)
            impl, key = found
            with suite.installed(impl):
                if impl != "binfmt" or not suite.must_reach:
                    return (yield)
                state = _watch_binfmt()
                try:
                    result = yield
                finally:
                    sys.setprofile(None)
            if not state["reached"]:
                pytest.fail(f"{key} does not reach binfmt: list it in NOT_APPLICABLE in "
                            f"{suite.here.name}/conftest.py, with the reason",
                            pytrace=False)
            return result

        return {"pytest_pycollect_makemodule": pytest_pycollect_makemodule,
                "pytest_collection_modifyitems": pytest_collection_modifyitems,
                "pytest_runtest_call": pytest_runtest_call}


def _watch_binfmt() -> dict:
    """A profiler that records whether code of the binfmt package runs (then stops)."""
    import binfmt

    root = str(Path(binfmt.__file__).resolve().parent)
    state = {"reached": False}

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(root):
            state["reached"] = True
            sys.setprofile(None)

    sys.setprofile(profile)
    return state
