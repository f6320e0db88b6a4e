"""Deletion-vector index files: paimon-c against pypaimon and pyroaring.

- Every DV index file of the Java-written fixture tables: `paimon dv read`
  and pypaimon's DeletionVector.read give the same deleted positions.
- DV files pypaimon writes (data-evolution deletes) read the same in C.
- Files `paimon dv write` produces: pypaimon's reader (32-bit) and an
  independent pyroaring-based decoder of the 64-bit layout get the written
  positions back; the bitmap bytes equal pyroaring's run-optimized portable
  serialization; CRCs and DeletionVectorMeta lengths follow the spec.
"""
import glob
import json
import os
import random
import struct
import zlib

import fastavro
import pytest
from pyroaring import BitMap

from conftest import FIXTURES, run_paimon_dev as run_paimon, run_paimon_dev_jsonl as run_paimon_jsonl

from pypaimon.deletionvectors.deletion_vector import DeletionVector
from pypaimon.filesystem.local_file_io import LocalFileIO
from pypaimon.table.source.deletion_file import DeletionFile

PARQUET = FIXTURES / "java-written" / "parquet"
DV_TABLES = [
    "pk_table_scan_and_read_dv", "pk_with_bitmap_dv", "pk_09", "pk_table_with_alter_table",
    "pk_dv_index_in_data_no_external", "pk_dv_index_in_data_with_external",
    "pk_dv_index_not_in_data_no_external", "pk_dv_index_not_in_data_with_external",
]


def index_entries(table_dir):
    for im in sorted(glob.glob(os.path.join(table_dir, "manifest", "index-manifest-*"))):
        with open(im, "rb") as f:
            for rec in fastavro.reader(f):
                if rec["_INDEX_TYPE"] == "DELETION_VECTORS":
                    yield rec


def locate(table_dir, rec):
    ext = rec.get("_EXTERNAL_PATH")
    if ext:
        # Java wrote FILE:/tmp/external/...; the fixture keeps it beside the table.
        rel = ext.split("/tmp/external/", 1)[1]
        return os.path.join(os.path.dirname(table_dir), "external", rel)
    hits = glob.glob(os.path.join(table_dir, "**", rec["_FILE_NAME"]), recursive=True)
    assert len(hits) == 1, hits
    return hits[0]


def py_positions(path, offset, length, cardinality=None):
    dv = DeletionVector.read(LocalFileIO(), DeletionFile(path, offset, length, cardinality))
    return sorted(dv.bit_map())


def c_read(path, ranges):
    """ranges: [(name, offset, length, cardinality or None)] → {name: record}."""
    args = ["dv", "read", path]
    for name, off, ln, card in ranges:
        args += ["--range", f"{name}:{off}:{ln}" + ("" if card is None else f":{card}")]
    return {r["file"]: r for r in run_paimon_jsonl(*args)}


@pytest.mark.parametrize("table", DV_TABLES)
def test_java_fixture_dvs_match_pypaimon(table):
    table_dir = str(PARQUET / f"{table}.db" / table)
    checked = 0
    for rec in index_entries(table_dir):
        path = locate(table_dir, rec)
        ranges = [(r["f0"], r["f1"], r["f2"], r.get("_CARDINALITY")) for r in rec["_DELETIONS_VECTORS_RANGES"]]
        ours = c_read(path, ranges)
        assert len(ours) == len(ranges) == rec["_ROW_COUNT"]
        for name, off, ln, card in ranges:
            want = py_positions(path, off, ln, card)
            assert ours[name]["positions"] == want
            assert ours[name]["bitmap64"] is False
            if card is not None:
                assert ours[name]["cardinality"] == card
            checked += 1
    assert checked > 0


def test_pypaimon_written_dvs(tmp_path):
    import pyarrow as pa
    from pypaimon import CatalogFactory, Schema

    cat = CatalogFactory.create({"warehouse": str(tmp_path)})
    cat.create_database("db", True)
    opts = {"row-tracking.enabled": "true", "data-evolution.enabled": "true",
            "deletion-vectors.enabled": "true", "bucket": "-1"}
    cat.create_table("db.t", Schema.from_pyarrow_schema(pa.schema([("id", pa.int64())]), options=opts), False)
    t = cat.get_table("db.t")
    for k in range(2):
        wb = t.new_batch_write_builder()
        w, c = wb.new_write(), wb.new_commit()
        w.write_arrow(pa.table({"id": list(range(k * 3000, (k + 1) * 3000))}))
        c.commit(w.prepare_commit())
        w.close()
        c.close()
    t = cat.get_table("db.t")
    deleted = {1, 2, 3, 2999, 3000, 5999} | set(range(100, 2100)) | set(range(4000, 4400, 7))
    wb = t.new_batch_write_builder()
    c = wb.new_commit()
    c.commit(wb.new_update().delete_by_row_id(sorted(deleted)))
    c.close()

    table_dir = str(tmp_path / "db.db" / "t")
    got = []
    for rec in index_entries(table_dir):
        path = locate(table_dir, rec)
        ranges = [(r["f0"], r["f1"], r["f2"], r.get("_CARDINALITY")) for r in rec["_DELETIONS_VECTORS_RANGES"]]
        ours = c_read(path, ranges)
        for name, off, ln, card in ranges:
            assert ours[name]["positions"] == py_positions(path, off, ln, card)
            got.append(ours[name]["positions"])
    # Row ids run file after file, 3000 per file: positions = row id - first row id.
    want = [sorted(d for d in deleted if d < 3000), sorted(d - 3000 for d in deleted if d >= 3000)]
    assert sorted(got) == sorted(want)


