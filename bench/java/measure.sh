#!/usr/bin/env bash
# bench/java/measure.sh — run one metrics-printing oracle command under
# /usr/bin/time -v and print its JSON line extended with what the OS saw:
#   peak_rss_mb     maximum resident set size of the JVM process
#   process_cpu_s   user + system CPU seconds of the whole process (JVM
#                   start-up, class loading, JIT, GC included)
#   process_wall_s  elapsed seconds of the whole process
#   untimed_ms      process_wall_s minus the measured run's wall_ms (JVM start-up,
#                   class loading before the run, --warmup runs)
# Usage: bench/java/measure.sh <command> TABLE [options]
# Used by run-append-compact.sh, run-pk-compact.sh and run-mor-read.sh.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
"$ROOT/scripts/java-oracle.sh" >/dev/null
[ -x /usr/bin/time ] || { echo "measure.sh: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
tv=$(mktemp); out=$(mktemp)
trap 'rm -f "$tv" "$out"' EXIT
rc=0
PAIMON_ORACLE_BUILT=1 /usr/bin/time -v -o "$tv" "$HERE/run.sh" "$@" >"$out" || rc=$?
if [ $rc != 0 ]; then
  echo "measure.sh: '$*' failed ($rc)" >&2
  exit $rc
fi
python3 - "$out" "$tv" <<'PY'
import json, re, sys
line = [l for l in open(sys.argv[1]).read().splitlines() if l.strip()][-1]
m = json.loads(line)
tv = open(sys.argv[2]).read()
def field(name):
    r = re.search(r"^\s*" + re.escape(name) + r":\s*(.+)$", tv, re.M)
    return r.group(1).strip() if r else None
def wall(s):
    secs = 0.0
    for part in s.split(":"):
        secs = secs * 60 + float(part)
    return secs
rss_kb = int(field("Maximum resident set size (kbytes)"))
cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
w = wall(field("Elapsed (wall clock) time (h:mm:ss or m:ss)"))
m["peak_rss_mb"] = round(rss_kb / 1024.0, 1)
m["process_cpu_s"] = round(cpu, 2)
m["process_wall_s"] = round(w, 2)
if isinstance(m.get("wall_ms"), (int, float)):
    m["untimed_ms"] = round(w * 1000 - m["wall_ms"], 1)
print(json.dumps(m))
PY
