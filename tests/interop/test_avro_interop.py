"""Avro interop with fastavro, through libpaimon_testing.so and ctypes.

Three directions, every comparison on canonical values (timestamps as epoch
microseconds, times as microseconds of day, maps as ordered (key, value)
pairs, records as dicts):

1. Files WE write (pm_avro_writer from a pyarrow batch imported with
   pm_batch_import) are read by fastavro: identical values for every
   primitive and logical type, nulls, nested arrays/maps/records, each codec.
2. Files FASTAVRO writes (each codec incl. zstandard, several blocks) are
   read by us (pm_avro_reader with the file's own schema, batches exported
   to pyarrow) identically.
3. Every Avro file Java wrote under fixtures/java-written (manifests,
   manifest lists, index manifests, avro data files) decodes to what
   fastavro reads.
"""
import ctypes
import datetime as dt
import decimal
import io
import os
import pathlib

import fastavro
import pyarrow as pa
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIB_PATH = os.environ.get("PAIMON_LIB", str(ROOT / "build" / "libpaimon_testing.so"))
FIXTURES = pathlib.Path(os.environ.get("PAIMON_FIXTURES", ROOT / ".." / "shared" / "fixtures")).resolve()
CODECS = ["null", "deflate", "snappy", "zstandard"]
CODEC_IDS = {"null": 0, "snappy": 1, "zstandard": 6, "deflate": 100}

EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
EPOCH = dt.datetime(1970, 1, 1)


class WriteOptions(ctypes.Structure):
    _fields_ = [("codec", ctypes.c_int), ("level", ctypes.c_int), ("block_rows", ctypes.c_int64),
                ("block_bytes", ctypes.c_size_t)]


class ReadOptions(ctypes.Structure):
    _fields_ = [("batch_rows", ctypes.c_int64), ("max_block_bytes", ctypes.c_size_t)]


@pytest.fixture(scope="module")
def lib():
    if not os.path.exists(LIB_PATH):
        pytest.fail(f"{LIB_PATH} not built (run `make build`)")
    lib = ctypes.CDLL(LIB_PATH)
    vp, pvp = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)
    sigs = {
        "pm_type_parse": ([pvp, ctypes.c_char_p], vp),
        "pm_type_free": ([vp], None),
        "pm_batch_import": ([pvp, vp, vp, vp], vp),
        "pm_batch_export": ([vp, vp, vp], vp),
        "pm_batch_free": ([vp], None),
        "pm_fileio_local_new": ([pvp], vp),
        "pm_fileio_free": ([vp], None),
        "pm_output_create": ([vp, ctypes.c_char_p, ctypes.c_bool, pvp], vp),
        "pm_output_close": ([vp, ctypes.c_bool], vp),
        "pm_avro_writer_open": ([vp, vp, ctypes.POINTER(WriteOptions), pvp], vp),
        "pm_avro_writer_write": ([vp, vp], vp),
        "pm_avro_writer_finish": ([vp], vp),
        "pm_avro_writer_free": ([vp], None),
        "pm_avro_reader_open_memory": ([ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, vp,
                                        ctypes.POINTER(ReadOptions), pvp], vp),
        "pm_avro_reader_next": ([vp, pvp], vp),
        "pm_avro_reader_free": ([vp], None),
        "pm_error_format": ([vp], ctypes.POINTER(ctypes.c_char)),
        "pm_error_free": ([vp], None),
    }
    for name, (args, res) in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = res
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


def parse_type(lib, text):
    t = ctypes.c_void_p()
    check(lib, lib.pm_type_parse(ctypes.byref(t), text.encode()))
    return t


