"""BinaryRow bytes and bucket hashes against pypaimon's serializer.

Random rows are built as JSON lines, turned into a batch by libpaimon
(ctypes), encoded with `pm_binrow_from_batch_row` + `pm_binrow_serialize`,
and compared byte for byte with pypaimon's `GenericRowSerializer.to_bytes`
for the same Python values; the row hash and default bucket are compared
with pypaimon's Murmur implementation.  (pypaimon writes a null
non-compact DECIMAL/TIMESTAMP without reserving var bytes, unlike Java, so
those fields are never null here; the Java form is a unit test.)
"""
import ctypes
import datetime as dt
import decimal
import json
import os
import pathlib
import random

import pytest

from pypaimon.schema.data_types import AtomicType, DataField
from pypaimon.table.row.generic_row import GenericRow, GenericRowSerializer
from pypaimon.write import row_key_extractor as rke

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIB_PATH = os.environ.get("PAIMON_LIB", str(ROOT / "build" / "libpaimon_testing.so"))


class PmBuf(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("len", ctypes.c_size_t), ("cap", ctypes.c_size_t)]


class Writer(ctypes.Structure):
    _fields_ = [("buf", PmBuf), ("arity", ctypes.c_int32)]


@pytest.fixture(scope="module")
def lib():
    if not os.path.exists(LIB_PATH):
        pytest.fail(f"{LIB_PATH} not built (run `make build`)")
    lib = ctypes.CDLL(LIB_PATH)
    vp = ctypes.c_void_p
    lib.pm_batch_from_json_lines_typed.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p, ctypes.c_char_p,
                                                   ctypes.c_size_t]
    lib.pm_batch_from_json_lines_typed.restype = vp
    lib.pm_batch_free.argtypes = [vp]
    lib.pm_binrow_from_batch_row.argtypes = [ctypes.POINTER(Writer), vp, ctypes.c_int64, vp, ctypes.c_size_t]
    lib.pm_binrow_from_batch_row.restype = vp
    lib.pm_binrow_serialize.argtypes = [ctypes.POINTER(Writer), ctypes.POINTER(PmBuf)]
    lib.pm_binrow_serialize.restype = vp
    lib.pm_binrow_hash.argtypes = [ctypes.POINTER(Writer)]
    lib.pm_binrow_hash.restype = ctypes.c_int32
    lib.pm_binrow_writer_free.argtypes = [ctypes.POINTER(Writer)]
    lib.pm_buf_free.argtypes = [ctypes.POINTER(PmBuf)]
    lib.pm_error_format.argtypes = [vp]
    lib.pm_error_format.restype = ctypes.c_char_p
    return lib


def check(lib, err):
    if err:
        raise AssertionError(lib.pm_error_format(err).decode())


# (type, nullable-in-this-test, generator of (python value, json value))
def gen_int(r):
    v = r.choice([0, -1, 2 ** 31 - 1, -2 ** 31, r.randrange(-2 ** 31, 2 ** 31)])
    return v, v


def gen_bigint(r):
    v = r.choice([0, -1, 2 ** 63 - 1, -2 ** 63, r.randrange(-2 ** 63, 2 ** 63)])
    return v, v


def gen_str(r):
    s = "".join(r.choice("ab\u00e9\u4e16z0") for _ in range(r.randrange(0, 12)))
    return s, s


def gen_bytes(r):
    b = bytes(r.randrange(256) for _ in range(r.randrange(0, 20)))
    import base64
    return b, base64.b64encode(b).decode()


def gen_dec(p, s):
    def g(r):
        u = r.randrange(-10 ** p + 1, 10 ** p)
        d = decimal.Decimal(u).scaleb(-s)
        return d, str(d)
    return g


def gen_ts(p):
    def g(r):
        micros = r.randrange(-2 * 10 ** 15, 4 * 10 ** 15)
        if p == 3:
            micros -= micros % 1000
        t = dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=micros)
        return t, t.isoformat(timespec="milliseconds" if p == 3 else "microseconds")
    return g


def gen_date(r):
    d = dt.date(1970, 1, 1) + dt.timedelta(days=r.randrange(-700000, 2900000))
    return d, d.isoformat()


def gen_double(r):
    v = r.choice([0.0, -1.5, 1e300, r.uniform(-1e6, 1e6)])
    return v, v


def gen_bool(r):
    v = r.random() < 0.5
    return v, v


def gen_small(bits):
    def g(r):
        v = r.randrange(-2 ** (bits - 1), 2 ** (bits - 1))
        return v, v
    return g


COLUMNS = [
    ("INT", True, gen_int), ("BIGINT", True, gen_bigint), ("STRING", True, gen_str), ("BYTES", True, gen_bytes),
    ("DECIMAL(10, 2)", True, gen_dec(10, 2)), ("DECIMAL(30, 4)", False, gen_dec(30, 4)),
    ("DECIMAL(38, 0)", False, gen_dec(38, 0)), ("TIMESTAMP(3)", True, gen_ts(3)),
    ("TIMESTAMP(6)", False, gen_ts(6)), ("DATE", True, gen_date), ("DOUBLE", True, gen_double),
    ("BOOLEAN", True, gen_bool), ("TINYINT", True, gen_small(8)), ("SMALLINT", True, gen_small(16)),
]


def test_binary_rows_match_pypaimon(lib):
    r = random.Random(7)
    for trial in range(40):
        cols = r.sample(COLUMNS, r.randrange(1, 6))
        names = [f"c{i}" for i in range(len(cols))]
        row_type = "ROW<" + ", ".join(f"{n} {t}" for n, (t, _, _) in zip(names, cols)) + ">"
        fields = [DataField(i, n, AtomicType(t)) for i, (n, (t, _, _)) in enumerate(zip(names, cols))]
        py_rows, json_rows = [], []
        for _ in range(20):
            pv, jv = [], {}
            for n, (t, nullable, g) in zip(names, cols):
                if nullable and r.random() < 0.15:
                    pv.append(None)
                    jv[n] = None
                else:
                    a, b = g(r)
                    pv.append(a)
                    jv[n] = b
            py_rows.append(pv)
            json_rows.append(jv)
        text = "\n".join(json.dumps(j) for j in json_rows).encode()
        batch = ctypes.c_void_p()
        check(lib, lib.pm_batch_from_json_lines_typed(ctypes.byref(batch), row_type.encode(), text, len(text)))
        w = Writer()
        try:
            for i, pv in enumerate(py_rows):
                check(lib, lib.pm_binrow_from_batch_row(ctypes.byref(w), batch, i, None, len(cols)))
                buf = PmBuf()
                check(lib, lib.pm_binrow_serialize(ctypes.byref(w), ctypes.byref(buf)))
                ours = ctypes.string_at(buf.data, buf.len)
                lib.pm_buf_free(ctypes.byref(buf))
                theirs = GenericRowSerializer.to_bytes(GenericRow(pv, fields))
                assert ours == theirs, f"{row_type} row {json_rows[i]}:\n{ours.hex()}\n{theirs.hex()}"
                h = lib.pm_binrow_hash(ctypes.byref(w))
                hp = rke._hash_bytes_by_words(theirs[4:])
                hp = hp - 2 ** 32 if hp >= 2 ** 31 else hp
                assert h == hp
                for n in (1, 3, 7, 128):
                    assert abs(h % n if h >= 0 else -((-h) % n)) == rke._bucket_from_hash(hp & 0xFFFFFFFF, n)
        finally:
            lib.pm_binrow_writer_free(ctypes.byref(w))
            lib.pm_batch_free(batch)
