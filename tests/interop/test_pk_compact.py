"""Compaction of primary-key tables between paimon-c and pypaimon.

- pypaimon writes PK tables (deduplicate with deletes, first-row,
  partial-update, aggregation, sequence.field; partitioned; several
  buckets; many commits).  Our read equals pypaimon's before compaction;
  after `paimon compact` (explicit) and `paimon compact --full` pypaimon's
  read is unchanged, our read too, and every bucket's files sit where an
  independent Python model of the selection rules predicts (universal
  compaction: size amplification, size ratio, run count, the explicit
  progress rule, the output level; whole-bucket selection for
  order-sensitive engines; full compaction to the max level).
- pypaimon keeps writing after our compaction (sequence numbers continue)
  and both readers still agree.
- Dynamic bucket mode (bucket=-1): the same, over pypaimon's hash-index
  bucket assignment, which our compaction leaves alone (pypaimon keeps
  writing into the same buckets afterwards).
- Distributed: compact-plan / compact-exec / compact-commit of a PK table.
- Automatic compaction after `paimon write` honors the run trigger.
"""
import json
import random
import subprocess

import pyarrow as pa
import pytest
from pypaimon import CatalogFactory, Schema

from conftest import run_paimon
from table_read_oracle import canon_our_rows, canon_table, multiset, pypaimon_read


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


def our_rows(path):
    return [json.loads(line) for line in run_paimon("read", path).stdout.splitlines() if line.strip()]


def files(path):
    return json.loads(run_paimon("files", path, "--json").stdout)


def py_state(tmp_path, name, with_kinds):
    arrow = pypaimon_read(tmp_path / "wh", "db", name)
    if with_kinds:
        # pypaimon 2.1.0 writes _DELETE_ROW_COUNT = 0 for files holding
        # retracts, so a single-file section comes back raw with them
        keep = [op not in ("-D", "-U") for op in arrow.column("op").to_pylist()]
        arrow = arrow.filter(pa.array(keep, type=pa.bool_()))
    return arrow


def assert_same(tmp_path, path, with_kinds):
    arrow = py_state(tmp_path, path.name, with_kinds)
    want = multiset(canon_table(arrow))
    got = multiset(canon_our_rows(our_rows(path), arrow.schema))
    assert got == want
    return want


# ------------------------------------------------------------ the selection model

def bucket_runs(fs):
    """Files of one bucket → runs (level-0 files newest first, then one run
    per positive level ascending) as lists of file dicts."""
    l0 = sorted([f for f in fs if f["level"] == 0],
                key=lambda f: (-f["max_sequence_number"], f["min_sequence_number"], f["creation_time"],
                               f["file_name"]))
    runs = [[f] for f in l0]
    for lvl in sorted({f["level"] for f in fs if f["level"] > 0}):
        runs.append([f for f in fs if f["level"] == lvl])
    return runs


def predict(fs, explicit=True, full=False, whole=False, trigger=5, ratio=1, amp=200, num_levels=6):
    """(selected file names, output level) or None, per Java's universal
    compaction (release-2.0) + the explicit progress rule."""
    runs = bucket_runs(fs)
    n = len(runs)
    if not n:
        return None
    num_levels = max(num_levels, max(f["level"] for f in fs) + 1)
    max_level = num_levels - 1
    level = [r[0]["level"] for r in runs]
    size = [sum(f["file_size_in_bytes"] for f in r) for r in runs]
    names = lambda c: {f["file_name"] for r in runs[:c] for f in r}

    def unit(c):
        if c == n:
            return c, max_level
        out = max(0, level[c] - 1)
        while out == 0 and c < n:
            c += 1
            if level[c - 1] != 0:
                out = level[c - 1]
                break
        if c == n:
            out = max_level
        return c, out

    def size_ratio(c, force):
        s = sum(size[:c])
        while c < n and not (s * (100 + ratio) / 100.0 < size[c]):
            s += size[c]
            c += 1
        return unit(c) if (force or c > 1) else None

    if full:
        if n == 1 and level[0] == max_level:
            return None
        return names(n), max_level
    pick = None
    if n >= trigger:
        if 100 * sum(size[:-1]) > amp * size[-1]:
            pick = (n, max_level)
        else:
            pick = size_ratio(1, False)
    if pick is None and n > trigger:
        pick = size_ratio(n - trigger + 1, False)
    if pick is None and explicit:
        c = 0
        while c < n and level[c] == 0:
            c += 1
        if c:
            if c < n and level[c] == 1:
                c += 1
            pick = size_ratio(c, True)
    if pick is None:
        return None
    c, out = pick
    sel = names(c)
    if len(sel) == 1 and runs[0][0]["level"] == out:
        return None  # the manager filter
    if whole:
        sel = names(n)
        out = max(level) or 1
    return sel, out


