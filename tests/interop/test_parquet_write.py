"""Parquet writer conformance: files written by `paimon-dev write-parquet` read
back by pyarrow and duckdb with the same values and types.

The data is generated here (seeded, reproducible) as pairs of (JSON input
for our CLI, Python value pyarrow should return).  The expected pyarrow
table is built independently from those Python values; duckdb reads our
file and a reference file pyarrow writes from the expected table, and both
results must agree.  Every Paimon type is covered, incl. nested ARRAY /
MAP / MULTISET / ROW with nulls at every level, empty and long strings,
several row groups and pages, dictionary on and off, and every codec.
"""
import base64
import datetime as dt
import decimal
import json
import math
import random
import struct
import subprocess

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import paimon_bin, paimon_dev_bin

EPOCH = dt.datetime(1970, 1, 1)
NESTED_BASE = 536870911


def i32(x):
    """Java int arithmetic (wrap to signed 32 bits)."""
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


# ---- type specs ---------------------------------------------------------------------------------

class T:
    """A Paimon type: SQL text, the Arrow type pyarrow reads it as, a value
    generator returning (json, python) pairs, and children for nested types."""

    def __init__(self, sql, arrow, gen=None, kind="atom", children=(), nullable=True):
        self.sql, self.arrow, self.gen, self.kind = sql, arrow, gen, kind
        self.children, self.nullable = list(children), nullable

    def not_null(self):
        return T(self.sql, self.arrow, self.gen, self.kind, self.children, False)

    def text(self):
        return self.sql + ("" if self.nullable else " NOT NULL")


def atom(sql, arrow, gen):
    return T(sql, arrow, gen)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def ts_text(v, unit, ltz):
    secs, frac = divmod(v, unit)
    s = (EPOCH + dt.timedelta(seconds=secs)).strftime("%Y-%m-%dT%H:%M:%S")
    digits = len(str(unit)) - 1
    if digits:
        s += "." + str(frac).rjust(digits, "0")
    return s + ("Z" if ltz else "")


def g_bool(r):
    v = r.random() < 0.5
    return v, v


def g_int(bits):
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def g(r):
        x = r.random()
        v = lo if x < 0.02 else hi if x < 0.04 else r.randint(max(lo, -1000), min(hi, 1000)) if x < 0.6 else r.randint(lo, hi)
        return v, v
    return g


def g_float(r):
    x = r.random()
    if x < 0.03:
        return "NaN", float("nan")
    if x < 0.05:
        return "-Infinity", float("-inf")
    v = f32(r.choice([0.0, -0.0, 1.5, -2.25]) if x < 0.2 else r.uniform(-1e6, 1e6))
    return v, v


def g_double(r):
    x = r.random()
    if x < 0.03:
        return "NaN", float("nan")
    if x < 0.05:
        return "Infinity", float("inf")
    v = r.choice([0.0, -0.0, 0.1, 1e300]) if x < 0.2 else r.uniform(-1e12, 1e12)
    return v, v


def g_decimal(p, s):
    def g(r):
        x = r.random()
        if x < 0.05:
            u = 10 ** p - 1
        elif x < 0.1:
            u = -(10 ** p - 1)
        else:
            u = r.randint(-(10 ** min(p, r.randint(1, p))) + 1, 10 ** min(p, r.randint(1, p)) - 1)
        d = decimal.Decimal(u).scaleb(-s, context=decimal.Context(prec=60))
        return format(d, "f"), d
    return g


WORDS = ["alpha", "beta", "gamma", "delta", "", "ünïcødé", "日本語", "x" * 40]


def g_string(max_len=None):
    def g(r):
        x = r.random()
        if x < 0.5:
            v = r.choice(WORDS)
        elif x < 0.52:
            v = "".join(r.choice("abcdefghij") for _ in range(r.randint(3000, 9000)))
        else:
            v = "".join(r.choice("abcdefghijklmnopqrstuvwxyzé€") for _ in range(r.randint(0, 30)))
        if max_len is not None:
            v = v[:max_len]
        return v, v
    return g


def g_bytes(max_len=None):
    def g(r):
        n = r.choice([0, 1, 4, 16, r.randint(0, 200)])
        if max_len is not None:
            n = min(n, max_len)
        v = bytes(r.getrandbits(8) for _ in range(n))
        return base64.b64encode(v).decode(), v
    return g


