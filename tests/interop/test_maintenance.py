"""Snapshot expiration and orphan-file removal (`paimon expire-snapshots`,
`paimon remove-orphan-files`) against pypaimon and Apache Paimon Java.

1. pypaimon writes a primary-key and an append table in many commits,
   paimon-c compacts them in between; `expire-snapshots` with Paimon's
   retention rules keeps exactly the expected range, and pypaimon, Java
   and paimon-c read every retained snapshot alike (and the latest rows
   are the model's); files only expired snapshots referenced are gone,
   every file a retained snapshot names is there.
2. A tag keeps the files of its snapshot through expiration; a consumer
   holds expiration back at its next snapshot.
3. remove-orphan-files deletes an old unreferenced file in a bucket
   directory and in manifest/, keeps young files and everything a snapshot
   references; --dry-run deletes nothing.
4. Bad arguments (min above max, unknown option) change nothing.
Java runs as one JVM for the module (PAIMON_SKIP_JAVA=1 skips its checks).
"""
import json
import os
import pathlib
import shutil
import sys

import pyarrow as pa
import pytest
from pypaimon import CatalogFactory, Schema

from conftest import ROOT, run_paimon
from table_read_oracle import pypaimon_read

sys.path.insert(0, str(ROOT / "bench" / "java"))
from paimon_oracle import BuildError, JavaOracle, build  # noqa: E402

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string())])


@pytest.fixture(scope="module")
def java():
    if os.environ.get("PAIMON_SKIP_JAVA") == "1":
        yield None
        return
    try:
        run_sh = build()
    except BuildError as e:
        pytest.fail(f"cannot build the Apache Paimon Java oracle (set PAIMON_SKIP_JAVA=1 to skip):\n{e}",
                    pytrace=False)
    with JavaOracle(run_sh, java_opts=os.environ.get("JAVA_OPTS", "-XX:TieredStopAtLevel=1")) as j:
        yield j


def make(tmp_path, name, pk):
    cat = CatalogFactory.create({"warehouse": str(tmp_path / "wh")})
    cat.create_database("db", True)
    opts = {"bucket": "2" if pk else "-1", "write-only": "true"}
    cat.create_table(f"db.{name}", Schema.from_pyarrow_schema(SCHEMA, primary_keys=["id"] if pk else [],
                                                            options=opts), False)
    return cat.get_table(f"db.{name}"), tmp_path / "wh" / "db.db" / name


def write(t, rows):
    wb = t.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(pa.Table.from_pylist(rows, schema=SCHEMA))
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def snapshot_ids(path):
    return sorted(int(p.name[9:]) for p in (path / "snapshot").glob("snapshot-*"))


def our_rows(path, s=None):
    args = ["read", path] + (["--snapshot", s] if s is not None else [])
    return sorted((json.loads(x) for x in run_paimon(*args).stdout.splitlines() if x.strip()), key=lambda r: r["id"])


def data_files(path):
    return {p.resolve() for p in path.rglob("*") if p.is_file() and p.parent.name.startswith("bucket-")}


def live_files(path, s):
    return {pathlib.Path(f["file_path"]).resolve() for f in json.loads(run_paimon("files", path, "--snapshot", s, "--json").stdout)}


@pytest.mark.parametrize("pk", [True, False], ids=["primary-key", "append"])
def test_expire_then_every_reader_agrees(tmp_path, java, pk):
    t, path = make(tmp_path, "t", pk)
    model = {}
    for i in range(14):
        rows = [{"id": (i * 3 + k) % (10 if pk else 10**9), "v": f"v{i}-{k}"} for k in range(3)]
        write(t, rows)
        for r in rows:
            model[r["id"] if pk else (i, r["id"])] = r
        if i % 4 == 3:
            run_paimon("compact", path)
    ids = snapshot_ids(path)
    before = data_files(path)
    bad = run_paimon("expire-snapshots", path, "--retain-max", "3", check=False)
    assert bad.returncode == 1 and "above snapshot.num-retained.max" in bad.stderr  # min 10 > max 3
    assert snapshot_ids(path) == ids
    out = json.loads(run_paimon("expire-snapshots", path, "--retain-min", "4", "--retain-max", "4",
                                "--older-than", "0s", "--max-deletes", "1000", "--json").stdout)
    kept = snapshot_ids(path)
    assert kept == ids[-4:], (ids, kept)
    assert out["snapshots_expired"] == len(ids) - 4 and out["earliest_after"] == ids[-4]
    assert (path / "snapshot" / "EARLIEST").read_text().strip() == str(ids[-4])
    referenced = set()
    for s in kept:
        referenced |= live_files(path, s)
    after = data_files(path)
    assert referenced <= after
    assert out["data_files_deleted"] == len(before - after) > 0
    assert not (after - referenced), "files no retained snapshot references survived"
    want = sorted(model.values(), key=lambda r: r["id"])
    assert our_rows(path) == want
    for s in kept:
        ours = our_rows(path, s)
        theirs = sorted(pypaimon_read(tmp_path / "wh", "db", "t", s).to_pylist(), key=lambda r: r["id"])
        assert ours == theirs, f"snapshot {s}"
        if java is not None:
            assert sorted(java.read(str(path), snapshot=s), key=lambda r: r["id"]) == ours, f"Java, snapshot {s}"