def check_levels(before, after, full=False, whole=False):
    """Every bucket moved as predicted: unselected files untouched,
    selected files gone or upgraded to the output level, new files at it."""
    key = lambda f: (f["partition"], f["bucket"])
    buckets = {}
    for f in before:
        buckets.setdefault(key(f), [[], []])[0].append(f)
    for f in after:
        buckets.setdefault(key(f), [[], []])[1].append(f)
    moved = 0
    for b, (pre, post) in buckets.items():
        p = predict(pre, full=full, whole=whole)
        pre_names = {f["file_name"]: f for f in pre}
        if p is None:
            assert {(f["file_name"], f["level"]) for f in post} == {(f["file_name"], f["level"]) for f in pre}, b
            continue
        sel, out = p
        moved += 1
        for f in post:
            if f["file_name"] in pre_names and f["file_name"] not in sel:
                assert f["level"] == pre_names[f["file_name"]]["level"], (b, f["file_name"])
            else:
                assert f["level"] == out, (b, f["file_name"], f["level"], out)
        post_names = {f["file_name"] for f in post}
        for name, f in pre_names.items():
            if name not in sel:
                assert name in post_names, (b, name)
    return moved


# ------------------------------------------------------------ pypaimon writes, we compact

SCHEMA = pa.schema([("id", pa.int32()), ("v", pa.string()), ("n", pa.int64()), ("op", pa.string())])
PSCHEMA = pa.schema([("dt", pa.string()), ("id", pa.int32()), ("v", pa.string()), ("n", pa.int64()),
                     ("op", pa.string())])


def batches(rng, commits, keys, deletes, partitioned=False, sparse=False):
    out = []
    for c in range(commits):
        rows = []
        for i in range(rng.randint(5, 60)):
            k = rng.randrange(keys)
            op = rng.choice(["+I", "+I", "+U", "-D"]) if deletes else "+I"
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


CASES = {
    "dedup": (SCHEMA, ["id"], None, {"bucket": "2", "rowkind.field": "op"}, dict(deletes=True), False),
    "dedup_partitioned": (PSCHEMA, ["dt", "id"], ["dt"], {"bucket": "3", "rowkind.field": "op"},
                          dict(deletes=True, partitioned=True), False),
    "first_row": (SCHEMA, ["id"], None, {"bucket": "2", "merge-engine": "first-row"}, dict(deletes=False), False),
    "partial_update": (SCHEMA, ["id"], None, {"bucket": "2", "merge-engine": "partial-update"},
                       dict(deletes=False, sparse=True), True),
    "aggregation": (SCHEMA, ["id"], None, {"bucket": "2", "merge-engine": "aggregation",
                                           "fields.n.aggregate-function": "sum",
                                           "fields.v.aggregate-function": "max"}, dict(deletes=False), True),
    "aggregation_minmax": (SCHEMA, ["id"], None, {"bucket": "2", "merge-engine": "aggregation",
                                                  "fields.n.aggregate-function": "max",
                                                  "fields.v.aggregate-function": "min",
                                                  "fields.op.aggregate-function": "max"},
                           dict(deletes=False), False),
    "sequence_field": (SCHEMA, ["id"], None, {"bucket": "1", "sequence.field": "n", "rowkind.field": "op"},
                       dict(deletes=True), False),
    # dynamic bucket mode (bucket=-1, pypaimon's hash index places the keys;
    # 1000 keys per bucket gives several buckets)
    "dedup_dynamic": (SCHEMA, ["id"], None, {"bucket": "-1", "dynamic-bucket.target-row-num": "1000",
                                             "rowkind.field": "op"}, dict(deletes=True), False),
    "partial_update_dynamic_partitioned": (PSCHEMA, ["dt", "id"], ["dt"],
                                           {"bucket": "-1", "dynamic-bucket.target-row-num": "700",
                                            "merge-engine": "partial-update"},
                                           dict(deletes=False, sparse=True, partitioned=True), True),
}


