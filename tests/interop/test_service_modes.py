"""`paimon serve` on the table modes beside fixed-bucket Parquet tables:
dynamic-bucket (bucket=-1) and postpone-bucket (bucket=-2) primary keys,
ORC primary-key and append tables.

pypaimon writers (write-only=true) commit small batches while the service
runs; after every commit pypaimon reads exactly the model's rows, the
service settles every bucket under its count trigger, every job succeeds.
Postpone-bucket tables: the `bucket-postpone` files are the pending files
of bucket -2, whose pass assigns them real buckets (postpone.default-bucket-num)
in one COMPACT snapshot; the real buckets' level-0 files then get ordinary
passes; a manual pass may name bucket -2.  Until its pass a postponed row
is invisible: reads show the rows of some earlier commit, never a mix.

Also: the config file (include/exclude, options), table options winning
over the service's, tables discovered while the service runs, the metric
families of the issue, SIGINT (drain, exit 0).
"""
import pathlib
import random
import signal
import time

from pypaimon import Schema

from service_util import Service
from table_read_oracle import pypaimon_read
from test_service import AP_SCHEMA, PK_SCHEMA, catalog, create, py_write, rows_of

COUNT = 3
OPTS = ["compaction-service.interval=300ms", f"compaction-service.trigger.count={COUNT}",
        "compaction-service.watch-interval=100ms", "compaction-service.expire-interval=0",
        "compaction-service.orphan-interval=0"]


def settle(svc, names, timeout=60):
    """Until every bucket of the tables is under the count trigger."""
    deadline = time.time() + timeout
    while True:
        svc.wait_idle(tables=names)
        tabs = {t["table"]: t for t in svc.get("/v1/tables")[1]["tables"]}
        if all(b["pending_files"] < COUNT for n in names for b in tabs[n]["buckets"]):
            return tabs
        assert time.time() < deadline, {n: tabs[n]["buckets"] for n in names}
        time.sleep(0.2)


def data_files(path):
    return [p for p in pathlib.Path(path).rglob("data-*") if p.is_file()]


