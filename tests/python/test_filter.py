"""Row filters: ReadBuilder.with_filter takes a pypaimon-style Predicate
(new_predicate_builder: comparisons, between, is_in, and_predicates) or the same as a
`where` text (libpaimon's pm_read_options.filter); the rows equal
filtering every row in Python, on append and primary-key tables (after
the merge), with and without a projection that leaves the filtered
column out."""
import pyarrow as pa
import pytest

import paimon_c
from paimon_c import Schema

from conftest import SCHEMA, data, rows_of


def read(t, where=None, projection=None):
    rb = t.new_read_builder()
    if where is not None:
        rb.with_filter(where)
    if projection:
        rb.with_projection(projection)
    return rb.new_read().to_arrow(rb.new_scan().plan().splits())


def expect(t, keep, projection=None):
    rows = [r for r in read(t).to_pylist() if keep(r)]
    if projection:
        rows = [{k: r[k] for k in projection} for r in rows]
    return rows_of(pa.Table.from_pylist(rows)) if rows else rows_of(pa.table({}))


@pytest.mark.parametrize("pk", [False, True])
def test_predicates_and_where_texts(catalog, pk):
    opts = {"bucket": "2"} if pk else {}
    catalog.create_table("db.t", Schema.from_pyarrow_schema(
        SCHEMA, partition_keys=["pt"], primary_keys=["id", "pt"] if pk else None, options=opts), False)
    t = catalog.get_table("db.t")
    for k in range(3):
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(data(k * 10, 15))  # overlapping keys: the primary-key table merges them
        wb.new_commit().commit(w.prepare_commit())
    pb = t.new_read_builder().new_predicate_builder()
    cases = [
        (pb.equal("id", 7), lambda r: r["id"] == 7),
        (pb.is_in("s", ["v1", "v3"]), lambda r: r["s"] in ("v1", "v3")),
        (pb.and_predicates([pb.equal("pt", "p1"), pb.is_in("id", [1, 4, 13, 22, 40])]),
         lambda r: r["pt"] == "p1" and r["id"] in (1, 4, 13, 22, 40)),
        ("pt = 'p2' AND id IN (2, 5, 8, 41)", lambda r: r["pt"] == "p2" and r["id"] in (2, 5, 8, 41)),
        (pb.equal("s", "none such"), lambda r: False),
        (pb.and_predicates([pb.less_than("id", 20), pb.greater_or_equal("id", 5), pb.not_equal("s", "v3")]),
         lambda r: 5 <= r["id"] < 20 and r["s"] is not None and r["s"] != "v3"),
        (pb.between("id", 12, 31), lambda r: 12 <= r["id"] <= 31),
        (pb.and_predicates([pb.greater_than("s", "v4"), pb.less_or_equal("pt", "p1")]),
         lambda r: r["s"] is not None and r["s"] > "v4" and r["pt"] <= "p1"),
        ("id > 30 AND pt <> 'p0'", lambda r: r["id"] > 30 and r["pt"] != "p0"),
    ]
    for pred, keep in cases:
        assert rows_of(read(t, pred)) == expect(t, keep), pred
        assert rows_of(read(t, pred, ["id"])) == expect(t, keep, ["id"]), pred
    assert pb.and_predicates([]) is None and pb.and_predicates([None, cases[0][0]]) is cases[0][0]
    # quotes inside string literals, quoted column names
    assert "''" in pb.equal("s", "it's").to_where() and pb.equal("s", "x").to_where().startswith('"s"')
    assert read(t, pb.equal("s", "it's")).num_rows == 0
    with pytest.raises(ValueError, match="not a column"):
        pb.equal("nope", 1)
    with pytest.raises(paimon_c.InvalidError, match="NULL"):
        read(t, pb.equal("id", None))
    with pytest.raises(paimon_c.InvalidError, match="nope"):
        read(t, "nope = 1")
