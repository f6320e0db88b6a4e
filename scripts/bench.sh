#!/usr/bin/env bash
# scripts/bench.sh — run the benchmark suites, then print ONE table of
# paimon-c against its peers (bench/summary.py; bench/README.md explains
# it).  Suites: each bench/<name>/run.sh in name order (bench/java is the
# Java harness, not a suite); each suite prints its own detail, and those
# that compare with a peer (compact, pk, parquet) append their results to
# $BENCH_JSON as JSON lines, from which the table is made at the end.
#   scripts/bench.sh [NAME...]   only the named suites
# QUICK=1 (`make bench QUICK=1`): small sizes, 2 rounds, only the suites of
# the table: a few minutes, to check that the table is produced.
# The release build (build/) must exist; `make bench` builds it first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=$root/.venv/bin/python
[ -x "$py" ] || py=python3
status=0
suites=("$@")
if [ ${#suites[@]} -eq 0 ] && [ "${QUICK:-0}" = 1 ]; then
  suites=(compact parquet pk)
elif [ ${#suites[@]} -eq 0 ]; then
  for d in "$root"/bench/*/; do
    n=$(basename "$d")
    [ "$n" != java ] && [ -x "$d/run.sh" ] && suites+=("$n")
  done
fi
mkdir -p "$root/bench/out"
export BENCH_JSON=${BENCH_JSON:-$root/bench/out/results-$(date -u +%Y%m%dT%H%M%S).jsonl}
: >"$BENCH_JSON"
export QUICK=${QUICK:-0}
for s in "${suites[@]}"; do
  echo "== bench: $s"
  if ! "$root/bench/$s/run.sh"; then
    echo "bench: $s FAILED"
    status=1
  fi
done
echo
echo "== bench: summary (results in $BENCH_JSON)"
"$py" "$root/bench/summary.py" "$BENCH_JSON" || status=1
exit $status
