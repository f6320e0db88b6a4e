#!/usr/bin/env bash
# bench/orc/run.sh — paimon-c vs pyarrow.orc on the same ORC data, single
# thread: ROUNDS interleaved rounds, each running bench_orc (write, read
# its file, read pyarrow's file of the previous round) and then
# bench_pyarrow.py (write, read its file, read paimon-c's file).  Reports,
# per measurement, the median and the min-max of the rounds in process
# CPU seconds, and ratios pyarrow / paimon-c of the medians (> 1 =
# paimon-c faster).  "read own" = each engine reading its own file,
# "read paimon-c file" / "read pyarrow file" = both reading the same file.
# Env: ROWS (default 5,000,000), ROUNDS (5), CODEC (zstd), BUILD (build).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
rows=${ROWS:-5000000}
rounds=${ROUNDS:-5}
codec=${CODEC:-zstd}
out=$root/bench/out/orc
mkdir -p "$out"
py=$root/.venv/bin/python
ours=$out/paimon-c.orc
theirs=$out/pyarrow.orc

echo "orc: $rows rows, $codec, one thread; $rounds interleaved rounds, medians (min-max) of CPU seconds"
results=()
for ((i = 1; i <= rounds; i++)); do
  cross=()
  [ -f "$theirs" ] && [ "$i" -gt 1 ] && cross=(--read "$theirs")
  results+=("$("$build/bench/bench_orc" --rows "$rows" --codec "$codec" --out "$ours" "${cross[@]}")")
  results+=("$("$py" "$here/bench_pyarrow.py" --input "$ours" --out "$theirs" --codec "$codec")")
done
"$py" - "${results[@]}" <<'PY'
import json, statistics, sys
runs = [json.loads(a) for a in sys.argv[1:]]
ours = [r for r in runs if r["engine"] == "paimon-c"]
theirs = [r for r in runs if r["engine"].startswith("pyarrow")]
def stat(rs, k):
    v = [r[k] for r in rs if k in r]
    return statistics.median(v), min(v), max(v), len(v)
rows = ours[0]["rows"]
print(f"  files: paimon-c {ours[0]['file_mb']} MB, {theirs[0]['engine']} {theirs[0]['file_mb']} MB")
lines = [("write", "write_cpu_s", "write_cpu_s"),
         ("read own file", "read_cpu_s", "read_cpu_s"),
         ("read paimon-c file", "read_cpu_s", "cross_read_cpu_s"),
         ("read pyarrow file", "cross_read_cpu_s", "read_cpu_s")]
for name, ko, kp in lines:
    mo, lo_o, hi_o, no = stat(ours, ko)
    mp, lo_p, hi_p, np_ = stat(theirs, kp)
    print(f"  {name:19s} paimon-c {mo:.3f} s ({lo_o:.3f}-{hi_o:.3f}, n={no}, {rows / mo / 1e6:.2f} M rows/s)   "
          f"pyarrow {mp:.3f} s ({lo_p:.3f}-{hi_p:.3f}, n={np_}, {rows / mp / 1e6:.2f} M rows/s)   "
          f"pyarrow/paimon-c = {mp / mo:.2f}x")
PY
