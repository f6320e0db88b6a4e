/*
 * GlobalIndexOracle — Apache Paimon Java's global index as oracle and speed
 * anchor.
 *
 *   gi-query TABLE --column C --values JSON-ARRAY
 *       GlobalIndexScanner over the latest snapshot's global index files
 *       for `C = v` (one value) or `C IN (...)`: one JSON line, the sorted
 *       row ids of the result, or null when no index applies.
 *   gi-build TABLE --column C [--warmup K]
 *       BTreeGlobalIndexBuilder over the table's unindexed row ranges,
 *       committed as one snapshot: one JSON line with rows, files, the
 *       build time (scan + sort + write + commit, JVM start excluded) and
 *       the JVM's process CPU during it.
 *       --warmup K builds K times first on throw-away copies of the table.
 * Values: numbers for integer columns, strings for character columns.
 */
package org.paimonc.oracle;

import java.io.File;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.globalindex.GlobalIndexResult;
import org.apache.paimon.globalindex.GlobalIndexScanner;
import org.apache.paimon.globalindex.btree.BTreeGlobalIndexBuilder;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.utils.Pair;
import org.apache.paimon.utils.RowRangeIndex;

final class GlobalIndexOracle {
    private GlobalIndexOracle() {}

    static Object literal(DataField f, String text) {
        DataTypeRoot r = f.type().getTypeRoot();
        switch (r) {
            case TINYINT: return Byte.parseByte(text);
            case SMALLINT: return Short.parseShort(text);
            case INTEGER: return Integer.parseInt(text);
            case BIGINT: return Long.parseLong(text);
            case DOUBLE: return Double.parseDouble(text);
            case FLOAT: return Float.parseFloat(text);
            case CHAR:
            case VARCHAR: return BinaryString.fromString(text);
            default: throw new PaimonOracle.UsageException("gi-query: column type " + f.type() + " not handled");
        }
    }

    /** A tiny JSON array reader: numbers and strings (no escapes but \" and \\). */
    static List<String> values(String json) {
        List<String> out = new ArrayList<>();
        String s = json.trim();
        if (!s.startsWith("[") || !s.endsWith("]")) throw new PaimonOracle.UsageException("--values needs a JSON array");
        int i = 1;
        while (i < s.length() - 1) {
            char c = s.charAt(i);
            if (c == ',' || c == ' ') { i++; continue; }
            if (c == '"') {
                StringBuilder b = new StringBuilder();
                for (i++; s.charAt(i) != '"'; i++) {
                    if (s.charAt(i) == '\\') i++;
                    b.append(s.charAt(i));
                }
                i++;
                out.add(b.toString());
            } else {
                int j = i;
                while (j < s.length() - 1 && s.charAt(j) != ',') j++;
                out.add(s.substring(i, j).trim());
                i = j;
            }
        }
        return out;
    }

    static void query(PaimonOracle.Args a, PrintStream out) throws Exception {
        FileStoreTable t = PaimonOracle.open(a.table);
        String col = a.str("column", null);
        if (col == null) throw new PaimonOracle.UsageException("gi-query needs --column");
        int idx = t.rowType().getFieldIndex(col);
        if (idx < 0) throw new PaimonOracle.UsageException("gi-query: no column " + col);
        DataField f = t.rowType().getFields().get(idx);
        List<Object> lits = new ArrayList<>();
        for (String v : values(a.str("values", "[]"))) lits.add(literal(f, v));
        PredicateBuilder pb = new PredicateBuilder(t.rowType());
        Predicate p = lits.size() == 1 ? pb.equal(idx, lits.get(0)) : pb.in(idx, lits);
        Optional<GlobalIndexScanner> sc = GlobalIndexScanner.create(t, null, p);
        if (!sc.isPresent()) {
            out.println("null");
            return;
        }
        try (GlobalIndexScanner s = sc.get()) {
            Optional<GlobalIndexResult> r = s.scan(p);
            if (!r.isPresent()) {
                out.println("null");
                return;
            }
            StringBuilder b = new StringBuilder("[");
            boolean first = true;
            for (long id : r.get().results()) {
                if (!first) b.append(',');
                b.append(id);
                first = false;
            }
            out.println(b.append(']'));
        }
    }

    static long[] buildOnce(String path, String col, File tmp) throws Exception {
        FileStoreTable t = PaimonOracle.open(path);
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long start = System.nanoTime();
        BTreeGlobalIndexBuilder builder = new BTreeGlobalIndexBuilder(t).withIndexField(col);
        Optional<Pair<RowRangeIndex, List<DataSplit>>> plan = builder.incrementalScan();
        long rows = 0, files = 0;
        if (plan.isPresent()) {
            List<CommitMessage> msgs = new ArrayList<>();
            try (IOManager io = IOManager.create(tmp.getAbsolutePath())) {
                for (DataSplit split : BTreeGlobalIndexBuilder.splitByContiguousRowRange(plan.get().getRight())) {
                    for (CommitMessage m : builder.build(split, io)) msgs.add(m);
                    rows += split.rowCount();
                }
            }
            for (CommitMessage m : msgs)
                files += ((org.apache.paimon.table.sink.CommitMessageImpl) m).newFilesIncrement().newIndexFiles().size();
            try (BatchTableCommit c = t.newBatchWriteBuilder().newCommit()) {
                c.commit(msgs);
            }
        }
        return new long[] {rows, files, System.nanoTime() - start, os.getProcessCpuTime() - cpu0};
    }

    static void deleteTree(File f) {
        File[] kids = f.listFiles();
        if (kids != null) for (File k : kids) deleteTree(k);
        f.delete();
    }

    static void copyTree(File from, File to) throws Exception {
        if (from.isDirectory()) {
            to.mkdirs();
            for (File k : from.listFiles()) copyTree(k, new File(to, k.getName()));
        } else {
            Files.copy(from.toPath(), to.toPath());
        }
    }

    static void build(PaimonOracle.Args a, PrintStream out) throws Exception {
        String col = a.str("column", null);
        if (col == null) throw new PaimonOracle.UsageException("gi-build needs --column");
        long warmup = a.num("warmup", 0);
        File tmp = Files.createTempDirectory("gi-build").toFile();
        try {
            for (long k = 0; k < warmup; k++) {
                File copy = new File(tmp, "warm-" + k);
                copyTree(new File(a.table), copy);
                buildOnce(copy.getAbsolutePath(), col, tmp);
                deleteTree(copy);
            }
            long[] r = buildOnce(a.table, col, tmp);
            out.println("{\"rows\":" + r[0] + ",\"files\":" + r[1] + ",\"build_ms\":" + (r[2] / 1_000_000.0)
                    + ",\"cpu_ms\":" + (r[3] / 1_000_000.0)
                    + ",\"rows_per_s\":" + (r[2] > 0 ? (long) (r[0] * 1e9 / r[2]) : 0) + "}");
        } finally {
            deleteTree(tmp);
        }
    }
}
