#!/usr/bin/env bash
# scripts/fuzz.sh DIR SECONDS — run every libFuzzer target in DIR for SECONDS
# each, seeded from tests/fuzz/corpus/<target>/ when present. Fails on a crash.
set -euo pipefail
dir=$1; secs=$2
here=$(cd "$(dirname "$0")/.." && pwd)
shopt -s nullglob
status=0; count=0
for t in "$dir"/fuzz_*; do
  [ -x "$t" ] || continue
  name=$(basename "$t")
  work=$(mktemp -d)
  seeds=()
  [ -d "$here/tests/fuzz/corpus/$name" ] && seeds+=("$here/tests/fuzz/corpus/$name")
  if ! "$t" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$work/" \
        "$work" "${seeds[@]}" >"$work/log" 2>&1; then
    echo "fuzz: $name FAILED"; tail -40 "$work/log"; status=1
  else
    runs=$(grep -o 'Done [0-9]* runs' "$work/log" | tail -1 || true)
    echo "fuzz: $name ok (${runs:-done})"
  fi
  count=$((count+1))
  rm -rf "$work"
done
echo "fuzz: $count targets, $([ $status = 0 ] && echo all passed || echo FAILURES)"
exit $status
