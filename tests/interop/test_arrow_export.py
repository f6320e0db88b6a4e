"""Arrow C Data Interface interop with pyarrow.

Loads build/libpaimon_testing.so (or $PAIMON_LIB) with ctypes, builds a batch from
JSON lines through `pm_batch_from_json_lines_typed`, exports it with
`pm_batch_export` and imports it into pyarrow (`RecordBatch._import_from_c`),
then compares types and values.  The other direction exports a pyarrow
batch and imports it with `pm_batch_import`, comparing the JSON that
`pm_batch_format_row_json` prints.
"""
import ctypes
import datetime as dt
import decimal
import json
import math
import os
import pathlib

import pyarrow as pa
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIB_PATH = os.environ.get("PAIMON_LIB", str(ROOT / "build" / "libpaimon_testing.so"))


class PmBuf(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("len", ctypes.c_size_t), ("cap", ctypes.c_size_t)]


@pytest.fixture(scope="module")
def lib():
    if not os.path.exists(LIB_PATH):
        pytest.fail(f"{LIB_PATH} not built (run `make build`)")
    lib = ctypes.CDLL(LIB_PATH)
    vp = ctypes.c_void_p
    lib.pm_batch_from_json_lines_typed.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p, ctypes.c_char_p,
                                                   ctypes.c_size_t]
    lib.pm_batch_from_json_lines_typed.restype = vp
    lib.pm_batch_export.argtypes = [vp, vp, vp]
    lib.pm_batch_export.restype = vp
    lib.pm_batch_import.argtypes = [ctypes.POINTER(vp), vp, vp, vp]
    lib.pm_batch_import.restype = vp
    lib.pm_batch_free.argtypes = [vp]
    lib.pm_batch_num_rows.argtypes = [vp]
    lib.pm_batch_num_rows.restype = ctypes.c_int64
    lib.pm_batch_format_row_json.argtypes = [vp, ctypes.c_int64, ctypes.POINTER(PmBuf)]
    lib.pm_batch_format_row_json.restype = vp
    lib.pm_buf_free.argtypes = [ctypes.POINTER(PmBuf)]
    lib.pm_error_format.argtypes = [vp]
    lib.pm_error_format.restype = ctypes.POINTER(ctypes.c_char)
    lib.pm_error_free.argtypes = [vp]
    lib.free = ctypes.CDLL(None).free
    lib.free.argtypes = [vp]
    return lib


def check(lib, err):
    if err:
        p = lib.pm_error_format(err)
        msg = ctypes.cast(p, ctypes.c_char_p).value.decode()
        lib.free(ctypes.cast(p, ctypes.c_void_p))
        lib.pm_error_free(err)
        raise AssertionError(msg)


def batch_from_json(lib, row_type, lines):
    text = "\n".join(json.dumps(r) for r in lines).encode()
    b = ctypes.c_void_p()
    check(lib, lib.pm_batch_from_json_lines_typed(ctypes.byref(b), row_type.encode(), text, len(text)))
    return b


def export_to_pyarrow(lib, b):
    # struct ArrowSchema = 72 bytes, struct ArrowArray = 80 bytes; pyarrow moves them.
    schema = ctypes.create_string_buffer(72)
    array = ctypes.create_string_buffer(80)
    check(lib, lib.pm_batch_export(b, ctypes.addressof(schema), ctypes.addressof(array)))
    return pa.RecordBatch._import_from_c(ctypes.addressof(array), ctypes.addressof(schema))


def rows_as_json(lib, b):
    out = []
    for i in range(lib.pm_batch_num_rows(b)):
        buf = PmBuf()
        check(lib, lib.pm_batch_format_row_json(b, i, ctypes.byref(buf)))
        out.append(json.loads(ctypes.string_at(buf.data, buf.len).decode()))
        lib.pm_buf_free(ctypes.byref(buf))
    return out


ROW_TYPE = ("ROW<b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT NOT NULL, i64 BIGINT, f FLOAT, d DOUBLE, "
            "dec DECIMAL(10, 2), dec38 DECIMAL(38, 5), s STRING, by BYTES, dt DATE, tm TIME(3), "
            "ts3 TIMESTAMP(3), ts6 TIMESTAMP(6), ts9 TIMESTAMP(9), ltz TIMESTAMP(6) WITH LOCAL TIME ZONE, "
            "arr ARRAY<INT>, m MAP<STRING, ARRAY<ROW<x INT, y STRING>>>, ms MULTISET<STRING>, "
            "r ROW<p DOUBLE, q ARRAY<BYTES>>>")

