"""The memory budget of primary-key compaction, measured from outside.

A fixed-bucket primary-key table holds RUNS level-0 runs of ROWS rows each
that all overlap (wide rows: a key, six strings, two numbers; Parquet).
`paimon compact --full --memory B` merges them:

- The peak RSS of the whole process (GNU time's %M: the OS's ru_maxrss of
  its child) stays within B + 32 MiB (issue 14's fixed overhead) at two
  budgets (40mb holds two of the ten runs at a time, 128mb seven: the
  merge goes through passes of the spill) — the merge charges each run's
  two batches and its reader's buffers, the writer its row group (half
  the budget each).  main before this change peaked at 76 MiB at 40mb.
- The rows equal those of the same compaction under the default budget.
- A budget that cannot hold two runs being merged is refused (exit 1,
  EINVALID) naming the budget and what a run needs, publishes nothing and
  leaves no new file in the bucket.
"""
import os
import shutil
import subprocess

import pytest

from conftest import paimon_bin, run_paimon

RUNS = 10
ROWS = 40_000
SCHEMA = ("id BIGINT NOT NULL, a STRING, b STRING, c STRING, d STRING, e STRING, f STRING, "
          "x DOUBLE, y BIGINT")


def _create(path):
    run_paimon("create", str(path), "--schema", SCHEMA, "--primary-keys", "id",
               "--option", "bucket=1", "--option", "write-only=true")
    for r in range(RUNS):
        base = r * ROWS // 8
        lines = []
        for i in range(ROWS):
            k = base + (i * 7919) % ROWS
            s = "%08d-%d" % (k * 2654435761 % 100000007, r)
            lines.append('{"id":%d,"a":"a%s","b":"b%s%s","c":"c%s","d":"%s-d","e":"e%s","f":"%sf%s",'
                         '"x":%d.25,"y":%d}\n' % (k, s, s, s, s * 2, s, s * 3, s, s, k * 3, k ^ r))
        run_paimon("write", str(path), input="".join(lines))


def _compact(path, tmp, memory):
    """(returncode, stderr, peak RSS in MiB) of `paimon compact --full --memory`."""
    if not os.access("/usr/bin/time", os.X_OK):
        pytest.skip("/usr/bin/time missing")
    tv = tmp / "time.out"
    args = ["/usr/bin/time", "-f", "%M", "-o", str(tv), paimon_bin(), "compact", str(path), "--full",
            "--parallelism", "1"]
    if memory:
        args += ["--memory", memory]
    p = subprocess.run(args, capture_output=True, text=True)
    return p.returncode, p.stderr, int(tv.read_text().split()[-1]) / 1024.0


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    t = tmp_path_factory.mktemp("pkmem") / "src" / "db.db" / "t"
    _create(t)
    return t


def _copy(source, tmp, name):
    dst = tmp / name / "db.db" / "t"
    shutil.copytree(source, dst)
    return dst


def test_rss_within_budget(source, tmp_path):
    ref = _copy(source, tmp_path, "ref")
    rc, err, _ = _compact(ref, tmp_path, None)
    assert rc == 0, err
    want = run_paimon("read", str(ref)).stdout
    assert len(want.splitlines()) == ROWS + (RUNS - 1) * ROWS // 8
    for budget_mb in (40, 128):
        t = _copy(source, tmp_path, "m%d" % budget_mb)
        rc, err, rss = _compact(t, tmp_path, "%dmb" % budget_mb)
        assert rc == 0, err
        assert rss <= budget_mb + 32, "peak RSS %.1f MiB over --memory %dmb + 32 MiB" % (rss, budget_mb)
        assert run_paimon("read", str(t)).stdout == want


def test_too_small_budget_refused(source, tmp_path):
    t = _copy(source, tmp_path, "tiny")
    bucket = t / "bucket-0"
    files = sorted(os.listdir(bucket))
    snaps = sorted(os.listdir(t / "snapshot"))
    rc, err, _ = _compact(t, tmp_path, "2mb")
    assert rc == 1
    assert "EINVALID" in err and "memory budget of 2097152 bytes" in err, err
    assert "cannot merge" in err and "reader buffers" in err, err
    assert sorted(os.listdir(bucket)) == files
    assert sorted(os.listdir(t / "snapshot")) == snaps
