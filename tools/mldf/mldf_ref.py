"""An independent MLDF v1.0 writer and reader in Python (numpy), written from the
decision record (shared reference mldf.md), not from the Rust crate.

It exists to prove the record unambiguous: files it writes are read by the Rust crate,
and files the Rust crate writes are read and fully verified by it.

    python mldf_ref.py dump FILE      # verify FILE completely and print its values as JSON

Values are plain Python objects:
    INT int, FLOAT float, BYTES/NDARRAY bytes, JSON str (JSON text),
    IMAGE Image(mode, height, width, channels, data), AUDIO Audio(...),
    TEXT str (UTF-8) or Tokens(width, ids), None for null.
"""

from __future__ import annotations

import json
import os
import struct
import sys
import zlib
from dataclasses import dataclass, field as dc_field
from typing import Any

import numpy as np

MAGIC = b"\x89MLDF\r\n\x1a\n"
FLAG_LE, FLAG_COMPRESSED, FLAG_CHECKSUMMED, FLAG_ENCRYPTED = 0x1, 0x2, 0x4, 0x8
NULLABLE = 0x1

HEADER = np.dtype([
    ("version_major", "<u2"), ("version_minor", "<u2"), ("flags", "<u4"),
    ("num_samples", "<u8"), ("num_fields", "<u2"), ("_pad1", "<u2"), ("page_size", "<u4"),
    ("field_desc_ptr", "<u8"), ("metadata_ptr", "<u8"), ("data_ptr", "<u8"),
    ("alloc_table_ptr", "<u8"), ("index_crc", "<u4"), ("header_crc", "<u4"),
])
DESC = np.dtype([
    ("name", "S64"), ("type_id", "<u2"), ("flags", "<u2"), ("metadata_size", "<u4"),
    ("_pad", "<u4"), ("arguments", "u1", (128,)), ("reserved", "u1", (4,)),
])
ALLOC = np.dtype([("ptr", "<u8"), ("size", "<u4"), ("crc", "<u4")])
BYTES_META = np.dtype([("data_ptr", "<u8"), ("data_size", "<u4"), ("_pad", "<u4")])
IMAGE_META = np.dtype([
    ("data_ptr", "<u8"), ("data_size", "<u4"), ("height", "<u2"), ("width", "<u2"),
    ("channels", "u1"), ("mode", "u1"), ("_pad", "<u2"), ("reserved", "u1", (4,)),
])
AUDIO_META = np.dtype([
    ("data_ptr", "<u8"), ("data_size", "<u4"), ("num_samples", "<u4"), ("sample_rate", "<u4"),
    ("num_channels", "<u2"), ("bit_depth", "u1"), ("codec", "u1"),
])
TEXT_META = np.dtype([
    ("data_ptr", "<u8"), ("data_size", "<u4"), ("num_tokens", "<u2"), ("encoding", "u1"),
    ("_pad", "u1"),
])
assert (HEADER.itemsize, DESC.itemsize, ALLOC.itemsize) == (64, 208, 16)
assert (BYTES_META.itemsize, IMAGE_META.itemsize, AUDIO_META.itemsize, TEXT_META.itemsize) == (16, 24, 24, 16)

INT, FLOAT, BYTES, NDARRAY, JSON = 1, 2, 3, 4, 5
IMAGE_RAW, IMAGE_JPEG, IMAGE_PNG = 10, 11, 12
AUDIO_WAVEFORM, AUDIO_COMPRESSED = 20, 21
TEXT_RAW, TEXT_TOKENIZED = 40, 41
SIZES = {INT: 8, FLOAT: 8, BYTES: 16, NDARRAY: 16, JSON: 16, IMAGE_RAW: 24, IMAGE_JPEG: 24,
         IMAGE_PNG: 24, AUDIO_WAVEFORM: 24, AUDIO_COMPRESSED: 24, TEXT_RAW: 16, TEXT_TOKENIZED: 16}
