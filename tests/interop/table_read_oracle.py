"""Helpers for the table-read interop tests: a canonical form for row values
(so pypaimon's pyarrow output and our JSON lines compare exactly), a
pypaimon reader, and an independent "raw" reader used where pypaimon cannot
read a table (fastavro for manifests, pyarrow for data files, pyroaring for
deletion vectors; no schema evolution, no merging).
"""
import base64
import calendar
import datetime
import decimal
import json
import os
import pathlib

import fastavro
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

_UNIT_NS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}


def _float(v, f32):
    if isinstance(v, str):
        return v  # "NaN", "Infinity", "-Infinity" in our encoding
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    return float(np.float32(v)) if f32 else float(v)


def _dec(v, scale):
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        return str(decimal.Decimal(v).quantize(decimal.Decimal(1).scaleb(-scale)))


def parse_ts(s):
    """Our timestamp text -> (ns since epoch, is_ltz)."""
    ltz = s.endswith("Z")
    if ltz:
        s = s[:-1]
    date, _, time = s.partition("T")
    frac = ""
    if "." in time:
        time, frac = time.split(".")
    y, mo, d = (int(x) for x in date.split("-"))
    hh, mm, ss = (int(x) for x in time.split(":"))
    secs = calendar.timegm((y, mo, d, hh, mm, ss, 0, 0, 0))
    ns = int((frac + "000000000")[:9]) if frac else 0
    return secs * 1_000_000_000 + ns, ltz


def canon_scalar(s):
    """Canonical value of a pyarrow scalar."""
    if not s.is_valid:
        return None
    t = s.type
    if pa.types.is_timestamp(t):
        return ["ts", s.value * _UNIT_NS[t.unit], t.tz is not None]
    if pa.types.is_date(t):
        return s.as_py().isoformat()
    if pa.types.is_time(t):
        return s.value * _UNIT_NS[t.unit] // 1_000_000
    if pa.types.is_decimal(t):
        return _dec(s.as_py(), t.scale)
    if pa.types.is_float32(t):
        return _float(s.as_py(), True)
    if pa.types.is_floating(t):
        return _float(s.as_py(), False)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return base64.b64encode(s.as_py()).decode()
    if pa.types.is_map(t):
        return [{"key": canon_scalar(e[0]), "value": canon_scalar(e[1])} for e in s.values] if s.values is not None else []
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return [canon_scalar(x) for x in s.values] if s.values is not None else []
    if pa.types.is_struct(t):
        return {t.field(i).name: canon_scalar(s[i]) for i in range(t.num_fields)}
    return s.as_py()


