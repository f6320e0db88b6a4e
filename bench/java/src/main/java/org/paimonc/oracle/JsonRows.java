/*
 * JsonRows: Paimon values as JSON text in the encoding `paimon cat` prints
 * (paimon-c src/types/value.h), so rows read by Java compare with rows read
 * by paimon-c as parsed JSON and, for most values, as text.
 *
 *   BOOLEAN true/false; TINYINT..BIGINT numbers;
 *   FLOAT/DOUBLE the shortest decimal that reads back as the same value
 *     (search: 6..9 significant digits for FLOAT, 15..17 for DOUBLE, from 1
 *     for subnormals; exact half-even rounding of the binary value, like
 *     printf "%.*e"), laid out like Python repr: fixed notation with at
 *     least one fraction digit for decimal exponents -4..15, else d.ddde±XX;
 *     NaN/Infinity/-Infinity as strings;
 *   CHAR/VARCHAR strings; BINARY/VARBINARY/BLOB base64 (padded);
 *   DECIMAL strings with exactly `scale` fraction digits;
 *   DATE YYYY-MM-DD (years outside 0..9999 as +12345 / -0001);
 *   TIME(p) HH:MM:SS[.f..] with p fraction digits;
 *   TIMESTAMP(p) YYYY-MM-DDTHH:MM:SS[.f..] with exactly p digits;
 *   TIMESTAMP_LTZ the same plus 'Z';
 *   ARRAY arrays; MAP/MULTISET arrays of {"key": k, "value": v};
 *   ROW objects by field name; null null.
 * Other types (VARIANT, VECTOR) throw UnsupportedOperationException
 * naming the type.
 */
package org.paimonc.oracle;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.LocalDate;
import java.util.Base64;
import java.util.List;

import org.apache.paimon.data.DataGetters;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeChecks;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowType;

final class JsonRows {
    private JsonRows() {}

