"""tacozip 0.13.0 and binfmt.taco, call by call.

Every case makes the same call on both modules (``tacozip`` and ``binfmt.taco``) with the
same arguments and asserts the same outcome:

* both return: the same value. For ``update_header`` the two updated files must be
  byte-identical (both start from one archive written by tacozip). ``create`` writes the
  current time into the archive (tacozip's output is not deterministic), so the two
  archives are compared on everything else: the 157 header bytes except the DOS
  time/date, every member's name, sizes, CRC-32, method, local header offset and bytes,
  and each module's ``read_header`` of *both* archives (each reads the other's).
* both raise: binfmt's exception is an instance of the reference's class (its
  ``TacozipError`` for ``tacozip.TacozipError``; the builtin itself for ``ValueError``,
  ``TypeError``), with the same ``code`` when the reference's has one; a
  ``TACOZ_ERR_IO`` error is also an ``OSError``. A failed call leaves the files as the
  reference leaves them.

The intended differences are cases too, not skips: ``DIFF`` states what each module
does (and why binfmt differs) and both halves are asserted, so a change on either side
shows up. test_taco.py covers the fixtures of the taco-header crate, ``members``, the
crash consistency of ``update_header`` and the error hierarchies; this file covers the
argument space, call by call.
"""

from __future__ import annotations

import hashlib
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

import binfmt.taco as taco
from helpers import reference

U64 = (1 << 64) - 1


# --- outcomes ----------------------------------------------------------------------------


@dataclass
class Ok:
    """A return; `check`, if given, is asserted on the value (or archive summary)."""

    check: Callable[[Any], bool] | None = None


@dataclass
class Err:
    """A raise of `cls` (a builtin, or the name of the module's own class) with `code`."""

    cls: type | str
    code: int | None = None


@dataclass
class Diff:
    """An intended difference: what tacozip does, what binfmt does, and why."""

    reason: str
    ref: Ok | Err
    ours: Ok | Err


@dataclass
class Case:
    id: str
    kind: str  # "create", "read", "update", "value"
    call: Callable[[Any, "Env"], Any]
    diff: Diff | None = None


class Env:
    """Source files, inputs and per-module output paths under tmp_path."""

    def __init__(self, tmp: Path, tacozip: Any, src: Path) -> None:
        self.tmp = tmp
        fresh = not src.exists()  # the sources are made once, shared by the cases
        src.mkdir(exist_ok=True)
        files = {
            "small": ("small.bin", b"hello taco " * 100),
            "empty": ("empty.bin", b""),
            "big": ("big.bin", hashlib.sha256(b"seed").digest() * 40_000),  # 1.28 MB
            "json": ("COLLECTION.json", b'{"id": "x"}'),
            "unicode": ("données-été-日本.bin", "çà et là".encode()),
            "long": ("L" * 200 + ".bin", b"long"),
        }
        for attr, (name, content) in files.items():
            setattr(self, attr, src / name)
            if fresh:
                (src / name).write_bytes(content)
        self.many = [src / f"part-{i:03d}.parquet" for i in range(60)]
        if fresh:
            for i, p in enumerate(self.many):
                p.write_bytes(bytes([i]) * (i * 7))
        self.missing = tmp / "missing.bin"
        self.folder = src
        # The archive the update and read cases start from: as tacozip writes it.
        self.base = tmp / "base.taco"
        tacozip.create(str(self.base), [str(self.small), str(self.json)],
                       ["DATA/small.bin", "COLLECTION.json"], [(10, 20), (30, 40)])
        self.base_bytes = self.base.read_bytes()
        plain = tmp / "plain.zip"
        with zipfile.ZipFile(plain, "w") as z:
            z.writestr("a.txt", "not taco " * 40)
        self.plain = plain
        header_only = tmp / "header_only.taco"
        taco.create(header_only, [], entries=[(1, 2)])  # tacozip cannot make one
        self.header_only = header_only.read_bytes()
        self.module = ""
        self.inputs: dict[str, bytes] = {}

    def out(self, name: str = "out.taco") -> str:
        """A path for the module being called (each writes its own)."""
        d = self.tmp / self.module
        d.mkdir(exist_ok=True)
        return str(d / name)

    def target(self) -> str:
        """The module's copy of the input archive (`update` and `read` cases)."""
        return str(self.tmp / self.module / "target.taco")

    def put(self, data: bytes) -> str:
        """Replaces the module's input archive with `data`; its path."""
        Path(self.target()).write_bytes(data)
        self.inputs[self.module] = data
        return self.target()

    def patched(self, offset: int, value: bytes, crc: bool = False) -> bytes:
        """The base archive with `value` at `offset`; with `crc`, the header's CRC-32
        (in the local header and in the central directory) made to match again."""
        data = bytearray(self.base_bytes)
        data[offset:offset + len(value)] = value
        if crc:
            digest = zlib.crc32(bytes(data[41:157])).to_bytes(4, "little")
            data[14:18] = digest
            central = data.index(b"PK\x01\x02")
            data[central + 16:central + 20] = digest
        return bytes(data)


