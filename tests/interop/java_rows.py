"""Rows for paimon-c and the Apache Paimon Java oracle from one generator.

`gen(types, n, seed)` draws rows of Python values per column type;
`ours(names, types, rows)` renders them as `paimon write` JSON lines (the `paimon
cat` encoding), `java_lines(types, rows)` as the oracle's write-rows lines (one
JSON array per row, raw units; see bench/java RowsIn.java).  Types are SQL
strings as `paimon create --schema` takes them.

Also the Java oracle fixture `java` (one JVM per test module), for the
modules that import it."""
import base64
import datetime
import json
import os
import random
import re
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench" / "java"))
from paimon_oracle import BuildError, JavaOracle, build  # noqa: E402

EPOCH = datetime.datetime(1970, 1, 1)


def precision(t):
    m = re.search(r"\((\d+)", t)
    return int(m.group(1)) if m else (3 if t.startswith("TIMESTAMP") else 0)


def base(t):
    return re.sub(r"\(.*?\)", "", t).replace(" WITH LOCAL TIME ZONE", "_LTZ").split()[0]


def draw(t, rnd):
    """One value of type t (None sometimes)."""
    if rnd.random() < 0.08:
        return None
    b = base(t)
    if b in ("INT", "BIGINT", "TINYINT", "SMALLINT"):
        lim = {"TINYINT": 127, "SMALLINT": 32767, "INT": 2 ** 31 - 1, "BIGINT": 2 ** 63 - 1}[b]
        picks = [0, 1, -1, 7, -7, 42, 1000, lim, -lim - 1, rnd.randint(-lim - 1, lim),
                 rnd.randint(-20, 20), rnd.randint(-20, 20)]
        return rnd.choice([v for v in picks if -lim - 1 <= v <= lim])
    if b in ("DOUBLE", "FLOAT"):
        return rnd.choice([0.0, -0.0, 1.5, -2.25, 1e10, 3.0, float("nan"), float("inf"), 0.5,
                           float(rnd.randint(-50, 50)) / 4])
    if b == "DECIMAL":
        p, s = [int(x) for x in re.search(r"\((\d+),\s*(\d+)\)", t).groups()]
        digits = rnd.choice([1, 3, p])
        v = rnd.randint(-(10 ** digits - 1), 10 ** digits - 1)
        return v  # unscaled
    if b == "BOOLEAN":
        return rnd.choice([True, False])
    if b in ("STRING", "VARCHAR", "CHAR"):
        n = precision(t) if b == "CHAR" else rnd.choice([0, 1, 3, 8, 40])
        alphabet = "abcXYZ019 é€"
        return "".join(rnd.choice(alphabet) for _ in range(min(n, 40) if b != "CHAR" else n))
    if b in ("BYTES", "VARBINARY", "BINARY"):
        return bytes(rnd.randint(0, 255) for _ in range(rnd.choice([0, 1, 4, 9])))
    if b == "DATE":
        return rnd.choice([0, -1, 19000, 20000, rnd.randint(-30000, 30000)])
    if b == "TIME":
        return rnd.randint(0, 86399999) // (10 ** (3 - min(precision(t), 3))) * (10 ** (3 - min(precision(t), 3)))
    if b in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        p = precision(t)
        unit = 1000 if p <= 3 else 10 ** 6 if p <= 6 else 10 ** 9
        v = rnd.choice([0, -1, 1700000000, -5000000, rnd.randint(-10 ** 9, 2 * 10 ** 9)]) * unit
        v += rnd.randint(0, unit - 1) // (10 ** ((3 if p <= 3 else 6 if p <= 6 else 9) - p)) * \
            (10 ** ((3 if p <= 3 else 6 if p <= 6 else 9) - p))
        return v
    raise ValueError(t)


def gen(types, n, seed=1, pool=None):
    """n rows; with `pool`, values repeat from a pool of that many per column."""
    rnd = random.Random(seed)
    pools = [[draw(t, rnd) for _ in range(pool)] for t in types] if pool else None
    return [[rnd.choice(pools[i]) if pools else draw(t, rnd) for i, t in enumerate(types)] for _ in range(n)]


def _iso_ts(v, p):
    unit = 1000 if p <= 3 else 10 ** 6 if p <= 6 else 10 ** 9
    sec, frac = divmod(v, unit)
    s = (EPOCH + datetime.timedelta(seconds=sec)).strftime("%Y-%m-%dT%H:%M:%S")
    digits = {1000: 3, 10 ** 6: 6, 10 ** 9: 9}[unit]
    f = str(frac).rjust(digits, "0")[:p]
    return s + ("." + f if p else "")


def render_ours(t, v):
    if v is None:
        return None
    b = base(t)
    if b in ("DOUBLE", "FLOAT"):
        if v != v:
            return "NaN"
        if v in (float("inf"), float("-inf")):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if b == "DECIMAL":
        s = int(re.search(r",\s*(\d+)\)", t).group(1))
        neg, a = v < 0, abs(v)
        txt = str(a).rjust(s + 1, "0")
        txt = (txt[:-s] + "." + txt[-s:]) if s else txt
        return ("-" if neg else "") + txt
    if b in ("BYTES", "VARBINARY", "BINARY"):
        return base64.b64encode(v).decode()
    if b == "DATE":
        return (datetime.date(1970, 1, 1) + datetime.timedelta(days=v)).isoformat()
    if b == "TIME":
        p = precision(t)
        h, rem = divmod(v, 3600000)
        m, rem = divmod(rem, 60000)
        s, ms = divmod(rem, 1000)
        return "%02d:%02d:%02d" % (h, m, s) + ("." + str(ms).rjust(3, "0")[:p] if p else "")
    if b == "TIMESTAMP":
        return _iso_ts(v, precision(t))
    if b == "TIMESTAMP_LTZ":
        return _iso_ts(v, precision(t)) + "Z"
    return v


def render_java(t, v):
    if v is None:
        return None
    b = base(t)
    if b in ("DOUBLE", "FLOAT"):
        return render_ours(t, v)
    if b == "DECIMAL":
        return render_ours(t, v)
    if b in ("BYTES", "VARBINARY", "BINARY"):
        return base64.b64encode(v).decode()
    return v


def ours(names, types, rows):
    return "".join(json.dumps({n: render_ours(t, v) for n, t, v in zip(names, types, r)}) + "\n" for r in rows)


def java_lines(types, rows):
    return "".join(json.dumps([render_java(t, v) for t, v in zip(types, r)]) + "\n" for r in rows)


def schema_sql(names, types):
    return ", ".join(f"{n} {t}" for n, t in zip(names, types))



@pytest.fixture(scope="module")
def java():
    """The Apache Paimon Java oracle; FAILS when it cannot be built
    (PAIMON_SKIP_JAVA=1 skips on purpose)."""
    if os.environ.get("PAIMON_SKIP_JAVA") == "1":
        pytest.skip("PAIMON_SKIP_JAVA=1: Apache Paimon Java oracle tests skipped on request")
    try:
        run_sh = build()
    except BuildError as e:
        pytest.fail(f"cannot build the Apache Paimon Java oracle (set PAIMON_SKIP_JAVA=1 to skip):\n{e}",
                    pytrace=False)
    with JavaOracle(run_sh, java_opts=os.environ.get("JAVA_OPTS", "-XX:TieredStopAtLevel=1")) as j:
        yield j
