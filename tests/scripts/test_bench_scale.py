"""bench/rounds.py's own peak RSS (Side(own_rss=True)) and bench/compact/
scale.py --pk (primary-key tables of one shape at growing sizes, written by
bench_pk_write --file-rows)."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("BUILD", ROOT / "build"))
sys.path.insert(0, str(ROOT / "bench"))
import rounds  # noqa: E402

TOUCH = "x = bytearray({mb} << 20)\nfor i in range(0, len(x), 4096): x[i] = 1\n"


def test_own_rss_is_the_child_not_the_harness():
    if not os.access("/usr/bin/time", os.X_OK):
        pytest.skip("/usr/bin/time missing")
    harness = bytearray(300 << 20)
    for i in range(0, len(harness), 4096):
        harness[i] = 1
    side = rounds.Side("child", [sys.executable, "-c", TOUCH.format(mb=64)], own_rss=True)
    r = rounds.run_once(side)
    # the child's 64 MiB are seen, the harness's 300 MiB are not
    assert 64 <= r.peak_rss_mb < 200, r.peak_rss_mb
    assert r.process_cpu_s > 0
    del harness


def test_own_rss_failure_raises_and_cleans_up(tmp_path, monkeypatch):
    if not os.access("/usr/bin/time", os.X_OK):
        pytest.skip("/usr/bin/time missing")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)
    with pytest.raises(RuntimeError, match="exited 3"):
        rounds.run_once(rounds.Side("bad", [sys.executable, "-c", "raise SystemExit(3)"], own_rss=True))
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("rounds-rss-")]


def test_scale_pk_small(tmp_path):
    for exe in (BUILD / "paimon", BUILD / "bench" / "bench_pk_write"):
        if not exe.exists():
            pytest.skip(f"{exe} not built")
    out = tmp_path / "r.json"
    work = tmp_path / "w"
    cmd = [sys.executable, str(ROOT / "bench" / "compact" / "scale.py"), "--pk", "--sizes", "20000,40000",
           "--file-rows", "1000", "--runs", "4", "--rounds", "1", "--memory", "64mb,default", "--work", str(work),
           "--json", str(out)]
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, BUILD=str(BUILD)))
    assert p.returncode == 0, p.stderr
    assert "inputs written by paimon-c" in p.stdout
    d = json.loads(out.read_text())
    assert set(d["sides"]) == {"20000 records 64mb", "20000 records default", "40000 records 64mb",
                               "40000 records default"}
    for s in d["sides"].values():
        assert s["ns_per_record"] > 0 and s["rss_bound_mb"] in (96, 288)
    assert d["sides"]["20000 records 64mb"]["vs_smallest"] == 1.0
    # cached inputs: every run is one sorted run of 1,000-record files, the
    # table's options back to its own after the writes; the copy is gone
    src = work / "in-pk-4r-o0.5-f1000-40000" / "db.db" / "t"
    files = json.loads(subprocess.run([str(BUILD / "paimon"), "files", str(src), "--json"], check=True,
                                      capture_output=True, text=True).stdout)
    assert len(files) == 40 and all(f["record_count"] == 1000 for f in files)
    schema = subprocess.run([str(BUILD / "paimon"), "schema", str(src)], check=True, capture_output=True,
                            text=True).stdout
    assert "target-file-row-num" not in schema
    assert not (work / "c").exists()
    # a size that is not whole runs of whole files is refused before writing
    bad = subprocess.run(cmd[:4] + ["30000", "--file-rows", "1000", "--runs", "4", "--work", str(work)],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "multiple of --file-rows" in bad.stderr
