"""paimon_c: Apache Paimon tables from Python through libpaimon (paimon-c),
without a JVM: create, write, read and compact, byte-compatibly with
Apache Paimon Java and pypaimon.

The API mirrors pypaimon's where the concepts match, so a pypaimon user
switches by changing the import::

    from paimon_c import CatalogFactory, Schema
    catalog = CatalogFactory.create({"warehouse": "/path/wh"})
    catalog.create_database("db", True)
    catalog.create_table("db.t", Schema.from_pyarrow_schema(pa_schema, partition_keys=["dt"]), False)
    table = catalog.get_table("db.t")

    wb = table.new_batch_write_builder()
    w = wb.new_write(); w.write_arrow(pa_table)
    wb.new_commit().commit(w.prepare_commit())

    rb = table.new_read_builder().with_projection(["id", "dt"])
    arrow_table = rb.new_read().to_arrow(rb.new_scan().plan().splits())

    cb = table.new_compact_builder()      # .with_partition_filter({...}) .with_full(True) .with_options({...})
    plan = cb.new_planner().plan()
    results = [cb.new_executor().execute(t) for t in plan.tasks()]
    metrics = cb.new_commit().commit_compact(results)

Arrow data crosses by the Arrow PyCapsule interface, without copying the
buffers of the batches read.  Distributed compaction: ``paimon_c.parallel``
(concurrent.futures) and ``paimon_c.ray`` (a Ray cluster; ``pip install
paimon_c[ray]``).  Errors are :class:`PaimonError` subclasses carrying the
whole libpaimon cause chain.  The GIL is released while libpaimon works.
"""

from . import _native
from .errors import (ERROR_CLASSES, ConflictError, CorruptError, ExistsError, InternalError, InvalidError,
                     IOError, NotFoundError, OutOfMemoryError, PaimonError, UncertainError, UnsupportedError)

_native.register_errors(PaimonError, dict(ERROR_CLASSES))

from .catalog import Catalog, CatalogFactory, Schema, TableSchema  # noqa: E402
from .compact import (CompactBuilder, CompactCommit, CompactExecutor, CompactMetrics, CompactPlan,  # noqa: E402
                      CompactPlanner, CompactResult, CompactTask)
from .read import Plan, Predicate, PredicateBuilder, ReadBuilder, Split, TableRead, TableScan  # noqa: E402
from .table import Table, open_table  # noqa: E402
from .write import (BatchTableCommit, BatchTableWrite, BatchWriteBuilder, CommitMessage,  # noqa: E402
                    CommitOutcome)

__version__ = "0.1.0"
#: The version of the libpaimon linked into this package.
LIBPAIMON_VERSION = _native.version()[0]

__all__ = [
    "CatalogFactory", "Catalog", "Schema", "TableSchema", "Table", "open_table",
    "ReadBuilder", "TableScan", "Plan", "Split", "TableRead", "Predicate", "PredicateBuilder",
    "BatchWriteBuilder", "BatchTableWrite", "BatchTableCommit", "CommitMessage", "CommitOutcome",
    "CompactBuilder", "CompactPlanner", "CompactPlan", "CompactTask", "CompactResult", "CompactExecutor",
    "CompactCommit", "CompactMetrics",
    "PaimonError", "InvalidError", "NotFoundError", "ExistsError", "ConflictError", "UncertainError",
    "CorruptError", "UnsupportedError", "IOError", "OutOfMemoryError", "InternalError",
    "LIBPAIMON_VERSION",
]
