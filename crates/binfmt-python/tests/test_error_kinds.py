"""The exception mapping uses a stable kind name per library error variant
(crates/binfmt-python/src/kinds.rs), not the variants' Debug output; every variant of the
libraries' error kinds is named there (a missing one would reach Python as "Other")."""

from __future__ import annotations

import re

import numpy as np
import pytest

import binfmt
import binfmt.bloscpack as ob
import binfmt.kastore as bk
import binfmt.taco as taco
from helpers import ROOT

KINDS_RS = (ROOT / "crates" / "binfmt-python" / "src" / "kinds.rs").read_text()
ENUMS = {
    "kastore::ErrorKind": ("kastore", "ErrorKind"),
    "bloscpack_header::ErrorKind": ("bloscpack-header", "ErrorKind"),
    "taco_header::ErrorKind": ("taco-header", "ErrorKind"),
    "taridx::ErrorKind": ("taridx", "ErrorKind"),
    "mldf::ErrorKind": ("mldf", "ErrorKind"),
    "binfmt_core::Layout": ("binfmt-core", "Layout"),
}


def _variants(crate: str, enum: str) -> list[str]:
    src = (ROOT / "crates" / crate / "src" / "error.rs").read_text()
    m = re.search(r"pub enum " + enum + r"\s*\{", src)
    assert m, (crate, enum)
    i, depth = m.end(), 1
    while depth:
        depth += {"{": 1, "}": -1}.get(src[i], 0)
        i += 1
    body = src[m.end():i - 1]
    return re.findall(r"^    ([A-Z]\w*)\s*(?:\{|\(|,|$)", body, re.M)


@pytest.mark.parametrize("path", sorted(ENUMS))
def test_every_variant_has_a_stable_name(path: str) -> None:
    crate, enum = ENUMS[path]
    variants = _variants(crate, enum)
    assert variants
    for v in variants:
        if v == "Layout" and path != "binfmt_core::Layout":
            assert f"{path}::Layout(layout) => layout.kind_name()" in KINDS_RS
        else:
            pattern = re.escape(f"{path}::{v}") + r"\b[^=]*=>\s*\{?\s*\"" + v + '"'
            assert re.search(pattern, KINDS_RS), v


def test_the_mapping_does_not_parse_debug_output() -> None:
    errors_rs = (ROOT / "crates" / "binfmt-python" / "src" / "errors.rs").read_text()
    assert "{:?}" not in errors_rs and "variant_name" not in errors_rs
    assert "kind_name()" in errors_rs


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
    arr = np.arange(3)
    assert bk.loads(bk.dumps({"a": arr}))["a"].tolist() == [0, 1, 2]
