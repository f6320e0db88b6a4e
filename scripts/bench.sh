#!/usr/bin/env bash
# scripts/bench.sh — run every benchmark suite: each bench/<name>/run.sh,
# in name order (add a suite by adding a directory with a run.sh).  The
# release build (build/) must exist; `make bench` builds it first.
#   scripts/bench.sh [NAME...]   only the named suites
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
status=0
suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
  for d in "$root"/bench/*/; do
    [ -x "$d/run.sh" ] && suites+=("$(basename "$d")")
  done
fi
for s in "${suites[@]}"; do
  echo "== bench: $s"
  if ! "$root/bench/$s/run.sh"; then
    echo "bench: $s FAILED"
    status=1
  fi
done
exit $status
