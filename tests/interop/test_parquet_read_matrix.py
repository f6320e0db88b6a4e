"""A matrix of Parquet files written by pyarrow, each read with `paimon cat`
and compared with pyarrow's own reading, value for value.

Data: every Paimon type (bool, int8/16/32/64, float, double, decimals on
INT32 / INT64 / FLBA, string, binary, date32, time32[ms], timestamp
ms/us/ns with and without a time zone, list, map, struct, list<struct<map>>),
nulls, empty and long strings, empty lists/maps.  Files: data page v1 and
v2, dictionary on and off, every codec (brotli must give a clear
unsupported error), several row groups and many small pages, byte stream
split, DELTA_BINARY_PACKED / DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY,
INT96 timestamps, legacy 2-level lists, column projection and --limit.
"""
import datetime
import decimal
import random

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import run_paimon
from test_parquet_read_render import first_difference, parse_lines, render_table

N = 400


def _maybe(rng, v, p=0.15):
    return None if rng.random() < p else v


def make_table(n=N, seed=7):
    rng = random.Random(seed)
    utc = datetime.timezone.utc

    def s(i):
        r = rng.random()
        if r < 0.1:
            return ""
        if r < 0.15:
            return "long-" + "x" * rng.randint(200, 3000) + str(i)
        return rng.choice(["alpha", "beta", "gamma", "δέλτα", "emoji-\U0001F600", "a\"b\\c\n"]) + str(i % 17)

    cols = {
        "b": pa.array([_maybe(rng, rng.random() < 0.5) for _ in range(n)], pa.bool_()),
        "i8": pa.array([_maybe(rng, rng.randint(-128, 127)) for _ in range(n)], pa.int8()),
        "i16": pa.array([_maybe(rng, rng.randint(-32768, 32767)) for _ in range(n)], pa.int16()),
        "i32": pa.array([_maybe(rng, rng.randint(-2**31, 2**31 - 1)) for _ in range(n)], pa.int32()),
        "i64": pa.array([_maybe(rng, rng.randint(-2**63, 2**63 - 1)) for _ in range(n)], pa.int64()),
        "i32_small": pa.array([_maybe(rng, rng.randint(0, 20)) for _ in range(n)], pa.int32()),
        "f32": pa.array([_maybe(rng, rng.choice([rng.uniform(-1e6, 1e6), float("nan"), float("inf"), -0.0, 1.5]))
                         for _ in range(n)], pa.float32()),
        "f64": pa.array([_maybe(rng, rng.choice([rng.uniform(-1e300, 1e300), rng.random(), float("-inf"), 0.1]))
                         for _ in range(n)], pa.float64()),
        "d9": pa.array([_maybe(rng, decimal.Decimal(rng.randint(-10**9 + 1, 10**9 - 1)).scaleb(-3))
                        for _ in range(n)], pa.decimal128(9, 3)),
        "d18": pa.array([_maybe(rng, decimal.Decimal(rng.randint(-10**18 + 1, 10**18 - 1)).scaleb(-6))
                         for _ in range(n)], pa.decimal128(18, 6)),
        "d38": pa.array([_maybe(rng, decimal.Decimal(rng.randint(-10**38 + 1, 10**38 - 1)).scaleb(-10))
                         for _ in range(n)], pa.decimal128(38, 10)),
        "d20": pa.array([_maybe(rng, decimal.Decimal(rng.randint(-10**20 + 1, 10**20 - 1)))
                         for _ in range(n)], pa.decimal128(20, 0)),
        "str": pa.array([_maybe(rng, s(i)) for i in range(n)], pa.string()),
        "bin": pa.array([_maybe(rng, bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 40))))
                         for _ in range(n)], pa.binary()),
        "date": pa.array([_maybe(rng, rng.randint(-800000, 2900000)) for _ in range(n)], pa.date32()),
        "time": pa.array([_maybe(rng, rng.randint(0, 86399999)) for _ in range(n)], pa.time32("ms")),
        "ts_ms": pa.array([_maybe(rng, rng.randint(-2**42, 2**42)) for _ in range(n)], pa.timestamp("ms")),
        "ts_us": pa.array([_maybe(rng, rng.randint(-2**52, 2**52)) for _ in range(n)], pa.timestamp("us")),
        "ts_ns": pa.array([_maybe(rng, rng.randint(-2**62, 2**62)) for _ in range(n)], pa.timestamp("ns")),
        "ts_ms_tz": pa.array([_maybe(rng, rng.randint(-2**42, 2**42)) for _ in range(n)], pa.timestamp("ms", tz=utc)),
        "ts_us_tz": pa.array([_maybe(rng, rng.randint(-2**52, 2**52)) for _ in range(n)],
                             pa.timestamp("us", tz="Asia/Shanghai")),
        "ts_ns_tz": pa.array([_maybe(rng, rng.randint(-2**62, 2**62)) for _ in range(n)], pa.timestamp("ns", tz=utc)),
        "list_i": pa.array([_maybe(rng, [_maybe(rng, rng.randint(-5, 5)) for _ in range(rng.randint(0, 6))])
                            for _ in range(n)], pa.list_(pa.int32())),
        "list_s": pa.array([_maybe(rng, [_maybe(rng, s(k)) for k in range(rng.randint(0, 4))]) for _ in range(n)],
                           pa.list_(pa.string())),
        "map": pa.array([_maybe(rng, [(f"k{k}", _maybe(rng, rng.randint(0, 99))) for k in range(rng.randint(0, 4))])
                         for _ in range(n)], pa.map_(pa.string(), pa.int64())),
        "st": pa.array([_maybe(rng, {"x": _maybe(rng, rng.randint(0, 9)), "y": _maybe(rng, s(i)),
                                     "z": _maybe(rng, {"q": _maybe(rng, rng.random())})}) for i in range(n)],
                       pa.struct([("x", pa.int32()), ("y", pa.string()), ("z", pa.struct([("q", pa.float64())]))])),
        "nested": pa.array(
            [_maybe(rng, [_maybe(rng, {"a": _maybe(rng, rng.randint(0, 9)),
                                       "m": _maybe(rng, [(rng.randint(0, 9), _maybe(rng, [_maybe(rng, s(k))
                                                                                          for k in range(rng.randint(0, 3))]))
                                                         for _ in range(rng.randint(0, 3))])})
                          for _ in range(rng.randint(0, 4))]) for _ in range(n)],
            pa.list_(pa.struct([("a", pa.int64()),
                                ("m", pa.map_(pa.int32(), pa.list_(pa.string())))]))),
        "ll": pa.array([_maybe(rng, [_maybe(rng, [rng.randint(0, 3) for _ in range(rng.randint(0, 3))])
                                     for _ in range(rng.randint(0, 3))]) for _ in range(n)],
                       pa.list_(pa.list_(pa.int16()))),
    }
    return pa.table(cols)


