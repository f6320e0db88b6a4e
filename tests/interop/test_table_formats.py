"""ORC tables and file indexes at the table level (issue 15), against
pypaimon 2.1 and Apache Paimon Java 1.4.2 (bench/java oracle):

1. The 7 Java-written tables with ORC manifests
   (java-written-orc-manifests) read by `paimon read` at every snapshot
   and at the latest state print exactly the lines Java prints.
2. Tables pypaimon writes with ORC data files read as pypaimon reads them,
   before and after `paimon compact`; Java reads our compacted result the
   same.
3. Tables we write with ORC data files (and ORC manifests for Java, Avro
   manifests for pypaimon, which reads no ORC manifest) read by Java and
   pypaimon as we read them, at every snapshot and after `paimon compact`.
4. The Java-written tables with file indexes (append_with_bitmap*,
   append_with_bloomfilter, append_with_bsi*, pk_with_bitmap_dv) read and
   compacted by us: every compaction output carries the table's index
   (embedded or a sidecar in extra files); Java's filtered reads over our
   outputs, filtered again row by row, equal the unfiltered rows filtered;
   Java skips more with our indexes than without them (it uses them); and
   `paimon read --where` returns exactly the filtered rows with
   file-index.read.enabled on and off, before and after compaction.
5. Java (write-rows) and we write the same rows into tables of one schema
   (ORC and Parquet data files, bloom-filter / bitmap / BSI / range-bitmap
   indexes): the files' value statistics (min, max, null counts) and
   index bytes (embedded or sidecar) are identical.
"""
import datetime as dt
import decimal
import glob
import json
import os
import shutil

import pyarrow as pa
import pytest

import java_rows
from java_rows import java  # noqa: F401 (the oracle fixture)
from conftest import FIXTURES, run_paimon
from table_read_oracle import canon_our_rows, canon_table, multiset, pypaimon_read


os.environ["TZ"] = "UTC"

ORC_MANIFESTS = FIXTURES / "java-written-orc-manifests"
PARQUET = FIXTURES / "java-written" / "parquet"
INDEX_TABLES = ["append_with_bitmap", "append_with_bitmap_alter_table", "append_with_bitmap_no_embedding",
                "append_with_bitmap_v1", "append_with_bloomfilter", "append_with_bsi",
                "append_with_bsi_bitmap_bloomfilter", "pk_with_bitmap_dv"]


def lines(text_or_list):
    src = text_or_list.splitlines() if isinstance(text_or_list, str) else text_or_list
    return sorted(x for x in src if x.strip())


def our_lines(path, *args):
    return lines(run_paimon("read", path, *args).stdout)


def snapshot_ids(path):
    return [s["id"] for s in json.loads(run_paimon("snapshots", path, "--json").stdout)]


def same_as_java(java, path):
    """Our lines equal Java's at every snapshot and at the latest state."""
    for sid in snapshot_ids(path):
        assert our_lines(path, "--snapshot", sid) == lines(java.call("read", path, "--snapshot", sid)), (path, sid)
    assert our_lines(path) == lines(java.call("read", path)), path


# ---------------------------------------------------------------------------
# 1. ORC manifests written by Java

@pytest.mark.parametrize("table", sorted(p.name[:-3] for p in ORC_MANIFESTS.glob("*.db")))
def test_orc_manifest_fixture_reads_like_java(java, tmp_path, table):
    path = tmp_path / f"{table}.db" / table
    shutil.copytree(ORC_MANIFESTS / f"{table}.db" / table, path)
    assert snapshot_ids(path), table
    same_as_java(java, path)


def test_every_orc_manifest_fixture_is_read():
    assert len(list(ORC_MANIFESTS.glob("*.db"))) == 7


# ---------------------------------------------------------------------------
# 2./3. ORC data files

