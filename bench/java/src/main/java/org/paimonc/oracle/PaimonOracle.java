/*
 * PaimonOracle: Apache Paimon Java as a test oracle and speed anchor for
 * paimon-c. One command per process, or many through `serve`.
 *
 *   read TABLE [--snapshot N] [--columns a,b] [--map-path FROM=TO] [--where-json P]
 *              [--option k=v]... [--incremental-between A,B [--mode auto|delta|changelog]]
 *                                               rows as JSON lines (JsonRows); P filters
 *                                               (RowsIn: Java's filter push-down, not exact);
 *                                               incremental reads add "_ROW_KIND" last
 *   snapshots TABLE                             one JSON object per snapshot
 *   files TABLE [--snapshot N] [--detail true]  one JSON object per live data file (detail:
 *                                               embedded index, extra files, value stats)
 *   write-rows TABLE --input ROWS.jsonl [--kinds true]
 *                                               one commit of the given rows (RowsIn)
 *   write-append TABLE --rows N --commits C [--bucket B] [--partitions P] ...
 *   write-pk TABLE --rows N --runs R [--bucket B] [--partitions P] ...
 *   compact-append TABLE / compact-pk TABLE / compact-de TABLE / compact TABLE [--warmup K]
 *                                               one COMPACT snapshot, metrics JSON
 *   mor-read TABLE [--columns a,b] [--warmup K] whole-table read throughput, metrics JSON
 *   serve                                       commands from stdin, see below
 *
 * A table is opened straight from its directory (FileStoreTableFactory over
 * LocalFileIO), so any `<warehouse>/<db>.db/<table>` path works without a
 * catalog. Tables created by write-* are created the same way
 * (SchemaManager.createTable), which is what the filesystem catalog does.
 *
 * serve: each stdin line is one command, its arguments separated by TAB.
 * The command's output lines follow on stdout, then one terminator line:
 * "\u0000OK" or "\u0000ERR <message>". JSON lines never contain a raw NUL, so
 * the terminator cannot be confused with output. The JVM, JIT and Paimon's
 * caches stay warm between commands.
 *
 * stdout carries only results; logging (slf4j-simple, warn and up) and stack
 * traces go to stderr.
 */
package org.paimonc.oracle;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.operation.FileStoreScan;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.RowType;

public final class PaimonOracle {
    static final String USAGE =
            "usage: run.sh <command> ...\n"
                    + "  read TABLE [--snapshot N] [--columns a,b] [--map-path FROM=TO] [--where-json P]\n"
                    + "       [--option k=v]... [--incremental-between A,B [--mode auto|delta|changelog]]\n"
                    + "  snapshots TABLE\n"
                    + "  files TABLE [--snapshot N] [--detail true]\n"
                    + "  write-rows TABLE --input ROWS.jsonl [--kinds true]\n"
                    + "  write-append TABLE --rows N --commits C [--files-per-commit F] [--bucket B] [--partitions P] [--seed S]\n"
                    + "               [--format parquet|orc|avro] [--option k=v]...\n"
                    + "  write-pk TABLE --rows N --runs R [--bucket B] [--partitions P] [--overlap F]\n"
                    + "           [--delete-every D] [--seed S] [--format F] [--option k=v]... [--append true] [--warmup K]\n"
                    + "  compact-append TABLE | compact-pk TABLE | compact-de TABLE | compact TABLE\n"
                    + "               [--full true|false]\n"
                    + "               [--option k=v]... [--warmup K] [--tmp DIR]\n"
                    + "  mor-read TABLE [--columns a,b] [--snapshot N] [--warmup K]\n"
                    + "  serve    (TAB-separated commands on stdin; \\0OK / \\0ERR terminators)\n";

    /** Thrown for bad command lines; printed without a stack trace. */
    static final class UsageException extends RuntimeException {
        UsageException(String m) { super(m); }
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel",
                System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        // Results only on stdout: keep the real stdout, send stray prints to stderr.
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false,
                StandardCharsets.UTF_8);
        System.setOut(System.err);
        if (args.length == 0) {
            System.err.print(USAGE);
            System.exit(2);
        }
        if (args[0].equals("serve")) {
            serve(out);
            out.flush();
            System.exit(0);
        }
        try {
            run(args, out);
            out.flush();
        } catch (UsageException e) {
            out.flush();
            System.err.println("paimon-oracle: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
        } catch (Throwable e) {
            out.flush();
            e.printStackTrace();
            System.err.println("paimon-oracle " + args[0] + ": " + describe(e));
            System.exit(1);
        }
        System.exit(0); // Paimon may leave non-daemon executor threads behind
    }

