"""Every Java-written fixture table, read by `paimon read` at every snapshot
(`--snapshot N`) and at the latest state, compared as a multiset of rows
with an oracle:

- pypaimon reading the same table at the same snapshot (time travel with
  `scan.snapshot-id`, which also selects that snapshot's schema);
- where pypaimon cannot read a table, the rows its README gives (or that
  follow from Java's rules the README names), written out below;
- for primary-key tables pypaimon cannot open (Paimon 0.9 manifests,
  external data paths), an independent raw reader (fastavro manifests,
  pyarrow files, pyroaring deletion vectors; table_read_oracle.py).

Data-evolution tables are merged by row-ID range (table/de_read.h) and
compared with pypaimon where it reads them right (data_evolution_with_index)
and with the rows their READMEs give where pypaimon cannot (it maps
_WRITE_COLS names through the latest schema, so the renamed columns of
the two *_alter_table_with_cast_with_data_evolution tables come out null,
and it does not find the renamed blob column): the fixture wins.  Snapshot
2 of the blob table fails as Java fails it (its BLOB NOT NULL column has no
file for row IDs 5-9).  The tables with ORC manifests are compared with
Java in test_table_formats.py.

Fixtures are copied to a temporary warehouse first.  The two external-path
tables point at FILE:/tmp/external, and their files ship beside the table
(`<db>/external`): in the copies the manifests' `_EXTERNAL_PATH` values are
rewritten (fastavro) to that folder, and so is the schemas'
`data-file.external-paths` root (external files must lie under it), so the
test needs no global path.
"""
import json
import os
import shutil

import pytest

from conftest import FIXTURES, run_paimon
from table_read_oracle import (canon_our_rows, canon_table, multiset, pypaimon_read, raw_read,
                               relocate_external)

os.environ["TZ"] = "UTC"  # casts involving TIMESTAMP WITH LOCAL TIME ZONE use the process zone, as Java

PARQUET = FIXTURES / "java-written" / "parquet"
AVRO = FIXTURES / "java-written" / "avro-format"

DATA_EVOLUTION = {
    "append_table_alter_table_with_cast_with_data_evolution",
    "blob_append_table_alter_table_with_cast_with_data_evolution",
    "data_evolution_with_index",
}

# (table, snapshot or None for latest) that must fail because a merge is
# needed: none since merge-on-read exists (table/pk_read.h); primary-key
# buckets with overlapping files are compared with pypaimon like the rest
MERGE_NEEDED = set()

# other expected errors: Java fails the same way (FallbackReadFileStoreTable
# time-travels the fallback branch to its snapshot at that time, whose schema
# lacks the column main added afterwards)
OTHER_ERRORS = {
    ("append_table_with_append_pt_branch", 2): "do not have the same row type",
    # data evolution: snapshot 2 has no file holding the BLOB NOT NULL column f5 for row IDs 5-9 (Java:
    # "Required column is missing")
    ("blob_append_table_alter_table_with_cast_with_data_evolution", 2): "is NOT NULL but no file of row IDs [5, 9]",
}

# tables pypaimon cannot read: raw oracle (no schema evolution in these)
RAW = {"pk_09", "pk_dv_index_in_data_with_external", "pk_dv_index_not_in_data_with_external"}

