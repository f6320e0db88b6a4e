"""Reading a table: ReadBuilder → TableScan → Plan of Splits → TableRead.

    rb = table.new_read_builder().with_projection(["id", "name"])
    splits = rb.new_scan().plan().splits()
    arrow_table = rb.new_read().to_arrow(splits)

Rows come out of libpaimon as Arrow arrays whose buffers are the reader's
own (merged on read for primary-key tables, deletion vectors applied) and
reach pyarrow through the Arrow C stream interface without being copied.
"""

from typing import List, Optional, Sequence

import pyarrow as pa

from . import _native
from ._arrow import CapsuleStream, reader_of
from .errors import UnsupportedError
from .table import partition_filter

__all__ = ["ReadBuilder", "TableScan", "Plan", "Split", "TableRead", "Predicate", "PredicateBuilder"]


class ReadBuilder:
    """What to read.  Offers what libpaimon's reader offers: a projection,
    partition filters, a row filter, a row limit, a snapshot (time travel)
    or an incremental range."""

    def __init__(self, table):
        self._table = table
        self._columns: Optional[List[str]] = None
        self._partitions: List[str] = []
        self._limit = -1
        self._snapshot_id = 0
        self._batch_rows = 0
        self._threads = 0
        self._incremental = (0, 0, 0)
        self._filter: Optional[str] = None

    def with_projection(self, projection: Sequence[str]) -> "ReadBuilder":
        """Only these columns, in this order (names)."""
        if isinstance(projection, str) or not all(isinstance(c, str) for c in projection):
            raise TypeError("with_projection takes a list of column names")
        self._columns = list(projection)
        return self

    def with_partition_filter(self, partitions) -> "ReadBuilder":
        """Only these partitions: a dict ``{"dt": "2024-01-01"}``, a list of
        dicts (any of them), or ``"k=v[,k2=v2]"`` texts."""
        self._partitions = partition_filter(partitions)
        return self

    def with_filter(self, predicate) -> "ReadBuilder":
        """Only the rows a predicate holds for: a :class:`Predicate` of
        :meth:`new_predicate_builder` (comparisons, ``between``, ``is_in``,
        ``and_predicates``, as in pypaimon) or the same as a ``where`` text,
        ``"dt = '2024-01-01' AND id IN (1, 2)"`` (libpaimon's
        pm_read_options.filter: ``= <> < <= > >=`` and ``IN`` over atomic
        columns joined by AND; literals read as the column's type).  Primary-key tables
        are filtered after the merge; append data files whose file index
        proves no row matches are not read.  ``None`` removes the filter.
        Errors in the text or its columns are raised by the read."""
        if predicate is None or isinstance(predicate, str):
            self._filter = predicate
        elif isinstance(predicate, Predicate):
            self._filter = predicate.to_where()
        else:
            raise TypeError("with_filter takes a Predicate (new_predicate_builder) or a where text")
        return self

    def new_predicate_builder(self) -> "PredicateBuilder":
        """Predicates over the table's columns, for :meth:`with_filter`."""
        return PredicateBuilder(self._table.pyarrow_schema().names)

    def with_limit(self, limit: int) -> "ReadBuilder":
        """At most ``limit`` rows."""
        if limit is None or limit < 0:
            raise ValueError("limit must be >= 0")
        self._limit = int(limit)
        return self

    def with_snapshot(self, snapshot_id: int) -> "ReadBuilder":
        """Read snapshot ``snapshot_id`` (in that snapshot's schema)."""
        self._snapshot_id = int(snapshot_id)
        return self

    _MODES = {"auto": 0, "delta": 1, "changelog": 2}

    def with_incremental_between(self, start: int, end: int, mode: str = "auto") -> "ReadBuilder":
        """Read the changes of snapshots ``start`` (exclusive) .. ``end``
        (Java's ``incremental-between``): ``delta`` = the files APPEND
        snapshots added, ``changelog`` = the changelog files (producers
        input, lookup, full-compaction), ``auto`` = changelog when the table
        has a changelog producer.  Records are not merged; a ``_ROW_KIND``
        string column (``+I``, ``-U``, ``+U``, ``-D``) says what each is."""
        if mode not in self._MODES:
            raise ValueError("mode must be 'auto', 'delta' or 'changelog'")
        start, end = int(start), int(end)
        if start < 0 or end < start:
            raise ValueError("need 0 <= start <= end")
        self._incremental = (start, end, self._MODES[mode])
        return self

    def with_batch_rows(self, rows: int) -> "ReadBuilder":
        """Rows per Arrow batch (default 4096)."""
        self._batch_rows = int(rows)
        return self

    def with_threads(self, threads: int) -> "ReadBuilder":
        """Decoding threads of a read (default: the caller's thread only)."""
        self._threads = int(threads)
        return self

    def new_scan(self) -> "TableScan":
        return TableScan(self)

    def new_read(self) -> "TableRead":
        return TableRead(self)


