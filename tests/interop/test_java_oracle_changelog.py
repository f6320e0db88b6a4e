"""Changelogs against Apache Paimon Java 1.4.2 and pypaimon.

1. changelog-producer=lookup with partial-update and aggregation (also
   with aggregation.remove-record-on-delete: DELETE events): Java
   writes level-0 runs; one copy is compacted by us (`paimon compact`),
   one by Java (`compact-pk --full false`, the same ForceUpLevel0 pick),
   stage after stage with our writer adding sparse updates (and, for
   aggregation, retracts: a lone DELETE of a `sum` becomes state).  The
   changelog files hold the same rows — keys, values, kinds and sequence
   numbers — and Java reads both tables identically (and as we do).
2. Incremental reads of the changelog we wrote: `paimon read
   --incremental-between A,B --mode M` prints what Java's
   incremental-between read prints (delta, changelog, auto), and
   pypaimon's incremental-between-timestamp read (row kinds included)
   gives the same rows.
"""
import json
import shutil

import pytest

from test_java_oracle import _java_lines, _lines, _need, _paimon, java  # noqa: F401


def _changelog_rows(path, seen):
    """Rows (JSON lines, all columns) of the changelog files not in `seen`
    (any partition); adds them to it."""
    rows = []
    for f in sorted(path.rglob("changelog-*")):
        if f.name not in seen:
            seen.add(f.name)
            rows += _lines(_paimon("cat", f))
    return sorted(rows)


ENGINES = {
    "partial-update": ["--option", "merge-engine=partial-update"],
    "aggregation": ["--option", "merge-engine=aggregation",
                    "--option", "fields.qty.aggregate-function=sum",
                    "--option", "fields.price.aggregate-function=sum",
                    "--delete-every", "7"],
    # a -D removes the record: live history and a deleted result give DELETE events
    "aggregation-remove": ["--option", "merge-engine=aggregation",
                           "--option", "fields.qty.aggregate-function=sum",
                           "--option", "fields.price.aggregate-function=sum",
                           "--option", "aggregation.remove-record-on-delete=true",
                           "--delete-every", "7"],
}


def _updates(engine, stage):
    """Sparse level-0 updates of the generated keys, some new keys; for
    aggregation also retracts (lone ones on new keys)."""
    out = []
    for i in range(stage, 2600, 5):
        r = {"id": i, "p": 0, "k": None, "name": None, "price": None, "qty": None, "ts": None, "note": None}
        if i % 3 == 0:
            r["name"] = "upd-%d-%d" % (stage, i)
        elif i % 3 == 1:
            r["qty"] = i % 13
            r["price"] = 0.25 * stage
        else:
            r["note"] = "n%d" % stage
        if engine.startswith("aggregation"):
            r["qty"], r["price"] = i % 11, 1.5
            if i % 4 == 0:
                r["_ROW_KIND"] = "-D"
        out.append(r)
    for i in range(stage * 100, stage * 100 + 40):  # new keys
        r = {"id": 10**6 + i, "p": 0, "k": i, "name": "new", "price": 2.0, "qty": 3, "ts": None, "note": None}
        if engine.startswith("aggregation") and i % 5 == 0:
            r["_ROW_KIND"] = "-D"  # a lone retract: state -3 after lookup compaction
        out.append(r)
    return "".join(json.dumps(r) + "\n" for r in out)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_lookup_changelog_like_java(java, tmp_path, engine):
    _need("compact", "write", "cat")
    src = tmp_path / "src" / "db.db" / "t"
    # one partition p=0: p is a key, so a lone retract leaves no NOT NULL value field null
    java.call_json("write-pk", src, "--rows", 1500, "--runs", 4, "--bucket", 2, "--overlap", "0.5",
                   "--partitions", 1, "--option", "changelog-producer=lookup", "--option", "write-only=true",
                   *ENGINES[engine])
    ours, theirs = tmp_path / "ours" / "db.db" / "t", tmp_path / "java" / "db.db" / "t"
    shutil.copytree(src, ours)
    shutil.copytree(src, theirs)
    seen_ours, seen_theirs = set(), set()
    kinds = set()
    for stage in range(4):
        if stage:
            for p in (ours, theirs):
                _paimon("write", p, input=_updates(engine, stage))
        _paimon("compact", ours)
        java.call_json("compact-pk", theirs, "--full", "false")
        levels = lambda p: sorted((f["bucket"], f["level"]) for f in json.loads(_paimon("files", p, "--json")))
        assert levels(ours) == levels(theirs), stage
        a, b = _changelog_rows(ours, seen_ours), _changelog_rows(theirs, seen_theirs)
        assert a and a == b, stage
        kinds |= {json.loads(r)["_VALUE_KIND"] for r in a}
        want = _java_lines(java, theirs)
        assert _java_lines(java, ours) == want, stage
        assert _lines(_paimon("read", ours)) == want, stage
    assert kinds >= ({0, 1, 2, 3} if engine == "aggregation-remove" else {0, 1, 2}), kinds
    if engine == "aggregation":
        # a lone DELETE of a sum became the state -qty
        row = [json.loads(r) for r in _lines(_paimon("read", ours)) if json.loads(r)["id"] == 10**6 + 100]
        assert row and row[0]["qty"] == -3, row


