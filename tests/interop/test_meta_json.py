"""Schema and snapshot JSON interop with pypaimon.

Loads build/libpaimon_testing.so (or $PAIMON_LIB) with ctypes.

1. pypaimon creates and writes tables (partitioned, primary key, nested
   types, comment); our parser reads its schema and snapshot files (pypaimon
   writes `json.dumps` layout, "comment": null and extra "nullable" keys) and
   our Java-layout output carries the same values.
2. We create schema-0 of a new table (pm_schema_new_table + pm_schema_commit);
   pypaimon opens that table, sees the same fields, keys and options, writes
   rows into it and reads them back.
"""
import ctypes
import json
import os
import pathlib

import pyarrow as pa
import pytest

pypaimon = pytest.importorskip("pypaimon")
from pypaimon import CatalogFactory, Schema  # noqa: E402

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
    sz = ctypes.c_size_t
    lib.pm_schema_parse.argtypes = [ctypes.c_char_p, sz, ctypes.c_char_p, ctypes.POINTER(vp)]
    lib.pm_schema_parse.restype = vp
    lib.pm_schema_to_json.argtypes = [vp, ctypes.POINTER(PmBuf)]
    lib.pm_schema_to_json.restype = vp
    lib.pm_schema_free.argtypes = [vp]
    lib.pm_snapshot_parse.argtypes = [ctypes.c_char_p, sz, ctypes.c_char_p, ctypes.POINTER(vp)]
    lib.pm_snapshot_parse.restype = vp
    lib.pm_snapshot_to_json.argtypes = [vp, ctypes.POINTER(PmBuf)]
    lib.pm_snapshot_to_json.restype = vp
    lib.pm_snapshot_free.argtypes = [vp]
    lib.pm_type_parse.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p]
    lib.pm_type_parse.restype = vp
    lib.pm_type_free.argtypes = [vp]
    lib.pm_options_new.argtypes = [ctypes.POINTER(vp)]
    lib.pm_options_new.restype = vp
    lib.pm_options_set.argtypes = [vp, ctypes.c_char_p, ctypes.c_char_p]
    lib.pm_options_set.restype = vp
    lib.pm_options_free.argtypes = [vp]
    lib.pm_schema_new_table.argtypes = [ctypes.POINTER(vp), vp, ctypes.POINTER(ctypes.c_char_p), sz,
                                        ctypes.POINTER(ctypes.c_char_p), sz, vp, ctypes.c_char_p,
                                        ctypes.c_int64]
    lib.pm_schema_new_table.restype = vp
    lib.pm_fileio_local_new.argtypes = [ctypes.POINTER(vp)]
    lib.pm_fileio_local_new.restype = vp
    lib.pm_fileio_free.argtypes = [vp]
    lib.pm_schema_commit.argtypes = [vp, ctypes.c_char_p, vp, ctypes.POINTER(ctypes.c_bool)]
    lib.pm_schema_commit.restype = vp
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


def reserialize(lib, kind, path):
    """Parse a schema/snapshot file with our library and return our JSON text."""
    data = pathlib.Path(path).read_bytes()
    obj = ctypes.c_void_p()
    check(lib, getattr(lib, f"pm_{kind}_parse")(data, len(data), str(path).encode(), ctypes.byref(obj)))
    buf = PmBuf()
    check(lib, getattr(lib, f"pm_{kind}_to_json")(obj, ctypes.byref(buf)))
    text = ctypes.string_at(buf.data, buf.len).decode()
    lib.pm_buf_free(ctypes.byref(buf))
    getattr(lib, f"pm_{kind}_free")(obj)
    return text


def strip_pypaimon(v):
    """Drop pypaimon-only spellings: nested "nullable" keys and null optional values."""
    if isinstance(v, dict):
        return {k: strip_pypaimon(x) for k, x in v.items() if k != "nullable" and x is not None}
    if isinstance(v, list):
        return [strip_pypaimon(x) for x in v]
    return v


def make_catalog(tmp_path):
    return CatalogFactory.create({"warehouse": str(tmp_path / "wh")})