def g_date(r):
    v = r.randint(-700000, 2900000) if r.random() < 0.3 else r.randint(-3000, 30000)
    return (dt.date(1970, 1, 1) + dt.timedelta(days=v)).isoformat(), v


def g_time(precision):
    def g(r):
        v = r.randint(0, 86399999)
        if precision == 0:
            v -= v % 1000
        t = (EPOCH + dt.timedelta(milliseconds=v)).strftime("%H:%M:%S") + ".%03d" % (v % 1000)
        return t, v
    return g


def g_ts(precision, ltz):
    unit = 1000 if precision <= 3 else 10 ** 6 if precision <= 6 else 10 ** 9
    step = unit // (10 ** precision) if precision <= 9 else 1

    def g(r):
        # 1677..2262 fits int64 nanoseconds; keep a margin.
        secs = r.randint(-2208988800, 7258118400) if r.random() < 0.5 else r.randint(1500000000, 1800000000)
        v = secs * unit + r.randrange(0, unit, step)
        return ts_text(v, unit, ltz), v
    return g


def ts_arrow(precision, ltz):
    if precision > 6:
        return pa.timestamp("ns")          # INT96: no zone
    u = "ms" if precision <= 3 else "us"
    return pa.timestamp(u, tz="UTC") if ltz else pa.timestamp(u)


def array(e):
    return T(f"ARRAY<{e.text()}>", None, kind="array", children=[e])


def map_(k, v):
    return T(f"MAP<{k.text()}, {v.text()}>", None, kind="map", children=[k, v])


def multiset(e):
    return T(f"MULTISET<{e.text()}>", None, kind="multiset", children=[e])


def row(fields):
    inner = ", ".join(f"{n} {t.text()}" for n, t in fields)
    t = T(f"ROW<{inner}>", None, kind="row", children=[t for _, t in fields])
    t.names = [n for n, _ in fields]
    return t


def arrow_type(t):
    if t.kind == "atom":
        return t.arrow
    if t.kind == "array":
        e = t.children[0]
        return pa.list_(pa.field("element", arrow_type(e), e.nullable))
    if t.kind == "map":
        return pa.map_(arrow_type(t.children[0]), pa.field("value", arrow_type(t.children[1]), t.children[1].nullable))
    if t.kind == "multiset":
        return pa.map_(arrow_type(t.children[0]), pa.field("value", pa.int32(), False))
    return pa.struct([pa.field(n, arrow_type(c), c.nullable) for n, c in zip(t.names, t.children)])


def gen_value(t, r, null_p):
    """(json, python) for one value of t (None, None for null)."""
    if t.nullable and r.random() < null_p:
        return None, None
    if t.kind == "atom":
        return t.gen(r)
    if t.kind == "array":
        n = r.choice([0, 1, 2, 3, 5])
        pairs = [gen_value(t.children[0], r, null_p) for _ in range(n)]
        return [j for j, _ in pairs], [p for _, p in pairs]
    if t.kind in ("map", "multiset"):
        n = r.choice([0, 1, 2, 4])
        kt = t.children[0].not_null()
        keys, out_j, out_p, seen = 0, [], [], set()
        while keys < n:
            kj, kp = gen_value(kt, r, 0)
            key = repr(kp)
            keys += 1
            if key in seen:
                continue
            seen.add(key)
            if t.kind == "map":
                vj, vp = gen_value(t.children[1], r, null_p)
            else:
                vp = r.randint(1, 5)
                vj = vp
            out_j.append({"key": kj, "value": vj})
            out_p.append((kp, vp))
        return out_j, out_p
    js, ps = {}, {}
    for n, c in zip(t.names, t.children):
        js[n], ps[n] = gen_value(c, r, null_p)
    return js, ps


