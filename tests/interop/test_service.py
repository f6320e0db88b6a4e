"""`paimon serve`, the compaction service, end to end on 127.0.0.1.

1. pypaimon writers (write-only=true) on a primary-key table, an append
   table and a data-evolution table for PAIMON_SERVICE_SECONDS (default
   20; `make stress` runs longer): after every commit pypaimon reads
   exactly the rows of a model (no lost or resurrected key), the service
   keeps each bucket of the three under its triggers, every job listed
   succeeded with a trigger of the issue's list; snapshots expire on the
   way and pypaimon and paimon-c read every retained snapshot alike.
2. kill -9 of the service in the middle of a pass (a test delay between
   executing and committing it): the table is intact, after a restart the
   job shows failed ("service restarted"), the next pass succeeds, and the
   killed pass's outputs are orphans that remove-orphan-files finds.
3. latches: a manual pass on a latched bucket is refused (409), a queued
   job is cancelled, drain waits for the running pass and then refuses
   work (503); SIGTERM exits 0.
4. checkpoint: passes until nothing is left to fold (idempotent), 504 at
   its timeout.
5. HTTP robustness: malformed JSON, huge bodies, unknown paths and
   methods, traversal names, NUL, slow clients: clear errors, the service
   keeps serving; a non-loopback listen address needs a token, which is
   then required.
6. the status page in headless Chromium: a screenshot (path printed) and
   the DOM shows the table names and job states.
"""
import json
import os
import pathlib
import random
import shutil
import socket
import subprocess
import time

import pyarrow as pa
import pytest
from pypaimon import CatalogFactory, Schema

from conftest import run_paimon
from service_util import Service
from table_read_oracle import pypaimon_read

SECONDS = float(os.environ.get("PAIMON_SERVICE_SECONDS", "20"))
TRIGGERS = {"count", "bytes", "age", "manual", "backpressure", "interval"}

PK_SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string())])
AP_SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("dt", pa.string())])


def catalog(wh):
    cat = CatalogFactory.create({"warehouse": str(wh)})
    cat.create_database("db", True)
    return cat


def create(wh, name, schema, pks=None, partition_keys=None, options=None):
    catalog(wh).create_table(f"db.{name}", Schema.from_pyarrow_schema(
        schema, primary_keys=pks or [], partition_keys=partition_keys or [], options=options or {}), False)
    return pathlib.Path(wh) / "db.db" / name


def py_write(table, schema, rows):
    wb = table.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(pa.Table.from_pylist(rows, schema=schema))
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def rows_of(arrow, key):
    return sorted(arrow.to_pylist(), key=key)


def our_rows(path, snapshot=None):
    args = ["read", path] + (["--snapshot", snapshot] if snapshot is not None else [])
    return [json.loads(line) for line in run_paimon(*args).stdout.splitlines() if line.strip()]


def snapshot_ids(path):
    return sorted(int(p.name[9:]) for p in (pathlib.Path(path) / "snapshot").glob("snapshot-*"))


def small_append(wh, name, files, options=None, partitioned=False):
    opts = {"bucket": "-1", "write-only": "true"}
    opts.update(options or {})
    path = create(wh, name, AP_SCHEMA, options=opts, partition_keys=["dt"] if partitioned else None)
    t = catalog(wh).get_table(f"db.{name}")
    for i in range(files):
        py_write(t, AP_SCHEMA, [{"id": i, "v": f"r{i}", "dt": "d1"}])
    return path


# ------------------------------------------------------------------ 1


