"""The bloscpack package's own test suite (bloscpack 0.16.0), run against the reference
package and against binfmt.bloscpack.

Each vendored ``test_*.py`` is imported twice, and every test runs twice: under
``test_X.py::reference::`` with the reference package as ``bloscpack``, and under
``test_X.py::binfmt::`` with a view of binfmt.bloscpack installed as ``bloscpack`` (and
as its submodules ``bloscpack.args``, ``.file_io``, ``.numpy_io``, ``.append``,
``.exceptions``) while the module is imported and while each test runs.

The binfmt view: every name that binfmt.bloscpack provides (the ``*Args`` classes, the
``pack_*``/``unpack_*`` functions of ``bloscpack.file_io`` and ``bloscpack.numpy_io`` and
their deprecated aliases, ``bloscpack.append.append`` and ``append_fp``, the 16
exception classes, the stream API: ``abstract_io.pack``/``unpack`` and the source and
sink classes of ``abstract_io``, ``file_io``, ``memory_io`` and ``numpy_io``,
``numpy_io.pack_ndarray``/``unpack_ndarray``, and the helpers ``calculate_nchunks``,
``_handle_max_apps``, ``file_io._write_metadata``/``_read_metadata``, ``numpy_io._conv``)
is binfmt's. The reference's other internals (its header encoders and decoders,
``_read_beginning`` and the other file readers, even where binfmt has a private
equivalent, ``pretty``, ...) stay the reference's: a test that mixes both, e.g. packs with binfmt and reads the
offsets with the reference's ``_read_offsets``, checks binfmt's files with the
reference's parsers. ``bloscpack.numpy_io._ndarray_meta`` is binfmt's, and patching it
(``mock.patch``, as ``test_backwards_compat`` does to write bloscpack < 0.7.2's metadata)
patches binfmt's.

Tests that cannot reach binfmt (they test the reference's private internals, CLI or
logging, or patch its writer) are skipped in the binfmt run, each with the reason, by
NOT_APPLICABLE below. Every other binfmt test must call into binfmt: one that does not
fails, asking to be listed here. The reference run runs everything.

Shims, the same for both packages: ``nose.tools`` (nose does not import on Python >= 3.10)
is nose's own definition, unittest's ``assertX`` methods under PEP 8 names;
``nose.plugins.skip.SkipTest`` is unittest's; ``mock`` is ``unittest.mock``; nose's
generator tests (``yield check, args...``) run each yielded case in turn, as one test;
``bloscpack.testutil`` is the vendored copy in this folder (numpy 2). The numpy 2
adaptations of the test files are listed in each file's header.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import re
import sys
import types
import unittest
import unittest.mock
from pathlib import Path

import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)  # helpers.py
from helpers import reference  # noqa: E402

HERE = Path(__file__).resolve().parent
IMPLS = ("reference", "binfmt")

# The binfmt run skips these, with the reason ("FILE::TEST" or a prefix of it).
_INTERNALS = "tests the reference's private internals"
NOT_APPLICABLE = {
    # whole modules
    "test_headers.py::": "tests the reference's header encoders and decoders "
                         "(bloscpack.headers); binfmt's are Rust, checked against the "
                         "reference's files in test_bloscpack.py and the Rust interop tests",
    "test_checksums.py::": _INTERNALS + " (bloscpack.checksums, its hash wrappers)",
    "test_metacodecs.py::": _INTERNALS + " (bloscpack.metacodecs, its zlib wrapper)",
    "test_serializers.py::": _INTERNALS + " (bloscpack.serializers, its JSON wrapper)",
    "test_pretty.py::": _INTERNALS + " (bloscpack.pretty, size formatting)",
    "test_log.py::": "tests the reference's logging module (bloscpack.log)",
    "test_cli.py::": "tests the reference's command line (bloscpack.cli); binfmt's "
                     "command is the Rust `binfmt` binary",
    # test_args.py
    "test_args.py::test_check_blosc_arguments": _INTERNALS + " (_check_blosc_args)",
    "test_args.py::test_check_bloscpack_arguments": _INTERNALS + " (_check_bloscpack_args)",
    "test_args.py::test_check_metadata_arguments": _INTERNALS + " (_check_metadata_arguments)",
    "test_append.py::test_recreate_metadata": _INTERNALS + " (append._recreate_metadata)",
    "test_append.py::test_rewrite_metadata": _INTERNALS + " (append._rewrite_metadata_fp, "
                                                          "file_io._write_metadata)",
    # test_file_io.py
    "test_file_io.py::test_invalid_format": "patches the reference writer's private "
                                            "constant file_io.FORMAT_VERSION; binfmt's "
                                            "writer has no such hook",
}


def not_applicable(key: str) -> str | None:
    """The reason `key` ("FILE::TEST", "FILE::CLASS::TEST") is not applicable, if listed."""
    for prefix, reason in NOT_APPLICABLE.items():
        if key == prefix or key.startswith(prefix if prefix.endswith("::") else prefix + "::"):
            return reason
    return None


# --- shims ---------------------------------------------------------------------------


def _nose_modules() -> dict[str, types.ModuleType]:
    """nose.tools as nose defines it (nose/tools/trivial.py): unittest.TestCase's assertX
    methods under PEP 8 names; nose.plugins.skip.SkipTest is unittest.SkipTest."""

    class Dummy(unittest.TestCase):
        def nop(self) -> None:
            pass

    t = Dummy("nop")
    tools = types.ModuleType("nose.tools")
    for at in dir(t):
        if at.startswith("assert") and "_" not in at:
            pep8 = re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), at)
            setattr(tools, pep8, getattr(t, at))
    # The names nose had from unittest's aliases removed in Python 3.12.
    tools.assert_equals = t.assertEqual
    tools.assert_raises_regexp = t.assertRaisesRegex
    tools.assert_regexp_matches = t.assertRegex
    nose = types.ModuleType("nose")
    plugins = types.ModuleType("nose.plugins")
    skip = types.ModuleType("nose.plugins.skip")
    skip.SkipTest = unittest.SkipTest
    nose.tools, nose.plugins, plugins.skip = tools, plugins, skip
    return {"nose": nose, "nose.tools": tools, "nose.plugins": plugins,
            "nose.plugins.skip": skip, "mock": unittest.mock}


_REF_SUBMODULES = ("abstract_io", "abstract_objects", "append", "args", "checksums", "cli",
                   "compat_util", "constants", "defaults", "exceptions", "file_io",
                   "headers", "log", "memory_io", "metacodecs", "numpy_io", "pretty",
                   "serializers", "util", "version")


class _ForwardingModule(types.ModuleType):
    """A view module whose listed attributes, when set (mock.patch), are set on the
    binfmt module that uses them too."""

    def __init__(self, name: str, forward: types.ModuleType, names: set[str]) -> None:
        super().__init__(name)
        object.__setattr__(self, "_forward", (forward, names))

    def __setattr__(self, name: str, value: object) -> None:
        forward, names = object.__getattribute__(self, "_forward")
        if name in names:
            setattr(forward, name, value)
        super().__setattr__(name, value)


def _view(name: str, base: types.ModuleType, overrides: dict,
          forward: tuple[types.ModuleType, set[str]] | None = None) -> types.ModuleType:
    module = (_ForwardingModule(name, *forward) if forward else types.ModuleType(name))
    for k, v in vars(base).items():
        if k not in ("__name__", "__spec__", "__loader__"):
            module.__dict__[k] = v
    module.__dict__.update(overrides)
    return module


_VIEWS: dict[str, dict[str, types.ModuleType]] = {}


def _build_views() -> dict[str, dict[str, types.ModuleType]]:
    if _VIEWS:
        return _VIEWS
    ref = reference("bloscpack")  # a skip, or a failure under BINFMT_REQUIRE_REFERENCE=1
    subs = {s: importlib.import_module(f"bloscpack.{s}") for s in _REF_SUBMODULES}
    shims = _nose_modules()

    # The vendored testutil, shared by both runs (it imports bloscpack.defaults/pretty,
    # which it finds in the reference here).
    spec = importlib.util.spec_from_file_location("bloscpack.testutil", HERE / "testutil.py")
    testutil = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(testutil)

    reference_view = {"bloscpack": ref, **{f"bloscpack.{s}": m for s, m in subs.items()},
                      "bloscpack.testutil": testutil, **shims}

    import binfmt.bloscpack as bb
    import binfmt.bloscpack.exceptions as bbe

    file_io_names = ["pack_file_to_file", "unpack_file_from_file", "pack_bytes_to_file",
                     "unpack_bytes_from_file", "pack_bytes_to_bytes",
                     "unpack_bytes_from_bytes", "pack_file", "unpack_file",
                     "pack_bytes_file", "unpack_bytes_file"]
    numpy_io_names = ["pack_ndarray_to_file", "unpack_ndarray_from_file",
                      "pack_ndarray_to_bytes", "unpack_ndarray_from_bytes",
                      "pack_ndarray_file", "unpack_ndarray_file", "pack_ndarray_str",
                      "unpack_ndarray_str", "_ndarray_meta"]
    args_names = ["BloscArgs", "BloscpackArgs", "MetadataArgs"]
    # bloscpack.args' defaults for the callables are the reference's own lambdas
    # (10 * x); binfmt's BloscpackArgs/MetadataArgs default to an equivalent function.
    # In the binfmt view they are binfmt's, after checking that they compute the same.
    max_app, max_meta = bb.BloscpackArgs().max_app_chunks, bb.MetadataArgs().max_meta_size
    for n in (0, 1, 7, 1000):
        assert max_app(n) == subs["defaults"].DEFAULT_MAX_APP_CHUNKS(n)
        assert max_meta(n) == subs["defaults"].DEFAULT_MAX_META_SIZE(n)
    pick = lambda names: {n: getattr(bb, n) for n in names}  # noqa: E731
    # The stream API: binfmt's sources, sinks, pack/unpack and append_fp.
    from binfmt.bloscpack import abstract_io, file_io, memory_io, numpy_io

    stream = lambda module, names: {n: getattr(module, n) for n in names}  # noqa: E731
    abstract_names = ["pack", "unpack", "PlainSource", "CompressedSource", "PlainSink",
                      "CompressedSink"]
    fp_names = ["PlainFPSource", "CompressedFPSource", "PlainFPSink", "CompressedFPSink",
                "pack", "unpack", "_write_metadata", "_read_metadata"]
    memory_names = ["PlainMemorySource", "CompressedMemorySource", "PlainMemorySink",
                    "CompressedMemorySink"]
    numpy_stream_names = ["PlainNumpySource", "PlainNumpySink", "pack_ndarray",
                          "unpack_ndarray", "_conv", "CompressedFPSource",
                          "CompressedFPSink", "pack", "unpack"]
    views = {
        "args": _view("bloscpack.args", subs["args"], {
            **pick(args_names), "DEFAULT_MAX_APP_CHUNKS": max_app,
            "DEFAULT_MAX_META_SIZE": max_meta,
            **stream(abstract_io, ["calculate_nchunks", "_handle_max_apps"])}),
        "abstract_io": _view("bloscpack.abstract_io", subs["abstract_io"],
                             stream(abstract_io, abstract_names)),
        "file_io": _view("bloscpack.file_io", subs["file_io"],
                         {**pick(file_io_names), **stream(file_io, fp_names)}),
        "memory_io": _view("bloscpack.memory_io", subs["memory_io"],
                           stream(memory_io, memory_names)),
        "numpy_io": _view("bloscpack.numpy_io", subs["numpy_io"],
                          {**pick(numpy_io_names), **stream(numpy_io, numpy_stream_names)},
                          forward=(bb, {"_ndarray_meta"})),
        "append": _view("bloscpack.append", subs["append"],
                        {"append": bb.append, "append_fp": bb.append_fp,
                         "PlainFPSource": file_io.PlainFPSource,
                         "CompressedFPSink": file_io.CompressedFPSink}),
    }
    binfmt_subs = {s: views.get(s, subs[s]) for s in _REF_SUBMODULES}
    binfmt_subs["exceptions"] = bbe
    top = _view("bloscpack", bb, {**binfmt_subs, "testutil": testutil,
                                  "__version__": ref.__version__})
    top.__path__ = []  # a package: submodules come from sys.modules
    binfmt_view = {"bloscpack": top,
                   **{f"bloscpack.{s}": m for s, m in binfmt_subs.items()},
                   "bloscpack.testutil": testutil, **shims}
    _VIEWS.update(reference=reference_view, binfmt=binfmt_view)
    return _VIEWS


@contextlib.contextmanager
def installed(impl: str):
    """Installs `impl`'s bloscpack (and the shims) in sys.modules; restores after."""
    view = _build_views()[impl]
    names = set(view) | {n for n in sys.modules if n == "bloscpack" or n.startswith("bloscpack.")}
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