SCHEMA = pa.schema([
    ("id", pa.int64()), ("b", pa.bool_()), ("i32", pa.int32()), ("f64", pa.float64()), ("s", pa.string()),
    ("bin", pa.binary()), ("d", pa.decimal128(12, 3)), ("day", pa.date32()), ("ts", pa.timestamp("us")),
    ("pt", pa.string()),
])
SQL = ("id BIGINT, b BOOLEAN, i32 INT, f64 DOUBLE, s STRING, bin BYTES, d DECIMAL(12,3), day DATE, "
       "ts TIMESTAMP(6), pt STRING")


def py_rows(start, n):
    out = []
    for k in range(start, start + n):
        null = k % 7 == 6
        out.append({
            "id": k, "b": None if null else k % 2 == 0, "i32": None if null else k * 1009 - 50000,
            "f64": None if null else k / 3.0 - 7, "s": None if null else "s%d-" % (k % 13) + "é" * (k % 3),
            "bin": None if null else bytes((k + j) % 256 for j in range(k % 5)),
            "d": None if null else decimal.Decimal(k * 1234 - 99999) / 1000,
            "day": None if null else dt.date(2024, 2, 28) + dt.timedelta(days=k),
            "ts": None if null else dt.datetime(1969, 12, 31, 23, 0) + dt.timedelta(microseconds=k * 1234567),
            "pt": ["a", "b"][k % 2],
        })
    return out


def json_rows(start, n):
    """py_rows in the `paimon write` JSON encoding."""
    out = []
    for r in py_rows(start, n):
        j = dict(r)
        if r["bin"] is not None:
            import base64
            j["bin"] = base64.b64encode(r["bin"]).decode()
        j["d"] = None if r["d"] is None else str(r["d"].quantize(decimal.Decimal("0.001")))
        j["day"] = None if r["day"] is None else r["day"].isoformat()
        j["ts"] = None if r["ts"] is None else r["ts"].strftime("%Y-%m-%dT%H:%M:%S.%f")
        out.append(json.dumps(j))
    return "\n".join(out) + "\n"


def py_write(wh, ident, commits, per):
    from pypaimon import CatalogFactory
    t = CatalogFactory.create({"warehouse": str(wh)}).get_table(ident)
    for c in range(commits):
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(pa.Table.from_pylist(py_rows(c * per, per), schema=SCHEMA))
        cm = wb.new_commit()
        cm.commit(w.prepare_commit())
        w.close()
        cm.close()


def data_files(path):
    return [p for p in glob.glob(str(path / "**" / "data-*"), recursive=True) if not p.endswith(".index")]


def same_as_pypaimon(wh, path, snapshot=None):
    arrow = pypaimon_read(wh, "db", path.name, snapshot)
    got = [json.loads(x) for x in (our_lines(path, "--snapshot", snapshot) if snapshot else our_lines(path))]
    assert multiset(canon_our_rows(got, arrow.schema)) == multiset(canon_table(arrow)), (path, snapshot)
    return len(got)


@pytest.mark.parametrize("opts", [{}, {"bucket": "2", "bucket-key": "id"}], ids=["unaware", "fixed"])
def test_pypaimon_orc_table(java, tmp_path, opts):
    from pypaimon import CatalogFactory, Schema
    wh = tmp_path / "wh"
    cat = CatalogFactory.create({"warehouse": str(wh)})
    cat.create_database("db", True)
    cat.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, partition_keys=["pt"],
                                                        options={"file.format": "orc", **opts}), False)
    py_write(wh, "db.t", 6, 50)
    path = wh / "db.db" / "t"
    assert data_files(path) and all(p.endswith(".orc") for p in data_files(path))
    for sid in snapshot_ids(path):
        same_as_pypaimon(wh, path, sid)
    before = our_lines(path)
    m = json.loads(run_paimon("compact", path, "--json", "--option", "compaction.min.file-num=2").stdout)
    assert m["snapshot_id"] > 0 and m["rows_read"] == m["rows_written"]
    assert our_lines(path) == before
    assert same_as_pypaimon(wh, path) == 300
    assert lines(java.call("read", path)) == before


