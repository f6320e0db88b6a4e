"""Files our ORC writer wrote, read by pyarrow.orc value for value: every
Paimon type (with its Paimon row type, so CHAR/VARCHAR lengths, BINARY(n),
TIME, timestamp precisions and local-time-zone timestamps are the
writer's), nulls at every level, nested arrays / maps / rows, each
compression, several stripes, small compression chunks, dictionary and
direct strings, file versions 0.11 and 0.12.  pyarrow sees what Paimon's
mapping writes: CHAR values padded with spaces, TIME as int milliseconds,
timestamps in nanoseconds, BINARY as bytes.  Our reader gives back the
written values too.

FIELDS (Paimon SQL type, Paimon JSON type, Arrow type, value generator,
JSON encoding for the Java tool) is shared with test_orc_java.py.
"""
import base64
import datetime
import decimal
import random
import struct

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.orc as po
import pytest

from test_orc_read_arrow import CODECS, first_difference, orc  # noqa: F401 (fixture)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def json_float(v):
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def b64(v):
    return base64.b64encode(v).decode()


EPOCH_DAY = datetime.date(1970, 1, 1)


class Field:
    def __init__(self, sql, jtype, atype, gen, to_json=lambda v: v):
        self.sql, self.jtype, self.atype, self.gen, self.to_json = sql, jtype, atype, gen, to_json


