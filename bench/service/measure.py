#!/usr/bin/env python3
"""bench/service/measure.py — what `paimon serve` costs and achieves.

1. Sustained ingest: `paimon write` in a loop (one process per commit,
   ROWS rows of upserts over KEYS keys) into a primary-key table
   (bucket=BUCKETS, write-only=true) for SECONDS while the service runs
   with its defaults (interval 5 s, trigger.count 4) or --option values
   given.  Reports rows/s ingested, the staleness (the oldest pending age
   of the table, sampled every 0.5 s) p50/p99, the most level-0 files a
   bucket held (against num-sorted-run.stop-trigger, 8 by default), passes
   per minute, and the service's CPU seconds per MB folded (input bytes of
   its passes).
2. Idle: TABLES small tables (append and primary-key), the service started,
   its first passes and expirations left to finish, then its CPU share and
   RSS over IDLE_SECONDS.

Usage: bench/service/measure.py [--seconds 60] [--rows 2000] [--keys 100000]
       [--buckets 4] [--tables 100] [--idle-seconds 60] [--option k=v]...
Prints one JSON object.  Runs on 127.0.0.1 only; everything under a
temporary directory (removed).
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
P = os.environ.get("PAIMON_BIN", os.path.join(ROOT, "build", "paimon"))
TICK = os.sysconf("SC_CLK_TCK")


def run(*args, input=None):
    return subprocess.run([P, *args], input=input, capture_output=True, text=True, check=True).stdout


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / TICK


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Serve:
    def __init__(self, wh, options):
        args = [P, "serve", wh, "--listen", "127.0.0.1:0"]
        for o in options:
            args += ["--option", o]
        self.p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.p.stdout.readline()
        assert line.startswith("listening on "), line
        self.url = line.split()[-1]

    def get(self, path):
        with urllib.request.urlopen(self.url + path, timeout=60) as r:
            return json.load(r)

    def stop(self):
        self.p.terminate()
        self.p.wait(timeout=300)


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))] if v else None


def ingest(a, tmp):
    wh = os.path.join(tmp, "ingest")
    run("create-database", wh, "db")
    t = os.path.join(wh, "db.db", "events")
    run("create", t, "--schema", "id BIGINT NOT NULL, v STRING, n BIGINT", "--primary-keys", "id",
        "--option", f"bucket={a.buckets}", "--option", "write-only=true")
    svc = Serve(wh, a.option)
    rng = random.Random(7)
    cpu0 = cpu_seconds(svc.p.pid)
    t0 = time.time()
    rows = commits = 0
    stale, l0_max, l0 = [], 0, []
    next_sample = t0
    while time.time() - t0 < a.seconds:
        text = "".join(json.dumps({"id": rng.randrange(a.keys), "v": f"v{commits}", "n": i}) + "\n"
                       for i in range(a.rows))
        run("write", t, "--threads", "1", input=text)
        if a.pause:
            time.sleep(a.pause)
        rows += a.rows
        commits += 1
        if time.time() >= next_sample:
            st = svc.get("/v1/tables/db.events")
            stale.append(st["oldest_pending_age_s"])
            worst = max([0] + [b["pending_files"] for b in st["buckets"]])
            l0.append(worst)
            l0_max = max(l0_max, worst)
            next_sample += 0.5
    elapsed = time.time() - t0
    # let the last passes finish, then count
    time.sleep(6)
    jobs = [j for j in svc.get("/v1/jobs?limit=100000")["jobs"] if j["type"] == "compaction"]
    cpu = cpu_seconds(svc.p.pid) - cpu0
    folded_mb = sum(j["input_bytes"] for j in jobs if j["state"] == "succeeded") / 2**20
    svc.stop()
    failed = [j for j in jobs if j["state"] != "succeeded"]
    dur = [j["finished_at"] - j["started_at"] for j in jobs if j["finished_at"] and j["started_at"]]
    wait = [j["started_at"] - j["created_at"] for j in jobs if j["started_at"]]
    return {
        "seconds": round(elapsed, 1), "commits": commits, "rows": rows,
        "rows_per_s": round(rows / elapsed), "commits_per_s": round(commits / elapsed, 2),
        "staleness_s_p50": pct(stale, 0.5), "staleness_s_p99": pct(stale, 0.99), "samples": len(stale),
        "pending_files_per_bucket_p50": pct(l0, 0.5), "pending_files_per_bucket_p99": pct(l0, 0.99),
        "max_pending_files_per_bucket": l0_max,
        "passes": len(jobs), "passes_failed": len(failed), "passes_per_min": round(len(jobs) / elapsed * 60, 1),
        "pass_ms_p50": pct(dur, 0.5), "pass_ms_p99": pct(dur, 0.99),
        "queue_wait_ms_p50": pct(wait, 0.5), "queue_wait_ms_p99": pct(wait, 0.99),
        "folded_mb": round(folded_mb, 2), "service_cpu_s": round(cpu, 2),
        "cpu_s_per_folded_mb": round(cpu / folded_mb, 4) if folded_mb else None,
    }


def idle(a, tmp):
    wh = os.path.join(tmp, "idle")
    run("create-database", wh, "db")
    for i in range(a.tables):
        t = os.path.join(wh, "db.db", f"t{i:03d}")
        if i % 2:
            run("create", t, "--schema", "id BIGINT NOT NULL, v STRING", "--primary-keys", "id",
                "--option", "bucket=2", "--option", "write-only=true")
        else:
            run("create", t, "--schema", "id BIGINT, v STRING", "--option", "write-only=true")
        for c in range(3):
            run("write", t, "--threads", "1", input="".join(json.dumps({"id": c * 10 + k, "v": "x"}) + "\n"
                                                       for k in range(10)))
    svc = Serve(wh, a.option)
    t_start = time.time()
    while True:  # until the startup work (expirations, any pass) is done
        jobs = svc.get("/v1/jobs?limit=100000")["jobs"]
        if len(jobs) >= a.tables and not [j for j in jobs if j["state"] in ("queued", "running")]:
            break
        if time.time() - t_start > 120:
            break
        time.sleep(0.5)
    time.sleep(6)
    cpu0, t0 = cpu_seconds(svc.p.pid), time.time()
    time.sleep(a.idle_seconds)
    cpu = cpu_seconds(svc.p.pid) - cpu0
    dt = time.time() - t0
    out = {"tables": a.tables, "seconds": round(dt, 1), "cpu_percent": round(100 * cpu / dt, 2),
           "rss_mib": round(rss_mib(svc.p.pid), 1), "startup_s": round(t0 - t_start - 6, 1)}
    svc.stop()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--keys", type=int, default=100000)
    ap.add_argument("--buckets", type=int, default=4)
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--idle-seconds", type=float, default=60)
    ap.add_argument("--option", action="append", default=[])
    ap.add_argument("--skip-idle", action="store_true")
    ap.add_argument("--pause", type=float, default=0, help="seconds between commits (default: none, flat out)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="paimon-serve-bench-")
    try:
        res = {"options": a.option, "ingest": ingest(a, tmp)}
        if not a.skip_idle:
            res["idle"] = idle(a, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    json.dump(res, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
