/*
 * OrcTool: Apache Paimon Java's ORC format (paimon-bundle 1.4.2, its
 * OrcFileFormat writer and reader over orc-core 1.9.2) as an oracle for
 * paimon-c's src/format/orc, one file at a time.
 *
 *   write SCHEMA.json ROWS.jsonl OUT.orc [key=value ...]
 *       rows through OrcFileFormat.createWriterFactory(rowType).create(out,
 *       file.compression) with the given table options (Paimon defaults
 *       otherwise), exactly what a Paimon data file writer does
 *   read SCHEMA.json IN.orc
 *       rows through OrcFileFormat.createReaderFactory(rowType, rowType),
 *       printed one JSON object per line in `paimon cat`'s encoding
 *
 * SCHEMA.json: a JSON array of Paimon data fields, as in a schema file
 * ({"id", "name", "type"} with Paimon's JSON type forms).
 * ROWS.jsonl: one JSON array per row, values in field order:
 *   BOOLEAN true/false; TINYINT..BIGINT, DATE (days), TIME (millis)
 *   numbers; FLOAT/DOUBLE numbers or "NaN" / "Infinity" / "-Infinity";
 *   DECIMAL strings; CHAR/VARCHAR strings; BINARY/VARBINARY base64;
 *   TIMESTAMP(p)/LTZ integers in the unit of p (ms, us, ns);
 *   ARRAY arrays; MAP/MULTISET arrays of [key, value]; ROW arrays; null.
 * Run with -Duser.timezone=UTC (bench/orc/java.sh does).
 */
package org.paimonc.oracle;

import java.io.BufferedReader;
import java.io.IOException;
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
import org.apache.paimon.format.FileFormat;
import org.apache.paimon.format.FormatReaderContext;
import org.apache.paimon.format.FormatReaderFactory;
import org.apache.paimon.format.FormatWriter;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeChecks;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowType;

public final class OrcTool {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private OrcTool() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: write SCHEMA ROWS OUT [k=v...] | read SCHEMA IN");
            System.exit(2);
        }
        RowType type = schema(args[1]);
        if (args[0].equals("write")) {
            Options opts = new Options();
            for (int i = 4; i < args.length; i++) {
                int eq = args[i].indexOf('=');
                opts.set(args[i].substring(0, eq), args[i].substring(eq + 1));
            }
            write(type, args[2], args[3], opts);
        } else if (args[0].equals("read")) {
            read(type, args[2]);
        } else {
            System.err.println("unknown command " + args[0]);
            System.exit(2);
        }
    }

    static RowType schema(String file) throws IOException {
        JsonNode fields = MAPPER.readTree(Files.readAllBytes(Paths.get(file)));
        List<DataField> list = new ArrayList<>();
        for (JsonNode f : fields) {
            list.add(DataTypeJsonParser.parseDataField(f));
        }
        return new RowType(list);
    }

    static void write(RowType type, String rows, String out, Options opts) throws IOException {
        FileFormat format = FileFormat.fromIdentifier("orc", opts);
        FileIO fileIO = LocalFileIO.create();
        Path path = new Path(out);
        String compression = opts.getString("file.compression", "zstd");
        try (PositionOutputStream stream = fileIO.newOutputStream(path, true)) {
            FormatWriter writer = format.createWriterFactory(type).create(stream, compression);
            try (BufferedReader r = Files.newBufferedReader(Paths.get(rows), StandardCharsets.UTF_8)) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.isEmpty()) {
                        continue;
                    }
                    writer.addElement(row(MAPPER.readTree(line), type));
                }
            }
            writer.close();
        }
    }

    static void read(RowType type, String in) throws IOException {
        FileFormat format = FileFormat.fromIdentifier("orc", new Options());
        FileIO fileIO = LocalFileIO.create();
        Path path = new Path(in);
        FormatReaderFactory factory = format.createReaderFactory(type, type, new ArrayList<>());
        StringBuilder sb = new StringBuilder();
        try (RecordReader<InternalRow> reader =
                factory.createReader(new FormatReaderContext(fileIO, path, fileIO.getFileSize(path)))) {
            RecordReader.RecordIterator<InternalRow> batch;
            while ((batch = reader.readBatch()) != null) {
                InternalRow row;
                while ((row = batch.next()) != null) {
                    sb.setLength(0);
                    JsonRows.row(sb, row, type);
                    System.out.println(sb);
                }
                batch.releaseBatch();
            }
        }
        System.out.flush();
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
                if (p <= 3) {
                    return Timestamp.fromEpochMillis(x);
                } else if (p <= 6) {
                    return Timestamp.fromEpochMillis(Math.floorDiv(x, 1000L), (int) Math.floorMod(x, 1000L) * 1000);
                }
                return Timestamp.fromEpochMillis(Math.floorDiv(x, 1000000L), (int) Math.floorMod(x, 1000000L));
            }
            case ARRAY: {
                DataType e = ((ArrayType) t).getElementType();
                Object[] a = new Object[v.size()];
                for (int i = 0; i < a.length; i++) {
                    a[i] = value(v.get(i), e);
                }
                return new GenericArray(a);
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
