"""The build checks of `make test` catch what they exist to catch.

scripts/check_layers.py and scripts/check_symbols.py run on small synthetic
trees (a layers block, a few headers, a tiny libpaimon built here with cc)
that break one rule at a time; each break must be reported with the file
and the rule, and the clean tree must pass.  Then both run on this
repository (check_symbols needs build/, from `make build`).
"""
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LAYERS = ROOT / "scripts" / "check_layers.py"
SYMBOLS = ROOT / "scripts" / "check_symbols.py"

DOC = """\
# arch

```layers
base:   src/base     paimon/error.h
meta:   src/meta
lsm-dv: src/lsm src/dv
table:  src/table    paimon/table.h
{allow}
frontends: cli examples
```
"""


def write(root, rel, text=""):
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text))


def run(script, *args):
    r = subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


@pytest.fixture
def tree(tmp_path):
    write(tmp_path, "docs/architecture.md", DOC.format(allow=""))
    write(tmp_path, "include/paimon/error.h", "#include <stddef.h>\n")
    write(tmp_path, "include/paimon/table.h", '#include "paimon/error.h"\n')
    write(tmp_path, "src/base/buf.h", '#include "paimon/error.h"\n')
    write(tmp_path, "src/meta/schema.h", '#include "base/buf.h"\n#include <string.h>\n')
    write(tmp_path, "src/lsm/levels.h", '#include "meta/schema.h"\n')
    write(tmp_path, "src/dv/dv.c", '#include "dv.h"\n#include "meta/schema.h"\n')
    write(tmp_path, "src/dv/dv.h", "")
    write(tmp_path, "src/table/scan.c", '#include "paimon/table.h"\n#include "lsm/levels.h"\n#include "dv/dv.h"\n')
    write(tmp_path, "cli/main.c", '#include "cli.h"\n#include <paimon/table.h>\n#include <stdio.h>\n')
    write(tmp_path, "cli/cli.h", '#include "paimon/error.h"\n')
    return tmp_path


def test_layers_clean_tree_passes(tree):
    assert run(LAYERS, "--root", tree) == (0, "check_layers: src/, include/: ok\n")
    assert run(LAYERS, "--root", tree, "--frontends")[0] == 0


@pytest.mark.parametrize("rel, text, message", [
    ("src/base/bad.c", '#include "meta/schema.h"\n', "src/base/bad.c:1: #include \"meta/schema.h\": src/meta is in the higher layer 'meta'"),
    ("src/lsm/bad.c", '#include <table/x.h>\n', None),  # resolves nowhere: a system header
    ("src/dv/bad.c", '\n#include "lsm/levels.h"\n', "src/dv/bad.c:2: #include \"lsm/levels.h\": src/lsm is a sibling in layer 'lsm-dv'"),
    ("src/meta/bad.c", '#include "paimon/table.h"\n', "public header of the higher layer 'table'"),
    ("src/meta/bad.c", '#include "../table/scan.c"\n', "src/table is in the higher layer 'table'"),
    ("include/paimon/new.h", "", "include/paimon/new.h has no layer"),
    ("include/paimon/error.h", '#include "paimon/table.h"\n', "include/paimon/error.h:1: #include \"paimon/table.h\": public header of the higher layer 'table'"),
    ("include/paimon/error.h", '#include "base/buf.h"\n', "a public header includes only paimon/*.h"),
    ("src/util/x.c", '#include "base/buf.h"\n', "src/util/x.c: in no layer"),
])
def test_layers_each_break_is_reported(tree, rel, text, message):
    write(tree, rel, text)
    rc, out = run(LAYERS, "--root", tree)
    if message is None:
        assert rc == 0, out
    else:
        assert rc == 1 and message in out, out


def test_layers_allow_line_permits_one_sibling_edge(tree):
    write(tree, "src/dv/bad.c", '#include "lsm/levels.h"\n')
    write(tree, "docs/architecture.md", DOC.format(allow="allow: src/dv -> src/lsm"))
    assert run(LAYERS, "--root", tree)[0] == 0
    write(tree, "src/lsm/back.c", '#include "dv/dv.h"\n')  # only the named direction
    rc, out = run(LAYERS, "--root", tree)
    assert rc == 1 and "src/lsm/back.c" in out, out


def test_layers_allow_line_between_front_ends(tree):
    write(tree, "service/service.h", "")
    write(tree, "cli/cmd_serve.c", '#include "../service/service.h"\n')
    doc = DOC.replace("frontends: cli examples", "frontends: cli examples service")
    write(tree, "docs/architecture.md", doc.format(allow=""))
    rc, out = run(LAYERS, "--frontends", "--root", tree)
    assert rc == 1 and "service/service.h is outside cli/" in out, out
    write(tree, "docs/architecture.md", doc.format(allow="allow: cli -> service"))
    assert run(LAYERS, "--frontends", "--root", tree)[0] == 0
    write(tree, "service/back.c", '#include "../cli/cli.h"\n')  # only the named direction
    write(tree, "cli/cli.h", "")
    rc, out = run(LAYERS, "--frontends", "--root", tree)
    assert rc == 1 and "service/back.c" in out, out


def test_layers_listed_header_must_exist(tree):
    (tree / "include/paimon/table.h").unlink()
    write(tree, "src/table/scan.c", "")
    rc, out = run(LAYERS, "--root", tree)
    assert rc == 1 and "lists include/paimon/table.h, which does not exist" in out, out


