#!/usr/bin/env python3
"""bench/compact/fair.py — compaction, paimon-c against Apache Paimon Java
1.4.2, compared as issue 14 asks (bench/README.md explains the table).

  fair.py --files N --rows R [--rounds K] [--warmup W] [--baseline BIN]
          [--rewrite] [--work DIR] [--no-java-cold] [--no-java-steady]
          [--no-java]
          [--json FILE] [--summary FILE] [--option k=v]...
          (--summary: append one bench/summary.py line; --rewrite: a side
          with compaction.parquet.page-passthrough=false, the size anchor;
          --option: passed to both bench_compact sides, e.g.
          compaction.parquet.page-passthrough=false: the rewrite)
  fair.py --pk --runs S --rows R ...   primary-key full compaction: R
          records in S overlapping sorted runs (Java write-pk --overlap
          0.5); paimon-c side `paimon compact --full --parallelism 1`
          (--baseline: another `paimon` binary), Java compact-pk.

Inputs: written by Java (bench/java/run.sh write-append, the neutral
writer): N files of R/N rows each, unaware bucket, Parquet zstd-1, default
options; when Java is not available the table comes from `bench_compact
gen` and the table says so.  Each round runs every side once, in the same
order (interleaved), each on a fresh copy of the inputs:
  paimon-c            build/bench/bench_compact run --threads 1
  paimon-c baseline   --baseline BIN (another bench_compact), optional
  paimon-c rewrite    --rewrite: build/bench/bench_compact with page
                      passthrough off (every value decoded and encoded)
  Java steady state   run-append-compact.sh --warmup W (W >= 8 untimed
                      compactions of fresh copies in the same JVM; the
                      measured run's process CPU from the JVM's OS counter)
  Java cold           run-append-compact.sh (one compaction in a new JVM;
                      whole-process CPU, JVM start-up included)
CPU seconds: user + system of the whole process from the OS (wait4) for
paimon-c and Java cold; Java steady state: the measured run's process CPU.
Printed: medians [min-max] over the rounds, the per-round ratios, the
append sides' output bytes (the live files of the compacted copy that are
not inputs, after the last round; against the rewrite's with --rewrite), and the
zstd-1 ceiling: the CPU seconds zstd-1 alone needs to decompress the
inputs' pages and compress the pages a rewrite writes.  It is a side of its
own, measured in every round right after the rewrite (build/bench/
bench_ceiling): the very input pages (Java's frames, at Java's page sizes)
decompressed and the rewrite's output pages (the last run's outputs of the
rewrite side, or of paimon-c without --rewrite) compressed again, with the
libzstd paimon-c links, one reused context each, CPU of that loop only.
Beside it the earlier estimate (kept for comparison with older figures):
the inputs' uncompressed size at speeds measured with python-zstandard on
pyarrow's re-encoding of 200 inputs in 1 MiB pieces; it under-states the
work (pyarrow dictionary-encodes every column, bigger pieces compress and
decompress faster, another libzstd).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import rounds  # noqa: E402

CEILING = "zstd-1 ceiling"  # the side measured by bench_ceiling (not a peer)


def live_files(cli, table):
    """The live data files of the table's latest snapshot (`paimon files
    --json`): its directory may hold other Parquet files too (the inputs
    still on disk after a compaction, expired or stray copies)."""
    out = subprocess.run([cli, "files", table, "--json"], check=True, stdout=subprocess.PIPE).stdout
    return [f["file_path"] for f in json.loads(out)]


def page_bytes(files):
    """Uncompressed and compressed bytes of the Parquet files' row groups
    (footers only)."""
    import pyarrow.parquet as pq
    unc = comp = 0
    for f in files:
        m = pq.ParquetFile(f).metadata
        for g in range(m.num_row_groups):
            rg = m.row_group(g)
            for c in range(rg.num_columns):
                cc = rg.column(c)
                unc += cc.total_uncompressed_size
                comp += cc.total_compressed_size
    return unc, comp


def zstd_speeds(inputs):
    """zstd level-1 compress and decompress speed (uncompressed MB per CPU
    second, one thread) on the input files' values laid out as uncompressed
    Parquet, in 1 MiB pieces (about a Parquet page)."""
    import io
    import pyarrow.parquet as pq
    import zstandard
    files = sorted(inputs)[:200]
    t = pq.read_table(files[0])
    for f in files[1:]:
        import pyarrow as pa
        t = pa.concat_tables([t, pq.read_table(f)])
    buf = io.BytesIO()
    pq.write_table(t, buf, compression="none")
    data = buf.getvalue()
    pieces = [data[i:i + (1 << 20)] for i in range(0, len(data), 1 << 20)]
    c, d = zstandard.ZstdCompressor(level=1), zstandard.ZstdDecompressor()
    comp_s, dec_s = [], []
    for _ in range(5):
        t0 = time.process_time()
        frames = [c.compress(p) for p in pieces]
        comp_s.append(time.process_time() - t0)
        t0 = time.process_time()
        for fr, p in zip(frames, pieces):
            d.decompress(fr, max_output_size=len(p))
        dec_s.append(time.process_time() - t0)
    mb = len(data) / 1e6
    return mb / rounds.median(comp_s), mb / rounds.median(dec_s)


def append_ceiling(a, src, tpath, cli):
    """The earlier estimate of the zstd-1 ceiling: decompressing the inputs'
    pages and compressing the same bytes again (the data as the inputs
    encode it), at python-zstandard's speeds on pyarrow's re-encoding (see
    the header); also with the outputs' own uncompressed size.  Inputs: the
    live files of the source table; outputs: the live files of the
    compacted copy that are not inputs."""
    inputs = live_files(cli, tpath(src))
    in_unc, _ = page_bytes(inputs)
    names = {os.path.basename(f) for f in inputs}
    outputs = [f for f in live_files(cli, tpath(os.path.join(a.work, "c"))) if os.path.basename(f) not in names]
    out_unc = page_bytes(outputs)[0]
    comp_mb_s, dec_mb_s = zstd_speeds(inputs)
    ceiling = in_unc / 1e6 / dec_mb_s + in_unc / 1e6 / comp_mb_s
    ceiling_out = in_unc / 1e6 / dec_mb_s + out_unc / 1e6 / comp_mb_s
    return ceiling, ceiling_out, comp_mb_s, dec_mb_s, in_unc, out_unc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--rows", type=int, default=2000000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=8)
    ap.add_argument("--baseline", default=None)
    ap.add_argument("--rewrite", action="store_true",
                    help="also run paimon-c with page passthrough off (the output size anchor)")
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "out", "fair"))
    ap.add_argument("--no-java-cold", action="store_true")
    ap.add_argument("--no-java-steady", action="store_true", help="Java cold only (the 100,000-file case)")
    ap.add_argument("--no-java", action="store_true",
                    help="no Java side at all (neither steady nor cold): paimon-c against --baseline while working; "
                         "Java still writes missing inputs")
    ap.add_argument("--pk", action="store_true", help="primary-key full compaction")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", default=None, help="also write the results here")
    ap.add_argument("--inputs", default=None, help="an existing input warehouse (DIR/db.db/t) written by Java")
    ap.add_argument("--summary", default=None,
                    help="also append the CPU seconds as one bench/summary.py JSON line to this file")
    ap.add_argument("--option", action="append", default=[], metavar="K=V",
                    help="a table option for both bench_compact sides (paimon-c and --baseline), repeatable; "
                         "append compaction only")
    a = ap.parse_args()
    if a.no_java:
        a.no_java_steady = a.no_java_cold = True
    if a.warmup < 8:
        ap.error("--warmup must be at least 8 (steady state)")
    if a.option and a.pk:
        ap.error("--option applies to append compaction (bench_compact run) only")
    if any("=" not in o for o in a.option):
        ap.error("--option takes K=V")
    opt_args = [x for o in a.option for x in ("--option", o)]
    build = os.environ.get("BUILD", os.path.join(ROOT, "build"))
    bc = os.path.join(build, "bench", "bench_compact")
    java = os.path.join(ROOT, "bench", "java", "run.sh")
    java_bench = os.path.join(ROOT, "bench", "java", "run-pk-compact.sh" if a.pk else "run-append-compact.sh")
    cli = os.path.join(build, "paimon")
    have_java = subprocess.run([os.path.join(ROOT, "scripts", "java-oracle.sh")], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL).returncode == 0
    os.makedirs(a.work, exist_ok=True)
    src = a.inputs or os.path.join(a.work, f"in-pk-{a.runs}x{a.rows}" if a.pk else f"in-{a.files}x{a.rows}")
    tpath = lambda base: os.path.join(base, "db.db", "t")  # noqa: E731
    writer = "Apache Paimon Java 1.4.2" if have_java else "paimon-c (Java unavailable)"
    if not os.path.isdir(tpath(src)) and a.pk:
        if not have_java:
            sys.exit("fair.py --pk: needs the Java harness (scripts/java-oracle.sh) to write the inputs")
        subprocess.run([java, "write-pk", tpath(src), "--rows", str(a.rows // a.runs), "--runs", str(a.runs),
                        "--overlap", "0.5"], check=True, stdout=subprocess.DEVNULL)
    if not os.path.isdir(tpath(src)):
        if have_java:
            per = 1000 if a.files >= 10000 else 1
            cmd = [java, "write-append", tpath(src), "--rows", str(a.rows), "--commits", str(a.files // per)]
            if per > 1:
                cmd += ["--files-per-commit", str(per)]
        else:
            cmd = [bc, "gen", "--table", tpath(src), "--files", str(a.files), "--rows", str(a.rows // a.files)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    def fresh(name):
        def prep():
            dst = os.path.join(a.work, name)
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(src, dst)
            os.sync()
        return prep
    if a.pk:
        ours = lambda exe, d: [exe, "compact", tpath(os.path.join(a.work, d)), "--full", "--parallelism", "1"]  # noqa: E731
    else:
        ours = lambda exe, d: [exe, "run", "--table", tpath(os.path.join(a.work, d)), "--threads", "1"] + opt_args  # noqa: E731
    sides = [rounds.Side("paimon-c", ours(cli if a.pk else bc, "c"), fresh("c"))]
    if a.baseline and a.pk:
        sides.append(rounds.Side("paimon-c baseline", ours(a.baseline, "b"), fresh("b")))
    elif a.baseline:
        sides.append(rounds.Side("paimon-c baseline", ours(a.baseline, "b"), fresh("b")))
    if a.rewrite and not a.pk:
        sides.append(rounds.Side("paimon-c rewrite", ours(bc, "r") + ["--option", "compaction.parquet.page-passthrough=false"],
                                 fresh("r")))
    ceiling_tool = os.path.join(build, "bench", "bench_ceiling")
    ceiling_lists = (os.path.join(a.work, "ceiling-inputs.txt"), os.path.join(a.work, "ceiling-outputs.txt"))
    if not a.pk and os.path.exists(ceiling_tool):
        def ceiling_prep():
            """The lists of the ceiling side: the source's live files and the
            outputs of the side just run (the rewrite's, else paimon-c's)."""
            inputs = live_files(cli, tpath(src))
            names = {os.path.basename(f) for f in inputs}
            done = os.path.join(a.work, "r" if a.rewrite else "c")
            outputs = [f for f in live_files(cli, tpath(done)) if os.path.basename(f) not in names]
            for path, files in zip(ceiling_lists, (inputs, outputs)):
                with open(path, "w") as f:
                    f.write("".join(x + "\n" for x in files))
        sides.append(rounds.Side(CEILING, [ceiling_tool, "--inputs", ceiling_lists[0], "--outputs", ceiling_lists[1],
                                           "--rounds", "3"], ceiling_prep))
    if have_java and not a.no_java_steady:
        sides.append(rounds.Side("Java steady", [java_bench, tpath(os.path.join(a.work, "jw")), "--warmup",
                                                 str(a.warmup)], fresh("jw")))
    if have_java and not a.no_java_cold:
        sides.append(rounds.Side("Java cold", [java_bench, tpath(os.path.join(a.work, "jc"))], fresh("jc")))
    if a.inputs:  # --files/--rows describe generated inputs only
        what = (f"{'primary-key full' if a.pk else 'append'} compaction of {tpath(src)} "
                f"({len(live_files(cli, tpath(src)))} live data files)")
    else:
        what = (f"primary-key full compaction, {a.rows} records in {a.runs} runs" if a.pk
                else f"append compaction, {a.files} files, {a.rows} rows")
    if a.option:
        what += " (" + ", ".join(a.option) + ")"
    print(f"{what}, Parquet zstd-1; inputs written by {writer}; "
          f"{a.rounds} interleaved rounds; {rounds.load_note()} (shared machine)", flush=True)
    res = rounds.run(sides, a.rounds)
    if a.pk:
        ceiling = ceiling_out = comp_mb_s = dec_mb_s = in_unc = out_unc = None
    else:
        ceiling, ceiling_out, comp_mb_s, dec_mb_s, in_unc, out_unc = append_ceiling(a, src, tpath, cli)

    def cpu(name, r):
        if name == "Java steady":
            return r.inner["cpu_ms"] / 1000.0
        if name == CEILING:
            return r.inner["ceiling_cpu_s"]
        return r.process_cpu_s
    table = {}
    for s in sides:
        rs = res[s.name]
        table[s.name] = {"cpu_s": [cpu(s.name, r) for r in rs], "peak_rss_mb": [r.peak_rss_mb for r in rs],
                         "wall_s": [r.wall_s for r in rs]}
    c = table["paimon-c"]["cpu_s"]
    print(f"  {'side':<20} {'CPU-s median [min-max]':<26} {'peak RSS MB':<20} ratio vs paimon-c (per round)")
    for s in sides:
        if s.name == CEILING:
            continue
        t = table[s.name]
        ratio = "" if s.name == "paimon-c" else rounds.ratio_summary(t["cpu_s"], c)
        print(f"  {s.name:<20} {rounds.summary(t['cpu_s']):<26} {rounds.summary(t['peak_rss_mb'], '{:.0f}'):<20} {ratio}")
    sizes = {}
    if not a.pk:
        dirs = {"paimon-c": "c", "paimon-c baseline": "b", "paimon-c rewrite": "r", "Java steady": "jw", "Java cold": "jc"}
        names = {os.path.basename(f) for f in live_files(cli, tpath(src))}
        for s in sides:
            if s.name == CEILING:
                continue
            outs = [f for f in live_files(cli, tpath(os.path.join(a.work, dirs[s.name])))
                    if os.path.basename(f) not in names]
            sizes[s.name] = sum(os.path.getsize(f) for f in outs)
        ref = sizes.get("paimon-c rewrite")
        print("  output bytes (last round): " + ", ".join(
            f"{n} {b / 1e6:.2f} MB" + (f" ({b / ref:.3f}x the rewrite)" if ref and n != "paimon-c rewrite" else "")
            for n, b in sizes.items()))
    exact = None
    if CEILING in table:
        exact = table[CEILING]["cpu_s"]
        last = res[CEILING][-1].inner

        def at_ceiling(ceil):  # each paimon-c side's CPU as a share of a ceiling, per round
            return "; ".join(f"{n} at {rounds.ratio_summary(ceil, table[n]['cpu_s'], '{:.0%}')}"
                             for n in ("paimon-c", "paimon-c baseline", "paimon-c rewrite") if n in table)
        at = at_ceiling(exact)
        print(f"  zstd-1 ceiling (per round, libzstd {last['zstd']} as linked): {rounds.summary(exact)} CPU-s: "
              f"decompress the {last['input_pages']} input pages ({last['input_page_bytes'] / 1e6:.0f} MB) and "
              f"compress the {last['output_pages']} pages of the {'rewrite' if a.rewrite else 'paimon-c'} outputs "
              f"({last['output_page_bytes'] / 1e6:.0f} MB) again; {at}")
        if "ceiling_with_io_cpu_s" in last:  # a separate figure: never replaces the codec-only ceiling
            with_io = [r.inner["ceiling_with_io_cpu_s"] for r in res[CEILING]]
            io = [r.inner["io_read_cpu_s"] + r.inner["io_write_cpu_s"] for r in res[CEILING]]
            at_io = at_ceiling(with_io)
            print(f"  ceiling with the unavoidable file I/O (separate figure): {rounds.summary(with_io)} CPU-s: the "
                  f"codec-only ceiling + {rounds.summary(io)} CPU-s to read the {last['input_files']} input files "
                  f"({last['input_file_bytes'] / 1e6:.0f} MB) and write the {last['output_files']} output files' "
                  f"bytes ({last['output_file_bytes'] / 1e6:.0f} MB) from/to the page cache, no fsync; {at_io}")
    if ceiling is not None:
        print(f"  earlier estimate of the ceiling: {ceiling:.2f} CPU-s (decompress and compress again the "
              f"{in_unc / 1e6:.0f} MB of input pages at {dec_mb_s:.0f} / {comp_mb_s:.0f} MB/s, python-zstandard on "
              f"pyarrow's re-encoding); paimon-c runs at "
              f"{ceiling / rounds.median(c) * 100:.0f}% of it (median); with the outputs' own {out_unc / 1e6:.0f} MB "
              f"of pages: {ceiling_out:.2f} CPU-s ({ceiling_out / rounds.median(c) * 100:.0f}%)")
    if a.summary:
        import summary
        summary.append(a.summary, summary.record(
            what, "compact", {n: t["cpu_s"] for n, t in table.items() if n != CEILING},
            ceiling_cpu_s=rounds.median(exact) if exact else ceiling, note=f"inputs written by {writer}"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"files": a.files, "rows": a.rows, "writer": writer, "sides": table, "output_bytes": sizes,
                       "ceiling_exact_cpu_s": exact,
                       "ceiling_with_io_cpu_s": ([r.inner.get("ceiling_with_io_cpu_s") for r in res[CEILING]]
                                                 if CEILING in res else None), "ceiling_cpu_s": ceiling, "ceiling_out_cpu_s": ceiling_out,
                       "input_page_bytes": in_unc, "output_page_bytes": out_unc,
                       "zstd1_compress_mb_s": comp_mb_s, "zstd1_decompress_mb_s": dec_mb_s}, f)


if __name__ == "__main__":
    main()
