"""pypaimon writes append tables (unaware and fixed bucket, partitioned or
not, all primitive types, nulls, several commits, Parquet and Avro data
files); `paimon read` must return exactly what pypaimon reads, at the
latest state and at every snapshot, with projections and partition filters,
and its CSV and Parquet outputs must carry the same rows.
"""
import csv
import datetime
import decimal
import io
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import run_paimon
from table_read_oracle import canon_our_rows, canon_table, multiset, pypaimon_read

os.environ["TZ"] = "UTC"

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
    ("dec", pa.decimal128(10, 2)),
    ("bigdec", pa.decimal128(30, 6)),
    ("d", pa.date32()),
    ("ts_ms", pa.timestamp("ms")),
    ("ts_us", pa.timestamp("us")),
    ("ts_ltz", pa.timestamp("us", tz="UTC")),
    ("dt", pa.string()),
])


def _row(i):
    if i % 7 == 3:
        return {"id": i, "dt": "2024-01-0%d" % (i % 3 + 1)}  # every other column null
    return {
        "id": i,
        "b": i % 2 == 0,
        "i8": (i * 37) % 256 - 128,
        "i16": -(i * 250) % 32768,
        "i32": i * 100003,
        "f32": i / 3.0,
        "f64": -i * 1.25e10 if i % 5 else float("nan"),
        "s": "row-%d-%s" % (i, "é" * (i % 4)) if i % 6 else "",
        "bin": bytes([i % 256, 0, 255]) * (i % 3),
        "dec": decimal.Decimal("%d.%02d" % (i * 7 - 50, i % 100)),
        "bigdec": decimal.Decimal("-%d123456789012345.%06d" % (i, i)),
        "d": datetime.date(1969, 12, 25) + datetime.timedelta(days=i * 11),
        "ts_ms": datetime.datetime(2024, 5, 14, 1, 2, 3) + datetime.timedelta(milliseconds=i * 1001),
        "ts_us": datetime.datetime(1960, 1, 1) + datetime.timedelta(microseconds=i * 123457),
        "ts_ltz": datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(seconds=i),
        "dt": "2024-01-0%d" % (i % 3 + 1),
    }


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    from pypaimon import CatalogFactory, Schema
    wh = tmp_path_factory.mktemp("pywh")
    cat = CatalogFactory.create({"warehouse": str(wh)})
    cat.create_database("db", True)
    layouts = {
        "unaware": ([], {"bucket": "-1"}),
        "fixed": ([], {"bucket": "3", "bucket-key": "id"}),
        "part_unaware": (["dt"], {"bucket": "-1"}),
        "part_fixed": (["dt"], {"bucket": "2", "bucket-key": "id"}),
        "avro_part": (["dt"], {"bucket": "-1", "file.format": "avro"}),
    }
    for name, (parts, opts) in layouts.items():
        cat.create_table(f"db.{name}", Schema.from_pyarrow_schema(ALL_TYPES, partition_keys=parts, options=opts), False)
        t = cat.get_table(f"db.{name}")
        for commit in range(4):
            rows = [_row(commit * 40 + k) for k in range(40 if commit != 2 else 3)]
            wb = t.new_batch_write_builder()
            w, c = wb.new_write(), wb.new_commit()
            w.write_arrow(pa.Table.from_pylist(rows, schema=ALL_TYPES))
            c.commit(w.prepare_commit())
            w.close()
            c.close()
    return wh


TABLES = ["unaware", "fixed", "part_unaware", "part_fixed", "avro_part"]


def _ours(path, *args):
    out = run_paimon("read", path, *args).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


@pytest.mark.parametrize("name", TABLES)
@pytest.mark.parametrize("snapshot", [None, 1, 2, 3, 4])
def test_read_equals_pypaimon(warehouse, name, snapshot):
    path = warehouse / "db.db" / name
    got = _ours(path, *(["--snapshot", snapshot] if snapshot else []))
    arrow = pypaimon_read(warehouse, "db", name, snapshot)
    assert len(got) == arrow.num_rows == [40, 80, 83, 123][(snapshot or 4) - 1]
    assert multiset(canon_our_rows(got, arrow.schema)) == multiset(canon_table(arrow))


@pytest.mark.parametrize("name", ["part_unaware", "part_fixed", "avro_part"])
def test_partition_filter_and_projection(warehouse, name):
    path = warehouse / "db.db" / name
    arrow = pypaimon_read(warehouse, "db", name).select(["dt", "s", "ts_ltz", "id"])
    got = _ours(path, "--partition", "dt=2024-01-02", "--columns", "dt,s,ts_ltz,id")
    want = [r for r in canon_table(arrow) if r["dt"] == "2024-01-02"]
    assert 0 < len(got) < arrow.num_rows
    assert multiset(canon_our_rows(got, arrow.schema)) == multiset(want)


