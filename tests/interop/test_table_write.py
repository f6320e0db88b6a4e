"""Tables written by paimon-c (`paimon write`) against pypaimon and fastavro.

- pypaimon reads what we write identically: unaware and fixed-bucket,
  partitioned or not, every primitive type, nulls, several commits, JSON
  lines / CSV / Parquet input, overwrite.
- The bucket of every row equals pypaimon's choice for the same rows.
- The BinaryRow bytes of partitions and of value stats equal pypaimon's for
  the same values (stats-mode full, the only mode pypaimon fills).
- fastavro reads our manifests and manifest lists; pypaimon reads our
  snapshots and the manifests they name.
Tables are created by pypaimon (so its schema JSON is what we open).
"""
import base64
import datetime as dt
import decimal
import glob
import json
import os
import pathlib

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pypaimon import CatalogFactory, Schema

from conftest import run_paimon

ALL_TYPES = pa.schema([
    ("id", pa.int64()),
    ("b", pa.bool_()),
    ("i8", pa.int8()),
    ("i16", pa.int16()),
    ("i32", pa.int32()),
    ("f32", pa.float32()),
    ("f64", pa.float64()),
    ("s", pa.string()),
    ("bin", pa.binary()),
    ("d1", pa.decimal128(10, 2)),
    ("d2", pa.decimal128(38, 6)),
    ("day", pa.date32()),
    ("ts3", pa.timestamp("ms")),
    ("ts6", pa.timestamp("us")),
    ("ts9", pa.timestamp("ns")),
    ("pt", pa.string()),
])


def all_type_rows(start, n):
    rows = []
    for k in range(start, start + n):
        null = k % 5 == 4
        rows.append({
            "id": k,
            "b": None if null else k % 2 == 0,
            "i8": None if null else (k * 7) % 256 - 128,
            "i16": None if null else (k * 131) % 65536 - 32768,
            "i32": None if null else k * 100003 - 5000000,
            "f32": None if null else float(k) * 0.5 - 3,
            "f64": None if null else k / 7.0 - 1e10,
            "s": None if null else ("str-%d-" % k) + "é" * (k % 4) + "x" * (k % 20),
            "bin": None if null else bytes([(k + j) % 256 for j in range(k % 9)]),
            "d1": None if null else decimal.Decimal(k * 37 - 100) / 100,
            "d2": None if null else decimal.Decimal(k * 123456789 - 10**9) / 10**6,
            "day": None if null else dt.date(2024, 1, 1) + dt.timedelta(days=k),
            "ts3": None if null else dt.datetime(2024, 1, 1) + dt.timedelta(milliseconds=k * 1001),
            "ts6": None if null else dt.datetime(2023, 5, 6) + dt.timedelta(microseconds=k * 1000003),
            "ts9": None if null else pa.scalar(1_700_000_000_123_456_789 + k * 1_000_001, pa.timestamp("ns")).as_py(),
            "pt": ["p1", "p2", None][k % 3],
        })
    return rows


def catalog(tmp_path):
    return CatalogFactory.create({"warehouse": str(tmp_path / "wh")})


def create(tmp_path, name, schema, partition_keys=None, options=None):
    cat = catalog(tmp_path)
    cat.create_database("db", True)
    cat.create_table("db." + name, Schema.from_pyarrow_schema(schema, partition_keys=partition_keys,
                                                                options=options or {}), False)
    return tmp_path / "wh" / "db.db" / name


def py_read(tmp_path, name):
    t = catalog(tmp_path).get_table("db." + name)
    rb = t.new_read_builder()
    return rb.new_read().to_arrow(rb.new_scan().plan().splits())


def py_write(tmp_path, name, table):
    t = catalog(tmp_path).get_table("db." + name)
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(table)
    c = wb.new_commit()
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def our_write_parquet(tmp_path, table_path, table, *extra):
    f = tmp_path / ("in-%d.parquet" % len(list(tmp_path.glob("in-*.parquet"))))
    pq.write_table(table, f)
    return run_paimon("write", table_path, "--input", f, *extra)


def sorted_rows(t, key="id"):
    return sorted(t.to_pylist(), key=lambda r: r[key])


