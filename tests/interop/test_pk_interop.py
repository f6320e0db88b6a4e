"""Primary-key tables between paimon-c and pypaimon.

- pypaimon writes PK tables (deduplicate with deletes through
  `rowkind.field`, first-row, partial-update, aggregation, sequence.field;
  partitioned; several buckets; one write + commit per batch, many
  commits): `paimon read` equals pypaimon's read at every snapshot.
- We write PK tables with `paimon write` (rows carry `_ROW_KIND` +I, -U, +U,
  -D): pypaimon reads the same rows as `paimon read` at every snapshot, and
  both equal an in-memory model where the engine is simple enough to model.
- The bucket of every row equals pypaimon's choice for the same rows
  (several key types, partitioned), and the golden fact bucket=4, INT id=1
  → bucket 2 holds.
- `paimon levels` lists every live file of every bucket.
"""
import glob
import json
import pathlib
import random

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pypaimon import CatalogFactory, Schema

from conftest import run_paimon
from table_read_oracle import canon_our_rows, canon_table, multiset, pypaimon_read

KINDS = ["+I", "-U", "+U", "-D"]


def catalog(tmp_path):
    cat = CatalogFactory.create({"warehouse": str(tmp_path / "wh")})
    cat.create_database("db", True)
    return cat


def create(tmp_path, name, schema, pks, partition_keys=None, options=None):
    cat = catalog(tmp_path)
    cat.create_table(f"db.{name}", Schema.from_pyarrow_schema(schema, partition_keys=partition_keys or [],
                                                            primary_keys=pks, options=options or {}), False)
    return tmp_path / "wh" / "db.db" / name


def py_commit(tmp_path, name, schema, rows):
    t = catalog(tmp_path).get_table(f"db.{name}")
    wb = t.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(pa.Table.from_pylist(rows, schema=schema))
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def our_commit(path, rows):
    text = "".join(json.dumps(r) + "\n" for r in rows)
    out = run_paimon("write", path, input=text).stdout
    assert out.startswith("snapshot ")
    return int(out.split()[1].rstrip(":"))


def our_rows(path, snapshot=None):
    args = ["read", path] + (["--snapshot", snapshot] if snapshot else [])
    return [json.loads(line) for line in run_paimon(*args).stdout.splitlines() if line.strip()]


def snapshots(path):
    return sorted(int(p.name[9:]) for p in (path / "snapshot").glob("snapshot-*"))


def assert_same_at_every_snapshot(tmp_path, path, pypaimon_wrote_kinds=False):
    """pypaimon 2.1.0 writes _DELETE_ROW_COUNT = 0 even for files holding -D
    records (write/writer/data_writer.py), so a section of one such file is
    read raw and its retract records come back as rows.  Where the table
    has `rowkind.field` = op (pypaimon-written kinds), rows whose own op is
    a retract are taken out of pypaimon's result: they are exactly those."""
    name = path.name
    for s in snapshots(path) + [None]:
        arrow = pypaimon_read(tmp_path / "wh", "db", name, s)
        if pypaimon_wrote_kinds:
            keep = [op not in ("-D", "-U") for op in arrow.column("op").to_pylist()]
            arrow = arrow.filter(pa.array(keep, type=pa.bool_()))
        want = multiset(canon_table(arrow))
        got = multiset(canon_our_rows(our_rows(path, s), arrow.schema))
        assert got == want, f"snapshot {s}"


# ------------------------------------------------------------ pypaimon writes

SCHEMA = pa.schema([("id", pa.int32()), ("v", pa.string()), ("n", pa.int64()), ("op", pa.string())])
PSCHEMA = pa.schema([("dt", pa.string()), ("id", pa.int32()), ("v", pa.string()), ("n", pa.int64()),
                     ("op", pa.string())])


def random_batches(rng, commits, keys, deletes, partitioned=False, sparse=False):
    out = []
    for c in range(commits):
        rows = []
        for i in range(rng.randint(1, 40)):
            k = rng.randrange(keys)
            op = "+I"
            if deletes:
                op = rng.choice(["+I", "+I", "+U", "-D"])
            v = None if rng.random() < 0.15 else f"v{c}-{i}"
            n = rng.randrange(-50, 1000)
            if sparse:
                if rng.random() < 0.5:
                    v = None
                else:
                    n = None
            r = {"id": k, "v": v, "n": n, "op": op}
            if partitioned:
                r["dt"] = "d%d" % (k % 2)
            rows.append(r)
        out.append(rows)
    return out


