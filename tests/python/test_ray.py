"""paimon_c.ray on a local Ray cluster (ray.init(num_cpus=2)): a
partitioned pypaimon-written table compacted with several Ray tasks reads
back identically in pypaimon; a worker killed mid-task is retried and the
job completes; a task whose worker always dies makes the job fail cleanly
(nothing published, no prepared file left); paimon_c.ray.read reads a
table's splits in Ray tasks from their JSON."""
import json
import os
import pathlib

import pyarrow as pa
import pytest

ray = pytest.importorskip("ray")

import paimon_c  # noqa: E402
from paimon_c import ray as paimon_ray  # noqa: E402

from conftest import files_on_disk, files_referenced, pypaimon_rows, pypaimon_table, rows_of  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def kill_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("ray-kill") / "kill.json"
    env = {"PAIMON_C_TEST_KILL": str(path),
           "PYTHONPATH": os.pathsep.join([str(HERE)] + ([os.environ["PYTHONPATH"]] if "PYTHONPATH" in os.environ else []))}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             runtime_env={"env_vars": env, "worker_process_setup_hook": "ray_hooks.install"})
    yield path
    ray.shutdown()


def arm(kill_file, task_index, times):
    for p in (kill_file, pathlib.Path(str(kill_file) + ".kills")):
        if p.exists():
            p.unlink()
    kill_file.write_text(json.dumps({"task_index": task_index, "times": times}))


def kills(kill_file):
    p = pathlib.Path(str(kill_file) + ".kills")
    return p.read_text().count("\n") if p.exists() else 0


def test_ray_compaction_matches_pypaimon(wh, kill_file):
    arm(kill_file, -1, 0)
    path = pypaimon_table(wh, commits=6, partition_keys=["pt"], parts=4)
    before = pypaimon_rows(wh)
    m = paimon_ray.compact(str(wh), "db.t", full=True, num_workers=2)
    assert m.tasks == 4 and m.files_removed == 24 and m.files_added == 4 and m.snapshot_id == 7
    assert pypaimon_rows(wh) == before
    t = paimon_c.open_table(str(path))
    assert t.latest_snapshot()["commitKind"] == "COMPACT"
    assert files_on_disk(path) == files_referenced(t)


def test_killed_worker_is_retried_and_the_job_completes(wh, kill_file):
    arm(kill_file, 1, 1)
    path = pypaimon_table(wh, commits=6, partition_keys=["pt"], parts=4)
    before = pypaimon_rows(wh)
    m = paimon_ray.compact(str(wh), "db.t", full=True, num_workers=2, max_retries=2)
    assert kills(kill_file) == 1
    assert m.tasks == 4 and m.files_removed == 24 and m.snapshot_id == 7
    assert pypaimon_rows(wh) == before
    t = paimon_c.open_table(str(path))
    assert files_on_disk(path) == files_referenced(t)


def test_worker_that_always_dies_fails_the_job_cleanly(wh, kill_file):
    arm(kill_file, 0, 99)
    path = pypaimon_table(wh, commits=6, partition_keys=["pt"], parts=4)
    t = paimon_c.open_table(str(path))
    snapshots, disk = t.snapshot_ids(), files_on_disk(path)
    with pytest.raises(paimon_ray.CompactionJobError) as info:
        paimon_ray.compact(str(wh), "db.t", full=True, num_workers=2, max_retries=1)
    assert info.value.task_index == 0 and kills(kill_file) == 2
    assert t.snapshot_ids() == snapshots  # nothing published
    assert files_on_disk(path) == disk     # the other tasks' results were aborted
    arm(kill_file, -1, 0)
    assert paimon_ray.compact(str(wh), "db.t", full=True).files_removed == 24


def test_ray_read_ships_splits_as_json(wh, kill_file):
    arm(kill_file, -1, 0)
    pypaimon_table(wh, commits=5, partition_keys=["pt"], parts=3)
    got = paimon_ray.read(str(wh), "db.t")
    assert rows_of(got) == pypaimon_rows(wh)
    part = paimon_ray.read(str(wh), "db.t", projection=["id", "s"], filter="s = 'v2'")
    assert part.column_names == ["id", "s"] and part.num_rows > 0
    assert rows_of(part) == rows_of(pa.Table.from_pylist(
        [{"id": r["id"], "s": r["s"]} for r in got.to_pylist() if r["s"] == "v2"]))


def test_service_executor_retries_and_aborts(wh, kill_file):
    """The helper of paimon serve's executor=ray (inside this driver): results
    in task order; a task whose worker always dies ends it with the results
    it got aborted (no prepared file left)."""
    from paimon_c import _service_exec
    path = pypaimon_table(wh, commits=6, partition_keys=["pt"], parts=4)
    t = paimon_c.open_table(str(path))
    cb = t.new_compact_builder().with_full(True)
    plan = cb.new_planner().plan()
    req = {"address": "auto", "table": str(path), "tasks": [json.loads(x.to_json()) for x in plan.tasks()]}
    disk = files_on_disk(path)
    arm(kill_file, 2, 99)
    with pytest.raises(Exception):
        _service_exec._execute(req)
    assert kills(kill_file) == 3 and files_on_disk(path) == disk
    arm(kill_file, 1, 1)
    texts = _service_exec._execute(req)
    assert kills(kill_file) == 1
    results = [paimon_c.CompactResult.from_json(x) for x in texts]
    assert [json.loads(x)["task_index"] for x in texts] == [0, 1, 2, 3]
    before = pypaimon_rows(wh)
    assert cb.new_commit().commit_compact(results).files_removed == 24
    assert pypaimon_rows(wh) == before


def test_service_executor_aborts_when_the_service_is_gone(wh, kill_file):
    """The helper's answer cannot be written (the service died mid-pass):
    it aborts its results, so no file it wrote stays behind."""
    import subprocess
    import sys
    arm(kill_file, -1, 0)
    path = pypaimon_table(wh, commits=4, partition_keys=["pt"], parts=2)
    t = paimon_c.open_table(str(path))
    plan = t.new_compact_builder().with_full(True).new_planner().plan()
    req = {"address": ray.get_runtime_context().gcs_address, "table": str(path),
           "tasks": [json.loads(x.to_json()) for x in plan.tasks()]}
    disk = files_on_disk(path)
    r, w = os.pipe()
    os.close(r)  # nobody reads the answer
    p = subprocess.run([sys.executable, "-m", "paimon_c._service_exec"], input=json.dumps(req).encode(),
                       stdout=w, stderr=subprocess.PIPE, timeout=300)
    os.close(w)
    assert p.returncode == 1, p.stderr.decode()[-2000:]
    assert files_on_disk(path) == disk and t.snapshot_ids() == [1, 2, 3, 4]