ROWS = [
    {"b": True, "i8": -128, "i16": 300, "i32": 1, "i64": -9223372036854775808, "f": 1.5, "d": -0.0,
     "dec": "-0.50", "dec38": "123456789012345678901234567890123.12345", "s": "h\u00e9 \u4e16",
     "by": "AAH/fw==", "dt": "1969-12-31", "tm": "01:02:03.004", "ts3": "2024-05-14T01:02:03.004",
     "ts6": "1960-01-01T00:00:00.000001", "ts9": "2024-05-14T01:02:03.123456789",
     "ltz": "2024-05-14T01:02:03.000001Z", "arr": [1, None, 3],
     "m": [{"key": "k", "value": [{"x": 1, "y": "z"}, None]}, {"key": "n", "value": None}],
     "ms": [{"key": "a", "value": 2}], "r": {"p": "NaN", "q": ["AQ==", None]}},
    {"b": None, "i8": None, "i16": None, "i32": -2147483648, "i64": None, "f": None, "d": None, "dec": None,
     "dec38": None, "s": None, "by": None, "dt": None, "tm": None, "ts3": None, "ts6": None, "ts9": None,
     "ltz": None, "arr": None, "m": None, "ms": None, "r": None},
    {"b": False, "i8": 127, "i16": -1, "i32": 3, "i64": 9223372036854775807, "f": "-Infinity", "d": 1e300,
     "dec": "99999999.99", "dec38": "-0.00001", "s": "", "by": "", "dt": "2024-02-29", "tm": "23:59:59.999",
     "ts3": "1969-12-31T23:59:59.999", "ts6": "2024-05-14T01:02:03.123456",
     "ts9": "1677-09-21T00:12:43.145224192", "ltz": "1970-01-01T00:00:00.000000Z", "arr": [], "m": [],
     "ms": [], "r": {"p": None, "q": None}},
]


def test_pyarrow_reads_exported_batch(lib):
    b = batch_from_json(lib, ROW_TYPE, ROWS)
    rb = export_to_pyarrow(lib, b)
    lib.pm_batch_free(b)  # the export keeps the columns alive
    rb.validate(full=True)
    s = rb.schema
    assert s.field("i32").nullable is False
    assert s.field("b").nullable is True
    assert s.field("dec") .type == pa.decimal128(10, 2)
    assert s.field("dec38").type == pa.decimal128(38, 5)
    assert s.field("s").type == pa.string()
    assert s.field("by").type == pa.binary()
    assert s.field("dt").type == pa.date32()
    assert s.field("tm").type == pa.time32("ms")
    assert s.field("ts3").type == pa.timestamp("ms")
    assert s.field("ts6").type == pa.timestamp("us")
    assert s.field("ts9").type == pa.timestamp("ns")
    assert s.field("ltz").type == pa.timestamp("us", tz="UTC")
    assert s.field("arr").type == pa.list_(pa.field("element", pa.int32()))
    m = s.field("m").type
    assert isinstance(m, pa.MapType)
    assert m.key_type == pa.string()
    assert m.item_type == pa.list_(pa.field("element", pa.struct([("x", pa.int32()), ("y", pa.string())])))
    assert s.field("ms").type.item_field.type == pa.int32()
    assert s.field("ms").type.item_field.nullable is False
    assert s.field("r").type == pa.struct([("p", pa.float64()), ("q", pa.list_(pa.field("element", pa.binary())))])
    assert s.field("i64").metadata == {b"PARQUET:field_id": b"4"}

    rows = rb.to_pylist()
    r0, r1, r2 = rows
    assert r0["b"] is True and r0["i8"] == -128 and r0["i16"] == 300 and r0["i32"] == 1
    assert r0["i64"] == -(2 ** 63) and r0["f"] == 1.5
    assert r0["d"] == 0.0 and math.copysign(1, r0["d"]) == -1
    assert r0["dec"] == decimal.Decimal("-0.50")
    assert r0["dec38"] == decimal.Decimal("123456789012345678901234567890123.12345")
    assert r0["s"] == "h\u00e9 \u4e16"
    assert r0["by"] == b"\x00\x01\xff\x7f"
    assert r0["dt"] == dt.date(1969, 12, 31)
    assert r0["tm"] == dt.time(1, 2, 3, 4000)
    assert r0["ts3"] == dt.datetime(2024, 5, 14, 1, 2, 3, 4000)
    assert r0["ts6"] == dt.datetime(1960, 1, 1, 0, 0, 0, 1)
    assert rb.column("ts9")[0].value == 1715648523123456789
    assert r0["ltz"] == dt.datetime(2024, 5, 14, 1, 2, 3, 1, tzinfo=dt.timezone.utc)
    assert r0["arr"] == [1, None, 3]
    assert r0["m"] == [("k", [{"x": 1, "y": "z"}, None]), ("n", None)]
    assert r0["ms"] == [("a", 2)]
    assert math.isnan(r0["r"]["p"]) and r0["r"]["q"] == [b"\x01", None]
    assert all(v is None for k, v in r1.items() if k != "i32") and r1["i32"] == -2 ** 31
    assert r2["f"] == float("-inf") and r2["d"] == 1e300
    assert r2["dec38"] == decimal.Decimal("-0.00001")
    assert r2["ts3"] == dt.datetime(1969, 12, 31, 23, 59, 59, 999000)
    assert rb.column("ts9")[2].value == -(2 ** 63)
    assert r2["arr"] == [] and r2["m"] == [] and r2["r"] == {"p": None, "q": None}