def all_types():
    a = [
        ("bo", atom("BOOLEAN", pa.bool_(), g_bool)),
        ("ti", atom("TINYINT", pa.int8(), g_int(8))),
        ("sm", atom("SMALLINT", pa.int16(), g_int(16))),
        ("it", atom("INT", pa.int32(), g_int(32)).not_null()),
        ("bi", atom("BIGINT", pa.int64(), g_int(64))),
        ("fl", atom("FLOAT", pa.float32(), g_float)),
        ("do", atom("DOUBLE", pa.float64(), g_double)),
        ("d1", atom("DECIMAL(9, 3)", pa.decimal128(9, 3), g_decimal(9, 3))),
        ("d2", atom("DECIMAL(18, 2)", pa.decimal128(18, 2), g_decimal(18, 2))),
        ("d3", atom("DECIMAL(23, 5)", pa.decimal128(23, 5), g_decimal(23, 5))),
        ("d4", atom("DECIMAL(38, 10)", pa.decimal128(38, 10), g_decimal(38, 10))),
        ("ch", atom("CHAR(5)", pa.string(), g_string(5))),
        ("vc", atom("VARCHAR(20)", pa.string(), g_string(20))),
        ("st", atom("STRING", pa.string(), g_string())),
        ("sn", atom("STRING", pa.string(), g_string()).not_null()),
        ("bn", atom("BINARY(4)", pa.binary(), g_bytes(4))),
        ("vb", atom("VARBINARY(50)", pa.binary(), g_bytes(50))),
        ("by", atom("BYTES", pa.binary(), g_bytes())),
        ("da", atom("DATE", pa.date32(), g_date)),
        ("tm", atom("TIME", pa.time32("ms"), g_time(0))),
        ("t3", atom("TIME(3)", pa.time32("ms"), g_time(3))),
    ]
    for p in (0, 3, 6, 9):
        a.append((f"ts{p}", atom(f"TIMESTAMP({p})", ts_arrow(p, False), g_ts(p, False))))
    for p in (3, 6, 9):
        a.append((f"lz{p}", atom(f"TIMESTAMP({p}) WITH LOCAL TIME ZONE", ts_arrow(p, True), g_ts(p, True))))
    nested = [
        ("ar", array(atom("INT", pa.int32(), g_int(32)))),
        ("aa", array(array(atom("STRING", pa.string(), g_string())))),
        ("an", array(atom("BIGINT", pa.int64(), g_int(64)).not_null()).not_null()),
        ("mp", map_(atom("STRING", pa.string(), g_string()), atom("INT", pa.int32(), g_int(32)))),
        ("mx", map_(atom("INT", pa.int32(), g_int(32)),
                    array(row([("a", atom("DOUBLE", pa.float64(), g_double)),
                               ("b", atom("DECIMAL(20, 4)", pa.decimal128(20, 4), g_decimal(20, 4)))])))),
        ("ms", multiset(atom("STRING", pa.string(), g_string()))),
        ("ro", row([("x", atom("INT", pa.int32(), g_int(32))),
                    ("y", row([("z", atom("TIMESTAMP(6)", ts_arrow(6, False), g_ts(6, False))),
                               ("w", array(atom("DATE", pa.date32(), g_date)))])),
                    ("v", atom("STRING", pa.string(), g_string()).not_null())])),
    ]
    return a + nested


def schema_text(fields):
    return ", ".join(f"{n} {t.text()}" for n, t in fields)


def make_rows(fields, n, seed, null_p=0.15):
    r = random.Random(seed)
    js, ps = [], []
    for _ in range(n):
        j, p = {}, {}
        for name, t in fields:
            j[name], p[name] = gen_value(t, r, null_p)
        js.append(j)
        ps.append(p)
    return js, ps


def expected_table(fields, ps):
    schema = pa.schema([pa.field(n, arrow_type(t), t.nullable) for n, t in fields])
    return pa.Table.from_pylist(ps, schema=schema)


def write(tmp_path, fields, js, options=(), batch_rows=None, name="out.parquet", stats=False):
    src = tmp_path / (name + ".jsonl")
    src.write_text("".join(json.dumps(j, ensure_ascii=False) + "\n" for j in js), encoding="utf-8")
    out = tmp_path / name
    cmd = [paimon_dev_bin(), "write-parquet", "--schema", schema_text(fields), "--input", str(src)]
    for o in options:
        cmd += ["-o", o]
    if batch_rows:
        cmd += ["--batch-rows", str(batch_rows)]
    if stats:
        cmd.append("--stats")
    cmd.append(str(out))
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return out, (json.loads(proc.stdout) if stats else None)


