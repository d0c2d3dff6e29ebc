"""Writes the MLDF interop fixtures with the independent Python implementation.

    python tools/mldf/gen_fixtures.py [OUT_DIR]   (default crates/mldf/tests/fixtures)

Deterministic: running it again gives the same bytes. Besides the .mldf files it writes
expected.json: for every valid fixture what the Python reader reports (header, fields,
every value), and for every invalid one the problem (named like the Rust error variant)
and its byte offset, as the Python reader finds it. The Rust tests compare against it.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import sys
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mldf_ref as m  # noqa: E402

GOLDEN_A = "0f2f1bbb6d63ecd017f777cef79576bfb08da2ffd0bad294ee70b0b3524a3ca4"
GOLDEN_B = "20d11b975cb1172547f3fd6f02920324176568ed971240a2da38e18c5813595f"


def png(width: int, height: int, colour: int, trns: bool = False) -> bytes:
    """A real, decodable 8-bit PNG of a gradient."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    rows = b"".join(b"\0" + bytes((x * 7 + y * 13 + c) % 256 for x in range(width) for c in range(channels))
                    for y in range(height))
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0))
    if colour == 3:
        out += chunk(b"PLTE", bytes(range(256)) * 3)
        if trns:
            out += chunk(b"tRNS", bytes([0, 128, 255]))
    return out + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def jpeg(width: int, height: int, components: int) -> bytes:
    """A baseline JPEG of a flat mid-grey image: one-code Huffman tables, every block DC
    difference 0 and end-of-block at once."""
    seg = lambda marker, body: b"\xff" + bytes([marker]) + struct.pack(">H", len(body) + 2) + body
    out = b"\xff\xd8" + seg(0xE0, b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0")
    out += seg(0xDB, b"\0" + bytes([1]) * 64)
    out += seg(0xC0, struct.pack(">BHHB", 8, height, width, components)
               + b"".join(bytes([i + 1, 0x11, 0]) for i in range(components)))
    one_code = bytes([1] + [0] * 15) + b"\0"
    out += seg(0xC4, b"\x00" + one_code) + seg(0xC4, b"\x10" + one_code)
    out += seg(0xDA, bytes([components]) + b"".join(bytes([i + 1, 0]) for i in range(components)) + b"\0\x3f\0")
    blocks = -(-width // 8) * -(-height // 8) * components
    bits = "00" * blocks
    bits += "1" * (-len(bits) % 8)
    out += bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))
    return out + b"\xff\xd9"


