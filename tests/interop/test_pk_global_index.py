"""Source-backed global indexes of primary-key tables (compact/pk/
pk_global_index.h, table/pk_index_select.h).

No served peer writes or reads them: Apache Paimon Java 1.4.2's index
manifest has no `_SOURCE_META` (added in Java 2.0), and pypaimon 2.1 only
carries the bytes through.  Java 1.4.2 reads an indexed table's rows as we
do and compacts it, leaving our payloads stale (ignored by our reads until
our next compaction of the bucket).  So these tests follow the seed and check the
layout Java 2.0 documents (PrimaryKeyIndexSourceMeta: version 1, level,
files with row counts; row range [0, rows - 1]) and our reads:

- pypaimon writes several commits (inserts, updates that move keys to other
  indexed values, deletes); `paimon compact` (explicit, write-only=true)
  builds one payload per (bucket, positive level, column) over the level's
  files in name order, in the COMPACT snapshot itself; level 0 is outside;
- a later compaction retains the payloads of unchanged levels (same file)
  and replaces the changed ones;
- `paimon read --where 'c = v'` / IN returns exactly the rows of a full scan
  filtered here, at every step (a key whose newest version, still at level
  0 or in a newer level, no longer matches is not returned), with and
  without deletion vectors, and skips files the index proves empty;
- payload ordinals point at the physical rows of the source files: our
  reads keep only the indexed positions of every covered file, so a wrong
  ordinal loses rows against the brute-force filter.
"""
import json
import random
import struct

import fastavro
import pyarrow as pa
import pytest
from pypaimon import CatalogFactory, Schema

from conftest import run_paimon, run_paimon_jsonl
from java_rows import java  # noqa: F401 (the oracle fixture)

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("cat", pa.int32()), ("name", pa.string()),
                    ("v", pa.int64())])


def _catalog(tmp_path):
    cat = CatalogFactory.create({"warehouse": str(tmp_path / "wh")})
    cat.create_database("db", True)
    return cat


def _create(tmp_path, name, options):
    cat = _catalog(tmp_path)
    opts = {"bucket": "2", "write-only": "true", "global-index.btree.index-columns": "cat",
            "global-index.bitmap.index-columns": "name"}
    opts.update(options)
    cat.create_table(f"db.{name}", Schema.from_pyarrow_schema(SCHEMA, primary_keys=["id"], options=opts), False)
    return tmp_path / "wh" / "db.db" / name


def _py_write(tmp_path, name, rows):
    t = _catalog(tmp_path).get_table(f"db.{name}")
    wb = t.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(pa.Table.from_pylist(rows, schema=SCHEMA))
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def _our_delete(table, tmp_path, ids, tag):
    """Delete keys through our writer (`_ROW_KIND` = -D)."""
    p = tmp_path / f"del-{tag}.jsonl"
    p.write_text("".join(json.dumps({"_ROW_KIND": "-D", "id": i, "cat": None, "name": None, "v": None}) + "\n"
                         for i in ids))
    run_paimon("write", table, "--input", p)


def _where(col, vals):
    lit = lambda v: "'" + v.replace("'", "''") + "'" if isinstance(v, str) else str(v)
    return f"{col} = {lit(vals[0])}" if len(vals) == 1 else f"{col} IN ({', '.join(lit(v) for v in vals)})"


def _check(table, col, vals, extra=()):
    full = run_paimon_jsonl("read", table)
    want = sorted((r for r in full if r[col] is not None and r[col] in vals), key=json.dumps)
    proc = run_paimon("read", table, "--where", _where(col, vals), *extra)
    got = sorted((json.loads(l) for l in proc.stdout.splitlines() if l.strip()), key=json.dumps)
    assert got == want, (col, vals)
    return proc.stderr


def _latest_snapshot(table):
    d = table / "snapshot"
    n = max(int(p.name[9:]) for p in d.glob("snapshot-*"))
    return json.loads((d / f"snapshot-{n}").read_text())


