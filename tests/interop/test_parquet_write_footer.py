"""Parquet writer, byte level: our footers and pages next to the ones Apache
Paimon Java (parquet-java) wrote for the same schema and rows.

A tiny thrift-compact decoder (below) turns footers and page headers into
{field id: value} dicts.  For each Java-written fixture file whose field ids
our `write-parquet` reproduces (ids numbered 0.. in pre-order), the rows are
read with pyarrow, written again by us, and compared: schema elements
exactly; per column chunk the encodings, encoding stats, statistics (legacy
and new min/max bytes) and value count; every page's header kind, encodings,
value count and its decompressed body byte for byte.  Further tests check
properties of our own files: page CRCs, level encodings, column orders, the
codec ids, and row-group fields.
"""
import base64
import datetime as dt
import decimal
import glob
import json
import os
import struct
import subprocess
import zlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import FIXTURES, paimon_bin, paimon_dev_bin

JAVA = FIXTURES / "java-written" / "parquet"


# ---- thrift compact ----------------------------------------------------------------------------

class _Reader:
    def __init__(self, b, p=0):
        self.b, self.p = b, p

    def byte(self):
        v = self.b[self.p]
        self.p += 1
        return v

    def varint(self):
        r = sh = 0
        while True:
            c = self.byte()
            r |= (c & 0x7F) << sh
            sh += 7
            if not c & 0x80:
                return r

    def zigzag(self):
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def value(self, t):
        if t in (1, 2):
            return t == 1
        if t == 3:
            return struct.unpack("b", bytes([self.byte()]))[0]
        if t in (4, 5, 6):
            return self.zigzag()
        if t == 7:
            v = struct.unpack("<d", self.b[self.p:self.p + 8])[0]
            self.p += 8
            return v
        if t == 8:
            n = self.varint()
            v = bytes(self.b[self.p:self.p + n])
            self.p += n
            return v
        if t in (9, 10):
            h = self.byte()
            n, et = h >> 4, h & 15
            if n == 15:
                n = self.varint()
            return [self.byte() == 1 if et in (1, 2) else self.value(et) for _ in range(n)]
        if t == 12:
            return self.struct()
        raise ValueError(f"thrift type {t}")

    def struct(self):
        d, last = {}, 0
        while True:
            h = self.byte()
            if h == 0:
                return d
            t, delta = h & 15, h >> 4
            fid = last + delta if delta else self.zigzag()
            last = fid
            d[fid] = self.value(t)


def read_footer(path):
    b = open(path, "rb").read()
    assert b[:4] == b"PAR1" and b[-4:] == b"PAR1"
    n = struct.unpack("<I", b[-8:-4])[0]
    return _Reader(b[-8 - n:-8]).struct()


def read_pages(path, meta):
    """[(header dict, compressed bytes)] of one column chunk."""
    b = open(path, "rb").read()
    start = meta.get(11, meta[9])
    end = start + meta[7]
    pages, p = [], start
    while p < end:
        r = _Reader(b, p)
        h = r.struct()
        pages.append((h, b[r.p:r.p + h[3]]))
        p = r.p + h[3]
    assert p == end
    return pages


def decompress(codec, data, size):
    if codec == 0:
        return data
    return pa.decompress(data, decompressed_size=size,
                         codec={1: "snappy", 2: "gzip", 6: "zstd", 7: "lz4_raw"}[codec], asbytes=True)


# ---- JSON input from pyarrow values ------------------------------------------------------------

EPOCH = dt.datetime(1970, 1, 1)


def ts_units(t):
    return {"s": 1, "ms": 1000, "us": 10 ** 6, "ns": 10 ** 9}[t.unit]


def ts_int(v, t):
    if hasattr(v, "value"):            # pandas Timestamp (ns)
        n = v.value
        return n * ts_units(t) // 10 ** 9
    if v.tzinfo is not None:
        v = v.replace(tzinfo=None) - (v.utcoffset() or dt.timedelta(0))
    us = (v - EPOCH) // dt.timedelta(microseconds=1)
    return us * ts_units(t) // 10 ** 6


