"""global-index.external-path: global index payloads under an external
root (compact/global_index_maint.h, table/table_internal.h):

- written there (nothing in <table>/index/), listed with their full path
  as _EXTERNAL_PATH (the root as spelled + '/' + name, as pypaimon writes);
- read back by us (`paimon read --where`), by pypaimon 2.1 and by Apache
  Paimon Java 1.4.2 (bench/java gi-query), all equal to a brute-force
  filter;
- retired payloads stay for the snapshots that list them and go with
  snapshot expiration; orphan removal deletes an unreferenced global
  index file of the root and keeps live payloads and other files;
- an entry outside every configured root is refused (PM_ECORRUPT naming
  the field), a relative root is refused before anything is written.
"""
import json
import os
import random
import time

import fastavro

from conftest import run_paimon
from test_global_index import _batch, _brute, _check_where, _rows, java  # noqa: F401
from test_global_index_formats import _check_cols, _write


def _entries(t):
    """(kind, type, file name, external path, range) of the latest index manifest."""
    snaps = sorted(int(p.name[9:]) for p in (t / "snapshot").glob("snapshot-*"))
    snap = json.loads((t / "snapshot" / f"snapshot-{snaps[-1]}").read_text())
    out = []
    for e in fastavro.reader(open(t / "manifest" / snap["indexManifest"], "rb")):
        g = e["_GLOBAL_INDEX"]
        out.append((e["_KIND"], e["_INDEX_TYPE"], e["_FILE_NAME"], e["_EXTERNAL_PATH"],
                    (g["_ROW_RANGE_START"], g["_ROW_RANGE_END"])))
    return out


def _new_schema(t, **opts):
    ids = sorted(int(p.name[7:]) for p in (t / "schema").glob("schema-*"))
    schema = json.loads((t / "schema" / f"schema-{ids[-1]}").read_text())
    schema["id"] = ids[-1] + 1
    for k, v in opts.items():
        if v is None:
            schema["options"].pop(k, None)
        else:
            schema["options"][k] = v
    (t / "schema" / f"schema-{ids[-1] + 1}").write_text(json.dumps(schema, indent=2))


def test_external_root(java, tmp_path):  # noqa: F811
    wh = tmp_path / "wh" / "db.db"
    wh.mkdir(parents=True)
    t = wh / "t"
    root = tmp_path / "gi-root"
    spelled = f"file:{root}/"
    run_paimon("create", t, "--schema", "id BIGINT, name STRING, cat INT, v INT", "--option", "bucket=-1",
               "--option", "row-tracking.enabled=true", "--option", "data-evolution.enabled=true",
               "--option", "global-index.btree.index-columns=id,name", "--option",
               "global-index.bitmap.index-columns=cat", "--option", "bitmap-index.format=dictionary",
               "--option", "global-index.row-count-per-shard=1000", "--option",
               f"global-index.external-path={spelled}")
    rng = random.Random(12)
    total = 0
    for w in range(2):
        rows = _batch(rng, total, rng.randrange(80, 160), empty=False)
        total += len(rows)
        _write(tmp_path, t, rows, f"w{w}")
    assert not (t / "index").exists() or not os.listdir(t / "index")
    files = sorted(os.listdir(root))
    live = [e for e in _entries(t) if e[0] == 0]
    assert len(live) == 6 and sorted(e[2] for e in live) == files  # 3 columns x 2 writes
    for _, _, name, ext, _ in live:
        assert ext == f"file:{root}/{name}"
    _check_cols(t, rng, ("id", "name", "cat"), rounds=2)
    all_rows = _rows(t)
    for col in ("id", "name", "cat"):
        values = sorted({r[col] for r in all_rows if r[col] is not None}, key=str)
        vals = rng.sample(values, 2)
        if col != "cat":  # Java 1.4.2 reads only its own bitmap format
            lines = java.call("gi-query", str(t), "--column", col, "--values", json.dumps(vals, ensure_ascii=False))
            assert json.loads(lines[-1]) == _brute(t, col, vals), (col, vals)

    # consolidation below the trigger keeps the files; a shard change retires the ranges crossing it
    before = {e[2] for e in _entries(t) if e[0] == 0}
    _new_schema(t, **{"global-index.row-count-per-shard": "50"})
    out = json.loads(run_paimon("index", t, "--json").stdout)
    assert out["files_removed"] == 6 and out["files_added"] >= 6
    retired = sorted(before - {e[2] for e in _entries(t) if e[0] == 0})
    assert len(retired) == 6 and all((root / n).exists() for n in retired)  # history keeps them
    _check_cols(t, rng, ("id", "cat"), rounds=2)
    run_paimon("expire-snapshots", t, "--retain-min", "1", "--retain-max", "1", "--older-than", "0s")
    assert not any((root / n).exists() for n in retired)
    live = sorted(e[2] for e in _entries(t) if e[0] == 0)
    assert sorted(os.listdir(root)) == live

    # orphans: an old unreferenced global index file goes, other files stay
    stray = root / "btree-global-index-00000000-0000-0000-0000-000000000000.index"
    other = root / "notes.txt"
    for p in (stray, other):
        p.write_bytes(b"x")
        old = time.time() - 3 * 86400
        os.utime(p, (old, old))
    for n in live:
        os.utime(root / n, (time.time() - 3 * 86400,) * 2)
    out = json.loads(run_paimon("remove-orphan-files", t, "--older-than", "1d", "--json").stdout)
    assert not stray.exists() and other.exists()
    assert all((root / n).exists() for n in live)
    assert str(stray) in out["paths"] and out["files_deleted"] == 1
    for vals in ([1], [2, 3]):
        _check_where(t, "cat", vals)

    # an entry outside every root is refused, naming the field; nothing else changes
    _new_schema(t, **{"global-index.external-path": None, "write-only": "true"})
    bad = run_paimon("read", t, "--where", "cat = 1", check=False)
    assert bad.returncode == 1 and "_EXTERNAL_PATH" in bad.stderr, bad.stderr


def test_relative_root_refused(tmp_path):
    t = tmp_path / "t"
    run_paimon("create", t, "--schema", "a INT, b STRING", "--option", "bucket=-1", "--option",
               "row-tracking.enabled=true", "--option", "write-only=true", "--option",
               "global-index.btree.index-columns=a", "--option", "global-index.external-path=rel/dir")
    p = tmp_path / "in.jsonl"
    p.write_text('{"a": 1, "b": "x"}\n')
    run_paimon("write", t, "--input", p)
    bad = run_paimon("index", t, check=False)
    assert bad.returncode in (1, 2) and "global-index.external-path" in bad.stderr, bad.stderr
    assert not (t / "rel").exists() and not (tmp_path / "rel").exists()
