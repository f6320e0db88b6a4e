"""Distributed compaction on a Ray cluster (``pip install paimon_c[ray]``).

    import ray
    from paimon_c import ray as paimon_ray
    ray.init()
    metrics = paimon_ray.compact("/path/wh", "db.t", num_workers=8)

The driver plans (capturing one snapshot), runs each task as a Ray task
(the worker opens the table by path and executes the task's JSON),
gathers the results and commits on the driver against the plan's
snapshot.  A task that fails (an error, or its worker died) is sent again
up to ``max_retries`` times; when one finally fails, nothing more is sent,
the results not committed are aborted and nothing is published twice.
Very large plans commit in subsets of ``commit_batch_size`` results.  See
``paimon_c._driver`` for the steps.  :func:`read` reads a table the same
way: splits planned on the driver, each read by a Ray task from its JSON.
Everything crossing to a worker is JSON text (tasks, results, splits)
and the table's path; workers are Ray's own processes.  The warehouse
must be reachable at the same path from every Ray node (a shared file
system).
"""

from typing import Dict, Optional, Sequence

from ._driver import CompactionJobError, Pool, execute_task_json, list_tables, plan_table, read_split_json, run_job
from .catalog import CatalogFactory
from .compact import CompactMetrics

__all__ = ["compact", "compact_database", "read", "CompactionJobError"]


def _ray():
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("paimon_c.ray needs Ray: pip install 'paimon_c[ray]'") from exc
    return ray


class _RayPool(Pool):
    in_flight_per_worker = 1  # Ray runs whatever it is given if the cluster has the CPUs

    def __init__(self, ray, remote_args):
        self.ray = ray
        # Retries are the driver's (counted alike for errors and dead workers).
        args = {"num_cpus": 1}
        args.update(remote_args or {})
        args.update(max_retries=0, retry_exceptions=False)
        self.remote = ray.remote(**args)(execute_task_json)

    def submit(self, table_path, task_json, branch):
        return self.remote.remote(table_path, task_json, branch)

    def wait(self, handles):
        done, _ = self.ray.wait(handles, num_returns=1)
        return done

    def result(self, handle):
        return self.ray.get(handle)


def compact(warehouse: str, table: str, partitions=None, full: bool = False, num_workers: Optional[int] = None,
            options: Optional[Dict[str, str]] = None, *, commit_user: Optional[str] = None, max_retries: int = 2,
            commit_batch_size: int = 1000, progress: Optional[bool] = None,
            ray_remote_args: Optional[dict] = None) -> CompactMetrics:
    """Compact the table ``table`` ("db.t") of ``warehouse`` on Ray.

    Args:
        partitions: only these partitions (a dict, a list of dicts, or "k=v" texts).
        full: an explicit full compaction.
        num_workers: tasks executed at once (default: the cluster's CPUs).
        options: table options for this compaction only.
        commit_user: stable across re-runs (default: a random one).
        max_retries: times a failed task is sent again.
        commit_batch_size: results per commit (larger plans commit in subsets).
        progress: draw a progress bar (default: when stderr is a TTY).
        ray_remote_args: options of each Ray task (e.g. {"num_cpus": 2, "resources": {...}}).

    Returns the metrics (counters summed over the commits, the last
    snapshot published, the plan's task count and the job's wall time);
    raises CompactionJobError when the job fails.  Starts a local Ray
    instance when none is initialized (as Ray itself does).
    """
    ray = _ray()
    t, cb, plan = plan_table(warehouse, table, partitions, full, options, commit_user)
    if len(plan) == 0:
        return CompactMetrics()
    if not ray.is_initialized():
        ray.init()
    workers = num_workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
    return run_job(t, cb, plan, _RayPool(ray, ray_remote_args), workers, max_retries=max_retries,
                   commit_batch_size=commit_batch_size, progress=progress, label=table)


def compact_database(warehouse: str, database: str, **kwargs) -> Dict[str, CompactMetrics]:
    """Compact every table of ``database`` one after another (each with
    :func:`compact` and the same keyword arguments); stops at the first
    table that fails.  Returns {table name: metrics}."""
    return {name: compact(warehouse, "%s.%s" % (database, name), **kwargs)
            for name in list_tables(warehouse, database)}


def read(warehouse: str, table: str, projection: Optional[Sequence[str]] = None, filter=None, partitions=None,
         snapshot_id: Optional[int] = None, *, ray_remote_args: Optional[dict] = None):
    """Read the table ``table`` ("db.t") of ``warehouse`` on Ray: the splits
    are planned on the driver (one snapshot), each is read by a Ray task
    from its JSON (projection and filter as ReadBuilder's: a Predicate or a
    ``where`` text), and the parts are concatenated in split order into one
    pyarrow Table."""
    import pyarrow as pa
    ray = _ray()
    t = CatalogFactory.create({"warehouse": str(warehouse)}).get_table(table)
    rb = t.new_read_builder()
    if projection:
        rb.with_projection(projection)
    if filter is not None:
        rb.with_filter(filter)
    if partitions:
        rb.with_partition_filter(partitions)
    if snapshot_id:
        rb.with_snapshot(snapshot_id)
    splits = rb.new_scan().plan().splits()
    if not splits:
        return rb.new_read().to_arrow([])
    if not ray.is_initialized():
        ray.init()
    args = {"num_cpus": 1}
    args.update(ray_remote_args or {})
    remote = ray.remote(**args)(read_split_json)
    where = rb._filter
    parts = ray.get([remote.remote(t.path, s.to_json(), rb._columns, where, t.branch) for s in splits])
    return pa.concat_tables(parts)
