"""The bloscpack package's own test suite (bloscpack 0.16.0), run against the reference
package and against binfmt.bloscpack.

The machinery is ``tests/suite_harness.py``, shared with the tacozip suite. Each
vendored ``test_*.py`` is imported twice, and every test runs twice: under
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
from suite_harness import Suite, SuiteModule, view_module  # noqa: E402

HERE = Path(__file__).resolve().parent

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
    return view_module(name, base, overrides,
                       _ForwardingModule(name, *forward) if forward else None)


def _build_views() -> dict[str, dict[str, types.ModuleType]]:
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
    return {"reference": reference_view, "binfmt": binfmt_view}


SUITE = Suite("bloscpack", HERE, _build_views, NOT_APPLICABLE)
globals().update(SUITE.hooks())


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

