"""The JSON form of kastore contents shared by make_fixtures.py and check_written.py.

An item is {"key": text or null, "key_hex": hex of the key bytes, "dtype": numpy name,
"len": elements, and "values" (integers) or "bits" (floats, as their IEEE bit patterns,
so NaN payloads, -0.0 and infinities survive JSON)}. The Rust tests read the same form.
"""

import numpy as np

DTYPES = [
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "float32",
    "float64",
]
BITS = {"float32": "<u4", "float64": "<u8"}
FLOATS = {"float32": "<f4", "float64": "<f8"}


def item_json(key, array):
    """Describes one array as the reference returned it."""
    array = np.asarray(array)
    dtype = str(array.dtype)
    assert dtype in DTYPES, dtype
    key_bytes = key.encode("utf-8") if isinstance(key, str) else bytes(key)
    try:
        text = key_bytes.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    out = {"key": text, "key_hex": key_bytes.hex(), "dtype": dtype, "len": int(len(array))}
    if dtype in BITS:
        out["bits"] = [int(b) for b in array.astype(array.dtype.newbyteorder("<")).view(BITS[dtype])]
    else:
        out["values"] = [int(v) for v in array]
    return out


def item_array(item):
    """The numpy array an item describes (little-endian, native dtype)."""
    dtype = item["dtype"]
    if dtype in BITS:
        bits = np.array(item["bits"], dtype=BITS[dtype])
        array = bits.view(FLOATS[dtype])
    else:
        array = np.array(item["values"], dtype=dtype)
    assert len(array) == item["len"]
    return array.astype(dtype)


def item_key(item):
    return bytes.fromhex(item["key_hex"])