# rows written out from the READMEs (our JSON encoding)
_CAST = [
    '{"f4":"1970-01-05T00:00:00.000000000","key0":0,"key1":1,"f3":100,"f1":"2024-11-26 06:38:56.001000001","f2":"0.020","f0":true,"f6":null}',
    '{"f4":"1969-11-18T00:00:00.000000000","key0":0,"key1":1,"f3":110,"f1":"2024-11-26 06:38:56.011000011","f2":"11.120","f0":true,"f6":null}',
    '{"f4":"1971-03-21T00:00:00.000000000","key0":0,"key1":1,"f3":120,"f1":"2024-11-26 06:38:56.021000021","f2":"22.220","f0":false,"f6":null}',
    '{"f4":"2024-11-26T06:38:56.054000054","key0":0,"key1":1,"f3":150,"f1":"2024-11-26 15:28:31","f2":"55.002","f0":true,"f6":56}',
    '{"f4":"2024-11-26T06:38:56.064000064","key0":0,"key1":1,"f3":160,"f1":"2024-11-26 15:28:41","f2":"666.012","f0":false,"f6":66}',
    '{"f4":"2024-11-26T06:38:56.074000074","key0":0,"key1":1,"f3":170,"f1":"2024-11-26 15:28:51","f2":"-77.022","f0":true,"f6":76}',
    '{"f4":"1957-11-01T00:00:00.000000000","key0":1,"key1":1,"f3":130,"f1":"2024-11-26 06:38:56.031000031","f2":"333.320","f0":false,"f6":null}',
    '{"f4":"2091-09-07T00:00:00.000000000","key0":1,"key1":1,"f3":140,"f1":"2024-11-26 06:38:56.041000041","f2":"444.420","f0":true,"f6":null}',
    '{"f4":"2024-11-26T06:38:56.084000084","key0":1,"key1":1,"f3":180,"f1":"2024-11-26 15:29:01","f2":"8.032","f0":true,"f6":-86}',
    '{"f4":"2024-11-26T06:38:56.094000094","key0":1,"key1":1,"f3":190,"f1":"I\'m strange","f2":"-999.420","f0":false,"f6":96}',
]
# the data-evolution fixtures, from their READMEs (columns merged by row ID,
# by field id through each file's schema: renames and casts apply)
_DE_CAST_1 = [
    "{\"key0\":0,\"key1\":1,\"f0\":\"100\",\"f1\":\"2024-11-26T06:38:56.001000001\",\"f2\":\"0.02\",\"f3\":\"True\",\"f4\":\"1970-01-05\",\"f5\":5}",
    "{\"key0\":0,\"key1\":1,\"f0\":\"110\",\"f1\":\"2024-11-26T06:38:56.011000011\",\"f2\":\"11.12\",\"f3\":\"1\",\"f4\":\"1969-11-18\",\"f5\":25}",
    "{\"key0\":0,\"key1\":1,\"f0\":\"120\",\"f1\":\"2024-11-26T06:38:56.021000021\",\"f2\":\"22.22\",\"f3\":\"nO\",\"f4\":\"1971-03-21\",\"f5\":35}",
    "{\"key0\":0,\"key1\":1,\"f0\":\"130\",\"f1\":\"2024-11-26T06:38:56.031000031\",\"f2\":\"333.32\",\"f3\":\"0\",\"f4\":\"1957-11-01\",\"f5\":45}",
    "{\"key0\":0,\"key1\":1,\"f0\":\"140\",\"f1\":\"2024-11-26T06:38:56.041000041\",\"f2\":\"444.42\",\"f3\":\"Yes\",\"f4\":\"2091-09-07\",\"f5\":55}",
]
_DE_CAST = [
    "{\"f4\":\"1970-01-05T00:00:00.000000000\",\"key0\":0,\"key1\":1,\"f3\":100,\"f1\":\"2024-11-26 06:38:56.001000001\",\"f2\":\"0.020\",\"f0\":true,\"f6\":null}",
    "{\"f4\":\"1969-11-18T00:00:00.000000000\",\"key0\":0,\"key1\":1,\"f3\":110,\"f1\":\"2024-11-26 06:38:56.011000011\",\"f2\":\"11.120\",\"f0\":true,\"f6\":null}",
    "{\"f4\":\"1971-03-21T00:00:00.000000000\",\"key0\":0,\"key1\":1,\"f3\":120,\"f1\":\"2024-11-26 06:38:56.021000021\",\"f2\":\"22.220\",\"f0\":false,\"f6\":null}",
    "{\"f4\":\"1957-11-01T00:00:00.000000000\",\"key0\":0,\"key1\":1,\"f3\":130,\"f1\":\"2024-11-26 06:38:56.031000031\",\"f2\":\"333.320\",\"f0\":false,\"f6\":null}",
    "{\"f4\":\"2091-09-07T00:00:00.000000000\",\"key0\":0,\"key1\":1,\"f3\":140,\"f1\":\"2024-11-26 06:38:56.041000041\",\"f2\":\"444.420\",\"f0\":true,\"f6\":null}",
    "{\"f4\":\"2024-11-26T06:38:56.054000154\",\"key0\":0,\"key1\":1,\"f3\":150,\"f1\":\"2024-11-26 15:28:31\",\"f2\":\"55.002\",\"f0\":true,\"f6\":56}",
    "{\"f4\":\"2024-11-26T06:38:56.064000164\",\"key0\":0,\"key1\":1,\"f3\":160,\"f1\":\"2024-11-26 15:28:41\",\"f2\":\"666.012\",\"f0\":false,\"f6\":66}",
    "{\"f4\":\"2024-11-26T06:38:56.074000174\",\"key0\":0,\"key1\":1,\"f3\":170,\"f1\":\"2024-11-26 15:28:51\",\"f2\":\"-77.022\",\"f0\":true,\"f6\":76}",
    "{\"f4\":\"2024-11-26T06:38:56.084000184\",\"key0\":0,\"key1\":1,\"f3\":180,\"f1\":\"2024-11-26 15:29:01\",\"f2\":\"8.032\",\"f0\":true,\"f6\":-86}",
    "{\"f4\":\"2024-11-26T06:38:56.094000194\",\"key0\":0,\"key1\":1,\"f3\":190,\"f1\":\"I'm strange\",\"f2\":\"-999.420\",\"f0\":false,\"f6\":96}",
]
_DE_BLOB_1 = [
    "{\"key0\":0,\"key1\":1,\"f0\":\"100\",\"f1\":\"2024-11-26T06:38:56.001000001\",\"f2\":\"0.02\",\"f3\":\"True\",\"f4\":\"1970-01-05\",\"f5\":5,\"blob\":\"TGlseQ==\"}",
    "{\"key0\":0,\"key1\":1,\"f0\":\"110\",\"f1\":\"2024-11-26T06:38:56.011000011\",\"f2\":\"11.12\",\"f3\":\"1\",\"f4\":\"1969-11-18\",\"f5\":25,\"blob\":\"QWxpY2U=\"}",
    "{\"key0\":0,\"key1\":1,\"f0\":\"120\",\"f1\":\"2024-11-26T06:38:56.021000021\",\"f2\":\"22.22\",\"f3\":\"nO\",\"f4\":\"1971-03-21\",\"f5\":35,\"blob\":\"Qm9i\"}",
    "{\"key0\":0,\"key1\":1,\"f0\":\"130\",\"f1\":\"2024-11-26T06:38:56.031000031\",\"f2\":\"333.32\",\"f3\":\"0\",\"f4\":\"1957-11-01\",\"f5\":45,\"blob\":\"Q2luZHk=\"}",
    "{\"key0\":0,\"key1\":1,\"f0\":\"140\",\"f1\":\"2024-11-26T06:38:56.041000041\",\"f2\":\"444.42\",\"f3\":\"Yes\",\"f4\":\"2091-09-07\",\"f5\":55,\"blob\":\"RGF2ZQ==\"}",
]
_DE_BLOB = [
    "{\"f4\":\"1970-01-05T00:00:00.000000000\",\"key0\":0,\"key1\":1,\"f3\":100,\"f1\":\"2024-11-26 06:38:56.001000001\",\"f2\":\"0.020\",\"f5\":\"TGlseQ==\",\"f0\":true,\"f6\":null}",
    "{\"f4\":\"1969-11-18T00:00:00.000000000\",\"key0\":0,\"key1\":1,\"f3\":110,\"f1\":\"2024-11-26 06:38:56.011000011\",\"f2\":\"11.120\",\"f5\":\"QWxpY2U=\",\"f0\":true,\"f6\":null}",
    "{\"f4\":\"1971-03-21T00:00:00.000000000\",\"key0\":0,\"key1\":1,\"f3\":120,\"f1\":\"2024-11-26 06:38:56.021000021\",\"f2\":\"22.220\",\"f5\":\"Qm9i\",\"f0\":false,\"f6\":null}",
    "{\"f4\":\"1957-11-01T00:00:00.000000000\",\"key0\":0,\"key1\":1,\"f3\":130,\"f1\":\"2024-11-26 06:38:56.031000031\",\"f2\":\"333.320\",\"f5\":\"Q2luZHk=\",\"f0\":false,\"f6\":null}",
    "{\"f4\":\"2091-09-07T00:00:00.000000000\",\"key0\":0,\"key1\":1,\"f3\":140,\"f1\":\"2024-11-26 06:38:56.041000041\",\"f2\":\"444.420\",\"f5\":\"RGF2ZQ==\",\"f0\":true,\"f6\":null}",
    "{\"f4\":\"2024-11-26T06:38:56.054000154\",\"key0\":0,\"key1\":1,\"f3\":150,\"f1\":\"2024-11-26 15:28:31\",\"f2\":\"55.002\",\"f5\":\"QXBwbGU=\",\"f0\":true,\"f6\":56}",
    "{\"f4\":\"2024-11-26T06:38:56.064000164\",\"key0\":0,\"key1\":1,\"f3\":160,\"f1\":\"2024-11-26 15:28:41\",\"f2\":\"666.012\",\"f5\":\"QmFuYW5h\",\"f0\":false,\"f6\":66}",
    "{\"f4\":\"2024-11-26T06:38:56.074000174\",\"key0\":0,\"key1\":1,\"f3\":170,\"f1\":\"2024-11-26 15:28:51\",\"f2\":\"-77.022\",\"f5\":\"Q2hlcnJ5\",\"f0\":true,\"f6\":76}",
    "{\"f4\":\"2024-11-26T06:38:56.084000184\",\"key0\":0,\"key1\":1,\"f3\":180,\"f1\":\"2024-11-26 15:29:01\",\"f2\":\"8.032\",\"f5\":\"RHVyaWFu\",\"f0\":true,\"f6\":-86}",
    "{\"f4\":\"2024-11-26T06:38:56.094000194\",\"key0\":0,\"key1\":1,\"f3\":190,\"f1\":\"I'm strange\",\"f2\":\"-999.420\",\"f5\":\"RWxkZXJiZXJyeQ==\",\"f0\":false,\"f6\":96}",
]
_DE_CAST_2 = [
    "{\"f4\":\"1970-01-05T00:00:00.000000000\",\"key0\":0,\"key1\":1,\"f3\":100,\"f1\":\"2024-11-26 06:38:56.001000001\",\"f2\":\"0.020\",\"f0\":true,\"f6\":null}",
    "{\"f4\":\"1969-11-18T00:00:00.000000000\",\"key0\":0,\"key1\":1,\"f3\":110,\"f1\":\"2024-11-26 06:38:56.011000011\",\"f2\":\"11.120\",\"f0\":true,\"f6\":null}",
    "{\"f4\":\"1971-03-21T00:00:00.000000000\",\"key0\":0,\"key1\":1,\"f3\":120,\"f1\":\"2024-11-26 06:38:56.021000021\",\"f2\":\"22.220\",\"f0\":false,\"f6\":null}",
    "{\"f4\":\"1957-11-01T00:00:00.000000000\",\"key0\":0,\"key1\":1,\"f3\":130,\"f1\":\"2024-11-26 06:38:56.031000031\",\"f2\":\"333.320\",\"f0\":false,\"f6\":null}",
    "{\"f4\":\"2091-09-07T00:00:00.000000000\",\"key0\":0,\"key1\":1,\"f3\":140,\"f1\":\"2024-11-26 06:38:56.041000041\",\"f2\":\"444.420\",\"f0\":true,\"f6\":null}",
    "{\"f4\":\"2024-11-26T06:38:56.054000054\",\"key0\":0,\"key1\":1,\"f3\":150,\"f1\":\"2024-11-26 15:28:31\",\"f2\":null,\"f0\":null,\"f6\":null}",
    "{\"f4\":\"2024-11-26T06:38:56.064000064\",\"key0\":0,\"key1\":1,\"f3\":160,\"f1\":\"2024-11-26 15:28:41\",\"f2\":null,\"f0\":null,\"f6\":null}",
    "{\"f4\":\"2024-11-26T06:38:56.074000074\",\"key0\":0,\"key1\":1,\"f3\":170,\"f1\":\"2024-11-26 15:28:51\",\"f2\":null,\"f0\":null,\"f6\":null}",
    "{\"f4\":\"2024-11-26T06:38:56.084000084\",\"key0\":0,\"key1\":1,\"f3\":180,\"f1\":\"2024-11-26 15:29:01\",\"f2\":null,\"f0\":null,\"f6\":null}",
    "{\"f4\":\"2024-11-26T06:38:56.094000094\",\"key0\":0,\"key1\":1,\"f3\":190,\"f1\":\"I'm strange\",\"f2\":null,\"f0\":null,\"f6\":null}",
]
# append_with_cast_timestamp after its ALTER (README lists the new types; values
# by Java's CastExecutors with TZ=UTC: timestamp->INT epoch seconds, ->DATE
# floor days, ->STRING yyyy-MM-dd HH:mm:ss with fraction trimmed to the
# precision, INT->TIMESTAMP epoch seconds)
_CAST_TS = [
    '{"ts_sec":1,"ts_milli":"1970-01-01","ts_micro":"1970-01-01 00:00:00.000001","ts_nano":"1970-01-01T00:00:00.000000001Z","ts_tz_sec":2,"ts_tz_milli":"1970-01-01","ts_tz_micro":"1970-01-01 00:00:00.000002","ts_tz_nano":"1970-01-01T00:00:00.000000002","int_ts_sec":"1970-01-01T00:00:00","int_ts_tz_micro":"1970-01-01T00:00:00.000000Z"}',
    '{"ts_sec":3,"ts_milli":"1970-01-01","ts_micro":null,"ts_nano":"1970-01-01T00:00:00.000000003Z","ts_tz_sec":4,"ts_tz_milli":"1970-01-01","ts_tz_micro":"1970-01-01 00:00:00.000004","ts_tz_nano":"1970-01-01T00:00:00.000000004","int_ts_sec":"1970-01-01T00:00:01","int_ts_tz_micro":"1970-01-01T00:00:01.000000Z"}',
    '{"ts_sec":5,"ts_milli":"1970-01-01","ts_micro":null,"ts_nano":null,"ts_tz_sec":6,"ts_tz_milli":null,"ts_tz_micro":"1970-01-01 00:00:00.000006","ts_tz_nano":null,"int_ts_sec":"1969-12-31T23:59:59","int_ts_tz_micro":"1969-12-31T23:59:59.000000Z"}',
]
# fallback branches: main's partitions from main, the others from the branch
_PT_BRANCH = [
    '{"pt":1,"value":110,"value2":null}', '{"pt":1,"value":120,"value2":1200}',
    '{"pt":2,"value":210,"value2":null}', '{"pt":2,"value":220,"value2":2200}',
]
_RT_BRANCH = [
    '{"dt":"20240725","name":"apple","amount":5}', '{"dt":"20240725","name":"banana","amount":7}',
    '{"dt":"20240726","name":"cherry","amount":3}', '{"dt":"20240726","name":"pear","amount":6}',
]
README = {
    ("append_table_alter_table_with_cast", 2): _CAST,
    ("append_table_alter_table_with_cast", None): _CAST,
    ("append_with_cast_timestamp", None): _CAST_TS,
    ("append_table_with_append_pt_branch", None): _PT_BRANCH,
    # main snapshot 1 predates every branch snapshot: the branch's snapshot 1
    ("append_table_with_append_pt_branch", 1): ['{"pt":1,"value":110}', '{"pt":2,"value":210}'],
    ("append_table_with_rt_branch", None): _RT_BRANCH,
    ("append_table_with_rt_branch", 1): _RT_BRANCH,
    ("append_table_alter_table_with_cast_with_data_evolution", 1): _DE_CAST_1,
    ("append_table_alter_table_with_cast_with_data_evolution", 2): _DE_CAST_2,
    ("append_table_alter_table_with_cast_with_data_evolution", 3): _DE_CAST,
    ("append_table_alter_table_with_cast_with_data_evolution", None): _DE_CAST,
    ("blob_append_table_alter_table_with_cast_with_data_evolution", 1): _DE_BLOB_1,
    ("blob_append_table_alter_table_with_cast_with_data_evolution", 3): _DE_BLOB,
    ("blob_append_table_alter_table_with_cast_with_data_evolution", None): _DE_BLOB,
}


