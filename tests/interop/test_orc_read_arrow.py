"""Our ORC reader against pyarrow.orc (and, for the fixtures, against what
Apache Paimon Java wrote): files written by pyarrow with every type it
writes (nulls at every level, nested lists / maps / structs, negative
timestamps, NaN and infinities, 38-digit decimals), each compression,
dictionary and direct strings, several stripes and small compression
chunks, are read through libpaimon_testing.so (ctypes:
pm_orc_reader_open_memory / next_batch, exported with pm_batch_export and
validated by pyarrow) and must give pyarrow's values, row for row, at any
batch size and projection.  The 42 ORC manifests and manifest lists Java
wrote (java-written-orc-manifests, writer time zone Asia/Shanghai) read
as pyarrow reads them.

This module also holds the ctypes helpers the other test_orc_*.py use.
"""
import ctypes
import datetime
import decimal
import io
import os
import random

import pyarrow as pa
import pyarrow.orc as po
import pytest

from conftest import FIXTURES, ROOT

LIB_PATH = os.environ.get("PAIMON_LIB", str(ROOT / "build" / "libpaimon_testing.so"))
vp = ctypes.c_void_p

CODECS = {"none": 0, "zlib": 1, "snappy": 2, "lz4": 4, "zstd": 5}


class ReaderOptions(ctypes.Structure):
    _fields_ = [("batch_rows", ctypes.c_int64), ("columns", vp), ("ncolumns", ctypes.c_size_t),
                ("column_ids", vp), ("ncolumn_ids", ctypes.c_size_t), ("read_type", vp),
                ("filter", vp), ("filter_ctx", vp), ("max_value_bytes", ctypes.c_size_t),
                ("max_batch_elements", ctypes.c_size_t), ("footer_only", ctypes.c_bool), ("codec", vp)]


class WriterOptions(ctypes.Structure):
    _fields_ = [("compression", ctypes.c_uint32), ("zstd_level", ctypes.c_int), ("stripe_size", ctypes.c_int64),
                ("stripe_row_count", ctypes.c_int64), ("block_size", ctypes.c_int64),
                ("block_padding", ctypes.c_bool), ("padding_tolerance", ctypes.c_double),
                ("row_index_stride", ctypes.c_int32), ("buffer_size", ctypes.c_int32),
                ("enforce_buffer_size", ctypes.c_bool), ("dictionary_threshold", ctypes.c_double),
                ("dictionary_early_check", ctypes.c_bool), ("direct_columns", vp),
                ("ndirect_columns", ctypes.c_size_t), ("file_version", ctypes.c_int),
                ("encoding_speed", ctypes.c_bool), ("compression_speed", ctypes.c_bool),
                ("rows_between_checks", ctypes.c_int64), ("batch_size", ctypes.c_int32),
                ("software_version", ctypes.c_char_p), ("user_metadata", vp), ("nuser_metadata", ctypes.c_size_t)]