def first_row_model(all_batches, partitioned=False):
    model = {}
    for rows in all_batches:
        for r in rows:
            k = (r.get("dt"), r["id"])
            model.setdefault(k, r)
    return model


@pytest.mark.parametrize("case", sorted(CASES))
def test_pypaimon_writes_we_compact(tmp_path, case):
    schema, pks, parts, opts, kw, whole = CASES[case]
    path = create(tmp_path, case, schema, pks, parts, opts)
    kinds = "rowkind.field" in opts
    rng = random.Random(sum(map(ord, case)))
    # a large base at the max level, then small overlapping commits, so the
    # selection has real choices (output levels below the max)
    base = [{"id": k, "v": "base-%d-%032x" % (k, rng.getrandbits(128)), "n": k, "op": "+I"} for k in range(3000)]
    if parts:
        for r in base:
            r["dt"] = "d%d" % (r["id"] % 2)
    py_commit(tmp_path, case, schema, base)
    if opts.get("bucket") == "-1":
        assert len({(f["partition"], f["bucket"]) for f in files(path)}) > 2  # several dynamic buckets
    run_paimon("compact", path, "--full")
    written = [base]
    keys = 6000 if case == "first_row" else 3000  # first-row: half the keys are new
    for rows in batches(rng, 7, keys, **kw):
        py_commit(tmp_path, case, schema, rows)
        written.append(rows)
    state = assert_same(tmp_path, path, kinds)

    # explicit compaction
    before = files(path)
    run_paimon("compact", path)
    after = files(path)
    assert check_levels(before, after, whole=whole) > 0
    if not whole:
        assert 4 in {f["level"] for f in after}, after  # below the untouched max-level run
    if case == "first_row":
        # level 0 is invisible to batch reads of first-row tables; compaction
        # made the first rows visible
        state = assert_same(tmp_path, path, kinds)
        model = first_row_model(written)
        assert len(state) == len(model)
    else:
        assert assert_same(tmp_path, path, kinds) == state

    # pypaimon keeps writing on top of our levels
    for rows in batches(rng, 3, keys, **kw):
        py_commit(tmp_path, case, schema, rows)
        written.append(rows)
    state = assert_same(tmp_path, path, kinds)
    before = files(path)
    run_paimon("compact", path)
    after = files(path)
    check_levels(before, after, whole=whole)
    if case != "first_row":
        assert assert_same(tmp_path, path, kinds) == state
    state = assert_same(tmp_path, path, kinds)

    # full compaction: one run at the max level per bucket
    before = after
    run_paimon("compact", path, "--full")
    after = files(path)
    check_levels(before, after, full=True)
    assert {f["level"] for f in after} == {5}
    assert assert_same(tmp_path, path, kinds) == state
    if case == "first_row":
        model = first_row_model(written)
        got = {(r.get("dt"), r["id"]): r for r in our_rows(path)}
        assert {k: (v["v"], v["n"]) for k, v in got.items()} == {k: (v["v"], v["n"]) for k, v in model.items()}
    # deletes are gone from max-level files written by compaction
    for f in after:
        if f["file_source"] == "COMPACT":
            assert f["delete_row_count"] == 0


# ------------------------------------------------------------ distributed and automatic

