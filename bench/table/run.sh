#!/usr/bin/env bash
# bench/table/run.sh — write and read a 10-million-row append table with
# paimon-c and with pypaimon in the same run.  bench_table generates the rows
# (mixed types, see bench_table.c), writes them into a paimon-c table
# (writer + commit, timed), reads the table back (scan + Parquet reader,
# timed) and saves the same rows as input.parquet; bench_pypaimon.py loads
# that file and times pypaimon's write_arrow + commit and to_arrow on a
# table with the same schema and defaults.  The two alternate for ROUNDS
# rounds; the best run of each side is kept (the machine is shared, so
# wall times are noisy: both wall and CPU seconds are printed, and the
# ratios use each).  Ratios are ours/pypaimon throughput (> 1 = faster).
# paimon-c runs with THREADS encoding/reading threads (default: all CPUs;
# the rows are then written as THREADS files in parallel, like parallel
# Java writers); pypaimon is used as it comes (pyarrow may use threads).
# Env: ROWS (default 10,000,000), ROUNDS (default 2), THREADS, BUILD (build).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
rows=${ROWS:-10000000}
rounds=${ROUNDS:-2}
threads=${THREADS:-$(nproc)}
out=$root/bench/out/table
py=$root/.venv/bin/python

echo "table: $rows rows (9 mixed columns), unaware-bucket append table, Parquet zstd(1), default options;" \
     "best of $rounds rounds; paimon-c threads: $threads"
results=()
for ((i = 1; i <= rounds; i++)); do
  rm -rf "$out" && mkdir -p "$out"
  results+=("$("$build/bench/bench_table" --dir "$out" --rows "$rows" --threads "$threads")")
  results+=("$("$py" "$here/bench_pypaimon.py" --dir "$out")")
done
rm -rf "$out"
"$py" - "${results[@]}" <<'PY'
import json, sys
runs = [json.loads(a) for a in sys.argv[1:]]
def best(engine):
    rs = [r for r in runs if r["engine"] == engine]
    b = dict(rs[0])
    for k in ("write", "read"):
        for f in ("s", "cpu_s"):
            b[f"{k}_{f}"] = min(r[f"{k}_{f}"] for r in rs)
        b[f"{k}_rows_s"] = b["rows"] / b[f"{k}_s"]
    return b
o, p = best("paimon-c"), best("pypaimon")
print(f"  paimon-c: {json.dumps(o)}")
print(f"  pypaimon: {json.dumps(p)}")
for k in ("write", "read"):
    print(f"  {k:5}: paimon-c {o[f'{k}_rows_s'] / 1e6:.2f} M rows/s ({o[f'{k}_s']:.2f} s wall, "
          f"{o[f'{k}_cpu_s']:.2f} s CPU), pypaimon {p[f'{k}_rows_s'] / 1e6:.2f} M rows/s "
          f"({p[f'{k}_s']:.2f} s wall, {p[f'{k}_cpu_s']:.2f} s CPU): ours/pypaimon = "
          f"{p[f'{k}_s'] / o[f'{k}_s']:.2f}x wall, {p[f'{k}_cpu_s'] / o[f'{k}_cpu_s']:.2f}x CPU")
PY