def to_json(v, t):
    if v is None:
        return None
    if pa.types.is_timestamp(t):
        n, unit = ts_int(v, t), ts_units(t)
        secs, frac = divmod(n, unit)
        s = (EPOCH + dt.timedelta(seconds=secs)).strftime("%Y-%m-%dT%H:%M:%S")
        if unit > 1:
            s += "." + str(frac).rjust(len(str(unit)) - 1, "0")
        return s + ("Z" if t.tz else "")
    if pa.types.is_date(t):
        return v.isoformat()
    if pa.types.is_time(t):
        return v.isoformat()
    if pa.types.is_decimal(t):
        return format(v, "f")
    if pa.types.is_binary(t) or pa.types.is_fixed_size_binary(t):
        return base64.b64encode(v).decode()
    if pa.types.is_floating(t):
        return v if v == v and abs(v) != float("inf") else repr(v).replace("inf", "Infinity").replace("nan", "NaN")
    if pa.types.is_map(t):
        return [{"key": to_json(k, t.key_type), "value": to_json(x, t.item_type)} for k, x in v]
    if pa.types.is_list(t):
        return [to_json(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {t.field(i).name: to_json(v[t.field(i).name], t.field(i).type) for i in range(t.num_fields)}
    return v


def paimon_type_text(fields):
    return ", ".join(f"{f['name']} {type_text(f['type'])}" for f in fields)


def type_text(t):
    if isinstance(t, str):
        return t
    nn = "" if t.get("nullable", True) is not False else " NOT NULL"
    kind = t["type"].split(" ")[0]
    not_null = " NOT NULL" if t["type"].endswith("NOT NULL") else ""
    if kind == "ARRAY":
        return f"ARRAY<{type_text(t['element'])}>{not_null}"
    if kind == "MULTISET":
        return f"MULTISET<{type_text(t['element'])}>{not_null}"
    if kind == "MAP":
        return f"MAP<{type_text(t['key'])}, {type_text(t['value'])}>{not_null}"
    if kind == "ROW":
        return f"ROW<{paimon_type_text(t['fields'])}>{not_null}"
    return t["type"] + nn


def preorder_ids(fields):
    ids = []

    def visit(t):
        if isinstance(t, dict):
            if t["type"].startswith("ROW"):
                for f in t["fields"]:
                    ids.append(f["id"])
                    visit(f["type"])
            for k in ("element", "key", "value"):
                if k in t:
                    visit(t[k])

    for f in fields:
        ids.append(f["id"])
        visit(f["type"])
    return ids


def java_cases():
    """(data file, Paimon fields) for Java-written files our CLI can reproduce."""
    cases = []
    for table in sorted(glob.glob(str(JAVA / "*" / "*"))):
        schemas = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(table, "schema", "schema-*")))]
        for f in sorted(glob.glob(os.path.join(table, "**", "bucket-*", "*.parquet"), recursive=True)):
            md = pq.ParquetFile(f).metadata
            if not md.created_by.startswith("parquet-mr"):
                continue
            names = [c.name for c in pq.ParquetFile(f).schema_arrow]
            for s in schemas:
                ids = preorder_ids(s["fields"])
                if [x["name"] for x in s["fields"]] == names and ids == list(range(len(ids))):
                    cases.append((f, s["fields"]))
                    break
    return cases


CASES = java_cases()