def test_distributed_pk_compaction(tmp_path):
    path = create(tmp_path, "dist", PSCHEMA, ["dt", "id"], ["dt"], {"bucket": "2", "rowkind.field": "op"})
    rng = random.Random(5)
    for rows in batches(rng, 6, 50, deletes=True, partitioned=True):
        py_commit(tmp_path, "dist", PSCHEMA, rows)
    state = assert_same(tmp_path, path, True)
    plan = run_paimon("compact-plan", path, "--commit-user", "dist-user").stdout
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(plan)
    doc = json.loads(plan)
    assert doc["tasks"], doc
    for t in doc["tasks"]:
        assert t["mode"] == "primary-key"
        assert t["pk"]["output_level"] == t["output"]["level"]
        assert t["pk"]["policy"]["pick"] == "explicit"
    results = []
    for i in range(len(doc["tasks"])):
        out = run_paimon("compact-exec", plan_file, "--task", i).stdout
        f = tmp_path / f"r{i}.json"
        f.write_text(out)
        results.append(f)
        r = json.loads(out)
        assert r["pk"]["output_level"] == doc["tasks"][i]["pk"]["output_level"]
        for a in r["after"]:
            assert a["level"] == r["pk"]["output_level"]
    # commit half, then all (idempotent for the committed half's subset? no:
    # a different subset is a different commit) — commit the first, then the rest
    run_paimon("compact-commit", path, results[0], "--commit-user", "dist-user")
    if len(results) > 1:
        run_paimon("compact-commit", path, *results[1:], "--commit-user", "dist-user")
        # retry of the same subset: idempotent, no new snapshot
        n = len(list((path / "snapshot").glob("snapshot-*")))
        run_paimon("compact-commit", path, *results[1:], "--commit-user", "dist-user")
        assert len(list((path / "snapshot").glob("snapshot-*"))) == n
    assert assert_same(tmp_path, path, True) == state


def test_tampered_result_rejected(tmp_path):
    path = create(tmp_path, "tamper", SCHEMA, ["id"], None, {"bucket": "1", "rowkind.field": "op"})
    rng = random.Random(9)
    for rows in batches(rng, 3, 50, deletes=True):
        py_commit(tmp_path, "tamper", SCHEMA, rows)
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(run_paimon("compact-plan", path).stdout)
    r = json.loads(run_paimon("compact-exec", plan_file, "--task", 0).stdout)
    r["after"][0]["level"] = 3
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(r))
    res = run_paimon("compact-commit", path, bad, check=False)
    assert res.returncode == 1 and "EINVALID" in res.stderr and "output level" in res.stderr
    run_paimon("compact-abort", path, bad)


OUR_SCHEMA = pa.schema([("id", pa.int32()), ("v", pa.string()), ("n", pa.int64())])


def test_automatic_compaction_after_writes(tmp_path):
    path = create(tmp_path, "auto", OUR_SCHEMA, ["id"], None, {"bucket": "1"})
    rng = random.Random(3)
    model = {}
    kinds = []
    for c in range(12):
        rows = [{"id": rng.randrange(100), "v": f"c{c}", "n": c} for _ in range(30)]
        text = "".join(json.dumps(r) + "\n" for r in rows)
        out = run_paimon("write", path, input=text).stdout
        for r in rows:
            model[r["id"]] = r
        runs = len(bucket_runs(files(path)))
        assert runs <= 5, out  # the run trigger keeps the bucket small
        kinds.append("compacted" in out)
    assert any(kinds)
    got = {r["id"]: r for r in our_rows(path)}
    assert got == model
    arrow = pypaimon_read(tmp_path / "wh", "db", "auto")
    assert multiset(canon_table(arrow)) == multiset(canon_our_rows(list(model.values()), arrow.schema))
    # write-only tables are never compacted by writes
    path2 = create(tmp_path, "wo", OUR_SCHEMA, ["id"], None, {"bucket": "1", "write-only": "true"})
    for c in range(7):
        out = run_paimon("write", path2, input=json.dumps({"id": c % 3, "v": "x", "n": c}) + "\n").stdout
        assert "compacted" not in out
    assert len(files(path2)) == 7