class Orc:
    """ctypes face of src/format/orc (reader, writer) and the Arrow bridge."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        sig = {
            "pm_orc_reader_open_memory": ([ctypes.POINTER(vp), ctypes.c_char_p, ctypes.c_size_t,
                                           ctypes.POINTER(ReaderOptions)], vp),
            "pm_orc_reader_next_batch": ([vp, ctypes.POINTER(vp)], vp),
            "pm_orc_reader_free": ([vp], None),
            "pm_orc_writer_options_default": ([ctypes.POINTER(WriterOptions)], None),
            "pm_orc_writer_new": ([ctypes.POINTER(vp), vp, vp, ctypes.POINTER(WriterOptions)], vp),
            "pm_orc_writer_write": ([vp, vp], vp),
            "pm_orc_writer_close": ([vp, vp], vp),
            "pm_orc_writer_abort": ([vp], None),
            "pm_batch_export": ([vp, vp, vp], vp),
            "pm_batch_import": ([ctypes.POINTER(vp), vp, vp, vp], vp),
            "pm_batch_type": ([vp], vp),
            "pm_batch_free": ([vp], None),
            "pm_type_parse": ([ctypes.POINTER(vp), ctypes.c_char_p], vp),
            "pm_type_free": ([vp], None),
            "pm_fileio_local_new": ([ctypes.POINTER(vp)], vp),
            "pm_fileio_free": ([vp], None),
            "pm_output_create": ([vp, ctypes.c_char_p, ctypes.c_bool, ctypes.POINTER(vp)], vp),
            "pm_output_close": ([vp, ctypes.c_bool], vp),
            "pm_output_abort": ([vp], None),
            "pm_error_format": ([vp], ctypes.c_char_p),
            "pm_error_free": ([vp], None),
        }
        for name, (args, res) in sig.items():
            f = getattr(lib, name)
            f.argtypes = args
            f.restype = res
        self.lib = lib

    def check(self, err):
        if err:
            msg = self.lib.pm_error_format(err).decode()
            self.lib.pm_error_free(err)
            raise RuntimeError(msg)

    def parse_type(self, sql):
        t = vp()
        self.check(self.lib.pm_type_parse(ctypes.byref(t), sql.encode()))
        return t

    def read(self, data, batch_rows=0, columns=None, read_type=None):
        """All batches of an ORC file in memory, as validated pyarrow RecordBatches."""
        opts = ReaderOptions(batch_rows=batch_rows)
        keep = []
        if columns is not None:
            arr = (ctypes.c_char_p * len(columns))(*[c.encode() for c in columns])
            keep.append(arr)
            opts.columns = ctypes.cast(arr, vp)
            opts.ncolumns = len(columns)
        rt = self.parse_type(read_type) if read_type else None
        opts.read_type = rt
        r = vp()
        try:
            self.check(self.lib.pm_orc_reader_open_memory(ctypes.byref(r), data, len(data), ctypes.byref(opts)))
            out = []
            while True:
                b = vp()
                self.check(self.lib.pm_orc_reader_next_batch(r, ctypes.byref(b)))
                if not b.value:
                    break
                schema = ctypes.create_string_buffer(128)
                array = ctypes.create_string_buffer(128)
                self.check(self.lib.pm_batch_export(b, ctypes.addressof(schema), ctypes.addressof(array)))
                rb = pa.RecordBatch._import_from_c(ctypes.addressof(array), ctypes.addressof(schema))
                rb.validate(full=True)
                out.append(rb)
            return out
        finally:
            if r.value:
                self.lib.pm_orc_reader_free(r)
            if rt:
                self.lib.pm_type_free(rt)

    def read_table(self, data, **kw):
        batches = self.read(data, **kw)
        if not batches:
            return None
        return pa.Table.from_batches(batches)

    def options(self, **kw):
        o = WriterOptions()
        self.lib.pm_orc_writer_options_default(ctypes.byref(o))
        for k, v in kw.items():
            setattr(o, k, v)
        return o

    def _import(self, rb, row_type):
        schema = ctypes.create_string_buffer(128)
        array = ctypes.create_string_buffer(128)
        rb._export_to_c(ctypes.addressof(array), ctypes.addressof(schema))
        b = vp()
        err = self.lib.pm_batch_import(ctypes.byref(b), row_type, ctypes.addressof(schema), ctypes.addressof(array))
        # ArrowSchema.release at offset 56, ArrowArray.release at offset 64
        for buf, off in ((array, 64), (schema, 56)):
            rel = ctypes.cast(ctypes.addressof(buf) + off, ctypes.POINTER(vp)).contents.value
            if rel:
                ctypes.CFUNCTYPE(None, vp)(rel)(ctypes.addressof(buf))
        self.check(err)
        return b

    def write(self, table, path, sql=None, opts=None, batch_rows=4096):
        """Write a pyarrow table with our writer (row type `sql`, else derived from Arrow)."""
        lib = self.lib
        rt = self.parse_type(sql) if sql else None
        fio = vp()
        self.check(lib.pm_fileio_local_new(ctypes.byref(fio)))
        out = vp()
        w = vp()
        try:
            self.check(lib.pm_output_create(fio, str(path).encode(), True, ctypes.byref(out)))
            for rb in table.to_batches(max_chunksize=batch_rows) or [pa.RecordBatch.from_pylist([], table.schema)]:
                b = self._import(rb, rt)
                try:
                    if not w.value:
                        self.check(lib.pm_orc_writer_new(ctypes.byref(w), out, lib.pm_batch_type(b),
                                                         ctypes.byref(opts) if opts else None))
                    self.check(lib.pm_orc_writer_write(w, b))
                finally:
                    lib.pm_batch_free(b)
            ww, w = w, vp()
            self.check(lib.pm_orc_writer_close(ww, None))
            oo, out = out, vp()
            self.check(lib.pm_output_close(oo, False))
        finally:
            if w.value:
                lib.pm_orc_writer_abort(w)
            if out.value:
                lib.pm_output_abort(out)
            if rt:
                lib.pm_type_free(rt)
            lib.pm_fileio_free(fio)


@pytest.fixture(scope="module")
def orc():
    if not os.path.exists(LIB_PATH):
        pytest.fail(f"{LIB_PATH} not built (run `make build`)")
    return Orc(LIB_PATH)


def same(a, b):
    """Values equal, NaN equal to NaN, nested included."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def first_difference(ours, theirs):
    for name in theirs.column_names:
        a = ours.column(name).to_pylist()
        b = theirs.column(name).to_pylist()
        if len(a) != len(b):
            return f"{name}: {len(a)} rows, expected {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            if not same(x, y):
                return f"{name} row {i}: {x!r} != {y!r}"
    return None