def test_layers_block_is_required(tree):
    write(tree, "docs/architecture.md", "# no block\n")
    rc, out = run(LAYERS, "--root", tree)
    assert rc != 0 and "no ```layers block" in out


@pytest.mark.parametrize("text, message", [
    ('#include "table/scan.h"\n', "cli/bad.c:1: #include \"table/scan.h\": private header src/table/scan.h"),
    ('#include <base/buf.h>\n', "private header src/base/buf.h"),
    ('#include "../src/base/buf.h"\n', "private header src/base/buf.h"),
    ('#include "../examples/e.h"\n', "examples/e.h is outside cli/"),
])
def test_frontends_include_only_public_headers(tree, text, message):
    write(tree, "examples/e.h", "")
    write(tree, "src/table/scan.h", "")
    write(tree, "cli/bad.c", text)
    assert run(LAYERS, "--root", tree)[0] == 0  # the src part does not look at cli/
    rc, out = run(LAYERS, "--root", tree, "--frontends")
    assert rc == 1 and message in out, out


def test_layers_of_this_repository():
    rc, out = run(LAYERS)
    assert rc == 0, out


# --- check_symbols -----------------------------------------------------

VERSION_H = """\
#define PM_VERSION_MAJOR 2
#define PM_VERSION_MINOR 3
#define PM_VERSION_PATCH 4
#define PM_VERSION "2.3.4"
#define PM_ABI_VERSION 7
#define PM_API __attribute__((visibility("default")))
"""


def build_lib(root, header, source, soname="libpaimon.so.7"):
    """include/paimon/{version,api}.h and build/libpaimon.{so*,a} from source."""
    write(root, "include/paimon/version.h", VERSION_H)
    write(root, "include/paimon/api.h", '#include "paimon/version.h"\n#ifdef __cplusplus\nextern "C" {\n#endif\n'
          + header + "#ifdef __cplusplus\n}\n#endif\n")
    write(root, "src/lib.c", '#include "paimon/api.h"\n' + source)
    b = root / "build"
    b.mkdir(exist_ok=True)
    cc = os.environ.get("CC", "cc")
    base = [cc, "-fPIC", "-fvisibility=hidden", "-I", str(root / "include"), "-c", str(root / "src/lib.c"), "-o", str(b / "lib.o")]
    subprocess.run(base, check=True)
    real = b / "libpaimon.so.2.3.4"
    subprocess.run([cc, "-shared", f"-Wl,-soname,{soname}", str(b / "lib.o"), "-o", str(real)], check=True)
    for link in ("libpaimon.so", "libpaimon.so.7"):
        (b / link).unlink(missing_ok=True)
        (b / link).symlink_to(real.name)
    (b / "libpaimon.a").unlink(missing_ok=True)
    subprocess.run(["ar", "rcs", str(b / "libpaimon.a"), str(b / "lib.o")], check=True)
    return run(SYMBOLS, "--root", root, b)


GOOD_H = """\
/* a comment naming not_a_decl(void); */
typedef struct pm_x { int (*cb)(void *); } pm_x;
typedef void (*pm_fn)(int);
PM_API int pm_a(void);
PM_API const char *pm_b(int x,
                        int y) __attribute__((pure));
#define PM_MACRO(x) helper(x)
"""
GOOD_C = """\
int pm_a(void) { return 1; }
const char *pm_b(int x, int y) { return x + y ? "" : 0; }
int internal_helper(void) { return 2; }
"""


def test_symbols_clean_library_passes(tmp_path):
    rc, out = build_lib(tmp_path, GOOD_H, GOOD_C)
    assert rc == 0 and "exactly the 2 PM_API declarations" in out, out


@pytest.mark.parametrize("header, source, soname, message", [
    (GOOD_H + "int pm_c(void);\n", GOOD_C + "int pm_c(void) { return 3; }\n", "libpaimon.so.7",
     "include/paimon/api.h: pm_c is declared without PM_API"),
    (GOOD_H, GOOD_C + "__attribute__((visibility(\"default\"))) int leaked(void) { return 4; }\n", "libpaimon.so.7",
     "libpaimon.so exports leaked, which does not start with pm_"),
    (GOOD_H, GOOD_C + "__attribute__((visibility(\"default\"))) int pm_private(void) { return 5; }\n", "libpaimon.so.7",
     "libpaimon.so exports pm_private, which is not a PM_API declaration"),
    (GOOD_H + "PM_API void pm_missing(void);\n", GOOD_C, "libpaimon.so.7",
     "pm_missing is PM_API but libpaimon.so does not export it"),
    (GOOD_H + "PM_API void helper_api(void);\n", GOOD_C + "void helper_api(void) {}\n", "libpaimon.so.7",
     "public function helper_api does not start with pm_"),
    (GOOD_H, GOOD_C, "libpaimon.so.1", "soname libpaimon.so.1, expected libpaimon.so.7"),
])
def test_symbols_each_break_is_reported(tmp_path, header, source, soname, message):
    rc, out = build_lib(tmp_path, header, source, soname)
    assert rc == 1 and message in out, out


def test_symbols_of_this_repository():
    if not (ROOT / "build" / "libpaimon.so").exists():
        pytest.skip("build/libpaimon.so not built (make build)")
    rc, out = run(SYMBOLS)
    assert rc == 0, out
