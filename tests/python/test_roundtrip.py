"""paimon_c round trips: create → write → read → compact, on append and
primary-key tables, with the inputs and outputs the package accepts."""
import pyarrow as pa
import pytest

import paimon_c
from paimon_c import Schema

from conftest import SCHEMA, data, rows_of


def write(table, arrow, **builder):
    wb = table.new_batch_write_builder()
    if "overwrite" in builder:
        wb.overwrite(builder["overwrite"])
    w = wb.new_write()
    w.write_arrow(arrow)
    out = wb.new_commit().commit(w.prepare_commit())
    w.close()
    return out


def read(table, **kw):
    rb = table.new_read_builder()
    if "projection" in kw:
        rb.with_projection(kw["projection"])
    if "partitions" in kw:
        rb.with_partition_filter(kw["partitions"])
    if "limit" in kw:
        rb.with_limit(kw["limit"])
    if "snapshot" in kw:
        rb.with_snapshot(kw["snapshot"])
    return rb.new_read().to_arrow(rb.new_scan().plan().splits())


def test_catalog_lifecycle(catalog):
    assert catalog.list_databases() == ["db"]
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, partition_keys=["pt"]), False)
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA), True)  # ignore_if_exists
    with pytest.raises(paimon_c.ExistsError):
        catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA), False)
    assert catalog.list_tables("db") == ["t"]
    t = catalog.get_table("db.t")
    assert t.partition_keys == ["pt"] and t.primary_keys == [] and not t.is_primary_key_table
    assert [f.name for f in t.pyarrow_schema()] == ["id", "s", "pt"]
    assert t.snapshot_ids() == [] and t.latest_snapshot() is None
    catalog.drop_table("db.t")
    assert catalog.list_tables("db") == []
    catalog.drop_database("db")
    assert catalog.list_databases() == []


def test_append_write_read_compact(catalog):
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, partition_keys=["pt"],
                                                           options={"write-only": True}), False)
    t = catalog.get_table("db.t")
    expected = rows_of(pa.concat_tables([data(k * 10, 10) for k in range(4)]))
    for k in range(4):
        out = write(t, data(k * 10, 10))
        assert out.snapshot_id == k + 1 and out.rows == 10 and out.files == 3 and not out.already_committed
    assert rows_of(read(t)) == expected
    assert read(t, projection=["pt", "id"]).column_names == ["pt", "id"]
    assert read(t, limit=5).num_rows == 5
    only = read(t, partitions={"pt": "p1"})
    assert set(only.column("pt").to_pylist()) == {"p1"} and only.num_rows == 13
    assert read(t, snapshot=1).num_rows == 10

    before = len(t.files())
    cb = t.new_compact_builder().with_full(True)
    plan = cb.new_planner().plan()
    assert plan.snapshot_id == 4 and len(plan.tasks()) == 3
    results = [cb.new_executor().execute(task) for task in plan.tasks()]
    m = cb.new_commit().commit_compact(results)
    assert m.snapshot_id == 5 and m.tasks == 3 and m.files_removed == before == 12 and m.files_added == 3
    assert m.rows_read == m.rows_written == 40
    assert t.latest_snapshot()["commitKind"] == "COMPACT"
    assert rows_of(read(t)) == expected
    # nothing left to compact: an empty plan publishes nothing
    assert len(t.new_compact_builder().with_full(True).new_planner().plan()) == 0


def test_compact_run_partition_filter_and_options(catalog):
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, partition_keys=["pt"],
                                                           options={"write-only": "true"}), False)
    t = catalog.get_table("db.t")
    for k in range(3):
        write(t, data(k * 9, 9))
    cb = t.new_compact_builder().with_partition_filter({"pt": "p0"}).with_options(
        {"compaction.min.file-num": 2})
    m = cb.run()
    assert m.snapshot_id == 4 and m.files_removed == 3 and m.files_added == 1
    parts = {f["partition"] for f in t.files() if f["file_source"] == "COMPACT"}
    assert parts == {"pt=p0"}
    with pytest.raises(paimon_c.InvalidError, match="not a partition key"):
        t.new_compact_builder().with_partition_filter({"nope": "x"}).new_planner().plan()