# ---------------------------------------------------------------------------
# pyarrow-written files

def arrow_table(n, seed):
    r = random.Random(seed)

    def col(gen, p=0.1):
        return [None if r.random() < p else gen(i) for i in range(n)]

    return pa.table({
        "b": pa.array(col(lambda i: r.random() < 0.5), pa.bool_()),
        "i8": pa.array(col(lambda i: r.randint(-128, 127)), pa.int8()),
        "i16": pa.array(col(lambda i: r.randint(-32768, 32767)), pa.int16()),
        "i32": pa.array(col(lambda i: r.randint(-2**31, 2**31 - 1) if i % 3 else i), pa.int32()),
        "i64": pa.array(col(lambda i: r.choice([r.randint(-2**63, 2**63 - 1), i * 7, 5, r.randint(0, 1000)])),
                        pa.int64()),
        "f32": pa.array(col(lambda i: r.uniform(-1e6, 1e6)), pa.float32()),
        "f64": pa.array(col(lambda i: r.choice([r.uniform(-1e300, 1e300), float("nan"), float("inf"), -0.0])),
                        pa.float64()),
        "s": pa.array(col(lambda i: r.choice(["a", "bb", "", "héllo", "x" * r.randint(0, 40)])), pa.string()),
        "bin": pa.array(col(lambda i: bytes(r.getrandbits(8) for _ in range(r.randint(0, 20)))), pa.binary()),
        "d": pa.array(col(lambda i: datetime.date(1970, 1, 1) + datetime.timedelta(days=r.randint(-10**5, 10**5))),
                      pa.date32()),
        "ts": pa.array(col(lambda i: r.randint(-2**40, 2**40) * 1000 + r.choice([0, 1, 999, 123456, 999999])),
                       pa.timestamp("ns")),
        "tsz": pa.array(col(lambda i: r.randint(-2**40, 2**40) * 1000 + r.choice([0, 7, 999999])),
                        pa.timestamp("ns", tz="UTC")),
        "dec": pa.array(col(lambda i: decimal.Decimal(r.randint(-10**17, 10**17)).scaleb(-4)), pa.decimal128(18, 4)),
        "dec38": pa.array(col(lambda i: decimal.Decimal(r.randint(-10**37, 10**37)).scaleb(-10)),
                          pa.decimal128(38, 10)),
        "lst": pa.array(col(lambda i: [r.randint(0, 100) if r.random() < 0.9 else None
                                       for _ in range(r.randint(0, 5))]), pa.list_(pa.int32())),
        "m": pa.array(col(lambda i: [(str(k), r.randint(0, 9) if k % 2 else None) for k in range(r.randint(0, 3))]),
                      pa.map_(pa.string(), pa.int64())),
        "st": pa.array(col(lambda i: {"x": r.randint(0, 5) if r.random() < 0.8 else None,
                                      "y": r.choice(["p", "q", None])}),
                       pa.struct([("x", pa.int32()), ("y", pa.string())])),
        "nest": pa.array(col(lambda i: [{"k": [1, 2], "v": {"z": "w"}}] if i % 4 else None),
                         pa.list_(pa.struct([("k", pa.list_(pa.int16())), ("v", pa.struct([("z", pa.string())]))]))),
    })