def _decode_source(b):
    version, level, n = struct.unpack(">iii", b[:12])
    assert version == 1 and level > 0 and n > 0
    off, files = 12, []
    for _ in range(n):
        (ln,) = struct.unpack(">H", b[off:off + 2])
        name = b[off + 2:off + 2 + ln].decode()
        (rows,) = struct.unpack(">q", b[off + 2 + ln:off + 10 + ln])
        files.append((name, rows))
        off += 10 + ln
    assert off == len(b)
    return level, files


def _payloads(table):
    """{(bucket, level, field id): (index type, file name, source files)} of the latest snapshot."""
    snap = _latest_snapshot(table)
    out = {}
    if not snap.get("indexManifest"):
        return out, snap
    for e in fastavro.reader(open(table / "manifest" / snap["indexManifest"], "rb")):
        g = e["_GLOBAL_INDEX"]
        if g is None:
            continue
        assert g["_SOURCE_META"] is not None, e
        level, files = _decode_source(g["_SOURCE_META"])
        rows = sum(r for _, r in files)
        assert g["_ROW_RANGE_START"] == 0 and g["_ROW_RANGE_END"] == rows - 1 and e["_ROW_COUNT"] == rows
        assert e["_FILE_NAME"].startswith("index-")
        key = (e["_BUCKET"], level, g["_INDEX_FIELD_ID"])
        assert key not in out, key
        out[key] = (e["_INDEX_TYPE"], e["_FILE_NAME"], files)
    return out, snap


def _check_coverage(table):
    """One payload per (bucket, positive level, declared column) over that
    level's live files in name order; none for level 0."""
    pay, snap = _payloads(table)
    files = json.loads(run_paimon("files", table, "--json").stdout)
    levels = {}
    for f in files:
        if f["level"] > 0:
            levels.setdefault((f["bucket"], f["level"]), []).append((f["file_name"], f["record_count"]))
    want = set()
    for (b, lvl), fs in levels.items():
        for fid, typ in ((1, "btree"), (2, "bitmap")):
            want.add((b, lvl, fid))
            assert (b, lvl, fid) in pay, ((b, lvl, fid), sorted(pay))
            assert pay[(b, lvl, fid)][0] == typ
            assert pay[(b, lvl, fid)][2] == sorted(fs)
    assert set(pay) == want
    return pay, snap


def _random_rows(rng, ids, gen):
    return [{"id": i, "cat": rng.choice([None, 1, 2, 3, 4, 5]) if gen else rng.randint(1, 5),
             "name": rng.choice(["a", "b", "c", "d", None]), "v": gen * 1000 + i} for i in ids]


def _queries(table, rng):
    for v in (1, 2, 3, 4, 5, 99):
        _check(table, "cat", [v])
    for v in ("a", "b", "c", "d", "zz"):
        _check(table, "name", [v])
    for _ in range(4):
        _check(table, "cat", rng.sample([1, 2, 3, 4, 5], 2))
        _check(table, "name", rng.sample(["a", "b", "c", "d"], 2))


@pytest.mark.parametrize("dv", [False, True])
def test_levels_maintained_and_reads_exact(tmp_path, dv):
    rng = random.Random(16 + dv)
    opts = {"deletion-vectors.enabled": "true"} if dv else {}
    t = _create(tmp_path, "t", opts)
    _py_write(tmp_path, "t", _random_rows(rng, range(0, 400), 0))
    _py_write(tmp_path, "t", _random_rows(rng, range(200, 600), 1))
    run_paimon("compact", t)
    pay1, snap = _check_coverage(t)
    assert pay1 and snap["commitKind"] == "COMPACT"
    _queries(t, rng)
    # updates at level 0: keys whose newest version moved to another value
    _py_write(tmp_path, "t", _random_rows(rng, rng.sample(range(0, 600), 150), 2))
    _our_delete(t, tmp_path, rng.sample(range(0, 600), 40), "a")
    _queries(t, rng)
    run_paimon("compact", t)
    pay2, _ = _check_coverage(t)
    _queries(t, rng)
    # retained: a level whose files did not change keeps its payload file
    for k, v in pay2.items():
        if k in pay1 and v[2] == pay1[k][2]:
            assert v[1] == pay1[k][1], k
        elif k in pay1:
            assert v[1] != pay1[k][1], k
    _py_write(tmp_path, "t", _random_rows(rng, rng.sample(range(0, 700), 200), 3))
    run_paimon("compact", t, "--full")
    pay3, _ = _check_coverage(t)
    _queries(t, rng)
    # full compaction: everything at the max level, one payload per bucket and column
    assert {k[1] for k in pay3} == {5}