def test_service_keeps_tables_compacted_under_writers(tmp_path):
    wh = tmp_path / "wh"
    keep = {"snapshot.num-retained.min": "5", "snapshot.num-retained.max": "30", "snapshot.time-retained": "1 s"}
    pk_path = create(wh, "pk", PK_SCHEMA, pks=["id"], options={"bucket": "2", "write-only": "true", **keep})
    ap_path = create(wh, "ap", AP_SCHEMA, partition_keys=["dt"],
                     options={"bucket": "-1", "write-only": "true", **keep})
    de_path = create(wh, "de", PK_SCHEMA, options={"bucket": "-1", "row-tracking.enabled": "true",
                                                   "data-evolution.enabled": "true", "write-only": "true", **keep})
    cat = catalog(wh)
    pk, ap, de = (cat.get_table(f"db.{n}") for n in ("pk", "ap", "de"))
    rng = random.Random(11)
    count = 3
    opts = ["compaction-service.interval=500ms", f"compaction-service.trigger.count={count}",
            "compaction-service.watch-interval=100ms", "compaction-service.expire-interval=1s",
            "compaction-service.concurrency=2"]
    model_pk, model_ap, model_de = {}, [], []
    samples = []
    with Service(wh, *opts) as svc:
        end = time.time() + SECONDS
        i = 0
        while time.time() < end:
            batch = {}
            for _ in range(8):
                k = rng.randrange(200)
                batch[k] = f"v{i}-{k}"
            py_write(pk, PK_SCHEMA, [{"id": k, "v": v} for k, v in batch.items()])
            model_pk.update(batch)
            rows = [{"id": i * 4 + j, "v": f"a{i}", "dt": f"d{(i + j) % 2}"} for j in range(4)]
            py_write(ap, AP_SCHEMA, rows)
            model_ap += rows
            if i % 2 == 0:
                drow = [{"id": i, "v": f"e{i}"}]
                py_write(de, PK_SCHEMA, drow)
                model_de += drow
            # at every moment the exact rows: no lost or resurrected key
            got_pk = rows_of(pypaimon_read(wh, "db", "pk"), lambda r: r["id"])
            assert got_pk == [{"id": k, "v": v} for k, v in sorted(model_pk.items())], f"commit {i}"
            got_ap = rows_of(pypaimon_read(wh, "db", "ap"), lambda r: r["id"])
            assert got_ap == sorted(model_ap, key=lambda r: r["id"]), f"commit {i}"
            assert rows_of(pypaimon_read(wh, "db", "de"), lambda r: r["id"]) == model_de
            st, tabs = svc.get("/v1/tables")
            assert st == 200
            samples.append({t["table"]: max([b["pending_files"] for b in t["buckets"]] or [0])
                            for t in tabs["tables"]})
            i += 1
        # the service settles every bucket under its triggers
        deadline = time.time() + 30
        while time.time() < deadline:
            svc.wait_idle(tables=("db.pk", "db.ap", "db.de"))
            tabs = {t["table"]: t for t in svc.get("/v1/tables")[1]["tables"]}
            if all(b["pending_files"] < count for n in ("db.pk", "db.ap", "db.de") for b in tabs[n]["buckets"]):
                break
            time.sleep(0.3)
        for n in ("db.pk", "db.ap", "db.de"):
            assert tabs[n]["error"] is None, tabs[n]
            for b in tabs[n]["buckets"]:
                assert b["pending_files"] < count, (n, b)
        assert tabs["db.de"]["mode"] == "data-evolution"
        jobs = svc.jobs(limit=100000)
        passes = [j for j in jobs if j["type"] == "compaction"]
        assert {j["table"] for j in passes} == {"db.pk", "db.ap", "db.de"}
        assert all(j["state"] == "succeeded" for j in jobs), [j for j in jobs if j["state"] != "succeeded"]
        assert all(j["trigger"] in TRIGGERS for j in jobs)
        assert sum(j["input_files"] for j in passes) > 0
        assert any(j["type"] == "expire-snapshots" for j in jobs)
        for j in passes:
            assert j["snapshot"] is None or j["snapshot"] > 0
            assert j["started_at"] >= j["created_at"] and j["finished_at"] >= j["started_at"]
        st, metrics = svc.get("/metrics")
        assert st == 200 and 'paimon_service_passes_succeeded_total{table="db.pk"' in metrics
        svc.stop()
    # pending files never ran away from the triggers while writers wrote
    worst = sorted(s["db.pk"] for s in samples)
    assert worst[int(len(worst) * 0.9)] <= 4 * count, worst
    # snapshots expired on the way; every retained one reads alike in pypaimon and paimon-c
    for path, name, key in ((pk_path, "pk", "id"), (ap_path, "ap", "id"), (de_path, "de", "id")):
        ids = snapshot_ids(path)
        assert ids[0] > 1, f"{name}: nothing expired ({ids[:3]}...)"
        for s in ids:
            theirs = rows_of(pypaimon_read(wh, "db", name, s), lambda r: r[key])
            ours = sorted(our_rows(path, s), key=lambda r: r[key])
            assert theirs == ours, f"{name} snapshot {s}"