def norm(v):
    """Make values comparable: NaN -> marker, -0.0 kept distinct, maps as lists."""
    if isinstance(v, float):
        if math.isnan(v):
            return ("NaN",)
        return (v, math.copysign(1, v))
    if isinstance(v, list):
        return [norm(x) for x in v]
    if isinstance(v, tuple):
        return tuple(norm(x) for x in v)
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    return v


def same_type(a, b):
    """Arrow type equality, ignoring the names Parquet gives map entries."""
    if pa.types.is_map(a) and pa.types.is_map(b):
        return (same_type(a.key_type, b.key_type) and same_type(a.item_type, b.item_type)
                and a.item_field.nullable == b.item_field.nullable)
    if pa.types.is_list(a) and pa.types.is_list(b):
        return same_type(a.value_type, b.value_type) and a.value_field.nullable == b.value_field.nullable
    if pa.types.is_struct(a) and pa.types.is_struct(b):
        return a.num_fields == b.num_fields and all(
            a.field(i).name == b.field(i).name and a.field(i).nullable == b.field(i).nullable
            and same_type(a.field(i).type, b.field(i).type) for i in range(a.num_fields))
    return a == b


def check_pyarrow(path, fields, ps):
    got = pq.read_table(path)
    want = expected_table(fields, ps)
    assert got.num_rows == len(ps)
    for i, (name, t) in enumerate(fields):
        gf, wf = got.schema.field(i), want.schema.field(i)
        assert gf.name == name
        assert gf.nullable == wf.nullable, name
        assert same_type(gf.type, wf.type), f"{name}: {gf.type} != {wf.type}"
        g, w = got.column(i).to_pylist(), want.column(i).to_pylist()
        if norm(g) != norm(w):
            bad = next(k for k in range(len(g)) if norm(g[k]) != norm(w[k]))
            pytest.fail(f"column {name} row {bad}: got {g[bad]!r}, want {w[bad]!r}")
    return got, want


def check_duckdb(tmp_path, path, want):
    ref = tmp_path / "reference.parquet"
    pq.write_table(want, ref)
    ours = duckdb.sql(f"select * from read_parquet('{path}')")
    theirs = duckdb.sql(f"select * from read_parquet('{ref}')")
    a, b = ours.fetchall(), theirs.fetchall()
    assert len(a) == len(b)
    for k, (x, y) in enumerate(zip(a, b)):
        if norm(list(x)) != norm(list(y)):
            for c, (u, v) in enumerate(zip(x, y)):
                assert norm(u) == norm(v), f"duckdb row {k} column {ours.columns[c]}: {u!r} != {v!r}"


def expected_ids(fields):
    """Field ids the file should carry: Paimon numbers fields 0.. in pre-order;
    nested element/key/value ids per SpecialFields (32-bit wrapping)."""
    ids = {}
    counter = [0]

    def visit(path, t, own_id, nest_id, depth):
        ids[path] = own_id
        if t.kind == "row":
            for n, c in zip(t.names, t.children):
                cid = counter[0]
                counter[0] += 1
                visit(path + (n,), c, cid, cid, 0)
        elif t.kind == "array":
            visit(path + ("element",), t.children[0], i32(NESTED_BASE + nest_id * 1024 + depth + 1), nest_id, depth + 1)
        elif t.kind in ("map", "multiset"):
            visit(path + ("key",), t.children[0], i32(NESTED_BASE - nest_id * 1024 - depth - 1), nest_id, depth + 1)
            vt = t.children[1] if t.kind == "map" else atom("INT", pa.int32(), None).not_null()
            visit(path + ("value",), vt, i32(NESTED_BASE + nest_id * 1024 + depth + 1), nest_id, depth + 1)

    for n, t in fields:
        fid = counter[0]
        counter[0] += 1
        visit((n,), t, fid, fid, 0)
    return ids