def write_avro(lib, path, row_type, batch, codec, block_rows=0, block_bytes=0):
    """Write a pyarrow RecordBatch with our Avro writer."""
    t = parse_type(lib, row_type)
    schema = ctypes.create_string_buffer(72)
    array = ctypes.create_string_buffer(80)
    batch._export_to_c(ctypes.addressof(array), ctypes.addressof(schema))
    b = ctypes.c_void_p()
    try:
        check(lib, lib.pm_batch_import(ctypes.byref(b), t, ctypes.addressof(schema),
                                       ctypes.addressof(array)))
    finally:
        # release the exported C structs (release callback at offset 56 / 64)
        for buf, off in ((array, 64), (schema, 56)):
            rel = ctypes.c_void_p.from_buffer(buf, off).value
            if rel:
                ctypes.CFUNCTYPE(None, ctypes.c_void_p)(rel)(ctypes.addressof(buf))
    fio, out, w = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    check(lib, lib.pm_fileio_local_new(ctypes.byref(fio)))
    check(lib, lib.pm_output_create(fio, str(path).encode(), False, ctypes.byref(out)))
    opt = WriteOptions(CODEC_IDS[codec], 0, block_rows, block_bytes)
    check(lib, lib.pm_avro_writer_open(out, t, ctypes.byref(opt), ctypes.byref(w)))
    check(lib, lib.pm_avro_writer_write(w, b))
    check(lib, lib.pm_avro_writer_finish(w))
    lib.pm_avro_writer_free(w)
    check(lib, lib.pm_output_close(out, True))
    lib.pm_fileio_free(fio)
    lib.pm_batch_free(b)
    lib.pm_type_free(t)


def read_avro(lib, data, row_type=None, batch_rows=0):
    """Read Avro bytes with our reader; returns (pyarrow schema, rows as dicts)."""
    t = parse_type(lib, row_type) if row_type else None
    r = ctypes.c_void_p()
    opt = ReadOptions(batch_rows, 0)
    check(lib, lib.pm_avro_reader_open_memory(data, len(data), b"mem", t, ctypes.byref(opt),
                                              ctypes.byref(r)))
    rows, schema = [], None
    try:
        while True:
            b = ctypes.c_void_p()
            check(lib, lib.pm_avro_reader_next(r, ctypes.byref(b)))
            if not b.value:
                break
            cs = ctypes.create_string_buffer(72)
            ca = ctypes.create_string_buffer(80)
            check(lib, lib.pm_batch_export(b, ctypes.addressof(cs), ctypes.addressof(ca)))
            rb = pa.RecordBatch._import_from_c(ctypes.addressof(ca), ctypes.addressof(cs))
            schema = rb.schema
            rows.extend(canon_arrow_row(rb.schema, row) for row in rb.to_pylist())
    finally:
        lib.pm_avro_reader_free(r)
        if t:
            lib.pm_type_free(t)
    return schema, rows


# ---- canonical values ----

def ts_micros(v):
    if v.tzinfo is not None:
        return (v - EPOCH_UTC) // dt.timedelta(microseconds=1)
    return (v - EPOCH) // dt.timedelta(microseconds=1)


def time_micros(v):
    return ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond


def canon_arrow(t, v):
    if v is None:
        return None
    if pa.types.is_struct(t):
        return {t.field(i).name: canon_arrow(t.field(i).type, v[t.field(i).name])
                for i in range(t.num_fields)}
    if pa.types.is_map(t):
        return [(canon_arrow(t.key_type, k), canon_arrow(t.item_type, x)) for k, x in v]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [canon_arrow(t.value_type, x) for x in v]
    if pa.types.is_timestamp(t):
        return ts_micros(v)
    if pa.types.is_time(t):
        return time_micros(v)
    return v


def canon_arrow_row(schema, row):
    return {f.name: canon_arrow(f.type, row[f.name]) for f in schema}