def valid(out: str) -> dict[str, dict]:
    files: dict[str, tuple] = {}
    two = [m.Field("label", m.INT), m.Field("text", m.TEXT_RAW)]
    golden = [{"label": 7, "text": "hi"}, {"label": -1, "text": "héllo"}]
    files["golden_a.mldf"] = (two, golden, dict(page_size=4096, num_samples=2))
    files["golden_b.mldf"] = (two, golden, dict(page_size=4096, num_samples=2, checksums=True))

    all_fields = [
        m.Field("label", m.INT),
        m.Field("score", m.FLOAT),
        m.Field("blob", m.BYTES, nullable=True),
        m.Field("meta", m.JSON),
        m.Field("embedding", m.NDARRAY, dtype=10, shape=(2, 3)),
        m.Field("mask", m.NDARRAY, dtype=13, shape=(4, 0, 2 ** 40)),
        m.Field("raw", m.IMAGE_RAW, nullable=True),
        m.Field("photo", m.IMAGE_JPEG, quality=90),
        m.Field("icon", m.IMAGE_PNG),
        m.Field("wave", m.AUDIO_WAVEFORM),
        m.Field("clip", m.AUDIO_COMPRESSED, nullable=True),
        m.Field("caption", m.TEXT_RAW),
        m.Field("tokens", m.TEXT_TOKENIZED, vocab_size=50257),
        m.Field("ÿ名前", m.BYTES),
    ]
    emb = lambda k: np.arange(6, dtype="<f4").tobytes() if k == 0 else (np.arange(6, dtype="<f4") * -0.5).tobytes()
    pcm16 = np.array([0, 1000, -1000, 32767, -32768, 5, 6, 7], dtype="<i2").tobytes()
    samples = [
        {"label": 0, "score": 0.5, "blob": b"\x00\x01\x02", "meta": '{"split": "train", "ok": true}',
         "embedding": emb(0), "mask": b"", "raw": m.Image(0, 2, 3, 3, bytes(range(18))),
         "photo": m.Image(1, data=jpeg(16, 8, 3)), "icon": m.Image(2, data=png(5, 4, 6)),
         "wave": m.Audio(0, 4, 16000, 2, 16, pcm16), "clip": m.Audio(1, 44100, 44100, 2, 16, b"fLaC\0\0\0\x22"),
         "caption": "a cat", "tokens": m.Tokens(4, [50256, 1, 70000, 0]), "ÿ名前": b"x"},
        {"label": -(2 ** 63), "score": float("-inf"), "blob": None, "meta": "[1, 2.5e-3, null]",
         "embedding": emb(1), "mask": b"", "raw": None,
         "photo": m.Image(2, data=png(3, 2, 3, trns=True)), "icon": m.Image(1, data=jpeg(9, 9, 1)),
         "wave": m.Audio(4, 2, 8000, 1, 32, np.array([0.25, -1.0], dtype="<f4").tobytes()),
         "clip": m.Audio(3, 0, 0, 0, 0, b"ID3\x04"), "caption": "", "tokens": m.Tokens(2, [5, 65535]),
         "ÿ名前": b""},
        {"label": 2 ** 63 - 1, "score": -0.0, "blob": b"", "meta": "",
         "embedding": b"", "mask": b"", "raw": m.Image(0, 0, 5, 3, b""),
         "photo": m.Image(1), "icon": m.Image(0, 1, 1, 4, b"\x01\x02\x03\x04"),
         "wave": m.Audio(0, 0, 22050, 1, 24, b""), "clip": m.Audio(2, 1024, 48000, 6, 0, b"\xff\xf1"),
         "caption": "日本語テキスト", "tokens": m.Tokens(4, []), "ÿ名前": b"\xff" * 3},
    ]
    files["all_types.mldf"] = (all_fields, samples, dict(page_size=4096, num_samples=3, checksums=True))
    files["all_types_streaming.mldf"] = (all_fields, samples, dict(page_size=8192))

    many = [m.Field("i", m.INT), m.Field("t", m.TEXT_TOKENIZED)]
    files["tokens_over_65535.mldf"] = (many, [{"i": 1, "t": m.Tokens(2, [k % 65536 for k in range(70000)])}],
                                       dict(page_size=4096, num_samples=1, checksums=True))
    files["empty_n0.mldf"] = (two, [], dict(page_size=4096, num_samples=0))
    files["empty_n0_streaming.mldf"] = (two, [], dict(page_size=4096))
    files["no_items.mldf"] = ([m.Field("x", m.INT), m.Field("y", m.FLOAT)],
                              [{"x": 1, "y": 2.0}, {"x": 2, "y": 0.1}], dict(page_size=4096, num_samples=2))
    files["no_items_streaming.mldf"] = ([m.Field("x", m.INT)], [{"x": 5}], dict(page_size=4096))
    files["no_fields.mldf"] = ([], [], dict(page_size=4096, num_samples=0))
    files["unknown_type.mldf"] = (
        [m.Field("future", 22, metadata_size=32), m.Field("label", m.INT),
         m.Field("nz", m.INT, raw_flags=0x1 | 0x8000)],
        [{"future": None, "label": 3, "nz": 0}], dict(page_size=4096, num_samples=1))
    newer = [m.Field("label", m.INT, metadata_size=16), m.Field("text", m.TEXT_RAW, metadata_size=24)]
    files["newer_minor.mldf"] = (newer, golden, dict(page_size=4096, num_samples=2, version=(1, 3)))

    out_files = {}
    for name, (fields, samples, kw) in files.items():
        path = os.path.join(out, name)
        if name == "unknown_type.mldf":
            write_unknown(path, fields, samples, kw)
        elif name == "newer_minor.mldf":
            write_newer(path, fields, samples, kw)
        else:
            m.write_file(path, fields, samples, **kw)
        out_files[name] = m.dump(path)
    # The seed writer's forms without payloads (§11): pointers at or past EOF.
    for name, n in (("seed_form_n1.mldf", 1), ("seed_form_n0.mldf", 0)):
        path = os.path.join(out, name)
        write_seed_form(path, n)
        out_files[name] = m.dump(path)
    digest = lambda n: hashlib.sha256(open(os.path.join(out, n), "rb").read()).hexdigest()
    assert digest("golden_a.mldf") == GOLDEN_A, "golden vector A"
    assert digest("golden_b.mldf") == GOLDEN_B, "golden vector B"
    return out_files


