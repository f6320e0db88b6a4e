#!/usr/bin/env bash
# bench/compact/run.sh — compaction against Apache Paimon Java 1.4.2,
# compared fairly (bench/compact/fair.py; bench/README.md explains the
# table): inputs written by Java, interleaved rounds, medians with min-max,
# CPU seconds from the OS, Java cold and at steady state (JAVA_WARMUP >= 8
# warm-up compactions in the same JVM) labelled apart, the zstd-1 ceiling.
# Cases (the rows of the `make bench` table):
#   append compaction, FILES files of ROWS rows in all (1,000 files, 2 M rows)
#   primary-key full compaction, 2 M records in 5 runs and 10 M in 10 runs
#   MANY=1: 100,000 one-row files, one round, Java cold only (Java needs
#   minutes per compaction of it: steady state would take hours)
# QUICK=1: small sizes (100 files / 200,000 rows, PK 200,000 / 5 runs and
# 400,000 / 10 runs, 10,000 one-row files always), 2 rounds: checks that the
# table is produced in a few minutes; its figures are not the issue's.
# BENCH_JSON=FILE: each case appends its bench/summary.py line there.
# Env: FILES, ROWS, ROUNDS (3), JAVA_WARMUP (8), BUILD (build), MANY (0), QUICK (0), PK (1).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
py=$root/.venv/bin/python
[ -x "$py" ] || py=python3
out=$root/bench/out/compact
if [ "${QUICK:-0}" = 1 ]; then
  files=${FILES:-100} rows=${ROWS:-200000} rounds=${ROUNDS:-2}
  pk_cases="5:200000 10:400000" many_files=10000 many=1
else
  files=${FILES:-1000} rows=${ROWS:-2000000} rounds=${ROUNDS:-3}
  pk_cases="5:2000000 10:10000000" many_files=100000 many=${MANY:-0}
fi
warmup=${JAVA_WARMUP:-8}
summary=()
[ -n "${BENCH_JSON:-}" ] && summary=(--summary "$BENCH_JSON")
status=0
"$py" "$here/fair.py" --files "$files" --rows "$rows" --rounds "$rounds" --warmup "$warmup" \
    --work "$out/a" "${summary[@]}" || status=1
rm -rf "$out/a"
if [ "${PK:-1}" = 1 ]; then
  for c in $pk_cases; do
    "$py" "$here/fair.py" --pk --runs "${c%%:*}" --rows "${c##*:}" --rounds "$rounds" --warmup "$warmup" \
        --work "$out/pk" "${summary[@]}" || status=1
    rm -rf "$out/pk"
  done
fi
if [ "$many" = 1 ]; then
  "$py" "$here/fair.py" --files "$many_files" --rows "$many_files" --rounds 1 --warmup "$warmup" \
      --no-java-steady --work "$out/many" "${summary[@]}" || status=1
fi
rm -rf "$out"
exit $status