PY_CASES = {
    "dedup": (SCHEMA, ["id"], None, {"bucket": "2", "rowkind.field": "op"}, dict(deletes=True)),
    "dedup_partitioned": (PSCHEMA, ["dt", "id"], ["dt"], {"bucket": "3", "rowkind.field": "op"},
                          dict(deletes=True, partitioned=True)),
    "first_row": (SCHEMA, ["id"], None, {"bucket": "2", "merge-engine": "first-row"}, dict(deletes=False)),
    "partial_update": (SCHEMA, ["id"], None, {"bucket": "2", "merge-engine": "partial-update"},
                       dict(deletes=False, sparse=True)),
    "aggregation": (SCHEMA, ["id"], None, {"bucket": "2", "merge-engine": "aggregation",
                                           "fields.n.aggregate-function": "sum",
                                           "fields.v.aggregate-function": "max"}, dict(deletes=False)),
    "sequence_field": (SCHEMA, ["id"], None, {"bucket": "1", "sequence.field": "n", "rowkind.field": "op"},
                       dict(deletes=True)),
}


@pytest.mark.parametrize("case", sorted(PY_CASES))
def test_pypaimon_writes_we_read(tmp_path, case):
    schema, pks, parts, opts, kw = PY_CASES[case]
    path = create(tmp_path, case, schema, pks, parts, opts)
    rng = random.Random(hash(case) & 0xffff)
    for rows in random_batches(rng, 10, 60, **kw):
        py_commit(tmp_path, case, schema, rows)
    assert len(snapshots(path)) == 10
    assert_same_at_every_snapshot(tmp_path, path, pypaimon_wrote_kinds="rowkind.field" in opts)
    if case == "dedup":
        # and the ground truth: a model of the upserts and deletes
        model = {}
        rng = random.Random(hash(case) & 0xffff)
        for rows in random_batches(rng, 10, 60, **kw):
            for r in rows:
                if r["op"] in ("-D", "-U"):
                    model.pop(r["id"], None)
                else:
                    model[r["id"]] = r
        assert multiset(our_rows(path)) == multiset(model.values())
    # merge-on-read really happened: some bucket holds overlapping level-0 files
    levels = run_paimon("levels", path).stdout
    assert " L0 " in levels


# ------------------------------------------------------------ we write

def model_apply(model, rows, key=lambda r: r["id"]):
    for r in rows:
        r = dict(r)
        kind = r.pop("_ROW_KIND", "+I")
        if kind in ("-D", "-U"):
            model.pop(key(r), None)
        else:
            model[key(r)] = r


def our_batches(rng, commits, keys, partitioned=False, kinds=True):
    out = []
    for c in range(commits):
        rows = []
        for i in range(rng.randint(1, 50)):
            k = rng.randrange(keys)
            v = None if rng.random() < 0.1 else f"w{c}-{i}"
            r = {"id": k, "v": v, "n": rng.randrange(1000)}
            if partitioned:
                r["dt"] = "p%d" % (k % 3)
            if kinds:
                op = rng.choice(["+I", "+I", "upd", "-D"])
                if op == "upd":
                    old = dict(r, v="before")
                    old["_ROW_KIND"] = "-U"
                    rows.append(old)
                    r["_ROW_KIND"] = "+U"
                elif op == "-D":
                    r["_ROW_KIND"] = "-D"
            rows.append(r)
        out.append(rows)
    return out


OUR_SCHEMA = pa.schema([("id", pa.int32()), ("v", pa.string()), ("n", pa.int64())])
OUR_PSCHEMA = pa.schema([("dt", pa.string()), ("id", pa.int32()), ("v", pa.string()), ("n", pa.int64())])


@pytest.mark.parametrize("case", ["one_bucket", "partitioned_buckets", "tiny_buffer", "avro"])
def test_we_write_dedup_pypaimon_reads(tmp_path, case):
    partitioned = case == "partitioned_buckets"
    schema = OUR_PSCHEMA if partitioned else OUR_SCHEMA
    opts = {"bucket": "4" if partitioned else "1"}
    if case == "tiny_buffer":
        opts["write-buffer-size"] = "4 kb"
    if case == "avro":
        opts["file.format"] = "avro"
    path = create(tmp_path, case, schema, ["dt", "id"] if partitioned else ["id"], ["dt"] if partitioned else None,
                  opts)
    rng = random.Random(7)
    model = {}
    key = (lambda r: (r["dt"], r["id"])) if partitioned else (lambda r: r["id"])
    for rows in our_batches(rng, 12, 80, partitioned):
        our_commit(path, rows)
        model_apply(model, rows, key)
        got = our_rows(path)
        assert sorted(got, key=lambda r: json.dumps(r, sort_keys=True)) == \
            sorted(model.values(), key=lambda r: json.dumps(r, sort_keys=True))
    assert_same_at_every_snapshot(tmp_path, path)


