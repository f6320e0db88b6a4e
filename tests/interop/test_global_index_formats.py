"""Global index payload formats beyond Java 1.4.2's defaults
(index/global_index_dict.h, index/global_index_block.h):

- bitmap-index.format=dictionary: pypaimon 2.1's global-index scanner (it
  reads only this bitmap format) returns for random point and IN queries
  the row IDs of a brute-force filter over the table, after each automatic
  maintenance round, with and without block compression, and after
  compaction; `paimon read --where` returns the filtered full scan.
- pypaimon-written bitmap indexes (its BitmapIndexWriter) are read by us,
  and we maintain such a table after pypaimon (new coverage next to its
  payloads, which stay).
- btree-index.compression (zstd, lz4): pypaimon and Apache Paimon Java
  1.4.2 (bench/java gi-query) read our compressed btree payloads, and the
  blocks really are compressed (trailer compression ids).
"""
import json
import os
import random
import struct
import subprocess
import sys

import pytest

from conftest import run_paimon
from test_global_index import _batch, _brute, _check_where, _live_entries, _rows, java  # noqa: F401


def _create(t, *opts):
    args = ["create", t, "--schema", "id BIGINT, name STRING, cat INT, v INT", "--option", "bucket=-1",
            "--option", "row-tracking.enabled=true", "--option", "data-evolution.enabled=true"]
    for o in opts:
        args += ["--option", o]
    run_paimon(*args)


def _write(tmp_path, t, rows, tag):
    p = tmp_path / f"{tag}.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    run_paimon("write", t, "--input", p)


def _index_files(t, kind):
    return sorted(f for f in os.listdir(t / "index") if f.startswith(kind + "-global-index-"))