def s(p: Path) -> str:
    return str(p)


def create(src: Callable[["Env"], list], arc: Callable[["Env"], list] | None = None,
           entries: Any = "absent") -> Callable[[Any, Env], Any]:
    def call(m: Any, env: Env) -> Any:
        kw = {} if entries == "absent" else {"entries": entries}
        args = [env.out(), [s(p) for p in src(env)]]
        if arc is not None:
            args.append(arc(env))
        return m.create(*args, **kw)
    return call


def reads(data: Callable[["Env"], bytes], as_bytes: bool = False) -> Callable[[Any, Env], Any]:
    def call(m: Any, env: Env) -> Any:
        raw = data(env)
        return m.read_header(raw if as_bytes else env.put(raw))
    return call


def updates(entries: Any, data: Callable[["Env"], bytes] | None = None) -> Callable[[Any, Env], Any]:
    def call(m: Any, env: Env) -> Any:
        path = env.put(data(env) if data else env.base_bytes)
        return m.update_header(path, entries)
    return call


BASE: Callable[[Env], bytes] = lambda env: env.base_bytes  # noqa: E731
WRAPS = ("tacozip's ctypes structure takes the value modulo 2**64 and writes it; binfmt "
         "refuses it with tacozip's parameter error (TACOZ_ERR_PARAM, also a ValueError) "
         "and writes nothing")
COUNT = ("the stored count: tacozip counts the entries that are not (0, 0) while keeping "
         "them positional, so a (0, 0) before a real entry loses the entries after it; "
         "binfmt stores the number of entries given (binfmt.taco's documented difference)")


UNCHECKED = ("tacozip reads the entries without checking the header's {}; binfmt checks "
             "every field and the CRC-32 (documented) and refuses the header")
WRITES_FIRST = ("tacozip writes its header over the first bytes and then fails "
                "(TACOZ_ERR_INVALID_HEADER), leaving the file changed; binfmt checks first, "
                "fails with the same code and leaves the file as it was")


def header_is(expected: list) -> Callable[[Any], bool]:
    return lambda summary: summary["header"] == expected


