/*
 * TableGen: deterministic benchmark tables written by Apache Paimon Java.
 *
 * Row shape (both kinds), one row per id:
 *   p INT          id % P (partition key when --partitions P > 0, else 0)
 *   id BIGINT      0..N-1 for append; the key for primary-key tables
 *   k INT          h % 100000
 *   name STRING    "user-" + h % 1000000            (low entropy, ~11 bytes)
 *   price DOUBLE   (h >>> 20) % 1000000 / 100.0
 *   qty INT        h >>> 40 & 1023
 *   ts TIMESTAMP(3) 2024-01-01 + id seconds
 *   note STRING    16 characters from a 32-letter alphabet (high entropy)
 * where h = splitmix64(seed, id, run): the same arguments give the same
 * rows, run after run and machine after machine.
 *
 * write-append: N rows over C commits (commit c holds ids with id*C/N == c),
 *   or with --files-per-commit F > 1 over C*F files (file f holds ids with
 *   id*C*F/N == f; a stream write flushed once per file, F files a commit),
 *   bucket -1 (unaware, default) or B > 0 with bucket-key id.
 * write-pk: R runs (one commit each) of N rows. Run r writes the keys
 *   base_r + perm(i), i < N, with base_r = floor(r * N * (1 - overlap)) and
 *   perm(i) = i * m mod N (m a prime that does not divide N), so consecutive
 *   runs share `overlap` (default 0.5) of their keys in shuffled order;
 *   values depend on (key, run) so later runs win. With --delete-every D > 0,
 *   rows of runs r > 0 with i % D == 0 are DELETE rows.
 *   Primary key (p, id) when partitioned, else id; --bucket default 1.
 *   --bucket -1 (dynamic): keys are placed by Java's HashBucketAssigner
 *   (one assigner, the table's HASH index restored; target row number
 *   and max buckets from the table options), the writer maintains the
 *   HASH index files.  --append true writes the runs into an existing
 *   table instead of creating one (--seed varies the values).  --warmup K
 *   first writes the same runs into K throw-away tables (TABLE.warmup-i)
 *   in the same JVM, untimed (steady-state JIT numbers).
 *
 * Both write with the dynamic option write-only=true (no compaction while
 * writing); the table itself keeps its own options. --format sets
 * file.format (default parquet); --option k=v adds table options.
 */
package org.paimonc.oracle;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.table.sink.RowKeyExtractor;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.paimonc.oracle.PaimonOracle.Args;

final class TableGen {
    private TableGen() {}

    static final long TS_BASE = 1704067200000L; // 2024-01-01T00:00:00Z
    static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEF".toCharArray();

