"""Global index maintenance and reads (include/paimon/index.h, `paimon index`,
`paimon read --where` through btree / bitmap global indexes).

- Java-written fixtures (Apache Paimon Java 1.4.2 bitmap global indexes,
  with and without partitions): `paimon read --where` returns exactly the
  rows of a full scan filtered in Python, for point and IN queries on every
  indexed column, and skips the files the index excludes; we maintain them
  (a declaration added to the partitioned table builds the missing
  partition's coverage next to Java's payload).
- Our btree payloads: pypaimon 2.1's global-index scanner returns, for
  random point and IN queries, the same row IDs as a brute-force filter
  over the table, after each automatic maintenance round (write-only=false)
  and after compaction.  pypaimon 2.1 reads only the dictionary bitmap
  format of later Paimon versions (Java 1.4.2's bitmap payloads, which we
  write by default, make it fail on the missing index meta), so bitmap
  payloads are checked here through our reads and against Java's fixture
  bytes; test_global_index_formats.py has pypaimon read our
  bitmap-index.format=dictionary payloads.
- Apache Paimon Java 1.4.2 (bench/java gi-query / gi-build): Java's
  GlobalIndexScanner returns for our btree and bitmap payloads the row IDs
  of a brute-force filter, Java's BTreeGlobalIndexBuilder keeps
  maintaining a table after us, and we after it.
- Declarations: refusals at create and write, `paimon index --column`,
  write-only=true leaving maintenance to `paimon index`.
"""
import json
import os
import random
import shutil
import subprocess
import sys

import pytest

from conftest import FIXTURES, ROOT, run_paimon, run_paimon_jsonl

sys.path.insert(0, str(ROOT / "bench" / "java"))
from paimon_oracle import BuildError, JavaOracle, build  # noqa: E402

PARQUET = FIXTURES / "java-written" / "parquet"


def _rows(table, *args):
    return run_paimon_jsonl("read", table, *args)


def _where_text(col, vals):
    def lit(v):
        return "'" + v.replace("'", "''") + "'" if isinstance(v, str) else str(v)
    if len(vals) == 1:
        return f"{col} = {lit(vals[0])}"
    return f"{col} IN ({', '.join(lit(v) for v in vals)})"


def _check_where(table, col, vals, key=None):
    """--where equals the full scan filtered here; returns stderr."""
    full = _rows(table)
    want = sorted((r for r in full if r[col] is not None and r[col] in vals), key=json.dumps)
    proc = run_paimon("read", table, "--where", _where_text(col, vals))
    got = sorted((json.loads(l) for l in proc.stdout.splitlines() if l.strip()), key=json.dumps)
    assert got == want, (col, vals)
    return proc.stderr


@pytest.mark.parametrize("name", ["append_with_global_index", "append_with_global_index_with_partition"])
def test_java_fixture_reads(copy_table, name):
    table = copy_table(PARQUET / f"{name}.db" / name)
    full = _rows(table)
    rng = random.Random(7)
    for col in ("f0", "f1", "f2"):
        values = sorted({r[col] for r in full if r[col] is not None})
        for v in values + (["Nobody"] if col == "f0" else [99]):
            _check_where(table, col, [v])
        for _ in range(5):
            _check_where(table, col, rng.sample(values, min(2, len(values))))
    # a value no row holds: the indexed files are not read
    err = _check_where(table, "f0", ["Nobody"])
    assert "1 data files skipped" in err


def test_java_fixture_bytes_are_ours(tmp_path):
    """Our bitmap builder writes Java's bitmap payload byte for byte (f0 of
    the unpartitioned fixture: rows 0..7 in row-ID order)."""
    src = PARQUET / "append_with_global_index.db" / "append_with_global_index"
    wh = tmp_path / "wh" / "db.db"
    wh.mkdir(parents=True)
    t = wh / "t"
    run_paimon("create", t, "--schema", "f0 STRING, f1 INT, f2 INT, f3 DOUBLE", "--option", "bucket=-1",
               "--option", "row-tracking.enabled=true", "--option", "data-evolution.enabled=true",
               "--option", "write-only=true", "--option", "global-index.bitmap.index-columns=f0,f1,f2")
    rows = _rows(src)
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    run_paimon("write", t, "--input", tmp_path / "in.jsonl")
    run_paimon("index", t)
    java = {}
    ours = {}
    import fastavro
    for d, out in ((src, java), (t, ours)):
        snap = json.loads((d / "snapshot" / f"snapshot-{max(int(p.name[9:]) for p in (d / 'snapshot').glob('snapshot-*'))}").read_text())
        for e in fastavro.reader(open(d / "manifest" / snap["indexManifest"], "rb")):
            g = e["_GLOBAL_INDEX"]
            out[g["_INDEX_FIELD_ID"]] = ((d / "index" / e["_FILE_NAME"]).read_bytes(), e["_ROW_COUNT"],
                                         g["_ROW_RANGE_START"], g["_ROW_RANGE_END"], g["_INDEX_META"],
                                         e["_INDEX_TYPE"], e["_BUCKET"])
    assert sorted(java) == sorted(ours) == [0, 1, 2]
    for fid in java:
        assert ours[fid] == java[fid], fid


