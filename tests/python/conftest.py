"""Shared helpers of the paimon_c package tests (tests/python).

The package must be installed in the interpreter running pytest
(`make test` installs it into the project venv); pypaimon is the oracle
for tables written or compacted here.
"""
import collections
import os
import pathlib

import pyarrow as pa
import pytest

import paimon_c

SCHEMA = pa.schema([("id", pa.int64()), ("s", pa.string()), ("pt", pa.string())])


def rows_of(arrow_table, key=None):
    """Rows as a multiset of sorted item tuples (order-free comparison)."""
    return collections.Counter(tuple(sorted(r.items())) for r in arrow_table.to_pylist())


def data(start, n, parts=3):
    return pa.Table.from_pylist(
        [{"id": k, "s": None if k % 4 == 0 else "v%d" % (k % 7), "pt": "p%d" % (k % parts)}
         for k in range(start, start + n)], schema=SCHEMA)


def pypaimon_table(wh, identifier="db.t", schema=SCHEMA, commits=0, rows=9, parts=3, **kw):
    """A table created and written by pypaimon: `commits` appends of `rows` rows."""
    from pypaimon import CatalogFactory, Schema
    cat = CatalogFactory.create({"warehouse": str(wh)})
    cat.create_database(identifier.split(".")[0], True)
    cat.create_table(identifier, Schema.from_pyarrow_schema(schema, **kw), False)
    for c in range(commits):
        pypaimon_append(wh, identifier, data(c * rows, rows, parts))
    db, name = identifier.split(".")
    return pathlib.Path(wh) / ("%s.db" % db) / name


def pypaimon_append(wh, identifier, arrow_table):
    from pypaimon import CatalogFactory
    t = CatalogFactory.create({"warehouse": str(wh)}).get_table(identifier)
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(arrow_table)
    cm = wb.new_commit()
    cm.commit(w.prepare_commit())
    w.close()
    cm.close()


def pypaimon_rows(wh, identifier="db.t"):
    from pypaimon import CatalogFactory
    t = CatalogFactory.create({"warehouse": str(wh)}).get_table(identifier)
    rb = t.new_read_builder()
    return rows_of(rb.new_read().to_arrow(rb.new_scan().plan().splits()))


def paimon_c_rows(wh, identifier="db.t"):
    t = paimon_c.CatalogFactory.create({"warehouse": str(wh)}).get_table(identifier)
    rb = t.new_read_builder()
    return rows_of(rb.new_read().to_arrow(rb.new_scan().plan().splits()))


def files_on_disk(table_path):
    """Data files in the table's partition/bucket directories."""
    out = set()
    for root, _, names in os.walk(table_path):
        rel = os.path.relpath(root, table_path)
        if rel.split(os.sep)[0] in ("schema", "snapshot", "manifest", "index", "."):
            continue
        out.update(os.path.join(rel, n) for n in names if n.startswith(("data-", "changelog-")))
    return out


def files_referenced(table):
    """Data files (relative to the table) referenced by any snapshot of the table."""
    return {os.path.relpath(f["file_path"], table.path)
            for sid in table.snapshot_ids() for f in table.files(snapshot_id=sid)}


@pytest.fixture
def wh(tmp_path):
    return tmp_path / "wh"


@pytest.fixture
def catalog(wh):
    c = paimon_c.CatalogFactory.create({"warehouse": str(wh)})
    c.create_database("db", True)
    return c
