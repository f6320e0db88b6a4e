#!/usr/bin/env python3
"""bench/rounds.py — interleaved benchmark rounds and their honest summary.

The one place the benchmark drivers get their statistics from (the machine
is shared, so a single run or the best of several says little):

  run(sides, rounds)   runs every side once per round, in the same order
                       every round (A B C, A B C, ...), so load that changes
                       over time hits every side alike.  A side is a
                       Side(name, argv, prepare=None, env=None): `prepare()`
                       (untimed: e.g. a fresh copy of the input table) runs
                       before each of its runs.  Each run is one child
                       process; the OS accounting of that process (wait4:
                       user + system CPU seconds, peak RSS) is recorded with
                       the wall time and the last JSON line the process
                       printed (inner timings, e.g. Java's measured run
                       after its warm-ups).  Side(..., own_rss=True) runs
                       argv under `/usr/bin/time -f %M` and takes that as
                       the peak RSS: the process's own high-water mark
                       (time's child is forked from a small process), for
                       programs that do not print their VmHWM (see
                       run_once on ru_maxrss).
  summary(values)      "median [min-max]" (never the best run alone).
  median(values)

Result: {side name: [Run, ...]} where Run has process_cpu_s, peak_rss_mb,
wall_s and inner (the parsed JSON line, {} when none).
"""
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field


@dataclass
class Side:
    name: str
    argv: list
    prepare: object = None  # callable, untimed, before every run
    env: dict = None
    own_rss: bool = False   # peak RSS from /usr/bin/time (the process's own)


@dataclass
class Run:
    process_cpu_s: float
    peak_rss_mb: float
    wall_s: float
    inner: dict = field(default_factory=dict)


def run_once(side):
    if side.prepare:
        side.prepare()
    env = dict(os.environ)
    if side.env:
        env.update(side.env)
    argv = list(side.argv)
    rss_file = None
    if side.own_rss:
        import tempfile
        fd, rss_file = tempfile.mkstemp(prefix="rounds-rss-")
        os.close(fd)
        argv = ["/usr/bin/time", "-f", "%M", "-o", rss_file] + argv
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, env=env)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    own_kb = None
    if rss_file:
        with open(rss_file) as f:
            words = f.read().split()
        os.unlink(rss_file)
        own_kb = float(words[-1]) if words and p.returncode == 0 else None
    if p.returncode != 0:
        raise RuntimeError(f"{side.name}: {' '.join(map(str, side.argv))} exited {p.returncode}")
    inner = {}
    for line in reversed(out.decode(errors="replace").splitlines()):
        line = line.strip()
        if line.startswith("{"):
            inner = json.loads(line)
            break
    rss = ru.ru_maxrss / 1024.0
    # Linux keeps the pre-exec high-water mark in ru_maxrss: a child forked
    # from this (big) Python process reports at least the harness's size.  A
    # process that prints its own peak (bench_compact: VmHWM, reset by exec)
    # is taken at its word when lower.
    own = inner.get("peak_rss_mb") if isinstance(inner, dict) else None
    if isinstance(own, (int, float)) and 0 < own < rss:
        rss = float(own)
    if own_kb is not None:
        rss = own_kb / 1024.0
    return Run(ru.ru_utime + ru.ru_stime, rss, wall, inner)


def run(sides, rounds, log=sys.stderr):
    res = {s.name: [] for s in sides}
    for i in range(rounds):
        for s in sides:
            r = run_once(s)
            res[s.name].append(r)
            if log:
                print(f"    round {i + 1}/{rounds} {s.name}: {r.process_cpu_s:.2f} CPU-s (process), "
                      f"{r.peak_rss_mb:.0f} MB peak RSS", file=log, flush=True)
    return res


def median(values):
    return statistics.median(values)


def summary(values, fmt="{:.2f}"):
    values = list(values)
    if not values:
        return "-"
    if len(values) == 1:
        return fmt.format(values[0]) + " (1 run)"
    return f"{fmt.format(median(values))} [{fmt.format(min(values))}-{fmt.format(max(values))}]"


def ratio_summary(num, den, fmt="{:.1f}x"):
    """Median ratio of two sides measured in the same rounds, with the range
    of the per-round ratios (round i of one side against round i of the
    other: both saw about the same load)."""
    rs = [a / b for a, b in zip(num, den) if b]
    return summary(rs, fmt)


def load_note():
    """One line saying how loaded the machine was (1-minute load average)."""
    try:
        la = os.getloadavg()[0]
    except OSError:
        return "load average unknown"
    return f"load average {la:.1f} on {os.cpu_count()} CPUs"
