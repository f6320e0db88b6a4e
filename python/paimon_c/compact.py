"""Compaction as plan → execute → commit.

    cb = table.new_compact_builder()       # .with_partition_filter({...}) .with_full(True) .with_options({...})
    plan = cb.new_planner().plan()         # captures one snapshot, picks the files (writes nothing)
    results = [cb.new_executor().execute(t) for t in plan.tasks()]   # private new files
    metrics = cb.new_commit().commit_compact(results)                # ONE COMPACT snapshot
    # or cb.new_commit().abort_compact(results): delete the results' files

Plans, tasks and results are values that serialize (``to_json`` /
``from_json``, and pickle), so tasks run in other processes or machines:
a worker opens the table by path and executes the task, whose JSON fixes
the input snapshot, schema and output settings.  Any subset of the
results of one plan can be committed; retrying the same subset with the
same commit user is idempotent.  ``paimon_c.parallel`` and
``paimon_c.ray`` drive this over a process pool or a Ray cluster.
"""

import threading
from dataclasses import dataclass, fields
from typing import Dict, List, Optional, Sequence

from . import _native
from .table import partition_filter

__all__ = ["CompactBuilder", "CompactPlanner", "CompactPlan", "CompactTask", "CompactResult",
           "CompactExecutor", "CompactCommit", "CompactMetrics"]


@dataclass(frozen=True)
class CompactMetrics:
    """What a compaction commit (or run) did: the fields of libpaimon's
    pm_compact_metrics.  ``snapshot_id`` 0 = nothing was published.  The
    data counts never include changelog files; ``changelog_*`` count the
    changelog files written (changelog-producer lookup or full-compaction)."""

    snapshot_id: int = 0
    tasks: int = 0
    files_removed: int = 0
    files_added: int = 0
    rows_read: int = 0
    rows_written: int = 0
    bytes_read: int = 0
    bytes_written: int = 0
    duration_ms: int = 0
    changelog_files_added: int = 0
    changelog_rows_written: int = 0
    changelog_bytes_written: int = 0

    def to_dict(self) -> Dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def combine(self, other: "CompactMetrics") -> "CompactMetrics":
        """The metrics of two commits of one job: counters added, the later
        snapshot id (when it published one)."""
        d = {f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)}
        d["snapshot_id"] = other.snapshot_id or self.snapshot_id
        return CompactMetrics(**d)


class CompactTask:
    """One task of a plan: input files of one bucket (or a packed group of
    an unaware-bucket table) and the output settings."""

    __slots__ = ("_h",)

    def __init__(self, handle):
        self._h = handle

    def to_json(self) -> str:
        return _native.task_to_json(self._h)

    @staticmethod
    def from_json(text: str) -> "CompactTask":
        return CompactTask(_native.task_from_json(text))

    def __reduce__(self):
        return (CompactTask.from_json, (self.to_json(),))


class CompactResult:
    """What executing a task produced: files before and after, private
    until committed."""

    __slots__ = ("_h",)

    def __init__(self, handle):
        self._h = handle

    def to_json(self) -> str:
        return _native.result_to_json(self._h)

    @staticmethod
    def from_json(text: str) -> "CompactResult":
        return CompactResult(_native.result_from_json(text))

    def __reduce__(self):
        return (CompactResult.from_json, (self.to_json(),))


class CompactPlan:
    """A plan: the snapshot it captured and its tasks."""

    __slots__ = ("_h", "snapshot_id", "plan_id", "commit_user", "_tasks")

    def __init__(self, handle):
        self._h = handle
        self.snapshot_id, self.plan_id, self.commit_user, _ = _native.plan_info(handle)
        self._tasks = [CompactTask(t) for t in _native.plan_tasks(handle)]

    def tasks(self) -> List[CompactTask]:
        return list(self._tasks)

    def __len__(self) -> int:
        return len(self._tasks)

    def __repr__(self) -> str:
        return "CompactPlan(snapshot=%d, tasks=%d, id=%r)" % (self.snapshot_id, len(self._tasks), self.plan_id)

    def to_json(self) -> str:
        return _native.plan_to_json(self._h)

    @staticmethod
    def from_json(text: str) -> "CompactPlan":
        return CompactPlan(_native.plan_from_json(text))

    def __reduce__(self):
        return (CompactPlan.from_json, (self.to_json(),))


