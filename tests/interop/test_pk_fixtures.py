"""Java-written primary-key fixtures, latest snapshot, against the rows
their READMEs give (the every-snapshot comparison with pypaimon lives in
test_table_read_fixtures.py):

- pk_table_with_mor: overlapping level-0 files merged with
  sequence.field = s0,s1 across seven schema changes ("Recall with
  schema-4" in the README, in the latest schema's names and types);
- pk_table_with_alter_table: deletion vectors, renamed/dropped/added fields
  ("Recall with schema-1");
- pk_table_scan_and_read_dv: deletion-vector table, level 0 skipped: the
  state of Java's last compaction (snapshot 4: Tony deleted, Alice 19.1);
- pk_table_scan_and_read_first_row: first-row with ignore-delete, level 0
  skipped: the state of Java's compaction (snapshot 3: first Alice kept,
  Tony's DELETE ignored).
Also a projected read of the merged table and the levels chart.
"""
import json
import shutil

import pytest

from conftest import FIXTURES, run_paimon

PARQUET = FIXTURES / "java-written" / "parquet"

ROAD = "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference."

EXPECTED = {
    "pk_table_with_mor": [
        {"k1": 0, "k0": 0, "p0": 0, "p1": 0, "s1": "apple", "s0": "c2Vl", "v0": 110, "v1": "false", "v2": None},
        {"k1": 0, "k0": 1, "p0": 0, "p1": 0, "s1": "banana", "s0": "eW91", "v0": 11, "v1": "false", "v2": None},
        {"k1": 1, "k0": 0, "p0": 0, "p1": 0, "s1": "car", "s0": "bGF0ZXI=", "v0": 12, "v1": "true", "v2": None},
        {"k1": 1, "k0": 1, "p0": 0, "p1": 0, "s1": "driver", "s0": "IQ==", "v0": 13, "v1": "false", "v2": None},
        {"k1": 1, "k0": 2, "p0": 0, "p1": 0, "s1": "driver", "s0": "IQ==", "v0": 13, "v1": "false", "v2": None},
        {"k1": 100, "k0": 200, "p0": 0, "p1": 0, "s1": "max", "s0": "bnVtYmVy", "v0": 140, "v1": "false",
         "v2": None},
        {"k1": 0, "k0": 1, "p0": 0, "p1": 1, "s1": "zoo", "s0": "eW91", "v0": 130, "v1": "false", "v2": None},
        {"k1": 0, "k0": 0, "p0": 1, "p1": 0, "s1": "elephant", "s0": "aGk=", "v0": 120, "v1": "false", "v2": None},
    ],
    "pk_table_with_alter_table": [
        {"key1": 1, "k": "Bob", "key_2": 22, "c": 24, "d": None, "a": 26, "key0": 1, "e": None},
        {"key1": 1, "k": "Emily", "key_2": 32, "c": 34, "d": None, "a": 36, "key0": 1, "e": None},
        {"key1": 1, "k": "David", "key_2": 62, "c": 64, "d": None, "a": 66, "key0": 1, "e": None},
        {"key1": 1, "k": "Whether I shall turn out to be the hero of my own life.", "key_2": 72, "c": 74, "d": None,
         "a": 76, "key0": 1, "e": None},
        {"key1": 1, "k": "Alex", "key_2": 52, "c": 514, "d": 518, "a": 516, "key0": 1, "e": 519},
        {"key1": 1, "k": ROAD, "key_2": 2, "c": 4, "d": None, "a": 6, "key0": 0, "e": None},
        {"key1": 1, "k": "Alice", "key_2": 12, "c": 94, "d": None, "a": 96, "key0": 0, "e": None},
        {"key1": 1, "k": "Paul", "key_2": 502, "c": 504, "d": 508, "a": 506, "key0": 0, "e": 509},
    ],
    "pk_table_scan_and_read_dv": [
        {"f0": ROAD, "f1": 10, "f2": 1, "f3": 11.0}, {"f0": "Alice", "f1": 10, "f2": 1, "f3": 19.1},
        {"f0": "Bob", "f1": 10, "f2": 0, "f3": 12.1}, {"f0": "Emily", "f1": 10, "f2": 0, "f3": 13.1},
        {"f0": "Alex", "f1": 10, "f2": 0, "f3": 16.1}, {"f0": "David", "f1": 10, "f2": 0, "f3": 17.1},
        {"f0": "Lucy", "f1": 20, "f2": 1, "f3": 14.1}, {"f0": "Paul", "f1": 20, "f2": 1, "f3": 18.1},
    ],
    "pk_table_scan_and_read_first_row": [
        {"f0": ROAD, "f1": 10, "f2": 1, "f3": 11.0}, {"f0": "Alice", "f1": 10, "f2": 1, "f3": 11.1},
        {"f0": "Bob", "f1": 10, "f2": 0, "f3": 12.1}, {"f0": "Emily", "f1": 10, "f2": 0, "f3": 13.1},
        {"f0": "Tony", "f1": 10, "f2": 0, "f3": 14.1}, {"f0": "Alex", "f1": 10, "f2": 0, "f3": 16.1},
        {"f0": "David", "f1": 10, "f2": 0, "f3": 17.1}, {"f0": "Lucy", "f1": 20, "f2": 1, "f3": 14.1},
        {"f0": "Paul", "f1": 20, "f2": 1, "f3": 18.1},
    ],
}


def canon(rows):
    return sorted(json.dumps(r, sort_keys=True) for r in rows)


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    root = tmp_path_factory.mktemp("pkfix")
    for name in EXPECTED:
        shutil.copytree(PARQUET / f"{name}.db", root / f"{name}.db")
    return root


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_latest_matches_readme(tables, name):
    out = run_paimon("read", tables / f"{name}.db" / name).stdout
    got = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert canon(got) == canon(EXPECTED[name])


def test_projection_of_merged_table(tables):
    """Reading only s1 still merges by key and by sequence.field (s0, s1)."""
    t = tables / "pk_table_with_mor.db" / "pk_table_with_mor"
    out = run_paimon("read", t, "--columns", "v0,s1").stdout
    got = [json.loads(line) for line in out.splitlines() if line.strip()]
    want = [{"v0": r["v0"], "s1": r["s1"]} for r in EXPECTED["pk_table_with_mor"]]
    assert canon(got) == canon(want)


def test_levels_chart(tables):
    t = tables / "pk_table_scan_and_read_dv.db" / "pk_table_scan_and_read_dv"
    out = run_paimon("levels", t).stdout
    assert "f1=10 bucket 1: 3 runs, 3 files, 11 rows" in out
    assert out.count("    L0 ") == 2 and out.count("    L5 ") == 3 and out.count("    L4 ") == 1
    bad = run_paimon("levels", PARQUET / "append_with_bitmap.db" / "append_with_bitmap", check=False)
    assert bad.returncode == 1 and "has no primary key" in bad.stderr
