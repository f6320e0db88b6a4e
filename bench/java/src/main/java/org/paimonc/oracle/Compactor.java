/*
 * Compactor: explicit full compaction of a whole table with Apache Paimon
 * Java, committed as one COMPACT snapshot, and a merge-on-read throughput
 * probe. Both print one metrics JSON line.
 *
 * Unaware-bucket append tables (bucket = -1, no primary key): the batch
 * AppendCompactCoordinator plans tasks (small files per partition, packed
 * by target-file-size), each AppendCompactTask.doCompact rewrites its files
 * with a BaseAppendFileStoreWrite, and one TableCommitImpl commits all
 * messages (Paimon's own CompactProcedure does the same).
 * Data-evolution tables (data-evolution.enabled, compact-de or compact):
 * DataEvolutionCompactCoordinator(table, false, false).plan() (normal files
 * only: 1.4.2 compacts no blob or vector files), each
 * DataEvolutionCompactTask.doCompact(table, user) merges its row-ID range's
 * column versions into one file, one commit.  Paimon 1.4.2 refuses
 * data-evolution tables with deletion vectors at table creation and its DE
 * compaction task does not carry vectors over, so such tables are refused
 * here.
 * Every other table (bucketed append, primary key): for every (partition,
 * bucket) of the latest snapshot, BatchTableWrite.compact(partition, bucket,
 * full) with full = --full (default true); prepareCommit waits for the
 * compactions (and, for append buckets, adds Java's best-effort round under
 * compaction.min.file-num); one commit.
 * The table is opened with write-only=false so a table created with
 * write-only=true still compacts; --option k=v adds dynamic options for
 * this compaction (e.g. compaction.min.file-num=2). Nothing to compact: no snapshot.
 *
 * --warmup K (both): first K untimed runs, for steady-state JIT numbers;
 * compaction warms up on throw-away copies of the table directory
 * (TABLE.warmup-i beside it), so the measured run sees the same input.
 *
 * mor-read: plan and read the whole table (merge-on-read for primary keys),
 * touching every top-level field of every row so no decoding is skipped.
 */
package org.paimonc.oracle;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

import org.apache.paimon.Snapshot;
import org.apache.paimon.append.AppendCompactCoordinator;
import org.apache.paimon.append.AppendCompactTask;
import org.apache.paimon.append.dataevolution.DataEvolutionCompactCoordinator;
import org.apache.paimon.append.dataevolution.DataEvolutionCompactTask;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.BucketEntry;
import org.apache.paimon.operation.BaseAppendFileStoreWrite;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.source.EndOfScanException;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;
import org.paimonc.oracle.PaimonOracle.Args;
import org.paimonc.oracle.PaimonOracle.UsageException;

final class Compactor {
    private Compactor() {}

    static void compact(Args a, PrintStream out) throws Exception {
        long warmup = a.num("warmup", 0);
        for (long i = 0; i < warmup; i++) {
            java.nio.file.Path src = java.nio.file.Paths.get(PaimonOracle.tablePath(a.table).toUri().getPath());
            java.nio.file.Path copy = src.resolveSibling(src.getFileName() + ".warmup-" + i);
            copyTree(src, copy);
            try {
                compactOnce(a, copy.toString());
            } finally {
                deleteTree(copy);
            }
        }
        out.println(compactOnce(a, a.table).put("warmup_runs", warmup).json());
    }

    static void copyTree(java.nio.file.Path src, java.nio.file.Path dst) throws java.io.IOException {
        try (java.util.stream.Stream<java.nio.file.Path> w = java.nio.file.Files.walk(src)) {
            for (java.nio.file.Path p : (Iterable<java.nio.file.Path>) w::iterator)
                java.nio.file.Files.copy(p, dst.resolve(src.relativize(p).toString()));
        }
    }

    static void deleteTree(java.nio.file.Path dir) throws java.io.IOException {
        if (!java.nio.file.Files.exists(dir)) return;
        try (java.util.stream.Stream<java.nio.file.Path> w = java.nio.file.Files.walk(dir)) {
            List<java.nio.file.Path> all = new ArrayList<>();
            w.forEach(all::add);
            Collections.reverse(all);
            for (java.nio.file.Path p : all) java.nio.file.Files.delete(p);
        }
    }