def test_overwrite_partition(catalog):
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, partition_keys=["pt"]), False)
    t = catalog.get_table("db.t")
    write(t, data(0, 9))
    write(t, pa.Table.from_pylist([{"id": 100, "s": "new", "pt": "p1"}], schema=SCHEMA), overwrite={"pt": "p1"})
    got = read(t)
    assert sorted(got.filter(pa.compute.equal(got["pt"], "p1"))["id"].to_pylist()) == [100]
    assert got.num_rows == 7
    assert t.latest_snapshot()["commitKind"] == "OVERWRITE"


def test_primary_key_table_merges(catalog):
    schema = pa.schema([("k", pa.int64(), False), ("v", pa.string()), ("dt", pa.string(), False)])
    catalog.create_table("db.pk", Schema.from_pyarrow_schema(schema, partition_keys=["dt"],
                                                            primary_keys=["k", "dt"],
                                                            options={"bucket": "2"}), False)
    t = catalog.get_table("db.pk")
    assert t.is_primary_key_table
    w_schema = t.new_batch_write_builder().new_write().input_schema()
    assert "_ROW_KIND" in w_schema.names
    write(t, pa.table({"k": [1, 2, 3], "v": ["a", "b", "c"], "dt": ["d1"] * 3}))
    write(t, pa.table({"k": [1, 3], "v": ["a2", None], "dt": ["d1", "d1"], "_ROW_KIND": ["+U", "-D"]}))
    assert sorted(read(t).to_pylist(), key=lambda r: r["k"]) == [
        {"k": 1, "v": "a2", "dt": "d1"}, {"k": 2, "v": "b", "dt": "d1"}]
    m = t.new_compact_builder().with_full(True).run()
    assert m.snapshot_id > 0
    assert sorted(read(t).to_pylist(), key=lambda r: r["k"]) == [
        {"k": 1, "v": "a2", "dt": "d1"}, {"k": 2, "v": "b", "dt": "d1"}]


def test_inputs_pandas_polars_duckdb_batches_readers(catalog):
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA), False)
    t = catalog.get_table("db.t")
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_pandas(pd.DataFrame({"id": [1, 2], "s": ["a", None], "pt": ["x", "y"]}))
    w.write_arrow(pl.DataFrame({"id": [3], "s": ["polars"], "pt": ["z"]}))  # string_view columns
    w.write_arrow(duckdb.sql("SELECT 4::BIGINT AS id, 'duck' AS s, 'w' AS pt"))
    w.write_arrow_batch(pa.record_batch({"id": [5], "s": ["batch"], "pt": ["v"]}))
    w.write_arrow(pa.RecordBatchReader.from_batches(SCHEMA, [data(6, 2).to_batches()[0]]))
    w.write_arrow(pa.table({"id": [8]}))  # missing nullable columns are null
    assert w.row_count == 8
    wb.new_commit().commit(w.prepare_commit())
    got = {r["id"]: r for r in read(t).to_pylist()}
    assert sorted(got) == [1, 2, 3, 4, 5, 6, 7, 8]
    assert got[3]["s"] == "polars" and got[4]["s"] == "duck" and got[8]["s"] is None

    # outputs: pandas, a batch reader, and the Arrow stream for polars / duckdb
    rb = t.new_read_builder()
    splits = rb.new_scan().plan().splits()
    assert sorted(rb.new_read().to_pandas(splits)["id"].tolist()) == [1, 2, 3, 4, 5, 6, 7, 8]
    assert sum(b.num_rows for b in rb.new_read().to_arrow_batch_reader(splits)) == 8
    assert pl.from_arrow(rb.new_read().to_arrow_batch_reader(splits)).height == 8
    stream = rb.new_read().to_arrow_stream(splits)
    assert pa.table(stream).num_rows == 8
    with pytest.raises(ValueError, match="consumed"):
        pa.table(stream)
    rel = duckdb.from_arrow(rb.new_read().to_arrow_batch_reader(splits))
    assert rel.aggregate("sum(id)").fetchall()[0][0] == 36
    assert sorted(r["id"] for r in rb.new_read().to_iterator(splits)) == [1, 2, 3, 4, 5, 6, 7, 8]