def test_read_pypaimon_metadata(lib, tmp_path):
    catalog = make_catalog(tmp_path)
    catalog.create_database("db", False)
    pa_schema = pa.schema([
        pa.field("k", pa.int64(), nullable=False),
        ("dt", pa.string()),
        ("tags", pa.list_(pa.string())),
        ("attrs", pa.map_(pa.string(), pa.int32())),
        ("pos", pa.struct([("x", pa.float64()), ("y", pa.float64())])),
        ("amount", pa.decimal128(12, 3)),
        ("ts", pa.timestamp("us")),
    ])
    schema = Schema.from_pyarrow_schema(pa_schema, partition_keys=["dt"], primary_keys=["k", "dt"],
                                        options={"bucket": "2", "file.format": "parquet"},
                                        comment=None)
    catalog.create_table("db.t", schema, False)
    table = catalog.get_table("db.t")
    wb = table.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(pa.Table.from_pylist([
        {"k": 1, "dt": "2024-01-01", "tags": ["a"], "attrs": [("x", 1)], "pos": {"x": 1.0, "y": 2.0},
         "amount": None, "ts": None},
        {"k": 2, "dt": "2024-01-02", "tags": None, "attrs": None, "pos": None, "amount": None, "ts": None},
    ], schema=pa_schema))
    c.commit(w.prepare_commit())
    w.close()
    c.close()

    tdir = tmp_path / "wh" / "db.db" / "t"
    py_schema = json.loads((tdir / "schema" / "schema-0").read_text())
    ours = reserialize(lib, "schema", tdir / "schema" / "schema-0")
    assert ours.startswith('{\n  "version" : 3,\n  "id" : 0,\n  "fields" : [ {\n')
    assert json.loads(ours) == strip_pypaimon(py_schema)

    snaps = sorted((tdir / "snapshot").glob("snapshot-*"))
    assert snaps
    for s in snaps:
        py_snap = json.loads(s.read_text())
        ours = json.loads(reserialize(lib, "snapshot", s))
        for key, value in py_snap.items():
            if value is None:
                assert key not in ours or ours[key] is None, key
            else:
                assert ours[key] == value, key


def new_table_schema(lib, tdir, row_type, partition, primary, options, comment):
    t = ctypes.c_void_p()
    check(lib, lib.pm_type_parse(ctypes.byref(t), row_type.encode()))
    o = ctypes.c_void_p()
    check(lib, lib.pm_options_new(ctypes.byref(o)))
    for k, v in options.items():
        check(lib, lib.pm_options_set(o, k.encode(), v.encode()))
    parts = (ctypes.c_char_p * max(1, len(partition)))(*[p.encode() for p in partition])
    pks = (ctypes.c_char_p * max(1, len(primary)))(*[p.encode() for p in primary])
    s = ctypes.c_void_p()
    check(lib, lib.pm_schema_new_table(ctypes.byref(s), t, parts, len(partition), pks, len(primary), o,
                                       comment.encode() if comment else None, 1700000000000))
    fio = ctypes.c_void_p()
    check(lib, lib.pm_fileio_local_new(ctypes.byref(fio)))
    committed = ctypes.c_bool()
    check(lib, lib.pm_schema_commit(fio, str(tdir).encode(), s, ctypes.byref(committed)))
    assert committed.value
    check(lib, lib.pm_schema_commit(fio, str(tdir).encode(), s, ctypes.byref(committed)))
    assert not committed.value  # schema-0 exists: publish-if-absent refuses
    lib.pm_fileio_free(fio)
    lib.pm_schema_free(s)
    lib.pm_options_free(o)
    lib.pm_type_free(t)


def test_pypaimon_uses_our_schema(lib, tmp_path):
    catalog = make_catalog(tmp_path)
    catalog.create_database("db", False)
    tdir = tmp_path / "wh" / "db.db" / "ours"
    new_table_schema(lib, tdir,
                     "ROW<id BIGINT, p STRING, name STRING, score DOUBLE, tags ARRAY<STRING>, "
                     "m MAP<STRING, INT>, r ROW<a INT, b STRING>>",
                     ["p"], ["id", "p"], {"bucket": "1", "file.format": "parquet",
                                          "deletion-vectors.enabled": "false"}, "made by paimon-c")
    text = (tdir / "schema" / "schema-0").read_text()
    assert '"comment" : "made by paimon-c"' in text

    table = catalog.get_table("db.ours")
    ts = table.table_schema
    assert [f.name for f in ts.fields] == ["id", "p", "name", "score", "tags", "m", "r"]
    assert [f.id for f in ts.fields] == [0, 1, 2, 3, 4, 5, 6]
    assert ts.partition_keys == ["p"]
    assert ts.primary_keys == ["id", "p"]
    assert ts.options["bucket"] == "1"
    assert ts.highest_field_id == 8  # r.a = 7, r.b = 8
    assert not ts.fields[0].type.nullable  # primary keys become NOT NULL

    rows = [{"id": 1, "p": "x", "name": "a", "score": 1.5, "tags": ["t"], "m": [("k", 1)],
             "r": {"a": 1, "b": "q"}},
            {"id": 2, "p": "y", "name": None, "score": None, "tags": None, "m": None, "r": None}]
    from pypaimon.schema.data_types import PyarrowFieldParser
    arrow_schema = PyarrowFieldParser.from_paimon_schema(ts.fields)
    wb = table.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(pa.Table.from_pylist(rows, schema=arrow_schema))
    c.commit(w.prepare_commit())
    w.close()
    c.close()
    rb = table.new_read_builder()
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()
    got.sort(key=lambda r: r["id"])
    assert [r["id"] for r in got] == [1, 2]
    assert got[0]["name"] == "a" and got[0]["r"] == {"a": 1, "b": "q"}
    assert got[1]["tags"] is None

    # the snapshot pypaimon wrote parses with our reader
    snap = json.loads(reserialize(lib, "snapshot", tdir / "snapshot" / "snapshot-1"))
    assert snap["id"] == 1 and snap["schemaId"] == 0 and snap["commitKind"] == "APPEND"
