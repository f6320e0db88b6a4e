#!/usr/bin/env bash
# bench/compact/run.sh — compact one 1,000-small-file append table with
# paimon-c and, when bench/java/run-append-compact.sh exists, with Apache
# Paimon Java (AppendCompactCoordinator + AppendCompactTask.doCompact + one
# commit) on an identical copy, in the same run.
#
# The table (bench_compact gen): unaware bucket, 1 partition, FILES commits
# of ROWS rows (8 columns: ints, a double, a timestamp, a low- and a
# high-entropy string), Parquet zstd(1), default options (target-file-size
# 256 MiB, so both engines plan the same tasks).  Each side compacts its own
# copy; paimon-c runs with THREADS tasks at once (default: CPUs).  Printed:
# each side's JSON line and the ratios (wall, CPU seconds = "per core", peak
# RSS).  Java's numbers are a cold CLI run unless JAVA_WARMUP=K (K untimed
# compactions on throw-away copies first, for JIT steady state).
# Env: FILES (1000), ROWS (2000), THREADS, JAVA_WARMUP (0), BUILD (build), ROUNDS (1; best kept),
# JAVA_BENCH (default bench/java/run-append-compact.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
files=${FILES:-1000}
rows=${ROWS:-2000}
threads=${THREADS:-$(nproc)}
warmup=${JAVA_WARMUP:-0}
rounds=${ROUNDS:-1}
out=$root/bench/out/compact
rm -rf "$out" && mkdir -p "$out"
trap 'rm -rf "$out"' EXIT

echo "compact: $files files x $rows rows, unaware-bucket append table, Parquet zstd(1), default options"
"$build/bench/bench_compact" gen --table "$out/base/db.db/t" --files "$files" --rows "$rows" >/dev/null
ours=""
for ((i = 1; i <= rounds; i++)); do
  rm -rf "$out/ours" && cp -r "$out/base" "$out/ours"
  sync
  r=$("$build/bench/bench_compact" run --table "$out/ours/db.db/t" --threads "$threads")
  ours="$ours$r"$'\n'
done
# Beyond the anchors: row-group passthrough (no decoding, no re-encoding).
# The inputs' row groups are small here, so the minimum size is set to 0.
rm -rf "$out/pass" && cp -r "$out/base" "$out/pass"
sync
pass=$("$build/bench/bench_compact" run --table "$out/pass/db.db/t" --threads "$threads" \
       --option compaction.parquet.row-group-passthrough=true \
       --option compaction.parquet.row-group-passthrough.min-size=0)
read_rewrite=$("$build/bench/bench_compact" read --table "$out/ours/db.db/t")
read_pass=$("$build/bench/bench_compact" read --table "$out/pass/db.db/t")
java=""
java_bench=${JAVA_BENCH:-$root/bench/java/run-append-compact.sh}
if [ -x "$java_bench" ]; then
  for ((i = 1; i <= rounds; i++)); do
    rm -rf "$out/java" && cp -r "$out/base" "$out/java"
    sync
    r=$("$java_bench" "$out/java/db.db/t" --warmup "$warmup") || r=""
    java="$java$r"$'\n'
  done
else
  echo "  (bench/java/run-append-compact.sh not found: Java side skipped)"
fi
python3 - "$ours" "$java" "$pass" "$read_rewrite" "$read_pass" <<'PY'
import json, sys
def best(text, key):
    runs = [json.loads(l) for l in text.splitlines() if l.strip()]
    return min(runs, key=lambda r: r[key]) if runs else None
o = best(sys.argv[1], "wall_s")
print("  paimon-c: " + json.dumps(o))
print(f"  paimon-c: {o['rows'] / 1e6:.2f} M rows in {o['wall_s']:.2f} s wall, {o['cpu_s']:.2f} s CPU: "
      f"{o['rows_per_s'] / 1e6:.2f} M rows/s, {o['mb_per_s']:.1f} MB/s, {o['rows'] / o['cpu_s'] / 1e6:.2f} M rows per "
      f"CPU second, peak RSS {o['peak_rss_mb']:.0f} MB; {o['files_before']} -> {o['files_after']} files")
p = json.loads(sys.argv[3])
rr, rp = json.loads(sys.argv[4]), json.loads(sys.argv[5])
print(f"  paimon-c row-group passthrough: {p['wall_s']:.2f} s wall, {p['cpu_s']:.2f} s CPU "
      f"({o['cpu_s'] / p['cpu_s']:.1f}x less CPU than the rewrite), peak RSS {p['peak_rss_mb']:.0f} MB; "
      f"output {p['bytes_written'] / 1e6:.1f} MB vs {o['bytes_written'] / 1e6:.1f} MB rewritten "
      f"({(p['bytes_written'] / o['bytes_written'] - 1) * 100:+.1f}%); reading the output: "
      f"{rp['cpu_s']:.2f} s CPU vs {rr['cpu_s']:.2f} s")
j = best(sys.argv[2], "wall_ms")
if j:
    jw, jc = j["wall_ms"] / 1000, j["cpu_ms"] / 1000  # the measured run only, like ours
    print("  java:     " + json.dumps(j))
    print(f"  java:     {j['rows'] / 1e6:.2f} M rows in {jw:.2f} s wall, {jc:.2f} s CPU: {j['rows'] / jw / 1e6:.2f} "
          f"M rows/s, {j['input_bytes'] / jw / 1e6:.1f} MB/s, {j['rows'] / jc / 1e6:.2f} M rows per CPU second, "
          f"peak RSS {j['peak_rss_mb']:.0f} MB; {j['input_files']} -> {j['output_files']} files "
          f"(warmup runs: {j.get('warmup_runs', 0)})")
    print(f"  ratio (paimon-c vs Java): {jw / o['wall_s']:.1f}x wall, {jc / o['cpu_s']:.1f}x CPU (per core), "
          f"{j['peak_rss_mb'] / o['peak_rss_mb']:.1f}x less peak memory")
PY