    static long mix(long seed, long id, long run) {
        long z = seed * 0x9E3779B97F4A7C15L + id * 0xBF58476D1CE4E5B9L + run * 0x94D049BB133111EBL;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    static GenericRow row(RowKind kind, int partitions, long seed, long id, long run) {
        long h = mix(seed, id, run);
        char[] note = new char[16];
        long x = h;
        for (int i = 0; i < 16; i++) {
            if (i == 12) x = mix(seed ^ 0x5bd1e995L, id, run);
            note[i] = ALPHABET[(int) (x & 31)];
            x >>>= 5;
        }
        return GenericRow.ofKind(kind,
                partitions > 0 ? (int) (id % partitions) : 0,
                id,
                (int) Long.remainderUnsigned(h, 100000),
                BinaryString.fromString("user-" + Long.remainderUnsigned(h, 1000000)),
                ((h >>> 20) % 1000000) / 100.0,
                (int) (h >>> 40 & 1023),
                Timestamp.fromEpochMillis(TS_BASE + id * 1000L),
                BinaryString.fromString(new String(note)));
    }

    static Schema.Builder schema(int partitions, boolean pk, int bucket, Args a) {
        Schema.Builder b = Schema.newBuilder()
                .column("p", DataTypes.INT().notNull())
                .column("id", DataTypes.BIGINT().notNull())
                .column("k", DataTypes.INT())
                .column("name", DataTypes.STRING())
                .column("price", DataTypes.DOUBLE())
                .column("qty", DataTypes.INT())
                .column("ts", DataTypes.TIMESTAMP(3))
                .column("note", DataTypes.STRING());
        if (partitions > 0) b.partitionKeys("p");
        if (pk) b.primaryKey(partitions > 0 ? new String[] {"p", "id"} : new String[] {"id"});
        b.option("bucket", String.valueOf(bucket));
        if (!pk && bucket > 0) b.option("bucket-key", "id");
        b.option("file.format", a.str("format", "parquet"));
        for (Map.Entry<String, String> e : a.optionMap().entrySet()) b.option(e.getKey(), e.getValue());
        return b;
    }

    static FileStoreTable create(Args a, Schema s) throws Exception {
        return create(a.table, s);
    }

    static FileStoreTable create(String table, Schema s) throws Exception {
        Path path = PaimonOracle.tablePath(table);
        LocalFileIO io = LocalFileIO.create();
        SchemaManager sm = new SchemaManager(io, path);
        if (sm.latest().isPresent())
            throw new IllegalStateException("table " + path + " already exists; write-* creates a new table");
        sm.createTable(s);
        return FileStoreTableFactory.create(io, path)
                .copy(Collections.singletonMap("write-only", "true"));
    }

    private static final class Tally {
        long rows, files, bytes;

        void add(List<CommitMessage> msgs) {
            for (CommitMessage m : msgs) {
                CommitMessageImpl c = (CommitMessageImpl) m;
                files += c.newFilesIncrement().newFiles().size();
                for (var f : c.newFilesIncrement().newFiles()) bytes += f.fileSize();
            }
        }
    }

    static void writeAppend(Args a, PrintStream out) throws Exception {
        long n = a.required("rows");
        long commits = a.num("commits", 1);
        int bucket = (int) a.num("bucket", -1);
        int parts = (int) a.num("partitions", 0);
        long seed = a.num("seed", 1);
        if (n < 0 || commits < 1) throw new PaimonOracle.UsageException("need --rows >= 0 and --commits >= 1");
        Metrics m = Metrics.start();
        FileStoreTable t = create(a, schema(parts, false, bucket, a).build());
        Tally tally = new Tally();
        long id = 0;
        long perCommit = a.num("files-per-commit", 1);
        if (perCommit < 1) throw new PaimonOracle.UsageException("need --files-per-commit >= 1");
        if (perCommit > 1) {
            // F files per commit: a stream write flushed once per file
            // (prepareCommit), its messages committed together.
            StreamWriteBuilder sb = t.newStreamWriteBuilder();
            long files = commits * perCommit;
            try (StreamTableWrite w = sb.newWrite(); StreamTableCommit cm = sb.newCommit()) {
                for (long c = 0; c < commits; c++) {
                    List<CommitMessage> msgs = new ArrayList<>();
                    for (long f = c * perCommit; f < (c + 1) * perCommit; f++) {
                        long end = (f + 1) * n / files;
                        for (; id < end; id++) w.write(row(RowKind.INSERT, parts, seed, id, 0));
                        msgs.addAll(w.prepareCommit(false, c));
                    }
                    tally.add(msgs);
                    cm.commit(c, msgs);
                }
            }
            out.println(m.finish("write-append")
                    .put("rows", n).put("commits", commits).put("files", tally.files).put("bytes", tally.bytes)
                    .json());
            return;
        }
        for (long c = 0; c < commits; c++) {
            long end = (c + 1) * n / commits;
            BatchWriteBuilder wb = t.newBatchWriteBuilder();
            try (BatchTableWrite w = wb.newWrite(); BatchTableCommit cm = wb.newCommit()) {
                for (; id < end; id++) w.write(row(RowKind.INSERT, parts, seed, id, 0));
                List<CommitMessage> msgs = w.prepareCommit();
                tally.add(msgs);
                cm.commit(msgs);
            }
        }
        out.println(m.finish("write-append")
                .put("rows", n).put("commits", commits).put("files", tally.files).put("bytes", tally.bytes)
                .json());
    }

    static long coprimeStride(long n) {
        long[] primes = {1_000_003L, 999_983L, 1_000_033L, 7919L, 104_729L};
        for (long p : primes) if (n % p != 0) return p % Math.max(n, 1);
        return 1;
    }

    static void writePk(Args a, PrintStream out) throws Exception {
        // --warmup K: K untimed writes of the same runs into new throw-away
        // tables beside TABLE (TABLE.warmup-i), for steady-state JIT numbers
        long warmup = a.num("warmup", 0);
        if (warmup > 0 && a.str("append", "false").equals("true"))
            throw new PaimonOracle.UsageException("--warmup needs a new table (not --append)");
        for (long i = 0; i < warmup; i++) {
            java.nio.file.Path src = java.nio.file.Paths.get(PaimonOracle.tablePath(a.table).toUri().getPath());
            java.nio.file.Path copy = src.resolveSibling(src.getFileName() + ".warmup-" + i);
            try {
                writePkOnce(a, copy.toString());
            } finally {
                Compactor.deleteTree(copy);
            }
        }
        out.println(writePkOnce(a, a.table).put("warmup_runs", warmup).json());
    }

    static Metrics.Json writePkOnce(Args a, String path) throws Exception {
        long n = a.required("rows");
        long runs = a.num("runs", 1);
        int bucket = (int) a.num("bucket", 1);
        int parts = (int) a.num("partitions", 0);
        long seed = a.num("seed", 1);
        double overlap = a.real("overlap", 0.5);
        long deleteEvery = a.num("delete-every", 0);
        if (n < 1 || runs < 1 || overlap < 0 || overlap > 1)
            throw new PaimonOracle.UsageException("need --rows >= 1, --runs >= 1, 0 <= --overlap <= 1");
        Metrics m = Metrics.start();
        // --append true: more runs into an existing table (its own options; --bucket -1 for dynamic tables)
        FileStoreTable t = a.str("append", "false").equals("true")
                ? PaimonOracle.open(path).copy(Collections.singletonMap("write-only", "true"))
                : create(path, schema(parts, true, bucket, a).build());
        Tally tally = new Tally();
        long stride = coprimeStride(n);
        List<Long> bases = new ArrayList<>();
        for (long r = 0; r < runs; r++) {
            long base = (long) Math.floor(r * n * (1.0 - overlap));
            bases.add(base);
            BatchWriteBuilder wb = t.newBatchWriteBuilder();
            HashBucketAssigner assigner = bucket != -1 ? null : new HashBucketAssigner(
                    t.snapshotManager(), "table-gen", t.store().newIndexFileHandler(), 1, 1, 0,
                    t.coreOptions().dynamicBucketTargetRowNum(), t.coreOptions().dynamicBucketMaxBuckets());
            RowKeyExtractor keys = bucket != -1 ? null : t.createRowKeyExtractor();
            try (BatchTableWrite w = wb.newWrite(); BatchTableCommit cm = wb.newCommit()) {
                for (long i = 0; i < n; i++) {
                    long key = base + Math.floorMod(i * stride, n);
                    boolean del = r > 0 && deleteEvery > 0 && i % deleteEvery == 0;
                    GenericRow row = row(del ? RowKind.DELETE : RowKind.INSERT, parts, seed, key, r);
                    if (assigner == null) {
                        w.write(row);
                    } else {
                        keys.setRecord(row);
                        BinaryRow part = keys.partition();
                        w.write(row, assigner.assign(part, keys.trimmedPrimaryKey().hashCode()));
                    }
                }
                List<CommitMessage> msgs = w.prepareCommit();
                tally.add(msgs);
                cm.commit(msgs);
            }
        }
        return m.finish("write-pk")
                .put("rows_per_run", n).put("runs", runs).put("files", tally.files).put("bytes", tally.bytes)
                .put("key_space", bases.get(bases.size() - 1) + n);
    }
}