def test_index_skips_files(tmp_path):
    t = _create(tmp_path, "s", {})
    rows = [{"id": i, "cat": i % 3, "name": "n%d" % (i % 3), "v": i} for i in range(300)]
    _py_write(tmp_path, "s", rows)
    run_paimon("compact", t, "--full")
    _check_coverage(t)
    err = _check(t, "cat", [42])
    assert "data files skipped" in err
    err = _check(t, "name", ["nobody"])
    assert "data files skipped" in err


def test_automatic_compaction_maintains(tmp_path):
    """write-only=false: our writes compact automatically and maintain the
    indexes in the COMPACT snapshot."""
    t = tmp_path / "a"
    run_paimon("create", t, "--schema", "id BIGINT NOT NULL, cat INT, name STRING, v BIGINT", "--primary-keys", "id",
               "--option", "bucket=1", "--option", "write-only=false", "--option",
               "num-sorted-run.compaction-trigger=2", "--option", "global-index.btree.index-columns=cat")
    rng = random.Random(3)
    for gen in range(4):
        p = tmp_path / f"in{gen}.jsonl"
        p.write_text("".join(json.dumps(r) + "\n" for r in _random_rows(rng, rng.sample(range(500), 200), gen)))
        run_paimon("write", t, "--input", p)
        for v in (1, 2, 3, 4, 5):
            _check(t, "cat", [v])
    pay, snap = _payloads(t)
    assert pay and all(k[2] == 1 for k in pay)


@pytest.mark.parametrize("opts,needle", [
    (["bucket=-1"], "need a fixed bucket count"),
    (["bucket=-2"], "need a fixed bucket count"),
])
def test_pk_bucket_refusals(tmp_path, opts, needle):
    t = tmp_path / "r"
    args = ["create", t, "--schema", "id BIGINT NOT NULL, cat INT", "--primary-keys", "id", "--option",
            "global-index.btree.index-columns=cat"]
    for o in opts:
        args += ["--option", o]
    proc = run_paimon(*args, check=False)
    assert proc.returncode in (1, 2) and needle in proc.stderr, proc.stderr
    assert not t.exists()


def test_index_round_refused_for_pk(tmp_path):
    t = _create(tmp_path, "i", {})
    _py_write(tmp_path, "i", _random_rows(random.Random(1), range(10), 0))
    proc = run_paimon("index", t, check=False)
    assert proc.returncode == 1 and "maintains them" in proc.stderr


# ------------------------------------------------------------ Java 1.4.2

def test_java_reads_and_compacts_indexed_table(java, tmp_path):
    """Java 1.4.2 has no source-backed indexes: it reads an indexed table's
    rows as we do and compacts it (keeping our entries, now stale); our
    reads then ignore the stale payloads, and our next compaction of each
    bucket restores the coverage."""
    rng = random.Random(5)
    t = _create(tmp_path, "j", {})
    _py_write(tmp_path, "j", _random_rows(rng, range(0, 300), 0))
    _py_write(tmp_path, "j", _random_rows(rng, range(100, 400), 1))
    run_paimon("compact", t)
    _check_coverage(t)
    key = lambda r: r["id"]
    assert sorted(java.read(str(t)), key=key) == sorted(run_paimon_jsonl("read", t), key=key)
    _py_write(tmp_path, "j", _random_rows(rng, rng.sample(range(400), 100), 2))
    java.call_json("compact", str(t))
    assert sorted(java.read(str(t)), key=key) == sorted(run_paimon_jsonl("read", t), key=key)
    _queries(t, rng)
    _py_write(tmp_path, "j", _random_rows(rng, range(400), 3))
    run_paimon("compact", t, "--full")
    _check_coverage(t)
    _queries(t, rng)
    assert sorted(java.read(str(t)), key=key) == sorted(run_paimon_jsonl("read", t), key=key)
