"""The driver of a distributed compaction, shared by paimon_c.parallel
(concurrent.futures) and paimon_c.ray (a Ray cluster).

Steps:
  1. plan on the driver (one snapshot captured; a stable commit user);
  2. send each task as JSON to a worker, which opens the table by path,
     executes the task and answers with the result's JSON
     (:func:`execute_task_json`); at most ``workers`` tasks run at once
     (a futures pool also queues one more per worker);
  3. a task that fails is sent again, up to ``max_retries`` times, unless
     its error cannot change on a retry (invalid, corrupt, unsupported,
     conflicting input);
  4. results are committed as they arrive, ``commit_batch_size`` at a
     time (very large plans commit in subsets; every subset of one plan
     commits under the plan's commit user, so a retried commit is a
     no-op), the rest at the end; a commit whose outcome is unknown is
     retried;
  5. when a task finally fails, nothing more is sent, the tasks in flight
     are waited for, and every result not committed is aborted (its files
     deleted) before the error is raised: subsets committed before stay
     published, nothing is published twice.
A worker killed while it executes leaves no result; the task is retried.
The files such an attempt had begun to write are not referenced by any
snapshot, but libpaimon's API gives the driver no way to name them.
"""

import collections
import sys
import time
from typing import List, Optional

from .catalog import CatalogFactory
from .compact import CompactMetrics, CompactPlan, CompactResult
from .errors import (ConflictError, CorruptError, InvalidError, PaimonError, UncertainError,
                     UnsupportedError)
from .table import open_table

__all__ = ["execute_task_json", "read_split_json", "CompactionJobError", "run_job", "plan_table"]

#: Errors a retry cannot fix.
_FINAL = (InvalidError, CorruptError, UnsupportedError, ConflictError)


class CompactionJobError(PaimonError):
    """A distributed compaction failed.  ``committed`` are the metrics of
    the subsets published before the failure (nothing else was published;
    every other result was aborted); ``task_index`` is the task whose
    failure ended the job (None when the commit failed); the error that
    ended it is ``__cause__``."""

    def __init__(self, message, code=None, causes=(), committed=None, task_index=None):
        super().__init__(message, code, causes)
        self.committed = committed if committed is not None else CompactMetrics()
        self.task_index = task_index

    def __reduce__(self):
        return (type(self), (self.message, self.code, self.causes, self.committed, self.task_index))


def execute_task_json(table_path: str, task_json: str, branch: Optional[str] = None) -> str:
    """The worker: open the table by path, execute one task, answer with the
    result's JSON.  When the result cannot be answered, its files are
    deleted."""
    from .compact import CompactTask
    table = open_table(table_path, branch)
    task = CompactTask.from_json(task_json)
    result = table.new_compact_builder().new_executor().execute(task)
    try:
        return result.to_json()
    except BaseException:
        table.new_compact_builder().new_commit().abort_compact([result])
        raise


def read_split_json(table_path: str, split_json: str, projection=None, where: Optional[str] = None,
                    branch: Optional[str] = None):
    """The worker of a distributed read: open the table by path, read one
    split from its JSON (projection, filter) into a pyarrow Table."""
    from .read import Split
    rb = open_table(table_path, branch).new_read_builder()
    if projection:
        rb.with_projection(projection)
    if where:
        rb.with_filter(where)
    return rb.new_read().to_arrow([Split.from_json(split_json)])


def plan_table(warehouse: str, identifier: str, partitions, full: bool, options, commit_user):
    """The table and its compaction plan (nothing written)."""
    table = CatalogFactory.create({"warehouse": str(warehouse)}).get_table(identifier)
    cb = table.new_compact_builder().with_full(full)
    if partitions:
        cb.with_partition_filter(partitions)
    if options:
        cb.with_options(options)
    if commit_user:
        cb.with_commit_user(commit_user)
    return table, cb, cb.new_planner().plan()