def fields(r):
    """Generators draw from `r`; values near the epoch avoid (-1 s, 0), which ORC cannot hold."""
    def ts(unit, lo, hi):
        per_ms = {"ms": 1, "us": 1000, "ns": 10**6}[unit]
        return lambda: r.choice([r.randint(lo, hi), -1000 * per_ms - r.randint(0, 5000 * per_ms), 0, per_ms * 1000])

    atom = {
        "bool": Field("BOOLEAN", "BOOLEAN", pa.bool_(), lambda: r.random() < 0.3),
        "i8": Field("TINYINT", "TINYINT", pa.int8(), lambda: r.randint(-128, 127)),
        "i16": Field("SMALLINT", "SMALLINT", pa.int16(), lambda: r.choice([r.randint(-32768, 32767), 7, 8])),
        "i32": Field("INT", "INT", pa.int32(), lambda: r.choice([r.randint(-2**31, 2**31 - 1), r.randint(0, 100), 5])),
        "i64": Field("BIGINT", "BIGINT", pa.int64(),
                     lambda: r.choice([r.randint(-2**63, 2**63 - 1), r.randint(0, 10**6), 42, 10**12 + r.randint(0, 5)])),
        "f32": Field("FLOAT", "FLOAT", pa.float32(),
                     lambda: f32(r.choice([r.uniform(-1e5, 1e5), 0.0, -0.0, 1.5, float("nan"), float("inf")])),
                     json_float),
        "f64": Field("DOUBLE", "DOUBLE", pa.float64(),
                     lambda: r.choice([r.uniform(-1e300, 1e300), r.random(), float("nan"), -0.0, 3.0]), json_float),
        "dec": Field("DECIMAL(10, 2)", "DECIMAL(10, 2)", pa.decimal128(10, 2),
                     lambda: decimal.Decimal(r.randint(-10**10 + 1, 10**10 - 1)).scaleb(-2), str),
        "dec38": Field("DECIMAL(38, 10)", "DECIMAL(38, 10)", pa.decimal128(38, 10),
                       lambda: decimal.Decimal(r.choice([r.randint(-10**38 + 1, 10**38 - 1),
                                                         r.randint(0, 1000) * 10**9])).scaleb(-10), str),
        "dec5": Field("DECIMAL(5, 0)", "DECIMAL(5, 0)", pa.decimal128(5, 0),
                      lambda: decimal.Decimal(r.randint(-99999, 99999)), str),
        "char": Field("CHAR(5)", "CHAR(5)", pa.string(), lambda: r.choice(["a", "abcde", "xy", "é"])),
        "vchar": Field("VARCHAR(10)", "VARCHAR(10)", pa.string(), lambda: r.choice(["", "hello", "hé" * 5, "x" * 10])),
        "sdict": Field("STRING", "STRING", pa.string(), lambda: r.choice(["red", "green", "blue", "yellow", ""])),
        "shigh": Field("STRING", "STRING", pa.string(),
                       lambda: "".join(r.choice("abcdefgh") for _ in range(r.randint(0, 30)))),
        "slong": Field("STRING", "STRING", pa.string(),
                       lambda: r.choice(["z", "é"]) * r.randint(1000, 1100) + r.choice(["~", "é", "\x7e"])),
        "bin": Field("BYTES", "BYTES", pa.binary(), lambda: bytes(r.getrandbits(8) for _ in range(r.randint(0, 12))),
                     b64),
        "vbin": Field("VARBINARY(20)", "VARBINARY(20)", pa.binary(),
                      lambda: bytes(r.getrandbits(8) for _ in range(r.randint(0, 20))), b64),
        "date": Field("DATE", "DATE", pa.date32(),
                      lambda: EPOCH_DAY + datetime.timedelta(days=r.randint(-200000, 200000)),
                      lambda v: (v - EPOCH_DAY).days),
        "time": Field("TIME(3)", "TIME(3)", pa.time32("ms"),
                      lambda: datetime.time(r.randint(0, 23), r.randint(0, 59), r.randint(0, 59), r.randint(0, 999) * 1000),
                      lambda v: ((v.hour * 60 + v.minute) * 60 + v.second) * 1000 + v.microsecond // 1000),
        "ts3": Field("TIMESTAMP(3)", "TIMESTAMP(3)", pa.timestamp("ms"), ts("ms", -2**42, 2**42)),
        "ts6": Field("TIMESTAMP(6)", "TIMESTAMP(6)", pa.timestamp("us"), ts("us", -2**50, 2**50)),
        "ts9": Field("TIMESTAMP(9)", "TIMESTAMP(9)", pa.timestamp("ns"), ts("ns", -2**62, 2**62)),
        "ltz3": Field("TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP(3) WITH LOCAL TIME ZONE",
                      pa.timestamp("ms", tz="UTC"), ts("ms", -2**42, 2**42)),
        "ltz6": Field("TIMESTAMP(6) WITH LOCAL TIME ZONE", "TIMESTAMP(6) WITH LOCAL TIME ZONE",
                      pa.timestamp("us", tz="UTC"), ts("us", -2**50, 2**50)),
    }

    def arr(el, n=4, pnull=0.1):
        return lambda: [None if r.random() < pnull else el.gen() for _ in range(r.randint(0, n))]

    atom["lst"] = Field("ARRAY<INT>", {"type": "ARRAY", "element": "INT"}, pa.list_(pa.int32()), arr(atom["i32"]))
    atom["lstlst"] = Field(
        "ARRAY<ARRAY<STRING>>", {"type": "ARRAY", "element": {"type": "ARRAY", "element": "STRING"}},
        pa.list_(pa.list_(pa.string())),
        lambda: [None if r.random() < 0.1 else [r.choice(["p", "q", None]) for _ in range(r.randint(0, 3))]
                 for _ in range(r.randint(0, 3))])
    atom["map"] = Field(
        "MAP<STRING, BIGINT>", {"type": "MAP", "key": "STRING NOT NULL", "value": "BIGINT"},
        pa.map_(pa.string(), pa.int64()),
        lambda: [(str(k) + r.choice("xyz"), None if r.random() < 0.2 else r.randint(-9, 9)) for k in range(r.randint(0, 3))],
        lambda v: [[k, x] for k, x in v])
    atom["map2"] = Field(
        "MAP<INT, ARRAY<DOUBLE>>", {"type": "MAP", "key": "INT NOT NULL", "value": {"type": "ARRAY", "element": "DOUBLE"}},
        pa.map_(pa.int32(), pa.list_(pa.float64())),
        lambda: [(k, [r.random() for _ in range(r.randint(0, 2))]) for k in range(r.randint(0, 2))],
        lambda v: [[k, x] for k, x in v])
    atom["row"] = Field(
        "ROW<a INT, b STRING, c ARRAY<INT>>", None,
        pa.struct([("a", pa.int32()), ("b", pa.string()), ("c", pa.list_(pa.int32()))]),
        lambda: {"a": r.choice([None, r.randint(0, 9)]), "b": r.choice(["u", None, "vv"]),
                 "c": [r.randint(0, 3) for _ in range(r.randint(0, 2))]},
        lambda v: [v["a"], v["b"], v["c"]])
    return atom


ALL = ["bool", "i8", "i16", "i32", "i64", "f32", "f64", "dec", "dec38", "dec5", "char", "vchar", "sdict", "shigh",
       "bin", "vbin", "date", "time", "ts3", "ts6", "ts9", "ltz3", "ltz6", "lst", "lstlst", "map", "map2", "row"]


def build(names, nrows, seed=1, pnull=0.1):
    """(Paimon SQL row type, Java schema fields, JSON rows, Arrow table) of `names`."""
    r = random.Random(seed)
    specs = fields(r)
    chosen = [(n, specs[n]) for n in names]
    next_id = 0
    jfields = []
    for n, f in chosen:  # field ids as pm_type_parse numbers them (pre-order)
        fid = next_id
        next_id += 1
        jt = f.jtype
        if n == "row":
            sub = []
            for sn, st in (("a", "INT"), ("b", "STRING"), ("c", {"type": "ARRAY", "element": "INT"})):
                sub.append({"id": next_id, "name": sn, "type": st})
                next_id += 1
            jt = {"type": "ROW", "fields": sub}
        jfields.append({"id": fid, "name": n, "type": jt})
    sql = "ROW<" + ", ".join(f"{n} {f.sql}" for n, f in chosen) + ">"
    cols = {n: [] for n, _ in chosen}
    rows = []
    for _ in range(nrows):
        row = []
        for n, f in chosen:
            v = None if r.random() < pnull else f.gen()
            cols[n].append(v)
            row.append(None if v is None else f.to_json(v))
        rows.append(row)
    table = pa.table({n: pa.array(cols[n], f.atype) for n, f in chosen})
    return sql, jfields, rows, table


def as_pyarrow_reads(table, sql):
    """The values pyarrow reads back: CHAR padded, TIME as int32, timestamps in ns."""
    out = {}
    for name in table.column_names:
        col = table.column(name)
        t = col.type
        if pa.types.is_time(t):
            col = col.cast(pa.int32())
        elif pa.types.is_timestamp(t):
            col = col.cast(pa.timestamp("ns", tz=t.tz))
        elif name == "char":
            col = pa.chunked_array([pa.array([None if v is None else v + " " * (5 - len(v)) for v in col.to_pylist()])])
        out[name] = col
    return pa.table(out)


def normalized(table):
    """Timestamps as int64 nanoseconds so tz-aware and naive compare as numbers."""
    out = {}
    for name in table.column_names:
        col = table.column(name)
        if pa.types.is_timestamp(col.type):
            col = pc.cast(col.cast(pa.timestamp("ns")), pa.int64())
        out[name] = col
    return pa.table(out)


@pytest.mark.parametrize("codec", list(CODECS))
def test_all_types_read_by_pyarrow(orc, tmp_path, codec):
    sql, _, _, t = build(ALL, 4000, seed=len(codec))
    path = tmp_path / "t.orc"
    orc.write(t, path, sql=sql, opts=orc.options(compression=CODECS[codec], buffer_size=8192,
                                                 enforce_buffer_size=True), batch_rows=1500)
    theirs = po.ORCFile(str(path)).read()
    diff = first_difference(normalized(theirs), normalized(as_pyarrow_reads(t, sql)))
    assert diff is None, diff
    # and our reader, with the Paimon types
    ours = orc.read_table(path.read_bytes(), read_type=sql)
    diff = first_difference(normalized(ours), normalized(t))
    assert diff is None, diff


@pytest.mark.parametrize("opts", [
    {"stripe_size": 300000, "rows_between_checks": 1000, "row_index_stride": 1000},
    {"dictionary_threshold": 0.0},
    {"dictionary_threshold": 1.0, "file_version": 11},
    {"row_index_stride": 0, "encoding_speed": False},
])
def test_layouts_read_by_pyarrow(orc, tmp_path, opts):
    sql, _, _, t = build(ALL, 12000, seed=5)
    path = tmp_path / "t.orc"
    orc.write(t, path, sql=sql, opts=orc.options(**opts), batch_rows=5000)
    f = po.ORCFile(str(path))
    if "stripe_size" in opts:
        assert f.nstripes > 1
    if opts.get("file_version") == 11:
        assert f.file_version == "0.11"
    diff = first_difference(normalized(f.read()), normalized(as_pyarrow_reads(t, sql)))
    assert diff is None, diff


def test_arrow_types_without_paimon_type(orc, tmp_path):
    """Row type derived from Arrow (ids numbered from 0): pyarrow reads its own types back."""
    t = pa.table({"a": pa.array([1, None, 3], pa.int64()), "s": pa.array(["x", None, "z"]),
                  "l": pa.array([[1.5], [], None], pa.list_(pa.float64()))})
    path = tmp_path / "t.orc"
    orc.write(t, path)
    assert po.ORCFile(str(path)).read().equals(t)
