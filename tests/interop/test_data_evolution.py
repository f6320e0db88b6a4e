"""Data-evolution tables (issue 10) end to end, against pypaimon 2.1 and
the Java-written fixtures:

- `_ROW_ID` / `_SEQUENCE_NUMBER` of the Java fixtures at every snapshot
  (pypaimon as oracle where it reads them right, the READMEs elsewhere);
- pypaimon writes, updates (update_by_arrow_with_row_id) and deletes
  (delete_by_row_id); our compaction keeps every row, value and _ROW_ID as
  pypaimon reads them, moves the deletion vectors to the new file, and
  pypaimon keeps writing and updating the table afterwards;
- our `paimon update` / `paimon delete` read back identically by pypaimon;
- materialization: the deleted rows are gone, no deletion vector is left
  for the rewritten ranges, the survivors keep their values under new row
  IDs, pypaimon keeps writing and updating;
- commit races: a delete committed between plan and commit of a
  compaction survives it; a column update into a planned range makes the
  compaction commit fail with "replan" and publish nothing;
- a seeded model test: random appends, updates, deletes, compactions and
  materializations against an in-memory model of row ID → (values,
  deleted), checked after every step with our reader and pypaimon.
"""
import base64
import json
import random
import shutil

import pyarrow as pa
import pytest

from conftest import FIXTURES, run_paimon

PARQUET = FIXTURES / "java-written" / "parquet"
OPTS = {"bucket": "-1", "row-tracking.enabled": "true", "data-evolution.enabled": "true",
        "deletion-vectors.enabled": "true", "write-only": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("v", pa.float64())])


def _rows(table, *extra):
    p = run_paimon("read", table, *extra)
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def _catalog(wh):
    from pypaimon import CatalogFactory
    return CatalogFactory.create({"warehouse": str(wh)})


def _py_table(wh, name="t"):
    return _catalog(wh).get_table(f"db.{name}")


def _py_rows(wh, name="t", cols=("_ROW_ID", "id", "name", "v")):
    t = _py_table(wh, name)
    rb = t.new_read_builder().with_projection(list(cols))
    return sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist(), key=lambda r: r["_ROW_ID"])


def _py_create(wh, name="t", **extra):
    from pypaimon import Schema
    cat = _catalog(wh)
    cat.create_database("db", True)
    cat.create_table(f"db.{name}", Schema.from_pyarrow_schema(SCHEMA, options={**OPTS, **extra}), False)
    return wh / "db.db" / name


def _py_commit(t, msgs):
    wb = t.new_batch_write_builder()
    c = wb.new_commit()
    c.commit(msgs)
    c.close()


def _py_append(wh, ids, name="t"):
    t = _py_table(wh, name)
    w = t.new_batch_write_builder().new_write()
    w.write_arrow(pa.table({"id": ids, "name": [f"n{i}" for i in ids], "v": [float(i) for i in ids]}, schema=SCHEMA))
    _py_commit(t, w.prepare_commit())
    w.close()


def _py_update(wh, row_ids, values, name="t"):
    t = _py_table(wh, name)
    u = t.new_batch_write_builder().new_update().with_update_type(["v"])
    _py_commit(t, u.update_by_arrow_with_row_id(pa.table({"_ROW_ID": pa.array(row_ids, pa.int64()), "v": values})))


def _py_delete(wh, row_ids, name="t"):
    t = _py_table(wh, name)
    _py_commit(t, t.new_batch_write_builder().new_update().delete_by_row_id(row_ids))


def _ours(table):
    return sorted(_rows(table, "--columns", "_ROW_ID,id,name,v"), key=lambda r: r["_ROW_ID"])


def _files(table):
    return json.loads(run_paimon("files", table, "--json").stdout)


# ---------------------------------------------------------------------------
# Java fixtures: the row-tracking columns at every snapshot

# (table, snapshot) → [(_ROW_ID, _SEQUENCE_NUMBER)] from the READMEs ("Recall ... with _ROW_ID and
# _SEQUENCE_NUMBER") and the snapshots' commits
_README_RT = {
    ("append_table_alter_table_with_cast_with_data_evolution", 3):
        [(i, 1) for i in range(5)] + [(i, 3) for i in range(5, 10)],
    ("blob_append_table_alter_table_with_cast_with_data_evolution", 3):
        [(i, 1) for i in range(5)] + [(i, 3) for i in range(5, 10)],
    ("append_table_alter_table_with_cast_with_data_evolution", 1): [(i, 1) for i in range(5)],
    ("append_table_row_tracking_with_compact", 4): [(0, 1), (1, 1), (2, 2), (3, 2)],
    ("append_table_row_tracking_with_compact", 3): [(0, 1), (1, 1), (2, 2), (3, 2)],
    ("append_table_row_tracking_with_compact", 2): [(0, 1), (1, 1), (2, 2), (3, 2)],
    ("append_table_row_tracking_with_compact", 1): [(0, 1), (1, 1)],
}


@pytest.mark.parametrize("table,snapshot", sorted(_README_RT))
def test_fixture_row_tracking_columns(table, snapshot):
    got = _rows(PARQUET / f"{table}.db" / table, "--snapshot", str(snapshot), "--columns",
                "_ROW_ID,_SEQUENCE_NUMBER")
    assert sorted((r["_ROW_ID"], r["_SEQUENCE_NUMBER"]) for r in got) == _README_RT[(table, snapshot)]


@pytest.mark.parametrize("table", ["append_table_alter_table_with_cast_with_data_evolution",
                                   "blob_append_table_alter_table_with_cast_with_data_evolution",
                                   "data_evolution_with_index"])
