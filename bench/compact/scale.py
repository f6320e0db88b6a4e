#!/usr/bin/env python3
"""bench/compact/scale.py — flat cost of append and primary-key compaction
(issue 14 goal 5 and goal 4 at scale): CPU per row and peak RSS as the
table grows.

  scale.py [--sizes 1000000,10000000,100000000] [--file-rows 100000]
           [--rounds 2] [--memory 64mb] [--option K=V ...] [--work DIR]
           [--json FILE] [--keep]
  scale.py --pk [--sizes ...] [--runs 10] [--overlap 0.5] [--file-rows 100000]
           [--memory 64mb,default] [--baseline PAIMON] [--rounds 3] [--work DIR]
           [--json FILE] [--clean]

For every size N: an unaware-bucket append table of N rows in files of
--file-rows rows each (`bench_compact gen`: one commit per file, the
TableGen shape, Parquet zstd-1; paimon-c writes the inputs, which is fine
here: only paimon-c is measured, against itself at other sizes), then
--rounds interleaved rounds (size after size, each on a fresh copy:
bench/rounds.py) of `bench_compact run --threads 1 --memory M`.  Printed
per size: process CPU-s median [min-max] (wait4: user + system), CPU ns
per row, that figure relative to the smallest size (goal: within +-10%),
peak RSS median [min-max] and whether it stays under --memory + 32 MiB
(goal 4), and the compaction's own CPU-s per row (bench_compact's inner
timing: process start-up and table opening left out, which weigh on the
smallest size).  --option passes a table option to every run (e.g.
compaction.parquet.page-passthrough=false measures the rewrite).  The inputs of every size stay in --work until the end
(about 20 bytes a row on disk).

--pk: primary-key full compaction of tables of one shape at every size:
N records in --runs sorted runs (one commit each, bucket 1, Parquet
zstd-1), run r holding the keys [floor(r * N/S * (1 - overlap)), + N/S)
(TableGen write-pk's keys and values, bench/java: --overlap 0.5 = each
key of the middle ranges in two runs, as fair.py --pk), in files of
--file-rows records each: a larger table has more files per run, not
bigger files, and as many overlapping runs.  The inputs are written by
paimon-c (bench_pk_write --file-rows: its writer merges a run's spilled
buffers into one sorted run whatever the run's size; Java's flushes would
make a 10 M-record run six overlapping files, a deeper table): a scaling
figure of paimon-c alone, the output says so.  They are cached in --work
per shape and size (about 30 bytes a record; --clean deletes them at the
end).  Each size is compacted with `paimon compact T --full --parallelism
1` at every --memory budget ("default" = no --memory, 256 MiB), and with
--baseline (another `paimon`) alongside, interleaved rounds, one fresh copy
of the inputs per run (one copy on disk at a time, deleted at the end).
Printed per size and budget: process CPU-s median [min-max], ns per
record, that relative to the smallest size at the same budget (goal 5:
within +-10%), peak RSS (the process's own, /usr/bin/time: rounds.py
own_rss) median [min-max] against the budget + 32 MiB (goal 4).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import rounds  # noqa: E402

FIXED_MIB = 32
DEFAULT_WORK = os.path.join(ROOT, "bench", "out", "scale")


def parse_bytes(s):
    s = s.strip().lower()
    for suf, m in (("gb", 1 << 30), ("mb", 1 << 20), ("kb", 1 << 10), ("b", 1)):
        if s.endswith(suf):
            return int(float(s[:-len(suf)]) * m)
    return int(s)


def pk_main(a, sizes):
    """--pk: primary-key full compaction at growing sizes (see the header)."""
    if not 0 <= a.overlap < 1:
        sys.exit("scale.py --pk: --overlap must be in [0, 1)")
    for n in sizes:
        if n % a.runs or (n // a.runs) % a.file_rows:
            sys.exit(f"scale.py --pk: {n} records are not {a.runs} runs of a multiple of --file-rows {a.file_rows}")
    budgets = [b.strip() for b in (a.memory or "64mb,default").split(",") if b.strip()]
    build = os.environ.get("BUILD", os.path.join(ROOT, "build"))
    cli = os.path.join(build, "paimon")
    writer = os.path.join(build, "bench", "bench_pk_write")
    os.makedirs(a.work, exist_ok=True)
    tpath = lambda base: os.path.join(base, "db.db", "t")  # noqa: E731
    shape = f"pk-{a.runs}r-o{a.overlap:g}-f{a.file_rows}"
    copy = os.path.join(a.work, "c")
    srcs = {}
    for n in sizes:
        src = os.path.join(a.work, f"in-{shape}-{n}")
        srcs[n] = src
        if os.path.isdir(tpath(src)):
            continue
        print(f"  writing {n} records: {a.runs} runs of {n // a.runs} in files of {a.file_rows} (paimon-c)",
              file=sys.stderr, flush=True)
        tmp = src + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(os.path.join(tmp, "db.db"))
        subprocess.run([cli, "create", tpath(tmp), "--primary-keys", "id", "--option", "bucket=1", "--option",
                        "file.format=parquet", "--schema", PK_SCHEMA], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([writer, tpath(tmp), "--rows", str(n // a.runs), "--runs", str(a.runs), "--overlap",
                        str(a.overlap), "--file-rows", str(a.file_rows)], check=True, stdout=subprocess.DEVNULL)
        os.rename(tmp, src)

    def fresh(src):
        def prep():
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(src, copy)
            os.sync()
        return prep
    bins = [("", cli)] + ([("baseline ", a.baseline)] if a.baseline else [])
    sides, keys = [], []
    for n in sizes:
        for b in budgets:
            for tag, exe in bins:
                argv = [exe, "compact", tpath(copy), "--full", "--parallelism", "1", "--json"]
                if b != "default":
                    argv += ["--memory", b]
                sides.append(rounds.Side(f"{tag}{n} records {b}", argv, fresh(srcs[n]), own_rss=True))
                keys.append((tag, n, b))
    print(f"primary-key full compaction at growing sizes (flat cost), `paimon compact --full --parallelism 1`, "
          f"{a.runs} sorted runs overlapping {a.overlap:g} (each key in at most "
          f"{int(-(-1 // (1 - a.overlap))) if a.overlap else 1} runs), files of {a.file_rows} records, Parquet "
          f"zstd-1, inputs written by paimon-c (a scaling figure of paimon-c alone, not a comparison with Java); "
          f"budgets {', '.join(budgets)}; {a.rounds} interleaved rounds; {rounds.load_note()} (shared machine)",
          flush=True)
    try:
        res = rounds.run(sides, a.rounds)
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    out = {"runs": a.runs, "overlap": a.overlap, "file_rows": a.file_rows, "writer": "paimon-c bench_pk_write",
           "sides": {}}
    print(f"  {'side':<28} {'CPU-s median [min-max]':<26} {'ns/record':>9} {'vs smallest':>11}  "
          f"{'peak RSS MB':<20} {'bound MB':>8}")
    base = {}
    for (tag, n, b), s in zip(keys, sides):
        rs = res[s.name]
        got = [r.inner.get("rows_read") for r in rs]
        if any(x != n for x in got):
            sys.exit(f"scale.py --pk: the compaction of {n} records read {got}")
        cpu = [r.process_cpu_s for r in rs]
        rss = [r.peak_rss_mb for r in rs]
        ns = rounds.median(cpu) / n * 1e9
        base.setdefault((tag, b), ns)
        bound = (256 if b == "default" else parse_bytes(b) / (1 << 20)) + FIXED_MIB
        print(f"  {s.name:<28} {rounds.summary(cpu):<26} {ns:>9.0f} {ns / base[(tag, b)]:>10.2f}x  "
              f"{rounds.summary(rss, '{:.0f}'):<20} {bound:>5.0f} {'yes' if max(rss) <= bound else 'NO'}",
              flush=True)
        out["sides"][s.name] = {"records": n, "budget": b, "baseline": bool(tag), "cpu_s": cpu, "peak_rss_mb": rss,
                                "wall_s": [r.wall_s for r in rs], "ns_per_record": ns,
                                "vs_smallest": ns / base[(tag, b)], "rss_bound_mb": bound}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f)
    if a.clean:
        shutil.rmtree(a.work, ignore_errors=True)


PK_SCHEMA = ("p INT NOT NULL, id BIGINT NOT NULL, k INT, name STRING, price DOUBLE, qty INT, ts TIMESTAMP(3), "
             "note STRING")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000000,10000000,100000000")
    ap.add_argument("--file-rows", type=int, default=100000)
    ap.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 2; --pk 3)")
    ap.add_argument("--memory", default=None,
                    help="budget (default 64mb); --pk: a comma-separated list, 'default' = 256 MiB (default "
                         "64mb,default)")
    ap.add_argument("--work", default=DEFAULT_WORK)
    ap.add_argument("--json", default=None, help="also write the results here")
    ap.add_argument("--keep", action="store_true", help="keep the generated inputs")
    ap.add_argument("--option", action="append", default=[], metavar="K=V",
                    help="a table option for every compaction run (repeatable)")
    ap.add_argument("--pk", action="store_true", help="primary-key full compaction (see the header)")
    ap.add_argument("--runs", type=int, default=10, help="--pk: sorted runs")
    ap.add_argument("--overlap", type=float, default=0.5, help="--pk: share of a run's keys in the next run")
    ap.add_argument("--baseline", default=None, help="--pk: another paimon binary compacted alongside")
    ap.add_argument("--clean", action="store_true", help="--pk: delete the cached inputs at the end")
    a = ap.parse_args()
    sizes = [int(x.replace("_", "")) for x in a.sizes.split(",") if x]
    if any(n < a.file_rows for n in sizes):
        ap.error("every size must be at least --file-rows")
    if a.rounds is None:
        a.rounds = 3 if a.pk else 2
    if a.pk:
        if a.option or a.keep:
            ap.error("--option and --keep apply to append compaction only")
        if a.work == DEFAULT_WORK:
            a.work = os.path.join(ROOT, "bench", "out", "scale-pk")
        return pk_main(a, sizes)
    if a.baseline or a.clean:
        ap.error("--baseline and --clean apply to --pk only")
    memory = parse_bytes(a.memory or "64mb")
    build = os.environ.get("BUILD", os.path.join(ROOT, "build"))
    bc = os.path.join(build, "bench", "bench_compact")
    os.makedirs(a.work, exist_ok=True)
    tpath = lambda base: os.path.join(base, "db.db", "t")  # noqa: E731
    sides = []
    for n in sizes:
        src = os.path.join(a.work, f"in-{n}")
        if not os.path.isdir(tpath(src)):
            print(f"  generating {n} rows in {n // a.file_rows} files ({a.file_rows} rows each)", file=sys.stderr,
                  flush=True)
            subprocess.run([bc, "gen", "--table", tpath(src), "--files", str(n // a.file_rows), "--rows",
                            str(a.file_rows)], check=True, stdout=subprocess.DEVNULL)

        def fresh(src=src, n=n):
            def prep():
                dst = os.path.join(a.work, f"c-{n}")
                shutil.rmtree(dst, ignore_errors=True)
                shutil.copytree(src, dst)
                os.sync()
            return prep
        sides.append(rounds.Side(f"{n} rows", [bc, "run", "--table", tpath(os.path.join(a.work, f"c-{n}")),
                                               "--threads", "1", "--memory", str(memory)]
                                    + [x for o in a.option for x in ("--option", o)], fresh()))
    print(f"append compaction at growing sizes (flat cost), --threads 1 --memory {a.memory}, files of "
          f"{a.file_rows} rows, Parquet zstd-1, inputs written by paimon-c; options {a.option or 'default'}; {a.rounds} interleaved rounds; "
          f"{rounds.load_note()} (shared machine)", flush=True)
    res = rounds.run(sides, a.rounds)
    budget = memory / (1 << 20) + FIXED_MIB
    out = {"memory_bytes": memory, "file_rows": a.file_rows, "options": a.option, "sizes": {}}
    base_ns = None
    print(f"  {'rows':>11} {'CPU-s median [min-max]':<26} {'ns/row':>7} {'vs smallest':>11}  "
          f"{'inner ns/row':>12} {'vs smallest':>11}  {'peak RSS MB':<20} under {budget:.0f} MB")
    base_inner = None
    for n, s in zip(sizes, sides):
        rs = res[s.name]
        cpu = [r.process_cpu_s for r in rs]
        rss = [r.peak_rss_mb for r in rs]
        rows_read = [r.inner.get("rows") for r in rs]
        if any(x != n for x in rows_read):
            sys.exit(f"scale.py: the compaction of {n} rows read {rows_read} rows (fewer input files than "
                     "compaction.min.file-num? raise the size or lower --file-rows)")
        ns = rounds.median(cpu) / n * 1e9
        base_ns = base_ns or ns
        rel = ns / base_ns
        inner = [r.inner.get("cpu_s", float("nan")) for r in rs]
        ins = rounds.median(inner) / n * 1e9
        base_inner = base_inner or ins
        print(f"  {n:>11} {rounds.summary(cpu):<26} {ns:>7.0f} {rel:>10.2f}x  {ins:>12.0f} {ins / base_inner:>10.2f}x  "
              f"{rounds.summary(rss, '{:.0f}'):<20} {'yes' if max(rss) <= budget else 'NO'}", flush=True)
        out["sizes"][str(n)] = {"cpu_s": cpu, "peak_rss_mb": rss, "ns_per_row": ns, "vs_smallest": rel,
                                "wall_s": [r.wall_s for r in rs], "inner_cpu_s": inner,
                                "inner_ns_per_row": ins}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f)
    if not a.keep:
        shutil.rmtree(a.work, ignore_errors=True)


if __name__ == "__main__":
    main()
