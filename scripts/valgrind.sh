#!/usr/bin/env bash
# scripts/valgrind.sh BUILD_DIR — run every unit test of a non-sanitized
# build under valgrind memcheck (leaks are errors).  Tests that fork or
# stress threads run too; PM_VALGRIND=1 lets a test shrink its sizes.
set -uo pipefail
build=${1:-build}
status=0; count=0
for t in "$build"/tests/*/test_*; do
  [ -x "$t" ] || continue
  name=$(basename "$t")
  log=$(mktemp)
  if (cd "$(dirname "$t")" && PM_VALGRIND=1 timeout 900 valgrind -q --leak-check=full \
        --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
        --error-exitcode=99 --child-silent-after-fork=yes "./$name" >"$log" 2>&1); then
    echo "valgrind: $name ok"
  else
    echo "valgrind: $name FAILED"; tail -40 "$log"; status=1
  fi
  rm -f "$log"; count=$((count+1))
done
echo "valgrind: $count test programs, $([ $status = 0 ] && echo no errors || echo ERRORS)"
exit $status