@pytest.fixture(scope="module")
def table():
    return make_table()


def check_file(path, columns=None):
    args = ["cat", path]
    if columns:
        args += ["--columns", ",".join(columns)]
    ours = parse_lines(run_paimon(*args).stdout)
    theirs = render_table(pq.ParquetFile(path).read(columns=columns))
    if columns:
        theirs = [{c: row[c] for c in columns} for row in theirs]
    diff = first_difference(ours, theirs)
    assert diff is None, f"{path}: {diff}"
    return ours


SMALL = dict(row_group_size=150, data_page_size=512, write_batch_size=64)


@pytest.mark.parametrize("codec", ["none", "snappy", "gzip", "zstd", "lz4"])
@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("dictionary", [True, False])
def test_codec_page_version_dictionary(tmp_path, table, codec, version, dictionary):
    path = str(tmp_path / "t.parquet")
    # decimals on INT32/INT64 (store_decimal_as_integer) or all on FIXED_LEN_BYTE_ARRAY
    pq.write_table(table, path, compression=codec, data_page_version=version, use_dictionary=dictionary,
                   store_decimal_as_integer=dictionary, **SMALL)
    md = pq.ParquetFile(path).metadata
    assert md.num_row_groups >= 3
    d9 = table.column_names.index("d9")
    assert md.schema.column(d9).physical_type == ("INT32" if dictionary else "FIXED_LEN_BYTE_ARRAY")
    check_file(path)