def test_fixture_compaction(tmp_path, table):
    """Our compaction of Java's data-evolution fixtures keeps every row and _ROW_ID; its output is in the
    current schema, so pypaimon (which maps _WRITE_COLS names through the latest schema) now reads the
    renamed columns of the cast table as we do.  The blob table's .blob files are kept as they are (their
    _WRITE_COLS name the column before its rename, which pypaimon cannot find)."""
    from table_read_oracle import canon_our_rows, canon_table, multiset, pypaimon_read
    tdir = tmp_path / "db.db" / table
    shutil.copytree(PARQUET / f"{table}.db" / table, tdir)
    cols = ("--columns", "_ROW_ID,_SEQUENCE_NUMBER")
    before, before_ids = _rows(tdir), _rows(tdir, *cols)
    run_paimon("compact", tdir, "--option", "compaction.min.file-num=1")
    assert run_paimon("snapshots", tdir).stdout.count("COMPACT") >= 1
    after = _rows(tdir)
    assert multiset(after) == multiset(before)
    # row IDs kept; each row's _SEQUENCE_NUMBER is now its file's maximum, the inputs' largest (as after
    # Java 1.4.2's DataEvolutionCompactTask, whose output for these tables is the same: rows, row IDs,
    # sequence numbers and the file's sequence range)
    got = _rows(tdir, *cols)
    assert sorted(r["_ROW_ID"] for r in got) == sorted(r["_ROW_ID"] for r in before_ids)
    assert {r["_SEQUENCE_NUMBER"] for r in got} == {max(r["_SEQUENCE_NUMBER"] for r in before_ids)}
    if not table.startswith("blob_"):
        arrow = pypaimon_read(tmp_path, "db", table)
        assert multiset(canon_our_rows(after, arrow.schema)) == multiset(canon_table(arrow))


_DENSE_BLOB = {  # blob_data_evolution_with_dense_stats (ORC manifests, which pypaimon cannot read): its README
    1: [{"_ROW_ID": 0, "f0": "TGlseQ==", "f1": 2, "f2": 12, "f3": None},
        {"_ROW_ID": 1, "f0": "QWxpY2U=", "f1": 4, "f2": 14, "f3": None}],
    2: [{"_ROW_ID": 0, "f0": "TGlseQ==", "f1": 2, "f2": 102, "f3": 2.1},
        {"_ROW_ID": 1, "f0": "QWxpY2U=", "f1": 4, "f2": 104, "f3": 3.1}],
}


def test_fixture_dense_blob_orc_manifests(tmp_path):
    """Java's blob data-evolution table with ORC manifests and dense stats at every snapshot (README rows,
    "Lily"/"Alice" as base64), then our compaction of it keeps rows and row IDs."""
    name = "blob_data_evolution_with_dense_stats"
    tdir = tmp_path / name
    shutil.copytree(FIXTURES / "java-written-orc-manifests" / f"{name}.db" / name, tdir)
    for snap, want in _DENSE_BLOB.items():
        got = _rows(tdir, "--snapshot", str(snap), "--columns", "_ROW_ID,f0,f1,f2,f3")
        assert sorted(got, key=lambda r: r["_ROW_ID"]) == want
    run_paimon("compact", tdir, "--option", "compaction.min.file-num=1")
    assert sorted(_rows(tdir, "--columns", "_ROW_ID,f0,f1,f2,f3"), key=lambda r: r["_ROW_ID"]) == _DENSE_BLOB[2]


@pytest.mark.parametrize("snapshot", [1, 2, 3])
def test_fixture_data_evolution_with_index_matches_pypaimon(snapshot):
    name = "data_evolution_with_index"
    tdir = PARQUET / f"{name}.db" / name
    t = _catalog(PARQUET).get_table(f"{name}.{name}").copy({"scan.snapshot-id": str(snapshot)})
    rb = t.new_read_builder().with_projection(["_ROW_ID", "_SEQUENCE_NUMBER", "f0", "f1", "f2", "f3"])
    want = rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()
    got = _rows(tdir, "--snapshot", str(snapshot), "--columns", "_ROW_ID,_SEQUENCE_NUMBER,f0,f1,f2,f3")
    key = lambda r: r["_ROW_ID"]  # noqa: E731
    assert sorted(got, key=key) == sorted(want, key=key)


# ---------------------------------------------------------------------------
# row tracking without data evolution: our compaction of the snapshot before
# Java's compaction gives Java's logical rows, row IDs and file layout

RT_COMPACT = "append_table_row_tracking_with_compact"


def _rt_rows(table, snapshot=None):
    extra = ["--snapshot", str(snapshot)] if snapshot else []
    return sorted(_rows(table, *extra, "--columns", "_ROW_ID,_SEQUENCE_NUMBER,f0,f1,f2,f3"),
                  key=lambda r: r["_ROW_ID"])


def _py_multiset(wh, db, name, snapshot=None):
    t = _catalog(wh).get_table(f"{db}.{name}")
    if snapshot:
        t = t.copy({"scan.snapshot-id": str(snapshot)})
    rb = t.new_read_builder().with_projection(["_ROW_ID", "_SEQUENCE_NUMBER", "f0", "f1", "f2", "f3"])
    return sorted(json.dumps(r, sort_keys=True) for r in rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist())


def test_row_tracking_compaction_matches_java(tmp_path):
    src = PARQUET / f"{RT_COMPACT}.db" / RT_COMPACT
    wh = tmp_path / "wh"
    tdir = wh / f"{RT_COMPACT}.db" / RT_COMPACT
    shutil.copytree(src, tdir)
    for p in tdir.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    # back to snapshot 2 (before Java's empty commit 3 and COMPACT 4)
    for sid in (3, 4):
        (tdir / "snapshot" / f"snapshot-{sid}").unlink()
    (tdir / "snapshot" / "LATEST").write_text("2")
    java = _rt_rows(src, 4)
    assert [(r["_ROW_ID"], r["_SEQUENCE_NUMBER"]) for r in java] == [(0, 1), (1, 1), (2, 2), (3, 2)]
    out = json.loads(run_paimon("compact", tdir, "--option", "compaction.min.file-num=2", "--json").stdout)
    assert out["files_removed"] == 2 and out["files_added"] == 1 and out["rows_written"] == 4
    assert _rt_rows(tdir) == java
    ours = _files(tdir)
    theirs = json.loads(run_paimon("files", src, "--json").stdout)
    assert len(ours) == len(theirs) == 1
    for k in ("first_row_id", "write_cols", "file_source", "record_count"):
        assert ours[0][k] == theirs[0][k], k
    assert ours[0]["first_row_id"] is None and ours[0]["write_cols"][-2:] == ["_ROW_ID", "_SEQUENCE_NUMBER"]
    snap = json.loads((tdir / "snapshot" / "snapshot-3").read_text())
    assert snap["commitKind"] == "COMPACT" and snap["nextRowId"] == 4
    # pypaimon reads our file as it reads Java's (pypaimon 2.1 gives no
    # _ROW_ID for files without a first row ID, here as there)
    assert _py_multiset(wh, RT_COMPACT, RT_COMPACT) == _py_multiset(PARQUET, RT_COMPACT, RT_COMPACT)
    # appends after it get new row IDs; compacting the mix keeps every ID
    run_paimon("write", tdir, input='{"f0":"Eve","f1":6,"f2":16,"f3":6.1}\n')
    run_paimon("compact", tdir, "--option", "compaction.min.file-num=2")
    got = _rt_rows(tdir)
    assert [(r["_ROW_ID"], r["f0"]) for r in got] == [(0, "Lily"), (1, "Alice"), (2, "Bob"), (3, "David"),
                                                      (4, "Eve")]
    assert got[:4] == java and got[4]["_SEQUENCE_NUMBER"] == 4
    assert len(_files(tdir)) == 1


