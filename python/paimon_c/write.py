"""Writing a table: BatchWriteBuilder → BatchTableWrite → CommitMessage →
BatchTableCommit.

    wb = table.new_batch_write_builder()          # .overwrite({"dt": "2024-01-01"})
    w = wb.new_write()
    w.write_arrow(pa_table)                        # also polars / duckdb / pandas data
    wb.new_commit().commit(w.prepare_commit())

Rows are written into private data files; nothing is visible until the
commit publishes one snapshot (then, unless the table is ``write-only``,
one automatic compaction round of the buckets the commit touched).
Primary-key tables take a ``_ROW_KIND`` column (``+I``, ``-U``, ``+U``,
``-D``) or the table's ``rowkind.field``.
"""

import threading
import uuid
import warnings
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

import pyarrow as pa

from . import _native
from ._arrow import as_arrow, schema_of
from .compact import CompactMetrics
from .errors import PaimonError
from .table import partition_filter

__all__ = ["BatchWriteBuilder", "BatchTableWrite", "BatchTableCommit", "CommitMessage", "CommitOutcome",
           "BATCH_COMMIT_IDENTIFIER"]

#: The commit identifier of a one-off batch write (Java's BATCH_COMMIT_IDENTIFIER).
BATCH_COMMIT_IDENTIFIER = 2 ** 63 - 1


class BatchWriteBuilder:
    """Writers and the commit of one batch write; both share one commit
    user (a random UUID unless given), which makes a retried commit of the
    same messages a no-op."""

    def __init__(self, table):
        self._table = table
        self._commit_user = str(uuid.uuid4())
        self._overwrite = False
        self._partitions: List[str] = []
        self._identifier = BATCH_COMMIT_IDENTIFIER
        self._threads = 0

    def overwrite(self, static_partition: Optional[Dict] = None) -> "BatchWriteBuilder":
        """Replace the whole table, or only the partition ``static_partition``
        (a dict), instead of appending."""
        self._overwrite = True
        self._partitions = partition_filter(static_partition) if static_partition else []
        return self

    def with_commit_user(self, commit_user: str) -> "BatchWriteBuilder":
        self._commit_user = str(commit_user)
        return self

    def with_commit_identifier(self, identifier: int) -> "BatchWriteBuilder":
        """With a stable commit user, a re-run with the same identifier
        commits nothing again (see ``CommitOutcome.already_committed``)."""
        self._identifier = int(identifier)
        return self

    def with_threads(self, threads: int) -> "BatchWriteBuilder":
        """Encoding threads of each writer (default: the caller's thread only)."""
        self._threads = int(threads)
        return self

    @property
    def commit_user(self) -> str:
        return self._commit_user

    def new_write(self) -> "BatchTableWrite":
        return BatchTableWrite(self)

    def new_commit(self) -> "BatchTableCommit":
        return BatchTableCommit(self)


class CommitMessage:
    """The data files one ``prepare_commit`` handed out (not yet visible)."""

    def __init__(self, handle):
        self._h = handle
        self._moved = False

    @property
    def message_count(self) -> int:
        return _native.messages_info(self._h)[0] if not self._moved else 0

    @property
    def file_count(self) -> int:
        return _native.messages_info(self._h)[1] if not self._moved else 0

    @property
    def row_count(self) -> int:
        return _native.messages_info(self._h)[2] if not self._moved else 0

    def is_empty(self) -> bool:
        return self.file_count == 0

    def to_json(self) -> str:
        """The messages as JSON, so files written in several processes are
        committed in one (``CommitMessage.from_json``; pickle too)."""
        if self._moved:
            raise ValueError("these commit messages were merged into others")
        return _native.messages_to_json(self._h)

    @classmethod
    def from_json(cls, text: str) -> "CommitMessage":
        """Messages of ``to_json``; the commit checks they are of its table
        and that their files exist with their sizes."""
        return cls(_native.messages_from_json(text))

    def __reduce__(self):
        return (CommitMessage.from_json, (self.to_json(),))

    def __repr__(self) -> str:
        if self._moved:
            return "CommitMessage(merged into another)"
        n, files, rows = _native.messages_info(self._h)
        return "CommitMessage(files=%d, rows=%d)" % (files, rows)


