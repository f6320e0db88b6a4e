#!/usr/bin/env python3
"""scripts/check_symbols.py — libpaimon exports exactly its public API.

The public API is every function declared in include/paimon/*.h; each such
declaration must carry PM_API (paimon/version.h).  The library is compiled
with hidden visibility, so:

  1. every function declared in include/paimon/*.h carries PM_API;
  2. every dynamic symbol libpaimon.so defines starts with `pm_` and is a
     PM_API declaration, and every PM_API declaration is defined by it;
  3. in libpaimon.a the symbols of default visibility are exactly the
     PM_API declarations too (the rest is hidden);
  4. libpaimon.so's soname is libpaimon.so.<PM_ABI_VERSION> and its file is
     libpaimon.so.<PM_VERSION>.

Headers are read after removing comments, preprocessor lines and the
`extern "C"` guards; a top-level statement (not a typedef) whose first
parenthesis follows an identifier is a function declaration.  Symbols come
from `nm -D` (the .so) and `readelf -s` (the .a).

Usage: scripts/check_symbols.py [--root DIR] [BUILD_DIR]   (default: build)
Prints one line per problem and exits 1 if there is any.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def strip_header(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"\\\n", " ", text)
    text = re.sub(r"^\s*#\s*ifdef\s+__cplusplus\b.*?^\s*#\s*endif[^\n]*", " ", text, flags=re.S | re.M)
    text = re.sub(r"^\s*#[^\n]*", " ", text, flags=re.M)
    return text


def statements(text):
    """Top-level statements (text up to a ';' at brace depth 0)."""
    out, cur, depth = [], [], 0
    for ch in text:
        cur.append(ch)
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == ";" and depth == 0:
            out.append(" ".join("".join(cur).split()))
            cur = []
    return out


def declarations(root):
    """[(header, name, has_pm_api, kind)] for functions (and PM_API variables)."""
    decls = []
    inc = os.path.join(root, "include", "paimon")
    for n in sorted(os.listdir(inc)):
        if not n.endswith(".h"):
            continue
        rel = f"include/paimon/{n}"
        for st in statements(strip_header(open(os.path.join(inc, n), encoding="utf-8").read())):
            words = IDENT.findall(st)
            if not words or words[0] == "typedef":
                continue
            api = "PM_API" in words
            m = re.match(r"([^(]*?)\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", st)
            if m and "{" not in m.group(1) and "=" not in m.group(1):
                decls.append((rel, m.group(2), api, "function"))
            elif api:
                m = re.search(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*(\[[^\]]*\])?\s*(=.*)?;$", st)
                decls.append((rel, m.group(1) if m else st, api, "variable"))
    return decls


def version_macros(root):
    text = open(os.path.join(root, "include", "paimon", "version.h"), encoding="utf-8").read()
    vals = dict(re.findall(r"^#define (PM_VERSION|PM_ABI_VERSION)\s+\"?([0-9.]+)\"?\s*$", text, re.M))
    return vals.get("PM_VERSION"), vals.get("PM_ABI_VERSION")


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"check_symbols: {' '.join(cmd)} failed: {r.stderr.strip()}")
    return r.stdout


def so_symbols(path):
    """Defined dynamic symbols, without the ones every linker adds."""
    out = set()
    for line in run(["nm", "-D", "--defined-only", "--format=posix", path]).splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind in ("A", "a") or name in ("_init", "_fini"):
            continue  # absolute linker symbols (_edata, _end, __bss_start), init/fini stubs
        out.add(name.split("@")[0])
    return out


def static_default_symbols(path):
    """Defined GLOBAL/WEAK symbols of default visibility in an archive."""
    out = set()
    for line in run(["readelf", "-sW", path]).splitlines():
        p = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(p) >= 8 and p[0].endswith(":") and p[4] in ("GLOBAL", "WEAK"):
            if p[5] == "DEFAULT" and p[6] != "UND":
                out.add(p[7])
    return out


def soname(path):
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", run(["readelf", "-dW", path]))
    return m.group(1) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", nargs="?", help="build directory (default: ROOT/build)")
    ap.add_argument("--root", default=ROOT, help="source tree holding include/paimon/")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    build = os.path.abspath(a.build or os.path.join(root, "build"))
    so, ar = os.path.join(build, "libpaimon.so"), os.path.join(build, "libpaimon.a")
    for f in (so, ar):
        if not os.path.exists(f):
            sys.exit(f"check_symbols: {f} not found (build first: make build)")
    problems = []
    decls = declarations(root)
    public = {}
    for rel, name, api, kind in decls:
        if not api:
            problems.append(f"{rel}: {name} is declared without PM_API")
        else:
            public[name] = rel
        if not name.startswith("pm_"):
            problems.append(f"{rel}: public {kind} {name} does not start with pm_")
    exported = so_symbols(so)
    for s in sorted(exported - set(public)):
        why = "does not start with pm_" if not s.startswith("pm_") else "is not a PM_API declaration of include/paimon/"
        problems.append(f"libpaimon.so exports {s}, which {why}")
    for s in sorted(set(public) - exported):
        problems.append(f"{public[s]}: {s} is PM_API but libpaimon.so does not export it")
    visible = static_default_symbols(ar)
    for s in sorted(visible - set(public)):
        problems.append(f"libpaimon.a: {s} has default visibility but is not a PM_API declaration")
    for s in sorted(set(public) - visible):
        problems.append(f"libpaimon.a: {s} (PM_API, {public[s]}) is not defined with default visibility")
    version, abi = version_macros(root)
    want = f"libpaimon.so.{abi}"
    got = soname(so)
    if got != want:
        problems.append(f"libpaimon.so: soname {got}, expected {want} (PM_ABI_VERSION)")
    real = os.path.basename(os.path.realpath(so))
    if real != f"libpaimon.so.{version}":
        problems.append(f"libpaimon.so: file {real}, expected libpaimon.so.{version} (PM_VERSION)")
    for p in problems:
        print(p)
    if problems:
        print(f"check_symbols: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_symbols: libpaimon.so ({got}) and libpaimon.a export exactly the "
          f"{len(public)} PM_API declarations of include/paimon/: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