# ---------------------------------------------------------------------------
# pypaimon writes, we compact, pypaimon reads

@pytest.fixture
def pytable(tmp_path):
    tdir = _py_create(tmp_path)
    _py_append(tmp_path, list(range(0, 5)))
    _py_append(tmp_path, list(range(10, 15)))
    _py_update(tmp_path, [1, 6], [100.0, 600.0])
    _py_delete(tmp_path, [2, 7])
    return tmp_path, tdir


def _manifest_file_fields(tdir):
    """(DataFileMeta field names of each data manifest, every _WRITE_COLS_SEQUENCES value)."""
    import fastavro
    names, values = [], []
    for m in sorted((tdir / "manifest").glob("manifest-*")):
        if m.name.startswith("manifest-list"):
            continue
        with open(m, "rb") as fh:
            r = fastavro.reader(fh)
            fs = next(f for f in r.writer_schema["fields"] if f["name"] == "_FILE")["type"]["fields"]
            names.append([f["name"] for f in fs])
            values += [e["_FILE"].get("_WRITE_COLS_SEQUENCES") for e in r]
    return names, values


def test_write_cols_sequences_facts(pytable):
    """Per-column maximum sequence numbers (_WRITE_COLS_SEQUENCES, Paimon after
    1.4): Java 1.4.2 has no such field, pypaimon 2.1 declares it but writes
    null for every file it writes (appends, updates, deletes), and our
    manifests keep Paimon 2.0's fields; pypaimon reads ours and its own."""
    wh, tdir = pytable
    for name in ("data_evolution_with_index", "append_table_row_tracking_with_compact"):
        fields, _ = _manifest_file_fields(PARQUET / f"{name}.db" / name)
        assert fields and all(f[-1] == "_WRITE_COLS" for f in fields)
    fields, values = _manifest_file_fields(tdir)
    assert fields and all(f[-1] == "_WRITE_COLS_SEQUENCES" for f in fields)
    assert values and all(v is None for v in values)
    before = _py_rows(wh)
    run_paimon("compact", tdir, "--option", "compaction.min.file-num=1")
    fields, _ = _manifest_file_fields(tdir)
    assert any(f[-1] == "_WRITE_COLS" for f in fields)          # the manifests we wrote
    assert _py_rows(wh) == before


def test_pypaimon_tables_compact(pytable):
    wh, tdir = pytable
    before = _py_rows(wh)
    assert [r["_ROW_ID"] for r in before] == [0, 1, 3, 4, 5, 6, 8, 9]
    assert _ours(tdir) == before
    inputs = _files(tdir)
    seq = (min(f["min_sequence_number"] for f in inputs), max(f["max_sequence_number"] for f in inputs))
    out = json.loads(run_paimon("compact", tdir, "--option", "compaction.min.file-num=1", "--json").stdout)
    assert out["files_removed"] == 4 and out["files_added"] == 1 and out["rows_written"] == 10
    assert _py_rows(wh) == before
    assert _ours(tdir) == before
    files = _files(tdir)
    assert len(files) == 1 and files[0]["first_row_id"] == 0 and files[0]["record_count"] == 10
    assert (files[0]["min_sequence_number"], files[0]["max_sequence_number"]) == seq   # the inputs' range
    assert files[0]["deleted_rows"] == 2          # deleted slots stay, their vector moved
    # pypaimon keeps writing and updating the compacted table
    _py_append(wh, [20, 21])
    _py_update(wh, [3, 11], [33.0, 111.0])
    want = _py_rows(wh)
    assert {r["_ROW_ID"]: r["v"] for r in want}[3] == 33.0
    assert _ours(tdir) == want


def test_our_changes_read_by_pypaimon(tmp_path):
    tdir = _py_create(tmp_path)
    for k in range(3):
        rows = "".join(json.dumps({"id": 10 * k + i, "name": f"n{10 * k + i}", "v": float(i)}) + "\n" for i in range(4))
        run_paimon("write", tdir, input=rows)
    run_paimon("update", tdir, "--columns", "v,name",
               input='{"_ROW_ID":1,"v":9.5,"name":"x"}\n{"_ROW_ID":9,"v":8.5,"name":"y"}\n')
    run_paimon("delete", tdir, "--row-ids", "0,5-6")
    want = _py_rows(tmp_path)
    assert [r["_ROW_ID"] for r in want] == [1, 2, 3, 4, 7, 8, 9, 10, 11]
    assert {r["_ROW_ID"]: (r["name"], r["v"]) for r in want}[9] == ("y", 8.5)
    assert _ours(tdir) == want
    # bad input changes nothing
    snaps = run_paimon("snapshots", tdir).stdout
    p = run_paimon("update", tdir, "--columns", "v", input='{"_ROW_ID":99,"v":1.0}\n', check=False)
    assert p.returncode == 1 and "not a row of table" in p.stderr
    p = run_paimon("delete", tdir, "--row-ids", "1000", check=False)
    assert p.returncode == 1 and "not a row of table" in p.stderr
    assert run_paimon("snapshots", tdir).stdout == snaps


