"""The exception mapping branches on each library error's stable kind name
(`binfmt_core::Kind::name`, each variant's identifier, from the table in each crate's
`src/error.rs` that `binfmt_core::kind_table!` makes an exhaustive match, so that no
variant goes unnamed),
never on the variants' Debug output. These tests check
that every kind the Python classes are registered for is a name a library can give, so
that a renamed or misspelt name cannot silently fall back to the format's base class."""

from __future__ import annotations

import re

import numpy as np
import pytest

import binfmt
import binfmt._errors as errors
import binfmt.bloscpack as ob
import binfmt.kastore as bk
import binfmt.mldf  # noqa: F401  (registers its classes)
import binfmt.taco as taco
import binfmt.taridx  # noqa: F401  (registers its classes)
from helpers import ROOT

# The Python format name and the crate whose `ErrorKind` it raises.
CRATES = {
    "kastore": "kastore",
    "bloscpack": "bloscpack-header",
    "taco": "taco-header",
    "taridx": "taridx",
    "mldf": "mldf",
}


def _names(crate: str) -> list[str]:
    """The names `Kind::name` returns in `crate`: core's `fn name` match for `Layout`; a
    format crate's variants as its `binfmt_core::kind_table!` groups them by blame
    (`Fault::Input => Eof, BadType;`), whose name table is each variant's identifier
    (the macro writes the exhaustive match, delegating `Layout` to core's)."""
    src = (ROOT / "crates" / crate / "src" / "error.rs").read_text()
    if crate == "binfmt-core":
        impl = src.index("impl Kind for Layout {")
        m = re.compile(r"fn name\(&self\) -> &'static str \{").search(src, impl)
        assert m, crate
        return re.findall(r'=>\s*"(\w+)"', _block(src, m.end()))
    table = _block(src, src.index("binfmt_core::kind_table! {") + len("binfmt_core::kind_table! {"))
    table = table.split("into_io_error {")[0]
    groups = re.findall(r"Fault::\w+\s*=>\s*([^;]*);", table)
    assert groups, crate
    names = []
    for group in groups:
        group = re.sub(r"#\[[^\]]*\]", "", group)
        names += [n.strip() for n in group.split(",") if n.strip()]
    return names


def _block(src: str, start: int) -> str:
    """The text from `start`, just after an opening brace, to its closing brace."""
    i, depth = start, 1
    while depth:
        depth += {"{": 1, "}": -1}.get(src[i], 0)
        i += 1
    return src[start:i - 1]


LAYOUT = _names("binfmt-core")


def _kinds(format: str) -> set[str]:
    return set(_names(CRATES[format])) | set(LAYOUT)


def test_layout_names() -> None:
    assert LAYOUT == [
        "Truncated", "Overflow", "BadMagic", "VersionTooNew", "VersionTooOld", "Misaligned",
    ]


@pytest.mark.parametrize("format", sorted(CRATES))
def test_names_are_unique_and_layouts_delegate(format: str) -> None:
    names = _names(CRATES[format])
    assert len(names) > 10
    assert len(names) == len(set(names)), "two variants share a name"
    assert not set(names) & set(LAYOUT), "a format kind reuses a layout name"
    src = (ROOT / "crates" / CRATES[format] / "src" / "error.rs").read_text()
    # The table goes through `format_kind!`, whose `name` delegates `Layout` to core's.
    assert "binfmt_core::kind_table! {" in src
    core = (ROOT / "crates" / "binfmt-core" / "src" / "error.rs").read_text()
    assert "$kind::Layout(layout) => $crate::Kind::name(layout)," in core


def test_every_registered_kind_is_a_name_the_library_gives() -> None:
    registered = sorted(errors._BY_KIND)
    assert ("bloscpack", "ChunkDigestMismatch") in registered
    assert {f for f, _ in registered} >= {"kastore", "bloscpack"}
    for format, kind in registered:
        assert format in CRATES, format
        assert kind in _kinds(format), (format, kind)


def test_the_mapping_does_not_parse_debug_output() -> None:
    errors_rs = (ROOT / "crates" / "binfmt-python" / "src" / "errors.rs").read_text()
    assert "{:?}" not in errors_rs and "variant_name" not in errors_rs
    assert ".name()" in errors_rs


def test_kinds_reach_python() -> None:
    with pytest.raises(binfmt.FormatError) as info:
        bk.loads(b"\0" * 64)
    assert info.value.kind == "BadMagic" and info.value.format == "kastore"
    with pytest.raises(EOFError) as eof:
        bk.loads(b"")
    assert eof.value.kind == "Eof"
    packed = bytearray(ob.pack_bytes_to_bytes(b"abc" * 100, chunk_size=100))
    packed[-3] ^= 0xFF
    with pytest.raises(ob.ChecksumMismatch) as info2:
        ob.unpack_bytes_from_bytes(bytes(packed))
    assert info2.value.kind == "ChunkDigestMismatch"
    with pytest.raises(taco.TacoError) as info3:
        taco.read_header(b"PK\x03\x04")
    assert info3.value.kind == "Truncated"
    for raised in (info.value, eof.value, info2.value, info3.value):
        assert raised.kind in _kinds(raised.format), raised.kind
    arr = np.arange(3)
    assert bk.loads(bk.dumps({"a": arr}))["a"].tolist() == [0, 1, 2]
