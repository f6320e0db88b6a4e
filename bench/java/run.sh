#!/usr/bin/env bash
# bench/java/run.sh — run the Apache Paimon Java oracle (PaimonOracle).
#   bench/java/run.sh <command> TABLE [options]   (see `run.sh` with no arguments)
# Builds the tool on first use (scripts/java-oracle.sh). JAVA_OPTS adds JVM
# flags (e.g. -Xmx4g). stdout carries only results; logs go to stderr.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# PAIMON_ORACLE_BUILT=1: the caller already ran scripts/java-oracle.sh (the
# bench wrappers do, so /usr/bin/time measures the JVM alone).
[ "${PAIMON_ORACLE_BUILT:-}" = 1 ] || "$ROOT/scripts/java-oracle.sh" >/dev/null
CP="$HERE/target/paimon-oracle-1.jar:$(cat "$HERE/target/classpath.txt")"
# -XX:TieredStopAtLevel is left default: benchmarks want the full JIT.
exec java ${JAVA_OPTS:-} -XX:+UseParallelGC -Xshare:auto \
    -Dorg.slf4j.simpleLogger.defaultLogLevel="${PAIMON_ORACLE_LOG:-warn}" \
    -cp "$CP" org.paimonc.oracle.PaimonOracle "$@"