def test_materialize(pytable):
    wh, tdir = pytable
    before = _py_rows(wh)
    out = run_paimon("materialize-deletions", tdir).stdout
    assert "2 rows removed" in out
    after = _py_rows(wh)
    strip = lambda rs: sorted((r["id"], r["name"], r["v"]) for r in rs)  # noqa: E731
    assert strip(after) == strip(before)
    assert min(r["_ROW_ID"] for r in after) >= 10       # new row IDs from nextRowId
    assert len({r["_ROW_ID"] for r in after}) == len(after)
    assert all(f["deleted_rows"] == 0 for f in _files(tdir))
    assert _ours(tdir) == after
    assert "nothing to materialize" in run_paimon("materialize-deletions", tdir).stdout
    _py_append(wh, [30])
    rid = after[0]["_ROW_ID"]
    _py_update(wh, [rid], [-1.0])
    want = _py_rows(wh)
    assert {r["_ROW_ID"]: r["v"] for r in want}[rid] == -1.0
    assert _ours(tdir) == want


def _index_entries(tdir):
    """(index type, file name, global row range or None) of the latest snapshot's index manifest."""
    import fastavro
    snap = json.loads((tdir / "snapshot" / ("snapshot-" + (tdir / "snapshot" / "LATEST").read_text().strip()))
                      .read_text())
    if not snap.get("indexManifest"):
        return []
    with open(tdir / "manifest" / snap["indexManifest"], "rb") as fh:
        return [(e["_INDEX_TYPE"], e["_FILE_NAME"], e.get("_GLOBAL_INDEX") and
                 (e["_GLOBAL_INDEX"]["_ROW_RANGE_START"], e["_GLOBAL_INDEX"]["_ROW_RANGE_END"]))
                for e in fastavro.reader(fh)]


def test_materialize_drops_global_indexes(tmp_path):
    """Java's append_with_global_index (data evolution, three global bitmap indexes over row IDs [0, 7]) with
    deletion vectors switched on (a schema 1): after a delete and materialization the indexes of the
    rewritten range are gone, the survivors keep their values, and pypaimon reads the table."""
    from table_read_oracle import canon_our_rows, canon_table, multiset, pypaimon_read
    tdir = tmp_path / "db.db" / "t"
    shutil.copytree(PARQUET / "append_with_global_index.db" / "append_with_global_index", tdir)
    s = json.loads((tdir / "schema" / "schema-0").read_text())
    s["id"] = 1
    s["options"]["deletion-vectors.enabled"] = "true"
    (tdir / "schema" / "schema-1").write_text(json.dumps(s))
    assert [e[2] for e in _index_entries(tdir) if e[0] == "bitmap"] == [(0, 7)] * 3
    before = _rows(tdir, "--columns", "_ROW_ID,f0,f1,f2,f3")
    run_paimon("delete", tdir, "--where", "f0 = 'Bob' AND f3 < 13")
    out = run_paimon("materialize-deletions", tdir).stdout
    assert "1 rows removed" in out
    assert [e for e in _index_entries(tdir) if e[0] != "DELETION_VECTORS"] == []
    after = _rows(tdir, "--columns", "f0,f1,f2,f3")
    strip = lambda rs: multiset({k: r[k] for k in ("f0", "f1", "f2", "f3")} for r in rs)  # noqa: E731
    assert strip(after) == strip(r for r in before if not (r["f0"] == "Bob" and r["f3"] < 13))
    arrow = pypaimon_read(tmp_path, "db", "t")
    assert multiset(canon_our_rows(_rows(tdir), arrow.schema)) == multiset(canon_table(arrow))


def test_materialize_usage_and_refusals(tmp_path):
    tdir = _py_create(tmp_path)
    p = run_paimon("materialize-deletions", tdir, "--partition", "a=1", "--where", "a >= 1", check=False)
    assert p.returncode == 2 and "exclusive" in p.stderr
    # --where of materialize-deletions names partition keys only; bad predicates write nothing
    p = run_paimon("materialize-deletions", tdir, "--where", "id >= 1", check=False)
    assert p.returncode == 1 and "'id' is not a partition key" in p.stderr
    p = run_paimon("delete", tdir, "--where", "id >>= 1", check=False)
    assert p.returncode == 1 and "filter" in p.stderr
    p = run_paimon("delete", tdir, "--where", "id >= 1", "--row-ids", "1", check=False)
    assert p.returncode == 2 and "exclusive" in p.stderr
    assert not (tdir / "snapshot").exists() or not any((tdir / "snapshot").glob("snapshot-*"))
    nodv = _py_create(tmp_path, "nodv", **{"deletion-vectors.enabled": "false"})
    p = run_paimon("materialize-deletions", nodv, check=False)
    assert p.returncode == 1 and "deletion-vectors.enabled=true" in p.stderr
    p = run_paimon("compact", nodv, "--option", "data-evolution.compaction.rewrite-row-ids=true", check=False)
    assert p.returncode == 1 and "materialize-deletions" in p.stderr


def test_delete_where_read_by_pypaimon(pytable):
    """`paimon delete --where`: the live rows matching the predicate get deletion vectors, as pypaimon reads."""
    wh, tdir = pytable
    before = _py_rows(wh)
    out = run_paimon("delete", tdir, "--where", "id >= 3 AND name <> 'n13' AND v < 500").stdout
    gone = {r["_ROW_ID"] for r in before if r["id"] >= 3 and r["name"] != "n13" and r["v"] < 500}
    assert "%d rows deleted" % len(gone) in out
    after = _py_rows(wh)
    assert after == [r for r in before if r["_ROW_ID"] not in gone]
    assert _ours(tdir) == after
    # nothing matching (deleted rows do not match again): no snapshot
    snaps = run_paimon("snapshots", tdir).stdout
    assert "nothing to commit" in run_paimon("delete", tdir, "--where", "id IN (3, 4)").stdout
    assert run_paimon("snapshots", tdir).stdout == snaps
    # pypaimon keeps deleting and updating
    _py_delete(wh, [0])
    _py_update(wh, [1], [-5.0])
    assert _ours(tdir) == _py_rows(wh)