@pytest.mark.parametrize("layout", ["unaware", "partitioned", "bucketed", "bucketed-partitioned"])
def test_all_types_read_by_pypaimon(tmp_path, layout):
    opts = {}
    pk = None
    if layout.startswith("bucketed"):
        opts = {"bucket": "3", "bucket-key": "id"}
    if layout.endswith("partitioned"):
        pk = ["pt"]
    path = create(tmp_path, "t", ALL_TYPES, pk, opts)
    expected = []
    for commit in range(3):
        rows = all_type_rows(commit * 40, 40)
        expected += rows
        out = our_write_parquet(tmp_path, path, pa.Table.from_pylist(rows, schema=ALL_TYPES)).stdout
        assert out.startswith("snapshot %d:" % (commit + 1))
    got = py_read(tmp_path, "t")
    assert got.num_rows == 120
    assert sorted_rows(got.cast(ALL_TYPES)) == sorted(expected, key=lambda r: r["id"])
    # pypaimon sees our snapshots
    t = catalog(tmp_path).get_table("db.t")
    snap = t.snapshot_manager().get_latest_snapshot()
    assert snap.id == 3
    assert snap.total_record_count == 120
    assert snap.commit_kind == "APPEND"


def test_jsonl_and_csv_input(tmp_path):
    schema = pa.schema([("id", pa.int64()), ("name", pa.string()), ("v", pa.float64()),
                        ("d", pa.decimal128(10, 2)), ("day", pa.date32()), ("ts", pa.timestamp("us")),
                        ("bin", pa.binary()), ("flag", pa.bool_())])
    path = create(tmp_path, "t", schema)
    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_text('{"id":1,"name":"a","v":1.5,"d":"12.30","day":"2024-02-29","ts":"2024-01-01T10:00:00.123456",'
                     '"bin":"AAEC","flag":true}\n'
                     '{"id":2,"name":null,"v":"NaN","d":-0.5,"day":null,"ts":null,"bin":null,"flag":false}\n'
                     '\n'
                     '{"id":3}\n')
    run_paimon("write", path, "--input", jsonl)
    csv = tmp_path / "rows.csv"
    csv.write_text('name,id,v,d,day,ts,bin,flag\n'
                   '"x, ""quoted""",4,2.25,1.00,2024-03-01,2024-01-02 03:04:05.000006,/w==,TRUE\n'
                   ',5,,,,,,\n'
                   '"",6,-1e3,99999999.99,1970-01-01,1969-12-31T23:59:59.999999,"",false\n')
    run_paimon("write", path, "--input", csv)
    # stdin, explicit format, small batches
    run_paimon("write", path, "--input-format", "jsonl", "--batch-rows", "1",
               input='{"id":7,"name":"s"}\n{"id":8,"name":"t"}\n')
    got = sorted_rows(py_read(tmp_path, "t"))
    assert [r["id"] for r in got] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert got[0] == {"id": 1, "name": "a", "v": 1.5, "d": decimal.Decimal("12.30"), "day": dt.date(2024, 2, 29),
                      "ts": dt.datetime(2024, 1, 1, 10, 0, 0, 123456), "bin": b"\x00\x01\x02", "flag": True}
    assert got[1]["v"] != got[1]["v"] and got[1]["d"] == decimal.Decimal("-0.50")
    assert got[2] == {"id": 3, "name": None, "v": None, "d": None, "day": None, "ts": None, "bin": None,
                      "flag": None}
    assert got[3]["name"] == 'x, "quoted"' and got[3]["bin"] == b"\xff" and got[3]["flag"] is True
    assert got[3]["ts"] == dt.datetime(2024, 1, 2, 3, 4, 5, 6)
    assert got[4] == {"id": 5, "name": None, "v": None, "d": None, "day": None, "ts": None, "bin": None,
                      "flag": None}
    assert got[5]["name"] == "" and got[5]["bin"] == b"" and got[5]["v"] == -1000.0
    assert got[5]["ts"] == dt.datetime(1969, 12, 31, 23, 59, 59, 999999)
    assert [r["name"] for r in got[6:]] == ["s", "t"]
    snaps = sorted(os.listdir(path / "snapshot"))
    assert snaps == ["LATEST", "snapshot-1", "snapshot-2", "snapshot-3"]


