"""Render pyarrow values in the JSON value encoding of `paimon cat`.

`render_table(table)` turns every row of a pyarrow table into the Python
object that `json.loads` gives for our JSON line, so the two can be compared
with `==`:
  ints → int (uint64 → decimal string: our reader maps it to DECIMAL(20, 0));
  float32/float16 → the shortest decimal that reads back as the same float32;
  float64 → float; NaN / ±inf → "NaN" / "Infinity" / "-Infinity";
  decimal → string with exactly `scale` fraction digits;
  string → str; binary → base64;
  date32 → "YYYY-MM-DD" (years outside 0..9999 as "+12345" / "-0001");
  time → "HH:MM:SS" + precision fraction digits (millis kept: TIME stores ms);
  timestamp → "YYYY-MM-DDTHH:MM:SS" + precision digits (+ "Z" with a tz);
  list → list; map → [{"key": k, "value": v}]; struct → dict; null → None.
Precision follows the Parquet unit our reader maps to: ms → 3, us → 6,
ns → 9 (pyarrow writes timestamp[s] as ms).

The tests at the bottom check the renderer itself on known values.
"""
import base64
import decimal
import json
import math
import struct

import pyarrow as pa


def _f32_shortest(v):
    for p in range(1, 10):
        s = "%.*g" % (p, v)
        if struct.unpack("<f", struct.pack("<f", float(s)))[0] == v:
            return float(s)
    return v


def _float(v, single):
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return _f32_shortest(v) if single else v


def _civil_from_days(z):
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return y + (m <= 2), m, d


def format_date(days):
    y, m, d = _civil_from_days(days)
    if 0 <= y <= 9999:
        ys = "%04d" % y
    elif -10000 < y < 0:
        ys = "-%04d" % -y
    else:
        ys = ("+" if y > 0 else "") + str(y)
    return "%s-%02d-%02d" % (ys, m, d)


def _fraction(nanos, precision):
    if precision <= 0:
        return ""
    return "." + ("%09d" % nanos)[:precision]


def format_time(ms, precision):
    s = ms // 1000
    return "%02d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60) + _fraction((ms % 1000) * 1000000, precision)


def format_timestamp(value, precision, ltz):
    units = 1000 if precision <= 3 else 1000000 if precision <= 6 else 1000000000
    secs, frac = divmod(value, units)
    days, sod = divmod(secs, 86400)
    text = format_date(days) + "T%02d:%02d:%02d" % (sod // 3600, sod // 60 % 60, sod % 60)
    text += _fraction(frac * (1000000000 // units), precision)
    return text + ("Z" if ltz else "")


def format_decimal(d, scale):
    unscaled = int(d.scaleb(scale).to_integral_value(rounding=decimal.ROUND_HALF_EVEN))
    sign = "-" if unscaled < 0 else ""
    digits = str(abs(unscaled))
    if scale == 0:
        return sign + digits
    digits = digits.rjust(scale + 1, "0")
    return sign + digits[:-scale] + "." + digits[-scale:]


_UNIT_PRECISION = {"s": 3, "ms": 3, "us": 6, "ns": 9}
_UNIT_PER_MS = {"s": None, "ms": 1, "us": 1000, "ns": 1000000}


def render(s):
    """One pyarrow scalar → our JSON value (as json.loads returns it)."""
    t = s.type
    if not s.is_valid:
        return None
    if pa.types.is_boolean(t):
        return s.as_py()
    if pa.types.is_integer(t):
        return str(s.as_py()) if t == pa.uint64() else s.as_py()
    if pa.types.is_float16(t):
        return _float(float(s.as_py()), True)
    if pa.types.is_float32(t):
        return _float(s.as_py(), True)
    if pa.types.is_float64(t):
        return _float(s.as_py(), False)
    if pa.types.is_decimal(t):
        return format_decimal(s.as_py(), t.scale)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return s.as_py()
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return base64.b64encode(s.as_py()).decode()
    if pa.types.is_date32(t):
        return format_date(s.value)
    if pa.types.is_time(t):
        ms = s.value * 1000 if t.unit == "s" else s.value // _UNIT_PER_MS[t.unit]
        return format_time(ms, _UNIT_PRECISION[t.unit])
    if pa.types.is_timestamp(t):
        v = s.value * 1000 if t.unit == "s" else s.value
        return format_timestamp(v, _UNIT_PRECISION[t.unit], t.tz is not None)
    if pa.types.is_map(t):
        return [{"key": render(kv["key"]), "value": render(kv["value"])} for kv in s.values]
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return [render(x) for x in s.values]
    if pa.types.is_struct(t):
        return {t.field(i).name: render(s[i]) for i in range(t.num_fields)}
    raise TypeError(f"no rendering for {t}")


def render_table(table):
    table = table.combine_chunks()
    rows = []
    cols = [table.column(i) for i in range(table.num_columns)]
    names = table.column_names
    for r in range(table.num_rows):
        rows.append({names[i]: render(cols[i][r]) for i in range(len(cols))})
    return rows


def parse_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def first_difference(ours, theirs):
    """A short description of the first differing row, or None."""
    if len(ours) != len(theirs):
        return f"row count: ours {len(ours)}, pyarrow {len(theirs)}"
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            keys = [k for k in b if a.get(k) != b.get(k)] or ["<keys differ>"]
            k = keys[0]
            return f"row {i} column {k}: ours {a.get(k)!r}, pyarrow {b.get(k)!r}"
    return None


# ---- self-tests of the renderer ----

def test_render_temporal():
    assert format_date(0) == "1970-01-01"
    assert format_date(-719528) == "0000-01-01"
    assert format_date(-719529) == "-0001-12-31"
    assert format_date(2932897) == "+10000-01-01"
    assert format_time(3723004, 3) == "01:02:03.004"
    assert format_time(3723004, 6) == "01:02:03.004000"
    assert format_timestamp(-1, 3, False) == "1969-12-31T23:59:59.999"
    assert format_timestamp(1, 9, True) == "1970-01-01T00:00:00.000000001Z"


def test_render_numbers():
    assert format_decimal(decimal.Decimal("-0.5"), 2) == "-0.50"
    assert format_decimal(decimal.Decimal("12"), 0) == "12"
    assert _float(float("nan"), False) == "NaN"
    assert _float(struct.unpack("<f", struct.pack("<f", 21.1))[0], True) == 21.1
    arr = pa.array([{"a": [1, None], "m": [("k", b"\x00\xff")]}],
                   pa.struct([("a", pa.list_(pa.int8())), ("m", pa.map_(pa.string(), pa.binary()))]))
    assert render(arr[0]) == {"a": [1, None], "m": [{"key": "k", "value": "AP8="}]}
