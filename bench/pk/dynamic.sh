#!/usr/bin/env bash
# bench/pk/dynamic.sh — dynamic-bucket (bucket = -1) primary-key write
# throughput, paimon-c vs Apache Paimon Java 1.4.2 vs pypaimon in the same run.
#
# Rows: bench/java TableGen write-pk (8 columns, primary key id), RUNS (2)
# runs of ROWS_PER_RUN (2,000,000) rows, one commit each, consecutive runs
# sharing half their keys (3,000,000 keys: with the default
# dynamic-bucket.target-row-num of 2,000,000, two buckets; the second run
# loads the HASH index the first committed).  Parquet zstd(1).
#   paimon-c   bench_pk_write: rows generated in the process (as TableGen),
#              pm_table_writer + commit per run (one thread)
#   Java cold  bench/java write-pk --bucket -1 (Java's HashBucketAssigner, one
#              assigner; rows generated in the process), a fresh JVM
#   Java warm  the same with --warmup 1 (the runs written into a throw-away
#              table first in the same JVM)
#   pypaimon   bench_pypaimon_write.py: write_arrow + commit per run of the
#              same rows loaded from Parquet beforehand (not timed)
# Best round per engine; rows/s = rows / wall; per core = rows / CPU seconds
# (process CPU of the timed part; Java: the measured run).  The three tables
# are checked to hold the same rows in the same buckets.
# Env: ROWS_PER_RUN, RUNS, ROUNDS (2), BUILD (build), NO_JAVA=1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
per_run=${ROWS_PER_RUN:-2000000}
runs=${RUNS:-2}
rounds=${ROUNDS:-2}
out=$root/bench/out/pk-dynamic
py=$root/.venv/bin/python
schema='p INT NOT NULL, id BIGINT NOT NULL, k INT, name STRING, price DOUBLE, qty INT, ts TIMESTAMP(3), note STRING'
rm -rf "$out" && mkdir -p "$out/input"
java=""
if [ -z "${NO_JAVA:-}" ] && "$root/scripts/java-oracle.sh" >/dev/null 2>&1; then java=1; fi
"$build/bench/bench_pk_write" --dump "$out/input" --rows "$per_run" --runs "$runs"

rss() { # /usr/bin/time -v output → peak RSS MB
  awk -F': ' '/Maximum resident set size/{printf "%.1f", $2 / 1024}' "$1"
}
results=()
for ((i = 1; i <= rounds; i++)); do
  rm -rf "$out/c" && mkdir -p "$out/c/db.db"
  "$build/paimon" create "$out/c/db.db/t" --primary-keys id --option bucket=-1 --option file.format=parquet \
    --schema "$schema" >/dev/null
  /usr/bin/time -v -o "$out/tv" "$build/bench/bench_pk_write" "$out/c/db.db/t" --rows "$per_run" --runs "$runs" >"$out/m"
  results+=("$("$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["peak_rss_mb"]=float(sys.argv[2]); print(json.dumps(d))' \
               "$out/m" "$(rss "$out/tv")")")
  rm -rf "$out/p" && mkdir -p "$out/p"
  /usr/bin/time -v -o "$out/tv" "$py" "$here/bench_pypaimon_write.py" --dir "$out/input" --warehouse "$out/p" >"$out/m"
  results+=("$("$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["peak_rss_mb"]=float(sys.argv[2]); print(json.dumps(d))' \
               "$out/m" "$(rss "$out/tv")")")
  if [ -n "$java" ]; then
    for w in 0 1; do
      rm -rf "$out/j$w" && mkdir -p "$out/j$w/db.db"
      /usr/bin/time -v -o "$out/tv" "$root/bench/java/run.sh" write-pk "$out/j$w/db.db/t" --rows "$per_run" \
        --runs "$runs" --bucket -1 --warmup "$w" 2>/dev/null | tail -1 >"$out/m"
      results+=("$("$py" -c '
import json, statistics, sys
d = json.load(open(sys.argv[1]))
d["engine"] = "java-warm" if sys.argv[3] == "1" else "java-cold"
d["rows"] = d["rows_per_run"] * d["runs"]
d["peak_rss_mb"] = float(sys.argv[2])
print(json.dumps(d))' "$out/m" "$(rss "$out/tv")" "$w")")
    done
  fi
done

# the same rows in the same buckets
check() { # table
  echo "$("$build/paimon" read "$1" --format csv | sort | md5sum | cut -d' ' -f1)" \
       "$("$build/paimon" files "$1" | awk 'NR>1{n[$2]+=$5} END{for(b in n) printf "%s:%s ", b, n[b]}' | tr ' ' '\n' | sort | tr '\n' ' ')"
}
tables=("$out/c/db.db/t" "$out/p/db.db/t")
[ -n "$java" ] && tables+=("$out/j0/db.db/t")
for t in "${tables[@]}"; do check "$t"; done >"$out/check"
if [ "$(sort -u "$out/check" | wc -l)" != 1 ]; then
  cat "$out/check" >&2
  echo "MISMATCH: the engines' dynamic-bucket tables differ" >&2
  exit 1
fi
echo "tables agree (rows md5 and live rows per bucket: $(cut -d' ' -f2- "$out/check" | head -1))"
rm -rf "$out"
"$py" - "${results[@]}" <<'PY'
import json, statistics, sys
runs = [json.loads(a) for a in sys.argv[1:]]
def best(engine):
    rs = [r for r in runs if r["engine"] == engine]
    if not rs:
        return None
    b = dict(sorted(rs, key=lambda r: r["wall_ms"])[(len(rs) - 1) // 2])  # the median round, not the best
    b["cpu_ms"] = statistics.median(r["cpu_ms"] for r in rs)
    b["cpu_ms_range"] = [min(r["cpu_ms"] for r in rs), max(r["cpu_ms"] for r in rs)]
    return b
o = best("paimon-c")
print(f"dynamic-bucket write of {o['rows']} rows in {o['runs']} commits")
def line(name, r):
    print(f"  {name:10}: {r['rows'] / r['wall_ms'] * 1e3 / 1e6:5.2f} M rows/s  "
          f"{r['rows'] / r['cpu_ms'] * 1e3 / 1e6:5.2f} M rows/s per core  wall {r['wall_ms'] / 1e3:6.2f} s  "
          f"CPU {r['cpu_ms'] / 1e3:6.2f} s  peak RSS {r['peak_rss_mb']:7.1f} MB")
line("paimon-c", o)
for peer in ("pypaimon", "java-cold", "java-warm"):
    j = best(peer)
    if not j:
        continue
    line(peer, j)
    print(f"    ratio vs {peer}: wall {j['wall_ms'] / o['wall_ms']:.2f}x, per core {j['cpu_ms'] / o['cpu_ms']:.2f}x, "
          f"peak RSS {o['peak_rss_mb'] / j['peak_rss_mb']:.2f} of {peer}'s")
PY
