"""`paimon serve` with compaction-service.executor=ray: each pass's tasks
run on a Ray cluster (a local one with 2 CPUs, started by this test
process) through paimon_c's helper
(`python -m paimon_c._service_exec`); the latch, the job and the commit
stay in the service.  A pypaimon-written table is folded with the rows
unchanged in pypaimon; a failed execution (the helper's error answer) or
an interpreter that cannot start fails the pass cleanly (job failed with
the cause, nothing published, no file left) and the service keeps
serving.  The helper's own retries and aborts run in test_ray.py."""
import http.client
import json
import os
import pathlib
import select
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("ray")

from conftest import files_on_disk, pypaimon_rows, pypaimon_table  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAIMON = os.environ.get("PAIMON_BIN", str(ROOT / "build" / "paimon"))


@pytest.fixture(scope="module")
def ray_head():
    """A local Ray cluster (this process is its driver); the service's helper connects to it."""
    import ray
    ctx = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ctx.address_info["gcs_address"]
    ray.shutdown()


class Serve:
    def __init__(self, wh, *options):
        if not os.access(PAIMON, os.X_OK):
            pytest.skip("build/paimon is not built (make build)")
        args = [PAIMON, "serve", str(wh), "--listen", "127.0.0.1:0"]
        for o in options:
            args += ["--option", o]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        r, _, _ = select.select([self.proc.stdout], [], [], 30)
        line = self.proc.stdout.readline().decode() if r else ""
        assert line.startswith("listening on http://"), line
        self.port = int(line.strip().rsplit(":", 1)[1])

    def call(self, method, path, body=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        c.request(method, path, body=json.dumps(body) if body is not None else None)
        r = c.getresponse()
        out = json.loads(r.read().decode())
        c.close()
        return r.status, out

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(timeout=300) == 0
        return self.proc.stderr.read().decode()


def options(address):
    return ["compaction-service.executor=ray", "compaction-service.ray.address=" + address,
            "compaction-service.ray.python=" + sys.executable, "compaction-service.interval=0",
            "compaction-service.expire-interval=0", "compaction-service.orphan-interval=0"]


def test_passes_run_on_ray(wh, ray_head):
    path = pypaimon_table(wh, commits=5, options={"bucket": "-1", "write-only": "true"})
    before = pypaimon_rows(wh)
    svc = Serve(wh, *options(ray_head))
    try:
        st, body = svc.call("POST", "/v1/tables/db.t/checkpoint", {"timeout_s": 240})
        assert st == 200 and body["done"], body
        jobs = body["jobs"]
        assert jobs and all(j["state"] == "succeeded" for j in jobs), jobs
        assert sum(j["input_files"] for j in jobs) == 5 and jobs[-1]["snapshot"] == 6
    finally:
        svc.stop()
    assert pypaimon_rows(wh) == before
    assert len(files_on_disk(path)) == 6  # the 5 inputs (still in snapshots 1-5) and the output


def run_failing_pass(wh, tmp_path, python):
    path = pypaimon_table(wh, commits=3, options={"bucket": "-1", "write-only": "true"})
    disk = files_on_disk(path)
    opts = options("127.0.0.1:1")[:2] + ["compaction-service.ray.python=" + python] + options("x")[3:]
    svc = Serve(wh, *opts)
    try:
        st, body = svc.call("POST", "/v1/compact", {"table": "db.t"})
        assert st == 202, body
        deadline = time.time() + 120
        while True:
            st, j = svc.call("GET", "/v1/jobs/%d" % body["job_ids"][0])
            if j["state"] in ("succeeded", "failed"):
                break
            assert time.time() < deadline
            time.sleep(0.2)
        assert svc.call("GET", "/v1/health") == (200, {"status": "ok"})
    finally:
        svc.stop()
    assert sorted(p.name for p in (path / "snapshot").glob("snapshot-*")) == [
        "snapshot-1", "snapshot-2", "snapshot-3"]
    assert files_on_disk(path) == disk
    return j


def test_failed_execution_fails_the_pass_cleanly(wh, tmp_path):
    # the helper's failure answer (what it sends after aborting its results)
    fake = tmp_path / "fake-python"
    fake.write_text("#!/bin/sh\ncat >/dev/null\n"
                    "echo '{\"error\": {\"code\": 4, \"message\": \"ConflictError: boom\"}}'\nexit 1\n")
    fake.chmod(0o755)
    j = run_failing_pass(wh, tmp_path, str(fake))
    assert j["state"] == "failed" and "ray executor" in j["error"] and "boom" in j["error"], j


def test_missing_interpreter_fails_the_pass_cleanly(wh, tmp_path):
    j = run_failing_pass(wh, tmp_path, str(tmp_path / "no-such-python"))
    assert j["state"] == "failed" and "cannot start" in j["error"], j
