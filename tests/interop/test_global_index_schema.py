"""Schema-id-aware retirement (table/global_index_epoch.h): after an
indexed column's type changes (INT -> BIGINT, as another engine's ALTER
writes it), the payloads built under INT are skipped by reads (the filtered
read returns the full scan's rows, not an error or a stale answer) and
retired by the next maintenance round, which rebuilds the coverage under
BIGINT; pypaimon then reads the new payloads.  A schema change that keeps
the type (an option) retires nothing.
"""
import json
import os
import random

from conftest import run_paimon
from test_global_index import _check_where, _live_entries, _pypaimon_row_ids, _brute


def _next_schema(t, edit):
    ids = sorted(int(p.name[7:]) for p in (t / "schema").glob("schema-*"))
    schema = json.loads((t / "schema" / f"schema-{ids[-1]}").read_text())
    schema["id"] = ids[-1] + 1
    edit(schema)
    (t / "schema" / f"schema-{ids[-1] + 1}").write_text(json.dumps(schema, indent=2))


def test_type_change_retires_and_rebuilds(tmp_path):
    wh = tmp_path / "wh" / "db.db"
    wh.mkdir(parents=True)
    t = wh / "t"
    run_paimon("create", t, "--schema", "k INT, s STRING", "--option", "bucket=-1", "--option",
               "row-tracking.enabled=true", "--option", "data-evolution.enabled=true", "--option",
               "global-index.btree.index-columns=k", "--option", "global-index.bitmap.index-columns=s",
               "--option", "bitmap-index.format=dictionary")
    rng = random.Random(9)
    for w in range(2):
        p = tmp_path / f"w{w}.jsonl"
        p.write_text("".join(json.dumps({"k": rng.randrange(-30, 30), "s": rng.choice("xyz")}) + "\n"
                             for _ in range(80)))
        run_paimon("write", t, "--input", p)
    before = _live_entries(t)
    assert len(before) == 4
    # an option change keeps every payload
    _next_schema(t, lambda s: s["options"].__setitem__("snapshot.num-retained.min", "20"))
    out = json.loads(run_paimon("index", t, "--json").stdout)
    assert out["snapshot_id"] == 0, out
    # k becomes BIGINT: its INT payloads are stale, s's stay
    def retype(s):
        for f in s["fields"]:
            if f["name"] == "k":
                f["type"] = "BIGINT"
    _next_schema(t, retype)
    for v in (-5, 0, 7, 29):
        _check_where(t, "k", [v])  # reads skip the stale payloads
    out = json.loads(run_paimon("index", t, "--json").stdout)
    assert out["files_removed"] == 2 and out["files_added"] >= 1, out
    after = _live_entries(t)
    assert [e for e in after if e[0] == 1] == [e for e in before if e[0] == 1]  # s untouched
    for v in (-5, 0, 7, 29):
        _check_where(t, "k", [v])
        assert _pypaimon_row_ids(t, "k", [v]) == _brute(t, "k", [v])
    # the new payloads are current: nothing more to do
    out = json.loads(run_paimon("index", t, "--json").stdout)
    assert out["snapshot_id"] == 0, out
    assert os.listdir(t / "index")