def test_large_pages_one_row_group(tmp_path, table):
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path, compression="zstd")
    check_file(path)


def test_brotli_is_a_clear_unsupported_error(tmp_path, table):
    path = str(tmp_path / "t.parquet")
    pq.write_table(table.select(["i32", "str"]), path, compression="brotli")
    proc = run_paimon("cat", path, check=False)
    assert proc.returncode == 1
    assert "BROTLI" in proc.stderr and "not supported" in proc.stderr and "EUNSUPPORTED" in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_byte_stream_split(tmp_path, table, version):
    path = str(tmp_path / "t.parquet")
    cols = ["f32", "f64", "i32", "i64", "d18", "d38", "i8"]
    pq.write_table(table.select(cols), path, use_dictionary=False, data_page_version=version,
                   column_encoding={c: "BYTE_STREAM_SPLIT" for c in cols}, store_decimal_as_integer=version == "2.0",
                   **SMALL)
    encs = set(pq.ParquetFile(path).metadata.row_group(0).column(0).encodings)
    assert "BYTE_STREAM_SPLIT" in encs
    check_file(path)


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_delta_encodings(tmp_path, table, version):
    path = str(tmp_path / "t.parquet")
    enc = {"i8": "DELTA_BINARY_PACKED", "i16": "DELTA_BINARY_PACKED", "i32": "DELTA_BINARY_PACKED",
           "i64": "DELTA_BINARY_PACKED", "i32_small": "DELTA_BINARY_PACKED", "d9": "DELTA_BINARY_PACKED",
           "d18": "DELTA_BINARY_PACKED", "date": "DELTA_BINARY_PACKED", "ts_ns": "DELTA_BINARY_PACKED",
           "str": "DELTA_LENGTH_BYTE_ARRAY", "bin": "DELTA_BYTE_ARRAY", "d38": "DELTA_BYTE_ARRAY"}
    t = table.select(list(enc))
    pq.write_table(t, path, use_dictionary=False, data_page_version=version, column_encoding=enc,
                   store_decimal_as_integer=True, **SMALL)
    md = pq.ParquetFile(path).metadata.row_group(0)
    got = {md.column(i).path_in_schema: set(md.column(i).encodings) for i in range(md.num_columns)}
    for c, e in enc.items():
        assert e in got[c], (c, got[c])
    check_file(path)
    # DELTA_BYTE_ARRAY on strings too (shared prefixes)
    path2 = str(tmp_path / "t2.parquet")
    pq.write_table(table.select(["str"]), path2, use_dictionary=False, column_encoding={"str": "DELTA_BYTE_ARRAY"},
                   data_page_version=version, **SMALL)
    check_file(path2)


def test_delta_binary_packed_extremes(tmp_path):
    # full 64-bit deltas (bit width 64) and 32-bit wrap-around
    vals64 = [0, 2**63 - 1, -2**63, 5, -1, 2**63 - 1, -2**63] * 40
    vals32 = [0, 2**31 - 1, -2**31, 7, -1] * 40
    t = pa.table({"a": pa.array(vals64, pa.int64()), "b": pa.array(vals32 + vals32[:80], pa.int32())})
    path = str(tmp_path / "t.parquet")
    pq.write_table(t, path, use_dictionary=False, column_encoding={"a": "DELTA_BINARY_PACKED",
                                                                   "b": "DELTA_BINARY_PACKED"})
    check_file(path)


def test_int96_timestamps(tmp_path, table):
    path = str(tmp_path / "t.parquet")
    t = table.select(["ts_ms", "ts_us", "ts_ns", "ts_ns_tz"])
    pq.write_table(t, path, use_deprecated_int96_timestamps=True, **SMALL)
    assert pq.ParquetFile(path).schema.column(0).physical_type == "INT96"
    ours = check_file(path)
    meta = run_paimon("meta", path).stdout
    assert '"paimon_type": "TIMESTAMP(9)"' in meta
    assert any(r["ts_ns"] for r in ours)


