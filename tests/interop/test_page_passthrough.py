"""Page-level Parquet passthrough in append compaction
(`compaction.parquet.page-passthrough`, paimon-c's own key, default on)
against pyarrow, pypaimon 2.1 and Apache Paimon Java 1.4.2.

A partitioned table of the benchmark's schema (p INT partition, id BIGINT,
k INT, name STRING, price DOUBLE, qty INT, ts TIMESTAMP(3), note STRING)
is written in several commits by two writers, Java (write-rows) and us,
with nulls, a low-cardinality column (dictionary-encoded inputs: re-encoded)
and high-cardinality ones (plain: copied page by page).  `paimon compact`
with page passthrough (the default) and, on a copy, with it switched off:

- the rows are the same everywhere: ours, pyarrow on the output files
  (with page checksums verified), pypaimon, Java; file and row counts;
- the passthrough outputs hold one row group per file whose plain chunks
  keep the inputs' pages (more pages than the rewrite), every chunk with an
  OffsetIndex and a ColumnIndex; filtered reads by pyarrow and Java return
  exactly the matching rows;
- the off switch rewrites (the Parquet writer's created_by), and the value
  statistics Java reports are the same both ways;
- compact-plan carries the switch and the re-encode ratio to compact-exec;
- columns the sample re-encodes merge their PLAIN pages without decoding
  (whole input pages per output page: with a page row limit of 4000 and
  1500-row inputs, 3000-row pages where the rewrite cuts 4000; here the
  sample picks `name`): pyarrow
  (checksums verified, page-index filters), pypaimon and Java read them as
  the rewrite's, and Java compacts them again to the same rows.
"""
import collections
import json
import shutil

import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import java_rows
from conftest import run_paimon
from java_rows import java  # noqa: F401 (the oracle fixture)

NAMES = ["p", "id", "k", "name", "price", "qty", "ts", "note"]
TYPES = ["INT NOT NULL", "BIGINT NOT NULL", "INT", "STRING", "DOUBLE", "INT", "TIMESTAMP(3)", "STRING"]
OFF = "compaction.parquet.page-passthrough=false"


def rows(commit, n):
    out = []
    for i in range(n):
        r = commit * n + i
        null = i % 17 == 3
        out.append([r % 2, r, None if null else r * 7919 % 100003, None if null else "user-%06d" % (r * 31 % 999983),
                    None if null else (r * 13 % 99991) / 100.0, None if i % 11 == 5 else r % 7,
                    None if null else 1700000000000 + r * 1000 + r % 1000,
                    None if null else "n%07d-%s" % (r * 104729 % 9999991, "q" * (r % 5))])
    return out


def make_table(tmp_path, java, commits=6, n=3000, opts=()):
    path = tmp_path / "wh" / "db.db" / "t"
    run_paimon("create", path, "--schema", java_rows.schema_sql(NAMES, TYPES), "--partition-keys", "p",
               "--option", "bucket=-1", "--option", "write-only=true", *[a for o in opts for a in ("--option", o)])
    all_rows = []
    for c in range(commits):
        rs = rows(c, n)
        all_rows += rs
        if c % 2 == 0:
            src = tmp_path / f"rows{c}.json"
            src.write_text(java_rows.java_lines(TYPES, rs))
            java.call("write-rows", path, "--input", src)
        else:
            run_paimon("write", path, input=java_rows.ours(NAMES, TYPES, rs))
    return path, all_rows


def our_lines(path, *args):
    return sorted(x for x in run_paimon("read", path, *args).stdout.splitlines() if x.strip())


def compact(path, *opts):
    args = ["compact", path, "--json", "--option", "compaction.min.file-num=2"]
    for o in opts:
        args += ["--option", o]
    m = json.loads(run_paimon(*args).stdout)
    assert m["snapshot_id"] > 0 and m["files_added"] >= 1, m
    return m