class BatchTableWrite:
    """Writes rows into private files.  One writer must not be used by two
    threads at once (a lock makes such use wait); use one writer per thread
    and commit their messages together."""

    def __init__(self, builder: BatchWriteBuilder):
        self._b = builder
        self._lock = threading.Lock()
        self._h = _native.writer_new(builder._table._h, builder._commit_user, builder._identifier,
                                     builder._overwrite, builder._partitions, builder._threads)

    def input_schema(self) -> pa.Schema:
        """The columns the writer accepts (the table's, plus ``_ROW_KIND``
        for primary-key tables)."""
        with self._lock:
            return schema_of(_native.writer_info(self._h)[0])

    @property
    def row_count(self) -> int:
        """Rows written since the last prepare_commit."""
        with self._lock:
            return _native.writer_info(self._h)[2]

    def write_arrow(self, data) -> None:
        """Write Arrow data: a pyarrow Table, RecordBatch or RecordBatchReader,
        or any object with ``__arrow_c_stream__`` / ``__arrow_c_array__``
        (polars and duckdb results).  Columns are matched by name; missing
        nullable columns are null."""
        obj = as_arrow(data)
        with self._lock:
            if isinstance(obj, pa.RecordBatch):
                scap, acap = obj.__arrow_c_array__()
                _native.writer_write_array(self._h, scap, acap)
            else:
                _native.writer_write_stream(self._h, obj.__arrow_c_stream__())

    def write_arrow_batch(self, data: pa.RecordBatch) -> None:
        """Write one record batch (any ``__arrow_c_array__`` object)."""
        self.write_arrow(data)

    def write_pandas(self, dataframe) -> None:
        self.write_arrow(pa.Table.from_pandas(dataframe, preserve_index=False))

    def prepare_commit(self) -> List[CommitMessage]:
        """Close the open files and hand them out as commit messages (the
        writer may go on writing)."""
        with self._lock:
            return [CommitMessage(_native.writer_prepare(self._h))]

    def abort(self) -> None:
        """Delete every file written and not handed out, and close."""
        self.close()

    def close(self) -> None:
        """Close the writer; files written and not handed out by
        prepare_commit are deleted."""
        with self._lock:
            _native.writer_close(self._h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@dataclass(frozen=True)
class CommitOutcome:
    """What a commit did.  ``compaction_error`` is set (and warned about)
    when the automatic compaction round after the commit failed: the data
    commit stands."""

    snapshot_id: int
    already_committed: bool
    rows: int
    files: int
    stall: CompactMetrics
    compaction: CompactMetrics
    compaction_error: Optional[PaimonError]


class BatchTableCommit:
    """Publishes commit messages as one snapshot (APPEND, or OVERWRITE for
    an overwrite builder)."""

    def __init__(self, builder: BatchWriteBuilder):
        self._b = builder
        self._lock = threading.Lock()

    def _merged(self, messages: Sequence[CommitMessage]):
        live = [m for m in messages if not m._moved]
        if not live:
            return None
        first = live[0]
        for m in live[1:]:
            _native.messages_merge(first._h, m._h)
            m._moved = True
        return first._h

    def commit(self, commit_messages: Sequence[CommitMessage]) -> CommitOutcome:
        """Commit the messages (of any number of writers of this table) in
        one snapshot.  On an error nothing is committed and the messages'
        files are deleted, except for UncertainError: then the outcome is
        unknown, the files are kept, and calling commit again with the same
        messages is safe."""
        if isinstance(commit_messages, CommitMessage):
            commit_messages = [commit_messages]
        b = self._b
        with self._lock:
            h = self._merged(list(commit_messages or []))
            sid, already, rows, files, stall, rnd, cerr = _native.commit(
                b._table._h, h, b._commit_user, b._identifier, b._overwrite, b._partitions, b._threads)
        if cerr is not None:
            warnings.warn("paimon_c: the data commit (snapshot %d) stands, but its automatic compaction "
                          "round failed: %s" % (sid, cerr), RuntimeWarning, stacklevel=2)
        return CommitOutcome(sid, already, rows, files, CompactMetrics(*stall), CompactMetrics(*rnd), cerr)

    def abort(self, commit_messages: Sequence[CommitMessage]) -> None:
        """Delete the data files of messages that will never be committed."""
        for m in commit_messages or []:
            if not m._moved:
                _native.messages_abort(self._b._table._h, m._h)

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
