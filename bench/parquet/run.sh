#!/usr/bin/env bash
# bench/parquet/run.sh — paimon-c vs pyarrow on the same Parquet table, in one
# run: bench_parquet generates the table, writes it and reads it back with
# the paimon-c reader; bench_pyarrow.py writes and reads the identical table
# (it loads the file paimon-c wrote) on one thread.  The two alternate for
# ROUNDS rounds of REPEAT runs each; the median (CPU time, with min-max) of every
# measurement is kept, which keeps the ratio stable on a busy machine.
# Ratios are ours/pyarrow throughput (> 1 = paimon-c faster).
# QUICK=1: 1,000,000 rows, one repeat (checks the table is produced).
# BENCH_JSON=FILE: the write and read CPU seconds of every round also go
# there as two bench/summary.py lines.
# Env: ROWS (default 10,000,000), REPEAT (2), ROUNDS (2), BUILD (build), QUICK.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
if [ "${QUICK:-0}" = 1 ]; then
  rows=${ROWS:-1000000} repeat=${REPEAT:-1}
else
  rows=${ROWS:-10000000} repeat=${REPEAT:-2}
fi
rounds=${ROUNDS:-2}
out=$root/bench/out/parquet
mkdir -p "$out"
py=$root/.venv/bin/python

echo "parquet: $rows rows, zstd level 1, one thread; median [min-max] of $rounds interleaved rounds (CPU seconds)"
results=()
for ((i = 1; i <= rounds; i++)); do
  results+=("$("$build/bench/bench_parquet" --rows "$rows" --repeat "$repeat" --out "$out/paimon-c.parquet")")
  results+=("$("$py" "$here/bench_pyarrow.py" --input "$out/paimon-c.parquet" --out "$out/pyarrow.parquet" \
               --repeat "$repeat")")
done
BENCH_ROOT=$root/bench BENCH_ROWS=$rows "$py" - "${results[@]}" <<'PY'
import json, os, sys
runs = [json.loads(a) for a in sys.argv[1:]]
if os.environ.get("BENCH_JSON"):
    sys.path.insert(0, os.environ["BENCH_ROOT"])
    import summary
    for k in ("write", "read"):
        sides = {e: [r[f"{k}_cpu_s"] for r in runs if r["engine"].startswith(e)] for e in ("paimon-c", "pyarrow")}
        summary.append(os.environ["BENCH_JSON"], summary.record(
            f"Parquet {k}, {int(os.environ['BENCH_ROWS']):,} rows, zstd-1, one thread", "parquet", sides))
def best(engine):
    # the median run by CPU seconds (never the best), with the range of all rounds
    rs = [r for r in runs if r["engine"].startswith(engine)]
    b = dict(rs[0])
    for k in ("write", "read"):
        srt = sorted(rs, key=lambda r: r[f"{k}_cpu_s"])
        r = srt[(len(srt) - 1) // 2]
        for f in ("cpu_s", "s", "mb_s", "rows_s"):
            b[f"{k}_{f}"] = r[f"{k}_{f}"]
        b[f"{k}_cpu_s_range"] = [srt[0][f"{k}_cpu_s"], srt[-1][f"{k}_cpu_s"]]
    return b
o, p = best("paimon-c"), best("pyarrow")
for k in ("write", "read"):
    print(f"  {k} CPU-s, median [min-max] of {len(runs) // 2} interleaved rounds: "
          f"paimon-c {o[k + '_cpu_s']:.3f} [{o[k + '_cpu_s_range'][0]:.3f}-{o[k + '_cpu_s_range'][1]:.3f}], "
          f"pyarrow {p[k + '_cpu_s']:.3f} [{p[k + '_cpu_s_range'][0]:.3f}-{p[k + '_cpu_s_range'][1]:.3f}]")
print(f"  paimon-c: {json.dumps(o)}")
print(f"  pyarrow:  {json.dumps(p)}")
print(f"  write: paimon-c {o['write_rows_s'] / 1e6:.2f} M rows/s ({o['write_mb_s']:.0f} MB/s), "
      f"pyarrow {p['write_rows_s'] / 1e6:.2f} M rows/s ({p['write_mb_s']:.0f} MB/s): "
      f"ours/pyarrow = {p['write_cpu_s'] / o['write_cpu_s']:.2f}x  (files {o['file_mb']:.1f} MB vs {p['file_mb']:.1f} MB)")
print(f"  read:  paimon-c {o['read_rows_s'] / 1e6:.2f} M rows/s ({o['read_mb_s']:.0f} MB/s), "
      f"pyarrow {p['read_rows_s'] / 1e6:.2f} M rows/s ({p['read_mb_s']:.0f} MB/s): "
      f"ours/pyarrow = {p['read_cpu_s'] / o['read_cpu_s']:.2f}x  (both reading the paimon-c file)")
PY
