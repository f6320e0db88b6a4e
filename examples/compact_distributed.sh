# examples/compact_distributed.sh — run by scripts/test_examples.sh
# (EXAMPLE, PAIMON, WORK, expect): a primary-key table with two buckets,
# eight write-only commits of upserts and deletes by the CLI, compacted by
# the example's coordinator and JSON-fed workers (one task per bucket);
# merged rows unchanged, one sorted run per bucket, last snapshot COMPACT.
K=$WORK/wh/db.db/accounts
"$PAIMON" create "$K" --schema 'id BIGINT NOT NULL, balance BIGINT, owner STRING' --primary-keys id \
  --option bucket=2 --option write-only=true >/dev/null
for c in 1 2 3 4 5 6 7 8; do
  awk -v c="$c" 'BEGIN { srand(c); for (i = 0; i < 100; i++) { id = int(rand() * 300);
      kind = (rand() < 0.1) ? "-D" : "+I";
      printf "{\"_ROW_KIND\":\"%s\",\"id\":%d,\"balance\":%d,\"owner\":\"o-%d\"}\n", kind, id, int(rand() * 1000), c } }' |
    "$PAIMON" write "$K" >/dev/null
done
"$PAIMON" read "$K" --format jsonl | sort >before

"$EXAMPLE" "$K" >out
expect out '^plan: [0-9]+ bytes of JSON, snapshot 8, 2 task\(s\)$'
expect out '^worker 0: task [0-9]+ bytes -> result [0-9]+ bytes$'
expect out '^worker 1: task [0-9]+ bytes -> result [0-9]+ bytes$'
expect out '^committed snapshot 9 \(planned on 8\): 16 file\(s\) removed, 2 added$'

"$PAIMON" read "$K" --format jsonl | sort >after
cmp -s before after || { echo "rows differ after compaction" >&2; exit 1; }
"$PAIMON" levels "$K" >levels
expect levels '^bucket 0: 1 runs, 1 files'
expect levels '^bucket 1: 1 runs, 1 files'
"$PAIMON" snapshots "$K" | tail -n 1 | cut -f1,3 >last
expect last '^9	COMPACT$'
