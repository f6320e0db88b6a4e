"""Dictionary passthrough in append compaction
(`parquet.read.enable-dictionary-passthrough`, seed 001) against pyarrow,
pypaimon 2.1 and Apache Paimon Java 1.4.2.

A table of STRING columns is written in several commits (one file each):
`s` low-cardinality (dictionary-encoded throughout every input), `h` high
cardinality (falls back to PLAIN in its inputs: not eligible), `k` with a
bitmap file index (materialized for the index), one input whose `s` has
too many values for one dictionary (that input is read as values, the
others encoded).  `paimon compact` with and without the option:

- the rows are the same (ours, pyarrow on the output files, pypaimon,
  Java), the value statistics and file-index bytes of the outputs are the
  same (Java's `files --detail`);
- the seed's trade-off shows in the output: inputs with different
  dictionaries make the passthrough output of `s` fall back to PLAIN where
  the rewrite without it keeps one dictionary; inputs sharing one
  dictionary keep it;
- the vetoes: non-Parquet output (Avro), parquet.enable.dictionary=false,
  a shredding option: the option has no effect and never fails;
- compact-plan carries it to compact-exec.
"""
import collections
import glob
import json
import os
import shutil

import pyarrow.parquet as pq
import pytest

from conftest import run_paimon
from java_rows import java  # noqa: F401 (the oracle fixture)


os.environ["TZ"] = "UTC"
DP = "parquet.read.enable-dictionary-passthrough=true"
# the plain rewrite the passthrough is compared with (page-level passthrough,
# on by default, would copy the inputs' plain pages instead)
REWRITE = "compaction.parquet.page-passthrough=false"


def rows(commit, n, shape, wide):
    """One commit's rows.  shape "shared": every commit's `s` has one
    dictionary (the same values first seen in the same order); "per-file":
    each commit its own values.  Commit `wide` has too many `s` values for
    one dictionary page (its `s` is not eligible)."""
    out = []
    for i in range(n):
        k = commit * n + i
        s = "v%02d" % (i % 30) if shape == "shared" else "c%d-v%02d" % (commit, i % 30)
        if commit == wide:
            s = "wide-%07d-%s" % (k, "x" * 40)
        out.append({"id": k, "s": None if i % 13 == 5 else s, "h": "h%09d-%s" % (k * 7919 % 1000003, "y" * 20),
                    "k": "key%d" % (k % 5), "n": k % 11})
    return "".join(json.dumps(r) + "\n" for r in out)


def make_table(tmp_path, name, shape, *opts, commits=5, n=4000, wide=None):
    path = tmp_path / "wh" / "db.db" / name
    args = ["create", path, "--schema", "id BIGINT, s STRING, h STRING, k STRING, n INT", "--option", "bucket=-1",
            "--option", "file-index.bitmap.columns=k", "--option", "parquet.dictionary.page.size=64kb",
            "--option", "write-only=true"]  # no automatic compaction: compact() runs it
    for o in opts:
        args += ["--option", o]
    run_paimon(*args)
    for c in range(commits):
        run_paimon("write", path, input=rows(c, n, shape, wide))
    return path


def our_lines(path):
    return sorted(x for x in run_paimon("read", path).stdout.splitlines() if x.strip())


def compact(path, *opts):
    args = ["compact", path, "--json", "--option", "compaction.min.file-num=2"]
    for o in opts:
        args += ["--option", o]
    m = json.loads(run_paimon(*args).stdout)
    assert m["snapshot_id"] > 0 and m["files_added"] >= 1, m
    return m


def outputs(path):
    """The COMPACT files of the latest snapshot (paimon files' text table)."""
    lines = run_paimon("files", path).stdout.splitlines()[1:]
    return [path / "bucket-0" / x.split("\t")[2] for x in lines if x.strip() and x.split("\t")[9] == "COMPACT"]


def encodings(files, col):
    """The data-page encodings of column `col` over the files' row groups."""
    out = set()
    for f in files:
        m = pq.ParquetFile(f).metadata
        for g in range(m.num_row_groups):
            for c in range(m.num_columns):
                cc = m.row_group(g).column(c)
                if cc.path_in_schema == col:
                    out |= set(cc.encodings) - {"RLE", "BIT_PACKED"}
    return out


def arrow_rows(files):
    return collections.Counter(json.dumps(r, sort_keys=True) for f in files for r in pq.read_table(f).to_pylist())


def java_detail(java, path):
    return sorted(([f["rows"], f["valueStatsMin"], f["valueStatsMax"], f["valueStatsNullCounts"], f["embeddedIndex"]]
                   for f in (json.loads(x) for x in java.call("files", path, "--detail", "true"))
                   if f["fileSource"] == "COMPACT"), key=json.dumps)


def pypaimon_rows(path):
    from pypaimon import CatalogFactory
    t = CatalogFactory.create({"warehouse": str(path.parent.parent)}).get_table(f"db.{path.name}")
    rb = t.new_read_builder()
    tbl = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return collections.Counter(json.dumps(r, sort_keys=True) for r in tbl.to_pylist())