class _Progress:
    """A progress bar on stderr, drawn only when stderr is a TTY (or when forced)."""

    def __init__(self, label: str, total: int, enabled: Optional[bool]):
        self.label, self.total, self.done = label, total, 0
        self.enabled = enabled if enabled is not None else sys.stderr.isatty()
        self.start = time.monotonic()

    def update(self, n: int = 1):
        self.done += n
        if not self.enabled:
            return
        width = 30
        filled = int(width * self.done / max(self.total, 1))
        sys.stderr.write("\r%s [%s%s] %d/%d tasks %.1fs" % (
            self.label, "#" * filled, "." * (width - filled), self.done, self.total,
            time.monotonic() - self.start))
        sys.stderr.flush()

    def close(self):
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _unwrap(exc: BaseException) -> BaseException:
    """The worker's own exception inside an executor's wrapper (Ray's RayTaskError.cause)."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, BaseException) else exc


def _retryable(exc: BaseException) -> bool:
    return not isinstance(_unwrap(exc), _FINAL)


class Pool:
    """What the driver needs of an executor: submit a task, wait for some."""

    #: Tasks in flight per worker: 2 for a pool that queues what its
    #: workers cannot run yet (futures: the next task is ready when a
    #: worker frees up), 1 where everything submitted may run at once (Ray).
    in_flight_per_worker = 2

    def submit(self, table_path: str, task_json: str, branch: str):
        raise NotImplementedError

    def wait(self, handles: List) -> List:
        """Some finished handles (at least one)."""
        raise NotImplementedError

    def result(self, handle) -> str:
        """The result JSON of a finished handle, or raise the task's error."""
        raise NotImplementedError


def run_job(table, cb, plan: CompactPlan, pool: Pool, workers: int, *, max_retries: int = 2,
            commit_batch_size: int = 1000, commit_retries: int = 3, progress: Optional[bool] = None,
            label: Optional[str] = None) -> CompactMetrics:
    """Run the plan's tasks on the pool and commit them (steps above)."""
    if max_retries < 0 or commit_batch_size < 1 or workers < 1:
        raise InvalidError("max_retries >= 0, commit_batch_size >= 1 and workers >= 1 are required")
    tasks = [t.to_json() for t in plan.tasks()]
    if not tasks:
        return CompactMetrics()
    commit = cb.new_commit()
    started = time.monotonic()
    bar = _Progress(label or table.identifier or table.path, len(tasks), progress)
    queue = collections.deque(range(len(tasks)))
    attempts = [0] * len(tasks)
    in_flight = {}
    uncommitted: List[CompactResult] = []
    committed = CompactMetrics()
    failure = None
    failed_task = None

    def commit_now():
        nonlocal committed
        batch = list(uncommitted)
        for attempt in range(commit_retries + 1):
            try:
                m = commit.commit_compact(batch)
                break
            except UncertainError:
                if attempt == commit_retries:
                    uncommitted.clear()  # outcome unknown: keep the files, never abort them
                    raise
                time.sleep(0.2 * (attempt + 1))
        uncommitted.clear()
        committed = committed.combine(m)

    def drain():
        """Wait for the tasks in flight; keep their results (to abort them)."""
        while in_flight:
            for h in pool.wait(list(in_flight)):
                in_flight.pop(h)
                try:
                    uncommitted.append(CompactResult.from_json(pool.result(h)))
                except Exception:  # noqa: BLE001 - the job already failed
                    pass

    try:
        while (queue or in_flight) and failure is None:
            while queue and len(in_flight) < pool.in_flight_per_worker * workers:
                i = queue.popleft()
                in_flight[pool.submit(table.path, tasks[i], table.branch)] = i
            for h in pool.wait(list(in_flight)):
                i = in_flight.pop(h)
                try:
                    text = pool.result(h)
                except Exception as exc:  # noqa: BLE001 - any task failure is handled alike
                    if failure is None and _retryable(exc) and attempts[i] < max_retries:
                        attempts[i] += 1
                        queue.appendleft(i)
                    elif failure is None:
                        failure, failed_task = _unwrap(exc), i
                    continue
                uncommitted.append(CompactResult.from_json(text))
                bar.update()
            if failure is None and len(uncommitted) >= commit_batch_size:
                commit_now()
        if failure is not None:
            raise failure
        if uncommitted:
            commit_now()
    except Exception as exc:
        queue.clear()  # send nothing more; what is in flight still lands: abort it too
        drain()
        if uncommitted:
            try:
                commit.abort_compact(uncommitted)
            except PaimonError as abort_error:
                if hasattr(exc, "add_note"):
                    exc.add_note("aborting the results not committed failed: %s" % abort_error)
            uncommitted.clear()
        code = exc.code if isinstance(exc, PaimonError) else 10
        causes = exc.causes if isinstance(exc, PaimonError) else [("EINTERNAL", str(exc))]
        what = ("task %d failed" % failed_task) if failed_task is not None else "commit failed"
        raise CompactionJobError("compaction of %s: %s: %s" % (table.path, what, exc), code, causes,
                                 committed, failed_task) from exc
    finally:
        bar.close()
    # Counters summed over the commits, the last snapshot published, the
    # plan's task count and the job's wall time.
    return CompactMetrics(**dict(committed.to_dict(), tasks=len(tasks),
                                 duration_ms=int((time.monotonic() - started) * 1000)))


def list_tables(warehouse: str, database: str) -> List[str]:
    return CatalogFactory.create({"warehouse": str(warehouse)}).list_tables(database)

