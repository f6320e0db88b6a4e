"""Plans, tasks and results travel as JSON and pickle: a task executed
from its JSON in another process gives a result that commits here.  So do
read splits (read in other processes, also filtered) and commit messages
(files written in several processes, committed once here)."""
import json
import multiprocessing
import pickle

import pyarrow as pa
import pytest

import paimon_c
from paimon_c import CompactPlan, CompactResult, CompactTask, Schema

from conftest import SCHEMA, data, rows_of


def table_with_files(catalog, commits=4):
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, partition_keys=["pt"],
                                                           options={"write-only": "true"}), False)
    t = catalog.get_table("db.t")
    for k in range(commits):
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(data(k * 6, 6))
        wb.new_commit().commit(w.prepare_commit())
    return t


def _worker(table_path, task_pickle):
    """Runs in a spawned process: nothing but the path and the task."""
    import pickle
    import paimon_c
    task = pickle.loads(task_pickle)
    result = paimon_c.open_table(table_path).new_compact_builder().new_executor().execute(task)
    return result.to_json()


def test_plan_task_result_round_trips(catalog):
    t = table_with_files(catalog)
    cb = t.new_compact_builder().with_full(True).with_commit_user("ser-test")
    plan = cb.new_planner().plan()
    text = plan.to_json()
    doc = json.loads(text)
    assert doc["format"] == 1 and doc["kind"] == "plan"
    copy = CompactPlan.from_json(text)
    assert copy.to_json() == text and copy.plan_id == plan.plan_id and copy.commit_user == "ser-test"
    assert pickle.loads(pickle.dumps(plan)).to_json() == text
    for task in plan.tasks():
        assert CompactTask.from_json(task.to_json()).to_json() == task.to_json()
        assert pickle.loads(pickle.dumps(task)).to_json() == task.to_json()
    r = cb.new_executor().execute(plan.tasks()[0])
    assert CompactResult.from_json(r.to_json()).to_json() == r.to_json()
    assert pickle.loads(pickle.dumps(r)).to_json() == r.to_json()
    cb.new_commit().abort_compact([r])


def test_tasks_executed_in_other_processes_commit(catalog):
    t = table_with_files(catalog)
    before = rows_of(t.new_read_builder().new_read().to_arrow(t.new_read_builder().new_scan().plan().splits()))
    cb = t.new_compact_builder().with_full(True)
    plan = CompactPlan.from_json(cb.new_planner().plan().to_json())  # e.g. a restarted coordinator
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        texts = pool.starmap(_worker, [(t.path, pickle.dumps(task)) for task in plan.tasks()])
    results = [CompactResult.from_json(x) for x in texts]
    m = cb.new_commit().commit_compact(results)
    assert m.tasks == 3 and m.snapshot_id == 5
    # retrying the same commit is a no-op that reports the same snapshot
    assert cb.new_commit().commit_compact(results).snapshot_id == 5
    assert t.snapshot_ids() == [1, 2, 3, 4, 5]
    rb = t.new_read_builder()
    assert rows_of(rb.new_read().to_arrow(rb.new_scan().plan().splits())) == before


def _read_split(table_path, split_json, where):
    """Runs in a spawned process: a split read from its JSON alone."""
    import paimon_c
    rb = paimon_c.open_table(table_path).new_read_builder()
    if where:
        rb.with_filter(where)
    return rb.new_read().to_arrow([paimon_c.Split.from_json(split_json)]).to_pylist()


def _write_part(table_path, start, commit_user):
    """Runs in a spawned process: writes files, hands the messages back as pickle."""
    import pickle
    import paimon_c
    from conftest import data
    wb = paimon_c.open_table(table_path).new_batch_write_builder().with_commit_user(commit_user)
    w = wb.new_write()
    w.write_arrow(data(start, 5))
    return pickle.dumps(w.prepare_commit())


def test_splits_travel_and_are_read_in_other_processes(catalog):
    t = table_with_files(catalog)
    rb = t.new_read_builder()
    splits = rb.new_scan().plan().splits()
    assert len(splits) == 3
    for s in splits:
        text = s.to_json()
        doc = json.loads(text)
        assert doc["format"] == 1
        copy = paimon_c.Split.from_json(text)
        assert (copy.partition, copy.bucket, copy.file_count, copy.row_count) == \
            (s.partition, s.bucket, s.file_count, s.row_count)
        assert pickle.loads(pickle.dumps(s)).to_json() == text
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        parts = pool.starmap(_read_split, [(t.path, s.to_json(), None) for s in splits])
        filtered = pool.starmap(_read_split, [(t.path, s.to_json(), "s = 'v1'") for s in splits])
    assert rows_of(pa.Table.from_pylist([r for p in parts for r in p])) == rows_of(rb.new_read().to_arrow(splits))
    assert all(r["s"] == "v1" for p in filtered for r in p) and sum(map(len, filtered)) > 0
    with pytest.raises(paimon_c.InvalidError):
        paimon_c.Split.from_json('{"format": 1}')


def test_commit_messages_from_other_processes_commit_once(catalog):
    t = table_with_files(catalog, commits=1)
    before = t.snapshot_ids()
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        blobs = pool.starmap(_write_part, [(t.path, 100 + 10 * i, "multi") for i in range(3)])
    messages = [m for b in blobs for m in pickle.loads(b)]
    assert sum(m.row_count for m in messages) == 15
    copy = paimon_c.CommitMessage.from_json(messages[0].to_json())
    assert copy.to_json() == messages[0].to_json()
    wb = t.new_batch_write_builder().with_commit_user("multi")
    wb.new_commit().commit(messages)
    assert len(t.snapshot_ids()) == len(before) + 1
    rb = t.new_read_builder()
    assert rb.new_read().to_arrow(rb.new_scan().plan().splits()).num_rows == 6 + 15
    with pytest.raises(paimon_c.InvalidError):
        paimon_c.CommitMessage.from_json('{"format": 1, "messages": [{"bogus": 1}]}')