def _literal(value) -> str:
    """A Python value as a literal of libpaimon's filter text."""
    if value is None:
        return "NULL"  # refused by the read, naming the column
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (bytes, bytearray)):
        raise UnsupportedError("filter literals of binary columns are not supported by libpaimon's filter")
    return "'%s'" % str(value).replace("'", "''")  # str, dates, times, decimals: read as the column's type


def _name(column: str) -> str:
    if not isinstance(column, str) or not column:
        raise TypeError("a predicate's field must be a column name")
    return '"%s"' % column.replace('"', '""')


class Predicate:
    """A row predicate of :class:`PredicateBuilder` (its ``where`` text is
    :meth:`to_where`)."""

    __slots__ = ("_where",)

    def __init__(self, where: str):
        self._where = where

    def to_where(self) -> str:
        return self._where

    def __repr__(self) -> str:
        return "Predicate(%s)" % self._where


class PredicateBuilder:
    """pypaimon's PredicateBuilder for what libpaimon's filter offers:
    ``equal``, ``not_equal``, ``less_than``, ``less_or_equal``,
    ``greater_than``, ``greater_or_equal``, ``between``, ``is_in`` and
    ``and_predicates``.  The others (null tests, string matches,
    ``is_not_in``, ``not_between``, ``or_predicates``) raise
    UnsupportedError naming themselves (never a filter that silently keeps
    every row)."""

    def __init__(self, columns=None):
        self._columns = list(columns) if columns is not None else None

    def _field(self, field: str) -> str:
        if self._columns is not None and field not in self._columns:
            raise ValueError("field %r is not a column of the table (%s)" % (field, ", ".join(self._columns)))
        return _name(field)

    def equal(self, field: str, literal) -> Predicate:
        return Predicate("%s = %s" % (self._field(field), _literal(literal)))

    def _cmp(self, op: str, field: str, literal) -> Predicate:
        return Predicate("%s %s %s" % (self._field(field), op, _literal(literal)))

    def not_equal(self, field: str, literal) -> Predicate:
        return self._cmp("<>", field, literal)

    def less_than(self, field: str, literal) -> Predicate:
        return self._cmp("<", field, literal)

    def less_or_equal(self, field: str, literal) -> Predicate:
        return self._cmp("<=", field, literal)

    def greater_than(self, field: str, literal) -> Predicate:
        return self._cmp(">", field, literal)

    def greater_or_equal(self, field: str, literal) -> Predicate:
        return self._cmp(">=", field, literal)

    def between(self, field: str, included_lower_bound, included_upper_bound) -> Predicate:
        return self.and_predicates([self.greater_or_equal(field, included_lower_bound),
                                    self.less_or_equal(field, included_upper_bound)])

    def is_in(self, field: str, literals) -> Predicate:
        values = list(literals)
        if not values:
            raise ValueError("is_in needs at least one literal")
        return Predicate("%s IN (%s)" % (self._field(field), ", ".join(_literal(v) for v in values)))

    @staticmethod
    def and_predicates(predicates) -> Optional[Predicate]:
        ps = [p for p in predicates if p is not None]
        if not all(isinstance(p, Predicate) for p in ps):
            raise TypeError("and_predicates takes Predicates")
        if not ps:
            return None
        return ps[0] if len(ps) == 1 else Predicate(" AND ".join("(%s)" % p.to_where() for p in ps))

    def _unsupported(name):
        def refuse(self, *args, **kwargs):
            raise UnsupportedError("PredicateBuilder.%s is not supported: libpaimon's read filter has comparisons "
                                   "and IN joined by AND (filter the Arrow result instead)" % name)
        refuse.__name__ = name
        refuse.__doc__ = "Not supported by libpaimon's read filter: raises UnsupportedError."
        return refuse

    for _n in ("is_null", "is_not_null", "startswith", "endswith", "contains", "is_not_in", "not_between",
               "like", "or_predicates"):
        locals()[_n] = _unsupported(_n)
    del _n, _unsupported