# --- collection: each file twice --------------------------------------------------------


class SuiteModule(pytest.Module):
    """The test file imported with one implementation installed as ``bloscpack``."""

    impl: str

    def _getobj(self):
        name = f"bloscpack_suite__{self.impl}__{self.path.stem}"
        spec = importlib.util.spec_from_file_location(name, self.path)
        module = importlib.util.module_from_spec(spec)
        with installed(self.impl):
            spec.loader.exec_module(module)
        sys.modules[name] = module
        return module


class SuiteFile(pytest.File):
    def collect(self):
        for impl in IMPLS:
            node = SuiteModule.from_parent(self, path=self.path, name=impl,
                                           nodeid=f"{self.nodeid}::{impl}")
            node.impl = impl
            yield node


def pytest_pycollect_makemodule(module_path, parent):
    if module_path.parent == HERE and module_path.name.startswith("test_"):
        return SuiteFile.from_parent(parent, path=module_path)
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector, name, obj):
    """nose's generator tests: the yielded cases ``(check, *args)`` run in turn."""
    if (isinstance(collector, SuiteModule) and inspect.isgeneratorfunction(obj)
            and collector.funcnamefilter(name)):
        def run_cases() -> None:
            for case in obj():
                case[0](*case[1:])

        run_cases.__name__ = run_cases.__qualname__ = name
        run_cases.__module__ = obj.__module__
        return pytest.Function.from_parent(collector, name=name, callobj=run_cases)
    return None


def _impl_and_key(item) -> tuple[str, str] | None:
    module = next((n for n in item.listchain() if isinstance(n, SuiteModule)), None)
    if module is None:
        return None
    rest = item.nodeid.split(f"::{module.impl}::", 1)[1]
    return module.impl, f"{item.path.name}::{rest}"


def pytest_collection_modifyitems(config, items):
    for item in items:
        found = _impl_and_key(item)
        if found is None or found[0] != "binfmt":
            continue
        reason = not_applicable(found[1])
        if reason is not None:
            item.add_marker(pytest.mark.skip(reason="not applicable: " + reason))


# --- running: the implementation installed, and binfmt reached --------------------------


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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    found = _impl_and_key(item)
    if found is None:
        return (yield)
    impl, key = found
    with installed(impl):
        if impl != "binfmt":
            return (yield)
        state = _watch_binfmt()
        try:
            result = yield
        finally:
            sys.setprofile(None)
    if not state["reached"]:
        pytest.fail(f"{key} does not reach binfmt: list it in NOT_APPLICABLE in "
                    f"{Path(__file__).name}, with the reason", pytrace=False)
    return result
