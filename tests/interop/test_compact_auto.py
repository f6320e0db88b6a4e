"""Automatic compaction after `paimon write`.

- default options: once the touched bucket has enough small files, the
  write is followed by a separate COMPACT snapshot; untouched buckets are
  left alone; pypaimon reads the same rows;
- write-only=true (and the legacy write.compaction-skip) disable it;
  write-only wins over the legacy key;
- a failure injected during the round leaves the data commit intact,
  deletes the unpublished outputs and reports the cause (exit code 1);
  re-running the same write (same commit user and identifier) does not
  repeat the data commit and finishes the round;
- an invalid write.compaction.parallelism is reported after the data commit.
"""
import collections
import json
import os

import pyarrow as pa
from pypaimon import CatalogFactory, Schema

from conftest import paimon_bin, run_paimon

SCHEMA = pa.schema([("id", pa.int64()), ("s", pa.string()), ("pt", pa.string())])


def create(tmp_path, options=None, bucketed=False):
    wh = tmp_path / "wh"
    cat = CatalogFactory.create({"warehouse": str(wh)})
    cat.create_database("db", True)
    opts = dict(options or {})
    if bucketed:
        opts.update({"bucket": "2", "bucket-key": "id"})
    cat.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, partition_keys=["pt"], options=opts), False)
    return wh, wh / "db.db" / "t"


def py_append(wh, rows):
    t = CatalogFactory.create({"warehouse": str(wh)}).get_table("db.t")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(pa.Table.from_pylist(rows, schema=SCHEMA))
    cm = wb.new_commit()
    cm.commit(w.prepare_commit())
    w.close()
    cm.close()


def py_rows(wh):
    t = CatalogFactory.create({"warehouse": str(wh)}).get_table("db.t")
    rb = t.new_read_builder()
    tb = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return collections.Counter(tuple(sorted(r.items())) for r in tb.to_pylist())


def write(path, rows, *extra, check=True, env=None):
    import subprocess
    text = "".join(json.dumps(r) + "\n" for r in rows)
    p = subprocess.run([paimon_bin(), "write", str(path), *map(str, extra)], input=text, capture_output=True,
                       text=True, env=env)
    if check:
        assert p.returncode == 0, p.stderr
    return p


def kinds(path):
    out = []
    ids = sorted(int(n.split("-")[1]) for n in os.listdir(path / "snapshot") if n.startswith("snapshot-"))
    for i in ids:
        with open(path / "snapshot" / ("snapshot-%d" % i)) as f:
            out.append(json.load(f)["commitKind"])
    return out


def files(path):
    out = run_paimon("files", path, "--json").stdout
    return json.loads(out)


def bucket_dir_files(path, part, bucket=0):
    d = path / part / ("bucket-%d" % bucket)
    return sorted(n for n in os.listdir(d) if n.startswith("data-")) if d.exists() else []


def test_default_options_compact_touched_buckets(tmp_path):
    wh, path = create(tmp_path)
    for k in range(6):  # pypaimon never compacts: partition b keeps 6 small files
        py_append(wh, [{"id": k, "s": "b", "pt": "b"}])
    outs = []
    for k in range(5):
        outs.append(write(path, [{"id": k, "s": None, "pt": "a"}, {"id": k, "s": "dup", "pt": "a"}]).stdout)
    assert kinds(path) == ["APPEND"] * 11 + ["COMPACT"]
    assert "compacted 5 files" in outs[-1]
    parts = collections.Counter(f["partition"] for f in files(path))
    assert parts == {"pt=a": 1, "pt=b": 6}
    compacted = [f for f in files(path) if f["file_source"] == "COMPACT"]
    assert len(compacted) == 1 and compacted[0]["record_count"] == 10
    rows = py_rows(wh)
    assert sum(rows.values()) == 16
    # the next write to b compacts b too (7 small files now)
    write(path, [{"id": 99, "s": "b", "pt": "b"}])
    assert kinds(path)[-1] == "COMPACT"
    assert collections.Counter(f["partition"] for f in files(path)) == {"pt=a": 1, "pt=b": 1}
    assert sum(py_rows(wh).values()) == 17


