#!/usr/bin/env bash
# scripts/demo.sh — the main job of paimon-c on a built-in example.
#
# 1. Creates an append table under ./demo-warehouse and writes it in many
#    small commits (write-only=true, like a streaming writer whose
#    compaction is left to a dedicated job): the small-file problem.
# 2. Shows files, bytes and the time a full read takes.
# 3. Compacts it (plan → execute → commit): one COMPACT snapshot.
# 4. Shows files, bytes and read time again, and checks that the rows are
#    exactly the same multiset as before.
# 5. Does the same for a primary-key table with upserts and deletes, and
#    shows its LSM levels (sorted runs) before and after.
# 6. The service act: starts `paimon serve` on the warehouse, writes a
#    primary-key and an append table in small commits (write-only=true)
#    while it runs, and shows what it folded (its jobs, the levels before
#    and after, the status page's URL), then stops it cleanly (SIGTERM).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
P="$here/build/paimon"
WH="$here/demo-warehouse"
COMMITS=${DEMO_COMMITS:-200}
ROWS=${DEMO_ROWS:-500}
rm -rf "$WH"
T="$WH/demo.db/events"
K="$WH/demo.db/accounts"

hr() { printf '\n== %s\n' "$*"; }
now_ms() { date +%s%3N; }
summary() {  # files and bytes of the latest snapshot
  "$P" files "$1" | awk -F'\t' 'NR > 1 { n++; b += $6 } END { printf "%d files, %.2f MB\n", n, b / 1e6 }'
}
timed_read() {  # prints "<rows> rows in <ms> ms" and leaves a sorted copy in $2
  local t0 t1
  t0=$(now_ms); "$P" read "$1" --format jsonl > "$2.raw"; t1=$(now_ms)
  sort "$2.raw" > "$2"; rm -f "$2.raw"
  echo "$(wc -l < "$2") rows read in $((t1 - t0)) ms"
}
gen_events() {  # commit number → ROWS JSON lines
  awk -v c="$1" -v n="$ROWS" 'BEGIN { srand(c);
    split("click view buy share", kinds, " ");
    for (i = 0; i < n; i++) {
      id = c * n + i; d = 1 + (id % 3);
      printf "{\"id\":%d,\"user\":\"user-%d\",\"kind\":\"%s\",\"amount\":\"%.2f\",\"ts\":\"2026-11-0%dT%02d:%02d:%02d.000000\",\"dt\":\"2026-11-0%d\"}\n",
        id, int(rand()*1000), kinds[1 + int(rand()*4)], rand()*500, d, int(rand()*24), int(rand()*60), int(rand()*60), d } }'
}

hr "1. an append table written in $COMMITS small commits of $ROWS rows"
"$P" create "$T" --schema 'id BIGINT NOT NULL, user STRING, kind STRING, amount DECIMAL(10, 2), ts TIMESTAMP(6), dt STRING' \
     --partition-keys dt --option write-only=true
t0=$(now_ms)
for c in $(seq 1 "$COMMITS"); do gen_events "$c" | "$P" write "$T" --threads 1 >/dev/null; done
t1=$(now_ms)
echo "wrote $((COMMITS * ROWS)) rows in $COMMITS commits in $((t1 - t0)) ms"
echo "before: $(summary "$T")"
timed_read "$T" /tmp/demo-before.$$

hr "2. compact (plan -> execute -> commit)"
"$P" compact "$T"
"$P" snapshots "$T" | tail -n 3 | cut -f1-3
echo "after:  $(summary "$T")"
timed_read "$T" /tmp/demo-after.$$
if cmp -s /tmp/demo-before.$$ /tmp/demo-after.$$; then
  echo "rows before and after compaction: identical"
else
  echo "ROWS DIFFER after compaction" >&2; exit 1
fi
rm -f /tmp/demo-before.$$ /tmp/demo-after.$$

hr "3. a primary-key table: upserts and deletes in sorted runs"
"$P" create "$K" --schema 'id BIGINT NOT NULL, balance BIGINT, owner STRING' --primary-keys id \
     --option bucket=2 --option write-only=true