RESERVED = {22, 23, 30, 31, 32, 42, 43, 50}
META = {BYTES: BYTES_META, NDARRAY: BYTES_META, JSON: BYTES_META, IMAGE_RAW: IMAGE_META,
        IMAGE_JPEG: IMAGE_META, IMAGE_PNG: IMAGE_META, AUDIO_WAVEFORM: AUDIO_META,
        AUDIO_COMPRESSED: AUDIO_META, TEXT_RAW: TEXT_META, TEXT_TOKENIZED: TEXT_META}
DTYPES = {1: "u1", 2: "i1", 3: "<u2", 4: "<i2", 5: "<u4", 6: "<i4", 7: "<u8", 8: "<i8",
          9: "<f2", 10: "<f4", 11: "<f8", 12: "<u2", 13: "u1"}
ITEMSIZE = {code: np.dtype(d).itemsize for code, d in DTYPES.items()}


def crc(data: bytes) -> int:
    return zlib.crc32(data) & 0xFFFFFFFF


def align(x: int, a: int) -> int:
    return -(-x // a) * a


class MldfError(Exception):
    """A problem, named like the Rust crate's error variant, with its byte offset."""

    def __init__(self, code: str, offset: int | None, message: str):
        super().__init__(f"{code} at byte {offset}: {message}")
        self.code, self.offset = code, offset


@dataclass
class Image:
    mode: int
    height: int = 0
    width: int = 0
    channels: int = 0
    data: bytes = b""


@dataclass
class Audio:
    codec: int
    num_samples: int = 0
    sample_rate: int = 0
    num_channels: int = 0
    bit_depth: int = 0
    data: bytes = b""


@dataclass
class Tokens:
    width: int  # 4 or 2
    ids: list = dc_field(default_factory=list)


@dataclass
class Field:
    name: str
    type_id: int
    nullable: bool = False
    dtype: int = 0          # NDARRAY
    shape: tuple = ()       # NDARRAY
    quality: int = 0        # IMAGE_JPEG
    vocab_size: int = 0     # TEXT_TOKENIZED
    # Escape hatches for fixtures the v1.0 writer rules forbid (unknown types, newer minor).
    metadata_size: int | None = None
    raw_flags: int | None = None

    def arguments(self) -> bytes:
        args = bytearray(128)
        if self.type_id == NDARRAY:
            args[0], args[1] = self.dtype, len(self.shape)
            for k, d in enumerate(self.shape):
                args[8 + 8 * k: 16 + 8 * k] = struct.pack("<Q", d)
        elif self.type_id == IMAGE_JPEG:
            args[0] = self.quality
        elif self.type_id == TEXT_TOKENIZED:
            args[0:4] = struct.pack("<I", self.vocab_size)
        return bytes(args)


# --------------------------------------------------------------------------- images

def png_header(data: bytes) -> tuple[int, int, int]:
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR" or len(data) < 33:
        raise ValueError("not a PNG with an IHDR chunk")
    width, height = struct.unpack(">II", data[16:24])
    colour = data[25]
    if colour == 3:
        at, channels = 33, 3
        while True:
            if at + 8 > len(data):
                raise ValueError("PNG truncated before IDAT")
            (length,) = struct.unpack(">I", data[at:at + 4])
            kind = data[at + 4:at + 8]
            if kind == b"tRNS":
                channels = 4
                break
            if kind in (b"IDAT", b"IEND"):
                break
            at += 12 + length
    else:
        channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    return height, width, channels


SOF = set(range(0xC0, 0xC4)) | set(range(0xC5, 0xC8)) | set(range(0xC9, 0xCC)) | set(range(0xCD, 0xD0))


def jpeg_header(data: bytes) -> tuple[int, int, int]:
    if data[:2] != b"\xff\xd8":
        raise ValueError("no SOI")
    at = 2
    while True:
        if at >= len(data) or data[at] != 0xFF:
            raise ValueError("expected a marker")
        while at < len(data) and data[at] == 0xFF:
            at += 1
        marker = data[at]
        at += 1
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:
            continue
        if marker in (0xD9, 0xDA):
            raise ValueError("no frame header before the scan")
        (length,) = struct.unpack(">H", data[at:at + 2])
        if marker in SOF:
            _p, y, x, nf = struct.unpack(">BHHB", data[at + 2:at + 8])
            if not 1 <= nf <= 4:
                raise ValueError(f"{nf} components")
            return y, x, nf
        at += length


# --------------------------------------------------------------------------- writer

class Writer:
    """Streaming writer. Canonical layout when num_samples is given, streaming otherwise.
    Payloads are written as samples arrive; rows and allocation entries stay in memory."""

    def __init__(self, path: str, fields: list[Field], *, page_size: int = 2 * 1024 * 1024,
                 checksums: bool = False, num_samples: int | None = None,
                 version: tuple[int, int] = (1, 0)):
        if page_size < 4096 or page_size & (page_size - 1) or page_size > 2 ** 31:
            raise ValueError("page_size")
        names = [f.name.encode("utf-8") for f in fields]
        if len(set(names)) != len(names) or any(not 0 < len(n) <= 63 or b"\0" in n for n in names):
            raise ValueError("field names")
        for f in fields:
            if f.metadata_size is None and f.type_id not in SIZES:
                raise ValueError(f"type {f.type_id} cannot be written")
            if f.nullable and f.type_id in (INT, FLOAT):
                raise ValueError("INT/FLOAT cannot be NULLABLE")
            if f.type_id == NDARRAY:
                if f.dtype not in DTYPES or len(f.shape) > 15 or self._nd_size(f) > 0xFFFFFFFF:
                    raise ValueError("ndarray")
        self.path, self.fields, self.page_size = path, fields, page_size
        self.checksums, self.declared, self.version = checksums, num_samples, version
        self.sizes = [f.metadata_size or SIZES[f.type_id] for f in fields]
        self.row_size = sum(self.sizes)
        descs = np.zeros(len(fields), dtype=DESC)
        for i, f in enumerate(fields):
            descs[i]["name"] = names[i]
            descs[i]["type_id"] = f.type_id
            descs[i]["flags"] = f.raw_flags if f.raw_flags is not None else (NULLABLE if f.nullable else 0)
            descs[i]["metadata_size"] = self.sizes[i]
            descs[i]["arguments"] = np.frombuffer(f.arguments(), dtype="u1")
        self.desc_bytes = descs.tobytes()
        desc_end = 73 + len(self.desc_bytes)
        if num_samples is not None:
            if num_samples and not fields:
                raise ValueError("samples without fields")
            self.metadata_ptr = align(desc_end, 64)
            self.data_ptr = align(self.metadata_ptr + num_samples * self.row_size, page_size)
        else:
            self.metadata_ptr = None
            self.data_ptr = align(desc_end, page_size)
        self.tmp = path + ".tmp"
        self.f = open(self.tmp, "wb")
        self.f.write(MAGIC + bytes(64) + self.desc_bytes)
        self.f.seek(self.data_ptr)
        self.pos = self.data_ptr
        self.rows: list[bytes] = []
        self.alloc: list[tuple[int, int, int]] = []

    @staticmethod
    def _nd_size(f: Field) -> int:
        n = ITEMSIZE[f.dtype]
        for d in f.shape:
            n *= d
        return n

    def _encode(self, f: Field, size: int, v: Any) -> tuple[bytes, bytes]:
        """(slot with data_ptr 0, payload) for one value; raises ValueError when refused."""
        t = f.type_id
        if v is None:
            if not f.nullable or t in (INT, FLOAT):
                raise ValueError(f"{f.name}: missing value")
            return bytes(size), b""
        if t == INT:
            return struct.pack("<q", v).ljust(size, b"\0"), b""
        if t == FLOAT:
            return struct.pack("<d", float(v)).ljust(size, b"\0"), b""
        meta = np.zeros(1, dtype=META.get(t, BYTES_META))[0]
        if t in (BYTES, NDARRAY):
            payload = bytes(v)
            if t == NDARRAY and len(payload) not in (0, self._nd_size(f)):
                raise ValueError("ndarray size")
        elif t == JSON:
            payload = v.encode("utf-8")
            if payload:
                # RFC 8259 only: Python's NaN/Infinity extensions are refused.
                json.loads(v, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
        elif t in (IMAGE_RAW, IMAGE_JPEG, IMAGE_PNG):
            payload = v.data
            if v.mode == 0:
                h, w, c = v.height, v.width, v.channels
                if c not in (1, 3, 4) or h * w * c != len(payload):
                    raise ValueError("raw image")
            elif not payload:
                h = w = c = 0
            else:
                h, w, c = (jpeg_header if v.mode == 1 else png_header)(payload)
                if h > 65535 or w > 65535:
                    raise ValueError("image too large")
            meta["height"], meta["width"], meta["channels"], meta["mode"] = h, w, c, v.mode
        elif t in (AUDIO_WAVEFORM, AUDIO_COMPRESSED):
            payload = v.data
            if (v.codec in (0, 4)) != (t == AUDIO_WAVEFORM) or v.codec > 4:
                raise ValueError("codec family")
            if v.codec in (0, 4):
                ok = v.bit_depth in (8, 16, 24, 32) if v.codec == 0 else v.bit_depth == 32
                if not ok or v.num_samples * v.num_channels * (v.bit_depth // 8) != len(payload):
                    raise ValueError("pcm")
            for k in ("num_samples", "sample_rate", "num_channels", "bit_depth", "codec"):
                meta[k] = getattr(v, k)
        elif t in (TEXT_RAW, TEXT_TOKENIZED):
            if isinstance(v, str):
                if t != TEXT_RAW:
                    raise ValueError("TEXT_TOKENIZED takes token ids")
                payload = v.encode("utf-8")
            else:
                if t != TEXT_TOKENIZED:
                    raise ValueError("TEXT_RAW takes text")
                payload = np.asarray(v.ids, dtype="<u4" if v.width == 4 else "<u2").tobytes()
                meta["encoding"] = 1 if v.width == 4 else 2
                meta["num_tokens"] = min(len(v.ids), 0xFFFF)
        else:
            raise ValueError("type")
        if len(payload) > 0xFFFFFFFF:
            raise ValueError("payload too large")
        meta["data_size"] = len(payload)
        return meta.tobytes().ljust(size, b"\0"), payload

    def write(self, sample: dict) -> None:
        if not self.fields:
            raise ValueError("samples without fields")
        unknown = set(sample) - {f.name for f in self.fields}
        if unknown:
            raise ValueError(f"unknown keys {unknown}")
        if self.declared is not None and len(self.rows) >= self.declared:
            raise ValueError("more samples than declared")
        encoded = [self._encode(f, s, sample.get(f.name)) for f, s in zip(self.fields, self.sizes)]
        row = bytearray()
        for slot, payload in encoded:
            slot = bytearray(slot)
            if payload:
                slot[0:8] = struct.pack("<Q", self.pos)
                self.f.write(payload)
                self.alloc.append((self.pos, len(payload), crc(payload) if self.checksums else 0))
                self.pos += len(payload)
            row += slot
        self.rows.append(bytes(row))

    def close(self) -> None:
        n = len(self.rows)
        if self.declared is not None and n != self.declared:
            raise ValueError("fewer samples than declared")
        rows = b"".join(self.rows)
        alloc = np.array(self.alloc, dtype=ALLOC).tobytes()
        if self.metadata_ptr is None:
            self.metadata_ptr = align(self.pos, 64)
            self.f.seek(self.metadata_ptr)
            self.f.write(rows)
            alloc_ptr = self.metadata_ptr + len(rows)
        else:
            alloc_ptr = self.pos
            self.f.seek(self.metadata_ptr)
            self.f.write(rows)
        self.f.seek(alloc_ptr)
        self.f.write(alloc)
        self.f.truncate(alloc_ptr + len(alloc))
        h = np.zeros(1, dtype=HEADER)[0]
        h["version_major"], h["version_minor"] = self.version
        h["flags"] = FLAG_LE | (FLAG_CHECKSUMMED if self.checksums else 0)
        h["num_samples"], h["num_fields"], h["page_size"] = n, len(self.fields), self.page_size
        h["field_desc_ptr"], h["metadata_ptr"] = 73, self.metadata_ptr
        h["data_ptr"], h["alloc_table_ptr"] = self.data_ptr, alloc_ptr
        if self.checksums:
            h["index_crc"] = crc(self.desc_bytes + rows + alloc)
            h["header_crc"] = crc(MAGIC + h.tobytes()[:60])
        self.f.seek(9)
        self.f.write(h.tobytes())
        self.f.flush()
        os.fsync(self.f.fileno())
        self.f.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        self.f.close()
        os.remove(self.tmp)


def write_file(path: str, fields: list[Field], samples: list[dict], **kw) -> None:
    w = Writer(path, fields, **kw)
    try:
        for s in samples:
            w.write(s)
        w.close()
    except BaseException:
        w.abort()
        raise


# --------------------------------------------------------------------------- reader

class Reader:
    """Opens a file with the full open checklist; `value(i, f)` applies the access rules;
    `verify()` runs whole-file verification and returns every problem."""

    def __init__(self, data: bytes, *, check_crcs: bool = True):
        self.data = data
        size = len(data)
        if size < 73:
            raise MldfError("Truncated", 0, "shorter than magic + header")
        if data[:9] != MAGIC:
            raise MldfError("BadMagic", 0, "not an MLDF file")
        if data[9:73] == bytes(64):
            raise MldfError("Incomplete", 9, "all-zero header")
        h = np.frombuffer(data, dtype=HEADER, count=1, offset=9)[0]
        self.h = {k: int(h[k]) for k in HEADER.names}
        major, minor = self.h["version_major"], self.h["version_minor"]
        if major > 1:
            raise MldfError("VersionTooNew", 9, f"{major}.{minor}")
        if major < 1:
            raise MldfError("VersionTooOld", 9, f"{major}.{minor}")
        self.newer = minor > 0
        flags = self.h["flags"]
        if not flags & FLAG_LE:
            raise MldfError("NotLittleEndian", 13, hex(flags))
        if flags & 0xFFFF & ~(FLAG_LE | FLAG_CHECKSUMMED):
            raise MldfError("UnsupportedFlags", 13, hex(flags))
        ps = self.h["page_size"]
        if ps < 4096 or ps & (ps - 1):
            raise MldfError("BadPageSize", 29, str(ps))
        self.checksummed = bool(flags & FLAG_CHECKSUMMED)
        if self.checksummed and check_crcs and crc(data[:69]) != self.h["header_crc"]:
            raise MldfError("HeaderChecksum", 69, "header CRC")
        F, N = self.h["num_fields"], self.h["num_samples"]
        if F == 0 and N > 0:
            raise MldfError("NoFields", 17, f"N={N}")
        fdp = self.h["field_desc_ptr"]
        self.fields = []
        self.offsets = []
        row = 0
        if F:
            if fdp < 73:
                raise MldfError("PointerBeforeHeader", 33, str(fdp))
            if fdp + 208 * F > size:
                raise MldfError("Truncated", fdp, "descriptors past EOF")
            descs = np.frombuffer(data, dtype=DESC, count=F, offset=fdp)
            names = {}
            for i, d in enumerate(descs):
                at = fdp + 208 * i
                raw = bytes(data[at:at + 64])
                if b"\0" not in raw:
                    raise MldfError("UnterminatedName", at, "no NUL")
                nb = raw[:raw.index(b"\0")]
                if not nb:
                    raise MldfError("EmptyName", at, "empty name")
                try:
                    name = nb.decode("utf-8")
                except UnicodeDecodeError:
                    raise MldfError("NameNotUtf8", at, "name") from None
                if nb in names:
                    raise MldfError("DuplicateName", at, name)
                names[nb] = i
                t, ms = int(d["type_id"]), int(d["metadata_size"])
                if ms == 0 or ms % 8:
                    raise MldfError("BadMetadataSize", at + 68, str(ms))
                if t in SIZES and (ms < SIZES[t] if self.newer else ms != SIZES[t]):
                    raise MldfError("WrongMetadataSize", at + 68, f"{t}: {ms}")
                f = Field(name, t, nullable=bool(d["flags"] & NULLABLE) and t in META,
                          metadata_size=ms, raw_flags=int(d["flags"]))
                args = bytes(d["arguments"])
                if t == NDARRAY:
                    if args[0] not in DTYPES:
                        raise MldfError("NdarrayDtype", at + 76, str(args[0]))
                    if args[1] > 15:
                        raise MldfError("NdarrayRank", at + 77, str(args[1]))
                    f.dtype = args[0]
                    f.shape = tuple(struct.unpack_from("<Q", args, 8 + 8 * k)[0] for k in range(args[1]))
                    if Writer._nd_size(f) > 0xFFFFFFFF:
                        raise MldfError("NdarrayTooLarge", at + 84, str(f.shape))
                elif t == IMAGE_JPEG:
                    f.quality = args[0]
                elif t == TEXT_TOKENIZED:
                    f.vocab_size = struct.unpack_from("<I", args)[0]
                self.fields.append(f)
                self.offsets.append(row)
                row += ms
        self.row_size = row
        # sections
        dp, ap, mp = self.h["data_ptr"], self.h["alloc_table_ptr"], self.h["metadata_ptr"]
        for ptr, name, at in ((dp, "data", 49), (ap, "alloc", 57)):
            if ptr < 73:
                raise MldfError("PointerBeforeHeader", at, name)
        if dp > ap:
            raise MldfError("DataAfterAllocTable", 49, f"{dp} > {ap}")
        if ap == dp and dp >= size:
            alloc_len = 0  # the seed writer's form without payloads
        else:
            if ap > size:
                raise MldfError("AllocTablePastEnd", 57, str(ap))
            alloc_len = size - ap
            if alloc_len % 16:
                raise MldfError("AllocTableLength", ap, str(alloc_len))
        limit = min(ap, size)
        secs = []
        for name, start, length, at in (("field descriptors", fdp, 208 * F, 33),
                                        ("metadata table", mp, N * row, 41)):
            if length == 0:
                continue
            if start < 73:
                raise MldfError("PointerBeforeHeader", at, name)
            if start + length > limit:
                raise MldfError("SectionPastEnd", at, name)
            secs.append((start, start + length))
        self.data_end = min([ap] + [s for s, _ in secs if s >= dp])
        self.data_start = dp
        if self.data_end > dp:
            secs.append((dp, self.data_end))
        if alloc_len:
            secs.append((ap, size))
        for i, a in enumerate(secs):
            for b in secs[i + 1:]:
                if a[0] < b[1] and b[0] < a[1]:
                    raise MldfError("SectionsOverlap", max(a[0], b[0]), "sections overlap")
        self.metadata = data[mp:mp + N * row] if N * row else b""
        self.alloc = np.frombuffer(data, dtype=ALLOC, count=alloc_len // 16, offset=ap) if alloc_len else np.zeros(0, ALLOC)
        self.alloc_ptr = ap
        self.index_bytes = (data[fdp:fdp + 208 * F] if F else b"") + self.metadata + (data[ap:size] if alloc_len else b"")
        if self.checksummed and check_crcs:
            if crc(self.index_bytes) != self.h["index_crc"]:
                raise MldfError("IndexChecksum", 65, "index CRC")
            for p in self.alloc_problems():
                raise p
        self.check_crcs = check_crcs
        self.ptrs = {int(e["ptr"]): i for i, e in enumerate(self.alloc)}

    def alloc_problems(self) -> list[MldfError]:
        out, prev_end = [], None
        for i, e in enumerate(self.alloc):
            at, p, s = self.alloc_ptr + 16 * i, int(e["ptr"]), int(e["size"])
            if s == 0:
                out.append(MldfError("AllocEntryEmpty", at, str(i)))
            if prev_end is not None and p < prev_end:
                out.append(MldfError("AllocEntryOrder", at, str(i)))
            if p < self.data_start or p + s > self.data_end:
                out.append(MldfError("AllocEntryOutsideData", at, str(i)))
            prev_end = max(p + s, p + 1)
        return out

    @property
    def num_samples(self) -> int:
        return self.h["num_samples"]

    def slot(self, i: int, f: int) -> tuple[bytes, int]:
        start = i * self.row_size + self.offsets[f]
        return bytes(self.metadata[start:start + self.fields[f].metadata_size]), self.h["metadata_ptr"] + start

    def value(self, i: int, fi: int, *, check_crc: bool | None = None) -> Any:
        f = self.fields[fi]
        slot, at = self.slot(i, fi)
        t = f.type_id
        if t == INT:
            return struct.unpack_from("<q", slot)[0]
        if t == FLOAT:
            return struct.unpack_from("<d", slot)[0]
        if t not in META:
            return ("unknown", slot)
        if slot == bytes(len(slot)):
            if f.nullable:
                return None
            return {BYTES: b"", NDARRAY: b"", JSON: "", TEXT_RAW: "", TEXT_TOKENIZED: ""}.get(
                t, Image(0) if t in (IMAGE_RAW, IMAGE_JPEG, IMAGE_PNG) else Audio(0))

        def bad(problem: str) -> MldfError:
            return MldfError("BadValue:" + problem, at, f"sample {i} field {fi}")

        m = np.frombuffer(slot, dtype=META[t], count=1)[0]
        ptr, size = int(m["data_ptr"]), int(m["data_size"])
        if (ptr == 0) != (size == 0):
            raise bad("PointerSizeMismatch")
        if size and (ptr < self.data_start or ptr + size > self.data_end):
            raise MldfError("ItemOutsideData", at, f"{ptr}+{size}")
        payload = bytes(self.data[ptr:ptr + size])
        if t in (BYTES,):
            v = payload
        elif t == NDARRAY:
            if size not in (0, Writer._nd_size(f)):
                raise bad("NdarraySize")
            v = payload
        elif t == JSON:
            try:
                v = payload.decode("utf-8")
            except UnicodeDecodeError:
                raise bad("NotUtf8") from None
        elif t in (IMAGE_RAW, IMAGE_JPEG, IMAGE_PNG):
            mode, h, w, c = int(m["mode"]), int(m["height"]), int(m["width"]), int(m["channels"])
            if mode not in (0, 1, 2):
                raise bad("ImageMode")
            if mode == 0:
                if c not in (1, 3, 4):
                    raise bad("RawImageChannels")
                if h * w * c != size:
                    raise bad("RawImageSize")
            elif size and not 1 <= c <= 4:
                raise bad("ImageChannels")
            v = Image(mode, h, w, c, payload)
        elif t in (AUDIO_WAVEFORM, AUDIO_COMPRESSED):
            codec, bd = int(m["codec"]), int(m["bit_depth"])
            if codec > 4:
                raise bad("AudioCodec")
            if (codec in (0, 4)) != (t == AUDIO_WAVEFORM):
                raise bad("AudioCodecFamily")
            frames, ch = int(m["num_samples"]), int(m["num_channels"])
            if codec == 0 and bd not in (8, 16, 24, 32) or codec == 4 and bd != 32:
                raise bad("BitDepth")
            if codec in (0, 4) and frames * ch * (bd // 8) != size:
                raise bad("PcmSize")
            v = Audio(codec, frames, int(m["sample_rate"]), ch, bd, payload)
        else:
            enc, nt = int(m["encoding"]), int(m["num_tokens"])
            if enc == 0:
                if nt:
                    raise bad("Utf8TokenCount")
                try:
                    v = payload.decode("utf-8")
                except UnicodeDecodeError:
                    raise bad("NotUtf8") from None
            elif enc in (1, 2):
                width = 4 if enc == 1 else 2
                if size % width:
                    raise bad("TokenSize")
                if nt != min(size // width, 0xFFFF):
                    raise bad("TokenCount")
                v = Tokens(width, np.frombuffer(payload, dtype="<u4" if width == 4 else "<u2").tolist())
            else:
                raise bad("TextEncoding")
        if size and self.checksummed and (self.check_crcs if check_crc is None else check_crc):
            e = self.entry(i, fi, at, ptr, size)
            if crc(payload) != int(e["crc"]):
                raise MldfError("ItemChecksum", ptr, f"sample {i} field {fi}")
        return v

    def entry(self, i: int, fi: int, at: int, ptr: int, size: int):
        if ptr not in self.ptrs:
            raise MldfError("MissingAllocEntry", at, str(ptr))
        e = self.alloc[self.ptrs[ptr]]
        if int(e["size"]) != size:
            raise MldfError("AllocSizeMismatch", at, str(ptr))
        return e

    def verify(self) -> list[MldfError]:
        problems = []
        if self.checksummed:
            if crc(self.data[:69]) != self.h["header_crc"]:
                problems.append(MldfError("HeaderChecksum", 69, "header CRC"))
            if crc(self.index_bytes) != self.h["index_crc"]:
                problems.append(MldfError("IndexChecksum", 65, "index CRC"))
        problems += self.alloc_problems()
        used = [0] * len(self.alloc)
        for i in range(self.num_samples):
            for fi, f in enumerate(self.fields):
                if f.type_id not in META:
                    continue
                try:
                    self.value(i, fi, check_crc=False)
                except MldfError as e:
                    problems.append(e)
                    continue
                slot, at = self.slot(i, fi)
                ptr, size = struct.unpack_from("<QI", slot)
                if not size:
                    continue
                try:
                    e = self.entry(i, fi, at, ptr, size)
                except MldfError as err:
                    problems.append(err)
                    continue
                used[self.ptrs[ptr]] += 1
                if self.checksummed and crc(bytes(self.data[ptr:ptr + size])) != int(e["crc"]):
                    problems.append(MldfError("ItemChecksum", ptr, f"sample {i} field {fi}"))
        if all(f.type_id in SIZES for f in self.fields):
            for k, n in enumerate(used):
                if n == 0:
                    problems.append(MldfError("UnreferencedItem", self.alloc_ptr + 16 * k, str(k)))
                elif n > 1:
                    problems.append(MldfError("SharedItem", self.alloc_ptr + 16 * k, str(k)))
        return problems


# --------------------------------------------------------------------------- JSON dump

def blob(b: bytes) -> str:
    """Hex of up to 256 bytes; longer payloads as their length and CRC-32."""
    return b.hex() if len(b) <= 256 else f"len={len(b)} crc32={crc(b):08x}"


def dump_value(v: Any) -> Any:
    """The JSON form both implementations agree on (see crates/mldf/tests/fixtures/README.md)."""
    if v is None:
        return None
    if isinstance(v, bool):
        raise TypeError(v)
    if isinstance(v, int):
        return {"int": v}
    if isinstance(v, float):
        return {"float_bits": struct.unpack("<Q", struct.pack("<d", v))[0]}
    if isinstance(v, bytes):
        return {"bytes": blob(v)}
    if isinstance(v, str):
        return {"str": v}
    if isinstance(v, Image):
        return {"image": [v.mode, v.height, v.width, v.channels, blob(v.data)]}
    if isinstance(v, Audio):
        return {"audio": [v.codec, v.num_samples, v.sample_rate, v.num_channels, v.bit_depth, blob(v.data)]}
    if isinstance(v, Tokens):
        raw = np.asarray(v.ids, dtype="<u4" if v.width == 4 else "<u2").tobytes()
        return {"tokens": [v.width, v.ids if len(v.ids) <= 64 else blob(raw)]}
    if isinstance(v, tuple) and v[0] == "unknown":
        return {"unknown": blob(v[1])}
    raise TypeError(type(v))


def dump(path: str) -> dict:
    data = open(path, "rb").read()
    r = Reader(data)
    problems = r.verify()
    if problems:
        raise SystemExit("\n".join(str(p) for p in problems))
    fields = []
    for f in r.fields:
        d = {"name": f.name, "type_id": f.type_id, "flags": f.raw_flags, "metadata_size": f.metadata_size}
        if f.type_id == NDARRAY:
            d["dtype"], d["shape"] = f.dtype, list(f.shape)
        fields.append(d)
    samples = []
    for i in range(r.num_samples):
        samples.append([dump_value(r.value(i, fi)) for fi in range(len(r.fields))])
    h = r.h
    return {
        "version": [h["version_major"], h["version_minor"]], "flags": h["flags"],
        "num_samples": h["num_samples"], "page_size": h["page_size"],
        "pointers": [h["field_desc_ptr"], h["metadata_ptr"], h["data_ptr"], h["alloc_table_ptr"]],
        "file_size": len(data), "fields": fields, "samples": samples,
    }


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "dump":
        raise SystemExit(__doc__)
    print(json.dumps(dump(sys.argv[2]), sort_keys=True))