def test_tags_and_consumers_hold_files(tmp_path):
    t, path = make(tmp_path, "t", False)
    for i in range(6):
        write(t, [{"id": i, "v": "x"}])
    run_paimon("compact", path)  # snapshot 7 folds the six files
    tagged = live_files(path, 6)
    assert len(tagged) == 6
    (path / "tag").mkdir()
    shutil.copy(path / "snapshot" / "snapshot-6", path / "tag" / "tag-before")
    (path / "consumer").mkdir()
    (path / "consumer" / "consumer-reader").write_text('{"nextSnapshot":4}')
    args = ["--retain-min", "1", "--retain-max", "1", "--older-than", "0s", "--json"]
    out = json.loads(run_paimon("expire-snapshots", path, *args).stdout)
    assert out["earliest_after"] == 4 and snapshot_ids(path) == [4, 5, 6, 7]
    (path / "consumer" / "consumer-reader").write_text('{"nextSnapshot":8}')
    out = json.loads(run_paimon("expire-snapshots", path, *args).stdout)
    assert snapshot_ids(path) == [7] and out["data_files_deleted"] == 0
    assert all(p.exists() for p in tagged)  # snapshot 6 is gone; its tag holds its files
    assert len(data_files(path)) == 7  # six tagged small files + the compacted one
    (path / "tag" / "tag-before").unlink()
    run_paimon("expire-snapshots", path, *args)
    assert len(data_files(path)) == 7  # nothing expired, so nothing deleted ...
    orphans = json.loads(run_paimon("remove-orphan-files", path, "--older-than", "0s", "--json").stdout)
    # ... but without the tag the six are orphans now, with the manifests only the tag needed
    gone = [pathlib.Path(p) for p in orphans["paths"]]
    assert sorted(p.resolve() for p in gone if p.parent.name == "bucket-0") == sorted(tagged)
    assert all(p.parent.name in ("bucket-0", "manifest") for p in gone)
    assert len(data_files(path)) == 1
    assert our_rows(path) == [{"id": i, "v": "x"} for i in range(6)]
    assert sorted(pypaimon_read(tmp_path / "wh", "db", "t").to_pylist(), key=lambda r: r["id"]) == our_rows(path)


def test_remove_orphan_files(tmp_path):
    t, path = make(tmp_path, "t", True)
    for i in range(3):
        write(t, [{"id": i, "v": "x"}])
    junk = path / "bucket-0" / "data-00000000-junk-0.parquet"
    junk_m = path / "manifest" / "manifest-junk-0"
    young = path / "bucket-1" / "data-young.parquet"
    other = path / "schema" / "README"
    for p in (junk, junk_m, other):
        p.write_text("junk")
        os.utime(p, (1_000_000_000, 1_000_000_000))
    young.write_text("young")
    dry = run_paimon("remove-orphan-files", path, "--dry-run").stdout
    assert str(junk) in dry and str(junk_m) in dry and "dry run: 2 orphan files would be deleted" in dry
    assert junk.exists()
    out = json.loads(run_paimon("remove-orphan-files", path, "--json").stdout)
    assert sorted(out["paths"]) == sorted([str(junk), str(junk_m)])
    assert not junk.exists() and not junk_m.exists() and young.exists() and other.exists()
    assert our_rows(path) == [{"id": i, "v": "x"} for i in range(3)]
    bad = run_paimon("remove-orphan-files", path, "--older-than", "soon", check=False)
    assert bad.returncode == 2
    assert run_paimon("remove-orphan-files", path, "--nope", check=False).returncode == 2
    assert young.exists()