@pytest.mark.parametrize("codec", list(CODECS))
@pytest.mark.parametrize("dictionary", [0.0, 1.0])
def test_pyarrow_files(orc, codec, dictionary):
    t = arrow_table(6000, seed=hash(codec) % 1000)
    buf = io.BytesIO()
    po.write_table(t, buf, compression=codec if codec != "none" else "uncompressed", stripe_size=64 * 1024,
                   dictionary_key_size_threshold=dictionary, compression_block_size=4096, row_index_stride=1000)
    data = buf.getvalue()
    f = po.ORCFile(io.BytesIO(data))
    assert f.nstripes > 1
    for batch_rows in (1000, 4096):
        ours = orc.read_table(data, batch_rows=batch_rows)
        assert max(b.num_rows for b in ours.to_batches()) <= batch_rows
        diff = first_difference(ours, f.read())
        assert diff is None, diff
    # types survive: timestamp with local time zone vs without
    s = orc.read(data, batch_rows=10)[0].schema
    assert s.field("ts").type.tz is None and s.field("tsz").type.tz is not None
    assert pa.types.is_map(s.field("m").type)


def test_projection(orc):
    t = arrow_table(500, seed=3)
    buf = io.BytesIO()
    po.write_table(t, buf)
    ours = orc.read_table(buf.getvalue(), columns=["m", "i32", "nest"])
    assert ours.column_names == ["m", "i32", "nest"]
    diff = first_difference(ours, po.ORCFile(io.BytesIO(buf.getvalue())).read(columns=["m", "i32", "nest"]))
    assert diff is None, diff
    with pytest.raises(RuntimeError, match="no column named 'nope'"):
        orc.read(buf.getvalue(), columns=["nope"])


def test_read_types(orc):
    """A Paimon read type gives timestamp precisions and TIME from int."""
    t = pa.table({"ts": pa.array([1_500_000_001, -1_500_000_000], pa.timestamp("ns")),
                  "t": pa.array([3_600_000, 1], pa.int32())})
    buf = io.BytesIO()
    po.write_table(t, buf)
    ours = orc.read_table(buf.getvalue(), read_type="ROW<ts TIMESTAMP(3), t TIME(3)>")
    assert ours.schema.field("ts").type == pa.timestamp("ms")
    assert ours.column("ts").to_pylist() == [datetime.datetime(1970, 1, 1, 0, 0, 1, 500000),
                                             datetime.datetime(1969, 12, 31, 23, 59, 58, 500000)]
    assert ours.column("t").to_pylist() == [datetime.time(1, 0), datetime.time(0, 0, 0, 1000)]


def test_empty_file(orc):
    t = pa.table({"a": pa.array([], pa.int32())})
    buf = io.BytesIO()
    po.write_table(t, buf)
    assert orc.read(buf.getvalue()) == []


def test_truncated_pyarrow_file(orc):
    buf = io.BytesIO()
    po.write_table(arrow_table(300, seed=9), buf, compression="zstd")
    data = buf.getvalue()
    for n in list(range(0, 64)) + list(range(len(data) - 400, len(data))):
        with pytest.raises(RuntimeError):
            orc.read(data[:n])


# ---------------------------------------------------------------------------
# What Apache Paimon Java wrote

def manifest_files():
    root = FIXTURES / "java-written-orc-manifests"
    return sorted(p for p in root.glob("*/*/manifest/*") if p.is_file())


def test_java_written_manifests(orc):
    files = manifest_files()
    assert len(files) == 42, f"fixtures missing under {FIXTURES}"
    for p in files:
        data = p.read_bytes()
        ours = orc.read_table(data)
        theirs = po.ORCFile(str(p)).read()
        if ours is None:
            assert theirs.num_rows == 0, p
            continue
        assert ours.num_rows == theirs.num_rows, p
        diff = first_difference(ours, theirs)
        assert diff is None, f"{p}: {diff}"