def test_we_write_engines_pypaimon_reads(tmp_path):
    rng = random.Random(11)
    cases = {
        "pu": {"bucket": "2", "merge-engine": "partial-update"},
        "agg": {"bucket": "2", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum",
                "fields.v.aggregate-function": "min"},
        # write-only: no automatic compaction, so level 0 stays invisible
        "fr": {"bucket": "2", "merge-engine": "first-row", "write-only": "true"},
        "seq": {"bucket": "2", "sequence.field": "n"},
    }
    for name, opts in cases.items():
        path = create(tmp_path, name, OUR_SCHEMA, ["id"], None, opts)
        for rows in our_batches(rng, 8, 40, kinds=(name == "seq")):
            if name == "pu":
                for r in rows:
                    if rng.random() < 0.5:
                        r["v"] = None
                    else:
                        r["n"] = None
            our_commit(path, rows)
        assert_same_at_every_snapshot(tmp_path, path)
    # first-row: batch reads skip level 0 (Java), and both readers agree on that
    assert our_rows(tmp_path / "wh" / "db.db" / "fr") == []


def test_changelog_input_and_levels(tmp_path):
    path = create(tmp_path, "cl", OUR_SCHEMA, ["id"], None, {"bucket": "2", "changelog-producer": "input"})
    our_commit(path, [{"id": 1, "v": "a", "n": 1}, {"id": 1, "v": "a", "n": 1, "_ROW_KIND": "-U"},
                      {"id": 1, "v": "b", "n": 2, "_ROW_KIND": "+U"}, {"id": 2, "v": "c", "n": 3}])
    assert len(glob.glob(str(path / "bucket-*" / "changelog-*.parquet"))) >= 1
    assert_same_at_every_snapshot(tmp_path, path)
    levels = run_paimon("levels", path, "--files").stdout
    data_files = glob.glob(str(path / "bucket-*" / "data-*.parquet"))
    for f in data_files:
        assert pathlib.Path(f).name in levels
    # every changelog record is there, raw
    rows = []
    for f in glob.glob(str(path / "bucket-*" / "changelog-*.parquet")):
        rows += pq.ParquetFile(f).read().to_pylist()
    assert sorted(r["_VALUE_KIND"] for r in rows) == [0, 0, 1, 2]


# ------------------------------------------------------------ buckets

def key_buckets(path, key_cols):
    out = {}
    for f in glob.glob(str(path / "**" / "bucket-*" / "data-*.parquet"), recursive=True):
        bucket = int(pathlib.Path(f).parent.name.split("-")[1])
        for r in pq.ParquetFile(f).read().to_pylist():
            out[tuple(r[c] for c in key_cols)] = bucket
    return out


@pytest.mark.parametrize("layout", ["int", "string", "composite", "partitioned", "bucket_key"])
def test_bucket_of_every_row_matches_pypaimon(tmp_path, layout):
    schema = pa.schema([("dt", pa.string()), ("id", pa.int32()), ("name", pa.string()), ("big", pa.int64()),
                        ("v", pa.string())])
    pks = {"int": ["id"], "string": ["name"], "composite": ["name", "id", "big"], "partitioned": ["dt", "id"],
           "bucket_key": ["id", "name"]}[layout]
    parts = ["dt"] if layout == "partitioned" else None
    opts = {"bucket": "7"}
    if layout == "bucket_key":
        opts["bucket-key"] = "name"
    rows = [{"dt": "d%d" % (i % 3), "id": i * 7919 - 300, "name": "name-%d" % (i * 31), "big": i * 1_000_000_007,
             "v": "x"} for i in range(300)]
    ours = create(tmp_path / "a", "t", schema, pks, parts, opts)
    theirs = create(tmp_path / "b", "t", schema, pks, parts, opts)
    our_commit(ours, rows)
    py_commit(tmp_path / "b", "t", schema, rows)
    cols = [f"_KEY_{k}" for k in pks if k not in (parts or [])]
    a, b = key_buckets(ours, cols), key_buckets(theirs, cols)
    assert len(a) == 300 and a == b


def test_bucket_golden_fact(tmp_path):
    path = create(tmp_path, "g", pa.schema([("id", pa.int32()), ("v", pa.string())]), ["id"], None,
                  {"bucket": "4"})
    our_commit(path, [{"id": 1, "v": "a"}])
    assert [pathlib.Path(p).parent.name for p in glob.glob(str(path / "bucket-*" / "*.parquet"))] == ["bucket-2"]