    static Metrics.Json compactOnce(Args a, String path) throws Exception {
        Metrics m = Metrics.start();
        java.util.Map<String, String> dyn = new java.util.HashMap<>(a.optionMap());
        dyn.put("write-only", "false");
        FileStoreTable t = PaimonOracle.open(path).copy(dyn);
        boolean pk = !t.primaryKeys().isEmpty();
        if (a.command.equals("compact-pk") && !pk)
            throw new UsageException("compact-pk: " + path + " has no primary key (use compact-append)");
        if (a.command.equals("compact-append") && pk)
            throw new UsageException("compact-append: " + path + " has a primary key (use compact-pk)");
        boolean de = t.coreOptions().dataEvolutionEnabled();
        if (a.command.equals("compact-de") && !de)
            throw new UsageException("compact-de: " + path + " has no data-evolution.enabled=true");
        if (de && t.coreOptions().deletionVectorsEnabled())
            throw new UsageException(a.command + ": " + path + " has data evolution with deletion vectors, which "
                    + "Paimon " + Metrics.Version.PAIMON + " does not support");
        Snapshot before = t.snapshotManager().latestSnapshot();
        long t0 = System.nanoTime();
        double planMs, execMs, commitMs;
        List<CommitMessage> msgs = new ArrayList<>();
        int tasks;
        String user = UUID.randomUUID().toString();
        String mode;
        if (de) {
            mode = "data-evolution";
            List<DataEvolutionCompactTask> plan = before == null ? List.of()
                    : new DataEvolutionCompactCoordinator(t, false, false).plan();
            tasks = plan.size();
            long t1 = System.nanoTime();
            planMs = (t1 - t0) / 1e6;
            for (DataEvolutionCompactTask task : plan) msgs.add(task.doCompact(t, user));
            long t2 = System.nanoTime();
            execMs = (t2 - t1) / 1e6;
            if (!msgs.isEmpty()) {
                try (TableCommitImpl c = t.newCommit(user)) {
                    c.commit(msgs);
                }
            }
            commitMs = (System.nanoTime() - t2) / 1e6;
        } else if (!pk && t.bucketMode() == BucketMode.BUCKET_UNAWARE) {
            mode = "append-unaware";
            List<AppendCompactTask> plan;
            try {
                plan = before == null ? List.of() : new AppendCompactCoordinator(t, false).run();
            } catch (EndOfScanException e) {
                plan = List.of();
            }
            tasks = plan.size();
            long t1 = System.nanoTime();
            planMs = (t1 - t0) / 1e6;
            BaseAppendFileStoreWrite w = (BaseAppendFileStoreWrite) t.store().newWrite(user);
            try {
                if (t.coreOptions().rowTrackingEnabled())
                    w.withWriteType(SpecialFields.rowTypeWithRowTracking(t.rowType()));
                for (AppendCompactTask task : plan) msgs.add(task.doCompact(t, w));
            } finally {
                w.close();
            }
            long t2 = System.nanoTime();
            execMs = (t2 - t1) / 1e6;
            if (!msgs.isEmpty()) {
                try (TableCommitImpl c = t.newCommit(user)) {
                    c.commit(msgs);
                }
            }
            commitMs = (System.nanoTime() - t2) / 1e6;
        } else {
            mode = pk ? "primary-key" : "append-bucketed";
            String fullFlag = a.str("full", "true");
            if (!fullFlag.equals("true") && !fullFlag.equals("false"))
                throw new UsageException("--full needs true or false, got '" + fullFlag + "'");
            boolean full = fullFlag.equals("true");
            List<BucketEntry> buckets = before == null ? List.of() : t.newSnapshotReader().bucketEntries();
            tasks = buckets.size();
            long t1 = System.nanoTime();
            planMs = (t1 - t0) / 1e6;
            BatchWriteBuilder wb = t.newBatchWriteBuilder();
            String tmp = a.str("tmp", System.getProperty("java.io.tmpdir"));
            long t2;
            try (IOManager io = IOManager.create(tmp);
                    BatchTableWrite w = wb.newWrite();
                    BatchTableCommit c = wb.newCommit()) {
                w.withIOManager(io);
                for (BucketEntry e : buckets) w.compact(e.partition(), e.bucket(), full);
                msgs = w.prepareCommit();
                t2 = System.nanoTime();
                execMs = (t2 - t1) / 1e6;
                c.commit(msgs);
            }
            commitMs = (System.nanoTime() - t2) / 1e6;
        }
        long inFiles = 0, outFiles = 0, inRows = 0, outRows = 0, inBytes = 0, outBytes = 0;
        for (CommitMessage msg : msgs) {
            CommitMessageImpl ci = (CommitMessageImpl) msg;
            for (DataFileMeta f : ci.compactIncrement().compactBefore()) {
                inFiles++;
                inRows += f.rowCount();
                inBytes += f.fileSize();
            }
            for (DataFileMeta f : ci.compactIncrement().compactAfter()) {
                outFiles++;
                outRows += f.rowCount();
                outBytes += f.fileSize();
            }
        }
        t.snapshotManager().invalidateCache();
        Snapshot after = t.snapshotManager().latestSnapshotFromFileSystem();
        boolean committed = after != null && (before == null || after.id() != before.id());
        return m.finish(a.command).put("mode", mode).put("tasks", tasks)
                .put("rows", inRows).put("output_rows", outRows)
                .put("input_files", inFiles).put("output_files", outFiles)
                .put("input_bytes", inBytes).put("output_bytes", outBytes)
                .put("plan_ms", Metrics.round(planMs)).put("execute_ms", Metrics.round(execMs))
                .put("commit_ms", Metrics.round(commitMs))
                .put("snapshot", committed ? (Object) after.id() : null)
                .put("commit_kind", committed ? (Object) after.commitKind().toString() : null);
    }

