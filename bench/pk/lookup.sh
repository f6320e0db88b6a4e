#!/usr/bin/env bash
# bench/pk/lookup.sh — lookup compaction (changelog-producer=lookup) of a
# primary-key table at steady state, paimon-c vs Apache Paimon Java 1.4.2
# in the same run, per merge engine (deduplicate, partial-update).
#
# Table per merge engine (bucket 1, bench/java TableGen rows: 8 columns,
# Parquet zstd(1)): BASE_ROWS (4,000,000) keys written by Java and fully
# compacted to the top level, then DELTA_RUNS (2) runs of DELTA_ROWS
# (1,000,000) updates (consecutive runs share half their keys, all keys
# already in the base) appended as level-0 files by Java.  Compacting that
# is the steady-state lookup compaction: the level-0 records are merged and
# every key is looked up in the top level (its old row), giving the
# changelog (UPDATE_BEFORE/UPDATE_AFTER) and the merged level-4 file.
#
# Per round, on fresh copies of the same table:
#   paimon-c         `paimon compact TABLE` (the ordinary plan: level 0 forced
#                    up with lookups of the retained levels, streamed)
#   paimon-c cache   the same with local-cache.enabled=true (cold: Lookup
#                    Files of the retained level built during the run)
#   Java cold        bench/java/run-pk-compact.sh TABLE --full false
#   Java warm        the same with --warmup 1 (a throw-away copy compacted
#                    first in the same JVM; Java builds its lookup files per
#                    writer, so the measured run builds them again)
# Median round per engine (CPU: median, cpu_ms_range: min-max of the rounds).  rows/s = compacted input records / wall; per core =
# records / CPU seconds (user + system of the process for paimon-c; of the
# measured run for Java).  Both engines' results are checked: same rows,
# same changelog, same levels.
# Env: BASE_ROWS, DELTA_ROWS, DELTA_RUNS, ENGINES ("deduplicate partial-update"),
#      ROUNDS (2), BUILD (build).  Needs the Java harness (scripts/java-oracle.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
base_rows=${BASE_ROWS:-4000000}
delta_rows=${DELTA_ROWS:-1000000}
delta_runs=${DELTA_RUNS:-2}
engines=${ENGINES:-deduplicate partial-update}
rounds=${ROUNDS:-2}
out=$root/bench/out/pk-lookup
py=$root/.venv/bin/python
[ -x "$py" ] || py=python3
"$root/scripts/java-oracle.sh" >/dev/null || { echo "lookup.sh: the Java harness does not build" >&2; exit 2; }

measure_c() { # table → JSON line
  local tv m
  tv=$(mktemp)
  m=$(/usr/bin/time -v -o "$tv" "$build/paimon" compact "$1" --json)
  "$py" - "$m" "$tv" "$2" <<'PY'
import json, re, sys
m = json.loads(sys.argv[1]); tv = open(sys.argv[2]).read()
f = lambda k: re.search(r"^\s*" + re.escape(k) + r":\s*(.+)$", tv, re.M).group(1)
wall = 0.0
for part in f("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"):
    wall = wall * 60 + float(part)
print(json.dumps({"engine": sys.argv[3], "rows": m["rows_read"], "output_rows": m["rows_written"],
                  "changelog_rows": m["changelog_rows_written"],
                  "wall_ms": wall * 1000, "cpu_ms": (float(f("User time (seconds)")) + float(f("System time (seconds)"))) * 1000,
                  "peak_rss_mb": int(f("Maximum resident set size (kbytes)")) / 1024.0}))
PY
  rm -f "$tv"
}

measure_java() { # table name [--warmup 1]
  local t=$1 name=$2
  shift 2
  "$root/bench/java/run-pk-compact.sh" "$t" --full false "$@" 2>/dev/null | tail -1 |
    "$py" -c 'import json,sys; d=json.loads(sys.stdin.read()); d["engine"]=sys.argv[1]; print(json.dumps(d))' "$name"
}

enable_cache() { # table → table options gain local-cache.enabled=true (the latest schema file)
  "$py" - "$1" <<'PY'
import glob, json, os, sys
f = max(glob.glob(os.path.join(sys.argv[1], "schema", "schema-*")), key=lambda p: int(p.rsplit("-", 1)[1]))
s = json.load(open(f))
s.setdefault("options", {})["local-cache.enabled"] = "true"
json.dump(s, open(f, "w"))
PY
}

