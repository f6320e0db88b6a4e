# examples/catalog_create.sh — run by scripts/test_examples.sh (EXAMPLE,
# PAIMON, WORK, expect): the table the example creates is the one the CLI
# then sees, and a second run is refused without changing it.
"$EXAMPLE" "$WORK/wh" >out
expect out '^libpaimon [0-9]+\.[0-9]+\.[0-9]+ \(ABI [0-9]+\)$'
expect out '^databases: shop$'
expect out '^tables: orders$'
expect out "^table $WORK/wh/shop\.db/orders \(branch main\)$"
expect out '^second create refused: EEXIST$'

"$PAIMON" schema "$WORK/wh/shop.db/orders" >schema
expect schema '^  0	order_id	BIGINT NOT NULL$'
expect schema '^  2	amount	DECIMAL\(10, 2\)$'
expect schema '^partition keys: dt$'
expect schema '^  bucket = -1$'

# The database exists now: the example stops at its first step, exit 1.
rc=0
"$EXAMPLE" "$WORK/wh" >out2 2>err2 || rc=$?
[ $rc = 1 ] || { echo "second run: exit $rc, expected 1" >&2; exit 1; }
expect err2 "create database failed \(EEXIST\): .*'shop' already exists"
[ "$(ls "$WORK/wh/shop.db/orders/schema")" = schema-0 ] || { echo "second run changed the schema" >&2; exit 1; }
