"""Compaction of Java-written primary-key fixtures.

Where a fixture has a Java `Compact` snapshot N+1, a copy rolled back to
snapshot N is compacted by `paimon compact` and must give the same logical
rows as Java's snapshot N+1 (our reader and pypaimon where it can read the
table) and the same file shape per bucket (level, rows, sequence range;
upgraded files keep their names).  Fixtures whose compaction needs
deletion-vector maintenance get a clear PM_EUNSUPPORTED naming it, and the
table is left untouched.  pk_table_with_mor (sequence.field, schema
evolution, no Java compaction) compacts to the same rows.
"""
import json
import shutil

import pytest

from conftest import FIXTURES, run_paimon

PARQUET = FIXTURES / "java-written" / "parquet"


def fixture(name):
    return PARQUET / f"{name}.db" / name


def rolled_back_copy(tmp_path, name, snapshot):
    """A copy of the fixture whose latest snapshot is `snapshot`."""
    dst = tmp_path / f"{name}.db" / name
    shutil.copytree(fixture(name), dst)
    sdir = dst / "snapshot"
    for p in sdir.glob("snapshot-*"):
        if int(p.name[9:]) > snapshot:
            p.unlink()
    (sdir / "LATEST").write_text(str(snapshot))
    return dst


def rows(path, snapshot=None):
    args = ["read", path] + (["--snapshot", snapshot] if snapshot else [])
    return sorted(json.dumps(json.loads(line), sort_keys=True)
                  for line in run_paimon(*args).stdout.splitlines() if line.strip())


def shape(path, snapshot=None):
    args = ["files", path, "--json"] + (["--snapshot", snapshot] if snapshot else [])
    out = {}
    for f in json.loads(run_paimon(*args).stdout):
        out.setdefault((f["partition"], f["bucket"]), []).append(
            (f["level"], f["record_count"], f["min_sequence_number"], f["max_sequence_number"]))
    return {k: sorted(v) for k, v in out.items()}


def names(path, snapshot=None):
    args = ["files", path, "--json"] + (["--snapshot", snapshot] if snapshot else [])
    return {f["file_name"] for f in json.loads(run_paimon(*args).stdout)}


def test_first_row_compact_like_java(tmp_path):
    name = "pk_table_scan_and_read_first_row"
    src = fixture(name)
    copy = rolled_back_copy(tmp_path, name, 2)
    assert rows(copy) == rows(src, 2)
    run_paimon("compact", copy)
    # the same logical rows and file shape as Java's Compact snapshot 3
    assert rows(copy) == rows(src, 3)
    assert shape(copy) == shape(src, 3)
    # the files Java upgraded (same name at the max level) we upgraded too
    upgraded_java = names(src, 3) & names(src, 2)
    assert upgraded_java and upgraded_java <= names(copy)
    # pypaimon reads our compaction as we do
    from table_read_oracle import canon_our_rows, canon_table, multiset, pypaimon_read
    arrow = pypaimon_read(tmp_path, name, name)
    ours = [json.loads(r) for r in rows(copy)]
    assert multiset(canon_table(arrow)) == multiset(canon_our_rows(ours, arrow.schema))
    # explicit compaction again: nothing left to do; --full neither
    assert "nothing to compact" in run_paimon("compact", copy).stdout
    assert "nothing to compact" in run_paimon("compact", copy, "--full").stdout


@pytest.mark.parametrize("name,before", [("pk_09", 1), ("pk_table_scan_and_read_dv", 1),
                                         ("pk_table_with_alter_table", 4)])
def test_deletion_vector_fixtures_unsupported(tmp_path, name, before):
    copy = rolled_back_copy(tmp_path, name, before)
    snaps = sorted(p.name for p in (copy / "snapshot").iterdir())
    res = run_paimon("compact", copy, check=False)
    assert res.returncode == 1
    assert "EUNSUPPORTED" in res.stderr and "deletion-vectors.enabled" in res.stderr
    assert sorted(p.name for p in (copy / "snapshot").iterdir()) == snaps  # nothing published
    assert rows(copy, before) == rows(fixture(name), before)


def test_mor_fixture_compacts_to_same_rows(tmp_path):
    name = "pk_table_with_mor"
    dst = tmp_path / f"{name}.db" / name
    shutil.copytree(fixture(name), dst)
    want = rows(dst)
    before = shape(dst)
    assert any(lvl == 0 for v in before.values() for (lvl, *_rest) in v)
    run_paimon("compact", dst)
    assert rows(dst) == want
    after = shape(dst)
    for k, v in after.items():
        assert {lvl for (lvl, *_rest) in v} == {5}, (k, v)
    run_paimon("compact", dst, "--full")
    assert rows(dst) == want