def test_materialize_where_partitions(tmp_path):
    """`paimon materialize-deletions --where 'dt >= 20260801'` on a partitioned table pypaimon wrote."""
    from pypaimon import Schema
    cat = _catalog(tmp_path)
    cat.create_database("db", True)
    schema = pa.schema([("id", pa.int64()), ("name", pa.string()), ("v", pa.float64()), ("dt", pa.int32())])
    cat.create_table("db.p", Schema.from_pyarrow_schema(schema, partition_keys=["dt"], options=OPTS), False)
    t = cat.get_table("db.p")
    days = [20260731, 20260801, 20260812]
    w = t.new_batch_write_builder().new_write()
    ids = list(range(12))
    w.write_arrow(pa.table({"id": ids, "name": [f"n{i}" for i in ids], "v": [float(i) for i in ids],
                            "dt": [days[i % 3] for i in ids]}, schema=schema))
    _py_commit(t, w.prepare_commit())
    w.close()
    tdir = tmp_path / "db.db" / "p"
    cols = ("_ROW_ID", "id", "name", "v", "dt")
    rows = _py_rows(tmp_path, "p", cols)
    _py_delete(tmp_path, [r["_ROW_ID"] for r in rows if r["id"] in (0, 1, 2)], name="p")  # one per partition
    out = run_paimon("materialize-deletions", tdir, "--where", "dt >= 20260801").stdout
    assert "2 groups" in out and "2 rows removed" in out
    after = _py_rows(tmp_path, "p", cols)
    assert sorted(r["id"] for r in after) == list(range(3, 12))
    with_dv = {f["partition"] for f in _files(tdir) if f["deleted_rows"]}
    assert with_dv == {"dt=20260731"}  # the partition the predicate left out keeps its vector
    kept = {r["id"]: r["_ROW_ID"] for r in rows}
    for r in after:  # rewritten partitions got new row IDs, the other kept its own
        assert (r["_ROW_ID"] == kept[r["id"]]) == (r["dt"] == 20260731)
    assert sorted(_rows(tdir, "--columns", ",".join(cols)), key=lambda r: r["_ROW_ID"]) == after
    assert "nothing to materialize" in run_paimon("materialize-deletions", tdir, "--where",
                                                  "dt > 20260731").stdout


