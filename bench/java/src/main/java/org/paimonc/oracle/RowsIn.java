/*
 * RowsIn: rows given to the oracle as JSON, and predicates over them.
 *
 *   write-rows TABLE --input ROWS.jsonl [--kinds true]
 *       one commit of the rows through the table's BatchTableWrite (what a
 *       Paimon writer does: data files, file indexes, statistics); with
 *       --kinds each line is [kind, row] (kind "+I", "-U", "+U", "-D")
 *   predicates (read --where-json P): a JSON array of atoms, all ANDed:
 *       {"col": NAME, "in": [v, ...]} (one value: equal, else in)
 *
 * Values, one JSON array per row in field order (bench/orc/java's encoding):
 *   BOOLEAN true/false; TINYINT..BIGINT, DATE (days), TIME (millis)
 *   numbers; FLOAT/DOUBLE numbers or "NaN" / "Infinity" / "-Infinity";
 *   DECIMAL strings; CHAR/VARCHAR strings; BINARY/VARBINARY base64;
 *   TIMESTAMP(p)/LTZ integers in the unit of p (ms, us, ns); ARRAY arrays;
 *   MAP/MULTISET arrays of [key, value]; ROW arrays; null.
 */
package org.paimonc.oracle;

import java.io.BufferedReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeChecks;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.paimonc.oracle.PaimonOracle.Args;
import org.paimonc.oracle.PaimonOracle.UsageException;

final class RowsIn {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private RowsIn() {}

    static void writeRows(Args a, PrintStream out) throws Exception {
        FileStoreTable t = PaimonOracle.open(a.table);
        String input = a.flags.get("input");
        if (input == null) throw new UsageException("write-rows needs --input");
        boolean kinds = Boolean.parseBoolean(a.str("kinds", "false"));
        RowType type = t.rowType();
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        long n = 0;
        try (BatchTableWrite w = wb.newWrite();
                BatchTableCommit c = wb.newCommit();
                BufferedReader r = Files.newBufferedReader(Paths.get(input), StandardCharsets.UTF_8)) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.trim().isEmpty()) continue;
                JsonNode node = MAPPER.readTree(line);
                GenericRow row;
                if (kinds) {
                    row = (GenericRow) row(node.get(1), type);
                    row.setRowKind(RowKind.fromShortString(node.get(0).asText()));
                } else {
                    row = (GenericRow) row(node, type);
                }
                w.write(row);
                n++;
            }
            c.commit(w.prepareCommit());
        }
        out.append("{\"rows\": ").append(String.valueOf(n)).append("}\n");
    }

    /** The AND of the atoms of a --where-json predicate over `type`. */
    static Predicate predicate(String json, RowType type) throws Exception {
        JsonNode atoms = MAPPER.readTree(json);
        PredicateBuilder pb = new PredicateBuilder(type);
        List<Predicate> all = new ArrayList<>();
        for (JsonNode atom : atoms) {
            String col = atom.get("col").asText();
            int idx = type.getFieldIndex(col);
            if (idx < 0) throw new UsageException("no column '" + col + "' in " + type);
            DataType ft = type.getTypeAt(idx);
            List<Object> lits = new ArrayList<>();
            for (JsonNode v : atom.get("in")) lits.add(value(v, ft));
            all.add(lits.size() == 1 ? pb.equal(idx, lits.get(0)) : pb.in(idx, lits));
        }
        return PredicateBuilder.and(all);
    }

    static InternalRow row(JsonNode values, RowType type) {
        List<DataField> fields = type.getFields();
        GenericRow row = new GenericRow(fields.size());
        for (int i = 0; i < fields.size(); i++) {
            row.setField(i, value(values.get(i), fields.get(i).type()));
        }
        return row;
    }

    static Object value(JsonNode v, DataType t) {
        if (v == null || v.isNull()) {
            return null;
        }
        switch (t.getTypeRoot()) {
            case BOOLEAN: return v.asBoolean();
            case TINYINT: return (byte) v.asInt();
            case SMALLINT: return (short) v.asInt();
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE: return v.asInt();
            case BIGINT: return v.isTextual() ? Long.parseLong(v.asText()) : v.asLong();
            case FLOAT: return v.isTextual() ? Float.parseFloat(v.asText()) : (float) v.asDouble();
            case DOUBLE: return v.isTextual() ? Double.parseDouble(v.asText()) : v.asDouble();
            case DECIMAL:
                return Decimal.fromBigDecimal(new BigDecimal(v.asText()), DataTypeChecks.getPrecision(t),
                        DataTypeChecks.getScale(t));
            case CHAR:
            case VARCHAR: return BinaryString.fromString(v.asText());
            case BINARY:
            case VARBINARY: return Base64.getDecoder().decode(v.asText());
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                int p = DataTypeChecks.getPrecision(t);
                long x = v.isTextual() ? Long.parseLong(v.asText()) : v.asLong();
                if (p <= 3) return Timestamp.fromEpochMillis(x);
                if (p <= 6) return Timestamp.fromEpochMillis(Math.floorDiv(x, 1000L), (int) Math.floorMod(x, 1000L) * 1000);
                return Timestamp.fromEpochMillis(Math.floorDiv(x, 1000000L), (int) Math.floorMod(x, 1000000L));
            }
            case ARRAY: {
                DataType e = ((ArrayType) t).getElementType();
                Object[] arr = new Object[v.size()];
                for (int i = 0; i < arr.length; i++) arr[i] = value(v.get(i), e);
                return new GenericArray(arr);
            }
            case MAP:
            case MULTISET: {
                DataType k = t instanceof MapType ? ((MapType) t).getKeyType() : ((MultisetType) t).getElementType();
                DataType val = t instanceof MapType ? ((MapType) t).getValueType() : null;
                Map<Object, Object> m = new LinkedHashMap<>();
                for (JsonNode kv : v) {
                    m.put(value(kv.get(0), k), val == null ? (Object) kv.get(1).asInt() : value(kv.get(1), val));
                }
                return new GenericMap(m);
            }
            case ROW: return row(v, (RowType) t);
            default: throw new UnsupportedOperationException("type " + t);
        }
    }
}
