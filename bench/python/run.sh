#!/usr/bin/env bash
# bench/python/run.sh — the Python package paimon_c against the CLI, Ray
# with 1 and 2 workers against one process, and paimon_c's to_arrow against
# pypaimon's (bench_python.py says what is measured).  Needs the package in
# the venv (make python-install) and the release CLI (make build).
# Env: as bench_python.py (FILES, ROWS, PARTS, ROUNDS), PM_VENV (.venv).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
py=${PM_VENV:-$root/.venv}/bin/python
if ! "$py" -c "import paimon_c" 2>/dev/null; then
  echo "bench/python: paimon_c is not installed in ${PM_VENV:-$root/.venv}: run make python-install" >&2
  exit 1
fi
exec "$py" "$here/bench_python.py"