def _plan_exec(tdir, tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(run_paimon("compact-plan", tdir, "--option", "compaction.min.file-num=1").stdout)
    res = tmp_path / "res.json"
    res.write_text(run_paimon("compact-exec", plan, "--task", "0").stdout)
    return res


def test_delete_between_plan_and_commit_survives(pytable, tmp_path):
    wh, tdir = pytable
    res = _plan_exec(tdir, tmp_path)
    _py_delete(wh, [9])
    want = _py_rows(wh)
    run_paimon("compact-commit", tdir, res)
    assert _py_rows(wh) == want
    assert _ours(tdir) == want
    assert 9 not in {r["_ROW_ID"] for r in want}


def test_disjoint_append_commits_alongside(pytable, tmp_path):
    """An append committed between plan and commit of a compaction: both stand, the new rows keep their IDs."""
    wh, tdir = pytable
    res = _plan_exec(tdir, tmp_path)
    _py_append(wh, [40, 41])
    want = _py_rows(wh)
    run_paimon("compact-commit", tdir, res)
    assert _py_rows(wh) == want and _ours(tdir) == want
    assert {r["id"] for r in want} >= {40, 41}
    assert any(f["file_source"] == "COMPACT" for f in _files(tdir))


def test_compaction_output_does_not_roll(pytable):
    """Write-time size and row limits do not roll a task's output: with a 1-byte target each group is its own
    task, and each still becomes exactly one file over its whole range."""
    wh, tdir = pytable
    before = _py_rows(wh)
    out = json.loads(run_paimon("compact", tdir, "--option", "compaction.min.file-num=1", "--option",
                                "target-file-size=1 b", "--option", "target-file-row-num=2", "--json").stdout)
    assert out["files_removed"] == 4 and out["files_added"] == 2 and out["rows_written"] == 10
    assert sorted((f["first_row_id"], f["record_count"]) for f in _files(tdir)) == [(0, 5), (5, 5)]
    assert _py_rows(wh) == before and _ours(tdir) == before


def test_compaction_abort(pytable, tmp_path):
    """compact-abort deletes an uncommitted data-evolution result's files; the table is unchanged."""
    wh, tdir = pytable
    names = sorted(p.name for p in (tdir / "bucket-0").iterdir())
    res = _plan_exec(tdir, tmp_path)
    assert sorted(p.name for p in (tdir / "bucket-0").iterdir()) != names
    run_paimon("compact-abort", tdir, res)
    assert sorted(p.name for p in (tdir / "bucket-0").iterdir()) == names
    assert _ours(tdir) == _py_rows(wh)


def _tree(d):
    return sorted(str(p.relative_to(d)) for p in d.rglob("*") if p.is_file())


def _rewrite_manifests(tdir, fix):
    """Apply fix(entries) to the data manifests' entries (fastavro), in place."""
    import fastavro
    for m in sorted((tdir / "manifest").glob("manifest-*")):
        if m.name.startswith("manifest-list"):
            continue
        with open(m, "rb") as fh:
            r = fastavro.reader(fh)
            schema, recs, codec = r.writer_schema, list(r), r.codec
        fix(recs)
        with open(m, "wb") as fh:
            fastavro.writer(fh, schema, recs, codec=codec)


def _by_name(recs, pred):
    return [e for e in recs if pred(e["_FILE"])]


_HOSTILE = {
    # a negative first row ID
    "negative": lambda rs: [e["_FILE"].update(_FIRST_ROW_ID=-5) for e in rs[:1]],
    # a first row ID whose range overflows int64
    "overflow": lambda rs: [e["_FILE"].update(_FIRST_ROW_ID=2**63 - 3) for e in rs[:1]],
    # an update file shifted so that normal files of a group are misaligned
    "misaligned": lambda rs: [e["_FILE"].update(_FIRST_ROW_ID=2) for e in
                              _by_name(rs, lambda f: f["_WRITE_COLS"] == ["v"])[:1]],
    # a row count the file does not hold
    "row_count": lambda rs: [e["_FILE"].update(_ROW_COUNT=3) for e in
                             _by_name(rs, lambda f: f["_WRITE_COLS"] == ["v"])[:1]],
    # a file without _FIRST_ROW_ID
    "no_first_row_id": lambda rs: [e["_FILE"].update(_FIRST_ROW_ID=None) for e in rs[:1]],
}


@pytest.mark.parametrize("case", sorted(_HOSTILE))
def test_hostile_manifests(tmp_path, case):
    """Damaged data-evolution metadata: every command fails with a clear error (no crash) and changes
    nothing on disk."""
    tdir = _py_create(tmp_path)
    _py_append(tmp_path, list(range(0, 5)))
    _py_update(tmp_path, [1], [100.0])
    _py_delete(tmp_path, [2])
    _rewrite_manifests(tdir, _HOSTILE[case])
    files = _tree(tdir)
    for args, inp in [(("read", tdir), None), (("compact", tdir, "--option", "compaction.min.file-num=1"), None),
                      (("materialize-deletions", tdir), None), (("delete", tdir, "--row-ids", "3"), None),
                      (("delete", tdir, "--where", "id = 3"), None),
                      (("update", tdir, "--columns", "v"), '{"_ROW_ID":3,"v":1.0}\n')]:
        p = run_paimon(*args, input=inp, check=False)
        assert p.returncode == 1, (case, args, p.returncode, p.stdout, p.stderr)
        assert "error [E" in p.stderr, (case, args, p.stderr)
    assert _tree(tdir) == files


_HOSTILE_BLOB = {
    # a blob file outside every normal file's range
    "blob_outside": lambda rs: [e["_FILE"].update(_FIRST_ROW_ID=1000) for e in
                                _by_name(rs, lambda f: f["_FILE_NAME"].endswith(".blob"))[:1]],
    # a blob file whose row count is not what it holds
    "blob_rows": lambda rs: [e["_FILE"].update(_ROW_COUNT=e["_FILE"]["_ROW_COUNT"] - 1) for e in
                             _by_name(rs, lambda f: f["_FILE_NAME"].endswith(".blob"))[:1]],
    # a blob file listing two columns
    "blob_cols": lambda rs: [e["_FILE"].update(_WRITE_COLS=["pic", "name"]) for e in
                             _by_name(rs, lambda f: f["_FILE_NAME"].endswith(".blob"))[:1]],
}


@pytest.mark.parametrize("case", sorted(_HOSTILE_BLOB))
def test_hostile_blob_manifests(tmp_path, case):
    """Damaged blob-file metadata: read, compaction and materialization fail with a clear error, nothing
    changes on disk."""
    tdir = tmp_path / "db.db" / "b"
    run_paimon("create", tdir, "--schema", "id BIGINT, name STRING, pic BLOB",
               *sum((["--option", f"{k}={v}"] for k, v in OPTS.items()), []))
    run_paimon("write", tdir, input="".join(json.dumps({"id": i, "name": f"n{i}", "pic": "AAEC"}) + "\n"
                                            for i in range(6)))
    run_paimon("delete", tdir, "--row-ids", "2")
    _rewrite_manifests(tdir, _HOSTILE_BLOB[case])
    files = _tree(tdir)
    cmds = [("read", tdir), ("materialize-deletions", tdir)]
    if case != "blob_rows":  # compaction reads no blob file: a row count only the file contradicts is not seen
        cmds.append(("compact", tdir, "--option", "compaction.min.file-num=1"))
    for args in cmds:
        p = run_paimon(*args, check=False)
        assert p.returncode == 1 and "error [E" in p.stderr, (case, args, p.returncode, p.stderr)
    assert _tree(tdir) == files


def test_compaction_refused_before_writing(tmp_path):
    """Refused at planning, nothing written: an output over 4,294,967,296 slots with deletion vectors (a
    manifest claiming 5e9 rows), and a normal file still holding inline a field the current schema keeps
    in dedicated blob files (a schema 1 that made BYTES a BLOB)."""
    big = tmp_path / "db.db" / "big"
    run_paimon("create", big, "--schema", "id BIGINT", *sum((["--option", f"{k}={v}"] for k, v in OPTS.items()), []))
    run_paimon("write", big, input='{"id":1}\n{"id":2}\n')
    _rewrite_manifests(big, lambda rs: [e["_FILE"].update(_ROW_COUNT=5_000_000_000) for e in rs])
    files = _tree(big)
    p = run_paimon("compact", big, "--option", "compaction.min.file-num=1", check=False)
    assert p.returncode == 1 and "exceeds the 4294967296 a deletion vector can address" in p.stderr
    assert _tree(big) == files

    inl = tmp_path / "db.db" / "inl"
    run_paimon("create", inl, "--schema", "id BIGINT, pic BYTES", "--option", "bucket=-1", "--option",
               "row-tracking.enabled=true", "--option", "data-evolution.enabled=true")
    run_paimon("write", inl, input='{"id":1,"pic":"AAE="}\n')
    s = json.loads((inl / "schema" / "schema-0").read_text())
    s["id"] = 1
    s["fields"][1]["type"] = "BLOB"
    (inl / "schema" / "schema-1").write_text(json.dumps(s))
    files = _tree(inl)
    p = run_paimon("compact", inl, "--option", "compaction.min.file-num=1", check=False)
    assert p.returncode == 1 and "still holds field 'pic' inline" in p.stderr
    assert _tree(inl) == files


def test_update_into_planned_range_replans(pytable, tmp_path):
    wh, tdir = pytable
    res = _plan_exec(tdir, tmp_path)
    _py_update(wh, [4], [44.0])
    want = _py_rows(wh)
    snaps = run_paimon("snapshots", tdir).stdout
    p = run_paimon("compact-commit", tdir, res, check=False)
    assert p.returncode == 1 and "replan" in p.stderr
    assert run_paimon("snapshots", tdir).stdout == snaps
    assert _ours(tdir) == want


def test_split_large_files(tmp_path):
    tdir = _py_create(tmp_path, **{"data-evolution.compaction.split-large-files": "true",
                                   "data-evolution.compaction.large-file-ratio": "1.5"})
    _py_append(tmp_path, list(range(3000)))
    _py_update(tmp_path, [5, 2500], [-5.0, -2500.0])
    _py_delete(tmp_path, [7, 2999])
    before = _py_rows(tmp_path)
    assert len(_files(tdir)) == 2                     # one normal file and its update
    # a smaller target for this run: the file is now "large" and split
    run_paimon("compact", tdir, "--option", "target-file-size=8 kb", "--option", "source.split.open-file-cost=1 b")
    files = sorted(_files(tdir), key=lambda f: f["first_row_id"])
    assert len(files) > 1
    nxt = 0
    for f in files:                                   # contiguous ranges, row IDs kept
        assert f["first_row_id"] == nxt
        nxt += f["record_count"]
    assert nxt == 3000
    assert sum(f["deleted_rows"] for f in files) == 2
    assert _py_rows(tmp_path) == before
    assert _ours(tdir) == before


@pytest.mark.parametrize("ratio", ["0.5", "0.999", "NaN", "inf", "-2", "abc"])
def test_large_file_ratio_refused(tmp_path, ratio):
    """large-file-ratio must be finite and >= 1.0 (fractional allowed): refused at create and as a dynamic
    option of a compaction, nothing written."""
    key = "data-evolution.compaction.large-file-ratio"
    base = ["--schema", "id BIGINT", "--option", "bucket=-1", "--option", "row-tracking.enabled=true",
            "--option", "data-evolution.enabled=true"]
    p = run_paimon("create", tmp_path / "db.db" / "bad", *base, "--option", f"{key}={ratio}", check=False)
    assert p.returncode == 2 and key in p.stderr  # create: a bad option is a usage error
    assert not (tmp_path / "db.db" / "bad" / "schema").exists()
    ok = tmp_path / "db.db" / "ok"
    run_paimon("create", ok, *base, "--option", f"{key}=1.5")
    run_paimon("write", ok, input='{"id":1}\n')
    files = _tree(ok)
    p = run_paimon("compact", ok, "--option", f"{key}={ratio}", "--option", "compaction.min.file-num=1",
                   check=False)
    assert p.returncode != 0 and key in p.stderr
    assert _tree(ok) == files


# ---------------------------------------------------------------------------
# BLOB columns: our writes in dedicated .blob files, read by pypaimon

BLOB_SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("pic", pa.large_binary()), ("dt", pa.string())])