def random_sets(rng, bitmap64):
    top = (1 << 40) if bitmap64 else (1 << 31)
    sets = {
        "empty.parquet": [],
        "one.parquet": [0],
        "sparse.parquet": sorted(rng.sample(range(200000), 300)),
        "runs.parquet": list(range(1000, 9000)) + list(range(70000, 70010)) + [131072],
        "bitset.parquet": list(range(0, 40000, 3)),
        "max.parquet": [top - 1, 5],
    }
    if bitmap64:
        sets["keys.parquet"] = [1, (1 << 32) + 1, (3 << 32) + 7, (3 << 32) + 8]
    return sets


def write_input(tmp_path, sets):
    src = tmp_path / "in.jsonl"
    with open(src, "w") as f:
        for name, pos in sets.items():
            f.write(json.dumps({"file": name, "positions": pos}) + "\n")
    return src


def decode_v2(path, offset, length):
    """Independent decoder of a V2 (64-bit) entry with pyroaring."""
    data = open(path, "rb").read()
    size = struct.unpack(">i", data[offset:offset + 4])[0]
    assert length == size + 8
    body = data[offset + 4:offset + 4 + size]
    assert struct.unpack(">I", data[offset + 4 + size:offset + 8 + size])[0] == zlib.crc32(body)
    magic, count = struct.unpack("<iq", body[:12])
    assert magic == 1681511377
    pos, out = 12, []
    for k in range(count):
        (key,) = struct.unpack("<i", body[pos:pos + 4])
        assert key == k  # dense: every key written, empty ones too
        bm = BitMap.deserialize(body[pos + 4:])
        n = len(bm.serialize())
        pos += 4 + n
        out += [(key << 32) | v for v in bm]
    assert pos == len(body)
    return out


def check_v1_bytes(path, offset, length, positions):
    data = open(path, "rb").read()
    size = struct.unpack(">i", data[offset:offset + 4])[0]
    assert size == length
    body = data[offset + 4:offset + 4 + size]
    assert struct.unpack(">i", body[:4])[0] == 1581511376
    assert struct.unpack(">I", data[offset + 4 + size:offset + 8 + size])[0] == zlib.crc32(body)
    bm = BitMap(positions)
    bm.run_optimize()
    assert body[4:] == bm.serialize()


@pytest.mark.parametrize("bitmap64", [False, True])
def test_we_write_peers_read(tmp_path, bitmap64):
    rng = random.Random(7)
    sets = random_sets(rng, bitmap64)
    src = write_input(tmp_path, sets)
    out = tmp_path / "out"
    args = ["dv", "write", "--input", src, out] + (["--bitmap64"] if bitmap64 else [])
    metas = run_paimon_jsonl(*args)
    assert len(metas) == 1
    meta = metas[0]
    path = str(out / meta["file_name"])
    assert os.path.getsize(path) == meta["file_size"]
    assert open(path, "rb").read(1) == b"\x01"
    assert meta["row_count"] == len(sets)
    assert [r["file"] for r in meta["ranges"]] == list(sets)
    assert meta["ranges"][0]["offset"] == 1
    for r in meta["ranges"]:
        want = sorted(set(sets[r["file"]]))
        assert r["cardinality"] == len(want)
        if bitmap64:
            assert decode_v2(path, r["offset"], r["length"]) == want
        else:
            assert py_positions(path, r["offset"], r["length"], r["cardinality"]) == want
            check_v1_bytes(path, r["offset"], r["length"], want)
    # And our own reader agrees.
    ours = c_read(path, [(r["file"], r["offset"], r["length"], r["cardinality"]) for r in meta["ranges"]])
    for name, pos in sets.items():
        assert ours[name]["positions"] == sorted(set(pos))
        assert ours[name]["bitmap64"] is bitmap64


def test_rolling_files_read_by_pypaimon(tmp_path):
    sets = {f"data-{i}.parquet": list(range(i, 30000, 7)) for i in range(12)}
    src = write_input(tmp_path, sets)
    out = tmp_path / "out"
    metas = run_paimon_jsonl("dv", "write", "--target-size", "20000", "--input", src, out)
    assert len(metas) > 1
    seen = []
    for meta in metas:
        path = str(out / meta["file_name"])
        size = os.path.getsize(path)
        assert size == meta["file_size"]
        # closed right after the entry that passed the target
        last = meta["ranges"][-1]
        assert size > 20000 or meta is metas[-1]
        assert last["offset"] <= 20000
        for r in meta["ranges"]:
            assert py_positions(path, r["offset"], r["length"]) == sets[r["file"]]
            seen.append(r["file"])
    assert seen == list(sets)


def test_corrupt_file_rejected(tmp_path):
    src = write_input(tmp_path, {"a.parquet": list(range(100))})
    out = tmp_path / "out"
    meta = run_paimon_jsonl("dv", "write", "--input", src, out)[0]
    path = out / meta["file_name"]
    data = bytearray(path.read_bytes())
    data[12] ^= 0xFF  # inside the bitmap: CRC no longer matches
    path.write_bytes(bytes(data))
    r = meta["ranges"][0]
    proc = run_paimon("dv", "read", path, "--range", f"a.parquet:{r['offset']}:{r['length']}", check=False)
    assert proc.returncode == 1
    assert "ECORRUPT" in proc.stderr
