/*
 * Metrics: wall time, process CPU time (all JVM threads: compaction
 * executors, GC, JIT), peak heap and GC time of one operation, printed as one
 * JSON object. The shell wrappers add what only the OS sees (peak RSS, CPU
 * of the whole process including JVM start-up) from /usr/bin/time -v.
 */
package org.paimonc.oracle;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.LinkedHashMap;
import java.util.Map;

final class Metrics {
    private final long wall0, cpu0, gc0;

    private Metrics() {
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans())
            if (p.getType() == MemoryType.HEAP) p.resetPeakUsage();
        gc0 = gcMillis();
        cpu0 = processCpuNanos();
        wall0 = System.nanoTime();
    }

    static Metrics start() { return new Metrics(); }

    static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean)
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        return -1;
    }

    static long gcMillis() {
        long t = 0;
        for (GarbageCollectorMXBean g : ManagementFactory.getGarbageCollectorMXBeans())
            t += Math.max(0, g.getCollectionTime());
        return t;
    }

    static long peakHeapBytes() {
        long b = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans())
            if (p.getType() == MemoryType.HEAP && p.getPeakUsage() != null) b += p.getPeakUsage().getUsed();
        return b;
    }

    /** Milliseconds since start(). */
    double elapsedMs() { return (System.nanoTime() - wall0) / 1e6; }

    Json finish(String command) {
        double wall = elapsedMs();
        long cpu = processCpuNanos();
        Json j = new Json().put("command", command).put("engine", "paimon-java")
                .put("paimon_version", Version.PAIMON)
                .put("wall_ms", round(wall))
                .put("cpu_ms", cpu < 0 ? null : (Object) round((cpu - cpu0) / 1e6))
                .put("gc_ms", gcMillis() - gc0)
                .put("peak_heap_mb", round(peakHeapBytes() / 1048576.0))
                .put("jvm_uptime_ms", ManagementFactory.getRuntimeMXBean().getUptime());
        return j;
    }

    static double round(double v) { return Math.round(v * 10.0) / 10.0; }

    /** A flat JSON object with keys in insertion order. */
    static final class Json {
        private final Map<String, Object> m = new LinkedHashMap<>();

        Json put(String k, Object v) {
            m.put(k, v);
            return this;
        }

        String json() {
            StringBuilder sb = new StringBuilder("{");
            for (Map.Entry<String, Object> e : m.entrySet()) {
                if (sb.length() > 1) sb.append(", ");
                JsonRows.string(sb, e.getKey());
                sb.append(": ");
                Object v = e.getValue();
                if (v == null) sb.append("null");
                else if (v instanceof Number || v instanceof Boolean) sb.append(v);
                else JsonRows.string(sb, v.toString());
            }
            return sb.append('}').toString();
        }
    }

    static final class Version {
        static final String PAIMON = find();

        private static String find() {
            Package p = org.apache.paimon.table.FileStoreTable.class.getPackage();
            String v = p == null ? null : p.getImplementationVersion();
            if (v != null) return v;
            // Fall back to the jar name on the class path (paimon-bundle-X.jar).
            String cp = System.getProperty("java.class.path", "");
            java.util.regex.Matcher mm = java.util.regex.Pattern.compile("paimon-bundle-([^/:]+)\\.jar").matcher(cp);
            return mm.find() ? mm.group(1) : "unknown";
        }
    }
}
