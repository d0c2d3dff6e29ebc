"""Make the interop fixtures of bloscpack-header with the reference, bloscpack 0.16.0.

    /work/venv/bin/python tools/bloscpack/make_fixtures.py [OUT_DIR]

OUT_DIR defaults to crates/bloscpack-header/tests/fixtures. For each fixture NAME it
writes NAME.blp, NAME.bin (the exact input, when there is one) and, in expected.json,
what bloscpack itself reports for NAME.blp (refcompat.describe): header fields,
metadata, offsets, every chunk's Blosc header and digest, the unpacked length and
SHA-256, or the exception it raises for a bad file. Runs with one c-blosc thread, so the
output is byte-identical on every run with the same c-blosc build (python-blosc 1.11.4).
"""

import json
import os
import sys

import numpy as np

import refcompat
from refcompat import bp

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    ROOT, "crates", "bloscpack-header", "tests", "fixtures")

# 10,000 bytes: 1,250 float64 values of a ramp; 4 KiB chunks give 4096, 4096, 1808.
RAMP = np.linspace(0.0, 1.0, 1250).tobytes()
CHUNK = 4096
META = {"sensor": "ramp", "units": "volts", "rate_hz": 1000, "tags": ["a", "b"],
        "calibration": [{"channel": i, "gain": 1.0, "offset": 0.0} for i in range(4)]}

fixtures = {}


INPUTS = {}


def save_input(data, name):
    """Writes an input once, under the name of the first fixture that uses it."""
    if data not in INPUTS:
        INPUTS[data] = name + ".bin"
        with open(os.path.join(OUT, INPUTS[data]), "wb") as f:
            f.write(data)
    return INPUTS[data]


def pack(name, data, chunk_size=CHUNK, blosc=None, bloscpack=None, metadata=None,
         metadata_args=None, keep_input=True):
    path = os.path.join(OUT, name + ".blp")
    bp.pack_bytes_to_file(
        data, path, chunk_size=chunk_size,
        blosc_args=bp.BloscArgs(**(blosc or {})),
        bloscpack_args=bp.BloscpackArgs(**(bloscpack or {})),
        metadata=metadata,
        metadata_args=bp.MetadataArgs(**(metadata_args or {})) if metadata_args else None,
    )
    fixtures[name] = {"input": save_input(data, name) if keep_input else None}
    return path


def derive(name, source, edit, note):
    """A bad or hand-made file: `source` with `edit(bytes) -> bytes` applied."""
    with open(os.path.join(OUT, source + ".blp"), "rb") as f:
        data = bytearray(f.read())
    with open(os.path.join(OUT, name + ".blp"), "wb") as f:
        f.write(bytes(edit(data)))
    fixtures[name] = {"input": fixtures[source]["input"], "derived_from": source, "note": note}