    /** Appends one row of `type` as a JSON object. */
    static void row(StringBuilder sb, InternalRow row, RowType type) {
        List<DataField> fields = type.getFields();
        sb.append('{');
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) sb.append(",");
            string(sb, fields.get(i).name());
            sb.append(":");
            value(sb, row, i, fields.get(i).type());
        }
        sb.append('}');
    }

    /** Appends the value at `pos` of a row or array. */
    static void value(StringBuilder sb, DataGetters d, int pos, DataType t) {
        if (d.isNullAt(pos)) {
            sb.append("null");
            return;
        }
        switch (t.getTypeRoot()) {
            case BOOLEAN: sb.append(d.getBoolean(pos)); break;
            case TINYINT: sb.append(d.getByte(pos)); break;
            case SMALLINT: sb.append(d.getShort(pos)); break;
            case INTEGER: sb.append(d.getInt(pos)); break;
            case BIGINT: sb.append(d.getLong(pos)); break;
            case FLOAT: floatValue(sb, d.getFloat(pos)); break;
            case DOUBLE: doubleValue(sb, d.getDouble(pos)); break;
            case CHAR:
            case VARCHAR: string(sb, d.getString(pos).toString()); break;
            case BINARY:
            case VARBINARY:
                sb.append('"').append(Base64.getEncoder().encodeToString(d.getBinary(pos))).append('"');
                break;
            case BLOB:
                sb.append('"').append(Base64.getEncoder().encodeToString(d.getBlob(pos).toData())).append('"');
                break;
            case DECIMAL: {
                int p = DataTypeChecks.getPrecision(t), s = DataTypeChecks.getScale(t);
                BigDecimal v = d.getDecimal(pos, p, s).toBigDecimal().setScale(s, RoundingMode.UNNECESSARY);
                sb.append('"').append(v.toPlainString()).append('"');
                break;
            }
            case DATE: sb.append('"'); date(sb, d.getInt(pos)); sb.append('"'); break;
            case TIME_WITHOUT_TIME_ZONE: {
                int ms = d.getInt(pos);
                sb.append('"');
                time(sb, ms / 1000, (ms % 1000) * 1_000_000L, DataTypeChecks.getPrecision(t));
                sb.append('"');
                break;
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                int p = DataTypeChecks.getPrecision(t);
                sb.append('"');
                timestamp(sb, d.getTimestamp(pos, p), p);
                if (t.getTypeRoot() == org.apache.paimon.types.DataTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE)
                    sb.append('Z');
                sb.append('"');
                break;
            }
            case ARRAY: {
                InternalArray a = d.getArray(pos);
                DataType et = ((ArrayType) t).getElementType();
                sb.append('[');
                for (int i = 0; i < a.size(); i++) {
                    if (i > 0) sb.append(",");
                    value(sb, a, i, et);
                }
                sb.append(']');
                break;
            }
            case MAP:
            case MULTISET: {
                InternalMap m = d.getMap(pos);
                DataType kt, vt;
                if (t instanceof MapType) {
                    kt = ((MapType) t).getKeyType();
                    vt = ((MapType) t).getValueType();
                } else {
                    kt = ((MultisetType) t).getElementType();
                    vt = new org.apache.paimon.types.IntType(false);
                }
                InternalArray ks = m.keyArray(), vs = m.valueArray();
                sb.append('[');
                for (int i = 0; i < m.size(); i++) {
                    if (i > 0) sb.append(",");
                    sb.append("{\"key\":");
                    value(sb, ks, i, kt);
                    sb.append(",\"value\":");
                    value(sb, vs, i, vt);
                    sb.append('}');
                }
                sb.append(']');
                break;
            }
            case ROW: {
                RowType rt = (RowType) t;
                row(sb, d.getRow(pos, rt.getFieldCount()), rt);
                break;
            }
            default:
                throw new UnsupportedOperationException("type " + t + " has no JSON encoding in the oracle");
        }
    }

    static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                case '\b': sb.append("\\b"); break;
                case '\f': sb.append("\\f"); break;
                default:
                    if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
            }
        }
        sb.append('"');
    }

    // ------------------------------------------------------------------
    // Temporal

    static void date(StringBuilder sb, long days) {
        sb.append(LocalDate.ofEpochDay(days)); // ISO: +YYYYY beyond 9999, -YYYY before year 0
    }

    private static void two(StringBuilder sb, long v) {
        if (v < 10) sb.append('0');
        sb.append(v);
    }

    /** HH:MM:SS then '.' and `precision` digits of a 9-digit nanosecond fraction. */
    static void time(StringBuilder sb, long secondOfDay, long nanos, int precision) {
        two(sb, secondOfDay / 3600);
        sb.append(':');
        two(sb, secondOfDay / 60 % 60);
        sb.append(':');
        two(sb, secondOfDay % 60);
        if (precision > 0) {
            String nine = String.format("%09d", nanos);
            sb.append('.').append(nine, 0, Math.min(precision, 9));
        }
    }

    static void timestamp(StringBuilder sb, Timestamp ts, int precision) {
        long ms = ts.getMillisecond();
        long secs = Math.floorDiv(ms, 1000L);
        long nanos = Math.floorMod(ms, 1000L) * 1_000_000L + ts.getNanoOfMillisecond();
        long days = Math.floorDiv(secs, 86400L);
        date(sb, days);
        sb.append('T');
        time(sb, secs - days * 86400L, nanos, precision);
    }

    // ------------------------------------------------------------------
    // Floating point

    static void doubleValue(StringBuilder sb, double v) {
        if (Double.isNaN(v)) { sb.append("\"NaN\""); return; }
        if (Double.isInfinite(v)) { sb.append(v > 0 ? "\"Infinity\"" : "\"-Infinity\""); return; }
        boolean neg = (Double.doubleToRawLongBits(v) & Long.MIN_VALUE) != 0;
        double a = Math.abs(v);
        if (a == 0) { sb.append(neg ? "-0.0" : "0.0"); return; }
        BigDecimal exact = new BigDecimal(a);
        BigDecimal r = null;
        for (int p = a < Double.MIN_NORMAL ? 1 : 15; p <= 17; p++) {
            r = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
            if (r.doubleValue() == a) break;
        }
        layout(sb, neg, r);
    }

    static void floatValue(StringBuilder sb, float v) {
        if (Float.isNaN(v)) { sb.append("\"NaN\""); return; }
        if (Float.isInfinite(v)) { sb.append(v > 0 ? "\"Infinity\"" : "\"-Infinity\""); return; }
        boolean neg = (Float.floatToRawIntBits(v) & Integer.MIN_VALUE) != 0;
        float a = Math.abs(v);
        if (a == 0) { sb.append(neg ? "-0.0" : "0.0"); return; }
        BigDecimal exact = new BigDecimal((double) a);
        BigDecimal r = null;
        for (int p = a < Float.MIN_NORMAL ? 1 : 6; p <= 9; p++) {
            r = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
            if (r.floatValue() == a) break;
        }
        layout(sb, neg, r);
    }

    /** Python-repr layout of a positive decimal r. */
    private static void layout(StringBuilder sb, boolean neg, BigDecimal r) {
        r = r.stripTrailingZeros();
        String dig = r.unscaledValue().toString();
        int nd = dig.length();
        int exp = nd - 1 - r.scale(); // decimal exponent of the first digit
        if (neg) sb.append('-');
        if (exp >= -4 && exp < 16) {
            int point = exp + 1;
            if (point <= 0) {
                sb.append("0.");
                for (int i = 0; i < -point; i++) sb.append('0');
                sb.append(dig);
            } else if (point >= nd) {
                sb.append(dig);
                for (int i = nd; i < point; i++) sb.append('0');
                sb.append(".0");
            } else {
                sb.append(dig, 0, point).append('.').append(dig, point, nd);
            }
        } else {
            sb.append(dig.charAt(0));
            if (nd > 1) sb.append('.').append(dig, 1, nd);
            sb.append('e').append(exp < 0 ? '-' : '+');
            two(sb, Math.abs(exp));
        }
    }
}