def _blob_value(i):
    return None if i % 7 == 3 else bytes((i + k) % 251 for k in range(i % 50))


def _py_blob_rows(wh, name):
    rb = _py_table(wh, name).new_read_builder().with_projection(["_ROW_ID", "id", "name", "pic", "dt"])
    return sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist(), key=lambda r: r["_ROW_ID"])


def _our_blob_rows(table):
    rows = _rows(table, "--columns", "_ROW_ID,id,name,pic,dt")
    for r in rows:
        r["pic"] = None if r["pic"] is None else base64.b64decode(r["pic"])
    return sorted(rows, key=lambda r: r["_ROW_ID"])


def test_blob_writes_read_by_pypaimon(tmp_path):
    from pypaimon import Schema
    cat = _catalog(tmp_path)
    cat.create_database("db", True)
    opts = {"bucket": "-1", "row-tracking.enabled": "true", "data-evolution.enabled": "true",
            "write-only": "true", "target-file-size": "1 b", "blob.target-file-size": "2 kb"}
    cat.create_table("db.blob", Schema.from_pyarrow_schema(BLOB_SCHEMA, partition_keys=["dt"], options=opts), False)
    tdir = tmp_path / "db.db" / "blob"
    n = 2500
    lines = "".join(json.dumps({"id": i, "name": f"n{i}", "dt": "a" if i < 2200 else "b",
                                "pic": None if _blob_value(i) is None else base64.b64encode(_blob_value(i)).decode()})
                    + "\n" for i in range(n))
    out = run_paimon("write", tdir, input=lines).stdout
    assert f": {n} rows in" in out
    files = _files(tdir)
    normal = [f for f in files if not f["file_name"].endswith(".blob")]
    blobs = [f for f in files if f["file_name"].endswith(".blob")]
    assert len(normal) == 4 and len(blobs) > len(normal)   # a: rolls at 1000 and 2000 rows; b: one file
    for b in blobs:                                          # each blob file inside one normal file's range
        assert b["write_cols"] == ["pic"]
        assert any(f["partition"] == b["partition"] and f["first_row_id"] <= b["first_row_id"] and
                   b["first_row_id"] + b["record_count"] <= f["first_row_id"] + f["record_count"] for f in normal)
    want = [{"id": i, "name": f"n{i}", "pic": _blob_value(i), "dt": "a" if i < 2200 else "b"} for i in range(n)]
    got = _py_blob_rows(tmp_path, "blob")
    assert sorted(({k: r[k] for k in ("id", "name", "pic", "dt")} for r in got), key=lambda r: r["id"]) == want
    assert _our_blob_rows(tdir) == got
    # pypaimon appends, we read; our compaction keeps the blob files; an update by row ID
    t = _py_table(tmp_path, "blob")
    w = t.new_batch_write_builder().new_write()
    w.write_arrow(pa.table({"id": [9000, 9001], "name": ["p", None], "pic": [b"\x00py", None], "dt": ["b", "b"]},
                           schema=BLOB_SCHEMA))
    _py_commit(t, w.prepare_commit())
    w.close()
    assert _our_blob_rows(tdir) == _py_blob_rows(tmp_path, "blob")
    run_paimon("compact", tdir, "--option", "compaction.min.file-num=1", "--option", "target-file-size=128 mb")
    after = _files(tdir)
    assert len([f for f in after if not f["file_name"].endswith(".blob")]) == 2   # one normal file per partition
    assert {f["file_name"] for f in blobs} <= {f["file_name"] for f in after}    # blob files are not rewritten
    before = _py_blob_rows(tmp_path, "blob")
    assert _our_blob_rows(tdir) == before
    rid = next(r["_ROW_ID"] for r in before if r["id"] == 2300)
    run_paimon("update", tdir, "--columns", "name", input=json.dumps({"_ROW_ID": rid, "name": "upd"}) + "\n")
    now = _py_blob_rows(tmp_path, "blob")
    assert {r["_ROW_ID"]: r["name"] for r in now}[rid] == "upd"
    assert {r["_ROW_ID"]: r["pic"] for r in now}[rid] == _blob_value(2300)
    assert _our_blob_rows(tdir) == now


