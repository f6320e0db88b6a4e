"""Catalogs and schemas: the filesystem catalog of a warehouse directory.

    catalog = CatalogFactory.create({"warehouse": "/path/wh"})
    catalog.create_database("db", True)
    catalog.create_table("db.t", Schema.from_pyarrow_schema(pa_schema, partition_keys=["dt"]), False)
    table = catalog.get_table("db.t")

Tables live at ``<warehouse>/<db>.db/<table>/``, laid out as Apache
Paimon's filesystem catalog lays them out, so Paimon Java, pypaimon and
paimon_c share a warehouse.
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple, Union

import pyarrow as pa

from . import _native
from ._arrow import schema_of
from .errors import InvalidError, UnsupportedError

__all__ = ["CatalogFactory", "Catalog", "Schema", "TableSchema"]


@dataclass
class Schema:
    """What a new table looks like: its columns as a pyarrow schema, its
    partition and primary keys, table options (strings, as in Paimon) and
    a comment.  Column types map from Arrow as libpaimon maps them
    (int64 → BIGINT, string → STRING, timestamp('us') → TIMESTAMP(6),
    a time zone → WITH LOCAL TIME ZONE, non-nullable fields → NOT NULL)."""

    pa_schema: pa.Schema
    partition_keys: List[str] = field(default_factory=list)
    primary_keys: List[str] = field(default_factory=list)
    options: Dict[str, str] = field(default_factory=dict)
    comment: Optional[str] = None

    @staticmethod
    def from_pyarrow_schema(pa_schema: pa.Schema, partition_keys: Optional[List[str]] = None,
                            primary_keys: Optional[List[str]] = None, options: Optional[Dict] = None,
                            comment: Optional[str] = None) -> "Schema":
        """The same signature as pypaimon's ``Schema.from_pyarrow_schema``."""
        return Schema(pa_schema, list(partition_keys or []), list(primary_keys or []),
                      {str(k): _option_text(v) for k, v in (options or {}).items()}, comment)


def _option_text(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


@dataclass(frozen=True)
class TableSchema:
    """One version of a table's schema (``schema/schema-N``)."""

    id: int
    pa_schema: pa.Schema
    partition_keys: List[str]
    primary_keys: List[str]
    options: Dict[str, str]
    comment: Optional[str]
    json: str

    @property
    def fields(self) -> List[pa.Field]:
        return list(self.pa_schema)


def _schema_from_native(info) -> TableSchema:
    sid, cap, parts, prims, opts, comment, text = info
    return TableSchema(sid, schema_of(cap), parts, prims, opts, comment, text)


def _split_identifier(identifier: Union[str, Tuple[str, str]]) -> Tuple[str, str]:
    if isinstance(identifier, tuple) and len(identifier) == 2:
        return identifier
    if hasattr(identifier, "get_database_name") and hasattr(identifier, "get_table_name"):
        return identifier.get_database_name(), identifier.get_table_name()
    if isinstance(identifier, str) and "." in identifier:
        db, name = identifier.split(".", 1)
        if db and name:
            return db, name
    raise InvalidError("table identifier %r is not 'database.table'" % (identifier,))


class CatalogFactory:
    """Creates catalogs from options, as pypaimon's CatalogFactory does."""

    @staticmethod
    def create(options: Dict[str, str]) -> "Catalog":
        """A filesystem catalog.  Options: ``warehouse`` (a local path or
        ``file://`` URI; required) and ``metastore`` (only ``filesystem``).
        Any other option is refused (InvalidError), never ignored."""
        opts = dict(options or {})
        warehouse = opts.pop("warehouse", None)
        if not warehouse:
            raise InvalidError("catalog option 'warehouse' is required")
        metastore = opts.pop("metastore", "filesystem")
        if metastore != "filesystem":
            raise UnsupportedError("metastore '%s' is not supported (only 'filesystem')" % metastore)
        if opts:
            raise InvalidError("unknown catalog option(s): %s" % ", ".join(sorted(opts)))
        return Catalog(str(warehouse))


class Catalog:
    """Databases and tables under a warehouse directory.  Every call looks
    at the file system, so processes may share a warehouse.  Safe to use
    from several threads."""

    def __init__(self, warehouse: str):
        self._h = _native.catalog_open(warehouse)

    @property
    def warehouse(self) -> str:
        return _native.catalog_warehouse(self._h)

    def create_database(self, name: str, ignore_if_exists: bool, properties: Optional[Dict] = None) -> None:
        if properties:
            raise UnsupportedError("database properties are not supported by the filesystem catalog")
        _native.catalog_create_database(self._h, name, bool(ignore_if_exists))

    def drop_database(self, name: str, ignore_if_not_exists: bool = False, cascade: bool = False) -> None:
        _native.catalog_drop_database(self._h, name, bool(ignore_if_not_exists), bool(cascade))

    def list_databases(self) -> List[str]:
        return _native.catalog_list(self._h, None)

    def list_tables(self, database_name: str) -> List[str]:
        return _native.catalog_list(self._h, database_name)

    def table_path(self, identifier) -> str:
        """Where the table ``db.t`` is (whether or not it exists)."""
        db, name = _split_identifier(identifier)
        return _native.catalog_table_path(self._h, db, name)

    def create_table(self, identifier, schema: Schema, ignore_if_exists: bool) -> None:
        """Create ``db.t`` (the database must exist).  The options are
        checked as Paimon checks them; nothing is left on disk on failure."""
        if not isinstance(schema, Schema):
            raise InvalidError("create_table needs a paimon_c.Schema (Schema.from_pyarrow_schema)")
        db, name = _split_identifier(identifier)
        empty = pa.RecordBatch.from_pylist([], schema=schema.pa_schema)
        scap, acap = empty.__arrow_c_array__()
        keys = list(schema.options.keys())
        _native.catalog_create_table(self._h, db, name, scap, acap, schema.partition_keys, schema.primary_keys,
                                     keys, [schema.options[k] for k in keys], schema.comment,
                                     bool(ignore_if_exists))

    def get_table(self, identifier) -> "Table":
        from .table import Table
        db, name = _split_identifier(identifier)
        return Table(_native.catalog_get_table(self._h, db, name), identifier="%s.%s" % (db, name))

    def drop_table(self, identifier, ignore_if_not_exists: bool = False) -> None:
        db, name = _split_identifier(identifier)
        _native.catalog_drop_table(self._h, db, name, bool(ignore_if_not_exists))
