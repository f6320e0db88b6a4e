#!/usr/bin/env bash
# bench/pk/dynamic.sh — dynamic-bucket (bucket = -1) primary-key write
# throughput, paimon-c vs Apache Paimon Java 1.4.2 vs pypaimon in the same run.
#
# Rows: bench/java TableGen write-pk (8 columns, primary key id), RUNS (2)
# runs of ROWS_PER_RUN (2,000,000) rows, one commit each, consecutive runs
# sharing half their keys (3,000,000 keys: with the default
# dynamic-bucket.target-row-num of 2,000,000, two buckets; the second run
# loads the HASH index the first committed).  Parquet zstd(1).
#   paimon-c   bench_pk_write: rows generated in the process (as TableGen),
#              pm_table_writer + commit per run (one thread)
#   Java cold  bench/java write-pk --bucket -1 (Java's HashBucketAssigner, one
#              assigner; rows generated in the process), a fresh JVM
#   Java steady the same with --warmup WARMUPS (the runs written into
#              throw-away tables first in the same JVM)
#   pypaimon   bench_pypaimon_write.py: write_arrow + commit per run of the
#              same rows loaded from Parquet beforehand (not timed)
# ROUNDS (3) interleaved rounds (every engine once per round, the order
# rotating); printed: per engine the median and min-max over the rounds
# (bench/pk/summarize.py).  rows/s per core = rows / CPU seconds of the
# timed part from the OS (getrusage for paimon-c, the JVM's
# OperatingSystemMXBean process CPU of the measured run for Java, Python's
# time.process_time for pypaimon); the whole process's CPU (/usr/bin/time:
# JVM start-up, warm-ups included) is printed beside it.  Java cold: a
# fresh JVM, no warm-up; Java steady: WARMUPS (8) untimed writes of the
# same runs into throw-away tables first, in the same JVM.  The tables are
# checked to hold the same rows in the same buckets.
# Env: ROWS_PER_RUN, RUNS, ROUNDS (3), WARMUPS (8), BUILD (build), NO_JAVA=1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
per_run=${ROWS_PER_RUN:-2000000}
runs=${RUNS:-2}
rounds=${ROUNDS:-3}
warmups=${WARMUPS:-8}
out=$root/bench/out/pk-dynamic
py=$root/.venv/bin/python
schema='p INT NOT NULL, id BIGINT NOT NULL, k INT, name STRING, price DOUBLE, qty INT, ts TIMESTAMP(3), note STRING'
rm -rf "$out" && mkdir -p "$out/input"
java=""
if [ -z "${NO_JAVA:-}" ] && "$root/scripts/java-oracle.sh" >/dev/null 2>&1; then java=1; fi
"$build/bench/bench_pk_write" --dump "$out/input" --rows "$per_run" --runs "$runs"

rss() { # /usr/bin/time -v output → peak RSS MB
  awk -F': ' '/Maximum resident set size/{printf "%.1f", $2 / 1024}' "$1"
}
with_rss() { # metrics JSON file, /usr/bin/time -v output → the JSON with peak_rss_mb and process_cpu_s
  "$py" - "$1" "$2" <<'PY'
import json, re, sys
d = json.loads([l for l in open(sys.argv[1]).read().splitlines() if l.strip()][-1])
tv = open(sys.argv[2]).read()
f = lambda k: float(re.search(r"^\s*" + re.escape(k) + r":\s*(.+)$", tv, re.M).group(1))
d["peak_rss_mb"] = round(f("Maximum resident set size (kbytes)") / 1024.0, 1)
d["process_cpu_s"] = round(f("User time (seconds)") + f("System time (seconds)"), 2)
print(json.dumps(d))
PY
}
run_engine() { # engine → one JSON line on stdout
  case $1 in
  paimon-c)
    rm -rf "$out/c" && mkdir -p "$out/c/db.db"
    "$build/paimon" create "$out/c/db.db/t" --primary-keys id --option bucket=-1 --option file.format=parquet \
      --schema "$schema" >/dev/null
    /usr/bin/time -v -o "$out/tv" "$build/bench/bench_pk_write" "$out/c/db.db/t" --rows "$per_run" --runs "$runs" >"$out/m"
    with_rss "$out/m" "$out/tv" ;;
  pypaimon)
    rm -rf "$out/p" && mkdir -p "$out/p"
    /usr/bin/time -v -o "$out/tv" "$py" "$here/bench_pypaimon_write.py" --dir "$out/input" --warehouse "$out/p" >"$out/m"
    with_rss "$out/m" "$out/tv" ;;
  java-cold | java-steady-*)
    local w=0 d=j0
    [ "$1" = java-cold ] || { w=$warmups; d=jw; }
    rm -rf "$out/$d" && mkdir -p "$out/$d/db.db"
    /usr/bin/time -v -o "$out/tv" "$root/bench/java/run.sh" write-pk "$out/$d/db.db/t" --rows "$per_run" \
      --runs "$runs" --bucket -1 --warmup "$w" 2>/dev/null | tail -1 >"$out/m"
    rm -rf "$out/$d/db.db/t.warmup-"*
    with_rss "$out/m" "$out/tv" | "$py" -c 'import json,sys; d=json.loads(sys.stdin.read()); d["engine"]=sys.argv[1]
d["rows"] = d["rows_per_run"] * d["runs"]; print(json.dumps(d))' "$1" ;;
  esac
}
engines=(paimon-c pypaimon)
[ -n "$java" ] && engines+=(java-cold "java-steady-$warmups")
results=()
for ((i = 0; i < rounds; i++)); do
  n=${#engines[@]}
  for ((k = 0; k < n; k++)); do
    e=${engines[$(((i + k) % n))]}
    results+=("$(run_engine "$e")")
    echo "round $((i + 1)) $e: ${results[-1]}" >&2
  done
done

# the same rows in the same buckets
check() { # table
  echo "$("$build/paimon" read "$1" --format csv | sort | md5sum | cut -d' ' -f1)" \
       "$("$build/paimon" files "$1" | awk 'NR>1{n[$2]+=$5} END{for(b in n) printf "%s:%s ", b, n[b]}' | tr ' ' '\n' | sort | tr '\n' ' ')"
}
tables=("$out/c/db.db/t" "$out/p/db.db/t")
[ -n "$java" ] && tables+=("$out/j0/db.db/t")
for t in "${tables[@]}"; do check "$t"; done >"$out/check"
if [ "$(sort -u "$out/check" | wc -l)" != 1 ]; then
  cat "$out/check" >&2
  echo "MISMATCH: the engines' dynamic-bucket tables differ" >&2
  exit 1
fi
echo "tables agree (rows md5 and live rows per bucket: $(cut -d' ' -f2- "$out/check" | head -1))"
rm -rf "$out"
"$py" "$here/summarize.py" --base paimon-c --rows $((per_run * runs)) \
  --title "dynamic-bucket write of $((per_run * runs)) rows in $runs commits (bucket=-1)" "${results[@]}"
