"""Distributed compaction on one machine, over concurrent.futures.

    from paimon_c import parallel
    metrics = parallel.compact("/path/wh", "db.t", max_workers=4)

The same driver as :mod:`paimon_c.ray` (plan on the caller, tasks as JSON
to workers that open the table by path, bounded retries, subset commits,
abort of everything not committed on failure; see ``paimon_c._driver``),
with a thread pool (the default: libpaimon releases the GIL, so threads
run tasks in parallel) or a process pool (``executor="process"``), or any
``concurrent.futures.Executor`` you pass.
"""

import concurrent.futures as cf
import multiprocessing
import os
from typing import Dict, Optional, Union

from ._driver import CompactionJobError, Pool, execute_task_json, list_tables, plan_table, run_job
from .compact import CompactMetrics

__all__ = ["compact", "compact_database", "CompactionJobError"]


class _FuturesPool(Pool):
    def __init__(self, executor: cf.Executor):
        self.executor = executor

    def submit(self, table_path, task_json, branch):
        return self.executor.submit(execute_task_json, table_path, task_json, branch)

    def wait(self, handles):
        done, _ = cf.wait(handles, return_when=cf.FIRST_COMPLETED)
        return list(done)

    def result(self, handle):
        return handle.result()


def _executor(kind: Union[str, cf.Executor], workers: int):
    if isinstance(kind, cf.Executor):
        return kind, False
    if kind == "thread":
        return cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="paimon-compact"), True
    if kind == "process":
        # spawn: libpaimon's thread pools do not survive a fork
        return cf.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")), True
    raise ValueError("executor must be 'thread', 'process' or a concurrent.futures.Executor")


def compact(warehouse: str, table: str, partitions=None, full: bool = False, max_workers: Optional[int] = None,
            options: Optional[Dict[str, str]] = None, *, executor: Union[str, cf.Executor] = "thread",
            commit_user: Optional[str] = None, max_retries: int = 2, commit_batch_size: int = 1000,
            progress: Optional[bool] = None) -> CompactMetrics:
    """Compact the table ``table`` ("db.t") of ``warehouse``.

    Args:
        partitions: only these partitions (a dict, a list of dicts, or "k=v" texts).
        full: an explicit full compaction.
        max_workers: tasks executed at once (default: the CPU count).
        options: table options for this compaction only.
        executor: "thread", "process" or an Executor (left open).
        commit_user: stable across re-runs (default: a random one).
        max_retries: times a failed task is sent again.
        commit_batch_size: results per commit (larger plans commit in subsets).
        progress: draw a progress bar (default: when stderr is a TTY).

    Returns the metrics (counters summed over the commits, the last
    snapshot published, the plan's task count and the job's wall time);
    raises CompactionJobError when the job fails (nothing but the subsets
    committed before stays published).
    """
    t, cb, plan = plan_table(warehouse, table, partitions, full, options, commit_user)
    if len(plan) == 0:
        return CompactMetrics()
    workers = max_workers or os.cpu_count() or 1
    ex, owned = _executor(executor, workers)
    try:
        return run_job(t, cb, plan, _FuturesPool(ex), workers, max_retries=max_retries,
                       commit_batch_size=commit_batch_size, progress=progress, label=table)
    finally:
        if owned:
            ex.shutdown(wait=True)


def compact_database(warehouse: str, database: str, **kwargs) -> Dict[str, CompactMetrics]:
    """Compact every table of ``database`` one after another (each with
    :func:`compact` and the same keyword arguments); stops at the first
    table that fails.  Returns {table name: metrics}."""
    return {name: compact(warehouse, "%s.%s" % (database, name), **kwargs)
            for name in list_tables(warehouse, database)}
