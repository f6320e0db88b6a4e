"""A Paimon table: its schema and snapshots, and the builders that read,
write and compact it.

A Table holds one open libpaimon table handle; it may be shared by
threads that read, write (each with its own writer) and compact through
it.  Its schema is the latest when it was opened.
"""

import json
from typing import Dict, List, Optional

import pyarrow as pa

from . import _native
from .catalog import TableSchema, _schema_from_native

__all__ = ["Table", "open_table", "partition_filter"]


def partition_filter(spec) -> List[str]:
    """Partition specs as libpaimon's filter texts: a dict ``{"dt": "2024-01-01"}``
    → ``["dt=2024-01-01"]``; a list of dicts (any of them) → one text each;
    texts ``"k=v[,k2=v2]"`` pass as they are."""
    if spec is None:
        return []
    if isinstance(spec, (dict, str)):
        spec = [spec]
    out = []
    for s in spec:
        if isinstance(s, str):
            out.append(s)
        elif isinstance(s, dict):
            out.append(",".join("%s=%s" % (k, _partition_value(v)) for k, v in s.items()))
        else:
            raise TypeError("a partition spec is a dict or a 'k=v[,k2=v2]' string, not %s" % type(s).__name__)
    return out


def _partition_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def open_table(path: str, branch: Optional[str] = None) -> "Table":
    """Open the table at ``path`` (``<warehouse>/<db>.db/<table>``) on
    ``branch`` (None = main), without a catalog."""
    return Table(_native.table_open(str(path), branch))


class Table:
    """A table opened by a Catalog (``catalog.get_table("db.t")``) or by path
    (:func:`open_table`)."""

    def __init__(self, handle, identifier: Optional[str] = None):
        self._h = handle
        self._path, self._branch, self._has_pk = _native.table_info(handle)
        self._identifier = identifier
        self._schema: Optional[TableSchema] = None

    def __repr__(self) -> str:
        return "Table(%r)" % (self._identifier or self._path)

    @property
    def path(self) -> str:
        return self._path

    @property
    def branch(self) -> str:
        return self._branch

    @property
    def identifier(self) -> Optional[str]:
        return self._identifier

    @property
    def table_schema(self) -> TableSchema:
        if self._schema is None:
            self._schema = _schema_from_native(_native.table_schema(self._h, -1))
        return self._schema

    def schema(self, schema_id: int) -> TableSchema:
        """Schema ``schema_id`` of the table."""
        return _schema_from_native(_native.table_schema(self._h, int(schema_id)))

    @property
    def partition_keys(self) -> List[str]:
        return self.table_schema.partition_keys

    @property
    def primary_keys(self) -> List[str]:
        return self.table_schema.primary_keys

    @property
    def options(self) -> Dict[str, str]:
        return self.table_schema.options

    @property
    def is_primary_key_table(self) -> bool:
        return self._has_pk

    def pyarrow_schema(self) -> pa.Schema:
        """The table's columns as a pyarrow schema (field ids as
        ``PARQUET:field_id`` metadata)."""
        return self.table_schema.pa_schema

    # ---- snapshots and files ----

    def snapshot_ids(self) -> List[int]:
        return _native.table_snapshot_ids(self._h)

    def snapshot(self, snapshot_id: int = 0) -> Optional[dict]:
        """Snapshot ``snapshot_id`` (0 = the latest) as the snapshot file's
        JSON object, or None when the table has no snapshot."""
        text = _native.table_snapshot_json(self._h, int(snapshot_id))
        return json.loads(text) if text is not None else None

    def latest_snapshot(self) -> Optional[dict]:
        return self.snapshot(0)

    def files(self, snapshot_id: int = 0, partitions=None) -> List[dict]:
        """The live data files of a snapshot (0 = latest), like Paimon's
        ``$files`` system table: one dict per file."""
        return json.loads(_native.table_files_json(self._h, int(snapshot_id), partition_filter(partitions)))

    # ---- builders ----

    def new_read_builder(self) -> "ReadBuilder":
        from .read import ReadBuilder
        return ReadBuilder(self)

    def new_batch_write_builder(self) -> "BatchWriteBuilder":
        from .write import BatchWriteBuilder
        return BatchWriteBuilder(self)

    def new_compact_builder(self) -> "CompactBuilder":
        from .compact import CompactBuilder
        return CompactBuilder(self)
