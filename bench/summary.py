#!/usr/bin/env python3
"""bench/summary.py — the one table `make bench` prints.

Every suite that compares paimon-c with a peer appends one JSON line per
workload to the file named by $BENCH_JSON (scripts/bench.sh sets it; the
suites pass it on as `--summary FILE` / `--emit FILE`), through record()
and append() below.  A line is one workload measured in one run:

  {"workload": "append compaction, 1,000 files, 2,000,000 rows",
   "suite": "compact",
   "base": "paimon-c",                       the side that is paimon-c
   "sides": {"paimon-c":   {"cpu_s": [0.80, 0.78, 0.83]},
             "Java steady": {"cpu_s": [2.79, 2.67, 2.94]},
             "Java cold":  {"cpu_s": [...]}},
   "ceiling_cpu_s": 0.62,                    optional: the zstd-1 ceiling
   "note": "inputs written by Apache Paimon Java 1.4.2"}   optional

cpu_s lists one value per round, in round order (rounds are interleaved,
so round i of every side saw about the same load).  Sides other than the
base are peers; their names say which (Java steady / Java cold, pypaimon,
pyarrow).

  summary.py FILE...        print the table of every line of the files
                            (lines without "workload" and "sides" are
                            skipped; a malformed line is an error)

Columns: the workload, the peer, paimon-c CPU-s and the peer's CPU-s as
median [min-max] over the rounds (bench/rounds.py), and the ratio: the
median of the per-round ratios peer / paimon-c with their range (> 1:
paimon-c used that many times less CPU).  A ceiling row says how close
paimon-c runs to the zstd-1 ceiling (ceiling / paimon-c median).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rounds  # noqa: E402

HEADER = ("workload", "peer", "paimon-c CPU-s", "peer CPU-s", "ratio (peer / paimon-c)")


def record(workload, suite, sides, base="paimon-c", ceiling_cpu_s=None, note=None):
    """One summary line.  sides: {name: [cpu seconds per round]}."""
    if base not in sides:
        raise ValueError(f"summary record {workload!r}: no base side {base!r}")
    r = {"workload": workload, "suite": suite, "base": base,
         "sides": {n: {"cpu_s": [float(v) for v in vs]} for n, vs in sides.items()}}
    if ceiling_cpu_s is not None:
        r["ceiling_cpu_s"] = float(ceiling_cpu_s)
    if note:
        r["note"] = note
    return r


def append(path, rec):
    """Append rec as one JSON line to path (no-op when path is empty)."""
    if not path:
        return
    with open(path, "a") as f:
        f.write(json.dumps(rec) + "\n")


def load(paths):
    recs = []
    for p in paths:
        with open(p) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError as e:
                    raise SystemExit(f"summary.py: {p}:{n}: not JSON: {e}")
                if isinstance(r, dict) and "workload" in r and "sides" in r:
                    recs.append(r)
    return recs


def rows_of(rec):
    """The table rows of one record: one per peer, then the ceiling."""
    base = rec.get("base", "paimon-c")
    sides = rec["sides"]
    if base not in sides:
        raise SystemExit(f"summary.py: workload {rec['workload']!r} has no side {base!r}")
    ours = sides[base]["cpu_s"]
    out = []
    first = True
    for name, s in sides.items():
        if name == base:
            continue
        out.append((rec["workload"] if first else "", name, rounds.summary(ours),
                    rounds.summary(s["cpu_s"]), rounds.ratio_summary(s["cpu_s"], ours)))
        first = False
    if first:  # no peer measured (e.g. Java unavailable)
        out.append((rec["workload"], "(no peer)", rounds.summary(ours), "-", "-"))
    c = rec.get("ceiling_cpu_s")
    if c is not None and ours:
        out.append(("", "zstd-1 ceiling", rounds.summary(ours), f"{c:.2f}",
                    f"paimon-c at {c / rounds.median(ours) * 100:.0f}% of it"))
    return out


def table(recs):
    rows = [HEADER]
    by_note = {}  # note -> the workloads it applies to (first-appearance order)
    for r in recs:
        rows.extend(rows_of(r))
        if r.get("note"):
            by_note.setdefault(r["note"], []).append(r["workload"])
    notes = [f"{n}: " + "; ".join(ws) for n, ws in by_note.items()]
    w = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
    lines = ["  ".join(c.ljust(w[i]) for i, c in enumerate(row)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * x for x in w))
    return lines, notes


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    recs = load(argv)
    if not recs:
        print("summary.py: no benchmark results in " + ", ".join(argv), file=sys.stderr)
        return 1
    lines, notes = table(recs)
    print("paimon-c against its peers: CPU seconds from the OS, median [min-max] of interleaved rounds; "
          f"{rounds.load_note()} now")
    for line in lines:
        print(line)
    for n in notes:
        print("  note: " + n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
