#!/usr/bin/env python3
"""scripts/code_stats.py — size facts of the C tree for the closing notes.

Prints: private includes in the front ends (cli/, python/src, examples/,
service/), files over 1,000 lines, and functions over 150 lines (a function
starts at a column-0 line that opens a parameter list and whose body brace
is at column 0; it ends at the next column-0 '}').
Usage: scripts/code_stats.py [--list]
"""
import os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FRONTS = ["cli", "python/src", "examples", "service"]
SRC = ["src", "cli", "include", "python/src", "examples", "service"]


def c_files(dirs):
    for d in dirs:
        p = os.path.join(ROOT, d)
        for base, _, names in os.walk(p):
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    yield os.path.join(base, n)


def private_includes():
    n = 0
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for f in c_files(FRONTS):
        d = os.path.dirname(f)
        for line in open(f, errors="replace"):
            m = inc.match(line)
            if not m or m.group(1).startswith("paimon/"):
                continue
            if os.path.exists(os.path.join(d, m.group(1))):
                continue
            n += 1
    return n


def functions(path):
    lines = open(path, errors="replace").read().split("\n")
    out, start, name = [], None, None
    for i, line in enumerate(lines):
        if start is None:
            if line.startswith("{") and i > 0:
                j = i - 1
                while j >= 0 and lines[j].strip() and not lines[j][0].isspace() is False:
                    j -= 1
                # walk back to the line holding the name
                k = i - 1
                while k > 0 and "(" not in lines[k]:
                    k -= 1
                m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", lines[k])
                start, name = i, m.group(1) if m else "?"
        elif line.startswith("}"):
            out.append((name, i - start + 1))
            start = None
    return out


def main():
    listing = "--list" in sys.argv
    big_files, big_funcs = [], []
    for f in c_files(SRC):
        rel = os.path.relpath(f, ROOT)
        n = sum(1 for _ in open(f, errors="replace"))
        if n > 1000:
            big_files.append((rel, n))
        if f.endswith(".c"):
            for name, length in functions(f):
                if length > 150:
                    big_funcs.append((rel, name, length))
    print(f"private includes in front ends: {private_includes()}")
    print(f"files over 1000 lines: {len(big_files)}")
    if listing:
        for rel, n in sorted(big_files, key=lambda x: -x[1]):
            print(f"  {n:6d} {rel}")
    print(f"functions over 150 lines: {len(big_funcs)}")
    if listing:
        for rel, name, n in sorted(big_funcs, key=lambda x: -x[2]):
            print(f"  {n:6d} {rel}:{name}")


if __name__ == "__main__":
    main()