def _tables(root):
    out = []
    for db in sorted(root.glob("*.db")):
        t = db / db.name[:-3]
        if (t / "snapshot").is_dir():
            out.append(t)
    return out


def _snapshots(t):
    return sorted(int(p.name[9:]) for p in (t / "snapshot").glob("snapshot-*"))


CASES = [(t.parent.parent.name, t.name, s) for t in _tables(PARQUET) + _tables(AVRO)
         for s in _snapshots(t) + [None]]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    root = tmp_path_factory.mktemp("fixtures")
    shutil.copytree(PARQUET, root / "parquet")
    shutil.copytree(AVRO, root / "avro-format")
    for name in ("pk_dv_index_in_data_with_external", "pk_dv_index_not_in_data_with_external"):
        db = root / "parquet" / f"{name}.db"
        relocate_external(db / name, "FILE:/tmp/external", f"FILE:{db / 'external'}")
    return root


def our_read(table, snapshot=None, *extra, check=True):
    args = ["read", table] + (["--snapshot", snapshot] if snapshot else []) + list(extra)
    return run_paimon(*args, check=check)


def our_rows(proc):
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


@pytest.mark.parametrize("kind,table,snapshot", CASES, ids=[f"{t}@{s or 'latest'}" for _, t, s in CASES])
def test_fixture_table(warehouse, kind, table, snapshot):
    tdir = warehouse / kind / f"{table}.db" / table
    key = (table, snapshot)
    if key in MERGE_NEEDED:
        p = our_read(tdir, snapshot, check=False)
        assert p.returncode == 1 and "merge-on-read is not supported yet" in p.stderr, p.stderr
        assert p.stdout == ""
        return
    if key in OTHER_ERRORS:
        p = our_read(tdir, snapshot, check=False)
        assert p.returncode == 1 and OTHER_ERRORS[key] in p.stderr, p.stderr
        return
    got = our_rows(our_read(tdir, snapshot))
    if key in README:
        want = [json.loads(r) for r in README[key]]
        assert multiset(got) == multiset(want)
        return
    if table in RAW:
        want, schema = raw_read(tdir, snapshot)
        if schema is None:
            assert got == []
            return
        assert multiset(canon_our_rows(got, schema)) == multiset(want)
        return
    arrow = pypaimon_read(warehouse / kind, f"{table}", table, snapshot)
    want = canon_table(arrow)
    assert multiset(canon_our_rows(got, arrow.schema)) == multiset(want)


