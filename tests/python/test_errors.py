"""libpaimon errors as Python exceptions: one class per code, the whole
cause chain in the message and in .causes, picklable; misuse of the
package's own objects is a clear error too."""
import pickle

import pyarrow as pa
import pytest

import paimon_c
from paimon_c import Schema

from conftest import SCHEMA, data


def test_not_found_carries_code_and_chain(catalog):
    with pytest.raises(paimon_c.NotFoundError) as info:
        catalog.get_table("db.missing")
    e = info.value
    assert isinstance(e, paimon_c.PaimonError) and isinstance(e, LookupError)
    assert e.code == 2 and e.code_name == "ENOTFOUND"
    assert len(e.causes) >= 2 and e.causes[0][1] in str(e) and e.causes[-1][1] in str(e)
    assert "no Paimon table" in e.root_message
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is paimon_c.NotFoundError and again.causes == e.causes and str(again) == str(e)


def test_invalid_options_and_schemas(catalog):
    with pytest.raises(paimon_c.InvalidError, match="bucket"):
        catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, options={"bucket": "many"}), False)
    with pytest.raises(paimon_c.InvalidError, match="partition key 'nope'"):
        catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, partition_keys=["nope"]), False)
    assert catalog.list_tables("db") == []  # nothing left on disk
    with pytest.raises(paimon_c.NotFoundError):
        catalog.create_table("nodb.t", Schema.from_pyarrow_schema(SCHEMA), False)
    with pytest.raises(paimon_c.InvalidError, match="database.table"):
        catalog.get_table("no-dot")
    with pytest.raises(paimon_c.InvalidError, match="unknown catalog option"):
        paimon_c.CatalogFactory.create({"warehouse": "/tmp/x", "uri": "http://x"})
    with pytest.raises(paimon_c.UnsupportedError):
        paimon_c.CatalogFactory.create({"warehouse": "/tmp/x", "metastore": "hive"})


def test_write_errors_name_the_column(catalog):
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA), False)
    t = catalog.get_table("db.t")
    w = t.new_batch_write_builder().new_write()
    with pytest.raises(paimon_c.PaimonError, match="nope"):
        w.write_arrow(pa.table({"id": [1], "nope": [2]}))
    with pytest.raises(TypeError, match="Arrow data"):
        w.write_arrow([1, 2, 3])
    w.close()
    with pytest.raises(ValueError, match="closed"):
        w.write_arrow(data(0, 1))
    w.close()  # twice is fine


def test_unsupported_read_filter_is_refused(catalog):
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA), False)
    rb = catalog.get_table("db.t").new_read_builder()
    # what libpaimon's filter lacks is refused by name, never read unfiltered
    pb = rb.new_predicate_builder()
    with pytest.raises(paimon_c.UnsupportedError, match="is_null"):
        pb.is_null("id")
    with pytest.raises(paimon_c.UnsupportedError, match="or_predicates"):
        pb.or_predicates([pb.equal("id", 1), pb.equal("id", 2)])
    with pytest.raises(TypeError, match="with_filter"):
        rb.with_filter(object())
    with pytest.raises(paimon_c.InvalidError, match="filter"):
        rb.with_filter("id LIKE 3").new_read().to_arrow(rb.new_scan().plan().splits())
    rb.with_filter(None)
    with pytest.raises(paimon_c.InvalidError):
        rb.with_projection(["nope"]).new_read().to_arrow(rb.new_scan().plan().splits() or [])


def test_bad_json_and_wrong_handles():
    with pytest.raises(paimon_c.InvalidError):
        paimon_c.CompactTask.from_json('{"format": 1, "kind": "task"}')
    with pytest.raises(paimon_c.PaimonError):
        paimon_c.CompactPlan.from_json("not json")
    with pytest.raises(TypeError, match="compact_task handle"):
        paimon_c._native.task_to_json(paimon_c._native.catalog_open("/tmp"))


def test_commit_conflict_after_concurrent_compaction(catalog):
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, options={"write-only": "true"}), False)
    t = catalog.get_table("db.t")
    for k in range(3):
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(data(k * 5, 5))
        wb.new_commit().commit(w.prepare_commit())
    cb = t.new_compact_builder().with_full(True)
    plan = cb.new_planner().plan()
    results = [cb.new_executor().execute(x) for x in plan.tasks()]
    t.new_compact_builder().with_full(True).run()  # someone else compacts the same files first
    with pytest.raises(paimon_c.ConflictError) as info:
        cb.new_commit().commit_compact(results)
    assert info.value.code_name == "ECONFLICT"
    cb.new_commit().abort_compact(results)
