"""Round trip through our own code: random schemas and data (seeded,
reproducible) written by `paimon-dev write-parquet` and read back by `paimon cat`
(the paimon-c Parquet reader) must give back exactly the generated values.

Values are compared as Python values (ints for dates/times/timestamps in the
column's unit, Decimal, bytes, float32-rounded floats, maps as (key, value)
lists), so differences in text formatting do not matter.
"""
import base64
import datetime as dt
import decimal
import json
import random
import subprocess

import pytest

import test_parquet_write as tw
from conftest import paimon_bin

EPOCH = dt.datetime(1970, 1, 1)


def parse_ts(s, precision):
    """ISO timestamp text → integer in the column's unit (ms, us or ns)."""
    s = s.rstrip("Z")
    unit = 1000 if precision <= 3 else 10 ** 6 if precision <= 6 else 10 ** 9
    base, _, frac = s.partition(".")
    secs = int((dt.datetime.fromisoformat(base) - EPOCH).total_seconds())
    digits = len(str(unit)) - 1
    return secs * unit + int((frac + "0" * 9)[:digits] or 0)


def from_json(t, v):
    if v is None:
        return None
    if t.kind == "array":
        return [from_json(t.children[0], x) for x in v]
    if t.kind in ("map", "multiset"):
        vt = t.children[1] if t.kind == "map" else None
        return [(from_json(t.children[0], e["key"]), e["value"] if vt is None else from_json(vt, e["value"]))
                for e in v]
    if t.kind == "row":
        return {n: from_json(c, v[n]) for n, c in zip(t.names, t.children)}
    sql = t.sql
    if sql.startswith("DECIMAL"):
        return decimal.Decimal(v)
    if sql in ("FLOAT",):
        return tw.f32(float(v))
    if sql == "DOUBLE":
        return float(v)
    if sql.startswith(("BINARY", "VARBINARY", "BYTES")):
        return base64.b64decode(v)
    if sql == "DATE":
        return (dt.date.fromisoformat(v) - dt.date(1970, 1, 1)).days
    if sql.startswith("TIME") and not sql.startswith("TIMESTAMP"):
        h, m, rest = v.split(":")
        s, _, frac = rest.partition(".")
        return ((int(h) * 60 + int(m)) * 60 + int(s)) * 1000 + int((frac + "000")[:3])
    if sql.startswith("TIMESTAMP"):
        return parse_ts(v, int(sql.split("(")[1].split(")")[0]))
    return v


def cat(path):
    proc = subprocess.run([paimon_bin(), "cat", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


@pytest.mark.parametrize("seed", range(10))
def test_random_roundtrip(tmp_path, seed):
    r = random.Random(5000 + seed)
    pool = tw.all_types()
    fields = r.sample(pool, r.randint(1, 10))
    fields = [(f"c{i}_{n}", t) for i, (n, t) in enumerate(fields)]
    n = r.choice([1, 50, 700, 2500])
    js, ps = tw.make_rows(fields, n, seed=seed, null_p=r.choice([0.0, 0.1, 0.5]))
    opts = [f"file.compression={r.choice(tw.CODECS)}",
            f"parquet.enable.dictionary={r.choice(['true', 'false'])}",
            f"parquet.page.size={r.choice(['2kb', '1mb'])}",
            f"parquet.page.row.count.limit={r.choice([3, 500, 20000])}",
            f"parquet.dictionary.page.size={r.choice(['1kb', '1mb'])}",
            f"parquet.block.size={r.choice(['16kb', '128mb'])}"]
    path, _ = tw.write(tmp_path, fields, js, opts, batch_rows=r.choice([7, 1000]))
    rows = cat(path)
    assert len(rows) == n
    for k, (row, want) in enumerate(zip(rows, ps)):
        for name, t in fields:
            got = from_json(t, row[name])
            if tw.norm(got) != tw.norm(want[name]):
                pytest.fail(f"seed {seed} {opts}: row {k} column {name}: got {got!r}, want {want[name]!r}")