def _snapshot_times(path):
    out = {}
    for f in (path / "snapshot").glob("snapshot-*"):
        s = json.loads(f.read_text())
        out[s["id"]] = s["timeMillis"]
    return out


def _pypaimon_incremental(path, t0, t1):
    """pypaimon's incremental-between-timestamp read with row kinds."""
    from pypaimon import CatalogFactory
    wh, db, name = path.parent.parent, path.parent.name[:-3], path.name
    t = CatalogFactory.create({"warehouse": str(wh)}).get_table("%s.%s" % (db, name))
    t = t.copy({"incremental-between-timestamp": "%d,%d" % (t0, t1)})
    rb = t.new_read_builder()
    r = rb.new_read()
    r.include_row_kind = True
    return r.to_arrow(rb.new_scan().plan().splits()).to_pylist()


def test_incremental_reads_like_java_and_pypaimon(java, tmp_path):
    _need("write", "read")
    t = tmp_path / "wh" / "db.db" / "t"
    _paimon("create", t, "--schema", "id BIGINT NOT NULL, v STRING, n INT", "--primary-keys", "id",
            "--option", "bucket=2", "--option", "changelog-producer=lookup")
    rows = [
        "".join(json.dumps({"id": i, "v": "a%d" % i, "n": i}) + "\n" for i in range(40)),
        "".join(json.dumps({"id": i, "v": "b%d" % i, "n": -i}) + "\n" for i in range(0, 60, 3)),
        "".join(json.dumps({"id": i, "v": None, "n": None, "_ROW_KIND": "-D"}) + "\n" for i in range(0, 40, 4)),
    ]
    for text in rows:
        _paimon("write", t, input=text)  # each: an APPEND and a COMPACT snapshot with the changelog
    times = _snapshot_times(t)
    last = max(times)
    assert last == 6
    for a, b in ((0, last), (2, 4), (1, 5), (3, 3)):
        for mode in ("auto", "delta", "changelog"):
            ours = _lines(_paimon("read", t, "--incremental-between", "%d,%d" % (a, b), "--mode", mode))
            theirs = _java_lines(java, t, "--incremental-between", "%d,%d" % (a, b), "--mode", mode)
            assert ours == theirs, (a, b, mode)
        if a < b and a > 0:
            # pypaimon: snapshots with a time in (time(a), time(b)], changelog (the table has a producer)
            py = _pypaimon_incremental(t, times[a], times[b])
            got = sorted(json.dumps({"id": r["id"], "v": r["v"], "n": r["n"], "_ROW_KIND": r["_row_kind"]},
                                    separators=(",", ":")) for r in py)
            ours = _lines(_paimon("read", t, "--incremental-between", "%d,%d" % (a, b), "--mode", "changelog"))
            assert got == ours, (a, b)
    cl = _lines(_paimon("read", t, "--incremental-between", "0,%d" % last))
    assert {json.loads(r)["_ROW_KIND"] for r in cl} == {"+I", "-U", "+U", "-D"}