for c in $(seq 1 8); do
  awk -v c="$c" 'BEGIN { srand(c); for (i = 0; i < 400; i++) { id = int(rand()*1000);
      kind = (rand() < 0.1) ? "-D" : "+I";
      printf "{\"_ROW_KIND\":\"%s\",\"id\":%d,\"balance\":%d,\"owner\":\"o-%d\"}\n", kind, id, int(rand()*10000), c } }' \
    | "$P" write "$K" >/dev/null
done
"$P" levels "$K"
timed_read "$K" /tmp/demo-pk-before.$$
"$P" compact "$K"
"$P" levels "$K"
timed_read "$K" /tmp/demo-pk-after.$$
cmp -s /tmp/demo-pk-before.$$ /tmp/demo-pk-after.$$ && echo "primary-key rows before and after compaction: identical" \
  || { echo "PK ROWS DIFFER after compaction" >&2; exit 1; }
rm -f /tmp/demo-pk-before.$$ /tmp/demo-pk-after.$$
hr "4. the compaction service: paimon serve folds what writers leave behind"
S="$WH/live.db"
"$P" create-database "$WH" live >/dev/null
"$P" create "$S/orders" --schema 'id BIGINT NOT NULL, status STRING, total BIGINT' --primary-keys id \
     --option bucket=2 --option write-only=true >/dev/null
"$P" create "$S/clicks" --schema 'id BIGINT, page STRING' --option write-only=true >/dev/null
svc_out=$(mktemp)
"$P" serve "$WH" --listen 127.0.0.1:0 --option compaction-service.interval=1s \
     --option compaction-service.trigger.count=4 --option compaction-service.expire-interval=0 \
     > "$svc_out" 2> "$svc_out.err" &
svc_pid=$!
trap 'kill "$svc_pid" 2>/dev/null || true; rm -f "$svc_out" "$svc_out.err"' EXIT
for _ in $(seq 50); do grep -q '^listening on' "$svc_out" && break; sleep 0.1; done
url=$(sed -n 's/^listening on //p' "$svc_out")
[ -n "$url" ] || { echo "paimon serve did not start:" >&2; cat "$svc_out.err" >&2; exit 1; }
echo "paimon serve is up: status page $url/ (metrics: $url/metrics)"
for c in $(seq 1 12); do
  awk -v c="$c" 'BEGIN { for (i = 0; i < 50; i++) printf "{\"id\":%d,\"status\":\"s%d\",\"total\":%d}\n", (c * 37 + i) % 200, c, c * i }' \
    | "$P" write "$S/orders" >/dev/null
  awk -v c="$c" 'BEGIN { for (i = 0; i < 50; i++) printf "{\"id\":%d,\"page\":\"/p/%d\"}\n", c * 50 + i, i % 7 }' \
    | "$P" write "$S/clicks" >/dev/null
  [ "$c" = 3 ] && { echo "levels while the writers write (3 commits in):"; "$P" levels "$S/orders"; }
done
sleep 3
echo "jobs the service ran:"
"${PYTHON:-python3}" -c '
import json, sys, urllib.request
for j in reversed(json.load(urllib.request.urlopen(sys.argv[1] + "/v1/jobs?limit=20"))["jobs"]):
    if j["type"] == "compaction":
        print("  job %3d %-12s bucket %d  trigger %-12s %-9s %d files -> %d (snapshot %s)" % (
            j["id"], j["table"], j["bucket"], j["trigger"], j["state"], j["input_files"], j["output_files"],
            j["snapshot"]))' "$url"
echo "levels after the service:"
"$P" levels "$S/orders"
echo "clicks after the service: $(summary "$S/clicks")"
kill -TERM "$svc_pid"; wait "$svc_pid" && echo "paimon serve stopped cleanly (drained, exit 0)"
trap - EXIT
rm -f "$svc_out" "$svc_out.err"
hr "done: tables are under $WH (try: build/paimon files $T)"