def test_bucketed_default_options(tmp_path):
    wh, path = create(tmp_path, bucketed=True)
    for k in range(5):
        write(path, [{"id": 1, "s": str(k), "pt": "a"}])  # always the same bucket
    assert kinds(path)[-1] == "COMPACT"
    fs = files(path)
    assert len(fs) == 1 and fs[0]["record_count"] == 5
    assert fs[0]["min_sequence_number"] == 0 and fs[0]["max_sequence_number"] == 4


def test_write_only(tmp_path):
    for opts, compacts in [({"write-only": "true"}, False), ({"write.compaction-skip": "true"}, False),
                           ({"write-only": "false", "write.compaction-skip": "true"}, True)]:
        base = tmp_path / ("case-%d" % len(list(tmp_path.iterdir())))
        base.mkdir()
        wh, path = create(base, opts)
        for k in range(6):
            write(path, [{"id": k, "s": "x", "pt": "a"}])
        assert ("COMPACT" in kinds(path)) == compacts, opts
        assert len(files(path)) == (2 if compacts else 6)


def test_injected_failure_keeps_data_commit(tmp_path):
    wh, path = create(tmp_path)
    for k in range(4):
        write(path, [{"id": k, "s": "x", "pt": "a"}])
    env = dict(os.environ, PAIMON_FAULT_INJECT="writer-close")
    p = write(path, [{"id": 4, "s": "x", "pt": "a"}], "--commit-user", "w1", "--commit-identifier", "5",
              check=False, env=env)
    assert p.returncode == 3  # the data commit stands, the automatic compaction failed
    assert "snapshot 5: 1 rows in 1 files" in p.stdout
    assert "automatic compaction after snapshot 5 failed" in p.stderr
    assert "data commit stays committed" in p.stderr
    assert "injected fault: writer-close" in p.stderr  # the cause
    assert kinds(path) == ["APPEND"] * 5
    assert sum(py_rows(wh).values()) == 5
    # no unpublished output is left behind
    assert bucket_dir_files(path, "pt=a") == sorted(f["file_name"] for f in files(path))
    # recovery: the same write again does not repeat the data commit, and finishes the round
    p = write(path, [{"id": 4, "s": "x", "pt": "a"}], "--commit-user", "w1", "--commit-identifier", "5")
    assert "already committed" in p.stdout
    assert kinds(path) == ["APPEND"] * 5 + ["COMPACT"]
    assert sum(py_rows(wh).values()) == 5
    # and once more: nothing is repeated
    write(path, [{"id": 4, "s": "x", "pt": "a"}], "--commit-user", "w1", "--commit-identifier", "5")
    assert kinds(path) == ["APPEND"] * 5 + ["COMPACT"]


def test_invalid_parallelism(tmp_path):
    wh, path = create(tmp_path, {"write.compaction.parallelism": "0"})
    p = write(path, [{"id": 1, "s": "x", "pt": "a"}], check=False)
    assert p.returncode == 3  # the data commit stands; the automatic round refused the option
    assert "write.compaction.parallelism" in p.stderr
    assert kinds(path) == ["APPEND"]


def test_concurrent_writers_compact_without_errors(tmp_path):
    """Writers racing on one bucket: a compaction that lost against another
    one plans again instead of failing the write."""
    import subprocess
    wh, path = create(tmp_path)
    procs = []
    for p in range(4):
        script = []
        for c in range(6):
            script.append("printf '%s' | %s write %s || exit 1"
                          % ('{"id":%d,"s":"p%d","pt":"a"}\\n' % (p * 100 + c, p), paimon_bin(), path))
        procs.append(subprocess.Popen(["bash", "-c", "\n".join(script)], stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    for pr in procs:
        out, err = pr.communicate(timeout=600)
        assert pr.returncode == 0, err
    k = kinds(path)
    assert k.count("APPEND") == 24 and "COMPACT" in k
    assert sum(py_rows(wh).values()) == 24
    assert len(files(path)) < 24
