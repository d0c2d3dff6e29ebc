"""Import bloscpack 0.16.0 on Python 3.10+, and read a file the way it does.

bloscpack 0.16 imports `collections.MutableMapping`, which Python 3.10 removed; the
alias below is the only shim it needs (docs/bloscpack.md, "Reference implementation").
Everything that describes a file (`describe`) uses bloscpack's own readers, so that the
values our Rust tests compare against are the reference's, not ours.
"""

import collections
import collections.abc
import hashlib

collections.MutableMapping = collections.abc.MutableMapping

import blosc  # noqa: E402
import bloscpack as bp  # noqa: E402
from bloscpack import file_io  # noqa: E402

# One thread: c-blosc then writes the same bytes on every run.
blosc.set_nthreads(1)


def describe(path):
    """What bloscpack reports for the file at `path`, as a JSON-ready dict.

    On success: the header fields, the metadata (decoded) and its header, the used
    offsets, every chunk's position, Blosc header and digest (hex), whether each digest
    matches, and the length and SHA-256 of the unpacked data. On failure: the exception's
    type and message.
    """
    try:
        with open(path, "rb") as fp:
            header, metadata, meta_header, offsets = file_io._read_beginning(fp)
            checksum = header.checksum_impl
            chunks = []
            for _ in range(header.nchunks):
                at = fp.tell()
                compressed, bh, digest = file_io._read_compressed_chunk_fp(fp, checksum)
                chunks.append(
                    {
                        "offset": at,
                        "version": bh["version"],
                        "versionlz": bh["versionlz"],
                        "flags": bh["flags"],
                        "typesize": bh["typesize"],
                        "nbytes": bh["nbytes"],
                        "blocksize": bh["blocksize"],
                        "cbytes": bh["ctbytes"],
                        "digest": (digest or b"").hex(),
                        "digest_ok": checksum(compressed) == (digest or b""),
                    }
                )
        data, _ = bp.unpack_bytes_from_file(path)
    except Exception as e:  # the point is to record what the reference says
        return {"ok": False, "error": type(e).__name__, "message": str(e)}
    out = {
        "ok": True,
        "header": {
            "format_version": header.format_version,
            "offsets": bool(header.offsets),
            "metadata": bool(header.metadata),
            "checksum": header.checksum,
            "typesize": header.typesize,
            "chunk_size": header.chunk_size,
            "last_chunk": header.last_chunk,
            "nchunks": header.nchunks,
            "max_app_chunks": header.max_app_chunks,
        },
        "metadata": metadata,
        "metadata_header": None,
        "offsets": list(offsets),
        "chunks": chunks,
        "unpacked_len": len(data),
        "unpacked_sha256": hashlib.sha256(data).hexdigest(),
    }
    if meta_header is not None:
        out["metadata_header"] = {
            "magic_format": meta_header.magic_format.decode(),
            "meta_checksum": meta_header.meta_checksum,
            "meta_codec": meta_header.meta_codec,
            "meta_level": meta_header.meta_level,
            "meta_size": meta_header.meta_size,
            "max_meta_size": meta_header.max_meta_size,
            "meta_comp_size": meta_header.meta_comp_size,
        }
    return out
