#!/usr/bin/env bash
# scripts/test_examples.sh — libpaimon as an installed library, used the way
# a C programmer outside this repository uses it.
#
#   scripts/test_examples.sh [BUILD_DIR]      (default: build; run by make test)
#
# 1. `cmake --install BUILD_DIR --prefix TMP` and checks what arrived:
#    exactly include/paimon/*.h, libpaimon.so.<version> with its soname link,
#    libpaimon.a, lib/pkgconfig/paimon.pc (version = PM_VERSION), bin/paimon.
# 2. Builds every examples/*.c twice with only what pkg-config says:
#      cc -std=c17 -Wall -Wextra -Werror X.c $(pkg-config --cflags --libs paimon)
#      the same with $(pkg-config --static --libs paimon) and libpaimon.a
#    and checks that the first needs libpaimon.so.<ABI> and the second no
#    libpaimon at all.
# 3. Runs each build in a fresh temporary directory.  With examples/X.sh
#    beside X.c, that script runs it (bash -euo pipefail) and checks what it
#    did, with these variables and functions:
#      EXAMPLE   the compiled example      PAIMON   the installed CLI
#      WORK      an empty directory        expect FILE REGEX   (grep -E a line)
#    Without one, `X WORK` must exit 0.  So adding an example is dropping a
#    .c file (and optionally its .sh) into examples/.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/paimon-examples.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "test_examples: $*" >&2; exit 1; }

version=$(sed -n 's/^#define PM_VERSION "\(.*\)"$/\1/p' "$here/include/paimon/version.h")
abi=$(sed -n 's/^#define PM_ABI_VERSION \([0-9]*\)$/\1/p' "$here/include/paimon/version.h")
[ -n "$version" ] && [ -n "$abi" ] || fail "cannot read PM_VERSION / PM_ABI_VERSION from include/paimon/version.h"

# 1. install
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log" >&2; fail "cmake --install failed"; }
want=$(cd "$here/include" && ls paimon/*.h | sort)
got=$(cd "$prefix/include" && find . -type f | sed 's#^\./##' | sort)
[ "$want" = "$got" ] || fail "installed headers differ from include/paimon/*.h:"$'\n'"$(diff <(echo "$want") <(echo "$got"))"
lib=$prefix/lib
for f in libpaimon.a "libpaimon.so.$version" "pkgconfig/paimon.pc"; do
  [ -f "$lib/$f" ] || fail "not installed: lib/$f"
done
[ "$(readlink "$lib/libpaimon.so")" = "libpaimon.so.$abi" ] || fail "lib/libpaimon.so does not link to libpaimon.so.$abi"
[ "$(readlink "$lib/libpaimon.so.$abi")" = "libpaimon.so.$version" ] || fail "lib/libpaimon.so.$abi does not link to libpaimon.so.$version"
[ -x "$prefix/bin/paimon" ] || fail "not installed: bin/paimon"

export PKG_CONFIG_PATH=$lib/pkgconfig
unset PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR
[ "$(pkg-config --modversion paimon)" = "$version" ] || fail "pkg-config --modversion paimon is not $version"
cflags=$(pkg-config --cflags paimon)
libs=$(pkg-config --libs paimon)
static_libs=$(pkg-config --static --libs paimon)
static_libs=${static_libs/-lpaimon/-l:libpaimon.a}
rpath=-Wl,-rpath,$(pkg-config --variable=libdir paimon)

# Helpers for examples/X.sh.
expect() {  # expect FILE REGEX: some line of FILE matches the extended regex
  grep -Eq -- "$2" "$1" || { echo "expected a line matching /$2/ in $1:" >&2; sed 's/^/  | /' "$1" >&2; return 1; }
}
export -f expect
export PAIMON=$prefix/bin/paimon

# 2 + 3. build and run every example
shopt -s nullglob
sources=("$here"/examples/*.c)
[ ${#sources[@]} -gt 0 ] || fail "no examples/*.c"
mkdir -p "$tmp/bin"
for src in "${sources[@]}"; do
  name=$(basename "$src" .c)
  for kind in shared static; do
    bin=$tmp/bin/$name-$kind
    # shellcheck disable=SC2086  # pkg-config output is a list of words
    if [ $kind = shared ]; then
      $cc -std=c17 -Wall -Wextra -Werror "$src" $cflags $libs "$rpath" -o "$bin" 2>"$tmp/cc.log" ||
        { cat "$tmp/cc.log" >&2; fail "$name: cannot build against the installed libpaimon.so"; }
      readelf -d "$bin" | grep -q "NEEDED.*\[libpaimon\.so\.$abi\]" || fail "$name: does not need libpaimon.so.$abi"
    else
      $cc -std=c17 -Wall -Wextra -Werror "$src" $cflags $static_libs -o "$bin" 2>"$tmp/cc.log" ||
        { cat "$tmp/cc.log" >&2; fail "$name: cannot build against the installed libpaimon.a"; }
      ! readelf -d "$bin" | grep -q 'NEEDED.*libpaimon' || fail "$name: the static build needs a libpaimon.so"
    fi
    work=$tmp/run/$name-$kind
    mkdir -p "$work"
    t0=$(date +%s%N)
    if [ -f "$here/examples/$name.sh" ]; then
      (cd "$work" && EXAMPLE=$bin WORK=$work bash -euo pipefail "$here/examples/$name.sh") >"$tmp/run.log" 2>&1 ||
        { sed 's/^/  | /' "$tmp/run.log" >&2; fail "$name ($kind): examples/$name.sh failed"; }
    else
      rc=0
      (cd "$work" && "$bin" "$work") >"$tmp/run.log" 2>&1 || rc=$?
      [ $rc = 0 ] || { sed 's/^/  | /' "$tmp/run.log" >&2; fail "$name ($kind): exited with status $rc"; }
    fi
    echo "examples: $name ($kind) ok in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  done
done
echo "examples: ${#sources[@]} example(s) built against the installed prefix (shared and static) and run: ok"
