"""paimon_c incremental reads (ReadBuilder.with_incremental_between): the
delta and changelog of a snapshot range with their row kinds, through the
package on a lookup-changelog table and an append table."""
import pyarrow as pa
import pytest

import paimon_c
from paimon_c import Schema

PK = pa.schema([pa.field("id", pa.int64(), nullable=False), ("v", pa.string())])


def write(table, rows):
    wb = table.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(pa.Table.from_pylist(rows))
    out = wb.new_commit().commit(w.prepare_commit())
    w.close()
    return out


def incremental(table, a, b, mode="auto", projection=None):
    rb = table.new_read_builder().with_incremental_between(a, b, mode)
    if projection:
        rb.with_projection(projection)
    return rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()


def test_lookup_changelog(catalog):
    catalog.create_table("db.cl", Schema.from_pyarrow_schema(
        PK, primary_keys=["id"], options={"bucket": "1", "changelog-producer": "lookup"}), False)
    t = catalog.get_table("db.cl")
    write(t, [{"id": 1, "v": "a"}, {"id": 2, "v": "a"}])                 # snapshots 1 (APPEND), 2 (COMPACT)
    write(t, [{"id": 2, "v": "b", "_ROW_KIND": "+U"}, {"id": 3, "v": "c"}])  # 3, 4
    got = incremental(t, 0, 4)
    assert [(r["id"], r["v"], r["_ROW_KIND"]) for r in got] == [
        (1, "a", "+I"), (2, "a", "+I"), (2, "a", "-U"), (2, "b", "+U"), (3, "c", "+I")]
    assert [r["_ROW_KIND"] for r in incremental(t, 0, 4, "delta")] == ["+I", "+I", "+U", "+I"]
    assert incremental(t, 2, 4, "changelog", ["_ROW_KIND", "id"]) == [
        {"_ROW_KIND": "-U", "id": 2}, {"_ROW_KIND": "+U", "id": 2}, {"_ROW_KIND": "+I", "id": 3}]
    assert incremental(t, 4, 4) == []
    # a reader of the builder reads the scan's incremental splits
    rb = t.new_read_builder().with_incremental_between(2, 4, "changelog")
    assert len(rb.new_read().to_arrow(rb.new_scan().plan().splits())) == 3
    with pytest.raises(paimon_c.InvalidError):
        incremental(t, 0, 9)
    with pytest.raises(ValueError):
        t.new_read_builder().with_incremental_between(3, 1)


def test_append_delta(catalog):
    catalog.create_table("db.ap", Schema.from_pyarrow_schema(pa.schema([("id", pa.int64())])), False)
    t = catalog.get_table("db.ap")
    write(t, [{"id": 1}])
    write(t, [{"id": 2}, {"id": 3}])
    assert incremental(t, 1, 2) == [{"id": 2, "_ROW_KIND": "+I"}, {"id": 3, "_ROW_KIND": "+I"}]