def write_like_java(tmp_path, path, fields):
    table = pq.ParquetFile(path).read()      # not read_table: no hive partition columns
    rows = []
    for r in table.to_pylist():
        rows.append({f.name: to_json(r[f.name], f.type) for f in table.schema})
    src = tmp_path / "rows.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in rows))
    out = tmp_path / "ours.parquet"
    codec = {2: "gzip", 1: "snappy", 6: "zstd", 0: "none"}[read_footer(path)[4][0][1][0][3][4]]
    proc = subprocess.run([paimon_dev_bin(), "write-parquet", "--schema", paimon_type_text(fields), "--input",
                           str(src), "-o", f"file.compression={codec}", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return out


def leaf_levels(schema):
    """{path tuple: (max_def, max_rep)} from thrift schema elements."""
    out = {}
    pos = [1]

    def walk(path, d, r):
        e = schema[pos[0]]
        pos[0] += 1
        rep = e.get(3, 0)
        d2 = d + (rep != 0)
        r2 = r + (rep == 2)
        p = path + (e[4],)
        if 5 in e:
            for _ in range(e[5]):
                walk(p, d2, r2)
        else:
            out[p] = (d2, r2)

    for _ in range(schema[0][5]):
        walk((), 0, 0)
    return out


def page_offsets(path, meta):
    """[(absolute offset, header + compressed size)] of a chunk's data pages."""
    b = open(path, "rb").read()
    start = meta.get(11, meta[9])
    end, p, out = start + meta[7], start, []
    while p < end:
        r = _Reader(b, p)
        h = r.struct()
        if h[1] == 0:
            out.append((p, r.p - p + h[3]))
        p = r.p + h[3]
    return out


def check_histograms(ours, java, max_def, max_rep, rep_id, def_id):
    """parquet-java 1.16 keeps a repetition histogram only when max_rep > 0 and
    a definition histogram only when max_def > 1 (1.15, which wrote the
    fixtures, always kept both); where kept, they must equal Java's."""
    assert (rep_id in ours) == (max_rep > 0)
    assert (def_id in ours) == (max_def > 1)
    if rep_id in ours:
        assert ours[rep_id] == java[rep_id]
    if def_id in ours:
        assert ours[def_id] == java[def_id]


def check_size_stats(ours, java, ptype, max_def, max_rep):
    check_histograms(ours, java, max_def, max_rep, 2, 3)
    # 1.16: unencoded BYTE_ARRAY bytes for every BYTE_ARRAY column (1.15 only for strings)
    assert (1 in ours) == (ptype == 6)
    if 1 in java:
        assert ours[1] == java[1]


def test_found_java_cases():
    # The fixture set has several Java files whose ids we can reproduce.
    assert len(CASES) >= 5


@pytest.mark.parametrize("path,fields", CASES, ids=[os.path.relpath(c[0], JAVA) for c in CASES])
def test_same_as_java(tmp_path, path, fields):
    ours = write_like_java(tmp_path, path, fields)
    jf, of = read_footer(path), read_footer(ours)
    assert of[2] == jf[2], "schema elements differ"
    assert of[1] == jf[1] == 1
    assert of[3] == jf[3]
    assert 5 not in of                         # no key/value metadata
    assert of[7] == jf[7]                      # TYPE_ORDER per leaf
    assert len(of[4]) == len(jf[4]) == 1
    jrg, org = jf[4][0], of[4][0]
    assert org[3] == jrg[3] and org[7] == jrg[7] == 0
    assert set(org) == set(jrg)
    jb, ob = open(path, "rb").read(), open(ours, "rb").read()
    leaves = leaf_levels(of[2])
    for jc, oc in zip(jrg[1], org[1]):
        jm, om = jc[3], oc[3]
        assert oc[2] == 0                      # ColumnChunk.file_offset, as parquet-java 1.15+
        assert set(oc) == set(jc), om[3]       # incl. page index offsets/lengths (4-7)
        # parquet-java < 1.15 (1.13 wrote some fixtures) has no size statistics.
        modern = 16 in jm
        assert set(om) - (set() if modern else {16}) == set(jm), om[3]
        max_def, max_rep = leaves[tuple(om[3])]
        if modern:
            check_size_stats(om[16], jm[16], om[1], max_def, max_rep)
        # page indexes: same content (histograms by the 1.16 rules, see below)
        if 6 in jc:
            jci, oci = _Reader(jb, jc[6]).struct(), _Reader(ob, oc[6]).struct()
            for k in (1, 2, 3, 4, 5):
                assert oci[k] == jci[k], (om[3], k, oci[k], jci[k])
            if modern:
                check_histograms(oci, jci, max_def, max_rep, 6, 7)
        joi, ooi = _Reader(jb, jc[4]).struct(), _Reader(ob, oc[4]).struct()
        assert [p[3] for p in ooi[1]] == [p[3] for p in joi[1]]          # first_row_index
        assert [(p[1], p[2]) for p in ooi[1]] == page_offsets(ours, om)       # where our pages are
        if 2 in joi:
            assert ooi[2] == joi[2]
        for k in (1, 3, 4, 5):
            assert om[k] == jm[k], (om[3], k)
        assert sorted(om[2]) == sorted(jm[2]), om[3]
        assert sorted(map(str, om.get(13, []))) == sorted(map(str, jm.get(13, []))), om[3]
        assert om.get(12) == jm.get(12), (om[3], om.get(12), jm.get(12))
        jp, op = read_pages(path, jm), read_pages(ours, om)
        assert len(op) == len(jp)
        for (jh, jd), (oh, od) in zip(jp, op):
            assert oh[1] == jh[1] and oh[2] == jh[2]
            for k in (5, 7):                   # data / dictionary page headers
                assert oh.get(k) == jh.get(k), (om[3], k)
            assert 4 in oh                     # page CRC like parquet-java
            assert decompress(om[4], od, oh[2]) == decompress(jm[4], jd, jh[2]), om[3]


# ---- properties of our files -------------------------------------------------------------------

def write(tmp_path, schema, rows, *opts):
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.parquet"
    cmd = [paimon_dev_bin(), "write-parquet", "--schema", schema, "--input", str(src), str(out)]
    for o in opts:
        cmd[2:2] = ["-o", o]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.mark.parametrize("codec,cid", [("none", 0), ("snappy", 1), ("gzip", 2), ("lz4", 5), ("zstd", 6),
                                       ("lz4_raw", 7)])
def test_pages_crc_levels_codec(tmp_path, codec, cid):
    rows = [{"a": i, "b": None if i % 3 == 0 else f"s{i % 5}", "c": [i, None] if i % 2 else None,
             "d": {"x": i} if i % 4 else None} for i in range(5000)]
    out = write(tmp_path, "a BIGINT NOT NULL, b STRING, c ARRAY<INT>, d ROW<x INT>", rows,
                f"file.compression={codec}", "parquet.page.row.count.limit=1000")
    f = read_footer(out)
    assert f[2][0] == {4: b"paimon_schema", 5: 4}        # root: name and children only
    assert f[6].startswith(b"paimon-c version ")
    rg = f[4][0]
    assert rg[5] == 4 and rg[7] == 0
    assert rg[2] == sum(c[3][6] for c in rg[1])
    assert rg[6] == sum(c[3][7] for c in rg[1])
    expect_levels = {b"a": (0, 0), b"b": (1, 0), b"c": (3, 1), b"x": (2, 0)}
    for c in rg[1]:
        m = c[3]
        assert m[4] == cid
        max_def, max_rep = expect_levels[m[3][-1] if m[3][-1] != b"element" else b"c"]
        pages = read_pages(out, m)
        data_pages = [h for h, _ in pages if h[1] == 0]
        assert len(data_pages) == 5                     # 1000 rows per page
        assert sum(h[5][1] for h in data_pages) == m[5]
        for h, d in pages:
            assert h[4] == struct.unpack("<i", struct.pack("<I", zlib.crc32(d)))[0]
            assert h[3] == len(d)
            if h[1] == 0:
                dph = h[5]
                assert dph[3] == (3 if max_def else 4)  # RLE, or BIT_PACKED without levels
                assert dph[4] == (3 if max_rep else 4)
                assert dph[2] in (0, 2)
            else:
                assert h[1] == 2 and h[7][2] == 2       # PLAIN_DICTIONARY dictionary page
        assert 4 in set(m[2]) or (max_def and max_rep)
        if max_def or max_rep:
            assert 3 in m[2]
    # column chunk offsets are consistent and contiguous
    pos = 4
    for c in rg[1]:
        m = c[3]
        assert m.get(11, m[9]) == pos
        pos += m[7]


def test_statistics_layout(tmp_path):
    rows = [{"i": i - 50, "s": f"v{i:03d}", "d": f"{i}.5", "f": "NaN" if i == 3 else i / 2,
             "t": f"2020-01-01T00:00:00.{i:09d}", "u": "2020-01-01T00:00:00.000000001", "e": "x", "big": "z" * 5000 if i < 2 else "a"}
            for i in range(100)]
    out = write(tmp_path, "i INT, s STRING, d DECIMAL(10, 1), f DOUBLE, t TIMESTAMP(9), u TIMESTAMP(9), e STRING, big STRING", rows)
    cols = {c[3][3][0]: c[3][12] for c in read_footer(out)[4][0][1]}
    assert cols[b"i"] == {1: struct.pack("<i", 49), 2: struct.pack("<i", -50), 3: 0,
                          5: struct.pack("<i", 49), 6: struct.pack("<i", -50)}
    assert cols[b"s"] == {3: 0, 5: b"v099", 6: b"v000"}           # unsigned order: no legacy min/max
    assert cols[b"d"] == {3: 0, 5: struct.pack("<q", 995), 6: struct.pack("<q", 5)}   # DECIMAL: no legacy
    assert cols[b"f"][5] == struct.pack("<d", 49.5) and cols[b"f"][6] == struct.pack("<d", -0.0)  # NaN ignored
    assert cols[b"t"] == {3: 0}                                    # INT96: null count only ...
    u = struct.pack("<qi", 1, 2458850)                             # ... unless all values are equal
    assert cols[b"u"] == {1: u, 2: u, 3: 0, 5: u, 6: u}
    assert cols[b"e"] == {1: b"x", 2: b"x", 3: 0, 5: b"x", 6: b"x"}  # min == max: legacy too
    assert cols[b"big"] == {}                                      # min + max >= 4096 bytes: dropped


# ---- page indexes of our own files -------------------------------------------------------------

def page_index(path, chunk):
    b = open(path, "rb").read()
    ci = _Reader(b, chunk[6]).struct() if 6 in chunk else None
    oi = _Reader(b, chunk[4]).struct()
    if ci is not None:
        assert len(b[chunk[6]:chunk[6] + chunk[7]]) == chunk[7]
    return ci, oi


def trunc_max_utf8(s, limit=64):
    """Expected column-index max of a long UTF-8 string (BinaryTruncator)."""
    b = s.encode()
    if len(b) <= limit:
        return b
    k = limit
    while k and not valid_utf8(b[:k]):
        k -= 1
    p = bytearray(b[:k])
    for i in range(k - 1, -1, -1):
        if p[i] != 0xFF:
            old = p[i]
            p[i] += 1
            if valid_utf8(bytes(p)):
                return bytes(p)
            p[i] = old
    return b


def valid_utf8(b):
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def test_page_index_contents(tmp_path):
    n = 5000
    rows = []
    for i in range(n):
        rows.append({
            "asc": i, "desc": n - i, "rnd": (i * 7919) % 10007,
            "nul": None if i < 2500 else i,                        # the first pages hold only nulls
            "s": ("é" * 40 + f"{i:05d}") if i % 3 else None,       # 85 bytes: truncated to 64 in the index
            "f": "NaN" if i == 4321 else i / 3,                    # NaN: no column index
            "t": f"2020-01-01T00:00:00.{i:09d}",                   # INT96: no column index
            "a": [i, None] if i % 2 else [],
        })
    out = write(tmp_path, "asc INT NOT NULL, desc BIGINT, rnd INT, nul INT, s STRING, f DOUBLE, t TIMESTAMP(9), "
                "a ARRAY<INT>", rows, "parquet.page.row.count.limit=1000", "parquet.block.size=64kb")
    f = read_footer(out)
    assert len(f[4]) > 1                                          # several row groups
    first = 0
    names = ["asc", "desc", "rnd", "nul", "s", "f", "t", "a"]
    orders = {}
    for rg in f[4]:
        nrows = rg[3]
        for name, c in zip(names, rg[1]):
            m = c[3]
            ci, oi = page_index(out, c)
            locs = oi[1]
            assert [(p[1], p[2]) for p in locs] == page_offsets(out, m)
            starts = [p[3] for p in locs]
            assert starts[0] == 0 and starts == sorted(starts)
            bounds = list(zip(starts, starts[1:] + [nrows]))
            if name == "t" or (name == "f" and first <= 4321 < first + nrows):
                assert ci is None, name
                continue
            assert ci is not None, name
            pages = [[r[name] for r in rows[first + a:first + b]] for a, b in bounds]
            if name == "f":
                assert ci[4] == 1
                continue
            if name == "a":
                # one null per row (an empty list or a null element); histograms kept (max_def 3, max_rep 1)
                assert ci[5] == [len(pg) for pg in pages]
                odd = [sum(1 for v in pg if v) for pg in pages]
                assert ci[6] == [x for pg, o in zip(pages, odd) for x in (len(pg), o)]
                assert ci[7] == [x for pg, o in zip(pages, odd) for x in (0, len(pg) - o, o, o)]
                continue
            assert ci[1] == [all(v is None for v in pg) for pg in pages], name
            assert ci[5] == [sum(v is None for v in pg) for pg in pages], name
            for k, pg in enumerate(pages):
                vals = [v for v in pg if v is not None]
                if not vals:
                    assert ci[2][k] == b"" and ci[3][k] == b""
                    continue
                if name == "s":
                    lo, hi = min(vals).encode(), max(vals)
                    assert ci[2][k] == lo[:64] or ci[2][k] == lo[:63]    # cut at a character boundary
                    assert valid_utf8(ci[2][k]) and lo.startswith(ci[2][k])
                    assert ci[3][k] == trunc_max_utf8(hi) and ci[3][k] > hi.encode()[:len(ci[3][k])]
                    assert oi[2][k] == sum(len(v.encode()) for v in vals)
                else:
                    fmt = "<i" if name in ("asc", "rnd", "nul") else "<q"
                    assert struct.unpack(fmt, ci[2][k])[0] == min(vals)
                    assert struct.unpack(fmt, ci[3][k])[0] == max(vals)
            orders[name] = orders.get(name, set()) | {ci[4]}
            mins = [min(v for v in pg if v is not None) for pg in pages if any(v is not None for v in pg)]
            maxs = [max(v for v in pg if v is not None) for pg in pages if any(v is not None for v in pg)]
            if name != "s":
                asc = all(a <= b for a, b in zip(mins, mins[1:])) and all(a <= b for a, b in zip(maxs, maxs[1:]))
                desc = all(a >= b for a, b in zip(mins, mins[1:])) and all(a >= b for a, b in zip(maxs, maxs[1:]))
                assert ci[4] == (1 if asc else 2 if desc else 0), name
        first += nrows
    assert first == n
    assert orders["asc"] == {1} and 2 in orders["desc"] and 0 in orders["rnd"]
