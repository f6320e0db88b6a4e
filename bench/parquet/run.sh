#!/usr/bin/env bash
# bench/parquet/run.sh — paimon-c vs pyarrow on the same Parquet table, in one
# run: bench_parquet writes the table (and reads it back once the reader is
# built in), bench_pyarrow.py writes and reads the identical table with one
# thread, then the ratios ours/pyarrow are printed (> 1 = paimon-c faster).
# Times are process CPU seconds, best of REPEAT runs (robust on a shared
# machine).  Env: ROWS (default 10,000,000), REPEAT (3), BUILD (build).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
rows=${ROWS:-10000000}
repeat=${REPEAT:-3}
out=$root/bench/out/parquet
mkdir -p "$out"
py=$root/.venv/bin/python

echo "parquet: $rows rows, zstd level 1, single thread, best of $repeat (CPU seconds)"
ours=$("$build/bench/bench_parquet" --rows "$rows" --repeat "$repeat" --out "$out/paimon-c.parquet")
echo "  paimon-c: $ours"
theirs=$("$py" "$here/bench_pyarrow.py" --input "$out/paimon-c.parquet" --out "$out/pyarrow.parquet" \
         --repeat "$repeat")
echo "  pyarrow:  $theirs"
"$py" - "$ours" "$theirs" <<'PY'
import json, sys
o, p = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"  write: paimon-c {o['write_rows_s'] / 1e6:.2f} M rows/s ({o['write_mb_s']:.0f} MB/s), "
      f"pyarrow {p['write_rows_s'] / 1e6:.2f} M rows/s ({p['write_mb_s']:.0f} MB/s), "
      f"ratio ours/pyarrow = {p['write_cpu_s'] / o['write_cpu_s']:.2f}x; "
      f"file {o['file_mb']:.1f} MB vs {p['file_mb']:.1f} MB")
if "read_cpu_s" in o:
    print(f"  read:  paimon-c {o['read_rows_s'] / 1e6:.2f} M rows/s ({o['read_mb_s']:.0f} MB/s), "
          f"pyarrow {p['read_rows_s'] / 1e6:.2f} M rows/s ({p['read_mb_s']:.0f} MB/s), "
          f"ratio ours/pyarrow = {p['read_cpu_s'] / o['read_cpu_s']:.2f}x")
else:
    print(f"  read:  pyarrow {p['read_rows_s'] / 1e6:.2f} M rows/s ({p['read_mb_s']:.0f} MB/s); "
          "paimon-c reader not built in yet")
PY
