# examples/write_read.sh — run by scripts/test_examples.sh (EXAMPLE, PAIMON,
# WORK, expect): two commits through the write API, the merged rows through
# the read API (Arrow stream and JSON lines), and the CLI agrees.
"$EXAMPLE" "$WORK/wh" >out
expect out '^snapshot 1: 3 rows in 2 files$'
expect out '^snapshot 2: 2 rows in 2 files$'
expect out '^split dt=2024-06-01 bucket [01]: [0-9]+ files, [0-9]+ rows$'
expect out '^arrow schema: \+s with 3 columns$'
expect out '^read 2 rows through the Arrow stream$'
expect out '^\{"order_id":1,"item":"tea","amount":"3.90"\}$'
expect out '^\{"order_id":2,"item":"cake","amount":"4.20"\}$'
! grep -q '"order_id":3' out
"$PAIMON" read "$WORK/wh/shop.db/orders" --columns order_id >cli
[ "$(sort cli | tr -d '\n')" = '{"order_id":1}{"order_id":2}' ] || { echo "CLI read differs" >&2; cat cli >&2; exit 1; }
