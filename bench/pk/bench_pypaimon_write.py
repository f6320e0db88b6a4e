"""bench/pk/bench_pypaimon_write.py — the pypaimon side of bench/pk/dynamic.sh.

Creates WAREHOUSE/db.db/t (the bench's primary-key table: primary key id,
bucket -1 unless --bucket, Parquet), loads DIR/run-<r>.parquet (the rows
bench_pk_write --dump wrote, not timed) and commits each run with a new
write builder (write_arrow, prepare_commit, commit), as Java's TableGen and
bench_pk_write do.  Dynamic buckets: pypaimon assigns buckets and keeps the
HASH index.  Times are wall seconds and process CPU seconds
(time.process_time: all threads).  Prints one JSON line.
"""
import argparse
import glob
import json
import os
import time

import pyarrow as pa
import pyarrow.parquet as pq
from pypaimon import CatalogFactory, Schema


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--warehouse", required=True)
    ap.add_argument("--bucket", default="-1")
    args = ap.parse_args()
    files = sorted(glob.glob(os.path.join(args.dir, "run-*.parquet")),
                   key=lambda p: int(p.rsplit("-", 1)[1].split(".")[0]))
    runs = [pq.read_table(f) for f in files]
    schema = pa.schema([
        pa.field("p", pa.int32(), nullable=False), pa.field("id", pa.int64(), nullable=False),
        pa.field("k", pa.int32()), pa.field("name", pa.string()), pa.field("price", pa.float64()),
        pa.field("qty", pa.int32()), pa.field("ts", pa.timestamp("ms")), pa.field("note", pa.string())])
    runs = [r.cast(schema) for r in runs]
    cat = CatalogFactory.create({"warehouse": args.warehouse})
    cat.create_database("db", True)
    cat.create_table("db.t", Schema.from_pyarrow_schema(schema, primary_keys=["id"], options={
        "bucket": args.bucket, "file.format": "parquet"}), False)
    table = cat.get_table("db.t")
    w0, c0 = time.perf_counter(), time.process_time()
    for data in runs:
        wb = table.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(data)
        msgs = w.prepare_commit()
        c = wb.new_commit()
        c.commit(msgs)
        w.close()
        c.close()
    w1, c1 = time.perf_counter(), time.process_time()
    print(json.dumps({"engine": "pypaimon", "rows": sum(r.num_rows for r in runs), "runs": len(runs),
                      "wall_ms": round((w1 - w0) * 1e3, 1), "cpu_ms": round((c1 - c0) * 1e3, 1)}))


if __name__ == "__main__":
    main()
