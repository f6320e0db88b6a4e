"""paimon_c.parallel: the distributed driver over concurrent.futures
(threads and processes): results identical in pypaimon, subset commits,
retries, and a job that fails publishing nothing and leaving no file."""
import json
import os
import pathlib

import pytest

import paimon_c
from paimon_c import parallel

from conftest import files_on_disk, files_referenced, pypaimon_rows, pypaimon_table


def hide_input_of_task(path, plan, index):
    """Move one input file of task `index` away; return a function putting it back."""
    name = json.loads(plan.tasks()[index].to_json())["files"][0]["file_name"]
    src = next(pathlib.Path(root) / name for root, _, names in os.walk(path) if name in names)
    dst = src.with_name(src.name + ".hidden")
    src.rename(dst)
    return lambda: dst.rename(src)


@pytest.mark.parametrize("executor", ["thread", "process"])
def test_parallel_compaction_matches_pypaimon(wh, executor):
    path = pypaimon_table(wh, commits=6, partition_keys=["pt"], parts=4)
    before = pypaimon_rows(wh)
    m = parallel.compact(str(wh), "db.t", full=True, max_workers=2, executor=executor)
    assert m.tasks == 4 and m.files_removed == 24 and m.files_added == 4 and m.snapshot_id == 7
    assert pypaimon_rows(wh) == before
    t = paimon_c.open_table(str(path))
    assert [t.snapshot(i)["commitKind"] for i in t.snapshot_ids()][-1] == "COMPACT"
    assert files_on_disk(path) == files_referenced(t)


def test_large_plans_commit_in_subsets(wh):
    pypaimon_table(wh, commits=6, partition_keys=["pt"], parts=4)
    before = pypaimon_rows(wh)
    m = parallel.compact(str(wh), "db.t", full=True, max_workers=2, commit_batch_size=2)
    t = paimon_c.CatalogFactory.create({"warehouse": str(wh)}).get_table("db.t")
    kinds = [t.snapshot(i)["commitKind"] for i in t.snapshot_ids()]
    assert kinds[6:] == ["COMPACT", "COMPACT"] and m.snapshot_id == 8 and m.files_removed == 24
    assert pypaimon_rows(wh) == before


def test_partition_filter_and_options(wh):
    pypaimon_table(wh, commits=3, partition_keys=["pt"])
    m = parallel.compact(str(wh), "db.t", partitions=[{"pt": "p0"}, {"pt": "p2"}],
                         options={"compaction.min.file-num": "2"}, max_workers=2)
    assert m.tasks == 2 and m.files_removed == 6
    assert parallel.compact(str(wh), "db.t", partitions={"pt": "p0"},
                            options={"compaction.min.file-num": "2"}).snapshot_id == 0  # nothing left there


def test_failing_task_is_retried_then_the_job_fails_cleanly(wh):
    path = pypaimon_table(wh, commits=6, partition_keys=["pt"], parts=4)
    t = paimon_c.open_table(str(path))
    snapshots, disk = t.snapshot_ids(), files_on_disk(path)
    plan = t.new_compact_builder().with_full(True).new_planner().plan()
    restore = hide_input_of_task(path, plan, 2)
    calls = []

    class CountingPool(parallel.cf.ThreadPoolExecutor):
        def submit(self, fn, *args):
            calls.append(args[1])
            return super().submit(fn, *args)

    try:
        with CountingPool(2) as ex:
            with pytest.raises(parallel.CompactionJobError) as info:
                parallel.compact(str(wh), "db.t", full=True, executor=ex, max_retries=2)
    finally:
        restore()
    err = info.value
    assert err.task_index == 2 and err.committed.snapshot_id == 0
    assert isinstance(err.__cause__, paimon_c.PaimonError)
    assert len(calls) == 4 + 2  # every task once, the failing one twice more
    # nothing published, and the results of the tasks that succeeded were aborted
    assert t.snapshot_ids() == snapshots
    assert files_on_disk(path) == disk
    # the job can run again once the file is back
    assert parallel.compact(str(wh), "db.t", full=True, max_workers=2).files_removed == 24


def test_compact_database(wh):
    pypaimon_table(wh, "db.a", commits=5, partition_keys=["pt"])
    pypaimon_table(wh, "db.b", commits=5)
    out = parallel.compact_database(str(wh), "db", full=True, max_workers=2)
    assert sorted(out) == ["a", "b"]
    assert out["a"].tasks == 3 and out["b"].tasks == 1
    assert all(m.snapshot_id == 6 for m in out.values())


def test_progress_bar(wh, capsys):
    pypaimon_table(wh, commits=5, partition_keys=["pt"])
    parallel.compact(str(wh), "db.t", full=True, max_workers=2, progress=True)
    err = capsys.readouterr().err
    assert "db.t [" in err and "3/3 tasks" in err
    parallel.compact(str(wh), "db.t", full=True, max_workers=2)  # not a TTY: no bar
    assert "tasks" not in capsys.readouterr().err