def canon_ours(v, t):
    """Canonical value of one of our JSON values, read as arrow type t."""
    if v is None:
        return None
    if pa.types.is_timestamp(t):
        ns, ltz = parse_ts(v)
        return ["ts", ns, ltz]
    if pa.types.is_time(t):
        hh, mm, rest = v.split(":")
        sec, _, frac = rest.partition(".")
        return ((int(hh) * 60 + int(mm)) * 60 + int(sec)) * 1000 + (int((frac + "000")[:3]) if frac else 0)
    if pa.types.is_decimal(t):
        return _dec(v, t.scale)
    if pa.types.is_float32(t):
        return _float(v, True)
    if pa.types.is_floating(t):
        return _float(v, False)
    if pa.types.is_map(t):
        return [{"key": canon_ours(e["key"], t.key_type), "value": canon_ours(e["value"], t.item_type)} for e in v]
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return [canon_ours(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {t.field(i).name: canon_ours(v.get(t.field(i).name), t.field(i).type) for i in range(t.num_fields)}
    return v


def canon_table(table):
    """Rows of a pyarrow table as canonical dicts."""
    cols = {name: [canon_scalar(x) for x in table.column(name)] for name in table.column_names}
    return [{name: cols[name][i] for name in table.column_names} for i in range(table.num_rows)]


def canon_our_rows(rows, schema):
    return [{f.name: canon_ours(r.get(f.name), f.type) for f in schema} for r in rows]


def multiset(rows):
    return sorted(json.dumps(r, sort_keys=True) for r in rows)


def pypaimon_read(warehouse, db, table, snapshot=None, branch=None):
    """Read with pypaimon; returns the pyarrow table."""
    from pypaimon import CatalogFactory
    cat = CatalogFactory.create({"warehouse": str(warehouse)})
    name = f"{db}.{table}" + (f"$branch_{branch}" if branch else "")
    t = cat.get_table(name)
    if snapshot is not None:
        t = t.copy({"scan.snapshot-id": str(snapshot)})
    rb = t.new_read_builder()
    return rb.new_read().to_arrow(rb.new_scan().plan().splits())


def _local(p):
    """The local path of a file: URI or plain path (scheme any case)."""
    for pre in ("file://", "file:"):
        if p.lower().startswith(pre):
            return p[len(pre):]
    return p


def relocate_external(table_dir, old, new):
    """Rewrite `_EXTERNAL_PATH` values starting with `old` so they start with
    `new`, in the manifests and index manifests of a (copied) table; the
    files are rewritten by fastavro with their own schema and codec.  The
    schemas' `data-file.external-paths` roots under `old` move to `new` as
    well (readers only accept external files under the configured roots)."""
    old_local = _local(old).rstrip("/")
    for p in sorted(pathlib.Path(table_dir, "schema").glob("schema-*")):
        schema = json.loads(p.read_text())
        opts = schema.get("options", {})
        roots = opts.get("data-file.external-paths")
        if not roots:
            continue
        moved = []
        for r in roots.split(","):
            rl = _local(r.strip()).rstrip("/")
            if rl == old_local or rl.startswith(old_local + "/"):
                r = "file://" + _local(new).rstrip("/") + rl[len(old_local):]
            moved.append(r)
        opts["data-file.external-paths"] = ",".join(moved)
        p.write_text(json.dumps(schema, indent=2))
    for p in sorted(pathlib.Path(table_dir, "manifest").iterdir()):
        if p.name.startswith("manifest-list-"):
            continue
        with open(p, "rb") as f:
            r = fastavro.reader(f)
            schema, codec, recs = r.writer_schema, r.codec, list(r)
        changed = False
        for rec in recs:
            for holder in (rec.get("_FILE"), rec):
                v = holder.get("_EXTERNAL_PATH") if isinstance(holder, dict) else None
                if v and v.startswith(old):
                    holder["_EXTERNAL_PATH"] = new + v[len(old):]
                    changed = True
        if changed:
            with open(p, "wb") as f:
                fastavro.writer(f, fastavro.parse_schema(schema), recs, codec=codec)


# ---------------------------------------------------------------------------
# raw oracle

def _avro(path):
    with open(path, "rb") as f:
        return list(fastavro.reader(f))


def _strip(p):
    for pre in ("file://", "file:"):
        if p.lower().startswith(pre):
            return p[len(pre):]
    return p


def _find(root, name):
    for d, _, files in os.walk(root):
        if name in files:
            return os.path.join(d, name)
    raise FileNotFoundError(name)


def _dv_positions(path, offset):
    from pyroaring import BitMap
    data = pathlib.Path(path).read_bytes()
    size = int.from_bytes(data[offset:offset + 4], "big")
    magic = int.from_bytes(data[offset + 4:offset + 8], "big")
    assert magic == 1581511376, f"DV magic {magic}"
    return set(BitMap.deserialize(data[offset + 8:offset + 4 + size]))


def raw_read(table_dir, snapshot_id=None):
    """(rows, arrow schema) (canonical rows) of a primary-key or append table without schema
    evolution, from its files: manifests merged ADD/DELETE, level-0 files
    skipped for deletion-vector and first-row tables, deletion vectors
    applied, retract rows dropped."""
    table_dir = pathlib.Path(table_dir)
    snap_dir = table_dir / "snapshot"
    if snapshot_id is None:
        snapshot_id = max(int(p.name[9:]) for p in snap_dir.glob("snapshot-*"))
    snap = json.loads((snap_dir / f"snapshot-{snapshot_id}").read_text())
    schema = json.loads((table_dir / "schema" / f"schema-{snap['schemaId']}").read_text())
    opts = schema.get("options", {})
    pk = bool(schema.get("primaryKeys"))
    skip_l0 = pk and (opts.get("deletion-vectors.enabled") == "true" or opts.get("merge-engine") == "first-row")
    live = {}
    for lst in (snap["baseManifestList"], snap["deltaManifestList"]):
        for m in _avro(table_dir / "manifest" / lst):
            for e in _avro(table_dir / "manifest" / m["_FILE_NAME"]):
                f = e["_FILE"]
                key = (e["_PARTITION"], e["_BUCKET"], f["_LEVEL"], f["_FILE_NAME"])
                if e["_KIND"] == 0:
                    live[key] = f
                else:
                    live.pop(key, None)
    dvs = {}
    if snap.get("indexManifest"):
        for e in _avro(table_dir / "manifest" / snap["indexManifest"]):
            fm = e
            if fm["_INDEX_TYPE"] != "DELETION_VECTORS":
                continue
            ipath = _strip(fm["_EXTERNAL_PATH"]) if fm.get("_EXTERNAL_PATH") else _find(table_dir, fm["_FILE_NAME"])
            for r in fm["_DELETIONS_VECTORS_RANGES"] or []:
                dvs[(e["_PARTITION"], e["_BUCKET"], r["f0"])] = (ipath, r["f1"])
    names = [f["name"] for f in schema["fields"]]
    rows = []
    arrow_schema = None
    for (part, bucket, level, name), f in live.items():
        if skip_l0 and level == 0:
            continue
        path = _strip(f["_EXTERNAL_PATH"]) if f.get("_EXTERNAL_PATH") else _find(table_dir, name)
        t = pq.ParquetFile(path).read()  # no hive partition discovery from the path
        deleted = set()
        if (part, bucket, name) in dvs:
            deleted = _dv_positions(*dvs[(part, bucket, name)])
        kinds = t.column("_VALUE_KIND").to_pylist() if pk else None
        sel = t.select(names)
        arrow_schema = arrow_schema or sel.schema
        proj = canon_table(sel)
        for i, r in enumerate(proj):
            if i in deleted or (kinds and kinds[i] in (1, 3)):
                continue
            rows.append(r)
    return rows, arrow_schema