def test_dynamic_postpone_and_orc_tables(tmp_path):
    wh = tmp_path / "wh"
    wo = {"write-only": "true"}
    tables = {
        "dyn": create(wh, "dyn", PK_SCHEMA, pks=["id"], options={"bucket": "-1", **wo,
                                                               "dynamic-bucket.target-row-num": "60"}),
        "pp": create(wh, "pp", PK_SCHEMA, pks=["id"], options={"bucket": "-2", "postpone.default-bucket-num": "2"}),
        "orcpk": create(wh, "orcpk", PK_SCHEMA, pks=["id"], options={"bucket": "2", "file.format": "orc", **wo}),
        "orcap": create(wh, "orcap", AP_SCHEMA, partition_keys=["dt"],
                        options={"bucket": "-1", "file.format": "orc", **wo}),
    }
    names = tuple(f"db.{n}" for n in tables)
    cat = catalog(wh)
    handles = {n: cat.get_table(f"db.{n}") for n in tables}
    rng = random.Random(5)
    models = {"dyn": {}, "pp": {}, "orcpk": {}, "orcap": []}
    pp_history = [[]]
    with Service(wh, *OPTS) as svc:
        for i in range(14):
            for n in ("dyn", "pp", "orcpk"):
                batch = {rng.randrange(150): f"{n}{i}" for _ in range(6)}
                py_write(handles[n], PK_SCHEMA, [{"id": k, "v": v} for k, v in batch.items()])
                models[n].update(batch)
            rows = [{"id": i * 3 + j, "v": f"a{i}", "dt": f"d{j % 2}"} for j in range(3)]
            py_write(handles["orcap"], AP_SCHEMA, rows)
            models["orcap"] += rows
            for n in ("dyn", "orcpk"):
                got = rows_of(pypaimon_read(wh, "db", n), lambda r: r["id"])
                assert got == [{"id": k, "v": v} for k, v in sorted(models[n].items())], (n, i)
            # postponed rows are invisible until their pass: the rows of some earlier commit, never a mix
            pp_history.append([{"id": k, "v": v} for k, v in sorted(models["pp"].items())])
            assert rows_of(pypaimon_read(wh, "db", "pp"), lambda r: r["id"]) in pp_history, i
            assert rows_of(pypaimon_read(wh, "db", "orcap"), lambda r: r["id"]) == models["orcap"]
            time.sleep(0.15)
        tabs = settle(svc, names)
        for n in names:
            assert tabs[n]["error"] is None, tabs[n]
        jobs = svc.jobs(limit=100000)
        assert all(j["state"] == "succeeded" for j in jobs), [j for j in jobs if j["state"] != "succeeded"]
        by_table = {n: [j for j in jobs if j["table"] == n and j["type"] == "compaction"] for n in names}
        for n in names:
            assert any(j["snapshot"] for j in by_table[n]), (n, by_table[n])
        # postpone: bucket -2 folded (its files got real buckets), then the real buckets had passes
        pp = by_table["db.pp"]
        assert any(j["bucket"] == -2 and j["snapshot"] for j in pp), pp
        assert all(b["bucket"] in (-2, 0, 1) for b in tabs["db.pp"]["buckets"]), tabs["db.pp"]["buckets"]
        # dynamic buckets: the hash index spread the keys over several buckets, each compacted
        assert len({b["bucket"] for b in tabs["db.dyn"]["buckets"]}) >= 2, tabs["db.dyn"]["buckets"]
        st, body = svc.post("/v1/tables/db.dyn/checkpoint", {"timeout_s": 60})
        assert st == 200 and body["done"], body
        dyn_buckets = {b["bucket"] for b in svc.table("db.dyn")["buckets"]}
        passed = {j["bucket"] for j in svc.jobs(table="db.dyn", limit=1000) if j["snapshot"]}
        assert passed == dyn_buckets, (passed, dyn_buckets)
        assert all(b["pending_files"] <= 1 for b in svc.table("db.dyn")["buckets"])
        # ORC tables stay ORC
        for n in ("orcpk", "orcap"):
            assert data_files(tables[n]) and all(p.suffix == ".orc" for p in data_files(tables[n]))
        # a manual pass of the postponed files (a postponed file alone is pending): then every row is visible
        st, body = svc.post("/v1/tables/db.pp/checkpoint", {"timeout_s": 60})
        assert st == 200 and body["done"], body
        assert rows_of(pypaimon_read(wh, "db", "pp"), lambda r: r["id"]) == pp_history[-1]
        py_write(handles["pp"], PK_SCHEMA, [{"id": 1000, "v": "late"}])
        models["pp"][1000] = "late"
        latest = int((tables["pp"] / "snapshot" / "LATEST").read_text())
        deadline = time.time() + 30
        while svc.table("db.pp")["snapshot"] != latest:  # the watcher saw the commit
            assert time.time() < deadline
            time.sleep(0.05)
        postponed = sum(b["pending_files"] for b in svc.table("db.pp")["buckets"] if b["bucket"] == -2)
        assert postponed == 1
        st, body = svc.post("/v1/compact", {"table": "db.pp", "bucket": -2})
        assert st == 202 and len(body["job_ids"]) == 1, body
        j = svc.wait_job(body["job_ids"][0])
        assert j["state"] == "succeeded" and j["bucket"] == -2 and j["input_files"] == postponed and j["snapshot"], j
        assert not [b for b in svc.table("db.pp")["buckets"] if b["bucket"] == -2 and b["pending_files"]]
        assert svc.post("/v1/compact", {"table": "db.pp", "bucket": -3})[0] == 400
        svc.stop()
    for n in ("dyn", "pp", "orcpk"):
        got = rows_of(pypaimon_read(wh, "db", n), lambda r: r["id"])
        assert got == [{"id": k, "v": v} for k, v in sorted(models[n].items())], n
    assert rows_of(pypaimon_read(wh, "db", "orcap"), lambda r: r["id"]) == models["orcap"]