def outputs(path):
    """The COMPACT files of the latest snapshot (paimon files' text table)."""
    out = []
    for x in run_paimon("files", path).stdout.splitlines()[1:]:
        f = x.split("\t")
        if x.strip() and f[9] == "COMPACT":
            out += list(path.glob(f"*/bucket-0/{f[2]}")) + list(path.glob(f"bucket-0/{f[2]}"))
    return out


def arrow_rows(files, **kw):
    return collections.Counter(json.dumps(r, sort_keys=True, default=str)
                               for f in files for r in pq.ParquetFile(f, **kw).read().to_pylist())


def pypaimon_rows(path):
    from pypaimon import CatalogFactory
    t = CatalogFactory.create({"warehouse": str(path.parent.parent)}).get_table(f"db.{path.name}")
    rb = t.new_read_builder()
    tbl = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return collections.Counter(json.dumps(r, sort_keys=True, default=str) for r in tbl.to_pylist())


def java_detail(java, path):
    return sorted(([f["rows"], f["valueStatsMin"], f["valueStatsMax"], f["valueStatsNullCounts"]]
                   for f in (json.loads(x) for x in java.call("files", path, "--detail", "true"))
                   if f["fileSource"] == "COMPACT"), key=json.dumps)


def pages(f, col):
    """(pages per row group of column col, has offset index, has column index)."""
    m = pq.ParquetFile(f).metadata
    out = []
    for g in range(m.num_row_groups):
        for c in range(m.num_columns):
            cc = m.row_group(g).column(c)
            if cc.path_in_schema == col:
                out.append((cc.has_offset_index, cc.has_column_index, cc.has_dictionary_page))
    return out


