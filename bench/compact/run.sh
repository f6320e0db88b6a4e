#!/usr/bin/env bash
# bench/compact/run.sh — append compaction against Apache Paimon Java 1.4.2,
# compared fairly (bench/compact/fair.py; bench/README.md explains the
# table): inputs written by Java, interleaved rounds, medians with min-max,
# CPU seconds from the OS, Java cold and at steady state (JAVA_WARMUP >= 8
# warm-up compactions in the same JVM) labelled apart, the zstd-1 ceiling.
# Two cases: FILES files of ROWS rows in all (default 1,000 files, 2 M
# rows) and, with MANY=1, 100,000 one-row files (long: Java needs minutes).
# Env: FILES (1000), ROWS (2000000), ROUNDS (3), JAVA_WARMUP (8), BUILD (build), MANY (0).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
py=$root/.venv/bin/python
[ -x "$py" ] || py=python3
out=$root/bench/out/compact
"$py" "$here/fair.py" --files "${FILES:-1000}" --rows "${ROWS:-2000000}" --rounds "${ROUNDS:-3}" \
    --warmup "${JAVA_WARMUP:-8}" --work "$out/a"
if [ "${MANY:-0}" = 1 ]; then
  "$py" "$here/fair.py" --files 100000 --rows 100000 --rounds 1 --warmup "${JAVA_WARMUP:-8}" --no-java-cold \
      --work "$out/many"
fi
rm -rf "$out"