def test_empty_table_reads_empty(catalog):
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA), False)
    t = catalog.get_table("db.t")
    rb = t.new_read_builder()
    splits = rb.new_scan().plan().splits()
    assert splits == []
    got = rb.new_read().to_arrow(splits)
    assert got.num_rows == 0 and got.column_names == ["id", "s", "pt"]


def test_idempotent_commit_and_multiple_writers(catalog):
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA), False)
    t = catalog.get_table("db.t")
    wb = t.new_batch_write_builder().with_commit_user("job-1").with_commit_identifier(7)
    w1, w2 = wb.new_write(), wb.new_write()
    w1.write_arrow(data(0, 5))
    w2.write_arrow(data(5, 5))
    msgs = w1.prepare_commit() + w2.prepare_commit()
    assert sum(m.row_count for m in msgs) == 10
    first = wb.new_commit().commit(msgs)
    assert first.rows == 10 and first.snapshot_id == 1
    # a re-run of the same job (user, identifier) commits nothing again
    again = t.new_batch_write_builder().with_commit_user("job-1").with_commit_identifier(7)
    w = again.new_write()
    w.write_arrow(data(0, 5))
    out = again.new_commit().commit(w.prepare_commit())
    assert out.already_committed and out.snapshot_id == 1
    w.close()
    assert read(t).num_rows == 10


def test_table_by_path_and_schema_types(catalog, wh):
    schema = pa.schema([
        pa.field("b", pa.bool_()), pa.field("i8", pa.int8()), pa.field("i16", pa.int16()),
        pa.field("i32", pa.int32(), False), pa.field("f", pa.float32()), pa.field("d", pa.float64()),
        pa.field("dec", pa.decimal128(10, 2)), pa.field("bin", pa.binary()), pa.field("day", pa.date32()),
        pa.field("ts", pa.timestamp("us")), pa.field("ltz", pa.timestamp("ms", tz="UTC")),
        pa.field("arr", pa.list_(pa.int32())), pa.field("m", pa.map_(pa.string(), pa.int64())),
        pa.field("row", pa.struct([("x", pa.int32()), ("y", pa.string())])),
    ])
    catalog.create_table("db.types", Schema.from_pyarrow_schema(schema, comment="all types"), False)
    t = paimon_c.open_table(catalog.table_path("db.types"))
    assert t.table_schema.comment == "all types"
    import json
    types = {f["name"]: f["type"] for f in json.loads(t.table_schema.json)["fields"]}
    assert types["i32"] == "INT NOT NULL" and types["dec"] == "DECIMAL(10, 2)"
    assert types["ts"] == "TIMESTAMP(6)" and types["ltz"] == "TIMESTAMP(3) WITH LOCAL TIME ZONE"
    import decimal, datetime
    row = {"b": True, "i8": 1, "i16": 2, "i32": 3, "f": 1.5, "d": 2.5, "dec": decimal.Decimal("1.25"),
           "bin": b"\x00\x01", "day": datetime.date(2024, 1, 2), "ts": datetime.datetime(2024, 1, 2, 3, 4, 5, 6),
           "ltz": datetime.datetime(2024, 1, 2, tzinfo=datetime.timezone.utc), "arr": [1, None, 3],
           "m": [("a", 1)], "row": {"x": 1, "y": "z"}}
    write(t, pa.Table.from_pylist([row], schema=schema))
    got = read(t).to_pylist()[0]
    assert got["dec"] == decimal.Decimal("1.25") and got["arr"] == [1, None, 3] and got["row"] == {"x": 1, "y": "z"}
    assert got["m"] == [("a", 1)] and got["ts"] == row["ts"] and got["bin"] == b"\x00\x01"


def test_abort_deletes_the_prepared_files(catalog, wh):
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, partition_keys=["pt"]), False)
    t = catalog.get_table("db.t")
    from conftest import files_on_disk
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(data(0, 9))
    msgs = w.prepare_commit()
    assert len(files_on_disk(t.path)) == 3 and msgs[0].file_count == 3
    wb.new_commit().abort(msgs)
    assert files_on_disk(t.path) == set() and t.snapshot_ids() == []
    w.write_arrow(data(0, 9))  # a writer closed with unprepared rows deletes their files
    w.close()
    assert files_on_disk(t.path) == set()
