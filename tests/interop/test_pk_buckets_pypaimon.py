"""Dynamic-bucket primary-key tables between pypaimon and paimon-c.

pypaimon creates and writes a dynamic-bucket table (bucket = -1, a small
dynamic-bucket.target-row-num so keys spread over several buckets per
partition); then we write into it (`paimon write`: keys placed from the
HASH index pypaimon wrote, new HASH files committed with the data),
pypaimon writes again (using the HASH index we wrote), we compact
(`paimon compact`, and automatic rounds), pypaimon writes once more.
After every step pypaimon's read and ours equal an in-memory model of the
merged rows, every key lives in exactly one bucket of its partition, and
pypaimon, restoring the HASH index we wrote, places every key where we did.
"""
import json
import random
import struct

import pyarrow as pa
import pytest
from pypaimon import CatalogFactory, Schema

from conftest import run_paimon

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("v", pa.string()), ("n", pa.int32()),
                    pa.field("dt", pa.string(), nullable=False)])


def _catalog(wh):
    cat = CatalogFactory.create({"warehouse": str(wh)})
    cat.create_database("db", True)
    return cat


def _py_write(wh, rows):
    t = _catalog(wh).get_table("db.t")
    wb = t.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(pa.Table.from_pylist(rows, schema=SCHEMA))
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def _our_write(path, rows):
    run_paimon("write", path, input="".join(json.dumps(r) + "\n" for r in rows))


def _py_rows(wh):
    t = _catalog(wh).get_table("db.t")
    rb = t.new_read_builder()
    return sorted((r["dt"], r["id"], r["v"], r["n"]) for r in rb.new_read().to_arrow(rb.new_scan().plan().splits())
                  .to_pylist())


def _our_rows(path):
    out = run_paimon("read", path).stdout
    return sorted((r["dt"], r["id"], r["v"], r["n"]) for r in map(json.loads, out.splitlines()))


def _files(path):
    return json.loads(run_paimon("files", path, "--json").stdout)


def _check_layout(path):
    """Every key lives in one bucket of its partition."""
    where = {}
    for f in _files(path):
        part = f["partition"]
        d = path / part / ("bucket-%d" % f["bucket"])
        for r in map(json.loads, run_paimon("cat", d / f["file_name"]).stdout.splitlines()):
            key = (part, r["id"])
            assert where.setdefault(key, f["bucket"]) == f["bucket"], key
    return where


def _model_apply(model, rows):
    for r in rows:
        model[(r["dt"], r["id"])] = (r["dt"], r["id"], r["v"], r["n"])


def _batch(rng, keys, tag, n):
    return [{"id": rng.randrange(keys), "v": "%s%d" % (tag, i), "n": i, "dt": rng.choice(["a", "b"])}
            for i in range(n)]


def test_dynamic_bucket_round_trip(tmp_path):
    wh = tmp_path / "wh"
    cat = _catalog(wh)
    cat.create_table("db.t", Schema.from_pyarrow_schema(
        SCHEMA, partition_keys=["dt"], primary_keys=["id", "dt"],
        options={"bucket": "-1", "dynamic-bucket.target-row-num": "40"}), False)
    path = wh / "db.db" / "t"
    rng = random.Random(7)
    model = {}

    def check():
        want = sorted(model.values())
        assert _py_rows(wh) == want
        assert _our_rows(path) == want
        _check_layout(path)

    steps = [("py", 150), ("ours", 200), ("py", 120), ("compact", 0), ("ours", 160), ("py", 90)]
    for i, (who, n) in enumerate(steps):
        if who == "compact":
            run_paimon("compact", path)
        else:
            rows = _batch(rng, 300, "%s%d-" % (who, i), n)
            # one row per key and partition within a batch, so the model is exact
            seen, uniq = set(), []
            for r in reversed(rows):
                if (r["dt"], r["id"]) not in seen:
                    seen.add((r["dt"], r["id"]))
                    uniq.append(r)
            (_py_write if who == "py" else lambda w, r: _our_write(path, r))(wh, uniq)
            _model_apply(model, uniq)
        check()
    buckets = {(f["partition"], f["bucket"]) for f in _files(path)}
    assert len(buckets) >= 6, buckets  # several buckets per partition
    # our writes ran automatic compaction rounds too: some files above level 0
    assert any(f["level"] > 0 for f in _files(path))