def write_unknown(path, fields, samples, kw):
    """A reserved type (22) cannot be written; write its field as BYTES-shaped bytes by hand."""
    w = m.Writer(path, [m.Field("future", m.BYTES, metadata_size=32)] + fields[1:], **kw)
    w.write({"future": b"", "label": 3, "nz": 0})
    # Give the reserved field's slot some content, as a newer writer would.
    w.rows[0] = b"\x01" * 8 + w.rows[0][8:32] + w.rows[0][32:]
    w.close()
    data = bytearray(open(path, "rb").read())
    data[73 + 64:73 + 66] = struct.pack("<H", 22)
    open(path, "wb").write(data)


def write_newer(path, fields, samples, kw):
    """Version 1.3 with longer slots for known types; the tails carry non-zero bytes."""
    w = m.Writer(path, fields, **kw)
    for s in samples:
        w.write(s)
    w.rows = [r[:8] + b"\xee" * 8 + r[16:32] + b"\xdd" * 8 for r in w.rows]
    w.close()


def write_seed_form(path: str, n: int) -> None:
    descs = np.zeros(1, dtype=m.DESC)
    descs[0]["name"], descs[0]["type_id"], descs[0]["metadata_size"] = b"label", m.INT, 8
    h = np.zeros(1, dtype=m.HEADER)[0]
    h["version_major"], h["flags"], h["num_samples"], h["num_fields"] = 1, 1, n, 1
    h["page_size"], h["field_desc_ptr"], h["metadata_ptr"] = 2 ** 21, 73, 320
    h["data_ptr"] = h["alloc_table_ptr"] = 2 ** 21
    body = m.MAGIC + h.tobytes() + descs.tobytes()
    if n:
        body = body.ljust(320, b"\0") + struct.pack("<q", 42) * n
    open(path, "wb").write(body)