class AvroCanon:
    """Canonical form of fastavro values, driven by the writer schema."""

    def __init__(self, schema):
        self.names = {}
        self.register(schema, None)

    def register(self, s, ns):
        """Record every named type up front (references may precede values)."""
        if isinstance(s, list):
            for b in s:
                self.register(b, ns)
        elif isinstance(s, dict):
            t = s.get("type")
            if t in ("record", "error", "enum", "fixed"):
                name = s["name"]
                space = name.rsplit(".", 1)[0] if "." in name else s.get("namespace", ns)
                short = name.rsplit(".", 1)[-1]
                self.names[f"{space}.{short}" if space else short] = s
                self.names[short] = s
                for f in s.get("fields", []):
                    self.register(f["type"], space)
            elif t == "array":
                self.register(s["items"], ns)
            elif t == "map":
                self.register(s["values"], ns)
            elif isinstance(t, (dict, list)):
                self.register(t, ns)

    def canon(self, s, v, ns=None):
        if isinstance(s, str):
            if s in self.names:
                return self.canon(self.names[s], v, ns)
            if ns and f"{ns}.{s}" in self.names:
                return self.canon(self.names[f"{ns}.{s}"], v, ns)
            return v
        if isinstance(s, list):
            if v is None:
                return None
            branches = [b for b in s if b != "null"]
            assert len(branches) == 1, s
            return self.canon(branches[0], v, ns)
        t = s["type"]
        if isinstance(t, (dict, list)):
            return self.canon(t, v, ns)
        if t in ("record", "error", "enum", "fixed"):
            name = s["name"]
            space = name.rsplit(".", 1)[0] if "." in name else s.get("namespace", ns)
            if t in ("record", "error"):
                return {f["name"]: self.canon(f["type"], v[f["name"]], space) for f in s["fields"]}
            return v
        lt = s.get("logicalType")
        if t == "array":
            items = s["items"]
            if lt == "map":
                rec = items if isinstance(items, dict) else self.names[items]
                ktype = next(f["type"] for f in rec["fields"] if f["name"] == "key")
                vtype = next(f["type"] for f in rec["fields"] if f["name"] == "value")
                return [(self.canon(ktype, e["key"], ns), self.canon(vtype, e["value"], ns))
                        for e in v]
            return [self.canon(items, x, ns) for x in v]
        if t == "map":
            return [(k, self.canon(s["values"], x, ns)) for k, x in v.items()]
        if lt and lt.startswith(("timestamp-", "local-timestamp-")):
            return ts_micros(v)
        if lt in ("time-millis", "time-micros"):
            return time_micros(v)
        return v


def fastavro_rows(data):
    r = fastavro.reader(io.BytesIO(data))
    schema = r.writer_schema
    c = AvroCanon(schema)
    return r, [c.canon(schema, rec) for rec in r]


# ---- 1. we write, fastavro reads ----

ALL_TYPE = (
    "ROW<b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT NOT NULL, i64 BIGINT, f FLOAT, d DOUBLE,"
    " dec DECIMAL(10, 2), dec38 DECIMAL(38, 5), s STRING, vb BYTES, dt DATE, tm TIME(3),"
    " ts3 TIMESTAMP(3), ts6 TIMESTAMP(6), ltz3 TIMESTAMP(3) WITH LOCAL TIME ZONE,"
    " ltz6 TIMESTAMP(6) WITH LOCAL TIME ZONE, arr ARRAY<INT>, arr2 ARRAY<ARRAY<STRING NOT NULL>> NOT NULL,"
    " m MAP<STRING, ARRAY<ROW<x INT, y STRING>>>, mi MAP<INT, DOUBLE>,"
    " r ROW<p DOUBLE, q ARRAY<BYTES>, n ROW<z BIGINT NOT NULL>>>")