# ------------------------------------------------------------------ 2


def test_kill_mid_pass_then_restart(tmp_path):
    wh = tmp_path / "wh"
    path = small_append(wh, "t", 6)
    want = sorted(our_rows(path), key=lambda r: r["id"])
    opts = ["compaction-service.interval=200ms", "compaction-service.trigger.count=4",
            "compaction-service.expire-interval=0", "compaction-service.orphan-interval=0"]
    svc = Service(wh, *opts, env={"PAIMON_SERVICE_TEST_DELAY_MS": "5000"})
    with svc:
        deadline = time.time() + 30
        running = []
        while time.time() < deadline and not running:
            running = svc.jobs(state="running")
            time.sleep(0.02)
        assert running, "no pass started"
        time.sleep(0.5)  # executed, waiting to commit
        svc.kill()
    job_id = running[0]["id"]
    assert sorted(our_rows(path), key=lambda r: r["id"]) == want
    assert rows_of(pypaimon_read(wh, "db", "t"), lambda r: r["id"]) == want
    assert "COMPACT" not in run_paimon("snapshots", path).stdout
    # the pass wrote its outputs and died before committing them: orphans
    orphans = json.loads(run_paimon("remove-orphan-files", path, "--older-than", "0s", "--dry-run",
                                    "--json").stdout)
    assert orphans["files_deleted"] >= 1
    with Service(wh, *opts) as svc:
        j = svc.wait_job(job_id)
        assert j["state"] == "failed" and j["error"] == "service restarted"
        deadline = time.time() + 30
        ok = []
        while time.time() < deadline and not ok:
            ok = [x for x in svc.jobs(state="succeeded") if x["type"] == "compaction" and x["id"] > job_id]
            time.sleep(0.1)
        assert ok and ok[0]["input_files"] >= 4 and ok[0]["snapshot"] > 0
        svc.stop()
    assert sorted(our_rows(path), key=lambda r: r["id"]) == want
    assert rows_of(pypaimon_read(wh, "db", "t"), lambda r: r["id"]) == want
    removed = json.loads(run_paimon("remove-orphan-files", path, "--older-than", "0s", "--json").stdout)
    assert removed["files_deleted"] >= 1
    assert sorted(our_rows(path), key=lambda r: r["id"]) == want


# ------------------------------------------------------------------ 3


def test_latch_cancel_drain(tmp_path):
    wh = tmp_path / "wh"
    small_append(wh, "a", 3, partitioned=True)
    small_append(wh, "b", 3)
    opts = ["compaction-service.interval=0", "compaction-service.backpressure=false",
            "compaction-service.concurrency=1", "compaction-service.expire-interval=0"]
    with Service(wh, *opts, env={"PAIMON_SERVICE_TEST_DELAY_MS": "1500"}) as svc:
        time.sleep(0.5)
        assert svc.jobs() == []  # interval 0: nothing on its own
        st, body = svc.post("/v1/compact", {"table": "db.a", "partition": {"dt": "d2"}})
        assert st == 202 and body["job_ids"] == [], body  # no such partition: nothing to do
        st, body = svc.post("/v1/compact", {"table": "db.a"})
        assert st == 202 and len(body["job_ids"]) == 1, body
        first = body["job_ids"][0]
        st, body = svc.post("/v1/compact", {"table": "db.a", "partition": {"dt": "d1"}, "bucket": 0})
        assert st == 409 and body["error"]["code"] == "conflict", body
        st, body = svc.post("/v1/compact", {"table": "db.b"})
        assert st == 202
        second = body["job_ids"][0]
        svc.wait_job(first, states=("running",))
        assert svc.get(f"/v1/jobs/{second}")[1]["state"] == "queued"
        st, body = svc.post(f"/v1/jobs/{second}/cancel")
        assert st == 200 and body["state"] == "cancelled"
        st, body = svc.post(f"/v1/jobs/{second}/cancel")
        assert st == 409
        assert svc.post(f"/v1/jobs/{first}/cancel")[0] == 409  # running: not cancellable
        assert svc.post("/v1/jobs/999999/cancel")[0] == 404
        # the latch of b is free again
        st, body = svc.post("/v1/compact", {"table": "db.b", "bucket": 7})
        assert st == 202 and body["job_ids"] == []
        t0 = time.time()
        st, body = svc.post("/v1/drain")
        assert st == 200 and body["drained"]
        j = svc.get(f"/v1/jobs/{first}")[1]
        assert j["state"] == "succeeded" and j["input_files"] == 3, j
        assert j["finished_at"] <= int(time.time() * 1000) and time.time() - t0 >= 0.0
        st, body = svc.post("/v1/compact", {"table": "db.b"})
        assert st == 503 and body["error"]["code"] == "draining"
        st, m = svc.get("/metrics")
        assert "paimon_service_latch_collisions_total 1" in m
        svc.stop()