def test_hash_index_lists_bucket_keys(tmp_path):
    """The HASH files we write hold the BinaryRow hashes pypaimon computes."""
    wh = tmp_path / "wh"
    cat = _catalog(wh)
    cat.create_table("db.t", Schema.from_pyarrow_schema(
        SCHEMA, partition_keys=["dt"], primary_keys=["id", "dt"],
        options={"bucket": "-1", "dynamic-bucket.target-row-num": "5", "write-only": "true"}), False)
    path = wh / "db.db" / "t"
    rows = [{"id": i, "v": "x", "n": i, "dt": "a"} for i in range(23)]
    _our_write(path, rows)
    # pypaimon's own assignment of the same keys (its writer restores our index)
    t = _catalog(wh).get_table("db.t")
    from pypaimon.write.row_key_extractor import DynamicBucketRowKeyExtractor
    ext = DynamicBucketRowKeyExtractor(t.table_schema, table=t)
    batch = pa.RecordBatch.from_pylist(rows, schema=SCHEMA)
    parts, buckets = ext.extract_partition_bucket_from_hashes_batch(batch, ext.extract_hashes_batch(batch)[2])
    ours = {}
    for f in _files(path):
        d = path / f["partition"] / ("bucket-%d" % f["bucket"])
        for r in map(json.loads, run_paimon("cat", d / f["file_name"]).stdout.splitlines()):
            ours[r["id"]] = f["bucket"]
    assert [ours[r["id"]] for r in rows] == buckets
    assert sorted(set(buckets)) == [0, 1, 2, 3, 4]


def test_postpone_bucket_round_trip(tmp_path):
    """pypaimon writes a postpone-bucket table (bucket = -2), so do we;
    readers see nothing until `paimon compact` assigns real buckets
    (postpone.default-bucket-num for new partitions), after which pypaimon
    reads the merged rows; the cycle repeats with both writers."""
    wh = tmp_path / "wh"
    cat = _catalog(wh)
    cat.create_table("db.t", Schema.from_pyarrow_schema(
        SCHEMA, partition_keys=["dt"], primary_keys=["id", "dt"],
        options={"bucket": "-2", "postpone.default-bucket-num": "3"}), False)
    path = wh / "db.db" / "t"
    rng = random.Random(11)
    model = {}
    for cycle in range(3):
        for who in ("py", "ours"):
            rows, seen = [], set()
            for r in reversed(_batch(rng, 80, "%s%d-" % (who, cycle), 60)):
                if (r["dt"], r["id"]) not in seen:
                    seen.add((r["dt"], r["id"]))
                    rows.append(r)
            if who == "py":
                _py_write(wh, rows)
            else:
                _our_write(path, rows)
            _model_apply(model, rows)
        postponed = [f for f in _files(path) if f["bucket"] == -2]
        assert postponed and all(f["file_name"].endswith(".avro") for f in postponed)
        run_paimon("compact", path)
        files = _files(path)
        assert all(f["bucket"] >= 0 for f in files)
        assert {f["bucket"] for f in files} <= {0, 1, 2}
        want = sorted(model.values())
        assert _py_rows(wh) == want
        assert _our_rows(path) == want
        _check_layout(path)


def test_cross_partition_we_write_pypaimon_reads(tmp_path):
    """A cross-partition table (primary key id, partition dt, bucket -1)
    created by pypaimon: we write keys that move between partitions and
    compact; pypaimon reads every key once, in its latest partition.
    (This pypaimon refuses cross-partition writes without its native
    writer, so only we write.)"""
    wh = tmp_path / "wh"
    cat = _catalog(wh)
    cat.create_table("db.t", Schema.from_pyarrow_schema(
        SCHEMA, partition_keys=["dt"], primary_keys=["id"],
        options={"bucket": "-1", "dynamic-bucket.target-row-num": "30"}), False)
    path = wh / "db.db" / "t"
    rng = random.Random(5)
    model = {}
    for step in range(4):
        rows, seen = [], set()
        for i in range(120):
            k = rng.randrange(150)
            if k in seen:
                continue
            seen.add(k)
            rows.append({"id": k, "v": "s%d" % step, "n": i, "dt": rng.choice(["a", "b", "c"])})
        _our_write(path, rows)
        for r in rows:
            model[r["id"]] = (r["dt"], r["id"], r["v"], r["n"])
        if step == 2:
            run_paimon("compact", path)
        want = sorted(model.values())
        assert _py_rows(wh) == want
        assert _our_rows(path) == want