def invalid(out: str) -> list[dict]:
    a = bytearray(open(os.path.join(out, "golden_a.mldf"), "rb").read())
    b = bytearray(open(os.path.join(out, "golden_b.mldf"), "rb").read())
    cases = []

    def case(name, data, stage, code, offset):
        path = os.path.join(out, "invalid", name)
        open(path, "wb").write(bytes(data))
        found = python_problem(bytes(data), stage)
        assert found == (code, offset), f"{name}: the Python reader says {found}, expected {(code, offset)}"
        cases.append({"file": "invalid/" + name, "stage": stage, "error": code, "offset": offset})

    def patched(base, at, new):
        d = bytearray(base)
        d[at:at + len(new)] = new
        return d

    case("truncated_header.mldf", a[:60], "open", "Truncated", 0)
    case("bad_magic.mldf", patched(a, 1, b"MLDX"), "open", "BadMagic", 0)
    case("incomplete.mldf", patched(a, 9, bytes(64)), "open", "Incomplete", 9)
    case("version_2.mldf", patched(a, 9, b"\x02\x00"), "open", "VersionTooNew", 9)
    case("version_0.mldf", patched(a, 9, b"\x00\x00"), "open", "VersionTooOld", 9)
    case("big_endian.mldf", patched(a, 13, b"\x00"), "open", "NotLittleEndian", 13)
    case("compressed.mldf", patched(a, 13, b"\x03"), "open", "UnsupportedFlags", 13)
    case("page_size.mldf", patched(a, 29, struct.pack("<I", 6000)), "open", "BadPageSize", 29)
    case("header_crc.mldf", patched(b, 27, b"\x01"), "open", "HeaderChecksum", 69)
    case("index_crc.mldf", patched(b, 512, b"\x08"), "open", "IndexChecksum", 65)
    case("item_crc.mldf", patched(b, 4096, b"H"), "access", "ItemChecksum", 4096)
    case("no_fields.mldf", patched(a, 25, b"\x00"), "open", "NoFields", 17)
    case("empty_name.mldf", patched(a, 73, b"\x00"), "open", "EmptyName", 73)
    case("unterminated_name.mldf", patched(a, 281, b"t" * 64), "open", "UnterminatedName", 281)
    case("name_not_utf8.mldf", patched(a, 281, b"\xff"), "open", "NameNotUtf8", 281)
    case("duplicate_name.mldf", patched(a, 281, b"label\0"), "open", "DuplicateName", 281)
    case("metadata_size_12.mldf", patched(a, 141, b"\x0c"), "open", "BadMetadataSize", 141)
    case("metadata_size_16.mldf", patched(a, 141, b"\x10"), "open", "WrongMetadataSize", 141)
    case("desc_ptr_low.mldf", patched(a, 33, b"\x08"), "open", "PointerBeforeHeader", 33)
    case("alloc_ragged.mldf", a + b"\0", "open", "AllocTableLength", 4104)
    case("alloc_past_end.mldf", patched(a, 57, struct.pack("<Q", 5000)), "open", "AllocTablePastEnd", 57)
    case("data_after_alloc.mldf", patched(a, 49, struct.pack("<Q", 4112)), "open", "DataAfterAllocTable", 49)
    case("metadata_past_end.mldf", patched(a, 41, struct.pack("<Q", 4090)), "open", "SectionPastEnd", 41)
    case("overlap.mldf", patched(a, 41, struct.pack("<Q", 200)), "open", "SectionsOverlap", 200)
    case("text_encoding.mldf", patched(a, 534, b"\x03"), "access", "BadValue:TextEncoding", 520)
    case("text_not_utf8.mldf", patched(a, 4098, b"\xff"), "access", "BadValue:NotUtf8", 544)
    case("utf8_tokens.mldf", patched(a, 532, b"\x01"), "access", "BadValue:Utf8TokenCount", 520)
    case("ptr_without_size.mldf", patched(a, 528, b"\x00"), "access", "BadValue:PointerSizeMismatch", 520)
    case("item_outside.mldf", patched(a, 552, b"\x07"), "access", "ItemOutsideData", 544)
    case("alloc_order.mldf", patched(a, 4120, struct.pack("<Q", 4096)), "verify", "AllocEntryOrder", 4120)
    case("unreferenced_item.mldf", patched(a, 544, struct.pack("<Q", 0) + b"\0\0\0\0"), "verify",
         "UnreferencedItem", 4120)
    case("alloc_size.mldf", patched(a, 4128, b"\x05"), "verify", "AllocSizeMismatch", 544)
    nd = bytearray(a)
    nd[137:139] = struct.pack("<H", m.NDARRAY)
    nd[141:145] = struct.pack("<I", 16)
    case("ndarray_dtype.mldf", patched(nd, 149, b"\x0e"), "open", "NdarrayDtype", 149)
    case("ndarray_rank.mldf", patched(nd, 149, b"\x01\x10"), "open", "NdarrayRank", 150)
    case("ndarray_too_large.mldf", patched(nd, 149, b"\x0b\x02" + bytes(6) + struct.pack("<QQ", 2 ** 31, 2)),
         "open", "NdarrayTooLarge", 157)
    return cases


def python_problem(data: bytes, stage: str):
    """The first problem the Python reader finds at `stage`."""
    try:
        r = m.Reader(data)
    except m.MldfError as e:
        return (e.code, e.offset) if stage == "open" else ("opened-failed", e.code)
    if stage == "open":
        return ("opened", None)
    if stage == "access":
        for i in range(r.num_samples):
            for f in range(len(r.fields)):
                try:
                    r.value(i, f)
                except m.MldfError as e:
                    return (e.code, e.offset)
        return ("no access error", None)
    problems = r.verify()
    return (problems[0].code, problems[0].offset) if problems else ("valid", None)


def main() -> None:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "crates", "mldf", "tests", "fixtures")
    os.makedirs(os.path.join(out, "invalid"), exist_ok=True)
    expected = {"valid": valid(out), "invalid": invalid(out)}
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {len(expected['valid'])} valid and {len(expected['invalid'])} invalid fixtures to {out}")


if __name__ == "__main__":
    main()