def patch(at, new):
    def edit(data):
        data[at:at + len(new)] = new
        return data
    return edit


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        if name.endswith((".blp", ".bin")):
            os.remove(os.path.join(OUT, name))

    save_input(RAMP, "ramp")

    # Every checksum kind, same data.
    for checksum in ["None", "adler32", "crc32", "md5", "sha1", "sha224", "sha256",
                     "sha384", "sha512"]:
        pack("checksum_" + checksum.lower(), RAMP, bloscpack={"checksum": checksum})
    pack("no_offsets", RAMP, bloscpack={"offsets": False})
    pack("max_app_0", RAMP, bloscpack={"max_app_chunks": 0})

    # Metadata: zlib, raw, sha256 digest, tiny (zlib larger, so stored raw, level 6),
    # and without offsets.
    pack("meta_zlib", RAMP, metadata=META)
    pack("meta_raw", RAMP, metadata=META, metadata_args={"meta_codec": "None"})
    pack("meta_sha256", RAMP, metadata=META, metadata_args={"meta_checksum": "sha256"})
    pack("meta_tiny", RAMP, metadata={"a": 1})
    pack("meta_no_offsets", RAMP, metadata=META, bloscpack={"offsets": False})

    # numpy arrays (metadata written by bloscpack: dtype repr, shape, order, container).
    for name, array in [
        ("ndarray_c", np.arange(600, dtype="<f8").reshape(20, 30)),
        ("ndarray_f", np.asfortranarray(np.arange(600, dtype="<i4").reshape(20, 30))),
        ("ndarray_struct", np.array([(i * 0.5, i, b"t%02d" % (i % 100)) for i in range(300)],
                                    dtype=[("x", "<f4"), ("y", "<i2"), ("tag", "S3")])),
    ]:
        path = os.path.join(OUT, name + ".blp")
        bp.pack_ndarray_to_file(array, path, chunk_size=array.itemsize * 256)
        fixtures[name] = {"input": save_input(array.tobytes(order="A"), name)}

    # Sizes: empty, one byte, an exact multiple of the chunk size, a short last chunk,
    # and the 100,000-byte ramp of the worked example (32 KiB chunks).
    pack("empty", b"")
    pack("empty_bare", b"", bloscpack={"offsets": False, "checksum": "None"})
    pack("one_byte", b"\x2a")
    pack("exact_multiple", RAMP[:2 * CHUNK])
    pack("short_last", RAMP[:CHUNK + 10])
    pack("ramp_100000", np.arange(12500, dtype="<f8").tobytes(), chunk_size=32768)

    # Codecs, shuffles, levels, typesizes, incompressible data.
    for cname in ["lz4", "lz4hc", "zlib", "zstd"]:
        pack("codec_" + cname, RAMP, blosc={"cname": cname})
    pack("noshuffle", RAMP, blosc={"shuffle": False})
    pack("bitshuffle", RAMP, blosc={"shuffle": 2})
    pack("clevel0", RAMP, blosc={"clevel": 0})
    pack("typesize4", np.arange(2500, dtype="<i4").tobytes(), blosc={"typesize": 4})
    noise = np.random.default_rng(20240501).integers(0, 256, 9000, dtype=np.uint8).tobytes()
    pack("incompressible", noise)

    # Appends: one that fits into the last chunk, one that adds chunks (and a chunk
    # compressed with other settings, as append does).
    from bloscpack import append as bp_append
    for name, extra in [("append_fits", RAMP[:1000]), ("append_chunks", RAMP)]:
        path = pack(name, RAMP, keep_input=False)
        extra_path = os.path.join(OUT, name + ".extra")
        with open(extra_path, "wb") as f:
            f.write(extra)
        bp_append.append(path, extra_path)
        os.remove(extra_path)
        fixtures[name]["input"] = save_input(RAMP + extra, name)

    # Hand-made and bad files.
    derive("version2", "max_app_0", patch(4, b"\x02"),
           "format 2 (bloscpack 0.2): a version 3 file without metadata or spare slots, byte 4 set to 2")
    derive("bad_magic", "checksum_adler32", patch(0, b"blpx"), "magic changed")
    derive("bad_options", "checksum_adler32", patch(5, b"\x05"), "options 0x05: bit 2 undefined")
    derive("bad_checksum_id", "checksum_adler32", patch(6, b"\x09"), "checksum id 9")
    derive("bad_digest", "checksum_crc32",
           lambda d: d[:400] + bytes([d[400] ^ 0x01]) + d[401:],
           "one bit of chunk 0's body flipped (the crc32 no longer matches)")
    derive("bad_meta_digest", "meta_raw",
           lambda d: d[:70] + bytes([d[70] ^ 0x20]) + d[71:],
           "one bit of the raw metadata flipped")
    derive("truncated", "checksum_adler32", lambda d: d[:-100], "the last 100 bytes cut")
    derive("truncated_digest", "checksum_sha512", lambda d: d[:-10],
           "the last chunk's sha512 digest cut short (bloscpack skips the short digest)")

    expected = {}
    for name in sorted(fixtures):
        entry = dict(fixtures[name])
        entry["file"] = name + ".blp"
        entry["reference"] = refcompat.describe(os.path.join(OUT, name + ".blp"))
        expected[name] = entry
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump({"generator": "tools/bloscpack/make_fixtures.py",
                   "bloscpack": bp.__version__,
                   "blosc": refcompat.blosc.__version__,
                   "c_blosc": refcompat.blosc.blosclib_version,
                   "fixtures": expected}, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote %d fixtures to %s" % (len(expected), OUT))
    # Outside expected.json: it breaks the header's promise on purpose (bloscpack 0.11).
    import make_short_last
    make_short_last.make(OUT)


if __name__ == "__main__":
    main()