def test_overwrite(tmp_path):
    schema = pa.schema([("id", pa.int64()), ("pt", pa.string())])
    path = create(tmp_path, "t", schema, ["pt"])
    run_paimon("write", path, input='{"id":1,"pt":"a"}\n{"id":2,"pt":"b"}\n{"id":3,"pt":"b"}\n')
    run_paimon("write", path, "--overwrite", "--partition", "pt=b", input='{"id":4,"pt":"b"}\n')
    assert sorted(r["id"] for r in py_read(tmp_path, "t").to_pylist()) == [1, 4]
    bad = run_paimon("write", path, "--overwrite", "--partition", "pt=b", input='{"id":5,"pt":"a"}\n', check=False)
    assert bad.returncode == 1 and "does not belong" in bad.stderr
    run_paimon("write", path, "--overwrite", input='{"id":6,"pt":"c"}\n')
    assert [r["id"] for r in py_read(tmp_path, "t").to_pylist()] == [6]
    snap = catalog(tmp_path).get_table("db.t").snapshot_manager().get_latest_snapshot()
    assert snap.commit_kind == "OVERWRITE" and snap.total_record_count == 1


def test_idempotent_commit_identifier(tmp_path):
    path = create(tmp_path, "t", pa.schema([("id", pa.int64())]))
    args = ["write", path, "--commit-user", "job-1", "--commit-identifier", "5"]
    assert run_paimon(*args, input='{"id":1}\n').stdout.startswith("snapshot 1:")
    # the same user + identifier again: reports snapshot 1, commits nothing
    assert run_paimon(*args, input='{"id":1}\n').stdout.startswith("snapshot 1:")
    assert py_read(tmp_path, "t").num_rows == 1
    assert len(glob.glob(str(path / "bucket-0" / "*.parquet"))) == 1


# ---------------------------------------------------------------- buckets

BUCKET_SCHEMA = pa.schema([("k1", pa.int64()), ("k2", pa.string()), ("k3", pa.int32()),
                           ("k4", pa.decimal128(12, 3)), ("v", pa.int64())])


def bucket_rows(n):
    return [{"k1": k * 7919 - 50000, "k2": None if k % 11 == 0 else "key-%d" % (k * 13),
             "k3": k - 100, "k4": decimal.Decimal(k * 1001) / 1000, "v": k} for k in range(n)]


def row_buckets(table_path):
    out = {}
    for f in glob.glob(str(table_path / "**" / "bucket-*" / "*.parquet"), recursive=True):
        bucket = int(pathlib.Path(f).parent.name.split("-")[1])
        for v in pq.read_table(f).column("v").to_pylist():
            out[v] = bucket
    return out


@pytest.mark.parametrize("key", ["k1", "k2", "k1,k2", "k4", "k3,k4,k2"])
def test_bucket_of_every_row_matches_pypaimon(tmp_path, key):
    opts = {"bucket": "5", "bucket-key": key}
    ours = create(tmp_path, "ours", BUCKET_SCHEMA, None, opts)
    theirs = create(tmp_path, "theirs", BUCKET_SCHEMA, None, opts)
    rows = pa.Table.from_pylist(bucket_rows(400), schema=BUCKET_SCHEMA)
    our_write_parquet(tmp_path, ours, rows)
    py_write(tmp_path, "theirs", rows)
    a, b = row_buckets(ours), row_buckets(theirs)
    assert len(a) == 400
    assert a == b
    assert len(set(a.values())) > 1


@pytest.mark.parametrize("key", ["k1", "k3"])
def test_bucket_function_mod(tmp_path, key):
    # pypaimon 2.1 always uses the default function, so Java's rule is the
    # oracle here: Math.floorMod(key, buckets) (Python's % is a floor mod)
    path = create(tmp_path, "t", BUCKET_SCHEMA, None,
                  {"bucket": "5", "bucket-key": key, "bucket-function.type": "mod"})
    data = bucket_rows(400)
    our_write_parquet(tmp_path, path, pa.Table.from_pylist(data, schema=BUCKET_SCHEMA))
    assert row_buckets(path) == {r["v"]: r[key] % 5 for r in data}


# ------------------------------------------------- BinaryRow bytes, manifests