def test_materialize_blob_groups(tmp_path):
    """Materialization rewrites groups with .blob files too (only vector files are refused): pypaimon wrote
    the table and deleted rows; after it the survivors keep their blobs under new row IDs."""
    from pypaimon import Schema
    cat = _catalog(tmp_path)
    cat.create_database("db", True)
    opts = {"bucket": "-1", "row-tracking.enabled": "true", "data-evolution.enabled": "true",
            "deletion-vectors.enabled": "true", "write-only": "true", "blob.target-file-size": "1 kb"}
    cat.create_table("db.mb", Schema.from_pyarrow_schema(BLOB_SCHEMA, partition_keys=["dt"], options=opts), False)
    tdir = tmp_path / "db.db" / "mb"
    t = _py_table(tmp_path, "mb")
    for part in (range(0, 300), range(300, 400)):
        w = t.new_batch_write_builder().new_write()
        w.write_arrow(pa.table({"id": list(part), "name": [f"n{i}" for i in part],
                                "pic": [_blob_value(i) for i in part], "dt": ["a" if i < 350 else "b" for i in part]},
                               schema=BLOB_SCHEMA))
        _py_commit(t, w.prepare_commit())
        w.close()
    before = _py_blob_rows(tmp_path, "mb")
    old_blobs = {f["file_name"] for f in _files(tdir) if f["file_name"].endswith(".blob")}
    assert old_blobs
    gone = {r["_ROW_ID"] for r in before if r["id"] % 9 == 4}
    _py_delete(tmp_path, sorted(gone), name="mb")
    out = run_paimon("materialize-deletions", tdir).stdout
    assert "%d rows removed" % len(gone) in out
    after = _py_blob_rows(tmp_path, "mb")
    strip = lambda rs: sorted(({k: r[k] for k in ("id", "name", "pic", "dt")} for r in rs),  # noqa: E731
                              key=lambda r: r["id"])
    assert strip(after) == strip(r for r in before if r["_ROW_ID"] not in gone)
    assert min(r["_ROW_ID"] for r in after) >= 400 and len({r["_ROW_ID"] for r in after}) == len(after)
    files = _files(tdir)
    assert all(f["deleted_rows"] == 0 for f in files)
    new_blobs = [f for f in files if f["file_name"].endswith(".blob")]
    assert new_blobs and not old_blobs & {f["file_name"] for f in new_blobs}
    normal = [f for f in files if not f["file_name"].endswith(".blob")]
    for b in new_blobs:  # each blob file inside one normal file's range, as pypaimon and Java write them
        assert any(f["partition"] == b["partition"] and f["first_row_id"] <= b["first_row_id"] and
                   b["first_row_id"] + b["record_count"] <= f["first_row_id"] + f["record_count"] for f in normal)
    assert _our_blob_rows(tdir) == after
    # pypaimon keeps appending and deleting
    w = t.new_batch_write_builder().new_write()
    w.write_arrow(pa.table({"id": [9000], "name": ["p"], "pic": [b"\x01"], "dt": ["b"]}, schema=BLOB_SCHEMA))
    _py_commit(_py_table(tmp_path, "mb"), w.prepare_commit())
    w.close()
    _py_delete(tmp_path, [after[0]["_ROW_ID"]], name="mb")
    assert _our_blob_rows(tdir) == _py_blob_rows(tmp_path, "mb")


# ---------------------------------------------------------------------------
# seeded model test

@pytest.mark.parametrize("seed,automatic", [(1, False), (2, False), (3, False), (4, True), (5, True), (6, True)])
def test_model(tmp_path, seed, automatic):
    """automatic: write-only=false, so `paimon write` and `paimon update`
    run the automatic compaction round after their commits."""
    rnd = random.Random(seed)
    extra = {"write-only": "false", "compaction.min.file-num": "2"} if automatic else {}
    tdir = _py_create(tmp_path, **extra)
    model = {}          # row id → [id, name, v, deleted]
    next_id = 0
    next_row = 0
    rounds = 0          # automatic compaction rounds the writes reported
    for step in range(14):
        live = [r for r, x in model.items() if not x[3]]
        op = rnd.choice(["append", "append", "update", "delete", "compact", "materialize"]) if model else "append"
        if op == "append":
            n = rnd.randint(1, 6)
            rows = "".join(json.dumps({"id": next_id + i, "name": f"n{next_id + i}", "v": float(i)}) + "\n"
                           for i in range(n))
            rounds += "compacted" in run_paimon("write", tdir, input=rows).stdout
            for i in range(n):
                model[next_row + i] = [next_id + i, f"n{next_id + i}", float(i), False]
            next_id += n
            next_row += n
        elif op == "update" and live:
            pick = rnd.sample(live, min(len(live), rnd.randint(1, 3)))
            vals = {r: round(rnd.uniform(-100, 100), 3) for r in pick}
            rounds += "compacted" in run_paimon(
                "update", tdir, "--columns", "v",
                input="".join(json.dumps({"_ROW_ID": r, "v": v}) + "\n" for r, v in vals.items())).stdout
            for r, v in vals.items():
                model[r][2] = v
        elif op == "delete" and live:
            pick = rnd.sample(live, min(len(live), rnd.randint(1, 2)))
            run_paimon("delete", tdir, "--row-ids", ",".join(map(str, pick)))
            for r in pick:
                model[r][3] = True
        elif op == "compact":
            run_paimon("compact", tdir, "--option", f"compaction.min.file-num={rnd.choice([1, 2])}")
        elif op == "materialize":
            run_paimon("materialize-deletions", tdir)
            survivors = sorted((r, x) for r, x in model.items() if not x[3])
            dead = any(x[3] for x in model.values())
            if dead:
                # survivors of rewritten groups get new IDs: compare by values from here on
                model = {}
                got = _ours(tdir)
                assert sorted((g["id"], g["name"], g["v"]) for g in got) == sorted(
                    (x[0], x[1], x[2]) for _, x in survivors)
                for g in got:
                    model[g["_ROW_ID"]] = [g["id"], g["name"], g["v"], False]
                next_row = max([next_row] + [g["_ROW_ID"] + 1 for g in got])
        want = sorted([{"_ROW_ID": r, "id": x[0], "name": x[1], "v": x[2]} for r, x in model.items() if not x[3]],
                      key=lambda r: r["_ROW_ID"])
        assert _ours(tdir) == want, f"step {step} ({op})"
        assert _py_rows(tmp_path) == want, f"step {step} ({op}), pypaimon"
    assert (rounds > 0) == automatic
