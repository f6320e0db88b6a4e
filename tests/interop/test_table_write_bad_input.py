"""Bad input to `paimon write`: a clear error, a non-zero exit, and not one
byte changed on disk (hash of the whole table tree before and after)."""
import hashlib
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pypaimon import CatalogFactory, Schema

from conftest import run_paimon

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("name", pa.string()), ("v", pa.float64()),
                    ("pt", pa.string())])


@pytest.fixture
def table(tmp_path):
    cat = CatalogFactory.create({"warehouse": str(tmp_path / "wh")})
    cat.create_database("db", True)
    cat.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, partition_keys=["pt"]), False)
    path = tmp_path / "wh" / "db.db" / "t"
    run_paimon("write", path, input='{"id":1,"name":"a","v":1.0,"pt":"x"}\n')
    return path


def tree_hash(root):
    h = hashlib.sha256()
    for d, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        h.update(("D " + os.path.relpath(d, root) + "\n").encode())
        for f in sorted(files):
            p = os.path.join(d, f)
            h.update(("F " + os.path.relpath(p, root) + "\n").encode())
            with open(p, "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


GOOD = '{"id":2,"name":"b","v":2.0,"pt":"y"}\n'


@pytest.mark.parametrize("name,fmt,data,message", [
    ("malformed json", "jsonl", GOOD + GOOD + '{"id":3,"name":\n', "line 3"),
    ("wrong type", "jsonl", GOOD + '{"id":"three","pt":"z"}\n', "BIGINT"),
    ("unknown column", "jsonl", '{"id":3,"colour":"red"}\n', "colour"),
    ("null in NOT NULL", "jsonl", GOOD + '{"id":null,"pt":"z"}\n', "id"),
    ("not an object", "jsonl", '[1,2,3]\n', "line 1"),
    ("csv unknown column", "csv", "id,colour\n1,red\n", "colour"),
    ("csv cell count", "csv", "id,name,pt\n1,a,x\n2,b\n", "cells"),
    ("csv bad number", "csv", "id,v,pt\n1,1.5,x\n2,abc,y\n", "DOUBLE"),
    ("csv unterminated quote", "csv", 'id,name\n1,"abc\n', "unterminated"),
    ("csv missing NOT NULL column", "csv", "name,pt\na,x\n", "id"),
])
def test_bad_rows_change_nothing(tmp_path, table, name, fmt, data, message):
    before = tree_hash(table)
    f = tmp_path / ("input." + fmt)
    f.write_text(data)
    # small batches: some data files are written before the error is found
    p = run_paimon("write", table, "--input", f, "--batch-rows", "1", check=False)
    assert p.returncode == 1, name
    assert "paimon write: error [EINVALID]" in p.stderr, p.stderr
    assert message in p.stderr, p.stderr
    assert tree_hash(table) == before, name


def test_parquet_input_with_wrong_types(tmp_path, table):
    before = tree_hash(table)
    f = tmp_path / "in.parquet"
    pq.write_table(pa.table({"id": pa.array([1], pa.int32()), "pt": ["x"]}), f)
    p = run_paimon("write", table, "--input", f, check=False)
    assert p.returncode == 1 and "column 'id' has type INT" in p.stderr, p.stderr
    assert tree_hash(table) == before


def test_unknown_table_and_missing_input(tmp_path, table):
    p = run_paimon("write", tmp_path / "wh" / "db.db" / "nope", input=GOOD, check=False)
    assert p.returncode == 1 and "ENOTFOUND" in p.stderr and "no Paimon table" in p.stderr
    assert not (tmp_path / "wh" / "db.db" / "nope").exists()
    before = tree_hash(table)
    p = run_paimon("write", table, "--input", tmp_path / "missing.jsonl", check=False)
    assert p.returncode == 1 and "missing.jsonl" in p.stderr
    p = run_paimon("write", table, "--input-format", "xml", input=GOOD, check=False)
    assert p.returncode == 2 and "xml" in p.stderr
    p = run_paimon("write", table, "--partition", "pt=x", input=GOOD, check=False)
    assert p.returncode == 2
    p = run_paimon("write", table, "--overwrite", "--partition", "nokey=x", input=GOOD, check=False)
    assert p.returncode == 1 and "nokey" in p.stderr
    assert tree_hash(table) == before