def all_types_batch(n):
    def row(i):
        if i % 4 == 3:  # mostly nulls
            return dict(i32=i, arr2=[])
        return dict(
            b=i % 2 == 0, i8=(-128 + i) % 256 - 128, i16=-32768 + i, i32=i * 1000003 - 2**31 + 1,
            i64=(2**63 - 1) - i, f=1.5 * i, d=-2.25e-300 * (i + 1),
            dec=decimal.Decimal(f"{i * 12345}.{i % 100:02d}"),
            dec38=decimal.Decimal("-123456789012345678901234567890123.45678") + i,
            s=f"h\u00e9llo {i} \"q\"", vb=bytes(range(i % 7)),
            dt=dt.date(1969, 12, 31) + dt.timedelta(days=i * 37),
            tm=dt.time(23, 59, 59, 999000) if i % 2 else dt.time(0, 0, i % 60, 1000),
            ts3=dt.datetime(1900, 1, 1, 0, 0, 0, 1000) + dt.timedelta(days=i),
            ts6=dt.datetime(2262, 4, 11, 23, 47, 16, 854775) - dt.timedelta(microseconds=i),
            ltz3=dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(milliseconds=i - 5),
            ltz6=dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=dt.timezone.utc)
            + dt.timedelta(microseconds=i),
            arr=[1, None, i], arr2=[["a"], [], ["b", str(i)]],
            m=[("k1", [{"x": i, "y": "one"}, None]), ("k2", None)],
            mi=[(7, 0.5), (-i, None)],
            r={"p": 1e100, "q": [b"\x01\x02", None], "n": {"z": i}},
        )
    rows = [row(i) for i in range(n)]
    schema = pa.schema([
        pa.field("b", pa.bool_()), pa.field("i8", pa.int8()), pa.field("i16", pa.int16()),
        pa.field("i32", pa.int32(), nullable=False), pa.field("i64", pa.int64()),
        pa.field("f", pa.float32()), pa.field("d", pa.float64()),
        pa.field("dec", pa.decimal128(10, 2)), pa.field("dec38", pa.decimal128(38, 5)),
        pa.field("s", pa.string()), pa.field("vb", pa.binary()), pa.field("dt", pa.date32()),
        pa.field("tm", pa.time32("ms")), pa.field("ts3", pa.timestamp("ms")),
        pa.field("ts6", pa.timestamp("us")), pa.field("ltz3", pa.timestamp("ms", "UTC")),
        pa.field("ltz6", pa.timestamp("us", "UTC")), pa.field("arr", pa.list_(pa.int32())),
        pa.field("arr2", pa.list_(pa.list_(pa.field("item", pa.string(), nullable=False))),
                 nullable=False),
        pa.field("m", pa.map_(pa.string(), pa.list_(pa.struct([("x", pa.int32()), ("y", pa.string())])))),
        pa.field("mi", pa.map_(pa.int32(), pa.float64())),
        pa.field("r", pa.struct([("p", pa.float64()), ("q", pa.list_(pa.binary())),
                                 pa.field("n", pa.struct([pa.field("z", pa.int64(), nullable=False)]))])),
    ])
    return pa.RecordBatch.from_pylist(rows, schema=schema)


@pytest.mark.parametrize("codec", CODECS)
def test_we_write_fastavro_reads(lib, tmp_path, codec):
    batch = all_types_batch(50)
    path = tmp_path / f"ours-{codec}.avro"
    write_avro(lib, path, ALL_TYPE, batch, codec, block_rows=16)
    data = path.read_bytes()
    reader, got = fastavro_rows(data)
    assert reader.codec == codec
    assert reader.metadata["avro.codec"] == codec
    assert reader.writer_schema["name"].endswith("record")
    want = [canon_arrow_row(batch.schema, r) for r in batch.to_pylist()]
    assert len(got) == len(want) == 50
    for g, w in zip(got, want):
        assert g == w
    # and we read our own file back identically
    _, ours = read_avro(lib, data, ALL_TYPE, batch_rows=7)
    assert ours == want


def test_we_write_default_block_size(lib, tmp_path):
    """64000-byte sync interval: a large batch becomes several blocks fastavro reads."""
    n = 5000
    batch = pa.RecordBatch.from_pylist(
        [{"id": i, "s": "x" * (i % 50)} for i in range(n)],
        schema=pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("s", pa.string())]))
    path = tmp_path / "big.avro"
    write_avro(lib, path, "ROW<id BIGINT NOT NULL, s STRING>", batch, "zstandard")
    data = path.read_bytes()
    blocks = list(fastavro.block_reader(io.BytesIO(data)))
    assert len(blocks) > 1
    assert sum(b.num_records for b in blocks) == n
    _, got = fastavro_rows(data)
    assert got == batch.to_pylist()


# ---- 2. fastavro writes, we read ----