CASES = [
    # --- create --------------------------------------------------------------------------
    Case("create-one-file-default-entries", "create", create(lambda e: [e.small])),
    Case("create-one-placeholder", "create", create(lambda e: [e.small], entries=[(0, 0)]),
         Diff(COUNT, ref=Ok(header_is([])), ours=Ok(header_is([(0, 0)])))),
    Case("create-no-entries", "create", create(lambda e: [e.small], entries=[])),
    Case("create-entries-none", "create", create(lambda e: [e.small], entries=None)),
    Case("create-two-files-arc-names", "create",
         create(lambda e: [e.small, e.json], lambda e: ["DATA/a.bin", "COLLECTION.json"],
                [(0, 0), (0, 0)]),
         Diff(COUNT, ref=Ok(header_is([])), ours=Ok(header_is([(0, 0), (0, 0)])))),
    Case("create-two-files-arc-names-entries", "create",
         create(lambda e: [e.small, e.json], lambda e: ["DATA/a.bin", "COLLECTION.json"],
                [(1000, 10), (2000, 20)])),
    Case("create-seven-entries", "create",
         create(lambda e: [e.small], entries=[(i * 100, i + 1) for i in range(1, 8)])),
    Case("create-max-u64-entries", "create",
         create(lambda e: [e.small], entries=[(U64, U64), (U64, 0)])),
    Case("create-empty-source-file", "create", create(lambda e: [e.empty], entries=[(1, 2)])),
    Case("create-1mb-source", "create", create(lambda e: [e.big], entries=[(5, 6)])),
    Case("create-sixty-files", "create", create(lambda e: e.many, entries=[(7, 8)])),
    Case("create-sixty-files-arc-names", "create",
         create(lambda e: e.many, lambda e: [f"level0/{p.name}" for p in e.many])),
    Case("create-long-arc-name", "create",
         create(lambda e: [e.small], lambda e: ["d/" * 40 + "n" * 300])),
    Case("create-long-source-name", "create", create(lambda e: [e.long])),
    Case("create-unicode-source-name", "create", create(lambda e: [e.unicode])),
    Case("create-unicode-arc-names", "create",
         create(lambda e: [e.small, e.json], lambda e: ["été/données.bin", "日本語.json"])),
    Case("create-nested-arc-names", "create",
         create(lambda e: [e.small, e.json, e.empty],
                lambda e: ["a/b/c.bin", "a/b/d.json", "a/e"])),
    Case("create-over-existing-output", "create",
         lambda m, e: (m.create(e.out(), [s(e.big)]), m.create(e.out(), [s(e.small)]))[1]),
    Case("create-path-objects", "create",
         lambda m, e: m.create(Path(e.out()), [e.small, e.json])),
    Case("create-missing-source", "create", create(lambda e: [e.missing])),
    Case("create-missing-source-among-others", "create",
         create(lambda e: [e.small, e.missing, e.json])),
    Case("create-arc-names-count-mismatch", "create",
         create(lambda e: [e.small], lambda e: ["a", "b"])),
    Case("create-eight-entries", "create", create(lambda e: [e.small], entries=[(1, 1)] * 8)),
    Case("create-hundred-entries", "create",
         create(lambda e: [e.small], entries=[(1, 1)] * 100)),
    Case("create-entry-none", "create", create(lambda e: [e.small], entries=[None])),
    Case("create-entry-string", "create", create(lambda e: [e.small], entries=[("1", 2)])),
    Case("create-entry-float", "create", create(lambda e: [e.small], entries=[(1.5, 2)])),
    Case("create-no-sources", "create", create(lambda e: [], entries=[(1, 2)]),
         Diff("binfmt writes a header-only archive (documented: src_files may be empty), "
              "as `binfmt taco create` does; tacozip refuses an empty list",
              ref=Err("TacozipError", taco.TACOZ_ERR_PARAM), ours=Ok(header_is([(1, 2)])))),
    Case("create-negative-offset", "create", create(lambda e: [e.small], entries=[(-1, 2)]),
         Diff(WRAPS, ref=Ok(header_is([(U64, 2)])),
              ours=Err("TacozipError", taco.TACOZ_ERR_PARAM))),
    Case("create-negative-length", "create", create(lambda e: [e.small], entries=[(1, -5)]),
         Diff(WRAPS, ref=Ok(header_is([(1, U64 - 4)])),
              ours=Err("TacozipError", taco.TACOZ_ERR_PARAM))),
    Case("create-offset-2-to-the-64", "create",
         create(lambda e: [e.small], entries=[(1 << 64, 2)]),
         Diff(WRAPS, ref=Ok(header_is([(0, 2)])),
              ours=Err("TacozipError", taco.TACOZ_ERR_PARAM))),
    Case("create-zero-pair-first", "create",
         create(lambda e: [e.small], entries=[(0, 0), (100, 200)]),
         Diff(COUNT, ref=Ok(header_is([(0, 0)])), ours=Ok(header_is([(0, 0), (100, 200)])))),
    Case("create-duplicate-arc-names", "create",
         create(lambda e: [e.small, e.json], lambda e: ["x", "x"]),
         Diff("tacozip (libzip) keeps one member named x, the second file, and drops the "
              "first file's data silently; binfmt refuses the duplicate name "
              "(TACOZ_ERR_EXISTS) and writes nothing",
              ref=Ok(lambda summary: [m[0] for m in summary["members"]] == ["TACO_HEADER", "x"]),
              ours=Err("TacozipError", taco.TACOZ_ERR_EXISTS))),
    Case("create-missing-output-dir", "create",
         lambda m, e: m.create(str(e.tmp / "no" / "such" / "dir.taco"), [s(e.small)]),
         Diff("the output cannot be opened: libzip reports its own error code "
              "(TACOZ_ERR_LIBZIP); binfmt reports an I/O error as TACOZ_ERR_IO, also a "
              "FileNotFoundError",
              ref=Err("TacozipError", taco.TACOZ_ERR_LIBZIP),
              ours=Err(FileNotFoundError, taco.TACOZ_ERR_IO))),
    Case("create-directory-as-source", "create", create(lambda e: [e.folder]),
         Diff("a directory given as a source file: libzip's error (TACOZ_ERR_LIBZIP); "
              "binfmt's I/O code (TACOZ_ERR_IO)",
              ref=Err("TacozipError", taco.TACOZ_ERR_LIBZIP),
              ours=Err("TacozipError", taco.TACOZ_ERR_IO))),
    Case("create-entry-numpy-ints", "create",
         create(lambda e: [e.small], entries=[(np.uint64(5), np.int32(6))])),
    Case("create-entry-numpy-float", "create",
         create(lambda e: [e.small], entries=[(np.float64(5), 6)])),
    Case("create-entry-bools", "create", create(lambda e: [e.small], entries=[(True, 3)])),
    Case("create-entry-triple", "create", create(lambda e: [e.small], entries=[(1, 2, 3)])),
    # --- read_header ---------------------------------------------------------------------
    Case("read-path", "read", reads(BASE)),
    Case("read-pathlib", "read", lambda m, e: m.read_header(Path(e.put(e.base_bytes)))),
    Case("read-bytes-157", "read", reads(lambda e: e.base_bytes[:157], as_bytes=True)),
    Case("read-bytes-256", "read", reads(lambda e: e.base_bytes[:256], as_bytes=True)),
    Case("read-bytes-whole", "read", reads(BASE, as_bytes=True)),
    Case("read-bytes-156", "read", reads(lambda e: e.base_bytes[:156], as_bytes=True)),
    Case("read-bytes-empty", "read", reads(lambda e: b"", as_bytes=True)),
    Case("read-bytes-junk", "read", reads(lambda e: b"x" * 200, as_bytes=True)),
    Case("read-file-157", "read", reads(lambda e: e.base_bytes[:157])),
    # A file shorter than the header: a short read, TACOZ_ERR_IO, in both.
    Case("read-file-truncated-100", "read", reads(lambda e: e.base_bytes[:100])),
    Case("read-file-empty", "read", reads(lambda e: b"")),
    Case("read-file-junk", "read", reads(lambda e: b"\x00" * 4096)),
    Case("read-not-a-zip", "read", reads(lambda e: b"just some text\n" * 20)),
    Case("read-plain-zip", "read", reads(lambda e: e.plain.read_bytes())),
    Case("read-bad-magic", "read", reads(lambda e: e.patched(0, b"PK\x05\x06"))),
    Case("read-bad-name", "read", reads(lambda e: e.patched(30, b"TACO_HEADXR"))),
    Case("read-bad-name-length", "read", reads(lambda e: e.patched(26, b"\x0c\x00")),
         Diff(UNCHECKED.format("name length (12)"), ref=Ok(lambda v: v == [(10, 20), (30, 40)]),
              ours=Err("TacozipError", taco.TACOZ_ERR_INVALID_HEADER))),
    Case("read-deflated-method", "read", reads(lambda e: e.patched(8, b"\x08\x00")),
         Diff(UNCHECKED.format("compression method (8, deflate)"),
              ref=Ok(lambda v: v == [(10, 20), (30, 40)]),
              ours=Err("TacozipError", taco.TACOZ_ERR_INVALID_HEADER))),
    Case("read-bad-sizes", "read", reads(lambda e: e.patched(18, b"\x75\x00\x00\x00")),
         Diff(UNCHECKED.format("compressed size (117)"), ref=Ok(lambda v: v == [(10, 20), (30, 40)]),
              ours=Err("TacozipError", taco.TACOZ_ERR_INVALID_HEADER))),
    Case("read-bad-crc", "read", reads(lambda e: e.patched(50, b"\x01")),
         Diff(UNCHECKED.format("CRC-32 (a payload byte changed)"),
              ref=Ok(lambda v: v == [(10 + (1 << 40), 20), (30, 40)]),
              ours=Err("TacozipError", taco.TACOZ_ERR_INVALID_HEADER))),
    Case("read-count-8", "read", reads(lambda e: e.patched(41, b"\x08", crc=True))),
    Case("read-count-255", "read", reads(lambda e: e.patched(41, b"\xff", crc=True))),
    Case("read-count-7", "read", reads(lambda e: e.patched(41, b"\x07", crc=True))),
    Case("read-count-0", "read", reads(lambda e: e.patched(41, b"\x00", crc=True))),
    Case("read-count-1-bytes", "read",
         reads(lambda e: e.patched(41, b"\x01", crc=True)[:157], as_bytes=True)),
    Case("read-missing", "read", lambda m, e: m.read_header(s(e.missing))),
    Case("read-directory", "read", lambda m, e: m.read_header(s(e.folder))),
    Case("read-bytearray", "read", lambda m, e: m.read_header(bytearray(e.base_bytes[:157])),
         Diff("binfmt reads a bytearray (or memoryview) as bytes; tacozip takes any "
              "non-bytes source for a path, str(bytearray(...)), which does not exist",
              ref=Err("TacozipError", taco.TACOZ_ERR_IO), ours=Ok(lambda v: v == [(10, 20), (30, 40)]))),
    # --- update_header -------------------------------------------------------------------
    Case("update-one", "update", updates([(1, 2)])),
    Case("update-same", "update", updates([(10, 20), (30, 40)])),
    Case("update-seven", "update", updates([(i, i * 3) for i in range(1, 8)])),
    Case("update-none", "update", updates([])),
    Case("update-placeholder", "update", updates([(0, 0)]),
         Diff(COUNT, ref=Ok(lambda data: taco.read_header(data) == []),
              ours=Ok(lambda data: taco.read_header(data) == [(0, 0)]))),
    Case("update-trailing-placeholders", "update", updates([(5, 6), (0, 0), (0, 0)]),
         Diff(COUNT, ref=Ok(lambda data: taco.read_header(data) == [(5, 6)]),
              ours=Ok(lambda data: taco.read_header(data) == [(5, 6), (0, 0), (0, 0)]))),
    Case("update-max-u64", "update", updates([(U64, U64)] * 7)),
    Case("update-large-offsets", "update", updates([(1 << 40, 1 << 33), (1 << 63, 1)])),
    Case("update-twice", "update",
         lambda m, e: (updates([(9, 9)] * 7)(m, e), m.update_header(e.target(), [(4, 2)]))[1]),
    Case("update-header-only-archive", "update",
         updates([(3, 4)], data=lambda e: e.header_only)),
    Case("update-eight", "update", updates([(1, 1)] * 8)),
    Case("update-hundred", "update", updates([(1, 1)] * 100)),
    Case("update-entry-string", "update", updates([("1", "2")])),
    Case("update-entry-none", "update", updates([None])),
    Case("update-missing", "update", lambda m, e: m.update_header(s(e.missing), [(1, 2)])),
    Case("update-not-a-zip", "update", updates([(1, 2)], data=lambda e: b"z" * 300),
         Diff(WRITES_FIRST, ref=Err("TacozipError", taco.TACOZ_ERR_INVALID_HEADER),
              ours=Err("TacozipError", taco.TACOZ_ERR_INVALID_HEADER))),
    Case("update-bad-magic", "update",
         updates([(1, 2)], data=lambda e: e.patched(0, b"PK\x05\x06")),
         Diff("tacozip's update_header does not check the local header's signature and "
              "writes the entries; binfmt checks the whole header first and refuses",
              ref=Ok(), ours=Err("TacozipError", taco.TACOZ_ERR_INVALID_HEADER))),
    Case("update-negative", "update", updates([(-1, 2)]),
         Diff(WRAPS, ref=Ok(lambda data: taco.read_header(data) == [(U64, 2)]),
              ours=Err("TacozipError", taco.TACOZ_ERR_PARAM))),
    Case("update-2-to-the-64", "update", updates([(2, 1 << 64)]),
         Diff(WRAPS, ref=Ok(lambda data: taco.read_header(data) == [(2, 0)]),
              ours=Err("TacozipError", taco.TACOZ_ERR_PARAM))),
    Case("update-zero-pair-first", "update", updates([(0, 0), (7, 7), (8, 8)]),
         Diff(COUNT, ref=Ok(lambda data: taco.read_header(data) == [(0, 0), (7, 7)]),
              ours=Ok(lambda data: taco.read_header(data) == [(0, 0), (7, 7), (8, 8)]))),
    Case("update-pathlib", "update", lambda m, e: m.update_header(Path(e.put(e.base_bytes)), [(1, 2)]),
         Diff("binfmt takes os.PathLike paths everywhere; tacozip's update_header calls "
              "zip_path.encode(), so a pathlib.Path is an AttributeError",
              ref=Err(AttributeError), ours=Ok())),
    Case("update-plain-zip", "update", updates([(1, 2)], data=lambda e: e.plain.read_bytes()),
         Diff("an ordinary zip: tacozip writes its header over the first member and then "
              "fails to find TACO_HEADER in the central directory (TACOZ_ERR_NOT_FOUND), "
              "leaving the zip broken; binfmt checks the header first and refuses it as "
              "both modules' read_header do (TACOZ_ERR_INVALID_HEADER), leaving the file "
              "as it was",
              ref=Err("TacozipError", taco.TACOZ_ERR_NOT_FOUND),
              ours=Err("TacozipError", taco.TACOZ_ERR_INVALID_HEADER))),
    # --- constants, errors, helpers ------------------------------------------------------
    *[Case(f"constant-{n}", "value", (lambda n: lambda m, e: getattr(m, n))(n))
      for n in ("TACOZ_OK", "TACOZ_ERR_IO", "TACOZ_ERR_LIBZIP", "TACOZ_ERR_INVALID_HEADER",
                "TACOZ_ERR_PARAM", "TACOZ_ERR_NOT_FOUND", "TACOZ_ERR_EXISTS",
                "TACOZ_ERR_TOO_LARGE", "TACO_HEADER_MAX_ENTRIES")],
    Case("self-check", "value", lambda m, e: m.self_check()),
    *[Case(f"error-str-{code}", "value",
           (lambda c: lambda m, e: (str(m.TacozipError(c)), m.TacozipError(c).code))(code))
      for code in (-1, -2, -3, -4, -5, -6, -7, 42)],
    Case("error-custom-message", "value",
         lambda m, e: (str(m.TacozipError(-4, "bad entries")), m.TacozipError(-4, "x").args)),
    Case("error-is-exception", "value",
         lambda m, e: (issubclass(m.TacozipError, Exception), m.TacozipError.__name__)),
    Case("version-is-text", "value",
         lambda m, e: (type(m.get_library_version()), type(m.__tacozip_version__),
                       m.get_library_version() == m.__tacozip_version__)),
]

