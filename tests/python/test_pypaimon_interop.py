"""pypaimon-written tables compacted by paimon_c read back identically by
pypaimon, and paimon_c-written tables read by pypaimon."""
import pyarrow as pa

import paimon_c

from conftest import SCHEMA, data, paimon_c_rows, pypaimon_append, pypaimon_rows, pypaimon_table, rows_of


def test_pypaimon_append_table_compacted_by_paimon_c(wh):
    path = pypaimon_table(wh, commits=6, partition_keys=["pt"])
    before = pypaimon_rows(wh)
    assert paimon_c_rows(wh) == before
    t = paimon_c.CatalogFactory.create({"warehouse": str(wh)}).get_table("db.t")
    cb = t.new_compact_builder().with_full(True)
    plan = cb.new_planner().plan()
    assert len(plan) == 3
    m = cb.new_commit().commit_compact([cb.new_executor().execute(x) for x in plan.tasks()])
    assert m.files_removed == 18 and m.files_added == 3
    assert pypaimon_rows(wh) == before
    # pypaimon goes on appending to the compacted table
    pypaimon_append(wh, "db.t", data(1000, 4))
    assert sum(pypaimon_rows(wh).values()) == sum(before.values()) + 4
    assert paimon_c_rows(wh) == pypaimon_rows(wh)
    assert path.exists()


def test_pypaimon_primary_key_table_compacted_by_paimon_c(wh):
    schema = pa.schema([("id", pa.int64(), False), ("s", pa.string()), ("pt", pa.string(), False)])
    pypaimon_table(wh, schema=schema, partition_keys=["pt"], primary_keys=["id", "pt"], options={"bucket": "2"})
    for c in range(4):  # overlapping keys: later commits update earlier rows
        pypaimon_append(wh, "db.t", pa.Table.from_pylist(
            [{"id": k, "s": "c%d" % c, "pt": "p%d" % (k % 2)} for k in range(c * 3, c * 3 + 6)], schema=schema))
    before = pypaimon_rows(wh)
    assert paimon_c_rows(wh) == before
    t = paimon_c.CatalogFactory.create({"warehouse": str(wh)}).get_table("db.t")
    m = t.new_compact_builder().with_full(True).run()
    assert m.snapshot_id > 0 and m.files_removed > m.files_added
    assert pypaimon_rows(wh) == before


def test_paimon_c_written_table_read_by_pypaimon(wh):
    c = paimon_c.CatalogFactory.create({"warehouse": str(wh)})
    c.create_database("db", True)
    c.create_table("db.t", paimon_c.Schema.from_pyarrow_schema(SCHEMA, partition_keys=["pt"]), False)
    t = c.get_table("db.t")
    expected = rows_of(pa.concat_tables([data(k * 7, 7) for k in range(3)]))
    for k in range(3):
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(data(k * 7, 7))
        wb.new_commit().commit(w.prepare_commit())
    assert pypaimon_rows(wh) == expected
