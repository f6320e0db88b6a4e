"""paimon_c from several threads: shared tables and catalogs, one writer
per thread (or one writer behind its lock), tasks executed at once, and
the GIL released while libpaimon works."""
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from paimon_c import Schema

from conftest import SCHEMA, data, rows_of


def make(catalog, rows_per_commit=2000, commits=6):
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, partition_keys=["pt"],
                                                           options={"write-only": "true"}), False)
    t = catalog.get_table("db.t")
    for k in range(commits):
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(data(k * rows_per_commit, rows_per_commit))
        wb.new_commit().commit(w.prepare_commit())
    return t


def read_all(t):
    rb = t.new_read_builder()
    return rb.new_read().to_arrow(rb.new_scan().plan().splits())


def test_concurrent_reads_of_one_table(catalog):
    t = make(catalog)
    expected = rows_of(read_all(t))
    with ThreadPoolExecutor(4) as ex:
        got = list(ex.map(lambda _: rows_of(read_all(t)), range(8)))
    assert all(g == expected for g in got)


def test_one_writer_per_thread_one_commit(catalog):
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, partition_keys=["pt"],
                                                           options={"write-only": "true"}), False)
    t = catalog.get_table("db.t")
    wb = t.new_batch_write_builder()

    def work(k):
        w = wb.new_write()
        w.write_arrow(data(k * 100, 100))
        return w.prepare_commit()

    with ThreadPoolExecutor(4) as ex:
        msgs = [m for ms in ex.map(work, range(8)) for m in ms]
    out = wb.new_commit().commit(msgs)
    assert out.rows == 800 and t.snapshot_ids() == [1]
    assert sorted(read_all(t)["id"].to_pylist()) == list(range(800))


def test_one_writer_shared_by_threads_is_serialized(catalog):
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA), False)
    t = catalog.get_table("db.t")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    threads = [threading.Thread(target=w.write_arrow, args=(data(k * 50, 50),)) for k in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    wb.new_commit().commit(w.prepare_commit())
    assert sorted(read_all(t)["id"].to_pylist()) == list(range(300))


def test_tasks_execute_from_several_threads(catalog):
    t = make(catalog, rows_per_commit=500)
    before = rows_of(read_all(t))
    cb = t.new_compact_builder().with_full(True)
    plan = cb.new_planner().plan()
    ex = cb.new_executor()
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(ex.execute, plan.tasks()))
    m = cb.new_commit().commit_compact(results)
    assert m.tasks == 3 and m.files_removed == 18
    assert rows_of(read_all(t)) == before


def test_the_gil_is_released_while_libpaimon_works(catalog):
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, options={"write-only": "true"}), False)
    t = catalog.get_table("db.t")
    big = data(0, 6_000_000, parts=1)
    w = t.new_batch_write_builder().new_write()
    window = []

    def writer():
        t0 = time.monotonic()
        w.write_arrow(big)  # one call: libpaimon encodes six million rows
        window.extend([t0, time.monotonic()])

    ticks = []
    th = threading.Thread(target=writer)
    th.start()
    while th.is_alive():
        ticks.append(time.monotonic())
        time.sleep(0.001)
    th.join()
    w.close()
    t0, t1 = window
    inside = [x for x in ticks if t0 < x < t1]
    # A held GIL would stop this thread for the whole call.
    assert t1 - t0 > 0.05
    assert len(inside) > 0.25 * (t1 - t0) / 0.002, (len(inside), t1 - t0)
