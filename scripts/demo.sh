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
hr "done: tables are under $WH (try: build/paimon files $T)"