def test_maintain_java_fixture(copy_table):
    """The partitioned fixture has Java's f0 bitmap for f1=10 only; with a
    declaration we build f1=20's coverage and keep Java's payload."""
    name = "append_with_global_index_with_partition"
    table = copy_table(PARQUET / f"{name}.db" / name)
    schema = json.loads((table / "schema" / "schema-0").read_text())
    schema["id"] = 1
    schema["options"]["global-index.bitmap.index-columns"] = "f0"
    (table / "schema" / "schema-1").write_text(json.dumps(schema, indent=2))
    before = set(os.listdir(table / "index"))
    out = json.loads(run_paimon("index", table, "--json").stdout)
    assert out["files_added"] == 1 and out["ranges_built"] == 1 and out["snapshot_id"] == 3
    after = set(os.listdir(table / "index"))
    assert before < after
    for v in ("Lucy", "Bob", "Tony", "Alice", "Nobody"):
        _check_where(table, "f0", [v])
    err = _check_where(table, "f0", ["Nobody"])
    assert "2 data files skipped" in err
    out = json.loads(run_paimon("index", table, "--json").stdout)
    assert out["snapshot_id"] == 0


def _pypaimon_row_ids(table_path, col, vals):
    code = r"""
import json, os, sys
from pypaimon import CatalogFactory
from pypaimon.globalindex.data_evolution_global_index_scanner import DataEvolutionGlobalIndexScanner
path, col, vals = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
wh = os.path.dirname(os.path.dirname(path))
db = os.path.basename(os.path.dirname(path))[:-3]
t = CatalogFactory.create({'warehouse': wh}).get_table(db + '.' + os.path.basename(path))
pb = t.new_read_builder().new_predicate_builder()
pred = pb.equal(col, vals[0]) if len(vals) == 1 else pb.is_in(col, vals)
sc = DataEvolutionGlobalIndexScanner.create(t, predicate=pred)
r = sc.scan(pred) if sc is not None else None
print(json.dumps(None if r is None else sorted(r.results())))
"""
    proc = subprocess.run([sys.executable, "-c", code, str(table_path), col, json.dumps(vals)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _brute(table, col, vals):
    rows = _rows(table, "--columns", f"_ROW_ID,{col}")
    return sorted(r["_ROW_ID"] for r in rows if r[col] is not None and r[col] in vals)


def _batch(rng, start, n, empty=True):
    names = ["ann", "bob", "cy", "dee", "O'Neil", "zoë"] + ([""] if empty else [])
    out = []
    for i in range(n):
        out.append({"id": rng.choice([None, rng.randrange(-50, 50), rng.randrange(0, 10**12)]),
                    "name": rng.choice(names + [None]),
                    "cat": rng.choice([None, 1, 2, 3, 4]),
                    "v": start + i})
    return out


def test_automatic_maintenance_pypaimon(tmp_path):
    wh = tmp_path / "wh" / "db.db"
    wh.mkdir(parents=True)
    t = wh / "t"
    run_paimon("create", t, "--schema", "id BIGINT, name STRING, cat INT, v INT", "--option", "bucket=-1",
               "--option", "row-tracking.enabled=true", "--option", "data-evolution.enabled=true",
               "--option", "global-index.btree.index-columns=id, name", "--option",
               "global-index.bitmap.index-columns=cat", "--option", "global-index.row-count-per-shard=150",
               "--option", "fields.name.index-options={\"block-size\": \"128 b\", \"records-per-range\": 40}")
    rng = random.Random(11)
    total = 0
    for w in range(4):
        rows = _batch(rng, total, rng.randrange(60, 220))
        total += len(rows)
        p = tmp_path / f"w{w}.jsonl"
        p.write_text("".join(json.dumps(r) + "\n" for r in rows))
        run_paimon("write", t, "--input", p)
        # every row is covered after the write's automatic round
        assert _pypaimon_row_ids(t, "id", [10**15]) == []
        all_rows = _rows(t)
        for col in ("id", "name"):
            values = sorted({r[col] for r in all_rows if r[col] is not None}, key=str)
            for _ in range(3):
                vals = rng.sample(values, rng.choice([1, 1, 2, 3]))
                assert _pypaimon_row_ids(t, col, vals) == _brute(t, col, vals), (col, vals)
                _check_where(t, col, vals)
        for vals in ([1], [2, 4], [3]):
            _check_where(t, "cat", vals)
    # compaction keeps row IDs and values: payloads stay valid
    run_paimon("compact", t)
    for col in ("id", "name"):
        values = sorted({r[col] for r in _rows(t) if r[col] is not None}, key=str)
        for _ in range(4):
            vals = rng.sample(values, 2)
            assert _pypaimon_row_ids(t, col, vals) == _brute(t, col, vals)
            _check_where(t, col, vals)


def test_write_only_and_column(tmp_path):
    t = tmp_path / "t"
    run_paimon("create", t, "--schema", "a INT, b STRING", "--option", "bucket=-1", "--option",
               "row-tracking.enabled=true", "--option", "write-only=true", "--option",
               "global-index.btree.index-columns=a", "--option", "global-index.bitmap.index-columns=b")
    p = tmp_path / "in.jsonl"
    p.write_text('{"a": 1, "b": "x"}\n{"a": 2, "b": "y"}\n')
    run_paimon("write", t, "--input", p)
    assert not (t / "index").exists() or not os.listdir(t / "index")
    out = json.loads(run_paimon("index", t, "--column", "b", "--json").stdout)
    assert out["files_added"] == 1
    assert [f.split("-")[0] for f in os.listdir(t / "index")] == ["bitmap"]
    out = json.loads(run_paimon("index", t, "--json").stdout)
    assert out["files_added"] == 1
    bad = run_paimon("index", t, "--column", "nope", check=False)
    assert bad.returncode in (1, 2) and "has no global index declaration" in bad.stderr
    _check_where(t, "a", [2])
    _check_where(t, "b", ["x", "y"])


@pytest.mark.parametrize("opts,needle", [
    (["global-index.full-text.index-columns=b"], "global index type 'full-text' (column b) is not supported"),
    (["global-index.ivf-pq.index-columns=b"], "global index type 'ivf-pq' (column b) is not supported"),
    (["global-index.btree.index-columns=a,a"], "listed twice"),
    (["global-index.btree.index-columns=zz"], "unknown field 'zz'"),
    (["global-index.btree.index-columns="], "is empty"),
    (["global-index.btree.index-columns=a", "global-index.bitmap.index-columns=a"], "two global index types"),
])
def test_create_refusals(tmp_path, opts, needle):
    t = tmp_path / "t"
    args = ["create", t, "--schema", "a INT, b STRING", "--option", "bucket=-1", "--option",
            "row-tracking.enabled=true"]
    for o in opts:
        args += ["--option", o]
    proc = run_paimon(*args, check=False)
    # PM_EUNSUPPORTED → 1, PM_EINVALID (a bad option) → 2
    assert proc.returncode in (1, 2) and needle in proc.stderr
    assert not t.exists()


def test_write_refuses_unsupported_family(copy_table, tmp_path):
    """A table whose schema declares an unsupported family (written by
    another engine) is refused at write, naming the family."""
    name = "append_with_global_index"
    table = copy_table(PARQUET / f"{name}.db" / name)
    schema = json.loads((table / "schema" / "schema-0").read_text())
    schema["id"] = 1
    schema["options"]["global-index.diskann.index-columns"] = "f0"
    (table / "schema" / "schema-1").write_text(json.dumps(schema, indent=2))
    p = tmp_path / "in.jsonl"
    p.write_text('{"f0": "x", "f1": 1, "f2": 2, "f3": 1.0}\n')
    proc = run_paimon("write", table, "--input", p, check=False)
    assert proc.returncode == 1 and "'diskann'" in proc.stderr and "not supported" in proc.stderr


@pytest.mark.parametrize("action", [None, "DROP_PARTITION_INDEX"])
def test_update_of_indexed_column(tmp_path, action):
    """global-index.column-update-action: THROW_ERROR (default) refuses an
    update of an indexed column before writing anything; DROP_PARTITION_INDEX
    retires the column's entries in the update's snapshot and the automatic
    round rebuilds them from the new values."""
    wh = tmp_path / "wh" / "db.db"
    wh.mkdir(parents=True)
    t = wh / "t"
    args = ["create", t, "--schema", "id BIGINT, name STRING", "--option", "bucket=-1", "--option",
            "row-tracking.enabled=true", "--option", "data-evolution.enabled=true", "--option",
            "global-index.btree.index-columns=id"]
    if action:
        args += ["--option", f"global-index.column-update-action={action}"]
    run_paimon(*args)
    p = tmp_path / "in.jsonl"
    p.write_text('{"id": 1, "name": "a"}\n{"id": 2, "name": "b"}\n{"id": 3, "name": "c"}\n')
    run_paimon("write", t, "--input", p)
    u = tmp_path / "u.jsonl"
    u.write_text('{"_ROW_ID": 1, "id": 20}\n')
    before = sorted(os.listdir(t / "bucket-0"))
    proc = run_paimon("update", t, "--columns", "id", "--input", u, check=False)
    if not action:
        assert proc.returncode in (1, 2)
        assert "column id is covered by global index file btree-global-index-" in proc.stderr
        assert sorted(os.listdir(t / "bucket-0")) == before
        # other columns update freely
        u.write_text('{"_ROW_ID": 1, "name": "bb"}\n')
        run_paimon("update", t, "--columns", "name", "--input", u)
        _check_where(t, "id", [2])
        return
    assert proc.returncode == 0, proc.stderr
    _check_where(t, "id", [2])
    _check_where(t, "id", [20])
    assert _pypaimon_row_ids(t, "id", [20]) == [1]
    assert _pypaimon_row_ids(t, "id", [2]) == []


def _live_entries(t):
    import fastavro
    snaps = sorted(int(p.name[9:]) for p in (t / "snapshot").glob("snapshot-*"))
    snap = json.loads((t / "snapshot" / f"snapshot-{snaps[-1]}").read_text())
    if not snap.get("indexManifest"):
        return []
    out = []
    for e in fastavro.reader(open(t / "manifest" / snap["indexManifest"], "rb")):
        g = e["_GLOBAL_INDEX"]
        if e["_KIND"] == 0 and g is not None:
            out.append((g["_INDEX_FIELD_ID"], g["_ROW_RANGE_START"], g["_ROW_RANGE_END"], e["_INDEX_TYPE"]))
    return sorted(out)


def test_consolidation_and_shards(tmp_path):
    """The seed's example: with a 1000-row shard, [0, 599] and [600, 799]
    stay two files below the trigger (5); the fifth run lets the universal
    selection merge the small tail runs while the large older runs stay;
    a shard-size change retires the ranges crossing new boundaries."""
    wh = tmp_path / "wh" / "db.db"
    wh.mkdir(parents=True)
    t = wh / "t"
    run_paimon("create", t, "--schema", "k INT, s STRING", "--option", "bucket=-1", "--option",
               "row-tracking.enabled=true", "--option", "data-evolution.enabled=true", "--option",
               "write-only=true", "--option", "global-index.btree.index-columns=k", "--option",
               "global-index.row-count-per-shard=1000")
    rng = random.Random(3)
    start = 0
    expect = []
    for n in (600, 200, 50, 50, 50):
        p = tmp_path / "in.jsonl"
        p.write_text("".join(json.dumps({"k": rng.randrange(100), "s": str(start + i)}) + "\n" for i in range(n)))
        run_paimon("write", t, "--input", p)
        run_paimon("index", t)
        start += n
        got = [(f, a, b) for f, a, b, _ in _live_entries(t)]
        if n == 200:
            assert got == [(0, 0, 599), (0, 600, 799)]
        expect = got
    assert expect == [(0, 0, 599), (0, 600, 799), (0, 800, 949)]
    for v in (1, 50, 99):
        _check_where(t, "k", [v])
        assert _pypaimon_row_ids(t, "k", [v]) == _brute(t, "k", [v])
    # a smaller shard: [0, 599] crosses 500 and is rebuilt per shard; the others stay
    schema = json.loads((t / "schema" / "schema-0").read_text())
    schema["id"] = 1
    schema["options"]["global-index.row-count-per-shard"] = "500"
    (t / "schema" / "schema-1").write_text(json.dumps(schema, indent=2))
    out = json.loads(run_paimon("index", t, "--json").stdout)
    assert out["files_removed"] == 1 and out["ranges_built"] == 2
    got = [(f, a, b) for f, a, b, _ in _live_entries(t)]
    assert got == [(0, 0, 499), (0, 500, 599), (0, 600, 799), (0, 800, 949)]
    for v in (1, 50, 99):
        _check_where(t, "k", [v])
        assert _pypaimon_row_ids(t, "k", [v]) == _brute(t, "k", [v])


@pytest.fixture(scope="module")
def java():
    if os.environ.get("PAIMON_SKIP_JAVA") == "1":
        pytest.skip("PAIMON_SKIP_JAVA=1: Apache Paimon Java oracle tests skipped on request")
    try:
        run_sh = build()
    except BuildError as e:
        pytest.fail(f"cannot build the Apache Paimon Java oracle (set PAIMON_SKIP_JAVA=1 to skip):\n{e}",
                    pytrace=False)
    with JavaOracle(run_sh, java_opts=os.environ.get("JAVA_OPTS", "-XX:TieredStopAtLevel=1")) as j:
        yield j


def _java_row_ids(java, t, col, vals):
    lines = java.call("gi-query", str(t), "--column", col, "--values", json.dumps(vals, ensure_ascii=False))
    return json.loads(lines[-1])


def test_java_reads_and_maintains_ours(java, tmp_path):
    wh = tmp_path / "wh" / "db.db"
    wh.mkdir(parents=True)
    t = wh / "t"
    run_paimon("create", t, "--schema", "id BIGINT, name STRING, cat INT, v INT", "--option", "bucket=-1",
               "--option", "row-tracking.enabled=true", "--option", "data-evolution.enabled=true",
               "--option", "global-index.btree.index-columns=id,name", "--option",
               "global-index.bitmap.index-columns=cat", "--option", "global-index.row-count-per-shard=1000")
    rng = random.Random(5)
    total = 0
    for w in range(3):
        # no '' names: Java 1.4.2 reads a BTreeIndexMeta whose first key is
        # empty as "no key" and fails (it writes the same meta itself)
        rows = _batch(rng, total, rng.randrange(50, 160), empty=False)
        total += len(rows)
        p = tmp_path / f"w{w}.jsonl"
        p.write_text("".join(json.dumps(r) + "\n" for r in rows))
        run_paimon("write", t, "--input", p)
    all_rows = _rows(t)
    for col in ("id", "name", "cat"):
        values = sorted({r[col] for r in all_rows if r[col] not in (None, "")}, key=str)
        for _ in range(4):
            vals = rng.sample(values, rng.choice([1, 2]))
            assert _java_row_ids(java, t, col, vals) == _brute(t, col, vals), (col, vals)
    # Java maintains after us (a write-only append it indexes), we after Java
    p = tmp_path / "more.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in _batch(rng, total, 30, empty=False)))
    schema = json.loads((t / "schema" / "schema-0").read_text())
    schema["id"] = 1
    schema["options"]["write-only"] = "true"
    (t / "schema" / "schema-1").write_text(json.dumps(schema, indent=2))
    run_paimon("write", t, "--input", p)
    built = json.loads(java.call("gi-build", str(t), "--column", "id")[-1])
    assert built["rows"] == 30 and built["files"] >= 1
    out = json.loads(run_paimon("index", t, "--json").stdout)
    assert out["ranges_built"] == 2 and out["files_removed"] == 0  # name and cat; id is Java's, kept
    all_rows = _rows(t)
    for col in ("id", "name", "cat"):
        values = sorted({r[col] for r in all_rows if r[col] not in (None, "")}, key=str)
        for _ in range(3):
            vals = rng.sample(values, 2)
            assert _java_row_ids(java, t, col, vals) == _brute(t, col, vals)
            _check_where(t, col, vals)
        if col != "cat":
            assert _pypaimon_row_ids(t, col, vals) == _brute(t, col, vals)


def test_explicit_compaction_maintains(tmp_path):
    """`paimon compact` (write-only=false) builds missing coverage after its
    commit, even when it compacts nothing; write-only=true leaves it."""
    t = tmp_path / "t"
    run_paimon("create", t, "--schema", "a INT, b STRING", "--option", "bucket=-1", "--option",
               "row-tracking.enabled=true", "--option", "data-evolution.enabled=true", "--option",
               "write-only=true", "--option", "global-index.btree.index-columns=a")
    p = tmp_path / "in.jsonl"
    p.write_text('{"a": 1, "b": "x"}\n{"a": 2, "b": "y"}\n')
    run_paimon("write", t, "--input", p)
    run_paimon("compact", t)
    assert _live_entries(t) == []
    schema = json.loads((t / "schema" / "schema-0").read_text())
    schema["id"] = 1
    schema["options"]["write-only"] = "false"
    (t / "schema" / "schema-1").write_text(json.dumps(schema, indent=2))
    run_paimon("compact", t)
    assert _live_entries(t) == [(0, 0, 1, "btree")]
    run_paimon("compact", t)
    assert _live_entries(t) == [(0, 0, 1, "btree")]
    _check_where(t, "a", [2])