def test_config_file_table_options_discovery_metrics_sigint(tmp_path):
    """--config (include/exclude globs, service options), --option after it,
    a table option that wins over the service's, a table created while the
    service runs (discovered and folded), every metric family the issue
    names, SIGINT: drain and exit 0."""
    wh = tmp_path / "wh"
    small = {"bucket": "-1", "write-only": "true"}
    create(wh, "own", AP_SCHEMA, options={**small, "compaction-service.trigger.count": "2"})
    create(wh, "big", AP_SCHEMA, options=small)
    create(wh, "skip", AP_SCHEMA, options={**small, "compaction-service.trigger.count": "2"})
    catalog(wh).create_database("other", True)
    catalog(wh).create_table("other.t", Schema.from_pyarrow_schema(
        AP_SCHEMA, options={**small, "compaction-service.trigger.count": "2"}), False)
    cfg = tmp_path / "service.conf"
    cfg.write_text("# the service's options\ninclude=db.*\nexclude=db.skip\n"
                   "compaction-service.trigger.count = 10\ncompaction-service.interval=300ms\n\n")
    cat = catalog(wh)
    for n in ("db.own", "db.big", "db.skip", "other.t"):
        for i in range(3):
            py_write(cat.get_table(n), AP_SCHEMA, [{"id": i, "v": n, "dt": "d"}])
    with Service(wh, "compaction-service.expire-interval=0", extra_args=("--config", str(cfg))) as svc:
        deadline = time.time() + 30
        while not [j for j in svc.jobs(table="db.own") if j["state"] == "succeeded"]:
            assert time.time() < deadline, svc.jobs()
            time.sleep(0.1)
        tabs = {t["table"]: t for t in svc.get("/v1/tables")[1]["tables"]}
        assert set(tabs) == {"db.own", "db.big"}, set(tabs)  # include db.*, exclude db.skip
        assert tabs["db.own"]["thresholds"]["trigger_count"] == 2  # the table option wins
        assert tabs["db.big"]["thresholds"]["trigger_count"] == 10
        assert tabs["db.big"]["thresholds"]["interval_ms"] == 300
        assert svc.get("/v1/tables/db.skip")[0] == 404
        time.sleep(1)
        assert svc.jobs(table="db.big") == []  # 3 files < 10
        # a table created while the service runs joins at the next discovery (every 5 s)
        create(wh, "late", AP_SCHEMA, options={**small, "compaction-service.trigger.count": "2"})
        late = catalog(wh).get_table("db.late")
        for i in range(2):
            py_write(late, AP_SCHEMA, [{"id": i, "v": "late", "dt": "d"}])
        deadline = time.time() + 30
        while not [j for j in svc.jobs(table="db.late") if j["state"] == "succeeded" and j["snapshot"]]:
            assert time.time() < deadline, svc.jobs()
            time.sleep(0.2)
        st, metrics = svc.get("/metrics")
        assert st == 200
        for family in ("passes_started_total", "passes_succeeded_total", "passes_failed_total",
                       "folded_files_total", "folded_bytes_total", "pass_duration_seconds_bucket",
                       "pass_duration_seconds_sum", "pass_duration_seconds_count", "queue_depth",
                       "pending_files", "pending_bytes", "oldest_pending_age_seconds", "latch_collisions_total"):
            assert f"paimon_service_{family}" in metrics, family
        assert 'paimon_service_passes_succeeded_total{table="db.own",trigger="count"} 1' in metrics, metrics
        assert 'paimon_service_pending_files{table="db.big"} 3' in metrics, metrics
        svc.proc.send_signal(signal.SIGINT)
        assert svc.proc.wait(timeout=60) == 0
    assert svc.proc.returncode == 0