def _pypaimon_many(table_path, queries):
    """pypaimon 2.1's global-index row IDs of each (col, vals) query, in one
    interpreter (None: no index answers)."""
    code = r"""
import json, os, sys
from pypaimon import CatalogFactory
from pypaimon.globalindex.data_evolution_global_index_scanner import DataEvolutionGlobalIndexScanner
path, queries = sys.argv[1], json.loads(sys.argv[2])
wh = os.path.dirname(os.path.dirname(path))
db = os.path.basename(os.path.dirname(path))[:-3]
t = CatalogFactory.create({'warehouse': wh}).get_table(db + '.' + os.path.basename(path))
pb = t.new_read_builder().new_predicate_builder()
out = []
for col, vals in queries:
    pred = pb.equal(col, vals[0]) if len(vals) == 1 else pb.is_in(col, vals)
    sc = DataEvolutionGlobalIndexScanner.create(t, predicate=pred)
    r = sc.scan(pred) if sc is not None else None
    out.append(None if r is None else sorted(r.results()))
print(json.dumps(out))
"""
    proc = subprocess.run([sys.executable, "-c", code, str(table_path), json.dumps(queries)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def _check_cols(t, rng, cols, rounds=3):
    """Random point / IN queries (and a value no row holds) on each column:
    pypaimon's row IDs are the brute-force ones; --where is the filtered
    full scan."""
    all_rows = _rows(t)
    queries = []
    for col in cols:
        values = sorted({r[col] for r in all_rows if r[col] is not None}, key=str)
        for _ in range(rounds):
            queries.append([col, rng.sample(values, min(len(values), rng.choice([1, 1, 2, 3])))])
        queries.append([col, [{"name": "nobody-at-all", "cat": 99}.get(col, 10**15)]])
    got = _pypaimon_many(t, queries)
    with_ids = _rows(t, "--columns", "_ROW_ID," + ",".join(cols))
    for (col, vals), ids in zip(queries, got):
        want = sorted(r["_ROW_ID"] for r in with_ids if r[col] is not None and r[col] in vals)
        assert ids == want, (col, vals)
        _check_where(t, col, vals)


@pytest.mark.parametrize("compression", [None, "zstd", "lz4"])
def test_dictionary_bitmap_read_by_pypaimon(tmp_path, compression):
    wh = tmp_path / "wh" / "db.db"
    wh.mkdir(parents=True)
    t = wh / "t"
    opts = ["global-index.bitmap.index-columns=cat,name", "bitmap-index.format=dictionary",
            "global-index.row-count-per-shard=150",
            "fields.name.index-options={\"dictionary-block-size\": \"32 b\"}"]
    if compression:
        opts.append(f"bitmap-index.compression={compression}")
    _create(t, *opts)
    rng = random.Random(21)
    total = 0
    for w in range(3):
        rows = _batch(rng, total, rng.randrange(60, 220))
        total += len(rows)
        _write(tmp_path, t, rows, f"w{w}")
        if not compression or w == 2:
            _check_cols(t, rng, ("cat", "name"))
    for f in _index_files(t, "bitmap"):
        b = (t / "index" / f).read_bytes()
        assert struct.unpack(">ii", b[-8:]) == (1, 0x42474958), f  # version 1, magic BGIX
    run_paimon("compact", t)
    _check_cols(t, rng, ("cat", "name"), rounds=2)


def _pypaimon_build(t, col, index_type, options=None):
    code = r"""
import json, os, sys
from pypaimon import CatalogFactory
path, col, typ, opts = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
wh = os.path.dirname(os.path.dirname(path))
db = os.path.basename(os.path.dirname(path))[:-3]
t = CatalogFactory.create({'warehouse': wh}).get_table(db + '.' + os.path.basename(path))
print(t.create_global_index(col, index_type=typ, options=opts))
"""
    proc = subprocess.run([sys.executable, "-c", code, str(t), col, index_type, json.dumps(options or {})],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return int(proc.stdout.split()[-1])


def test_pypaimon_written_bitmaps_read_and_maintained(tmp_path):
    wh = tmp_path / "wh" / "db.db"
    wh.mkdir(parents=True)
    t = wh / "t"
    _create(t, "write-only=true")
    rng = random.Random(8)
    rows = _batch(rng, 0, 300, empty=False)
    _write(tmp_path, t, rows, "w0")
    added = _pypaimon_build(t, "cat", "bitmap", {"bitmap-index.dictionary-block-size": "16 b"})
    assert added >= 1
    py_files = _index_files(t, "bitmap")
    assert py_files
    # pypaimon's files are read by us (no declaration needed to read)
    for vals in ([1], [2, 4], [3], [99]):
        _check_where(t, "cat", vals)
    # now declared (either format reads the other's files); we build only the new rows' coverage
    schema = json.loads((t / "schema" / "schema-0").read_text())
    schema["id"] = 1
    schema["options"]["global-index.bitmap.index-columns"] = "cat"
    schema["options"]["bitmap-index.format"] = "dictionary"
    (t / "schema" / "schema-1").write_text(json.dumps(schema, indent=2))
    _write(tmp_path, t, _batch(rng, 300, 120), "w1")
    out = json.loads(run_paimon("index", t, "--json").stdout)
    assert out["files_added"] == 1 and out["files_removed"] == 0
    assert set(py_files) < set(_index_files(t, "bitmap"))
    ranges = [(a, b) for f, a, b, kind in _live_entries(t) if kind == "bitmap"]
    assert ranges[-1] == (300, 419)
    _check_cols(t, rng, ("cat",))


def _uvarint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def _trailer_codecs(path):
    """Compression ids of a btree file's blocks: the index block's (handle in
    the footer) and, when it is stored uncompressed, its data blocks'."""
    b = path.read_bytes()
    ioff, isize = struct.unpack("<qi", b[-52:][20:32])
    ids = {b[ioff + isize]}
    if b[ioff + isize] == 0:
        blk = b[ioff:ioff + isize]
        if blk[-1] == 1:
            count = struct.unpack("<i", blk[-5:-1])[0]
            end = len(blk) - 5 - 4 * count
        else:
            end = len(blk) - 5
        i = 0
        while i < end:
            kl, i = _uvarint(blk, i)
            i += kl
            vl, i = _uvarint(blk, i)
            off, j = _uvarint(blk, i)
            size, _ = _uvarint(blk, j)
            ids.add(b[off + size])
            i += vl
    return ids


@pytest.mark.parametrize("codec,cid", [("zstd", 1), ("lz4", 2)])
def test_compressed_btree_read_by_pypaimon_and_java(java, tmp_path, codec, cid):  # noqa: F811
    wh = tmp_path / "wh" / "db.db"
    wh.mkdir(parents=True)
    t = wh / "t"
    _create(t, "global-index.btree.index-columns=id,name", f"btree-index.compression={codec}",
            "global-index.row-count-per-shard=1000")
    rng = random.Random(4)
    total = 0
    for w in range(2):
        # small ids and repeated names: their data blocks compress
        rows = _batch(rng, total, rng.randrange(150, 300), empty=False)
        total += len(rows)
        _write(tmp_path, t, rows, f"w{w}")
    codecs = set()
    for f in _index_files(t, "btree"):
        codecs |= _trailer_codecs(t / "index" / f)
    assert cid in codecs, codecs
    _check_cols(t, rng, ("id", "name"))
    all_rows = _rows(t)
    for col in ("id", "name"):
        values = sorted({r[col] for r in all_rows if r[col] not in (None, "")}, key=str)
        for _ in range(3):
            vals = rng.sample(values, rng.choice([1, 2]))
            lines = java.call("gi-query", str(t), "--column", col, "--values", json.dumps(vals, ensure_ascii=False))
            assert json.loads(lines[-1]) == _brute(t, col, vals), (col, vals)