@pytest.fixture(scope="module")
def tables(java, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pages")
    on, all_rows = make_table(tmp, java)
    before = our_lines(on)
    off = tmp / "wh" / "db.db" / "off"
    shutil.copytree(on, off)
    m_on, m_off = compact(on), compact(off, OFF)
    return on, off, before, all_rows, m_on, m_off


def test_same_rows_everywhere(java, tables):
    on, off, before, all_rows, m_on, m_off = tables
    assert m_on["files_removed"] == m_off["files_removed"] == 6 * 2  # 6 commits x 2 partitions
    assert m_on["files_added"] == m_off["files_added"] == 2          # one output per partition
    assert our_lines(on) == our_lines(off) == before
    on_files, off_files = outputs(on), outputs(off)
    assert len(on_files) == 2
    want = arrow_rows(off_files)
    assert arrow_rows(on_files, page_checksum_verification=True) == want
    assert sum(want.values()) == len(all_rows)
    assert sum(pq.ParquetFile(f).metadata.num_rows for f in on_files) == len(all_rows)
    assert pypaimon_rows(on) == pypaimon_rows(off)
    assert sorted(java.call("read", on)) == sorted(java.call("read", off))
    assert java_detail(java, on) == java_detail(java, off)


def test_pages_copied_and_indexed(tables):
    on, off, *_ = tables
    for f in outputs(on):
        md = pq.ParquetFile(f).metadata
        assert md.created_by == "paimon-c compaction (passthrough)"
        assert md.num_row_groups == 1
        for col in NAMES[1:]:
            for has_oi, has_ci, _ in pages(f, col):
                assert has_oi and has_ci, (f, col)
        assert pages(f, "qty")[0][2]        # low cardinality: re-encoded with a dictionary
        assert not pages(f, "note")[0][2]   # plain: copied
    for f in outputs(off):
        assert pq.ParquetFile(f).metadata.created_by != "paimon-c compaction (passthrough)"
    # the copied chunk keeps the inputs' pages: larger than the rewrite's
    # pages, so the file is at most a little larger
    size_on = sum(f.stat().st_size for f in outputs(on))
    size_off = sum(f.stat().st_size for f in outputs(off))
    assert size_off * 0.9 < size_on < size_off * 1.5


def test_filtered_reads(java, tables):
    on, off, before, all_rows, *_ = tables
    files = outputs(on)
    lo, hi = 4000, 4100
    want = sorted(r for r in range(lo, hi))
    dataset = ds.dataset([str(f) for f in files], format="parquet", partitioning=None)
    got = dataset.to_table(filter=(ds.field("id") >= lo) & (ds.field("id") < hi)).column("id").to_pylist()
    assert sorted(got) == want
    for f in files:
        t = pq.read_table(f, partitioning=None, filters=[("note", "=", "n%07d-%s" % (4321 * 104729 % 9999991, "q" * (4321 % 5)))])
        assert t.num_rows <= 1
    where = json.dumps([{"col": "id", "in": [4001, 4050, 999999]}])
    jr = [json.loads(x) for x in java.call("read", on, "--where-json", where)]
    ids = sorted(r[NAMES.index("id")] if isinstance(r, list) else r["id"] for r in jr)
    assert [i for i in ids if i in (4001, 4050, 999999)] == [4001, 4050]


def test_plan_carries_the_option(tmp_path):
    """compact-plan writes the switch and the ratio into each task (absent
    when off), compact-exec honours them, and a bad ratio is refused when
    planning."""
    path = tmp_path / "wh" / "db.db" / "p"
    run_paimon("create", path, "--schema", "id BIGINT, s STRING", "--option", "bucket=-1",
               "--option", "write-only=true")
    for c in range(3):
        run_paimon("write", path, input="".join(json.dumps({"id": c * 100 + i, "s": "v%05d" % (i * 7 + c)}) + "\n"
                                                for i in range(100)))
    before = our_lines(path)

    def plan(*opts):
        args = ["compact-plan", path, "--option", "compaction.min.file-num=2"]
        for o in opts:
            args += ["--option", o]
        return json.loads(run_paimon(*args).stdout)
    outs = [t["output"] for t in plan()["tasks"]]
    assert [(o["page_passthrough"], o["page_passthrough_reencode_permille"]) for o in outs] == [(True, 900)]
    outs = [t["output"] for t in plan("compaction.parquet.page-passthrough.reencode-ratio=0.25")["tasks"]]
    assert [o["page_passthrough_reencode_permille"] for o in outs] == [250]
    outs = [t["output"] for t in plan(OFF)["tasks"]]
    assert all("page_passthrough" not in o and "page_passthrough_reencode_permille" not in o for o in outs)
    r = run_paimon("compact-plan", path, "--option", "compaction.parquet.page-passthrough.reencode-ratio=1.5",
                   check=False)
    assert r.returncode != 0 and "reencode-ratio" in r.stderr
    p = tmp_path / "plan.json"
    p.write_text(json.dumps(plan("compaction.parquet.page-passthrough.reencode-ratio=0")))
    res = tmp_path / "res.json"
    res.write_text(run_paimon("compact-exec", p, "--task", "0").stdout)
    run_paimon("compact-commit", path, res)
    assert our_lines(path) == before
    files = outputs(path)
    assert len(files) == 1
    assert pq.ParquetFile(files[0]).metadata.created_by == "paimon-c compaction (passthrough)"


def _varint(b, i):
    v = sh = 0
    while True:
        x = b[i]
        i += 1
        v |= (x & 0x7f) << sh
        sh += 7
        if not x & 0x80:
            return v, i


def _struct(b, i):
    """A thrift-compact struct at b[i:]: ({field id: int or nested dict}, end)."""
    out, last = {}, 0
    while True:
        h = b[i]
        i += 1
        if h == 0:
            return out, i
        t, d = h & 0x0f, h >> 4
        fid = last + d if d else None
        if fid is None:
            z, i = _varint(b, i)
            fid = (z >> 1) ^ -(z & 1)
        last = fid
        if t in (1, 2):          # booleans
            out[fid] = t == 1
        elif t in (3, 4, 5, 6):  # byte, i16, i32, i64 (zigzag varints; a byte is one raw byte)
            if t == 3:
                out[fid], i = b[i], i + 1
            else:
                z, i = _varint(b, i)
                out[fid] = (z >> 1) ^ -(z & 1)
        elif t == 7:
            out[fid], i = b[i:i + 8], i + 8
        elif t == 8:
            n, i = _varint(b, i)
            out[fid], i = b[i:i + n], i + n
        elif t == 12:
            out[fid], i = _struct(b, i)
        else:
            raise ValueError(f"thrift type {t} not expected in a page header")


def page_rows(f, col):
    """Rows per data page of column `col` in every row group (page headers
    walked from each chunk's first data page)."""
    data = f.read_bytes()
    m = pq.ParquetFile(f).metadata
    out = []
    for g in range(m.num_row_groups):
        for c in range(m.num_columns):
            cc = m.row_group(g).column(c)
            if cc.path_in_schema != col:
                continue
            pos, end, rows = cc.data_page_offset, cc.data_page_offset + cc.total_compressed_size, []
            if cc.has_dictionary_page:
                end = cc.dictionary_page_offset + cc.total_compressed_size
            while pos < end:
                h, body = _struct(data, pos)
                if h[1] == 0:       # DATA_PAGE
                    rows.append(h[5][1])
                pos = body + h[3]
            out.append(rows)
    return out


def test_merged_pages_read_everywhere(java, tmp_path):
    """A page row limit the inputs do not divide shows the merged columns:
    whole 1500-row input pages per output page (3000 rows), where the
    rewrite (and every decoded column) cuts at 4000; copied columns keep
    their 1500-row pages."""
    path, all_rows = make_table(tmp_path, java, opts=("parquet.page.row.count.limit=4000",))
    before = our_lines(path)
    off = tmp_path / "wh" / "db.db" / "off"
    shutil.copytree(path, off)
    compact(path)
    compact(off, OFF)
    assert our_lines(path) == our_lines(off) == before
    on_files, off_files = outputs(path), outputs(off)
    assert arrow_rows(on_files, page_checksum_verification=True) == arrow_rows(off_files)
    merged = set()
    for f in on_files:
        here = set()
        for col in NAMES[1:]:
            for pr in page_rows(f, col):
                assert sum(pr) == pq.ParquetFile(f).metadata.num_rows
                assert all(r <= 4000 for r in pr), (f, col, pr)
                if all(r % 1500 == 0 for r in pr) and 3000 in pr:
                    here.add(col)  # whole input pages merged (copied pages keep 1500)
        assert here, f  # the sample re-encodes some column (here: name), merged in every output
        merged |= here
        assert page_rows(f, "qty")[0][0] == 4000  # dictionary chunks: decoded, cut at the limit
    for f in off_files:
        for col in merged:
            for pr in page_rows(f, col):
                assert all(r == 4000 for r in pr[:-1]) and len(pr) > 1, (f, col, pr)
    assert pypaimon_rows(path) == pypaimon_rows(off)
    assert sorted(java.call("read", path)) == sorted(java.call("read", off))
    assert java_detail(java, path) == java_detail(java, off)
    lo, hi = 4000, 4100
    dataset = ds.dataset([str(f) for f in on_files], format="parquet", partitioning=None)
    got = dataset.to_table(filter=(ds.field("price") >= lo / 100.0) & (ds.field("price") < hi / 100.0))
    want = sum(1 for r in all_rows if r[4] is not None and lo / 100.0 <= r[4] < hi / 100.0)
    assert got.num_rows == want
    name = all_rows[4321][3]
    got = dataset.to_table(filter=ds.field("name") == name)
    assert got.num_rows == sum(1 for r in all_rows if r[3] == name) > 0
    # Java compacts the merged pages again (one more commit to each table,
    # then a compaction): the same rows as the rewrite's table compacted alike
    src = tmp_path / "rows_more.json"
    src.write_text(java_rows.java_lines(TYPES, rows(100, 300)))
    for t in (path, off):
        java.call("write-rows", t, "--input", src)
        m = java.call_json("compact", t, "--option", "compaction.min.file-num=2")
        assert m["commit_kind"] == "COMPACT" and m["rows"] > 0, m
    assert sorted(java.call("read", path)) == sorted(java.call("read", off))
    assert our_lines(path) == our_lines(off)