    static void morRead(Args a, PrintStream out) throws Exception {
        long warmup = a.num("warmup", 0);
        for (long i = 0; i < warmup; i++) morReadOnce(a);
        out.println(morReadOnce(a).put("warmup_runs", warmup).json());
    }

    static Metrics.Json morReadOnce(Args a) throws Exception {
        Metrics m = Metrics.start();
        FileStoreTable t = PaimonOracle.openAt(a);
        ReadBuilder rb = PaimonOracle.readBuilder(t, a);
        RowType type = rb.readType();
        TableScan.Plan plan = rb.newScan().plan();
        double planMs = m.elapsedMs();
        long rows = 0, check = 0;
        List<DataField> fields = type.getFields();
        try (RecordReader<InternalRow> r = rb.newRead().createReader(plan)) {
            RecordReader.RecordIterator<InternalRow> batch;
            while ((batch = r.readBatch()) != null) {
                InternalRow row;
                while ((row = batch.next()) != null) {
                    rows++;
                    for (int i = 0; i < fields.size(); i++) check = check * 31 + touch(row, i, fields.get(i));
                }
                batch.releaseBatch();
            }
        }
        Metrics.Json j = m.finish("mor-read");
        double wall = m.elapsedMs();
        return j.put("rows", rows).put("splits", plan.splits().size())
                .put("plan_ms", Metrics.round(planMs))
                .put("rows_per_s", Math.round(rows / (wall / 1000.0)))
                .put("checksum", check);
    }

    /** A cheap value hash that forces the field to be decoded. */
    static long touch(InternalRow r, int i, DataField f) {
        if (r.isNullAt(i)) return 7;
        switch (f.type().getTypeRoot()) {
            case BOOLEAN: return r.getBoolean(i) ? 1 : 2;
            case TINYINT: return r.getByte(i);
            case SMALLINT: return r.getShort(i);
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE: return r.getInt(i);
            case BIGINT: return r.getLong(i);
            case FLOAT: return Float.floatToRawIntBits(r.getFloat(i));
            case DOUBLE: return Double.doubleToRawLongBits(r.getDouble(i));
            case CHAR:
            case VARCHAR: return r.getString(i).hashCode();
            case BINARY:
            case VARBINARY: return r.getBinary(i).length;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return r.getTimestamp(i, org.apache.paimon.types.DataTypeChecks.getPrecision(f.type())).getMillisecond();
            case DECIMAL: {
                int p = org.apache.paimon.types.DataTypeChecks.getPrecision(f.type());
                int s = org.apache.paimon.types.DataTypeChecks.getScale(f.type());
                return r.getDecimal(i, p, s).hashCode();
            }
            default: {
                StringBuilder sb = new StringBuilder();
                JsonRows.value(sb, r, i, f.type());
                return sb.length();
            }
        }
    }
}