@pytest.mark.parametrize("shape,wide", [("per-file", None), ("shared", None), ("shared", 2)],
                         ids=["per-file-dictionaries", "shared-dictionary", "mixed-eligibility"])
def test_passthrough_same_rows_everywhere(java, tmp_path, shape, wide):
    base = make_table(tmp_path, "base", shape, wide=wide)
    before = our_lines(base)
    on = tmp_path / "wh" / "db.db" / "on"
    shutil.copytree(base, on)
    compact(base, REWRITE)
    compact(on, DP)
    assert our_lines(base) == our_lines(on) == before
    off_files, on_files = outputs(base), outputs(on)
    assert arrow_rows(on_files) == arrow_rows(off_files)
    assert sum(pq.ParquetFile(f).metadata.num_rows for f in on_files) == len(before)
    assert pypaimon_rows(on) == pypaimon_rows(base)
    assert sorted(java.call("read", on)) == before
    # statistics and the index on k: as the rewrite without passthrough gives them
    assert java_detail(java, on) == java_detail(java, base)
    # the indexed column is materialized, the high-cardinality one is never eligible
    assert encodings(on_files, "k") == encodings(off_files, "k") == {"PLAIN_DICTIONARY"}
    assert encodings(on_files, "h") == encodings(off_files, "h")
    if wide is None:
        assert encodings(off_files, "s") == {"PLAIN_DICTIONARY"}
    if shape == "per-file":
        # the trade-off: another dictionary in the row group makes s fall back
        assert "PLAIN" in encodings(on_files, "s")
        assert sum(f.stat().st_size for f in on_files) > sum(f.stat().st_size for f in off_files)
    elif wide is None:
        # one dictionary shared by every input: kept
        assert encodings(on_files, "s") == {"PLAIN_DICTIONARY"}


@pytest.mark.parametrize("veto", [["file.format=avro"], ["parquet.enable.dictionary=false"],
                                  ["parquet.variant.shredding.enabled=true"]],
                         ids=["avro", "no-dictionary", "shredding"])
def test_vetoes(tmp_path, veto):
    """The option is overridden to false: same files as without it (never
    an error)."""
    on = make_table(tmp_path, "on", "per-file", *veto, commits=3, n=2000)
    off = tmp_path / "wh" / "db.db" / "off"
    shutil.copytree(on, off)
    before = our_lines(on)
    compact(on, DP)
    compact(off)
    assert our_lines(on) == our_lines(off) == before
    on_files, off_files = outputs(on), outputs(off)
    if veto != ["file.format=avro"]:
        assert encodings(on_files, "s") == encodings(off_files, "s")
        assert arrow_rows(on_files) == arrow_rows(off_files)
        assert [f.stat().st_size for f in on_files] == [f.stat().st_size for f in off_files]
    else:
        assert all(str(f).endswith(".avro") for f in on_files)


def test_plan_carries_the_option(tmp_path):
    path = make_table(tmp_path, "t", "per-file", commits=3, n=2000)
    before = our_lines(path)
    plan = tmp_path / "plan.json"
    plan.write_text(run_paimon("compact-plan", path, "--option", DP, "--option", "compaction.min.file-num=2").stdout)
    p = json.loads(plan.read_text())
    assert [t["output"]["dictionary_passthrough"] for t in p["tasks"]] == [True]
    res = tmp_path / "res.json"
    res.write_text(run_paimon("compact-exec", plan, "--task", "0").stdout)
    run_paimon("compact-commit", path, res)
    assert our_lines(path) == before
    assert "PLAIN" in encodings(outputs(path), "s")
    # without the option the key is absent (older plans read the same)
    p2 = json.loads(run_paimon("compact-plan", path, "--option", "compaction.min.file-num=1", "--full").stdout)
    assert all("dictionary_passthrough" not in t["output"] for t in p2["tasks"])


def test_orc_tables_plan_and_exec(tmp_path):
    """Distributed compaction of an ORC table (task JSON with format orc)."""
    path = tmp_path / "wh" / "db.db" / "o"
    run_paimon("create", path, "--schema", "id BIGINT, s STRING", "--option", "bucket=-1", "--option",
               "file.format=orc")
    for c in range(3):
        run_paimon("write", path, input="".join(json.dumps({"id": c * 10 + i, "s": "x%d" % i}) + "\n"
                                                for i in range(10)))
    before = our_lines(path)
    plan = tmp_path / "plan.json"
    plan.write_text(run_paimon("compact-plan", path, "--option", "compaction.min.file-num=2").stdout)
    assert [t["output"]["format"] for t in json.loads(plan.read_text())["tasks"]] == ["orc"]
    res = tmp_path / "res.json"
    res.write_text(run_paimon("compact-exec", plan, "--task", "0").stdout)
    run_paimon("compact-commit", path, res)
    assert our_lines(path) == before
    assert all(p.endswith(".orc") for p in glob.glob(str(path / "bucket-0" / "data-*")))
