#!/usr/bin/env bash
# bench/table/run.sh — paimon-c against pypaimon on the same append tables,
# in the same run, through the real table paths (see bench_table.c and
# bench_pypaimon.py).  Scenarios (SCENARIOS, default "big small cli"):
#   big    ROWS rows (default 10,000,000) in one commit, then a full read;
#          paimon-c also times `paimon read` printing JSON lines;
#   small  COMMITS commits (default 1,000) of COMMIT_ROWS rows (1,000)
#          through the library, then a full read of the many-small-files
#          table;
#   cli    the same commits through `paimon write`, one process per commit,
#          into a write-only table (no automatic compaction; pypaimon has
#          none) — compared with pypaimon's in-process small commits.
# The two engines alternate for ROUNDS rounds (default 2); the median wall and
# the median CPU time of each side are kept (the machine is shared: both are
# printed, ratios use each).  Ratios are ours/pypaimon throughput (> 1 =
# paimon-c faster).  paimon-c uses THREADS threads (default: all CPUs; a big
# batch is written as THREADS files in parallel, files are read ahead in
# parallel); pypaimon runs as it comes (pyarrow may use threads).  CPU time
# is getrusage (all threads; the children for `paimon` processes).
# Env: ROWS, COMMITS, COMMIT_ROWS, ROUNDS, THREADS, SCENARIOS, BUILD (build).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
rows=${ROWS:-10000000}
commits=${COMMITS:-1000}
commit_rows=${COMMIT_ROWS:-1000}
rounds=${ROUNDS:-2}
threads=${THREADS:-$(nproc)}
scenarios=${SCENARIOS:-big small cli}
out=$root/bench/out/table
py=$root/.venv/bin/python

echo "append table (9 mixed columns), unaware bucket, Parquet zstd(1), default options; best of $rounds rounds;" \
     "paimon-c threads: $threads"
results=()
for ((i = 1; i <= rounds; i++)); do
  for s in $scenarios; do
    rm -rf "$out" && mkdir -p "$out"
    results+=("$("$build/bench/bench_table" --dir "$out" --scenario "$s" --rows "$rows" --threads "$threads" \
                 --commits "$commits" --commit-rows "$commit_rows" --paimon "$build/paimon")")
    if [ "$s" != cli ]; then
      results+=("$("$py" "$here/bench_pypaimon.py" --dir "$out" --scenario "$s" --commits "$commits" \
                   --commit-rows "$commit_rows")")
    fi
  done
done
rm -rf "$out"
"$py" - "${results[@]}" <<'PY'
import json, statistics, sys
runs = [json.loads(a) for a in sys.argv[1:]]
def best(engine, scenario):
    rs = [r for r in runs if r["engine"] == engine and r["scenario"] == scenario]
    if not rs:
        return None
    b = dict(rs[0])
    for k in [k for k in b if k.endswith("_s")]:
        b[k] = statistics.median(r[k] for r in rs)  # the median of the rounds, not the best
    return b
def line(what, rows, o, p, k):
    s = f"    {what:24} paimon-c {rows / o[k + '_s'] / 1e6:6.2f} M rows/s ({o[k + '_s']:7.2f} s wall, {o[k + '_cpu_s']:7.2f} s CPU)"
    if p:
        s += (f" | pypaimon {rows / p[k + '_s'] / 1e6:6.2f} M rows/s ({p[k + '_s']:7.2f} s wall, {p[k + '_cpu_s']:7.2f} s CPU)"
              f" | ours/pypaimon {p[k + '_s'] / o[k + '_s']:5.2f}x wall, {p[k + '_cpu_s'] / o[k + '_cpu_s']:5.2f}x CPU")
    print(s)
for s in ("big", "small", "cli"):
    o = best("paimon-c", s)
    if not o:
        continue
    p = best("pypaimon", "small" if s == "cli" else s)
    print(f"  {s}: {o['rows']} rows in {o['commits']} commit(s), {o['files']} files")
    print(f"    paimon-c: {json.dumps(o)}")
    if p:
        print(f"    pypaimon: {json.dumps(p)}")
    line("write + commit" if s != "cli" else "paimon write per commit", o["rows"], o, p, "write")
    line("read (table reader)", o["rows"], o, p if s != "cli" else None, "read")
    if "cli_read_jsonl_s" in o:
        line("paimon read (JSON lines)", o["rows"], o, None, "cli_read_jsonl")
PY