def arrow_ids(schema):
    ids = {}

    def visit(path, field):
        md = field.metadata or {}
        if b"PARQUET:field_id" in md:
            ids[path] = int(md[b"PARQUET:field_id"])
        t = field.type
        if pa.types.is_map(t):
            visit(path + ("key",), t.key_field)
            visit(path + ("value",), t.item_field)
        elif pa.types.is_list(t):
            visit(path + ("element",), t.value_field)
        elif pa.types.is_struct(t):
            for i in range(t.num_fields):
                visit(path + (t.field(i).name,), t.field(i))

    for f in schema:
        visit((f.name,), f)
    return ids


# ---- tests --------------------------------------------------------------------------------------

CODECS = ["none", "snappy", "gzip", "zstd", "lz4_raw", "lz4"]


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("dictionary", [True, False])
def test_all_types(tmp_path, codec, dictionary):
    fields = all_types()
    js, ps = make_rows(fields, 1200, seed=CODECS.index(codec) * 2 + dictionary)
    opts = [f"file.compression={codec}", f"parquet.enable.dictionary={str(dictionary).lower()}",
            "parquet.page.size=16kb", "parquet.page.row.count.limit=300", "parquet.block.size=200kb"]
    path, _ = write(tmp_path, fields, js, opts, batch_rows=500)
    md = pq.ParquetFile(path).metadata
    assert md.num_row_groups > 1
    got, want = check_pyarrow(path, fields, ps)
    assert arrow_ids(got.schema) == expected_ids(fields)
    check_duckdb(tmp_path, path, want)
    # pyarrow names Parquet LZ4_RAW "LZ4" and the Hadoop-framed LZ4 "UNKNOWN"
    # (test_parquet_write_footer.py checks the codec ids themselves).
    codec_name = {"none": "UNCOMPRESSED", "lz4_raw": "LZ4", "lz4": "UNKNOWN"}.get(codec, codec.upper())
    for g in range(md.num_row_groups):
        for c in range(md.num_columns):
            col = md.row_group(g).column(c)
            assert col.compression == codec_name
            assert ("PLAIN_DICTIONARY" in col.encodings) == (dictionary and col.has_dictionary_page)


def test_default_options_single_row_group(tmp_path):
    fields = [(n, t) for n, t in all_types() if n in ("it", "bi", "st", "d2", "ts6", "lz9", "mp")]
    js, ps = make_rows(fields, 22000, seed=7)   # > one 20,000-row page
    path, _ = write(tmp_path, fields, js)
    md = pq.ParquetFile(path).metadata
    assert md.num_row_groups == 1
    assert md.row_group(0).column(0).compression == "ZSTD"
    check_pyarrow(path, fields, ps)


def test_strings_edge_cases_and_fallback(tmp_path):
    s = atom("STRING", pa.string(), None)
    fields = [("s", s), ("b", atom("BYTES", pa.binary(), None)), ("k", atom("STRING", pa.string(), None))]
    r = random.Random(3)
    js, ps = [], []
    for i in range(4000):
        x = i % 10
        if x == 0:
            v = ""
        elif x == 1:
            v = None
        elif x == 2:
            v = "long-" + "€" * r.randint(10000, 60000)
        else:
            v = f"value-{r.randint(0, 10 ** 9)}"
        b = v.encode() if v is not None else None
        k = f"k{i // 3}"            # repeats, but the dictionary outgrows its limit
        js.append({"s": v, "b": base64.b64encode(b).decode() if b is not None else None, "k": k})
        ps.append({"s": v, "b": b, "k": k})
    path, _ = write(tmp_path, fields, js, ["parquet.dictionary.page.size=8kb", "parquet.page.size=64kb",
                                           "parquet.page.row.count.limit=300"])
    got, want = check_pyarrow(path, fields, ps)
    check_duckdb(tmp_path, path, want)
    col = pq.ParquetFile(path).metadata.row_group(0).column(2)
    assert col.has_dictionary_page and "PLAIN" in col.encodings   # fell back after the first pages


def test_nulls_everywhere_and_empty(tmp_path):
    fields = [(n, t) for n, t in all_types() if t.nullable]
    js = [{n: None for n, _ in fields} for _ in range(100)]
    ps = [{n: None for n, _ in fields} for _ in range(100)]
    path, _ = write(tmp_path, fields, js)
    check_pyarrow(path, fields, ps)
    path2, _ = write(tmp_path, fields, [], name="empty.parquet")
    t = pq.read_table(path2)
    assert t.num_rows == 0
    assert duckdb.sql(f"select count(*) from read_parquet('{path2}')").fetchall()[0][0] == 0