@pytest.mark.parametrize("manifest", ["orc", "avro"])
@pytest.mark.parametrize("opts", [["bucket=-1"], ["bucket=2", "bucket-key=id"]], ids=["unaware", "fixed"])
def test_our_orc_table(java, tmp_path, manifest, opts):
    wh = tmp_path / "wh"
    path = wh / "db.db" / "t"
    args = ["create", path, "--schema", SQL, "--partition-keys", "pt", "--option", "file.format=orc",
            "--option", f"manifest.format={manifest}"]
    for o in opts:
        args += ["--option", o]
    run_paimon(*args)
    for c in range(4):
        run_paimon("write", path, input=json_rows(c * 60, 60))
    assert data_files(path) and all(p.endswith(".orc") for p in data_files(path))
    same_as_java(java, path)
    if manifest == "avro":  # pypaimon 2.1 reads no ORC manifest
        for sid in snapshot_ids(path):
            same_as_pypaimon(wh, path, sid)
    before = our_lines(path)
    m = json.loads(run_paimon("compact", path, "--json", "--option", "compaction.min.file-num=2").stdout)
    assert m["snapshot_id"] > 0
    assert our_lines(path) == before and len(before) == 240
    same_as_java(java, path)
    if manifest == "avro":
        assert same_as_pypaimon(wh, path) == 240


# ---------------------------------------------------------------------------
# 4. File indexes

def latest_schema(path):
    files = sorted(glob.glob(str(path / "schema" / "schema-*")), key=lambda p: int(p.rsplit("-", 1)[1]))
    with open(files[-1]) as f:
        return files[-1], json.load(f)


def indexed_columns(path):
    """Indexed STRING / INT / BIGINT columns (the ones predicates use here)."""
    _, s = latest_schema(path)
    types = {f["name"]: f["type"].split()[0] for f in s["fields"]}
    cols = set()
    for k, v in s["options"].items():
        if k.startswith("file-index.") and k.endswith(".columns"):
            cols |= {c.strip() for c in v.split(",")}
    return sorted(c for c in cols if types.get(c) in ("STRING", "INT", "BIGINT"))


def with_index_reads_off(path, dst):
    """A copy of the table whose latest schema sets file-index.read.enabled=false."""
    shutil.copytree(path, dst)
    f, s = latest_schema(dst)
    s["options"]["file-index.read.enabled"] = "false"
    with open(f, "w") as out:
        json.dump(s, out)
    return dst


