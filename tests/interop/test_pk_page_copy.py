"""Page copies in primary-key compaction (`compaction.parquet.page-passthrough`,
paimon-c's own key, default on; compact/pk/pk_page_copy.c) of Java-written
overlapping runs, read by pyarrow, pypaimon 2.1 and Apache Paimon Java 1.4.2.

Java writes a primary-key table of the benchmark's schema in overlapping
sorted runs (`write-pk`: later runs win half of the earlier run's keys, some
DELETE rows (a stretch ends at a dropped delete), small pages so a run
spans many of them).  `paimon compact
--full` with page copies (the default) and, on a copy, with them switched
off:

- the rows are the same everywhere: ours, pyarrow on the output files (page
  checksums verified), pypaimon, Java; Java reports the same value
  statistics for the output files both ways;
- with copies, data pages of the Java-written inputs sit byte for byte in
  our output files (header and compressed body), more of them than without;
- Java compacts our copied output again (with new runs on top) to the rows
  our reader gives;
- sorted runs of many small files: every page of a chunk without a dictionary
  is copied, each file's last page included;
- runs long enough that superseded stretches pass the pre-pass threshold:
  the default (superseded stretches passed over, compact/pk/pk_superseded.c)
  and `compaction.pk.skip-superseded=false` give the same rows for us,
  pyarrow, pypaimon and Java, and the same value statistics for Java.
"""
import collections
import json
import shutil

import pyarrow.parquet as pq
import pytest

from conftest import run_paimon
from java_rows import java  # noqa: F401 (the oracle fixture)

OFF = "compaction.parquet.page-passthrough=false"
KEEP = "compaction.pk.skip-superseded=false"


def our_lines(path):
    return sorted(x for x in run_paimon("read", path).stdout.splitlines() if x.strip())


def outputs(path):
    """The COMPACT files of the latest snapshot."""
    out = []
    for x in run_paimon("files", path).stdout.splitlines()[1:]:
        f = x.split("\t")
        if x.strip() and f[9] == "COMPACT":
            out += list(path.glob(f"bucket-0/{f[2]}"))
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


# ---- Parquet page headers (thrift compact protocol), enough to walk a chunk

def _varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return v, i


def _skip(b, i, t):
    if t in (1, 2):
        return i
    if t == 3:
        return i + 1
    if t in (4, 5, 6):
        return _varint(b, i)[1]
    if t == 7:
        return i + 8
    if t == 8:
        n, i = _varint(b, i)
        return i + n
    if t in (9, 10):
        h = b[i]
        i += 1
        n, et = h >> 4, h & 0x0F
        if n == 15:
            n, i = _varint(b, i)
        for _ in range(n):
            i = i + 1 if et in (1, 2) else _skip(b, i, et)
        return i
    if t == 11:
        n, i = _varint(b, i)
        if n:
            kv = b[i]
            i += 1
            for _ in range(n):
                i = _skip(b, _skip(b, i, kv >> 4), kv & 0x0F)
        return i
    if t == 12:
        return _struct(b, i)[1]
    raise ValueError(f"thrift type {t}")


def _struct(b, i):
    """Top-level i32 fields of a struct, and the position after it."""
    fields, fid = {}, 0
    while True:
        h = b[i]
        i += 1
        if h == 0:
            return fields, i
        t, d = h & 0x0F, h >> 4
        if d:
            fid += d
        else:
            z, i = _varint(b, i)
            fid = (z >> 1) ^ -(z & 1)
        if t == 5:
            z, i = _varint(b, i)
            fields[fid] = (z >> 1) ^ -(z & 1)
        else:
            i = _skip(b, i, t)


def data_pages(path, plain_chunks=False):
    """Every data page of the file (header + compressed body bytes); with
    plain_chunks only those of column chunks without a dictionary page
    (the ones a page copy can take as they are)."""
    data = path.read_bytes()
    md = pq.ParquetFile(path).metadata
    out = []
    for g in range(md.num_row_groups):
        for c in range(md.num_columns):
            cc = md.row_group(g).column(c)
            if plain_chunks and cc.has_dictionary_page:
                continue
            pos = cc.dictionary_page_offset if cc.has_dictionary_page else cc.data_page_offset
            end = pos + cc.total_compressed_size
            while pos < end:
                h, body = _struct(data, pos)
                nxt = body + h[3]
                if h[1] in (0, 3):  # DATA_PAGE, DATA_PAGE_V2
                    out.append(data[pos:nxt])
                pos = nxt
    return out


def pages_found(inputs, files):
    blobs = [f.read_bytes() for f in files]
    return sum(1 for f in inputs for p in data_pages(f) if any(p in b for b in blobs))