def test_not_null_violations_fail(tmp_path):
    fields = [("a", atom("INT", pa.int32(), None).not_null())]
    src = tmp_path / "rows.jsonl"
    src.write_text('{"a": 1}\n{"a": null}\n')
    proc = subprocess.run([paimon_dev_bin(), "write-parquet", "--schema", "a INT NOT NULL", "--input", str(src),
                           str(tmp_path / "x.parquet")], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "EINVALID" in proc.stderr


def test_stats_output_matches_data(tmp_path):
    fields = [(n, t) for n, t in all_types() if n in ("bo", "ti", "it", "bi", "fl", "do", "d1", "d3", "st", "by",
                                                       "da", "tm", "ts3", "ts6", "ts9", "lz3", "ar", "ro")]
    js, ps = make_rows(fields, 5000, seed=11)
    path, st = write(tmp_path, fields, js, ["parquet.block.size=64kb"], stats=True)
    assert st["rows"] == 5000
    assert pq.ParquetFile(path).metadata.num_row_groups > 1
    by_name = {c["name"]: c for c in st["stats"]}
    for name, t in fields:
        c = by_name[name]
        vals = [p[name] for p in ps]
        if t.kind != "atom":
            assert "null_count" not in c      # nested: no stats
            continue
        assert c["null_count"] == sum(v is None for v in vals), name
        present = [v for v in vals if v is not None and not (isinstance(v, float) and math.isnan(v))]
        if name == "ts9":
            assert "min" not in c             # INT96: null count only
            continue
        lo, hi = min(present), max(present)
        if t.arrow == pa.binary():
            lo, hi = base64.b64encode(lo).decode(), base64.b64encode(hi).decode()
        elif isinstance(lo, decimal.Decimal):
            lo, hi = decimal.Decimal(c["min"]), decimal.Decimal(c["max"])
            assert (lo, hi) == (min(present), max(present)), name
            continue
        if name in ("st",):
            # unsigned byte order of UTF-8 = code point order
            lo = min(present, key=lambda s: s.encode())
            hi = max(present, key=lambda s: s.encode())
        if isinstance(lo, float):   # infinities print as strings
            assert (float(c["min"]), float(c["max"])) == (lo, hi), name
        else:
            assert (c["min"], c["max"]) == (lo, hi), name
    # footer statistics agree (pyarrow reads them)
    md = pq.ParquetFile(path).metadata
    it = [md.row_group(g).column(2).statistics for g in range(md.num_row_groups)]
    assert min(s.min for s in it) == by_name["it"]["min"]
    assert max(s.max for s in it) == by_name["it"]["max"]
    assert sum(s.null_count for s in it) == 0


def test_random_schemas_roundtrip(tmp_path):
    """Random schemas over every type, random options; pyarrow must read back
    exactly what was written (seeded, reproducible)."""
    pool = all_types()
    for seed in range(12):
        r = random.Random(1000 + seed)
        fields = r.sample(pool, r.randint(1, 8))
        fields = [(f"c{i}_{n}", t) for i, (n, t) in enumerate(fields)]
        n = r.choice([1, 10, 500, 3000])
        js, ps = make_rows(fields, n, seed=seed, null_p=r.choice([0.0, 0.1, 0.5, 0.95]))
        opts = [f"file.compression={r.choice(CODECS)}",
                f"parquet.enable.dictionary={r.choice(['true', 'false'])}",
                f"parquet.page.size={r.choice(['1kb', '64kb', '1mb'])}",
                f"parquet.page.row.count.limit={r.choice([1, 7, 1000, 20000])}",
                f"parquet.dictionary.page.size={r.choice(['256b', '4kb', '1mb'])}",
                f"parquet.block.size={r.choice(['8kb', '1mb', '128mb'])}"]
        path, _ = write(tmp_path, fields, js, opts, batch_rows=r.choice([1, 100, 100000]),
                        name=f"rand{seed}.parquet")
        try:
            check_pyarrow(path, fields, ps)
        except AssertionError as e:
            raise AssertionError(f"seed {seed} options {opts}: {e}") from e
