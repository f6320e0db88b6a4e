"""Plans, tasks and results travel as JSON and pickle: a task executed
from its JSON in another process gives a result that commits here."""
import json
import multiprocessing
import pickle

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