summaries=()
for engine in $engines; do
  rm -rf "$out" && mkdir -p "$out/src/db.db"
  table=$out/src/db.db/t
  echo "== $engine: base $base_rows keys (Java write, paimon-c full compaction), $delta_runs x $delta_rows updates (Java)"
  "$root/bench/java/run.sh" write-pk "$table" --rows "$base_rows" --runs 1 \
    --option changelog-producer=lookup --option merge-engine="$engine" >/dev/null
  "$build/paimon" compact "$table" --full >/dev/null
  "$root/bench/java/run.sh" write-pk "$table" --append true --rows "$delta_rows" --runs "$delta_runs" \
    --overlap 0.5 --seed 2 >/dev/null
  "$build/paimon" levels "$table" | head -5
  snap=$("$build/paimon" snapshots "$table" | awk 'NR>1{s=$1} END{print s}')
  results=()
  for ((i = 1; i <= rounds; i++)); do
    rm -rf "$out/c" && cp -r "$out/src" "$out/c"
    results+=("$(measure_c "$out/c/db.db/t" paimon-c)")
    rm -rf "$out/k" && cp -r "$out/src" "$out/k" && enable_cache "$out/k/db.db/t"
    results+=("$(measure_c "$out/k/db.db/t" paimon-c-cache)")
    rm -rf "$out/j" && cp -r "$out/src" "$out/j"
    results+=("$(measure_java "$out/j/db.db/t" java-cold)")
    rm -rf "$out/w" && cp -r "$out/src" "$out/w"
    results+=("$(measure_java "$out/w/db.db/t" java-warm --warmup 1)")
  done
  # same rows, same changelog, same levels
  for d in c k j; do
    t=$out/$d/db.db/t
    echo "$d $("$build/paimon" read "$t" --format csv | md5sum | cut -d' ' -f1)" \
         "$("$build/paimon" read "$t" --incremental-between "$snap,$((snap + 1))" --mode changelog --format csv |
            sort | md5sum | cut -d' ' -f1)" \
         "$("$build/paimon" files "$t" | awk 'NR>1{print $4}' | sort | tr '\n' ' ')"
  done >"$out/check"
  if [ "$(cut -d' ' -f2- "$out/check" | sort -u | wc -l)" != 1 ]; then
    cat "$out/check" >&2
    echo "MISMATCH: paimon-c and Java lookup compactions differ ($engine)" >&2
    exit 1
  fi
  echo "results agree (rows, changelog, levels $(awk 'NR==1{for(i=4;i<=NF;i++) printf "%s ", $i}' "$out/check"))"
  summaries+=("$("$py" - "$engine" "${results[@]}" <<'PY'
import json, statistics, sys
engine, runs = sys.argv[1], [json.loads(a) for a in sys.argv[2:]]
def best(name):
    rs = [r for r in runs if r["engine"] == name]
    b = dict(sorted(rs, key=lambda r: r["wall_ms"])[(len(rs) - 1) // 2])  # the median round, not the best
    b["cpu_ms"] = statistics.median(r["cpu_ms"] for r in rs)
    b["cpu_ms_range"] = [min(r["cpu_ms"] for r in rs), max(r["cpu_ms"] for r in rs)]
    return b
print(json.dumps({"merge_engine": engine, **{n: best(n) for n in ("paimon-c", "paimon-c-cache", "java-cold", "java-warm")}}))
PY
)")
done
rm -rf "$out"
"$py" - "${summaries[@]}" <<'PY'
import json, statistics, sys
for s in map(json.loads, sys.argv[1:]):
    o = s["paimon-c"]
    print(f"{s['merge_engine']}: lookup compaction of {o['rows']} level-0 records -> {o['output_rows']} rows, "
          f"{o.get('changelog_rows', '?')} changelog rows")
    for name in ("paimon-c", "paimon-c-cache", "java-cold", "java-warm"):
        r = s[name]
        print(f"  {name:15}: {r['rows'] / r['wall_ms'] * 1e3 / 1e6:5.2f} M rows/s  "
              f"{r['rows'] / r['cpu_ms'] * 1e3 / 1e6:5.2f} M rows/s per core  wall {r['wall_ms'] / 1e3:6.2f} s  "
              f"CPU {r['cpu_ms'] / 1e3:6.2f} s  peak RSS {r['peak_rss_mb']:7.1f} MB")
    for peer in ("java-cold", "java-warm"):
        j = s[peer]
        for mine in ("paimon-c", "paimon-c-cache"):
            m = s[mine]
            print(f"    {mine} vs {peer}: wall {j['wall_ms'] / m['wall_ms']:.2f}x, per core {j['cpu_ms'] / m['cpu_ms']:.2f}x, "
                  f"peak RSS {m['peak_rss_mb'] / j['peak_rss_mb']:.2f} of Java's")
PY