# ------------------------------------------------------------------ 4


def test_checkpoint(tmp_path):
    wh = tmp_path / "wh"
    path = small_append(wh, "c", 7)
    want = sorted(our_rows(path), key=lambda r: r["id"])
    opts = ["compaction-service.interval=0", "compaction-service.backpressure=false",
            "compaction-service.prefix-max=3", "compaction-service.expire-interval=0"]
    with Service(wh, *opts) as svc:
        st, body = svc.post("/v1/tables/db.c/checkpoint", {"timeout_s": 60})
        assert st == 200 and body["done"], body
        assert len(body["jobs"]) >= 3 and all(j["state"] == "succeeded" for j in body["jobs"])
        assert all(j["input_files"] <= 3 for j in body["jobs"])
        assert svc.table("db.c")["buckets"][0]["pending_files"] <= 1
        st, again = svc.post("/v1/tables/db.c/checkpoint")
        assert st == 200 and again["done"] and again["jobs"] == []
        assert svc.post("/v1/tables/db.nope/checkpoint")[0] == 404
        assert svc.post("/v1/tables/db.c/checkpoint", {"timeout_s": -1})[0] == 400
        svc.stop()
    assert sorted(our_rows(path), key=lambda r: r["id"]) == want
    small_append(wh, "d", 4)
    with Service(wh, *opts, env={"PAIMON_SERVICE_TEST_DELAY_MS": "2000"}) as svc:
        st, body = svc.post("/v1/tables/db.d/checkpoint", {"timeout_s": 0.3})
        assert st == 504 and not body["done"] and len(body["jobs"]) == 1, body
        svc.stop()  # drains the pass the abandoned checkpoint started


# ------------------------------------------------------------------ 5