def manifest_entries(table_path):
    """All ADD entries of the latest snapshot, read with fastavro."""
    snaps = sorted(int(p.name.split("-")[1]) for p in (table_path / "snapshot").glob("snapshot-*"))
    snap = json.loads((table_path / "snapshot" / ("snapshot-%d" % snaps[-1])).read_text())
    entries = []
    for lst in (snap["baseManifestList"], snap["deltaManifestList"]):
        with open(table_path / "manifest" / lst, "rb") as f:
            for meta in fastavro.reader(f):
                with open(table_path / "manifest" / meta["_FILE_NAME"], "rb") as mf:
                    entries += [e for e in fastavro.reader(mf) if e["_KIND"] == 0]
    return entries


STATS_SCHEMA = pa.schema([("p1", pa.string()), ("p2", pa.int32()), ("id", pa.int64()), ("s", pa.string()),
                          ("f", pa.float64()), ("b", pa.bool_()), ("d", pa.decimal128(9, 2)),
                          ("day", pa.date32()), ("ts", pa.timestamp("ms")), ("i16", pa.int16())])


def stats_rows():
    rows = []
    for k in range(90):
        rows.append({"p1": ["a", "bb", None][k % 3], "p2": [1, -7][k % 2], "id": k * 3 - 40,
                     "s": None if k % 7 == 0 else "v%03d" % ((k * 37) % 101), "f": (k - 45) / 4.0,
                     "b": k % 4 == 1, "d": decimal.Decimal(k * 11 - 300) / 100,
                     "day": dt.date(2020, 1, 1) + dt.timedelta(days=k * 3),
                     "ts": dt.datetime(2021, 6, 1) + dt.timedelta(seconds=k * 61),
                     "i16": None if k % 5 == 0 else k - 30})
    return pa.Table.from_pylist(rows, schema=STATS_SCHEMA)


def test_partition_and_stats_bytes_equal_pypaimon(tmp_path):
    opts = {"metadata.stats-mode": "full"}
    ours = create(tmp_path, "ours", STATS_SCHEMA, ["p1", "p2"], opts)
    theirs = create(tmp_path, "theirs", STATS_SCHEMA, ["p1", "p2"], opts)
    rows = stats_rows()
    our_write_parquet(tmp_path, ours, rows)
    py_write(tmp_path, "theirs", rows)
    a = {(e["_PARTITION"], e["_BUCKET"]): e for e in manifest_entries(ours)}
    b = {(e["_PARTITION"], e["_BUCKET"]): e for e in manifest_entries(theirs)}
    assert len(a) == 6
    assert set(a) == set(b)  # partition BinaryRow bytes
    for key in a:
        fa, fb = a[key]["_FILE"], b[key]["_FILE"]
        assert fa["_ROW_COUNT"] == fb["_ROW_COUNT"]
        sa, sb = fa["_VALUE_STATS"], fb["_VALUE_STATS"]
        assert sa["_MIN_VALUES"] == sb["_MIN_VALUES"], key
        assert sa["_MAX_VALUES"] == sb["_MAX_VALUES"], key
        assert sa["_NULL_COUNTS"] == sb["_NULL_COUNTS"], key
        assert fa["_VALUE_STATS_COLS"] is None and fb["_VALUE_STATS_COLS"] is None
        assert fa["_MIN_KEY"] == fb["_MIN_KEY"] == b"\x00" * 12
        assert a[key]["_TOTAL_BUCKETS"] == b[key]["_TOTAL_BUCKETS"] == -1