class Split:
    """One (partition, bucket) of a scan: a self-contained unit of reading.
    ``to_json`` / ``Split.from_json`` (and pickle) carry it to another
    process, which reads it with a table opened there."""

    __slots__ = ("_h", "partition", "bucket", "branch", "snapshot_id", "file_count", "row_count", "file_size")

    def __init__(self, handle):
        self._h = handle
        (self.partition, self.bucket, self.branch, self.snapshot_id, self.file_count, self.row_count,
         self.file_size) = _native.split_info(handle)

    def to_json(self) -> str:
        return _native.split_to_json(self._h)

    @classmethod
    def from_json(cls, text: str) -> "Split":
        return cls(_native.split_from_json(text))

    def __reduce__(self):
        return (Split.from_json, (self.to_json(),))

    def __repr__(self) -> str:
        return "Split(partition=%r, bucket=%d, files=%d, rows=%d)" % (
            self.partition, self.bucket, self.file_count, self.row_count)


class Plan:
    """The splits of one snapshot."""

    def __init__(self, handle):
        self._h = handle
        self.snapshot_id, self.schema_id, _ = _native.scan_info(handle)
        self._splits = [Split(s) for s in _native.scan_splits(handle)]

    def splits(self) -> List[Split]:
        return list(self._splits)


class TableScan:
    def __init__(self, builder: ReadBuilder):
        self._b = builder

    def plan(self) -> Plan:
        """Pick the snapshot, prune partitions, split the live files (reads
        only metadata)."""
        b = self._b
        if b._incremental[1] or b._incremental[0]:
            return Plan(_native.scan_new(b._table._h, b._snapshot_id, b._partitions, *b._incremental))
        return Plan(_native.scan_new(b._table._h, b._snapshot_id, b._partitions))


class TableRead:
    """Reads splits into Arrow data (columns, limit and batch size of the
    builder)."""

    def __init__(self, builder: ReadBuilder):
        self._b = builder

    def _capsule(self, splits: Sequence[Split]):
        b = self._b
        if isinstance(splits, Split):
            splits = [splits]
        return _native.reader_stream(b._table._h, [s._h for s in splits], b._columns, b._limit,
                                     b._batch_rows, b._threads, b._filter)

    def to_arrow_stream(self, splits: Sequence[Split]) -> CapsuleStream:
        """The rows as an object with ``__arrow_c_stream__`` (one use), for
        any Arrow consumer: ``polars.from_arrow``, ``duckdb``, ``pa.table``."""
        return CapsuleStream(self._capsule(splits))

    def to_arrow_batch_reader(self, splits: Sequence[Split]) -> pa.RecordBatchReader:
        """The rows as a pyarrow RecordBatchReader, batch by batch."""
        return reader_of(self._capsule(splits))

    def to_arrow(self, splits: Sequence[Split]) -> pa.Table:
        """Every row of the splits as a pyarrow Table (the batches' buffers
        are libpaimon's, not copies)."""
        return self.to_arrow_batch_reader(splits).read_all()

    def to_pandas(self, splits: Sequence[Split]):
        return self.to_arrow(splits).to_pandas()

    def to_iterator(self, splits: Sequence[Split]):
        """Rows as dicts, one at a time."""
        for batch in self.to_arrow_batch_reader(splits):
            yield from batch.to_pylist()