def compacted_pair(java, tmp, rows, delete_every, option):
    """A Java-written table of 4 overlapping runs (small pages) and a copy,
    compacted fully: the table with the defaults, the copy with `option`.
    Returns (table, copy, rows before, input files)."""
    on = tmp / "wh" / "db.db" / "t"
    java.call("write-pk", on, "--rows", str(rows), "--runs", "4", "--delete-every", str(delete_every),
              "--option", "parquet.page.size=16384")
    inputs = sorted(on.glob("bucket-0/*.parquet"))
    assert len(inputs) == 4
    other = tmp / "wh" / "db.db" / "other"
    shutil.copytree(on, other)
    before = our_lines(on)
    run_paimon("compact", on, "--full", "--parallelism", "1")
    run_paimon("compact", other, "--full", "--parallelism", "1", "--option", option)
    return on, other, before, inputs


@pytest.fixture(scope="module")
def tables(java, tmp_path_factory):
    on, off, before, inputs = compacted_pair(java, tmp_path_factory.mktemp("pkcopy"), 8000, 3001, OFF)
    return on, off, before, inputs


def same_everywhere(java, a, b, before):
    """Tables a and b hold the same rows for us (and `before`), pyarrow on
    their COMPACT files (a's page checksums verified), pypaimon and Java,
    and Java reports the same value statistics."""
    assert our_lines(a) == our_lines(b) == before
    a_files, b_files = outputs(a), outputs(b)
    assert a_files and b_files
    assert arrow_rows(a_files, page_checksum_verification=True) == arrow_rows(b_files)
    assert pypaimon_rows(a) == pypaimon_rows(b)
    assert sorted(java.call("read", a)) == sorted(java.call("read", b))
    assert java_detail(java, a) == java_detail(java, b)


def test_same_rows_everywhere(java, tables):
    on, off, before, _ = tables
    same_everywhere(java, on, off, before)


def test_input_pages_copied(tables):
    on, off, _, inputs = tables
    total = sum(len(data_pages(f)) for f in inputs)
    copied, rewritten = pages_found(inputs, outputs(on)), pages_found(inputs, outputs(off))
    assert copied > rewritten and copied >= total // 10, (copied, rewritten, total)


def test_java_compacts_copied_output(java, tables, tmp_path):
    on, *_ = tables
    again = tmp_path / "wh" / "db.db" / "again"
    shutil.copytree(on, again)
    java.call("write-pk", again, "--rows", "3000", "--runs", "2", "--append", "true", "--seed", "7")
    want = our_lines(again)
    java.call("compact", again)
    assert our_lines(again) == want
    assert len(java.call("read", again)) == len(want)


@pytest.fixture(scope="module")
def skip_tables(java, tmp_path_factory):
    on, keep, before, _ = compacted_pair(java, tmp_path_factory.mktemp("pkskip"), 60000, 7001, KEEP)
    return on, keep, before


def test_skip_superseded_same_rows_everywhere(java, skip_tables):
    on, keep, before = skip_tables
    same_everywhere(java, on, keep, before)


def test_runs_of_many_files_copy_every_plain_page(java, tmp_path):
    """Disjoint sorted runs that each roll into many small files (one page
    per column each): every record is alone, so every data page of a chunk
    without a dictionary is copied, the last page of each file included
    (the merge finishes a file's last page after its source has opened the
    next file; a file passed over whole keeps the one before it)."""
    src = tmp_path / "wh" / "db.db" / "t"
    java.call("write-pk", src, "--rows", "20000", "--runs", "4", "--overlap", "0",
              "--option", "parquet.page.size=16384", "--option", "target-file-size=64kb")
    inputs = sorted(src.glob("bucket-0/*.parquet"))
    assert len(inputs) >= 40, len(inputs)
    off = tmp_path / "wh" / "db.db" / "off"
    shutil.copytree(src, off)
    before = our_lines(src)
    run_paimon("compact", src, "--full", "--parallelism", "1")
    run_paimon("compact", off, "--full", "--parallelism", "1", "--option", OFF)
    blobs = [f.read_bytes() for f in outputs(src)]
    pages = [p for f in inputs for p in data_pages(f, plain_chunks=True)]
    missing = sum(1 for p in pages if not any(p in b for b in blobs))
    assert pages and missing == 0, (missing, len(pages))
    # the same rows both ways for us, pyarrow (checksums verified), pypaimon
    # and Java; the files roll at 64 KiB, so the copies (Java's compression)
    # and the rewrite cut them differently and per-file statistics differ
    assert our_lines(src) == our_lines(off) == before
    assert arrow_rows(outputs(src), page_checksum_verification=True) == arrow_rows(outputs(off))
    assert pypaimon_rows(src) == pypaimon_rows(off)
    assert sorted(java.call("read", src)) == sorted(java.call("read", off))