def test_fastavro_reads_our_metadata(tmp_path):
    path = create(tmp_path, "t", STATS_SCHEMA, ["p1"], {"bucket": "2", "bucket-key": "id"})
    rows = stats_rows()
    our_write_parquet(tmp_path, path, rows)
    our_write_parquet(tmp_path, path, rows.slice(0, 10))
    snap = json.loads((path / "snapshot" / "snapshot-2").read_text())
    assert snap["version"] == 3 and snap["id"] == 2 and snap["schemaId"] == 0
    assert snap["totalRecordCount"] == 100 and snap["deltaRecordCount"] == 10
    with open(path / "manifest" / snap["deltaManifestList"], "rb") as f:
        r = fastavro.reader(f)
        assert r.codec == "zstandard"
        metas = list(r)
    assert os.path.getsize(path / "manifest" / snap["deltaManifestList"]) == snap["deltaManifestListSize"]
    assert [m["_VERSION"] for m in metas] == [2]
    assert metas[0]["_NUM_ADDED_FILES"] >= 2 and metas[0]["_NUM_DELETED_FILES"] == 0
    assert metas[0]["_MIN_BUCKET"] == 0 and metas[0]["_MAX_BUCKET"] == 1
    assert metas[0]["_MIN_LEVEL"] == metas[0]["_MAX_LEVEL"] == 0
    entries = manifest_entries(path)
    assert sum(e["_FILE"]["_ROW_COUNT"] for e in entries) == 100
    for e in entries:
        f = e["_FILE"]
        assert e["_VERSION"] == 2 and e["_TOTAL_BUCKETS"] == 2
        assert f["_FILE_SOURCE"] == 0 and f["_LEVEL"] == 0 and f["_DELETE_ROW_COUNT"] == 0
        assert f["_EXTRA_FILES"] == [] and f["_EMBEDDED_FILE_INDEX"] is None
        assert f["_KEY_STATS"]["_NULL_COUNTS"] == []
        assert f["_MAX_SEQUENCE_NUMBER"] - f["_MIN_SEQUENCE_NUMBER"] + 1 == f["_ROW_COUNT"]
        assert f["_FILE_NAME"].startswith("data-") and f["_FILE_NAME"].endswith(".parquet")
        on_disk = glob.glob(str(path / "*" / ("bucket-%d" % e["_BUCKET"]) / f["_FILE_NAME"]))
        assert len(on_disk) == 1 and os.path.getsize(on_disk[0]) == f["_FILE_SIZE"]
    # sequence numbers continue per bucket across writers
    by_bucket = {}
    for e in entries:
        by_bucket.setdefault((e["_PARTITION"], e["_BUCKET"]), []).append(
            (e["_FILE"]["_MIN_SEQUENCE_NUMBER"], e["_FILE"]["_MAX_SEQUENCE_NUMBER"]))
    for ranges in by_bucket.values():
        ranges.sort()
        for (a0, a1), (b0, b1) in zip(ranges, ranges[1:]):
            assert b0 == a1 + 1
    # pypaimon reads the snapshots and schemas
    assert py_read(tmp_path, "t").num_rows == 100


def test_avro_data_files(tmp_path):
    schema = pa.schema([("id", pa.int64()), ("s", pa.string()), ("f", pa.float64())])
    path = create(tmp_path, "t", schema, None, {"file.format": "avro"})
    rows = pa.Table.from_pylist([{"id": k, "s": None if k % 3 == 0 else "s%d" % k, "f": k / 3}
                                 for k in range(50)], schema=schema)
    our_write_parquet(tmp_path, path, rows)
    files = glob.glob(str(path / "bucket-0" / "*.avro"))
    assert len(files) == 1
    with open(files[0], "rb") as f:
        assert [r["id"] for r in fastavro.reader(f)] == list(range(50))
    assert sorted_rows(py_read(tmp_path, "t")) == rows.to_pylist()


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_parallel_write_read_by_pypaimon(tmp_path, threads):
    schema = pa.schema([("id", pa.int64()), ("s", pa.string()), ("f", pa.float64()), ("b", pa.bool_())])
    path = create(tmp_path, "t", schema)
    n = 100_003
    rows = pa.table({"id": pa.array(range(n), pa.int64()),
                     "s": pa.array([None if k % 7 == 0 else "s%d" % (k % 1000) for k in range(n)]),
                     "f": pa.array([k / 3 for k in range(n)]),
                     "b": pa.array([None if k % 5 == 0 else k % 2 == 0 for k in range(n)])})
    f = tmp_path / "in.parquet"
    pq.write_table(rows, f)
    out = run_paimon("write", path, "--input", f, "--threads", threads, "--batch-rows", "50000").stdout
    files = glob.glob(str(path / "bucket-0" / "*.parquet"))
    assert out == "snapshot 1: %d rows in %d files\n" % (n, len(files))
    assert len(files) == (1 if threads == "1" else 2 if threads == "2" else 3)
    got = py_read(tmp_path, "t")
    assert sorted_rows(got) == rows.to_pylist()
    # every file starts its own sequence numbers at 0 (parallel writers)
    entries = manifest_entries(path)
    assert sorted(e["_FILE"]["_MIN_SEQUENCE_NUMBER"] for e in entries) == [0] * len(files)