    static void serve(PrintStream out) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) continue;
            String[] args = line.split("\t", -1);
            try {
                run(args, out);
                out.print("\u0000OK\n");
            } catch (Throwable e) {
                e.printStackTrace();
                out.print("\u0000ERR " + describe(e) + "\n");
            }
            out.flush();
        }
    }

    /** The exception and its causes on one line. */
    static String describe(Throwable e) {
        StringBuilder sb = new StringBuilder(String.valueOf(e));
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause())
            sb.append(" | caused by: ").append(c);
        return sb.toString().replace('\n', ' ').replace('\u0000', ' ');
    }

    static void run(String[] args, PrintStream out) throws Exception {
        Args a = new Args(args);
        switch (a.command) {
            case "read": read(a, out); break;
            case "snapshots": snapshots(a, out); break;
            case "files": files(a, out); break;
            case "write-append": TableGen.writeAppend(a, out); break;
            case "write-rows": RowsIn.writeRows(a, out); break;
            case "write-pk": TableGen.writePk(a, out); break;
            case "compact":
            case "compact-append":
            case "compact-pk":
            case "compact-de": Compactor.compact(a, out); break;
            case "mor-read": Compactor.morRead(a, out); break;
            case "gi-query": GlobalIndexOracle.query(a, out); break;
            case "gi-build": GlobalIndexOracle.build(a, out); break;
            default: throw new UsageException("unknown command '" + a.command + "'");
        }
    }

    // ------------------------------------------------------------------
    // Arguments

    /** COMMAND TABLE [--flag value]... ; --option may repeat. */
    static final class Args {
        final String command;
        final String table;
        final Map<String, String> flags = new HashMap<>();
        final List<String> options = new ArrayList<>();

        Args(String[] argv) {
            command = argv[0];
            String t = null;
            for (int i = 1; i < argv.length; i++) {
                String s = argv[i];
                if (s.startsWith("--")) {
                    if (i + 1 >= argv.length) throw new UsageException(s + " needs a value");
                    String v = argv[++i];
                    if (s.equals("--option")) options.add(v);
                    else flags.put(s.substring(2), v);
                } else if (t == null) {
                    t = s;
                } else {
                    throw new UsageException("unexpected argument '" + s + "'");
                }
            }
            if (t == null) throw new UsageException(command + ": TABLE path missing");
            table = t;
        }

        String str(String name, String def) { return flags.getOrDefault(name, def); }

        long num(String name, long def) {
            String v = flags.get(name);
            if (v == null) return def;
            try {
                return Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw new UsageException("--" + name + " '" + v + "' is not an integer");
            }
        }

        long required(String name) {
            if (!flags.containsKey(name)) throw new UsageException(command + " needs --" + name);
            return num(name, 0);
        }

        double real(String name, double def) {
            String v = flags.get(name);
            return v == null ? def : Double.parseDouble(v);
        }

        Map<String, String> optionMap() {
            Map<String, String> m = new HashMap<>();
            for (String kv : options) {
                int eq = kv.indexOf('=');
                if (eq <= 0) throw new UsageException("--option '" + kv + "' is not key=value");
                m.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
            return m;
        }
    }

    // ------------------------------------------------------------------
    // Tables

    static Path tablePath(String p) {
        if (p.startsWith("file:")) return new Path(p);
        return new Path(new java.io.File(p).getAbsolutePath());
    }

    static FileStoreTable open(String path) {
        return open(path, null);
    }

    /**
     * Opens a table; `mapPath` "FROM=TO" makes every local path under FROM
     * resolve under TO instead (tables whose external data paths point at a
     * directory that is elsewhere on this machine, e.g. copied fixtures).
     */
    static FileStoreTable open(String path, String mapPath) {
        LocalFileIO io = LocalFileIO.create();
        if (mapPath != null) {
            int eq = mapPath.indexOf('=');
            if (eq <= 0) throw new UsageException("--map-path needs FROM=TO, got '" + mapPath + "'");
            io = new MappedLocalFileIO(mapPath.substring(0, eq), mapPath.substring(eq + 1));
        }
        return FileStoreTableFactory.create(io, tablePath(path));
    }

    /** LocalFileIO whose files under `from` live under `to`. */
    static final class MappedLocalFileIO extends LocalFileIO {
        private final String from, to;

        MappedLocalFileIO(String from, String to) {
            this.from = from.endsWith("/") ? from.substring(0, from.length() - 1) : from;
            this.to = to.endsWith("/") ? to.substring(0, to.length() - 1) : to;
        }

        @Override
        public java.io.File toFile(Path path) {
            java.io.File f = super.toFile(path);
            String s = f.getPath();
            if (s.equals(from) || s.startsWith(from + "/")) return new java.io.File(to + s.substring(from.length()));
            return f;
        }
    }

    /** The table (with --map-path), time-travelled to --snapshot when given. */
    static FileStoreTable openAt(Args a) {
        FileStoreTable t = open(a.table, a.flags.get("map-path"));
        if (a.flags.containsKey("snapshot"))
            t = t.copy(Collections.singletonMap("scan.snapshot-id", String.valueOf(a.num("snapshot", 0))));
        if (!a.options.isEmpty())
            t = t.copy(a.optionMap());
        if (a.flags.containsKey("incremental-between")) {
            Map<String, String> o = new HashMap<>();
            o.put("incremental-between", a.flags.get("incremental-between"));
            o.put("incremental-between-scan-mode", a.str("mode", "auto"));
            t = t.copy(o);
        }
        return t;
    }

    static ReadBuilder readBuilder(FileStoreTable t, Args a) {
        ReadBuilder rb = t.newReadBuilder();
        String cols = a.flags.get("columns");
        if (cols != null) {
            List<String> names = t.rowType().getFieldNames();
            String[] want = cols.split(",");
            int[] proj = new int[want.length];
            for (int i = 0; i < want.length; i++) {
                proj[i] = names.indexOf(want[i].trim());
                if (proj[i] < 0) throw new UsageException("no column '" + want[i] + "' in " + names);
            }
            rb = rb.withProjection(proj);
        }
        String where = a.flags.get("where-json");
        if (where != null) {
            try {
                rb = rb.withFilter(RowsIn.predicate(where, t.rowType()));
            } catch (UsageException e) {
                throw e;
            } catch (Exception e) {
                throw new UsageException("--where-json: " + e);
            }
        }
        return rb;
    }

    static void read(Args a, PrintStream out) throws Exception {
        FileStoreTable t = openAt(a);
        ReadBuilder rb = readBuilder(t, a);
        RowType type = rb.readType();
        boolean kinds = a.flags.containsKey("incremental-between");
        StringBuilder sb = new StringBuilder(256);
        try (RecordReader<InternalRow> r = rb.newRead().createReader(rb.newScan().plan())) {
            RecordReader.RecordIterator<InternalRow> batch;
            while ((batch = r.readBatch()) != null) {
                InternalRow row;
                while ((row = batch.next()) != null) {
                    sb.setLength(0);
                    JsonRows.row(sb, row, type);
                    if (kinds) { // the row kind as paimon read --incremental-between prints it
                        sb.setLength(sb.length() - 1);
                        sb.append(type.getFieldCount() > 0 ? ",\"_ROW_KIND\":\"" : "\"_ROW_KIND\":\"")
                                .append(row.getRowKind().shortString()).append("\"}");
                    }
                    sb.append('\n');
                    out.append(sb);
                }
                batch.releaseBatch();
            }
        }
    }

    static void snapshots(Args a, PrintStream out) throws Exception {
        FileStoreTable t = open(a.table);
        List<Snapshot> all = new ArrayList<>();
        for (Iterator<Snapshot> it = t.snapshotManager().snapshots(); it.hasNext(); ) all.add(it.next());
        all.sort((x, y) -> Long.compare(x.id(), y.id()));
        for (Snapshot s : all) {
            StringBuilder sb = new StringBuilder();
            sb.append("{\"id\": ").append(s.id())
                    .append(", \"schemaId\": ").append(s.schemaId())
                    .append(", \"commitKind\": \"").append(s.commitKind()).append('"')
                    .append(", \"commitIdentifier\": ").append(s.commitIdentifier())
                    .append(", \"commitUser\": ");
            JsonRows.string(sb, s.commitUser());
            sb.append(", \"totalRecordCount\": ").append(s.totalRecordCount())
                    .append(", \"deltaRecordCount\": ").append(s.deltaRecordCount())
                    .append(", \"changelogRecordCount\": ").append(s.changelogRecordCount())
                    .append("}\n");
            out.append(sb);
        }
    }

    static void files(Args a, PrintStream out) throws Exception {
        FileStoreTable t = open(a.table);
        FileStoreScan scan = t.store().newScan();
        if (a.flags.containsKey("snapshot")) scan.withSnapshot(a.num("snapshot", 0));
        else if (t.snapshotManager().latestSnapshotId() == null) return; // empty table
        List<ManifestEntry> entries = new ArrayList<>(scan.plan().files());
        RowType ptype = t.schema().logicalPartitionType();
        entries.sort((x, y) -> {
            int c = Integer.compare(x.bucket(), y.bucket());
            if (c == 0) c = x.file().fileName().compareTo(y.file().fileName());
            return c;
        });
        for (ManifestEntry e : entries) {
            DataFileMeta f = e.file();
            StringBuilder sb = new StringBuilder();
            sb.append("{\"partition\": ");
            partition(sb, e.partition(), ptype);
            sb.append(", \"bucket\": ").append(e.bucket())
                    .append(", \"level\": ").append(f.level())
                    .append(", \"name\": ");
            JsonRows.string(sb, f.fileName());
            sb.append(", \"rows\": ").append(f.rowCount())
                    .append(", \"size\": ").append(f.fileSize())
                    .append(", \"minSequenceNumber\": ").append(f.minSequenceNumber())
                    .append(", \"maxSequenceNumber\": ").append(f.maxSequenceNumber())
                    .append(", \"deleteRowCount\": ").append(f.deleteRowCount().orElse(null))
                    .append(", \"fileSource\": ")
                    .append(f.fileSource().map(s -> "\"" + s + "\"").orElse("null"));
            if (Boolean.parseBoolean(a.str("detail", "false"))) detail(sb, f);
            sb.append("}\n");
            out.append(sb);
        }
    }

    /** Index and statistics facts of a file, as bytes (base64) where they are bytes. */
    static void detail(StringBuilder sb, DataFileMeta f) {
        java.util.Base64.Encoder b64 = java.util.Base64.getEncoder();
        sb.append(", \"embeddedIndex\": ");
        if (f.embeddedIndex() == null) sb.append("null");
        else sb.append('"').append(b64.encodeToString(f.embeddedIndex())).append('"');
        sb.append(", \"extraFiles\": [");
        for (int i = 0; i < f.extraFiles().size(); i++) {
            if (i > 0) sb.append(", ");
            JsonRows.string(sb, f.extraFiles().get(i));
        }
        sb.append("], \"valueStatsMin\": \"")
                .append(b64.encodeToString(org.apache.paimon.utils.SerializationUtils.serializeBinaryRow(
                        f.valueStats().minValues())))
                .append("\", \"valueStatsMax\": \"")
                .append(b64.encodeToString(org.apache.paimon.utils.SerializationUtils.serializeBinaryRow(
                        f.valueStats().maxValues())))
                .append("\", \"valueStatsNullCounts\": [");
        org.apache.paimon.data.InternalArray nc = f.valueStats().nullCounts();
        for (int i = 0; nc != null && i < nc.size(); i++) {
            if (i > 0) sb.append(", ");
            sb.append(nc.isNullAt(i) ? "null" : String.valueOf(nc.getLong(i)));
        }
        sb.append("], \"valueStatsCols\": ");
        if (f.valueStatsCols() == null) {
            sb.append("null");
        } else {
            sb.append('[');
            for (int i = 0; i < f.valueStatsCols().size(); i++) {
                if (i > 0) sb.append(", ");
                JsonRows.string(sb, f.valueStatsCols().get(i));
            }
            sb.append(']');
        }
    }

    static void partition(StringBuilder sb, BinaryRow p, RowType ptype) {
        JsonRows.row(sb, p, ptype);
    }
}
