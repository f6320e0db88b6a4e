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
    ("append_table_row_tracking_with_compact", 2): [(0, 1), (1, 1), (2, 2), (3, 2)],
}


@pytest.mark.parametrize("table,snapshot", sorted(_README_RT))
def test_fixture_row_tracking_columns(table, snapshot):
    got = _rows(PARQUET / f"{table}.db" / table, "--snapshot", str(snapshot), "--columns",
                "_ROW_ID,_SEQUENCE_NUMBER")
    assert sorted((r["_ROW_ID"], r["_SEQUENCE_NUMBER"]) for r in got) == _README_RT[(table, snapshot)]


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
# pypaimon writes, we compact, pypaimon reads

@pytest.fixture
def pytable(tmp_path):
    tdir = _py_create(tmp_path)
    _py_append(tmp_path, list(range(0, 5)))
    _py_append(tmp_path, list(range(10, 15)))
    _py_update(tmp_path, [1, 6], [100.0, 600.0])
    _py_delete(tmp_path, [2, 7])
    return tmp_path, tdir


def test_pypaimon_tables_compact(pytable):
    wh, tdir = pytable
    before = _py_rows(wh)
    assert [r["_ROW_ID"] for r in before] == [0, 1, 3, 4, 5, 6, 8, 9]
    assert _ours(tdir) == before
    out = json.loads(run_paimon("compact", tdir, "--option", "compaction.min.file-num=1", "--json").stdout)
    assert out["files_removed"] == 4 and out["files_added"] == 1 and out["rows_written"] == 10
    assert _py_rows(wh) == before
    assert _ours(tdir) == before
    files = _files(tdir)
    assert len(files) == 1 and files[0]["first_row_id"] == 0 and files[0]["record_count"] == 10
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


def test_materialize_usage_and_refusals(tmp_path):
    tdir = _py_create(tmp_path)
    p = run_paimon("materialize-deletions", tdir, "--partition", "a=1", "--where", "a >= 1", check=False)
    assert p.returncode == 2 and "exclusive" in p.stderr
    nodv = _py_create(tmp_path, "nodv", **{"deletion-vectors.enabled": "false"})
    p = run_paimon("materialize-deletions", nodv, check=False)
    assert p.returncode == 1 and "deletion-vectors.enabled=true" in p.stderr
    p = run_paimon("compact", nodv, "--option", "data-evolution.compaction.rewrite-row-ids=true", check=False)
    assert p.returncode == 1 and "materialize-deletions" in p.stderr


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


# ---------------------------------------------------------------------------
# seeded model test

@pytest.mark.parametrize("seed", [1, 2, 3])
def test_model(tmp_path, seed):
    rnd = random.Random(seed)
    tdir = _py_create(tmp_path)
    model = {}          # row id → [id, name, v, deleted]
    next_id = 0
    next_row = 0
    for step in range(14):
        live = [r for r, x in model.items() if not x[3]]
        op = rnd.choice(["append", "append", "update", "delete", "compact", "materialize"]) if model else "append"
        if op == "append":
            n = rnd.randint(1, 6)
            rows = "".join(json.dumps({"id": next_id + i, "name": f"n{next_id + i}", "v": float(i)}) + "\n"
                           for i in range(n))
            run_paimon("write", tdir, input=rows)
            for i in range(n):
                model[next_row + i] = [next_id + i, f"n{next_id + i}", float(i), False]
            next_id += n
            next_row += n
        elif op == "update" and live:
            pick = rnd.sample(live, min(len(live), rnd.randint(1, 3)))
            vals = {r: round(rnd.uniform(-100, 100), 3) for r in pick}
            run_paimon("update", tdir, "--columns", "v",
                       input="".join(json.dumps({"_ROW_ID": r, "v": v}) + "\n" for r, v in vals.items()))
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
