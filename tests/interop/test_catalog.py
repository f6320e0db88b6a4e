"""Filesystem catalog: databases and tables created by paimon-c are seen by
pypaimon's filesystem catalog and the other way round; drop rules."""
import pyarrow as pa
from pypaimon import CatalogFactory, Schema

from conftest import run_paimon


def test_pypaimon_sees_our_databases_and_tables(tmp_path):
    wh = tmp_path / "wh"
    run_paimon("create-database", wh, "sales")
    run_paimon("create-database", wh, "ops")
    run_paimon("create", wh / "sales.db" / "orders", "--schema", "id BIGINT NOT NULL, v STRING")
    cat = CatalogFactory.create({"warehouse": str(wh)})
    assert sorted(cat.list_databases()) == ["ops", "sales"]
    assert cat.list_tables("sales") == ["orders"]
    t = cat.get_table("sales.orders")
    assert [f.name for f in t.table_schema.fields] == ["id", "v"]


def test_we_see_pypaimon_databases_and_tables(tmp_path):
    wh = tmp_path / "wh"
    cat = CatalogFactory.create({"warehouse": str(wh)})
    cat.create_database("db1", False)
    cat.create_database("db2", False)
    schema = Schema.from_pyarrow_schema(pa.schema([("k", pa.int64()), ("v", pa.string())]))
    cat.create_table("db1.t1", schema, False)
    cat.create_table("db1.t2", schema, False)
    assert run_paimon("databases", wh).stdout.split() == ["db1", "db2"]
    assert run_paimon("tables", wh, "db1").stdout.split() == ["t1", "t2"]
    assert run_paimon("tables", wh, "db2").stdout.split() == []


def test_drop_rules(tmp_path):
    wh = tmp_path / "wh"
    run_paimon("create-database", wh, "d")
    run_paimon("create", wh / "d.db" / "t", "--schema", "a INT")
    p = run_paimon("drop-database", wh, "d", check=False)
    assert p.returncode == 1 and "not empty" in p.stderr
    assert (wh / "d.db" / "t" / "schema" / "schema-0").exists()
    p = run_paimon("create-database", wh, "d", check=False)
    assert p.returncode == 1 and "already exists" in p.stderr
    p = run_paimon("drop-table", wh, "d", "missing", check=False)
    assert p.returncode == 1 and "does not exist" in p.stderr
    run_paimon("drop-table", wh, "d", "missing", "--ignore-if-not-exists")
    run_paimon("drop-table", wh, "d", "t")
    assert not (wh / "d.db" / "t").exists()
    run_paimon("create", wh / "d.db" / "t2", "--schema", "a INT")
    run_paimon("drop-database", wh, "d", "--cascade")
    assert not (wh / "d.db").exists()
    assert run_paimon("databases", wh).stdout.split() == []
    p = run_paimon("tables", wh, "d", check=False)
    assert p.returncode == 1 and "does not exist" in p.stderr
