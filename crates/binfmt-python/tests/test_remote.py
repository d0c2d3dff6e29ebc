"""URLs wherever paths are (the `remote` cargo feature): ``file://`` URLs of the crates'
fixtures (object_store's local filesystem, no server), compared with the path results."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from binfmt import _binfmt, kastore, taco, taridx

from helpers import fixtures

pytestmark = pytest.mark.skipif(not _binfmt.remote_enabled(), reason="built without `remote`")

TACO = sorted(p for p in fixtures("taco-header").glob("*.taco"))
GOLDEN = fixtures("taridx") / "golden"
KAS = sorted(p for p in (fixtures("kastore") / "valid").glob("*") if p.is_file())


def url(p) -> str:
    return p.resolve().as_uri()


def test_is_url():
    assert _binfmt.is_url("file:///tmp/x")
    assert _binfmt.is_url("s3://bucket/key")
    assert not _binfmt.is_url("/tmp/x")
    assert not _binfmt.is_url("relative/path.taco")


@pytest.mark.parametrize("path", TACO, ids=lambda p: p.name)
def test_taco_read_header_url(path):
    try:
        want = taco.read_header(path)
    except taco.TacoError as e:
        with pytest.raises(taco.TacoError) as got:
            taco.read_header(url(path))
        assert str(got.value) == str(e)
        return
    assert taco.read_header(url(path)) == want


@pytest.mark.parametrize("path", TACO, ids=lambda p: p.name)
def test_taco_members_url(path):
    try:
        want = taco.members(path)
    except taco.TacoError:
        with pytest.raises(taco.TacoError):
            taco.members(url(path))
        return
    assert taco.members(url(path)) == want


def test_taco_missing_url(tmp_path):
    with pytest.raises(OSError) as e:
        taco.read_header(url(tmp_path / "absent.taco"))
    assert "absent.taco" in str(e.value)


def test_taridx_url_matches_path():
    shards = sorted(GOLDEN.glob("clean_*.tar"))
    local = taridx.open(GOLDEN / "clean.taridx")
    remote = taridx.open(url(GOLDEN / "clean.taridx"), shards=[url(s) for s in shards])
    assert len(remote) == len(local) and remote.n_rows == local.n_rows
    assert remote.extensions == local.extensions
    for i in range(len(local)):
        assert remote[i] == local[i]
    loaded = pickle.loads(pickle.dumps(remote))
    assert loaded[0] == local[0]


def test_taridx_url_get():
    shards = sorted(GOLDEN.glob("clean_*.tar"))
    import tarfile

    with tarfile.open(shards[0]) as tf:
        name = next(m.name for m in tf.getmembers() if m.isfile())
    stem = name.rsplit("/", 1)[-1].split(".", 1)[0]
    local = taridx.open(GOLDEN / "clean.taridx")
    remote = taridx.open(url(GOLDEN / "clean.taridx"), shards=[url(s) for s in shards])
    assert remote.get(stem) == local.get(stem)
    where = remote.locate(stem)
    assert all(isinstance(p, str) and p.startswith("file://") for p, _, _ in where.values())


def test_taridx_url_needs_shards():
    with pytest.raises(ValueError, match="no directory to list"):
        taridx.open(url(GOLDEN / "clean.taridx"))


def opened_alike(local, remote):
    """`(local(), remote())`, or None when `local()` fails and `remote()` fails with an
    exception of the same type (a fixture that is meant to be refused)."""
    try:
        opened = local()
    except Exception as e:  # noqa: BLE001 - compare the failure's type
        with pytest.raises(type(e)):
            remote()
        return None
    return opened, remote()


def assert_kastore_url_reads_as_path(path, at) -> None:
    """`kastore.load(at)` holds what `kastore.load(path)` holds (or both are refused)."""
    opened = opened_alike(lambda: kastore.load(path, read_all=True),
                          lambda: kastore.load(at))
    if opened is None:
        return
    want, got = opened
    assert list(got) == list(want)
    for k in want:
        assert got[k].dtype == want[k].dtype
        np.testing.assert_array_equal(got[k], want[k])
        assert not got[k].flags.writeable


@pytest.mark.parametrize("path", KAS, ids=lambda p: p.name)
def test_kastore_load_url(path):
    assert_kastore_url_reads_as_path(path, url(path))


MLDF = sorted(fixtures("mldf").glob("*.mldf"))


@pytest.mark.parametrize("path", MLDF, ids=lambda p: p.name)
def test_mldf_open_url(path):
    from binfmt import mldf

    opened = opened_alike(lambda: mldf.open(path), lambda: mldf.open(url(path)))
    if opened is None:
        return
    local, remote = opened
    assert len(remote) == len(local)
    assert remote.fields == local.fields
    for i in range(len(local)):
        np.testing.assert_equal(remote[i], local[i])
    if any(f.type in ("INT", "FLOAT") for f in local.fields):
        name = next(f.name for f in local.fields if f.type in ("INT", "FLOAT"))
        with pytest.raises(NotImplementedError):
            remote.column(name)
    loaded = pickle.loads(pickle.dumps(remote))
    assert len(loaded) == len(local)


# -- over HTTP on 127.0.0.1: what is requested ------------------------------------------


@pytest.fixture
def http_dir(tmp_path, monkeypatch):
    """`(base URL, request log)` of an HTTP server on 127.0.0.1 serving `tmp_path` with
    range support; each log entry is `(method, path, Range header)`."""
    import http.server
    import threading

    log = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=str(tmp_path), **kw)

        def log_message(self, *a):
            pass

        def do_HEAD(self):
            log.append(("HEAD", self.path, self.headers.get("Range")))
            super().do_HEAD()

        def do_GET(self):
            log.append(("GET", self.path, self.headers.get("Range")))
            rng = self.headers.get("Range")
            data = (tmp_path / self.path.lstrip("/")).read_bytes()
            if rng is None:
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            start, _, end = rng.removeprefix("bytes=").partition("-")
            # "bytes=N-" (to the end) as well as "bytes=N-M".
            start, end = int(start), min(int(end or len(data) - 1), len(data) - 1)
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
            self.send_header("Content-Length", str(end - start + 1))
            self.end_headers()
            self.wfile.write(data[start : end + 1])

    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", log
    server.shutdown()
    server.server_close()


def test_taco_read_header_url_is_one_get_of_at_most_256_bytes(http_dir, tmp_path):
    base, log = http_dir
    src = tmp_path / "m.bin"
    src.write_bytes(b"x" * 100_000)
    taco.create(tmp_path / "a.taco", [src], entries=[(41, 7), (9, 9)])
    assert taco.read_header(f"{base}/a.taco") == [(41, 7), (9, 9)]
    assert len(log) == 1, log
    method, path, rng = log[0]
    assert method == "GET" and path == "/a.taco"
    start, _, end = rng.removeprefix("bytes=").partition("-")
    assert int(start) == 0 and int(end) - int(start) + 1 <= 256


def test_kastore_url_store_is_one_buffer_built_by_the_constructor(http_dir, tmp_path):
    base, log = http_dir
    data = {"a": np.arange(1000), "b": np.linspace(0, 1, 33), "e": np.zeros(0, np.int8)}
    kastore.dump(data, tmp_path / "s.kas")
    store = kastore.load(f"{base}/s.kas")
    for k, v in data.items():
        np.testing.assert_array_equal(store[k], v)
    bases = {id(store[k].base) for k in ("a", "b")}
    assert len(bases) == 1  # views of one buffer
    assert store._origin == (f"{base}/s.kas", 0, False)
    back = pickle.loads(pickle.dumps(store))
    np.testing.assert_array_equal(back["a"], data["a"])


def test_taridx_url_batch(http_dir, tmp_path):
    import io
    import tarfile

    base, log = http_dir
    with tarfile.open(tmp_path / "f_0.tar", "w", format=tarfile.USTAR_FORMAT) as tf:
        for i in range(30):
            for ext in ("a", "b"):
                payload = f"{i}{ext}".encode()
                info = tarfile.TarInfo(f"k{i:03d}.{ext}")
                info.size = len(payload)
                tf.addfile(info, io.BytesIO(payload))
    taridx.build(tmp_path, "f")
    ix = taridx.open(f"{base}/f.taridx", shards=[f"{base}/f_0.tar"])
    assert ix.get_many(["k007", "k001"]) == [
        {"__key__": "k007", "a": b"7a", "b": b"7b"},
        {"__key__": "k001", "a": b"1a", "b": b"1b"},
    ]
    assert ix.__getitems__([29, 0]) == [
        {"__key__": "k029", "a": b"29a", "b": b"29b"},
        {"__key__": "k000", "a": b"0a", "b": b"0b"},
    ]


def test_bloscpack_unpack_url(http_dir, tmp_path):
    """`unpack_*` take URLs: the same array, bytes and file as from the path, each in one
    request for the whole object (read in one pass)."""
    from binfmt import bloscpack

    base, log = http_dir
    a = np.arange(300_000, dtype=np.float64).reshape(600, 500)
    path = tmp_path / "a.blp"
    bloscpack.pack_ndarray_to_file(a, path, chunk_size="256K")
    got = bloscpack.unpack_ndarray_from_file(f"{base}/a.blp")
    np.testing.assert_array_equal(got, a)
    assert got.dtype == a.dtype and got.shape == a.shape
    assert log == [("GET", "/a.blp", None)], log
    # Writable; a view of the memory the chunks were decompressed into.
    got[0, 0] = -1.0
    assert not got.flags.owndata and got.base is not None
    # Fortran order, a structured dtype and an empty array come back as packed.
    for name, b in (
        ("f.blp", np.asfortranarray(np.arange(60_000, dtype=np.int32).reshape(300, 200))),
        ("s.blp", np.array([(1, 2.5), (3, 4.5)] * 5000, dtype=[("i", "<i4"), ("x", "<f8")])),
        ("e.blp", np.zeros((0, 7), dtype=np.float32)),
    ):
        bloscpack.pack_ndarray_to_file(b, tmp_path / name, chunk_size=60_000)
        got = bloscpack.unpack_ndarray_from_file(f"{base}/{name}")
        np.testing.assert_array_equal(got, b)
        assert got.dtype == b.dtype and got.shape == b.shape
        assert got.flags.f_contiguous == b.flags.f_contiguous
        assert got.flags.c_contiguous == b.flags.c_contiguous
    data, meta = bloscpack.unpack_bytes_from_file(f"{base}/a.blp")
    assert data == bloscpack.unpack_bytes_from_file(path)[0]
    assert meta == bloscpack.unpack_bytes_from_file(path)[1]
    out = tmp_path / "out.bin"
    bloscpack.unpack_file_from_file(f"{base}/a.blp", out)
    assert out.read_bytes() == a.tobytes()
    # A file URL reads the same; a missing object is the reference's error class.
    np.testing.assert_array_equal(bloscpack.unpack_ndarray_from_file(url(path)), a)
    with pytest.raises(Exception):
        bloscpack.unpack_ndarray_from_file(f"{base}/missing.blp")


def test_bloscpack_unpack_url_is_one_request_whatever_the_chunks(http_dir, tmp_path):
    """Unpacked into an array on two threads, a URL of 32 chunks is one request (the
    whole object, read in one pass), not a request per chunk header first."""
    from binfmt import bloscpack

    base, log = http_dir
    a = np.cumsum(np.random.default_rng(1).standard_normal(1 << 20))
    bloscpack.pack_ndarray_to_file(a, tmp_path / "w.blp", chunk_size="256K")
    previous = bloscpack.set_nthreads(2)
    try:
        log.clear()
        got = bloscpack.unpack_ndarray_from_file(f"{base}/w.blp")
        np.testing.assert_array_equal(got, a)
        assert log == [("GET", "/w.blp", None)], log
        log.clear()
        data, meta = bloscpack.unpack_bytes_from_file(f"{base}/w.blp")
        assert data == a.tobytes() and meta is not None
        assert len(log) == 1, log
    finally:
        bloscpack.set_nthreads(previous)


def test_bloscpack_unpack_url_into_a_file_is_one_pass_and_all_or_nothing(http_dir, tmp_path):
    """`unpack_file_from_file(URL, FILE)` checks and unpacks in one pass, from one GET of
    the whole object (no request per chunk header, no second request for the chunks), and
    a bad last chunk leaves FILE as it was."""
    from binfmt import bloscpack

    base, log = http_dir
    a = np.random.default_rng(5).standard_normal(300_000)  # 10 chunks, 256 KiB apart
    path = tmp_path / "a.blp"
    bloscpack.pack_ndarray_to_file(a, path, chunk_size="256K")
    out = tmp_path / "out.bin"
    log.clear()
    bloscpack.unpack_file_from_file(f"{base}/a.blp", out)
    assert out.read_bytes() == a.tobytes()
    # One GET of the whole object: its head is parsed, and its rest streamed into the
    # chunks (3 with a ranged head, a request for the offsets and a window of chunks; 13
    # with a request per chunk header).
    gets = [entry for entry in log if entry[0] == "GET"]
    assert len(gets) == 1, log
    packed = bytearray(path.read_bytes())
    packed[-1] ^= 0x5A  # the last chunk's digest
    (tmp_path / "bad.blp").write_bytes(bytes(packed))
    out.write_bytes(b"before")
    with pytest.raises(bloscpack.ChecksumMismatch):
        bloscpack.unpack_file_from_file(f"{base}/bad.blp", out)
    assert out.read_bytes() == b"before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.blp", "bad.blp", "out.bin"]


def test_taco_a_short_file_is_a_short_read_by_path_and_by_url(tmp_path):
    short = tmp_path / "short.taco"
    short.write_bytes(b"PK\x03\x04" * 10)
    for source in (short, str(short), url(short)):
        with pytest.raises(taco.TacozipIOError) as got:
            taco.read_header(source)
        assert got.value.code == taco.TACOZ_ERR_IO and isinstance(got.value, OSError)
    # A URL is not named in the error (it may carry credentials or a signed query).
    assert got.value.filename is None


@pytest.fixture
def no_range_server():
    """`python -m http.server` on 127.0.0.1 over the crates' fixtures: it answers every GET
    with 200 and the whole file, whatever `Range` asks."""
    import functools
    import http.server
    import threading

    root = fixtures("taco-header").parents[2]  # crates/

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]

    def at(path):
        return f"http://127.0.0.1:{port}/" + path.resolve().relative_to(root.resolve()).as_posix()

    yield at
    server.shutdown()
    server.server_close()


def test_a_server_that_ignores_ranges_is_read_in_order(no_range_server):
    # Read as the command line reads it: one GET of the whole object, in order, as far as
    # each call needs; the results are the paths'.
    for path in TACO[:3]:
        try:
            want = taco.read_header(path)
        except taco.TacoError:
            continue
        assert taco.read_header(no_range_server(path)) == want
        assert taco.members(no_range_server(path)) == taco.members(path)
    for path in KAS[:3]:
        assert_kastore_url_reads_as_path(path, no_range_server(path))
    shards = sorted(GOLDEN.glob("clean_*.tar"))
    local = taridx.open(GOLDEN / "clean.taridx")
    remote = taridx.open(no_range_server(GOLDEN / "clean.taridx"),
                         shards=[no_range_server(s) for s in shards])
    for i in range(len(local)):
        assert remote[i] == local[i]