def test_files_and_snapshots(warehouse):
    path = warehouse / "db.db" / "part_fixed"
    snaps = json.loads(run_paimon("snapshots", path, "--json").stdout)
    assert [s["id"] for s in snaps] == [1, 2, 3, 4]
    assert [s["totalRecordCount"] for s in snaps] == [40, 80, 83, 123]
    assert all(s["commitKind"] == "APPEND" and s["baseManifestList"] and s["deltaManifestList"] for s in snaps)
    files = json.loads(run_paimon("files", path, "--json").stdout)
    assert sum(f["record_count"] for f in files) == 123
    assert {f["partition"] for f in files} == {"dt=2024-01-01", "dt=2024-01-02", "dt=2024-01-03"}
    assert {f["bucket"] for f in files} <= {0, 1}
    for f in files:
        assert os.path.exists(f["file_path"]), f
        assert pq.ParquetFile(f["file_path"]).metadata.num_rows == f["record_count"]
    old = json.loads(run_paimon("files", path, "--json", "--snapshot", "1").stdout)
    assert sum(f["record_count"] for f in old) == 40
    text = run_paimon("files", path).stdout.splitlines()
    assert text[0].startswith("partition\tbucket\tfile\tlevel\trows")
    assert len(text) == len(files) + 1
    schema = json.loads(run_paimon("schema", path, "--json").stdout)
    assert [f["name"] for f in schema["fields"]] == ALL_TYPES.names
    assert schema["partitionKeys"] == ["dt"]


def test_csv_and_parquet_output(warehouse, tmp_path):
    path = warehouse / "db.db" / "unaware"
    arrow = pypaimon_read(warehouse, "db", "unaware")
    out = tmp_path / "t.parquet"
    run_paimon("read", path, "--format", "parquet", "--output", out)
    back = pq.read_table(out)
    assert back.column_names == ALL_TYPES.names
    assert multiset(canon_table(back)) == multiset(canon_table(arrow))
    csv_text = run_paimon("read", path, "--format", "csv").stdout
    rows = list(csv.reader(io.StringIO(csv_text)))
    assert rows[0] == ALL_TYPES.names
    assert len(rows) == 1 + arrow.num_rows
    by_id = {int(r[0]): r for r in rows[1:]}
    src = {r["id"]: r for r in arrow.select(["id", "s", "i32"]).to_pylist()}
    for i, r in by_id.items():
        assert r[7] == (src[i]["s"] or "")
        assert r[4] == ("" if src[i]["i32"] is None else str(src[i]["i32"]))
    # an empty string is quoted, a null is an empty cell
    assert '""' in csv_text
    # --output replaces the file only on success
    bad = tmp_path / "bad.jsonl"
    bad.write_text("keep")
    p = run_paimon("read", path, "--columns", "nope", "--output", bad, check=False)
    assert p.returncode == 1 and bad.read_text() == "keep"
    assert sorted(os.listdir(tmp_path)) == ["bad.jsonl", "t.parquet"]


def test_create_then_pypaimon_writes(tmp_path):
    """`paimon create` makes a table pypaimon opens and writes; we read it back."""
    from pypaimon import CatalogFactory
    path = tmp_path / "db.db" / "made"
    run_paimon("create", path, "--schema", "id BIGINT NOT NULL, name STRING, amount DECIMAL(10, 2), dt STRING",
               "--partition-keys", "dt", "--option", "bucket=2", "--option", "bucket-key=id",
               "--comment", "made by paimon-c")
    p = run_paimon("create", path, "--schema", "id INT", check=False)
    assert p.returncode == 1 and "already exists" in p.stderr
    assert run_paimon("create", path, "--schema", "id INT", "--ignore-if-exists").stdout.startswith("table ")
    schema = json.loads(run_paimon("schema", path, "--json").stdout)
    assert [f["type"] for f in schema["fields"]] == ["BIGINT NOT NULL", "STRING", "DECIMAL(10, 2)", "STRING"]
    assert schema["comment"] == "made by paimon-c" and schema["options"]["bucket"] == "2"
    cat = CatalogFactory.create({"warehouse": str(tmp_path)})
    t = cat.get_table("db.made")
    rows = [{"id": i, "name": f"n{i}" if i % 3 else None, "amount": decimal.Decimal(f"{i}.25"),
             "dt": "a" if i % 2 else "b"} for i in range(50)]
    wb = t.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    arrow_schema = pa.schema([("id", pa.int64(), False), ("name", pa.string()), ("amount", pa.decimal128(10, 2)),
                              ("dt", pa.string())])
    w.write_arrow(pa.Table.from_pylist(rows, schema=arrow_schema))
    c.commit(w.prepare_commit())
    w.close()
    c.close()
    got = _ours(path)
    arrow = pypaimon_read(tmp_path, "db", "made")
    assert len(got) == 50
    assert multiset(canon_our_rows(got, arrow.schema)) == multiset(canon_table(arrow))
    # a PK table: keys become NOT NULL
    pk = tmp_path / "db.db" / "pk"
    run_paimon("create", pk, "--schema", "k INT, v STRING", "--primary-keys", "k", "--option", "bucket=1")
    assert json.loads(run_paimon("schema", pk, "--json").stdout)["fields"][0]["type"] == "INT NOT NULL"
    p = run_paimon("create", tmp_path / "bad", "--schema", "k INT", "--option", "bucket=x", check=False)
    assert p.returncode == 2 and "bucket" in p.stderr  # a refused option is a usage error
    assert not (tmp_path / "bad").exists()