def test_http_robustness(tmp_path):
    wh = tmp_path / "wh"
    small_append(wh, "t", 2)
    with Service(wh, "compaction-service.interval=0", "compaction-service.expire-interval=0") as svc:
        bad = [
            ("POST", "/v1/compact", b"{not json", 400),
            ("POST", "/v1/compact", b"[1,2]", 400),
            ("POST", "/v1/compact", b"", 400),
            ("POST", "/v1/compact", json.dumps({"table": "db.t", "extra": 1}).encode(), 400),
            ("POST", "/v1/compact", json.dumps({"table": "../etc.passwd"}).encode(), 400),
            ("POST", "/v1/compact", json.dumps({"table": "db/x.t"}).encode(), 400),
            ("POST", "/v1/compact", b'{"table": "db.t\\u0000x"}', 400),
            ("POST", "/v1/compact", json.dumps({"table": "db.t", "bucket": -1}).encode(), 400),
            ("POST", "/v1/compact", json.dumps({"table": "db.t", "partition": {"dt": 1}}).encode(), 400),
            ("POST", "/v1/compact", json.dumps({"table": "db.missing"}).encode(), 404),
            ("POST", "/v1/compact", b"x" * (2 << 20), 413),
            ("GET", "/v1/compact", None, 405),
            ("DELETE", "/v1/tables", None, 405),
            ("GET", "/nope", None, 404),
            ("GET", "/v1/tables/..%2F..%2Fetc.passwd", None, 400),
            ("GET", "/v1/tables/db.t%00.x", None, 400),
            ("GET", "/v1/tables/db", None, 400),
            ("GET", "/v1/tables/db.t/other", None, 404),
            ("GET", "/v1/jobs/abc", None, 400),
            ("GET", "/v1/jobs?state=bogus", None, 400),
            ("GET", "/v1/jobs?limit=0", None, 400),
            ("GET", "/v1/jobs/12345", None, 404),
        ]
        # slow clients hold their connections while the others are served
        slow = []
        for _ in range(5):
            s = socket.create_connection(("127.0.0.1", svc.port))
            s.sendall(b"POST /v1/compact HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"ta")
            slow.append(s)
        for method, path, raw, want in bad:
            st, body = svc.request(method, path, raw=raw)
            assert st == want, (method, path, st, body)
            assert isinstance(body, dict) and body["error"]["code"] and body["error"]["message"], body
        assert svc.get("/v1/health") == (200, {"status": "ok"})
        for s in slow:
            s.close()
        st, body = svc.get("/v1/tables/db.t")
        assert st == 200 and body["table"] == "db.t" and body["mode"] == "append-unaware"
        svc.stop()
    # a non-loopback address needs a token, which every request then needs
    p = subprocess.run([str(pathlib.Path(os.environ.get("PAIMON_BIN", "build/paimon"))), "serve", str(wh),
                        "--listen", "0.0.0.0:0"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "--auth-token-file" in p.stderr
    tok = tmp_path / "token"
    tok.write_text("s3cret\n")
    with Service(wh, "compaction-service.interval=0", listen="0.0.0.0:0",
                 extra_args=("--auth-token-file", str(tok))) as svc:
        st, body = svc.get("/v1/health")
        assert st == 401 and body["error"]["code"] == "unauthorized"
        assert svc.get("/v1/health", headers={"Authorization": "Bearer wrong"})[0] == 401
        assert svc.get("/v1/health", headers={"Authorization": "Bearer s3cret"})[0] == 200
        svc.stop()


# ------------------------------------------------------------------ 6


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


def test_status_page_in_chromium(tmp_path):
    browser = chromium()
    if not browser:
        pytest.skip("no chromium (scripts/deps.sh test installs Debian's chromium)")
    wh = tmp_path / "wh"
    small_append(wh, "events", 5)
    create(wh, "users", PK_SCHEMA, pks=["id"], options={"bucket": "2", "write-only": "true"})
    users = catalog(wh).get_table("db.users")
    for i in range(5):
        py_write(users, PK_SCHEMA, [{"id": i, "v": "x"}, {"id": i + 10, "v": "y"}])
    with Service(wh, "compaction-service.interval=300ms", "compaction-service.trigger.count=4") as svc:
        deadline = time.time() + 30
        while time.time() < deadline and len([j for j in svc.jobs(state="succeeded")
                                              if j["type"] == "compaction"]) < 3:
            time.sleep(0.2)
        st, html = svc.get("/")
        assert st == 200 and "db.events" in html
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={tmp_path / 'chrome'}"]
        dom = subprocess.run([browser, *flags, "--dump-dom", svc.url + "/"], capture_output=True, text=True,
                             timeout=120)
        assert dom.returncode == 0, dom.stderr[-2000:]
        for needle in ("db.events", "db.users", "succeeded", "primary-key", "append-unaware"):
            assert needle in dom.stdout, needle
        shot = pathlib.Path(os.environ.get("PAIMON_SCREENSHOT_DIR", tmp_path)) / "paimon-serve-status.png"
        p = subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1400,900", svc.url + "/"],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and shot.stat().st_size > 1000, p.stderr[-2000:]
        print(f"status page screenshot: {shot}")
        svc.stop()