def test_every_fixture_is_covered():
    """The classification above names real tables, and every table is read."""
    names = {t for _, t, _ in CASES}
    for t in DATA_EVOLUTION | RAW | {k[0] for k in README} | {k[0] for k in MERGE_NEEDED}:
        assert t in names, t
    assert len(names) == 31


@pytest.mark.parametrize("table,branch", [("append_table_with_rt_branch", "rt"),
                                          ("append_table_with_append_pt_branch", "test")])
def test_branch_read(warehouse, table, branch):
    tdir = warehouse / "parquet" / f"{table}.db" / table
    got = our_rows(our_read(tdir, None, "--branch", branch))
    arrow = pypaimon_read(warehouse / "parquet", table, table, branch=branch)
    assert multiset(canon_our_rows(got, arrow.schema)) == multiset(canon_table(arrow))
    p = our_read(tdir, None, "--branch", "nope", check=False)
    assert p.returncode == 1 and "has no branch 'nope'" in p.stderr


def test_projection_and_partition_filter(warehouse):
    tdir = warehouse / "parquet" / "append_complex_data.db" / "append_complex_data"
    arrow = pypaimon_read(warehouse / "parquet", "append_complex_data", "append_complex_data")
    got = our_rows(our_read(tdir, None, "--columns", "f6,f1", "--partition", "f1=10"))
    assert all(list(r) == ["f6", "f1"] for r in got)
    want = [r for r in canon_table(arrow.select(["f6", "f1"])) if r["f1"] == 10]
    assert multiset(canon_our_rows(got, arrow.select(["f6", "f1"]).schema)) == multiset(want)
    assert len(got) == 6
    # two specs are OR-ed; --limit stops early
    got = our_rows(our_read(tdir, None, "--partition", "f1=10", "--partition", "f1=20", "--limit", "3"))
    assert len(got) == 3
    p = our_read(tdir, None, "--columns", "nope", check=False)
    assert p.returncode == 1 and "nope" in p.stderr
    p = our_read(tdir, None, "--partition", "f2=1", check=False)
    assert p.returncode == 1 and "not a partition key" in p.stderr


def test_missing_snapshot(warehouse):
    tdir = warehouse / "parquet" / "append_complex_data.db" / "append_complex_data"
    p = our_read(tdir, 99, check=False)
    assert p.returncode == 1 and "snapshot 99 not found" in p.stderr
