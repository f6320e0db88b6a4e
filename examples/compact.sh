# examples/compact.sh — run by scripts/test_examples.sh (EXAMPLE, PAIMON,
# WORK, expect): an append table written in six small commits by the CLI
# (write-only=true, so nothing compacts them) is compacted by the example;
# the rows stay the same, the files become one per partition, the last
# snapshot is COMPACT, and a second run finds nothing to do.
T=$WORK/wh/db.db/events
"$PAIMON" create "$T" --schema 'id BIGINT NOT NULL, v STRING, dt STRING' --partition-keys dt \
  --option write-only=true >/dev/null
for c in 1 2 3 4 5 6; do
  awk -v c="$c" 'BEGIN { for (i = 0; i < 50; i++)
    printf "{\"id\":%d,\"v\":\"r%d\",\"dt\":\"2024-01-0%d\"}\n", c * 100 + i, i, 1 + i % 2 }' |
    "$PAIMON" write "$T" >/dev/null
done
"$PAIMON" read "$T" --format jsonl | sort >before
[ "$("$PAIMON" files "$T" | tail -n +2 | wc -l)" = 12 ] || { echo "expected 12 files before" >&2; exit 1; }

"$EXAMPLE" "$T" >out
expect out '^plan [0-9a-f-]+: snapshot 6, 2 task\(s\)$'
expect out '^executed 2 task\(s\)$'
expect out '^committed snapshot 7: 12 file\(s\) removed, 2 added, 300 row\(s\) written$'

"$PAIMON" read "$T" --format jsonl | sort >after
cmp -s before after || { echo "rows differ after compaction" >&2; exit 1; }
[ "$("$PAIMON" files "$T" | tail -n +2 | wc -l)" = 2 ] || { echo "expected 2 files after" >&2; exit 1; }
"$PAIMON" snapshots "$T" | tail -n 1 | cut -f1,3 >last
expect last '^7	COMPACT$'

"$EXAMPLE" "$T" >out2
expect out2 '^nothing to compact$'
