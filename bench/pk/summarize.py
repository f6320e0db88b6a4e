"""bench/pk/summarize.py — the summary of interleaved benchmark rounds:
per engine the median and the min-max of every round, and ratios of the
medians against a base engine.

    summarize.py --title TEXT --base ENGINE [--rows N] [--emit FILE] RUN.json...

Each RUN is one JSON object of one round of one engine:
  engine        its label (e.g. paimon-c, java-cold, java-steady-8)
  rows          rows processed (--rows N overrides: the same N for all)
  wall_ms       wall-clock milliseconds of the measured part
  cpu_ms        CPU milliseconds of the measured part, from the OS (user +
                system of the process: getrusage / /usr/bin/time, the JVM's
                OperatingSystemMXBean.getProcessCpuTime, Python's
                time.process_time)
  process_cpu_s optional: CPU seconds of the whole process (start-up,
                warm-ups included), from /usr/bin/time
  peak_rss_mb   optional: peak resident set of the process (/usr/bin/time)
Printed per engine: rows/s per core (rows / CPU seconds), CPU seconds,
wall seconds, whole-process CPU seconds, peak RSS — each as median
[min-max] over the rounds; then per peer the ratios of the medians
(peer CPU / base CPU: how many times more CPU the peer needs per row;
wall likewise; base peak RSS / peer peak RSS).
--emit FILE also appends the CPU seconds of every round (in round order)
as one bench/summary.py line (workload = the title; java-cold and
java-steady-N are named Java cold and Java steady there).
"""
import argparse
import json
import os
import statistics
import sys


def spread(values, fmt):
    values = sorted(values)
    med = statistics.median(values)
    return "%s [%s-%s]" % (fmt % med, fmt % values[0], fmt % values[-1]), med


def side_name(engine):
    if engine == "java-cold":
        return "Java cold"
    if engine.startswith("java-steady"):
        return "Java steady"
    return engine


def emit(a, runs):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import summary
    sides = {}
    for r in runs:
        sides.setdefault(side_name(r["engine"]), []).append(r["cpu_ms"] / 1e3)
    summary.append(a.emit, summary.record(a.title, "pk", sides, base=a.base))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--title", required=True)
    ap.add_argument("--base", required=True)
    ap.add_argument("--rows", type=int)
    ap.add_argument("--emit", default=None)
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    runs = [json.loads(r) for r in a.runs]
    if a.emit:
        emit(a, runs)
    engines = []
    for r in runs:
        if r["engine"] not in engines:
            engines.append(r["engine"])
    print(a.title)
    print("  medians [min-max] of %d interleaved rounds; CPU seconds from the OS" %
          max(sum(1 for r in runs if r["engine"] == e) for e in engines))
    med = {}
    for e in engines:
        rs = [r for r in runs if r["engine"] == e]
        rows = a.rows or rs[0]["rows"]
        per_core, m_pc = spread([rows / (r["cpu_ms"] / 1e3) / 1e6 for r in rs], "%.2f")
        cpu, m_cpu = spread([r["cpu_ms"] / 1e3 for r in rs], "%.2f")
        wall, m_wall = spread([r["wall_ms"] / 1e3 for r in rs], "%.2f")
        rss, m_rss = ("-", None)
        if all("peak_rss_mb" in r for r in rs):
            rss, m_rss = spread([r["peak_rss_mb"] for r in rs], "%.0f")
        proc = ""
        if all("process_cpu_s" in r for r in rs):
            proc = "  process CPU %s s" % spread([r["process_cpu_s"] for r in rs], "%.2f")[0]
        med[e] = (m_cpu, m_wall, m_rss)
        print("  %-20s %s M rows/s per core  CPU %s s  wall %s s%s  peak RSS %s MB  (%d rows)" %
              (e, per_core, cpu, wall, proc, rss, rows))
    if a.base not in med:
        return
    b = med[a.base]
    for e in engines:
        if e == a.base:
            continue
        p = med[e]
        rss = ", peak RSS %.2f of %s's" % (b[2] / p[2], e) if b[2] and p[2] else ""
        print("    %s vs %s: CPU per row %.2fx, wall %.2fx%s" % (a.base, e, p[0] / b[0], p[1] / b[1], rss))


if __name__ == "__main__":
    sys.exit(main())
