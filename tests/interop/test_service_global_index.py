"""`paimon serve` maintains global indexes (service/scheduler.c over
paimon/index.h): pypaimon writers (which build no global index) append to
a data-evolution table that declares btree and dictionary bitmap indexes
with write-only=false; after the service's passes a `global-index` job
appears in the registry, succeeds, and leaves no coverage missing
(`paimon index` finds nothing to build); pypaimon's global-index scanner
and `paimon read --where` then return the brute-force rows.  A table with
write-only=true and a table without declarations get passes but no
global-index job.
"""
import json
import random
import time

import pyarrow as pa

from conftest import run_paimon
from service_util import Service
from test_global_index import _check_where
from test_global_index_formats import _check_cols
from test_service import catalog, create, py_write

SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("cat", pa.int32())])
DE = {"bucket": "-1", "row-tracking.enabled": "true", "data-evolution.enabled": "true"}
DECL = {"global-index.btree.index-columns": "id", "global-index.bitmap.index-columns": "name,cat",
        "bitmap-index.format": "dictionary"}


def test_service_builds_missing_coverage(tmp_path):
    wh = tmp_path / "wh"
    paths = {
        "gi": create(wh, "gi", SCHEMA, options={**DE, **DECL, "write-only": "false"}),
        "wo": create(wh, "wo", SCHEMA, options={**DE, **DECL, "write-only": "true"}),
        "plain": create(wh, "plain", SCHEMA, options={**DE, "write-only": "false"}),
    }
    cat = catalog(wh)
    handles = {n: cat.get_table(f"db.{n}") for n in paths}
    rng = random.Random(3)
    opts = ["compaction-service.interval=300ms", "compaction-service.trigger.count=3",
            "compaction-service.watch-interval=100ms", "compaction-service.expire-interval=0"]
    with Service(wh, *opts) as svc:
        start = 0
        for i in range(8):
            rows = [{"id": start + k if k % 3 else rng.randrange(20), "name": rng.choice(["a", "b", "c", None]),
                     "cat": rng.randrange(5)} for k in range(rng.randrange(5, 20))]
            start += len(rows)
            for n in paths:
                py_write(handles[n], SCHEMA, rows)
            time.sleep(0.2)
        # the last commits may sit below the triggers: a checkpoint folds them (its passes count too)
        st, body = svc.post("/v1/tables/db.gi/checkpoint", {"timeout_s": 60})
        assert st == 200 and body["done"], body
        deadline = time.time() + 60
        while True:
            svc.wait_idle(timeout=60)
            jobs = svc.jobs(limit=100000)
            gi_jobs = [j for j in jobs if j["type"] == "global-index"]
            done = [j for j in gi_jobs if j["table"] == "db.gi" and j["state"] == "succeeded"]
            last_pass = max((j["finished_at"] for j in jobs if j["table"] == "db.gi" and j["type"] == "compaction"),
                            default=None)
            # settled: an index job queued after the last pass of db.gi has run
            if last_pass is not None and any(j["created_at"] >= last_pass for j in done):
                break
            assert time.time() < deadline, jobs
            time.sleep(0.3)
        assert all(j["state"] == "succeeded" for j in jobs), [j for j in jobs if j["state"] != "succeeded"]
        passes = {j["table"] for j in jobs if j["type"] == "compaction"}
        assert {"db.gi", "db.wo", "db.plain"} <= passes, passes
        assert {j["table"] for j in gi_jobs} == {"db.gi"}, gi_jobs
        built = [j for j in done if j["snapshot"]]
        assert built and all(j["output_files"] >= 1 and "global index ranges" in j["detail"] for j in built), done
        assert len({j["snapshot"] for j in built}) == len(built), built  # each published its own snapshot
        assert all(j["bucket"] is None and j["partition"] is None for j in gi_jobs)
        svc.stop()
    # nothing left to build for any column; the indexes answer exactly
    out = json.loads(run_paimon("index", paths["gi"], "--json").stdout)
    assert out["snapshot_id"] == 0, (out, [j for j in jobs if j["table"] == "db.gi"])
    _check_cols(paths["gi"], rng, ("id", "name", "cat"), rounds=2)
    for vals in ([1], [2, 3]):
        _check_where(paths["gi"], "cat", vals)
    # write-only=true: the service left it alone
    out = json.loads(run_paimon("index", paths["wo"], "--json").stdout)
    assert out["files_added"] == 3, out
