#!/usr/bin/env bash
# bench/pk/run.sh — merge-on-read throughput on a primary-key table with 5
# overlapping sorted runs (2,000,000 records in one bucket, each run 400,000
# keys overlapping the previous run by half: 1,200,000 live keys), paimon-c
# vs pypaimon vs Apache Paimon Java in the same run.
#
# The table is written by Apache Paimon Java (bench/java `write-pk`: 8
# columns, Parquet zstd(1), one L0 file per run) when its harness builds,
# else by `paimon write` from generated rows of the same shape.  Then, for
# ROUNDS rounds, alternating: bench_pk_read (paimon-c, a fresh process per
# round, 4096-row batches, every value touched), bench_pypaimon_read.py
# (pypaimon to_arrow), bench/java/run-mor-read.sh cold (a fresh JVM) and
# with --warmup WARMUPS (8: steady state; every field touched).  Printed:
# per engine the median and min-max over the rounds (summarize.py); CPU
# seconds from the OS (getrusage, process_time, the JVM's process CPU of
# the measured run); ratios are the peer's CPU (wall) per row over ours.
# QUICK=1: 40,000 records per run, 2 rounds (checks the table is produced).
# BENCH_JSON=FILE: the CPU seconds also go there as a bench/summary.py line.
# Env: ROWS_PER_RUN (400000), RUNS (5), ROUNDS (3), WARMUPS (8), BUILD (build), NO_JAVA=1, QUICK.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
if [ "${QUICK:-0}" = 1 ]; then
  per_run=${ROWS_PER_RUN:-40000} rounds=${ROUNDS:-2}
else
  per_run=${ROWS_PER_RUN:-400000} rounds=${ROUNDS:-3}
fi
runs=${RUNS:-5}
warmups=${WARMUPS:-8}
out=$root/bench/out/pk
py=$root/.venv/bin/python
rm -rf "$out" && mkdir -p "$out/wh/db.db"
table=$out/wh/db.db/t

java=""
if [ -z "${NO_JAVA:-}" ] && [ -x "$root/scripts/java-oracle.sh" ] && "$root/scripts/java-oracle.sh" >/dev/null 2>&1 \
   && [ -x "$root/bench/java/run-mor-read.sh" ]; then
  java=1
  echo "generating the table with Apache Paimon Java (write-pk --rows $per_run --runs $runs --overlap 0.5)"
  "$root/bench/java/run.sh" write-pk "$table" --rows "$per_run" --runs "$runs" --overlap 0.5 >"$out/gen.json"
else
  echo "Java harness unavailable: generating the table with paimon write"
  "$build/paimon" create "$table" --primary-keys id --option bucket=1 \
    --schema 'p INT, id BIGINT, k INT, name STRING, price DOUBLE, qty INT, ts TIMESTAMP(3), note STRING' >/dev/null
  for ((r = 0; r < runs; r++)); do
    "$py" - "$per_run" "$r" <<'PY' | "$build/paimon" write "$table" >/dev/null
import json, sys
n, r = int(sys.argv[1]), int(sys.argv[2])
base = r * n // 2
m = 1000003 if n % 1000003 else 1000033
for i in range(n):
    key = base + (i * m) % n
    h = (key * 0x9E3779B97F4A7C15 + r * 0xBF58476D1CE4E5B9) & (2**64 - 1)
    print(json.dumps({"p": 0, "id": key, "k": h % 100000, "name": "user-%d" % (h % 1000000),
                      "price": (h >> 20) % 1000000 / 100.0, "qty": (h >> 40) & 1023,
                      "ts": "2024-01-01T00:00:00", "note": "%016x" % h}))
PY
  done
fi
"$build/paimon" levels "$table" | head -8

results=()
for ((i = 1; i <= rounds; i++)); do
  results+=("$("$build/bench/bench_pk_read" "$table")")
  results+=("$("$py" "$here/bench_pypaimon_read.py" "$table")")
  if [ -n "$java" ]; then
    for w in 0 "$warmups"; do
      cp -r "$out/wh" "$out/wh-java"
      results+=("$("$root/bench/java/run-mor-read.sh" "$out/wh-java/db.db/t" --warmup "$w" 2>/dev/null | tail -1 |
                  "$py" -c 'import json,sys; d=json.loads(sys.stdin.read())
d["engine"] = "java-cold" if sys.argv[1] == "0" else "java-steady-" + sys.argv[1]; print(json.dumps(d))' "$w")")
      rm -rf "$out/wh-java"
    done
  fi
done
rm -rf "$out"
emit=()
[ -n "${BENCH_JSON:-}" ] && emit=(--emit "$BENCH_JSON")
"$py" "$here/summarize.py" --base paimon-c --title "merge-on-read of $((per_run * runs)) records ($runs runs)" \
  "${emit[@]}" "${results[@]}"
