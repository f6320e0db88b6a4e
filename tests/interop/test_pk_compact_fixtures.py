"""Compaction of Java-written primary-key fixtures.

Where a fixture has a Java `Compact` snapshot N+1, a copy rolled back to
snapshot N is compacted by `paimon compact` and must give the same logical
rows as Java's snapshot N+1 (our reader and pypaimon where it can read the
table) and the same file shape per bucket (level, rows, sequence range;
upgraded files keep their names).  Fixtures whose compaction needs
deletion vectors (pk_09, pk_table_scan_and_read_dv, pk_table_with_alter_table)
compact like Java too: same rows, levels and deleted-row counts.  pk_table_with_mor (sequence.field, schema
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
    """A copy of the fixture whose latest snapshot is `snapshot` (schemas
    added after it removed too, as a rollback leaves the table)."""
    dst = tmp_path / f"{name}.db" / name
    shutil.copytree(fixture(name), dst)
    sdir = dst / "snapshot"
    schema_id = json.loads((sdir / f"snapshot-{snapshot}").read_text())["schemaId"]
    for p in sdir.glob("snapshot-*"):
        if int(p.name[9:]) > snapshot:
            p.unlink()
    (sdir / "LATEST").write_text(str(snapshot))
    for p in (dst / "schema").glob("schema-*"):
        if int(p.name[7:]) > schema_id:
            p.unlink()
    return dst


def rows(path, snapshot=None):
    args = ["read", path] + (["--snapshot", snapshot] if snapshot else [])
    return sorted(json.dumps(json.loads(line), sort_keys=True)
                  for line in run_paimon(*args).stdout.splitlines() if line.strip())


def shape(path, snapshot=None, with_dv=False):
    """Per bucket: (level, rows, min seq, max seq, delete rows[, rows deleted
    by the deletion vector])."""
    args = ["files", path, "--json"] + (["--snapshot", snapshot] if snapshot else [])
    out = {}
    for f in json.loads(run_paimon(*args).stdout):
        item = (f["level"], f["record_count"], f["min_sequence_number"], f["max_sequence_number"],
                f["delete_row_count"])
        if with_dv:
            item += (f["deleted_rows"],)
        out.setdefault((f["partition"], f["bucket"]), []).append(item)
    return {k: sorted(v, key=str) for k, v in out.items()}


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


DV_COMPACTIONS = [("pk_table_scan_and_read_dv", 1), ("pk_table_scan_and_read_dv", 3),
                  ("pk_09", 1), ("pk_09", 3), ("pk_09", 5), ("pk_09", 7),
                  ("pk_table_with_alter_table", 1), ("pk_table_with_alter_table", 3),
                  ("pk_table_with_alter_table", 5)]


def dv_known(path, snapshot=None):
    """Whether every live file's deletion-vector cardinality is recorded
    (Paimon 0.9 wrote none)."""
    args = ["files", path, "--json"] + (["--snapshot", snapshot] if snapshot else [])
    return all(isinstance(f["deleted_rows"], int) for f in json.loads(run_paimon(*args).stdout))


@pytest.mark.parametrize("name,before", DV_COMPACTIONS)
def test_deletion_vector_compaction_like_java(tmp_path, name, before):
    """Deletion-vector tables: compacting snapshot N (ForceUpLevel0, lookup
    of the retained levels, replaced rows marked in their files' vectors)
    gives Java's Compact snapshot N+1: the same rows, levels, sequence
    ranges and, where Java recorded them, deleted-row counts."""
    src = fixture(name)
    copy = rolled_back_copy(tmp_path, name, before)
    run_paimon("compact", copy)
    after = str(before + 1)
    assert rows(copy) == rows(src, after)
    with_dv = dv_known(src, after)
    assert shape(copy, with_dv=with_dv) == shape(src, after, with_dv=with_dv)
    # files Java upgraded we upgraded too
    assert names(src, after) & names(src, str(before)) <= names(copy)
    # every snapshot of the copy still reads; our compaction is final
    assert "nothing to compact" in run_paimon("compact", copy).stdout


def test_deletion_vector_compaction_pypaimon_reads(tmp_path):
    name = "pk_table_scan_and_read_dv"
    copy = rolled_back_copy(tmp_path, name, 3)
    run_paimon("compact", copy)
    from table_read_oracle import canon_our_rows, canon_table, multiset, pypaimon_read
    arrow = pypaimon_read(tmp_path, name, name)
    ours = [json.loads(r) for r in rows(copy)]
    assert multiset(canon_table(arrow)) == multiset(canon_our_rows(ours, arrow.schema))
    # full compaction applies the vectors: every file rewritten at the max
    # level without deleted rows
    run_paimon("compact", copy, "--full")
    assert rows(copy) == sorted(json.dumps(r, sort_keys=True) for r in ours)
    for f in json.loads(run_paimon("files", copy, "--json").stdout):
        assert f["level"] == 5 and f["deleted_rows"] == 0, f


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
