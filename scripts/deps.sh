#!/usr/bin/env bash
# scripts/deps.sh — install what paimon-c needs, idempotently and quietly.
#   scripts/deps.sh build   Debian packages to build the library and CLI
#   scripts/deps.sh test    + clang/libFuzzer, valgrind, headless Chromium (the service's status
#                           page test) and the Python test venv (.venv, or $PM_VENV):
#                           the oracles, Ray and scikit-build-core for the paimon_c package tests
# Runs `apt-get update` once, only when a package is missing.
set -euo pipefail
mode=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)

pkgs=(build-essential cmake pkg-config libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev
      libjansson-dev libroaring-dev libmicrohttpd-dev libcmocka-dev)
if [ "$mode" = test ] || [ "$mode" = bench ]; then
  pkgs+=(clang libclang-rt-14-dev valgrind python3-venv chromium)
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ "$mode" = test ] || [ "$mode" = bench ]; then
  venv="${PM_VENV:-$here/.venv}"
  req="$here/tests/interop/requirements.txt"
  stamp="$venv/.requirements.stamp"
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
  fi
  if [ ! -f "$stamp" ] || ! cmp -s "$req" "$stamp"; then
    echo "deps: installing the Python test requirements into $venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
    cp "$req" "$stamp"
  fi
fi