class CompactBuilder:
    """What to compact and how.  The ``with_*`` settings apply to the
    planner, executor and commit made afterwards."""

    def __init__(self, table):
        self._table = table
        self._partitions: List[str] = []
        self._full = False
        self._options: Dict[str, str] = {}
        self._commit_user: Optional[str] = None
        self._native = None
        self._lock = threading.Lock()

    def with_partition_filter(self, partitions) -> "CompactBuilder":
        """Only these partitions: a dict, a list of dicts (any of them) or
        ``"k=v[,k2=v2]"`` texts."""
        self._partitions = partition_filter(partitions)
        self._native = None
        return self

    def with_full(self, full: bool = True) -> "CompactBuilder":
        """An explicit full compaction."""
        self._full = bool(full)
        self._native = None
        return self

    def with_options(self, options: Dict[str, str]) -> "CompactBuilder":
        """Table options for this compaction only (planning thresholds and
        output settings, e.g. ``{"compaction.min.file-num": "2"}``), like
        Java's compact procedure options."""
        from .catalog import _option_text
        self._options = {str(k): _option_text(v) for k, v in (options or {}).items()}
        self._native = None
        return self

    def with_commit_user(self, commit_user: str) -> "CompactBuilder":
        """A commit user stable across retries (default: a random one per plan)."""
        self._commit_user = str(commit_user)
        self._native = None
        return self

    @property
    def table(self):
        return self._table

    def _builder(self):
        if self._native is None:
            self._native = _native.compact_builder_new(
                self._table._h, self._commit_user, self._partitions, self._full,
                ["%s=%s" % kv for kv in self._options.items()])
        return self._native

    def new_planner(self) -> "CompactPlanner":
        return CompactPlanner(self)

    def new_executor(self) -> "CompactExecutor":
        return CompactExecutor(self._table)

    def new_commit(self) -> "CompactCommit":
        return CompactCommit(self._table, self._commit_user)

    def run(self) -> CompactMetrics:
        """Plan, execute every task (buckets in parallel on libpaimon's own
        threads) and commit, in one call."""
        with self._lock:
            b = self._builder()
        return CompactMetrics(*_native.compact_run(b))


class CompactPlanner:
    def __init__(self, builder: CompactBuilder):
        self._b = builder

    def plan(self) -> CompactPlan:
        """Plan against the latest snapshot (nothing is written)."""
        with self._b._lock:
            b = self._b._builder()
            return CompactPlan(_native.compact_plan_new(b))


class CompactExecutor:
    """Executes tasks of the table's plans; safe to use from several
    threads at once (the GIL is released while a task runs)."""

    def __init__(self, table):
        self._table = table

    def execute(self, task: CompactTask) -> CompactResult:
        """Rewrite the task's files into private new files (publishes nothing)."""
        return CompactResult(_native.compact_execute(self._table._h, task._h))


class CompactCommit:
    def __init__(self, table, commit_user: Optional[str] = None):
        self._table = table
        self._commit_user = commit_user

    def commit_compact(self, results: Sequence[CompactResult]) -> CompactMetrics:
        """Publish results of ONE plan as one COMPACT snapshot.  Raises
        ConflictError ("replan") when an input changed since planning, and
        UncertainError when the outcome is unknown (keep the results and
        call again: it is idempotent)."""
        return CompactMetrics(*_native.compact_commit(self._table._h, self._commit_user,
                                                      [r._h for r in results]))

    def abort_compact(self, results: Sequence[CompactResult]) -> None:
        """Delete the prepared files of results that will never be committed."""
        _native.compact_abort(self._table._h, [r._h for r in results])