IDS = [c.id for c in CASES]
assert len(set(IDS)) == len(IDS)


# --- running -----------------------------------------------------------------------------


def _run(call: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "ok", call()
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return "err", e


def _summary(path: str, tacozip: Any) -> dict:
    """An archive, without what tacozip does not write deterministically (the times)."""
    data = Path(path).read_bytes()
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None
        members = [(i.filename, i.file_size, i.compress_size, i.CRC, i.compress_type,
                    i.header_offset, hashlib.sha256(z.read(i)).hexdigest())
                   for i in z.infolist()]
    return {
        "header": taco.read_header(path),
        "header_by_tacozip": tacozip.read_header(path),
        "header_bytes": data[:10] + data[14:157],  # 10..14: DOS time and date
        "members": members,
    }


def _value(case: Case, module: Any, env: Env, result: Any, tacozip: Any) -> Any:
    """What a successful call is compared on."""
    if case.kind == "create":
        out = Path(env.out())
        if not out.exists():  # the case wrote elsewhere
            return result
        return _summary(str(out), tacozip)
    if case.kind == "update":
        return Path(env.target()).read_bytes() if Path(env.target()).exists() else result
    return result


def _cls(spec: type | str, module: Any) -> type:
    return getattr(module, spec) if isinstance(spec, str) else spec


def _check(expect: Ok | Err, outcome: tuple[str, Any], module: Any, value: Any) -> None:
    kind, got = outcome
    if isinstance(expect, Ok):
        assert kind == "ok", f"{module.__name__} raised {got!r}"
        if expect.check is not None:
            assert expect.check(value), value
    else:
        assert kind == "err", f"{module.__name__} returned {got!r}"
        assert isinstance(got, _cls(expect.cls, module)), repr(got)
        if expect.code is not None:
            assert got.code == expect.code, (got, got.code)


def _same_error(ref: BaseException, ours: BaseException, tacozip: Any) -> None:
    counterpart = taco.TacozipError if isinstance(ref, tacozip.TacozipError) else type(ref)
    assert isinstance(ours, counterpart), f"tacozip: {ref!r}, binfmt: {ours!r}"
    if hasattr(ref, "code"):
        assert ours.code == ref.code, f"tacozip: {ref!r}, binfmt: {ours!r} (code {ours.code})"
        if ref.code == taco.TACOZ_ERR_IO:
            assert isinstance(ours, OSError), repr(ours)


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("taco-diff") / "src"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_same_call_same_outcome(case: Case, tmp_path: Path, sources: Path) -> None:
    tacozip = reference("tacozip")
    env = Env(tmp_path, tacozip, sources)
    outcomes, values = {}, {}
    for name, module in (("ref", tacozip), ("ours", taco)):
        env.module = name
        (tmp_path / name).mkdir(exist_ok=True)
        outcome = _run(lambda: case.call(module, env))
        outcomes[name] = outcome
        values[name] = (_value(case, module, env, outcome[1], tacozip)
                        if outcome[0] == "ok" else None)
    if case.kind == "update" and outcomes["ours"][0] == "err" and "ours" in env.inputs:
        env.module = "ours"  # binfmt never writes when it refuses
        assert Path(env.target()).read_bytes() == env.inputs["ours"]
    if case.kind == "create" and outcomes["ours"][0] == "err":
        env.module = "ours"  # nor leaves a file behind
        assert not Path(env.out()).exists()

    if case.diff is not None:
        _check(case.diff.ref, outcomes["ref"], tacozip, values["ref"])
        _check(case.diff.ours, outcomes["ours"], taco, values["ours"])
        return

    (rk, rv), (ok_, ov) = outcomes["ref"], outcomes["ours"]
    assert rk == ok_, f"tacozip: {rk} {rv!r}; binfmt: {ok_} {ov!r}"
    if rk == "ok":
        assert values["ours"] == values["ref"]
    else:
        _same_error(rv, ov, tacozip)
        if case.kind == "update":  # both left the file as it was, or as the other did
            env.module = "ref"
            ref_bytes = Path(env.target()).read_bytes() if Path(env.target()).exists() else None
            env.module = "ours"
            our_bytes = Path(env.target()).read_bytes() if Path(env.target()).exists() else None
            assert our_bytes == ref_bytes


def test_enough_differential_calls() -> None:
    assert len(CASES) >= 47
    assert sum(c.diff is not None for c in CASES) >= 10