def test_legacy_two_level_lists(tmp_path, table):
    path = str(tmp_path / "t.parquet")
    pq.write_table(table.select(["list_i", "list_s", "nested", "ll"]), path, use_compliant_nested_type=False,
                   **SMALL)
    check_file(path)


def test_projection_and_limit(tmp_path, table):
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path, **SMALL)
    check_file(path, columns=["nested", "i32", "map"])
    full = parse_lines(run_paimon("cat", path).stdout)
    some = parse_lines(run_paimon("cat", path, "--limit", "170").stdout)
    assert some == full[:170]
    assert run_paimon("cat", path, "--limit", "0").stdout == ""
    proc = run_paimon("cat", path, "--columns", "nope", check=False)
    assert proc.returncode == 1 and "no column named 'nope'" in proc.stderr


def test_unsigned_and_small_types(tmp_path):
    t = pa.table({
        "u8": pa.array([0, 255, None], pa.uint8()),
        "u16": pa.array([0, 65535, None], pa.uint16()),
        "u32": pa.array([0, 2**32 - 1, None], pa.uint32()),
        "u64": pa.array([0, 2**64 - 1, None], pa.uint64()),
        "h": pa.array([np.float16(1.5), None, np.float16(-0.0)], pa.float16()),
        "fsb": pa.array([b"abcd", None, b"\x00\x01\x02\x03"], pa.binary(4)),
        "t_us": pa.array([1, 86399999999, None], pa.time64("us")),
        "t_ns": pa.array([1000000, 86399999999999, None], pa.time64("ns")),
        "ls": pa.array(["x", None, "y" * 10], pa.large_string()),
        "e": pa.array([[], None, [None]], pa.list_(pa.int8())),
    })
    path = str(tmp_path / "t.parquet")
    pq.write_table(t, path)
    check_file(path)
    meta = run_paimon("meta", path).stdout
    assert '"paimon_type": "DECIMAL(20, 0)"' in meta and '"paimon_type": "BIGINT"' in meta


def test_required_columns_and_empty_file(tmp_path):
    schema = pa.schema([pa.field("a", pa.int32(), nullable=False),
                        pa.field("s", pa.string(), nullable=False),
                        pa.field("l", pa.list_(pa.field("item", pa.int64(), nullable=False)), nullable=False)])
    t = pa.table({"a": [1, 2, 3], "s": ["x", "", "z"], "l": [[1], [], [2, 3]]}, schema=schema)
    path = str(tmp_path / "t.parquet")
    pq.write_table(t, path)
    check_file(path)
    empty = str(tmp_path / "e.parquet")
    pq.write_table(t.slice(0, 0), empty)
    assert run_paimon("cat", empty).stdout == ""
    meta = run_paimon("meta", path).stdout
    assert "ROW<a INT NOT NULL, s STRING NOT NULL, l ARRAY<BIGINT NOT NULL> NOT NULL>" in meta


def test_meta_statistics(tmp_path):
    t = pa.table({"i": pa.array([3, None, -7], pa.int32()), "s": ["b", "a", None],
                  "d": pa.array([decimal.Decimal("1.50"), decimal.Decimal("-2.25"), None], pa.decimal128(5, 2)),
                  "dt": pa.array([0, 365, None], pa.date32())})
    path = str(tmp_path / "t.parquet")
    pq.write_table(t, path, compression="snappy")
    import json
    m = json.loads(run_paimon("meta", path).stdout)
    assert m["rows"] == 3 and len(m["row_groups"]) == 1
    cols = {c["path"]: c for c in m["row_groups"][0]["columns"]}
    assert cols["i"]["statistics"] == {"null_count": 1, "min": -7, "max": 3}
    assert cols["s"]["statistics"]["min"] == "a" and cols["s"]["statistics"]["max"] == "b"
    assert cols["d"]["statistics"]["min"] == "-2.25" and cols["d"]["statistics"]["max"] == "1.50"
    assert cols["dt"]["statistics"]["max"] == "1971-01-01"
    assert cols["i"]["codec"] == "SNAPPY" and cols["i"]["physical_type"] == "INT32"
    assert cols["s"]["logical_type"] == "STRING" and cols["s"]["paimon_type"] == "STRING"