def predicates(rows, cols):
    """(our --where text, Java --where-json, row test) triples: a present
    value, an absent one, and IN of both, for every indexed column."""
    out = []
    for c in cols:
        present = sorted({r[c] for r in rows if r.get(c) is not None}, key=str)
        if not present:
            continue
        v = present[len(present) // 2]
        absent = (v + "~absent") if isinstance(v, str) else max(present) - 1 if len(present) > 1 else v + 12345
        while absent in present:
            absent = absent + "~" if isinstance(absent, str) else absent + 7
        lit = (lambda x: "'" + x.replace("'", "''") + "'") if isinstance(v, str) else str
        for vals in ([v], [absent], [v, absent]):
            where = f"{c} = {lit(vals[0])}" if len(vals) == 1 else f"{c} IN ({', '.join(lit(x) for x in vals)})"
            out.append((where, json.dumps([{"col": c, "in": vals}]),
                        (lambda col, vs: (lambda r: r.get(col) in vs))(c, vals)))
    return out


def check_filtered_reads(java, path, off_path, all_rows):
    """Our --where (indexes on and off) returns exactly the matching rows;
    Java's filtered read holds every matching row.  Returns how many rows
    Java read with and without the indexes in total."""
    java_on = java_off = 0
    for where, wjson, test in predicates(all_rows, indexed_columns(path)):
        want = sorted(json.dumps(r, sort_keys=True) for r in all_rows if test(r))
        for p in (path, off_path):
            got = sorted(json.dumps(json.loads(x), sort_keys=True) for x in our_lines(p, "--where", where))
            assert got == want, (p, where)
        jr = [json.loads(x) for x in java.call("read", path, "--where-json", wjson)]
        assert sorted(json.dumps(r, sort_keys=True) for r in jr if test(r)) == want, (path, where)
        java_on += len(jr)
        java_off += len(java.call("read", path, "--where-json", wjson, "--option", "file-index.read.enabled=false"))
    return java_on, java_off


@pytest.mark.parametrize("table", INDEX_TABLES)
def test_index_fixture_read_and_compacted(java, tmp_path, table):
    path = tmp_path / "wh" / f"{table}.db" / table
    shutil.copytree(PARQUET / f"{table}.db" / table, path)
    rows = [json.loads(x) for x in our_lines(path)]
    assert lines(java.call("read", path)) == our_lines(path)
    check_filtered_reads(java, path, with_index_reads_off(path, tmp_path / "off" / table), rows)

    # one small file per table: a full compaction rewrites it only when forced
    m = json.loads(run_paimon("compact", path, "--json", "--full", "--option",
                              "compaction.force-rewrite-all-files=true").stdout)
    assert m["snapshot_id"] > 0 and m["files_added"] > 0, m
    assert sorted(json.dumps(json.loads(x), sort_keys=True) for x in our_lines(path)) == \
        sorted(json.dumps(r, sort_keys=True) for r in rows)
    assert lines(java.call("read", path)) == our_lines(path)
    # every file our compaction wrote carries the table's index
    files = [json.loads(x) for x in java.call("files", path, "--detail", "true")]
    ours = [f for f in files if f["fileSource"] == "COMPACT"]
    assert ours, files
    for f in ours:
        assert f["embeddedIndex"] or any(x.endswith(".index") for x in f["extraFiles"]), f

    shutil.rmtree(tmp_path / "off")
    on, off = check_filtered_reads(java, path, with_index_reads_off(path, tmp_path / "off" / table), rows)
    assert on < off, f"Java skipped nothing with our indexes ({on} rows read, {off} without them)"


# ---------------------------------------------------------------------------
# 5. The same rows written by Java and by us

STAT_TYPES = ["INT", "BIGINT", "SMALLINT", "TINYINT", "BOOLEAN", "STRING", "DECIMAL(10,2)", "DECIMAL(30,4)",
              "DATE", "TIMESTAMP(3)", "TIMESTAMP(6)", "DOUBLE", "FLOAT", "BYTES"]
INDEX_OPTIONS = ["file-index.bloom-filter.columns=c0,c5", "file-index.bitmap.columns=c1,c5,c8",
                 "file-index.bsi.columns=c0,c1", "file-index.range-bitmap.columns=c2"]


def index_bytes(path, f):
    """A file's index: the embedded bytes, else its .index sidecar's."""
    import base64
    if f["embeddedIndex"]:
        return base64.b64decode(f["embeddedIndex"])
    side = [x for x in f["extraFiles"] if x.endswith(".index")]
    assert len(side) == 1, f
    return (path / "bucket-0" / side[0]).read_bytes()


@pytest.mark.parametrize("fmt", ["orc", "parquet"])
def test_stats_and_indexes_like_java(java, tmp_path, fmt):
    types = STAT_TYPES
    names = [f"c{i}" for i in range(len(types))]
    rows = java_rows.gen(types, 300, seed=15, pool=25)
    detail, index = {}, {}
    for who in ("java", "ours"):
        path = tmp_path / "wh" / "db.db" / who
        args = ["create", path, "--schema", java_rows.schema_sql(names, types), "--option", "bucket=-1",
                "--option", f"file.format={fmt}"]
        for o in INDEX_OPTIONS:
            args += ["--option", o]
        run_paimon(*args)
        if who == "java":
            src = tmp_path / "rows.json"
            src.write_text(java_rows.java_lines(types, rows))
            java.call("write-rows", path, "--input", src)
        else:
            run_paimon("write", path, input=java_rows.ours(names, types, rows))
        files = [json.loads(x) for x in java.call("files", path, "--detail", "true")]
        assert len(files) == 1, files
        detail[who] = files[0]
        index[who] = index_bytes(path, files[0])
    assert our_lines(tmp_path / "wh" / "db.db" / "ours") == our_lines(tmp_path / "wh" / "db.db" / "java")
    for k in ("valueStatsMin", "valueStatsMax", "valueStatsNullCounts", "valueStatsCols", "rows"):
        assert detail["ours"][k] == detail["java"][k], k
    assert index["ours"] == index["java"]
    assert bool(detail["ours"]["embeddedIndex"]) == bool(detail["java"]["embeddedIndex"])


@pytest.mark.parametrize("opts", [["bucket=2"], ["bucket=1", "deletion-vectors.enabled=true"]], ids=["merge", "dv"])
def test_our_orc_primary_key_table(java, tmp_path, opts):
    """ORC key-value files: written, merged on read and compacted (full)
    as Java reads them; the outputs are ORC."""
    wh = tmp_path / "wh"
    path = wh / "db.db" / "t"
    args = ["create", path, "--schema", SQL, "--partition-keys", "pt", "--primary-keys", "id,pt",
            "--option", "file.format=orc"]
    for o in opts:
        args += ["--option", o]
    run_paimon(*args)
    for c in range(4):  # overlapping keys: later commits update earlier rows
        run_paimon("write", path, input=json_rows(c * 30, 60))
    assert all(p.endswith(".orc") for p in data_files(path))
    same_as_java(java, path)
    for sid in snapshot_ids(path):
        same_as_pypaimon(wh, path, sid)
    before = our_lines(path)
    assert len(before) == 150
    m = json.loads(run_paimon("compact", path, "--json", "--full").stdout)
    kinds = [s["commitKind"] for s in json.loads(run_paimon("snapshots", path, "--json").stdout)]
    # deletion-vector tables compact on write: a full compaction then may find nothing left
    assert (m["snapshot_id"] > 0 and m["files_added"] > 0) or ("deletion-vectors.enabled=true" in opts and "COMPACT" in kinds), (m, kinds)
    assert our_lines(path) == before
    same_as_java(java, path)
    assert same_as_pypaimon(wh, path) == 150
    assert all(p.endswith(".orc") for p in data_files(path))


def test_our_orc_data_evolution_table(java, tmp_path):
    """ORC files in a data-evolution table: appends, a column update (a
    file of two columns) and `paimon compact` (column versions merged, the
    bloom-filter index regenerated), read as Java reads them."""
    path = tmp_path / "wh" / "db.db" / "de"
    run_paimon("create", path, "--schema", "id BIGINT, name STRING, v DOUBLE", "--option", "bucket=-1",
               "--option", "row-tracking.enabled=true", "--option", "data-evolution.enabled=true",
               "--option", "write-only=true", "--option", "file.format=orc",
               "--option", "file-index.bloom-filter.columns=name")
    for k in range(3):
        run_paimon("write", path, input="".join(json.dumps({"id": 10 * k + i, "name": f"n{10 * k + i}",
                                                            "v": float(i)}) + "\n" for i in range(40)))
    run_paimon("update", path, "--columns", "v,name",
               input='{"_ROW_ID":1,"v":9.5,"name":"x"}\n{"_ROW_ID":45,"v":8.5,"name":"y"}\n')
    assert all(p.endswith(".orc") for p in data_files(path))
    cols = ["--columns", "_ROW_ID,id,name,v"]
    before = our_lines(path, *cols)
    assert len(before) == 120
    same_as_java(java, path)  # Java's oracle reads no _ROW_ID: the values
    m = json.loads(run_paimon("compact", path, "--json", "--option", "compaction.min.file-num=2").stdout)
    assert m["snapshot_id"] > 0 and m["files_added"] > 0, m
    assert our_lines(path, *cols) == before
    same_as_java(java, path)
    assert all(p.endswith(".orc") for p in data_files(path))
    compacted = [json.loads(x) for x in java.call("files", path, "--detail", "true")]
    assert [f for f in compacted if f["fileSource"] == "COMPACT"]
    for f in compacted:
        if f["fileSource"] == "COMPACT":
            assert f["embeddedIndex"] or any(x.endswith(".index") for x in f["extraFiles"]), f