GENERIC_SCHEMA = {
    "type": "record", "name": "Top", "namespace": "x.y",
    "fields": [
        {"name": "n_first", "type": ["null", "long"]},
        {"name": "n_last", "type": ["string", "null"]},
        {"name": "bo", "type": "boolean"},
        {"name": "i", "type": "int"},
        {"name": "l", "type": "long"},
        {"name": "f", "type": "float"},
        {"name": "d", "type": "double"},
        {"name": "by", "type": "bytes"},
        {"name": "e", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN", "BLUE"]}},
        {"name": "fx", "type": {"type": "fixed", "name": "Four", "size": 4}},
        {"name": "dec_b", "type": {"type": "bytes", "logicalType": "decimal", "precision": 20, "scale": 4}},
        {"name": "dec_f", "type": {"type": "fixed", "name": "D8", "size": 8, "logicalType": "decimal",
                                   "precision": 18, "scale": 3}},
        {"name": "date", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tmil", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "tmic", "type": {"type": "long", "logicalType": "time-micros"}},
        {"name": "tsm", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tsu", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "ltsm", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
        {"name": "ltsu", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
        {"name": "arr", "type": {"type": "array", "items": ["null", "Color"]}},
        {"name": "mp", "type": {"type": "map", "values": {"type": "array", "items": "double"}}},
        {"name": "rec", "type": ["null", {"type": "record", "name": "Inner", "fields": [
            {"name": "a", "type": "string"},
            {"name": "b", "type": {"type": "map", "values": ["null", "Four"]}}]}]},
        {"name": "again", "type": ["null", "Inner"]},
        {"name": "kv", "type": {"type": "array", "logicalType": "map", "items": {
            "type": "record", "name": "KV", "fields": [
                {"name": "key", "type": "int"}, {"name": "value", "type": ["null", "string"]}]}}},
    ],
}


def generic_records(n):
    out = []
    for i in range(n):
        out.append({
            "n_first": None if i % 3 == 0 else -i * 1000,
            "n_last": None if i % 2 else f"s{i}",
            "bo": i % 2 == 1,
            "i": -2**31 + i,
            "l": 2**63 - 1 - i,
            "f": float(i) / 4,
            "d": -1.0e300 / (i + 1),
            "by": bytes([i % 256]) * (i % 5),
            "e": ["RED", "GREEN", "BLUE"][i % 3],
            "fx": bytes([i % 256, 1, 2, 3]),
            "dec_b": decimal.Decimal(i * 7919 - 50000).scaleb(-4),
            "dec_f": decimal.Decimal(-i * 123457).scaleb(-3),
            "date": dt.date(1970, 1, 1) + dt.timedelta(days=i * 1000 - 30000),
            "tmil": dt.time(i % 24, i % 60, i % 60, (i * 1000) % 1000000),
            "tmic": dt.time(i % 24, 7, 8, (i * 1000) % 1000000),  # whole millis: TIME keeps millis
            "tsm": dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(milliseconds=i * 999),
            "tsu": dt.datetime(1960, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(microseconds=i * 99999),
            "ltsm": dt.datetime(2001, 2, 3, 4, 5, 6, 7000) + dt.timedelta(milliseconds=i),
            "ltsu": dt.datetime(1969, 12, 31, 23, 59, 59, 999999) + dt.timedelta(microseconds=i),
            "arr": [None if j % 2 else ["RED", "GREEN", "BLUE"][j % 3] for j in range(i % 4)],
            "mp": {f"k{j}": [float(j)] * j for j in range(i % 3)},
            "rec": None if i % 4 == 0 else {"a": str(i), "b": {"z": None, "w": b"wxyz"}},
            "again": {"a": "again", "b": {}},
            "kv": [{"key": j, "value": None if j % 2 else str(j)} for j in range(i % 3)],
        })
    return out


@pytest.mark.parametrize("codec", CODECS)
def test_fastavro_writes_we_read(lib, codec):
    buf = io.BytesIO()
    fastavro.writer(buf, GENERIC_SCHEMA, generic_records(300), codec=codec, sync_interval=2000)
    data = buf.getvalue()
    assert len(list(fastavro.block_reader(io.BytesIO(data)))) > 3
    _, want = fastavro_rows(data)
    schema, got = read_avro(lib, data, batch_rows=64)
    assert len(got) == 300
    # the file's own schema mapped to Paimon types, exported to Arrow
    assert pa.types.is_decimal(schema.field("dec_f").type)
    assert pa.types.is_map(schema.field("kv").type)
    for g, w in zip(got, want):
        assert g == w


def test_fastavro_projection(lib):
    buf = io.BytesIO()
    fastavro.writer(buf, GENERIC_SCHEMA, generic_records(40), codec="zstandard")
    data = buf.getvalue()
    _, want = fastavro_rows(data)
    _, got = read_avro(lib, data, "ROW<rec ROW<a STRING>, i BIGINT, missing STRING, d DOUBLE>")
    for g, w in zip(got, want):
        assert g == {"rec": None if w["rec"] is None else {"a": w["rec"]["a"]}, "i": w["i"],
                     "missing": None, "d": w["d"]}


def zigzag(n):
    u = (n << 1) ^ (n >> 63)
    out = bytearray()
    while u >= 0x80:
        out.append((u & 0x7F) | 0x80)
        u >>= 7
    out.append(u)
    return bytes(out)


def test_zstd_frames_without_content_size(lib):
    """Java writes zstandard blocks as frames without a content size; a block
    may also hold several frames.  Rebuild fastavro's blocks that way."""
    import zstandard
    recs = [{"a": i, "s": "v" * (i % 13)} for i in range(2000)]
    schema = {"type": "record", "name": "R",
              "fields": [{"name": "a", "type": "long"}, {"name": "s", "type": "string"}]}
    buf = io.BytesIO()
    fastavro.writer(buf, schema, recs, codec="null", sync_interval=4000)
    plain = buf.getvalue()
    blocks = list(fastavro.block_reader(io.BytesIO(plain)))
    assert len(blocks) > 2
    # header: everything before the first block = data up to the first sync end
    r = fastavro.reader(io.BytesIO(plain))
    sync = r._header["sync"]
    header_end = plain.index(sync) + 16
    header = plain[:header_end].replace(b"\x08null", b"\x12zstandard")
    assert header != plain[:header_end]
    out = bytearray(header)
    for k, b in enumerate(blocks):
        raw = b.bytes_.getvalue() if hasattr(b.bytes_, "getvalue") else bytes(b.bytes_)
        if k % 2:  # two streamed frames, no content size
            half = len(raw) // 2
            comp = b""
            for part in (raw[:half], raw[half:]):
                c = zstandard.ZstdCompressor(write_content_size=False).compressobj()
                comp += c.compress(part) + c.flush()
        else:
            c = zstandard.ZstdCompressor(write_content_size=False).compressobj()
            comp = c.compress(raw) + c.flush()
        out += zigzag(b.num_records) + zigzag(len(comp)) + comp + sync
    data = bytes(out)
    _, want = fastavro_rows(data)
    assert want == recs
    _, got = read_avro(lib, data, batch_rows=333)
    assert got == recs


# ---- 3. Java-written files ----

def java_avro_files():
    out = []
    for p in sorted((FIXTURES / "java-written").rglob("*")):
        if p.is_file():
            with open(p, "rb") as f:
                if f.read(4) == b"Obj\x01":
                    out.append(p)
    return out


def test_java_written_avro_files(lib):
    files = java_avro_files()
    assert len(files) >= 250
    kinds = {"manifest-list": 0, "index-manifest": 0, "manifest": 0, "data": 0}
    rows = 0
    for p in files:
        data = p.read_bytes()
        _, want = fastavro_rows(data)
        _, got = read_avro(lib, data, batch_rows=3)
        assert got == want, str(p)
        rows += len(got)
        name = p.name
        for k in kinds:
            if name.startswith(k) or (k == "data" and ("avro-format/data" in str(p) or name.endswith(".avro"))):
                kinds[k] += 1
                break
    assert all(v > 0 for v in kinds.values()), kinds
    assert rows > len(files)


# ---- 4. `paimon cat` on Avro files ----

class CatJson:
    """fastavro values in the JSON encoding `paimon cat` prints (types/value.h)."""

    def __init__(self, schema):
        self.c = AvroCanon(schema)

    def enc(self, s, v, ns=None):
        import base64
        if isinstance(s, str):
            if s in self.c.names:
                return self.enc(self.c.names[s], v, ns)
            if ns and f"{ns}.{s}" in self.c.names:
                return self.enc(self.c.names[f"{ns}.{s}"], v, ns)
            if v is None:
                return None
            if s == "bytes":
                return base64.b64encode(v).decode()
            if s in ("float", "double"):
                if v != v:
                    return "NaN"
                if v in (float("inf"), float("-inf")):
                    return "Infinity" if v > 0 else "-Infinity"
                if s == "float":  # cat prints the shortest text that reads back as the float32
                    import struct
                    want = struct.pack("<f", v)
                    for digits in range(1, 10):
                        text = f"{v:.{digits}g}"
                        if struct.pack("<f", float(text)) == want:
                            return float(text)
            return v
        if isinstance(s, list):
            if v is None:
                return None
            return self.enc(next(b for b in s if b != "null"), v, ns)
        t = s["type"]
        if isinstance(t, (dict, list)):
            return self.enc(t, v, ns)
        lt = s.get("logicalType")
        if v is None:
            return None
        if t in ("record", "error"):
            name = s["name"]
            space = name.rsplit(".", 1)[0] if "." in name else s.get("namespace", ns)
            return {f["name"]: self.enc(f["type"], v[f["name"]], space) for f in s["fields"]}
        if lt == "decimal":
            return f"{v:.{s.get('scale', 0)}f}"
        if t == "enum":
            return v
        if t == "fixed":
            return self.enc("bytes", v)
        if t == "array":
            items = s["items"]
            if lt == "map":
                rec = items if isinstance(items, dict) else self.c.names[items]
                kt = next(f["type"] for f in rec["fields"] if f["name"] == "key")
                vt = next(f["type"] for f in rec["fields"] if f["name"] == "value")
                return [{"key": self.enc(kt, e["key"], ns), "value": self.enc(vt, e["value"], ns)}
                        for e in v]
            return [self.enc(items, x, ns) for x in v]
        if t == "map":
            return [{"key": k, "value": self.enc(s["values"], x, ns)} for k, x in v.items()]
        if lt == "date":
            return v.isoformat()
        if lt in ("time-millis", "time-micros"):
            frac = 3 if lt == "time-millis" else 6
            return v.strftime("%H:%M:%S") + "." + f"{v.microsecond // 1000:03d}".ljust(frac, "0")
        if lt and lt.startswith(("timestamp-", "local-timestamp-")):
            digits = 3 if lt.endswith("millis") else 6
            naive = v.astimezone(dt.timezone.utc).replace(tzinfo=None) if v.tzinfo else v
            text = naive.strftime("%Y-%m-%dT%H:%M:%S") + "." + f"{naive.microsecond:06d}"[:digits]
            return text + ("Z" if lt.startswith("local-") else "")
        return self.enc(t, v, ns)


def cat_rows(path, *args):
    import json
    import subprocess
    paimon = os.environ.get("PAIMON_BIN", str(ROOT / "build" / "paimon"))
    proc = subprocess.run([paimon, "cat", *args, str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def cat_expected(data):
    r = fastavro.reader(io.BytesIO(data))
    e = CatJson(r.writer_schema)
    return [e.enc(r.writer_schema, rec) for rec in r]


def test_paimon_cat_java_avro_files():
    files = java_avro_files()
    assert len(files) >= 250
    for p in files:
        assert cat_rows(p) == cat_expected(p.read_bytes()), str(p)


@pytest.mark.parametrize("codec", CODECS)
def test_paimon_cat_fastavro_files(tmp_path, codec):
    path = tmp_path / f"g-{codec}.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, GENERIC_SCHEMA, generic_records(120), codec=codec, sync_interval=3000)
    want = cat_expected(path.read_bytes())
    assert cat_rows(path) == want
    # --columns projects (and reorders), --limit stops early
    got = cat_rows(path, "--columns", "kv,e,rec", "--limit", "7")
    assert got == [{"kv": w["kv"], "e": w["e"], "rec": w["rec"]} for w in want[:7]]
