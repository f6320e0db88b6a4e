"""The memory budget of the local lookup cache, measured from outside.

A primary-key table with changelog-producer=lookup and the local cache
(local-cache.enabled, lookup.cache-spill-compression=none) holds one
top-level file of 200,000 rows of ~300-byte strings; a level-0 run
updates every 97th key.  `paimon compact` then looks every updated key up
through the Lookup File of the top-level file, which it builds first
(streaming the data file into blocks on disk).

- With lookup.cache-max-memory-size=48 mb the Lookup File on disk is
  larger than the budget, and the peak RSS of the whole `paimon compact`
  process (the OS's ru_maxrss of the child) stays under the budget; the
  compacted rows equal those of the same compaction without the cache.
- With the minimum budget (1 mb) and 3,000-byte rows (a batch of the
  build holds more) the execution fails naming the option, publishes
  nothing, and leaves no block of the failed build behind.
"""
import json
import os
import subprocess

import pytest

from conftest import paimon_bin, run_paimon

ROWS = 200_000
PAD = "x" * 280


def _create(path, cache_dir, budget, rows=ROWS, pad=PAD):
    opts = ["bucket=1", "changelog-producer=lookup", "write-only=true"]
    if budget:
        opts += ["local-cache.enabled=true", "local-cache.dir=%s" % cache_dir,
                 "lookup.cache-max-memory-size=%s" % budget, "lookup.cache-spill-compression=none"]
    args = ["create", path, "--schema", "id BIGINT NOT NULL, v STRING", "--primary-keys", "id"]
    for o in opts:
        args += ["--option", o]
    run_paimon(*args)
    run_paimon("write", path, input="".join('{"id":%d,"v":"%s%d"}\n' % (i, pad, i) for i in range(rows)))
    run_paimon("compact", path, "--full")
    run_paimon("write", path, input="".join('{"id":%d,"v":"u%d"}\n' % (i, i) for i in range(0, rows, 97)))


def _compact_rss(path, tmp):
    """(returncode, stdout, stderr, peak RSS in MiB) of `paimon compact path --json`.
    The peak comes from /usr/bin/time (GNU time's %M: the OS's ru_maxrss of
    its child), not from this process's wait4: Linux carries the maximum RSS
    of a vforked child's parent across exec."""
    if not os.access("/usr/bin/time", os.X_OK):
        pytest.skip("/usr/bin/time missing")
    tv = tmp / "time.out"
    p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(tv), paimon_bin(), "compact", str(path), "--json"],
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr, int(tv.read_text().split()[-1]) / 1024.0


def _snapshots(path):
    return sorted(os.listdir(path / "snapshot"))


def test_rss_stays_under_the_budget(tmp_path):
    plain = tmp_path / "plain" / "db.db" / "t"
    _create(plain, None, None)
    t = tmp_path / "cached" / "db.db" / "t"
    cache = tmp_path / "cache"
    _create(t, cache, "48 mb")
    rc, out, err, rss = _compact_rss(t, tmp_path)
    assert rc == 0, err
    m = json.loads(out)
    assert m["rows_read"] == len(range(0, ROWS, 97)) and m["changelog_rows_written"] == 2 * m["rows_read"]
    lkp = [f for f in cache.iterdir() if f.suffix == ".lkp"]
    assert len(lkp) == 1
    assert lkp[0].stat().st_size > 48 << 20  # the looked-up data is larger than the budget
    assert rss < 48, "peak RSS %.1f MiB over lookup.cache-max-memory-size=48 mb" % rss
    run_paimon("compact", plain)
    assert run_paimon("read", t).stdout == run_paimon("read", plain).stdout
    assert (run_paimon("read", t, "--incremental-between", "3,4", "--mode", "changelog").stdout ==
            run_paimon("read", plain, "--incremental-between", "3,4", "--mode", "changelog").stdout)


def test_oversized_input_fails_without_publishing(tmp_path):
    t = tmp_path / "cached" / "db.db" / "t"
    cache = tmp_path / "cache"
    _create(t, cache, "1 mb", rows=4000, pad="y" * 3000)  # a batch of 1024 rows holds 3 MB
    before = _snapshots(t)
    rc, out, err, _ = _compact_rss(t, tmp_path)
    assert rc == 1
    assert "lookup.cache-max-memory-size" in err
    assert _snapshots(t) == before
    assert not cache.exists() or not [f for f in cache.iterdir() if f.suffix in (".tmp", ".lkp", ".lki")]
