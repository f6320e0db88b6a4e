#!/usr/bin/env python3
"""scripts/check_layers.py — the include rules of docs/architecture.md.

Reads the ```layers block of docs/architecture.md (one layer per line,
lowest first: `name: folders and public headers`; `allow: A -> B` lets
sibling folder A include B; `frontends: folders`) and checks every
#include:

  src      every file of src/ lies in a listed folder, and
           a file in src/<folder>/ includes only headers of its own folder,
           of folders of lower layers, and public headers (include/paimon/)
           of its own or lower layers; sibling folders of one layer do not
           include each other unless an `allow` line says so.
  include  every include/paimon/*.h is listed in the block, and includes
           only system headers and public headers of its own or lower
           layers.
  frontends  a file under a front-end folder (cli/, python/src/, examples/,
           service/; those that exist) includes only `paimon/*.h`, headers
           of its own folder, and system headers -- and of another front
           end when an `allow: A -> B` line names both (cli -> service:
           `paimon serve`).

An include is resolved as the compiler does with `-Iinclude -Isrc`: a
quoted name first beside the including file, then in include/ and src/;
a name found in neither is a system header.

Usage: scripts/check_layers.py [--src] [--frontends] [--root DIR]
(no option = --src, which covers src/ and include/).  Prints one line per
violation and exits 1 if there is any.
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def read_layers(root):
    """(layers, allow, frontends): layers is a list of (name, folders,
    headers) lowest first."""
    doc = os.path.join(root, "docs", "architecture.md")
    text = open(doc, encoding="utf-8").read()
    m = re.search(r"^```layers\n(.*?)^```", text, re.S | re.M)
    if not m:
        sys.exit(f"check_layers: no ```layers block in {doc}")
    layers, allow, fronts = [], set(), []
    for n, line in enumerate(m.group(1).split("\n"), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, rest = line.partition(":")
        if not sep:
            sys.exit(f"check_layers: layers block line {n}: expected 'name: entries': {line!r}")
        name, words = name.strip(), rest.split()
        if name == "allow":
            a = rest.split("->")
            if len(a) != 2 or not a[0].strip() or not a[1].strip():
                sys.exit(f"check_layers: layers block line {n}: expected 'allow: A -> B': {line!r}")
            allow.add((a[0].strip().rstrip("/"), a[1].strip().rstrip("/")))
        elif name == "frontends":
            fronts = [w.rstrip("/") for w in words]
        else:
            folders = [w.rstrip("/") for w in words if not w.startswith("paimon/")]
            headers = [w for w in words if w.startswith("paimon/")]
            layers.append((name, folders, headers))
    return layers, allow, fronts


class Rules:
    def __init__(self, root):
        self.root = root
        layers, self.allow, self.fronts = read_layers(root)
        self.layer_of_folder, self.layer_of_header, self.names = {}, {}, []
        for rank, (name, folders, headers) in enumerate(layers):
            self.names.append(name)
            for f in folders:
                self.layer_of_folder[f] = rank
            for h in headers:
                self.layer_of_header[h] = rank
        self.front_allow = {(a, b) for (a, b) in self.allow if a in self.fronts and b in self.fronts}
        self.allow -= self.front_allow
        for (a, b) in self.allow:
            for f in (a, b):
                if f not in self.layer_of_folder:
                    sys.exit(f"check_layers: allow names {f}, which is no layer's folder")

    def folder_of(self, rel):
        """The layer folder holding rel (longest match), or None."""
        best = None
        for f in self.layer_of_folder:
            if rel.startswith(f + "/") and (best is None or len(f) > len(best)):
                best = f
        return best

    def resolve(self, src_rel, quote, name):
        """('public', 'paimon/x.h') | ('private', 'src/...') | ('local', rel) | ('system', name)."""
        cands = []
        if quote == '"':
            cands.append(os.path.normpath(os.path.join(os.path.dirname(src_rel), name)))
        cands += [os.path.normpath(os.path.join("include", name)), os.path.normpath(os.path.join("src", name))]
        for c in cands:
            if os.path.isfile(os.path.join(self.root, c)):
                if c.startswith("include/"):
                    return "public", c[len("include/"):]
                if c.startswith("src/"):
                    return "private", c
                return "local", c
        return "system", name

    def header_rank(self, header, where, out):
        rank = self.layer_of_header.get(header)
        if rank is None:
            out.append(f"{where}: include/{header} has no layer: add it to the line of the layer "
                       "that implements it in docs/architecture.md's ```layers block")
        return rank


def c_files(root, folder):
    base = os.path.join(root, folder)
    for d, _, names in os.walk(base):
        for n in sorted(names):
            if n.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(d, n), root)


def includes(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield n, m.group(1), m.group(2)


def check_src(r, out):
    for rel in c_files(r.root, "src"):
        if r.folder_of(rel) is None:
            out.append(f"{rel}: in no layer: add its folder to docs/architecture.md's ```layers block")
    for folder in sorted(r.layer_of_folder):
        if not os.path.isdir(os.path.join(r.root, folder)):
            continue
        for rel in c_files(r.root, folder):
            if r.folder_of(rel) != folder:
                continue  # belongs to a nested layer folder
            rank = r.layer_of_folder[folder]
            for n, q, name in includes(r.root, rel):
                where = f"{rel}:{n}: #include {q}{name}{'>' if q == '<' else q}"
                kind, target = r.resolve(rel, q, name)
                if kind == "public":
                    hr = r.header_rank(target, where, out)
                    if hr is not None and hr > rank:
                        out.append(f"{where}: public header of the higher layer '{r.names[hr]}' "
                                   f"({folder} is in '{r.names[rank]}')")
                elif kind in ("private", "local"):
                    tf = r.folder_of(target)
                    if tf is None:
                        out.append(f"{where}: {target} is in no layer of docs/architecture.md")
                    elif tf == folder or (folder, tf) in r.allow:
                        continue
                    elif r.layer_of_folder[tf] > rank:
                        out.append(f"{where}: {tf} is in the higher layer '{r.names[r.layer_of_folder[tf]]}' "
                                   f"({folder} is in '{r.names[rank]}')")
                    elif r.layer_of_folder[tf] == rank:
                        out.append(f"{where}: {tf} is a sibling in layer '{r.names[rank]}' "
                                   f"(siblings do not include each other; see 'allow:' in docs/architecture.md)")


def check_public(r, out):
    for rel in c_files(r.root, "include/paimon"):
        header = rel[len("include/"):]
        rank = r.header_rank(header, rel, out)
        for n, q, name in includes(r.root, rel):
            where = f"{rel}:{n}: #include {q}{name}{'>' if q == '<' else q}"
            kind, target = r.resolve(rel, q, name)
            if kind == "private" or (kind == "local" and not target.startswith("include/")):
                out.append(f"{where}: a public header includes only paimon/*.h and system headers")
            elif kind == "public" and rank is not None:
                hr = r.header_rank(target, where, out)
                if hr is not None and hr > rank:
                    out.append(f"{where}: public header of the higher layer '{r.names[hr]}'")
    for h in sorted(r.layer_of_header):
        if not os.path.isfile(os.path.join(r.root, "include", h)):
            out.append(f"docs/architecture.md: the layers block lists include/{h}, which does not exist")


def check_frontends(r, out):
    for front in r.fronts:
        if not os.path.isdir(os.path.join(r.root, front)):
            continue
        for rel in c_files(r.root, front):
            for n, q, name in includes(r.root, rel):
                where = f"{rel}:{n}: #include {q}{name}{'>' if q == '<' else q}"
                kind, target = r.resolve(rel, q, name)
                if kind == "private":
                    out.append(f"{where}: private header {target} (front ends include only paimon/*.h)")
                elif kind == "local" and not (target + "/").startswith(front + "/") and not any(
                        (front, b) in r.front_allow and target.startswith(b + "/") for b in r.fronts):
                    out.append(f"{where}: {target} is outside {front}/ (front ends include only paimon/*.h)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", action="store_true", help="src/ and include/ (the default)")
    ap.add_argument("--frontends", action="store_true", help="cli/, python/src/, examples/, service/")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    a = ap.parse_args()
    if not a.src and not a.frontends:
        a.src = True
    r = Rules(os.path.abspath(a.root))
    out = []
    if a.src:
        check_src(r, out)
        check_public(r, out)
    if a.frontends:
        check_frontends(r, out)
    for line in out:
        print(line)
    parts = " and ".join(p for p, on in (("src/, include/", a.src), ("front ends", a.frontends)) if on)
    if out:
        print(f"check_layers: {len(out)} include(s) break the layers of docs/architecture.md ({parts})",
              file=sys.stderr)
        return 1
    print(f"check_layers: {parts}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