def test_many_rows_and_slices(lib):
    rows = [{"id": i, "name": None if i % 7 == 0 else f"n{i}", "xs": None if i % 5 == 0 else list(range(i % 4))}
            for i in range(1000)]
    b = batch_from_json(lib, "ROW<id BIGINT NOT NULL, name STRING, xs ARRAY<INT>>", rows)
    rb = export_to_pyarrow(lib, b)
    rb.validate(full=True)
    assert rb.to_pylist() == rows
    assert rb.slice(100, 10).to_pylist() == rows[100:110]
    assert rb.column("name").null_count == len([r for r in rows if r["name"] is None])
    lib.pm_batch_free(b)


def test_pyarrow_batch_into_paimon(lib):
    rb = pa.RecordBatch.from_pydict({
        "i": pa.array([1, None, 3], pa.int32()),
        "s": pa.array(["a", None, "\u00e9"], pa.large_string()),
        "t": pa.array([0, -1, 1715648523123456], pa.timestamp("us")),
        "d": pa.array([decimal.Decimal("1.50"), None, decimal.Decimal("-0.01")], pa.decimal128(5, 2)),
        "l": pa.array([[1, 2], None, []], pa.list_(pa.int64())),
        "m": pa.array([[("a", 1)], None, []], pa.map_(pa.string(), pa.int32())),
        "st": pa.array([{"x": 1.5}, None, {"x": None}], pa.struct([("x", pa.float64())])),
        "fb": pa.array([b"ab", None, b"\x00\xff"], pa.binary(2)),
        "dt": pa.array([0, None, -1], pa.date32()),
    }).slice(0, 3)
    schema = ctypes.create_string_buffer(72)
    array = ctypes.create_string_buffer(80)
    rb._export_to_c(ctypes.addressof(array), ctypes.addressof(schema))
    b = ctypes.c_void_p()
    check(lib, lib.pm_batch_import(ctypes.byref(b), None, ctypes.addressof(schema), ctypes.addressof(array)))
    # release the pyarrow-exported structs (import copies)
    for buf in (array, schema):
        release = ctypes.cast(ctypes.c_void_p.from_buffer(buf, 64 if buf is array else 56),
                              ctypes.CFUNCTYPE(None, ctypes.c_void_p))
        release(ctypes.addressof(buf))
    got = rows_as_json(lib, b)
    lib.pm_batch_free(b)
    assert got == [
        {"i": 1, "s": "a", "t": "1970-01-01T00:00:00.000000", "d": "1.50", "l": [1, 2],
         "m": [{"key": "a", "value": 1}], "st": {"x": 1.5}, "fb": "YWI=", "dt": "1970-01-01"},
        {"i": None, "s": None, "t": "1969-12-31T23:59:59.999999", "d": None, "l": None, "m": None, "st": None,
         "fb": None, "dt": None},
        {"i": 3, "s": "\u00e9", "t": "2024-05-14T01:02:03.123456", "d": "-0.01", "l": [], "m": [],
         "st": {"x": None}, "fb": "AP8=", "dt": "1969-12-31"},
    ]


def test_roundtrip_through_pyarrow(lib):
    b = batch_from_json(lib, ROW_TYPE, ROWS)
    want = rows_as_json(lib, b)
    rb = export_to_pyarrow(lib, b)
    lib.pm_batch_free(b)
    schema = ctypes.create_string_buffer(72)
    array = ctypes.create_string_buffer(80)
    rb._export_to_c(ctypes.addressof(array), ctypes.addressof(schema))
    b2 = ctypes.c_void_p()
    check(lib, lib.pm_batch_import(ctypes.byref(b2), None, ctypes.addressof(schema), ctypes.addressof(array)))
    for buf, off in ((array, 64), (schema, 56)):
        release = ctypes.cast(ctypes.c_void_p.from_buffer(buf, off), ctypes.CFUNCTYPE(None, ctypes.c_void_p))
        release(ctypes.addressof(buf))
    got = rows_as_json(lib, b2)
    lib.pm_batch_free(b2)
    # MULTISET comes back as MAP and CHAR/VARCHAR lengths are not in Arrow; values are identical
    assert got == want
